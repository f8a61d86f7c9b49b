#!/usr/bin/env python3
"""Extract the tile-operation catalog-alignment points of the PTO spec's ASL
tests (``tile-static-<op>-contract-001.asl`` and the dispatch/model
``*-contract-001.asl`` units, header kind ``static-invariant``) into
``tests/data/spec_tile_contracts.json``, checked against the model's tile
operation table by tests/unit/isa_tile_contract_spec_test.cpp.

A point qualifies when its ``main()`` is a straight list of assertions; each
recognised assertion becomes one check, any other assertion is counted in
``omitted_checks`` (the point is then ``complete: false``).  Nothing is
computed here: every value is the one the assertion states.

Checks (``index`` is the ASL tile operation index, TileOperationIndex)::

  {"check":"decode","family":"TEPL"|"TLSU"|"CUBE","code":n,"index":i}
        DecodeTileOperation(TileDecode_<family>, <12-bit code>) == i
  {"check":"operation","index":i,"value":"TADD"}    TileOperationOfIndex(i)
  {"check":"handler","index":i,"value":"ExecuteTileBinary"}  TileHandlerOfIndex(i)
  {"check":"class","index":i,"value":"ElementwiseTileTile"}   TileClassOfIndex(i)
  {"check":"engine","index":i,"value":"VEC"}        TileEngineOfIndex(i)
  {"check":"contract_operation","contract":"TADD","value":"TADD"}
        InstructionContractOperation_<contract>()
  {"check":"contract_handler","contract":"TADD","value":"ExecuteTileBinary"}
        InstructionContractHandler_<contract>()
  {"check":"cube_function","contract":"TMATMUL","value":n}
        InstructionContractCubeFunction_<contract>()
  {"check":"shared_operands_allowed","contract":"TGEMV","value":false}
        InstructionContractSharedOperandsAllowed_<contract>()
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

HEADER_RE = re.compile(r"^//\s*PTO-TEST:\s*(\{.*\})\s*$", re.MULTILINE)
MAIN_RE = re.compile(r"func main\(\) => integer\s*begin(.*?)\breturn 0;\s*end;", re.DOTALL)
CHECKS = (
    (re.compile(r"DecodeTileOperation\(TileDecode_(TEPL|TLSU|CUBE), '([01]{12})'\) == (\d+)"),
     lambda m: {"check": "decode", "family": m[1], "code": int(m[2], 2), "index": int(m[3])}),
    (re.compile(r"TileOperationOfIndex\((\d+)\) == TileOperation_(\w+)"),
     lambda m: {"check": "operation", "index": int(m[1]), "value": m[2]}),
    (re.compile(r"TileHandlerOfIndex\((\d+)\) == TileHandler_(\w+)"),
     lambda m: {"check": "handler", "index": int(m[1]), "value": m[2]}),
    (re.compile(r"TileClassOfIndex\((\d+)\) == TileClass_(\w+)"),
     lambda m: {"check": "class", "index": int(m[1]), "value": m[2]}),
    (re.compile(r"TileEngineOfIndex\((\d+)\) == TileEngine_(\w+)"),
     lambda m: {"check": "engine", "index": int(m[1]), "value": m[2]}),
    (re.compile(r"InstructionContractOperation_(\w+)\(\) == TileOperation_(\w+)"),
     lambda m: {"check": "contract_operation", "contract": m[1], "value": m[2]}),
    (re.compile(r"InstructionContractHandler_(\w+)\(\) == TileHandler_(\w+)"),
     lambda m: {"check": "contract_handler", "contract": m[1], "value": m[2]}),
    (re.compile(r"InstructionContractCubeFunction_(\w+)\(\) == (\d+)"),
     lambda m: {"check": "cube_function", "contract": m[1], "value": int(m[2])}),
    (re.compile(r"InstructionContractSharedOperandsAllowed_(\w+)\(\) == (TRUE|FALSE)"),
     lambda m: {"check": "shared_operands_allowed", "contract": m[1], "value": m[2] == "TRUE"}),
)


def translate(text: str):
    """(checks, omitted) of a qualifying main(), or None."""
    m = MAIN_RE.search(text)
    if not m or "DecodeTileOperation" not in m.group(1):
        return None
    body = re.sub(r"//[^\n]*", "", m.group(1))
    statements = [s.strip() for s in body.split(";") if s.strip()]
    if not all(s.startswith("assert ") for s in statements):
        return None
    checks, omitted = [], Counter()
    for s in statements:
        expr = " ".join(s[len("assert "):].split())
        if expr == "TRUE":
            continue
        for pattern, build in CHECKS:
            found = pattern.fullmatch(expr)
            if found:
                checks.append(build(found))
                break
        else:
            # The helper, without its per-operation suffix (…_TMATMUL).
            omitted[re.match(r"!?\s*([A-Za-z0-9]+)", expr).group(1)] += 1
    return checks, omitted


def main(argv=None) -> int:
    root = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", type=Path, default=Path("/work/spec"))
    ap.add_argument("--out", type=Path, default=root / "tests/data/spec_tile_contracts.json")
    args = ap.parse_args(argv)
    points = []
    for path in sorted((args.spec / "tests/asl").rglob("*.asl")):
        text = path.read_text()
        result = translate(text)
        if result is None:
            continue
        header = json.loads(HEADER_RE.findall(text)[0])
        checks, omitted = result
        point = {"avs_id": header["id"], "source": path.relative_to(args.spec).as_posix(),
                 "spec_source": header["source"], "kind": header["kind"], "complete": not omitted}
        if omitted:
            point["omitted_checks"] = dict(sorted(omitted.items()))
        point["checks"] = checks
        points.append(point)
    with args.out.open("w") as fh:
        fh.write("[\n" + ",\n".join(json.dumps(p, separators=(",", ":")) for p in points) + "\n]\n")
    partial = sum(1 for p in points if not p["complete"])
    print(f"wrote {args.out}: {len(points)} points ({partial} partial), "
          f"{sum(len(p['checks']) for p in points)} checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
