#!/usr/bin/env python3
"""Convert the PTO 0.58.3 hardware numeric vectors into the committed test
data file tests/data/numerics_hardware_vectors.json.

Usage: tools/gen_numerics_vectors.py [SOURCE_JSON] [OUTPUT_JSON]

Defaults: /work/shared/pto-spec-0.58.3/evidence/pto-isa-0583-hardware-numeric-vectors.json
       -> tests/data/numerics_hardware_vectors.json (relative to repo root).
The vector content (facts: inputs and expected values) is copied verbatim;
only provenance metadata is added so tests run on a fresh clone.
"""
import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_SRC = pathlib.Path("/work/shared/pto-spec-0.58.3/evidence/pto-isa-0583-hardware-numeric-vectors.json")
DEFAULT_DST = ROOT / "tests" / "data" / "numerics_hardware_vectors.json"


def main() -> int:
    src = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SRC
    dst = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_DST
    raw = src.read_bytes()
    data = json.loads(raw)
    groups = data["vector_groups"]
    count = 0
    for v in groups.values():
        if isinstance(v, list):
            count += len(v)
        elif isinstance(v, dict):
            count += len(v.get("vectors", v.get("discriminator_vectors", []))) or 1
    out = {
        "generated_by": "tools/gen_numerics_vectors.py",
        "source_file": src.name,
        "source_sha256": hashlib.sha256(raw).hexdigest(),
        "hardware_profile_id": data["hardware_profile_id"],
        "release": data["release"],
        "vector_count_estimate": count,
        "vector_groups": groups,
        "reference_profile": data["reference_profile"],
    }
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {dst} ({len(groups)} groups)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
