#!/usr/bin/env python3
"""Per-point coverage of the spec's ASL test points by this project's tests.

Two steps, so that the table can be checked without the spec checkout:

``--points`` (needs /work/spec) lists every test point of
``tests/asl/**`` into ``tests/data/spec_points.tsv``: AVS id, directory,
source, header kind, whether it is a static invariant (every assertion of
the file is ``assert TRUE``: it only checks that the unit compiles), and why
the symbolic executor of tools/extract_bundle_vectors.py (a superset of the
scalar and block extractors; tools/extract_datatype_vectors.py for
``arch/data-types``) cannot translate it.

``--write`` (committed files only) computes each point's status from the
evidence in the repository and writes the summary tables between the
generated-section markers of docs/spec-coverage.md and the per-point listing
docs/spec-points.tsv.  ``--check`` recomputes both and fails when the
committed ones differ; ``--check-citations`` fails when a test or data file
cites an AVS id the spec does not have.  Both run under ctest.

Status of a point, first match wins:

  full          in an execution data file (tests/data/spec_*_exec.json,
                spec_datatype_vectors.json, spec_tile_contracts.json) with
                ``complete: true``
  partial       in an execution data file with assertions omitted
                (``omitted_checks``: assertions on model helpers with no
                architectural counterpart; their number is reported)
  divergence    in a data file but skipped as a recorded divergence
  hand-written  the id is the name of, or in the comment of, a hand-written
                test (tests/unit/*.cpp, *.hpp)
  decode-only   only its instruction words' decode is checked
                (tests/data/spec_decode_positive.json)
  static        a static invariant (see above): nothing to execute
  not translated  with the extractor's reason
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.dont_write_bytecode = True
_HERE = Path(__file__).resolve().parent
ROOT = _HERE.parent
POINTS = ROOT / "tests/data/spec_points.tsv"
LISTING = ROOT / "docs/spec-points.tsv"
DOC = ROOT / "docs/spec-coverage.md"
BEGIN, END = "<!-- BEGIN GENERATED: tools/spec_coverage.py -->", "<!-- END GENERATED -->"
POINT_COLUMNS = ("avs_id", "directory", "source", "kind", "static", "reason")

# Execution data files (every record carries avs_id, complete/omitted_checks).
EXEC_DATA = ("spec_scalar_exec.json", "spec_block_exec.json", "spec_bundle_exec.json",
             "spec_datatype_vectors.json", "spec_tile_contracts.json")
DECODE_DATA = "spec_decode_positive.json"
SURFACES = ("arch", "block", "scalar", "tile")
STATUSES = ("full", "partial", "divergence", "hand-written", "decode-only", "static", "not translated")
EXECUTED = frozenset({"full", "partial", "hand-written"})
# Executed with every assertion checked: partial points do not count.
EXECUTED_FULL = frozenset({"full", "hand-written"})
CITED = EXECUTED | {"divergence", "decode-only"}

# Extractor reason -> category (first match wins).
CATEGORIES = (
    ("catalog alignment assertions (no extractor)", r"^static invariant"),
    ("asserts only model helpers or decoding", r"decode-only|no architectural observation"),
    ("CUBE/matrix set-up", r"Cube|FixedPoint|Matrix|FPATR|FeatureMap|SharedTile|InstallShared"),
    ("ASL syntax (tuples, record literals, case)", r"^syntax"),
    ("comparison of two state reads", r"comparing two state reads"),
    ("model-internal state or helper",
     r"state variable|assignment to|call to|helper value|record/array|model state call|"
     r"state-dependent or helper value"),
    ("not encodable as an instruction", r"not encodable|without a PEMode|without a B.IOT form"),
    ("semantic handler call no bundle expresses",
     r"aliased destination|bundle accepts|not one bundle|single bundle|one B\.IOT|two tiles for operand"),
)
# Every AVS id ends in a three-digit serial; a test name may continue after
# it (PTO_AVS_TILE_STAGE4_CARRIER_001_Tsels), a placeholder (PTO-AVS-SYS-<M>-…)
# is no citation.
AVS_RE = re.compile(r"PTO[-_]AVS[-_][A-Z0-9_{},-]*?[0-9]{3}(?![0-9A-Za-z])")


def category(reason: str) -> str:
    if not reason:
        return "translatable, not yet in the data"
    for name, pattern in CATEGORIES:
        if re.search(pattern, reason):
            return name
    return "other: " + reason


def directory_of(rel: Path) -> str:
    """tests/asl/<surface>/<dir>[/<model dir>]/... -> the table row."""
    parts = rel.parts
    return "/".join(parts[:3] if len(parts) > 3 and parts[1] == "model" else parts[:2])


# ---------------------------------------------------------------------------
# --points: the spec's point list (needs the spec checkout)
# ---------------------------------------------------------------------------

def is_static(text: str) -> bool:
    asserts = re.findall(r"\bassert\s+([^;]*);", text)
    return bool(asserts) and all(a.strip() == "TRUE" for a in asserts)


def spec_points(spec: Path, generated: str | None, catalog_dir: Path) -> list[dict]:
    import importlib.util

    def load(name):
        s = importlib.util.spec_from_file_location(name, _HERE / f"{name}.py")
        mod = importlib.util.module_from_spec(s)
        s.loader.exec_module(mod)
        return mod

    bundle, datatype = load("extract_bundle_vectors"), load("extract_datatype_vectors")
    base = bundle.base
    scalar_forms = json.loads((catalog_dir / "scalar-forms.json").read_text())["forms"]
    index = base.FunctionIndex(spec, generated if generated is not None else base.run_generator(spec))
    out = []
    root = spec / "tests/asl"
    for path in sorted(root.rglob("*.asl")):
        text = path.read_text()
        header = json.loads(base.HEADER_RE.findall(text)[0])
        rel = path.relative_to(root)
        static = is_static(text)
        reason = ""
        if not static and header["kind"] != "decode-positive":
            spec_rel = path.relative_to(spec).as_posix()
            if rel.parts[:2] == ("arch", "data-types"):
                _, reason = datatype.translate(path, spec_rel)
            else:
                _, reason = bundle.translate(path, spec_rel, index, scalar_forms)
        out.append({"avs_id": header["id"], "directory": directory_of(rel), "source": rel.as_posix(),
                    "kind": header["kind"], "static": "yes" if static else "no",
                    "reason": re.sub(r"\s+", " ", reason or "")})
    return out


def write_tsv(path: Path, columns, rows) -> None:
    lines = ["\t".join(columns)] + ["\t".join(str(r[c]) for c in columns) for r in rows]
    path.write_text("\n".join(lines) + "\n")


def read_tsv(path: Path) -> list[dict]:
    head, *lines = path.read_text().rstrip("\n").split("\n")
    columns = head.split("\t")
    return [dict(zip(columns, line.split("\t"))) for line in lines]


# ---------------------------------------------------------------------------
# Evidence (committed files only)
# ---------------------------------------------------------------------------

def expand_braces(text: str) -> list[str]:
    """PTO-AVS-TILE-T{ROW,COL}X-001 -> both ids (one comment covers a pair)."""
    m = re.search(r"\{([A-Z0-9,_-]+)\}", text)
    if not m:
        return [text]
    return [out for alt in m.group(1).split(",")
            for out in expand_braces(text[:m.start()] + alt + text[m.end():])]


def cited_in_sources(tests_dir: Path) -> dict[str, set[str]]:
    """AVS id -> hand-written test files citing it.  Test names spell an id
    with underscores (TEST(..., PTO_AVS_TILE_TSUB_ORDER_001))."""
    ids: dict[str, set[str]] = defaultdict(set)
    for p in sorted(tests_dir.glob("unit/**/*")):
        if p.is_file() and p.suffix in (".cpp", ".hpp", ".inc"):
            for found in AVS_RE.findall(p.read_text(errors="replace")):
                for avs in expand_braces(found.replace("_", "-")):
                    ids[avs].add(p.relative_to(ROOT).as_posix())
    return ids


def data_records(data_dir: Path) -> dict[str, dict]:
    """AVS id -> {file, complete, omitted (count), helpers, divergence}.  A
    decode-positive record counts here only when it states ``complete`` (it
    then accounts for every assertion of its point, contracts included)."""
    out = {}
    for name in (*EXEC_DATA, DECODE_DATA):
        for rec in json.loads((data_dir / name).read_text()):
            if "avs_id" not in rec or (name == DECODE_DATA and "complete" not in rec):
                continue  # spec_datatype_vectors.json also holds unit-level checks
            omitted = rec.get("omitted_checks", {})
            out[rec["avs_id"]] = {
                "file": name, "complete": rec.get("complete", True) and not omitted,
                "omitted": sum(omitted.values()), "helpers": sorted(omitted),
                "divergence": rec.get("known_divergence"),
            }
    return out


def decode_ids(data_dir: Path) -> set[str]:
    return {r["avs_id"] for r in json.loads((data_dir / DECODE_DATA).read_text())}


def statuses(points: list[dict]) -> list[dict]:
    data, decoded = data_records(ROOT / "tests/data"), decode_ids(ROOT / "tests/data")
    hand = cited_in_sources(ROOT / "tests")
    rows = []
    for p in points:
        avs, rec = p["avs_id"], data.get(p["avs_id"])
        omitted, detail = 0, ""
        if rec and rec["divergence"]:
            status, detail = "divergence", rec["divergence"]
        elif rec and rec["complete"]:
            status, detail = "full", rec["file"]
        elif rec:
            status, omitted = "partial", rec["omitted"]
            detail = f"{rec['file']}; omitted assertions on " + ", ".join(rec["helpers"])
        elif avs in hand:
            status, detail = "hand-written", ", ".join(sorted(hand[avs]))
        elif avs in decoded:
            status, detail = "decode-only", DECODE_DATA
        elif p["static"] == "yes":
            status = "static"
        else:
            status, detail = "not translated", category(p["reason"])
            if p["reason"]:
                detail += f" ({p['reason']})"
        if rec and avs in hand and status != "hand-written":
            detail += "; also hand-written: " + ", ".join(sorted(hand[avs]))
        rows.append({"avs_id": avs, "directory": p["directory"], "status": status,
                     "omitted_checks": omitted, "source": p["source"], "detail": detail})
    return rows


def unknown_citations(points: list[dict]) -> list[str]:
    """AVS ids cited by a test or data file that the spec does not have."""
    known = {p["avs_id"] for p in points}
    cited = set(cited_in_sources(ROOT / "tests"))
    cited |= set(data_records(ROOT / "tests/data")) | decode_ids(ROOT / "tests/data")
    return sorted(cited - known)


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------

def pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}%" if d else "-"


def summary_row(name: str, c: Counter, omitted: int) -> str:
    nonstatic = c["total"] - c["static"]
    cited = sum(c[s] for s in CITED)
    executed = sum(c[s] for s in EXECUTED)
    executed_full = sum(c[s] for s in EXECUTED_FULL)
    return (f"| {name} | {c['total']} | {c['full']} | {c['partial']} ({omitted}) | {c['hand-written']} "
            f"| {c['decode-only']} | {c['divergence']} | {c['static']} | {c['not translated']} "
            f"| {pct(cited, nonstatic)} | {pct(executed, nonstatic)} | {pct(executed_full, nonstatic)} |")


def tables(rows: list[dict]) -> str:
    by_dir: dict[str, Counter] = defaultdict(Counter)
    omitted_dir: Counter = Counter()
    why: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        c = by_dir[r["directory"]]
        c["total"] += 1
        c[r["status"]] += 1
        omitted_dir[r["directory"]] += r["omitted_checks"]
        if r["status"] == "not translated":
            why[r["directory"]][r["detail"].split(" (")[0]] += 1
    head = ("| {} | Points | Full | Partial (omitted checks) | Hand-written | Decode-only | Divergence "
            "| Static | Not translated | Cited (of non-static) | Executed (of non-static) "
            "| Executed, full (of non-static) |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    surf, surf_omitted = defaultdict(Counter), Counter()
    for d, c in by_dir.items():
        surf[d.split("/")[0]].update(c)
        surf_omitted[d.split("/")[0]] += omitted_dir[d]
    total, total_omitted = Counter(), sum(surf_omitted.values())
    for c in surf.values():
        total.update(c)
    out = [head.format("Surface")]
    out += [summary_row(f"`{s}`", surf[s], surf_omitted[s]) for s in SURFACES]
    out.append(summary_row("**total**", total, total_omitted))
    out += ["", head.format("Directory (`tests/asl/…`)")]
    for d in sorted(by_dir):
        out.append(summary_row(f"`{d}`", by_dir[d], omitted_dir[d]))
    out += ["", "Not translated, by the extractor's reason:", "",
            "| Directory | Points | Why not translated |", "|---|---:|---|"]
    for d in sorted(why):
        reasons = "; ".join(f"{n} {k}" for k, n in sorted(why[d].items(), key=lambda kv: (-kv[1], kv[0])))
        out.append(f"| `{d}` | {sum(why[d].values())} | {reasons} |")
    return "\n".join(out)


def rendered(points: list[dict]) -> tuple[str, str]:
    rows = statuses(points)
    listing = ["\t".join(("avs_id", "directory", "status", "omitted_checks", "source", "detail"))]
    listing += ["\t".join(str(r[k]) for k in ("avs_id", "directory", "status", "omitted_checks", "source", "detail"))
                for r in rows]
    doc = DOC.read_text()
    if BEGIN not in doc or END not in doc:
        raise SystemExit(f"{DOC}: generated-section markers missing")
    new_doc = doc[:doc.index(BEGIN) + len(BEGIN)] + "\n" + tables(rows) + "\n" + doc[doc.index(END):]
    return new_doc, "\n".join(listing) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--points", action="store_true", help="list the spec's points (needs --spec)")
    mode.add_argument("--write", action="store_true", help="write docs/spec-coverage.md and docs/spec-points.tsv")
    mode.add_argument("--check", action="store_true", help="fail if the committed tables are stale")
    mode.add_argument("--check-citations", action="store_true",
                      help="fail if a test cites an AVS id the spec's point list does not have")
    ap.add_argument("--spec", type=Path, default=Path("/work/spec"))
    ap.add_argument("--generated", type=Path, default=None,
                    help="output of `generate-asl-decoders --kind monolithic` (default: run it)")
    ap.add_argument("--catalog-dir", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.points:
        if args.catalog_dir is None:
            shared = Path("/work/shared/pto-spec-0.58.3/catalog")
            args.catalog_dir = shared if shared.is_dir() else args.spec / "spec/catalog"
        generated = args.generated.read_text() if args.generated else None
        write_tsv(POINTS, POINT_COLUMNS, spec_points(args.spec, generated, args.catalog_dir))
        print(f"wrote {POINTS}")
        return 0
    points = read_tsv(POINTS)
    unknown = unknown_citations(points)
    for avs in unknown:
        print(f"cited AVS id not in the spec's point list: {avs}", file=sys.stderr)
    if args.check_citations:
        return 1 if unknown else 0
    doc, listing = rendered(points)
    if args.write:
        DOC.write_text(doc)
        LISTING.write_text(listing)
        print(f"wrote {DOC.relative_to(ROOT)} and {LISTING.relative_to(ROOT)}")
        return 1 if unknown else 0
    stale = [p.relative_to(ROOT).as_posix() for p, text in ((DOC, doc), (LISTING, listing))
             if not p.is_file() or p.read_text() != text]
    for p in stale:
        print(f"{p} is stale: run python3 tools/spec_coverage.py --write", file=sys.stderr)
    return 1 if stale or unknown else 0


if __name__ == "__main__":
    sys.exit(main())
