#!/usr/bin/env python3
"""Count the spec's ASL test points per directory and how many of them the
project's tests translate (their AVS id appears somewhere under tests/), and
classify the untranslated ones by why the extractors cannot translate them.

Writes the table between the generated-section markers of
docs/spec-coverage.md (``--write``) or prints it.  The reason of an
untranslated point comes from the symbolic executor of
tools/extract_bundle_vectors.py (a superset of the scalar and block
extractors), or of tools/extract_datatype_vectors.py for ``arch/data-types``,
folded into a few categories.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.dont_write_bytecode = True
_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("extract_bundle_vectors", _HERE / "extract_bundle_vectors.py")
bundle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bundle)
base = bundle.base
_spec = importlib.util.spec_from_file_location("extract_datatype_vectors", _HERE / "extract_datatype_vectors.py")
datatype = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(datatype)

GROUPS = (
    "block/lifecycle", "block/encoding", "block/attributes", "block/operands",
    "block/execution", "block/model/commit", "block/model/dispatch", "block/model/faults",
    "block/model/lifecycle", "block/model/operands", "block/model/schema", "block/model/state",
    "arch/state", "arch/programming-model", "arch/memory-model",
    "tile/model/state", "tile/model/definedness", "tile/model/shape", "tile/model/legality",
    "tile/model/memory", "tile/model/execution", "tile/model/numeric", "tile/model/ordering",
    "tile/model/capacity", "tile/model/dispatch",
    "tile/elementwise-tile-tile", "tile/tile-scalar-and-immediate", "tile/reduce-and-expand",
    "tile/layout-and-rearrangement", "tile/irregular-and-complex", "tile/memory-and-data-movement",
    "tile/matrix-and-matrix-vector", "scalar/model", "arch/data-types",
)
# Directories whose points tools/extract_datatype_vectors.py translates (the
# reason of an untranslated point comes from that extractor).
DATATYPE_GROUPS = frozenset({"arch/data-types"})
BEGIN, END = "<!-- BEGIN GENERATED: tools/spec_coverage.py -->", "<!-- END GENERATED -->"

# Skip reason of the symbolic executor -> category (first match wins).
CATEGORIES = (
    ("static", r"^static invariant"),
    ("asserts only model helpers or decoding", r"decode-only|no architectural observation"),
    ("CUBE/matrix set-up", r"Cube|FixedPoint|Matrix|FPATR|FeatureMap|SharedTile|InstallShared"),
    ("ASL syntax (tuples, record literals, case)", r"^syntax"),
    ("model-internal state or helper",
     r"state variable|assignment to|call to|helper value|record/array|model state call"),
    ("not encodable as an instruction", r"not encodable|without a PEMode|without a B.IOT form"),
    ("semantic handler call no bundle expresses",
     r"aliased destination|bundle accepts|not one bundle|single bundle|one B\.IOT|two tiles for operand"),
)


def category(reason: str) -> str:
    for name, pattern in CATEGORIES:
        if re.search(pattern, reason):
            return name
    return "other: " + reason


DECODE_VECTORS = "spec_decode_positive.json"


def expand_braces(text: str) -> list[str]:
    """PTO-AVS-TILE-T{ROW,COL}X-001 -> both ids (one table row covers a pair)."""
    m = re.search(r"\{([A-Z0-9,]+)\}", text)
    if not m:
        return [text]
    return [out for alt in m.group(1).split(",")
            for out in expand_braces(text[:m.start()] + alt + text[m.end():])]


def covered_ids(tests_dir: Path, decode: bool) -> set[str]:
    """AVS ids in the decode vectors (decode=True) or in every other test
    source and data file (executed points).  Test names spell an id with
    underscores (TEST(..., PTO_AVS_TILE_TSUB_ORDER_001))."""
    ids: set[str] = set()
    for p in tests_dir.rglob("*"):
        if p.is_file() and p.suffix in (".json", ".cpp", ".hpp") and (p.name == DECODE_VECTORS) == decode:
            for found in re.findall(r"PTO[-_]AVS[-_][A-Z0-9_{},-]*[A-Z0-9]", p.read_text(errors="replace")):
                ids.update(expand_braces(found.replace("_", "-")))
    return ids


def table(spec: Path, root: Path, generated: str, catalog_dir: Path) -> str:
    scalar_forms = json.loads((catalog_dir / "scalar-forms.json").read_text())["forms"]
    index = base.FunctionIndex(spec, generated)
    executed, decoded = covered_ids(root / "tests", False), covered_ids(root / "tests", True)
    rows, totals = [], Counter()
    for group in GROUPS:
        c, why = Counter(), Counter()
        for path in sorted((spec / "tests/asl" / group).rglob("*.asl")):
            header = base.HEADER_RE.findall(path.read_text())
            avs = json.loads(header[0])["id"] if len(header) == 1 else None
            c["total"] += 1
            if avs in executed:
                c["covered"] += 1
                continue
            if avs in decoded:
                c["decode"] += 1
                continue
            rel = path.relative_to(spec).as_posix()
            if group in DATATYPE_GROUPS:
                _, reason = datatype.translate(path, rel)
            else:
                _, reason = bundle.translate(path, rel, index, scalar_forms)
            kind = category(reason or "translatable, not yet in the data")
            c["static" if kind == "static" else "open"] += 1
            if kind != "static":
                why[kind] += 1
        totals.update(c)
        reasons = "; ".join(f"{n} {k}" for k, n in why.most_common())
        rows.append(f"| `{group}` | {c['total']} | {c['covered']} | {c['decode']} | {c['static']} | {c['open']} "
                    f"| {reasons} |")
    head = ("| Directory (`tests/asl/…`) | Points | Executed | Decode vector | Static invariant | "
            "Not translated | Why not translated |\n|---|---:|---:|---:|---:|---:|---|")
    foot = (f"| **total** | {totals['total']} | {totals['covered']} | {totals['decode']} | {totals['static']} "
            f"| {totals['open']} | |")
    return "\n".join([head, *rows, foot])


def main(argv=None) -> int:
    root = _HERE.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", type=Path, default=Path("/work/spec"))
    ap.add_argument("--generated", type=Path, default=None,
                    help="output of `generate-asl-decoders --kind monolithic` (default: run it)")
    ap.add_argument("--catalog-dir", type=Path, default=None)
    ap.add_argument("--write", action="store_true", help="update docs/spec-coverage.md in place")
    args = ap.parse_args(argv)
    if args.catalog_dir is None:
        shared = Path("/work/shared/pto-spec-0.58.3/catalog")
        args.catalog_dir = shared if shared.is_dir() else args.spec / "spec/catalog"
    generated = args.generated.read_text() if args.generated else base.run_generator(args.spec)
    text = table(args.spec, root, generated, args.catalog_dir)
    if not args.write:
        print(text)
        return 0
    doc = root / "docs/spec-coverage.md"
    old = doc.read_text()
    if BEGIN not in old or END not in old:
        print(f"{doc}: generated-section markers missing", file=sys.stderr)
        return 1
    doc.write_text(old[:old.index(BEGIN) + len(BEGIN)] + "\n" + text + "\n" + old[old.index(END):])
    print(f"updated {doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
