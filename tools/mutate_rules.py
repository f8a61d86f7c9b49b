#!/usr/bin/env python3
"""Mutation checks of the spec rules behind fault test points.

tools/rule_mutations.json lists, per fault point (AVS id), the rule that
makes it fault: a source file, an anchor (an exact snippet that occurs
exactly once in that file) and the replacement that deletes or inverts the
rule, and the gtest filter of the tests that must then fail; an optional
"also" lists further points the same rule serves, each of which must then
have a failing test citing it (its vector or a hand-written test).  For each
mutation this script applies the replacement in place (the original text is
restored on every exit path, including Ctrl-C and SIGTERM), rebuilds
pto_tests in its own build directory (build/mutation, the default preset's
settings without the Python bindings), runs the filtered tests and expects
them to FAIL.  A mutation whose tests still pass "survived"; an anchor that
is missing or not unique is an error (a refactor moved the rule: update the
list).  Exit status 0 only when every selected mutation was killed.

  tools/mutate_rules.py               every mutation (docs/conformance.md)
  tools/mutate_rules.py --sample      the mutations marked "sample" (CI)
  tools/mutate_rules.py --only ID...  the mutations for the named AVS ids (avs_id or also)
  tools/mutate_rules.py --check       anchors only, no build
  tools/mutate_rules.py --uncovered   the translated fault vectors no mutation's
                                      filter selects, and the covered count
                                      (docs/conformance.md); with an existing
                                      pto_tests in --build-dir the count is
                                      checked against --gtest_list_tests
  tools/mutate_rules.py --uncovered-hand
                                      the spec's fault points in no vector file
                                      (hand-written translations), each with
                                      its citing tests: "own" (a mutation of
                                      its id selects one of them), "incidental"
                                      (only another id's mutation does) or
                                      "none"
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from spec_coverage import AVS_RE, expand_braces  # the citation rules of docs/spec-coverage.md

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "tools/rule_mutations.json"
BUILD = ROOT / "build/mutation"
# The vector files with fault points and the parameterised suite that runs
# each (tests/unit/{bundle,runner}_spec_vectors_test.cpp).
VECTOR_SUITES = (("tests/data/spec_bundle_exec.json", "SpecBundleVector"),
                 ("tests/data/spec_block_exec.json", "SpecBlockVector"),
                 ("tests/data/spec_scalar_exec.json", "SpecScalarVector"))


class Restorer:
    """Puts the original text of the mutated file back, whatever happens."""

    def __init__(self):
        self.path: Path | None = None
        self.text = ""

    def apply(self, path: Path, original: str, mutated: str):
        self.path, self.text = path, original
        path.write_text(mutated)

    def restore(self, *_):
        if self.path is not None:
            self.path.write_text(self.text)
            self.path = None


def anchored(m: dict) -> tuple[Path, str, str]:
    """(file, original, mutated); ValueError when the anchor is not unique."""
    path = ROOT / m["file"]
    text = path.read_text()
    count = text.count(m["anchor"])
    if count != 1:
        raise ValueError(f"{m['avs_id']}: anchor found {count} times in {m['file']}: {m['anchor']!r}")
    return path, text, text.replace(m["anchor"], m["replacement"])


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def configure(build_dir: Path) -> None:
    if (build_dir / "build.ninja").exists():
        return
    r = run(["cmake", "-S", ".", "-B", str(build_dir), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
             "-DPTO_PYTHON=OFF"])
    if r.returncode:
        sys.exit(f"configure failed:\n{r.stdout}")


def build(build_dir: Path, jobs: int) -> subprocess.CompletedProcess:
    return run(["cmake", "--build", str(build_dir), f"-j{jobs}", "--target", "pto_tests"])


def fault_vector_tests() -> list[tuple[str, str, str]]:
    """(vector file, AVS id, gtest name) of every translated fault vector;
    the name follows spec_vector_runner.hpp vector_name."""
    out = []
    for file, suite in VECTOR_SUITES:
        for i, v in enumerate(json.loads((ROOT / file).read_text())):
            if v["kind"] == "fault":
                out.append((file, v["avs_id"], f"AVS/{suite}.Matches/{re.sub('[^A-Za-z0-9]', '_', v['avs_id'])}_{i}"))
    return out


def gtest_filter_matcher(gtest_filter: str):
    """A predicate on full test names with gtest's filter semantics:
    'POS1:POS2-NEG1:NEG2', '*' and '?' wildcards."""
    def globs(part: str) -> list[re.Pattern]:
        return [re.compile(re.escape(p).replace(r"\*", ".*").replace(r"\?", ".") + "$") for p in part.split(":") if p]
    positive, _, negative = gtest_filter.partition("-")
    pos, neg = globs(positive or "*"), globs(negative)
    return lambda name: any(p.match(name) for p in pos) and not any(n.match(name) for n in neg)


def uncovered(mutations: list[dict], build_dir: Path) -> int:
    """Lists the fault vectors no mutation's test filter selects."""
    matchers = [gtest_filter_matcher(m["tests"]) for m in mutations]
    vectors = fault_vector_tests()
    covered = {name for _, _, name in vectors if any(match(name) for match in matchers)}
    for file, avs_id, name in vectors:
        if name not in covered:
            print(f"{Path(file).stem}\t{avs_id}")
    binary = build_dir / "tests/pto_tests"
    if binary.exists():  # the same count from the test binary itself
        listed = set()
        for m in mutations:
            r = run([str(binary), "--gtest_list_tests", f"--gtest_filter={m['tests']}"])
            suite = ""
            for line in r.stdout.splitlines():
                if not line.startswith(" "):
                    suite = line.strip()
                else:
                    listed.add(suite + line.split("#")[0].strip())
        from_binary = covered & listed
        if from_binary != covered:
            print(f"the test list disagrees: {len(from_binary)} listed, {len(covered)} computed", file=sys.stderr)
            return 2
    per_file = {f: [n for ff, _, n in vectors if ff == f] for f, _ in VECTOR_SUITES}
    parts = ", ".join(f"{Path(f).stem}: {sum(n in covered for n in ns)} of {len(ns)}" for f, ns in per_file.items())
    print(f"{len(mutations)} mutations; fault vectors selected: {len(covered)} of {len(vectors)} ({parts})")
    return 0


SPEC_POINTS = ROOT / "tests/data/spec_points.tsv"
TEST_MACRO = re.compile(r"^TEST(?:_F|_P)?\(\s*(\w+),\s*(\w+)\)", re.M)


def hand_written_tests() -> dict[str, set[str]]:
    """AVS id -> "Suite.Name" of the hand-written tests citing it: in the
    test's name, body, or the comment above it (the text since the previous
    top-level closing brace)."""
    cited: dict[str, set[str]] = {}
    for path in sorted((ROOT / "tests/unit").glob("*.cpp")):
        block: list[str] = []
        for line in path.read_text(errors="replace").splitlines():
            block.append(line)
            macro = TEST_MACRO.match(line)
            one_liner = macro is not None and line.rstrip().endswith("}")
            if not (line.startswith("}") or one_liner):
                continue
            names = [f"{a}.{b}" for a, b in (TEST_MACRO.findall("\n".join(block)))]
            for found in AVS_RE.findall("\n".join(block)):
                for avs in expand_braces(found.replace("_", "-")):
                    cited.setdefault(avs, set()).update(names)
            block = []
    return cited


def hand_fault_points() -> list[str]:
    """The spec's fault points (tests/data/spec_points.tsv) in no vector file."""
    in_vectors = {avs for _, avs, _ in fault_vector_tests()}
    rows = [line.split("\t") for line in SPEC_POINTS.read_text().splitlines()[1:]]
    return [r[0] for r in rows if r[3] == "fault" and r[0] not in in_vectors]


def points_of(m: dict) -> list[str]:
    """The fault points a mutation is for: its avs_id and the optional "also"
    list (one rule named by several points; each must have a failing test)."""
    return [m["avs_id"], *m.get("also", [])]


def killed_point(avs: str, failed: set[str]) -> bool:
    """Whether a failing test (gtest's "Suite.Name" or "Prefix/Suite.Name/N")
    is a hand-written test citing `avs` or its translated vector."""
    cited = hand_written_tests().get(avs, set())
    vectors = {name for _, a, name in fault_vector_tests() if a == avs}
    return any(f in vectors or any(f == c or f.endswith("/" + c) or ("/" + c + "/") in f for c in cited)
               for f in failed)


def uncovered_hand(mutations: list[dict]) -> int:
    """Classifies the hand-written fault points by mutation (docs/conformance.md)."""
    tests = hand_written_tests()
    counts = {"own": 0, "incidental": 0, "none": 0}
    for avs in hand_fault_points():
        names = sorted(tests.get(avs, ()))
        own = [m for m in mutations if avs in points_of(m)]
        if any(gtest_filter_matcher(m["tests"])(n) for m in own for n in names):
            kind = "own"
        elif any(gtest_filter_matcher(m["tests"])(n) for m in mutations for n in names):
            kind = "incidental"
        else:
            kind = "none"
        counts[kind] += 1
        print(f"{kind}\t{avs}\t{' '.join(names) or '(no test)'}")
    print("hand-written fault points: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sample", action="store_true", help="only the mutations marked \"sample\"")
    ap.add_argument("--only", nargs="+", metavar="AVS_ID")
    ap.add_argument("--check", action="store_true", help="check the anchors without building")
    ap.add_argument("--uncovered", action="store_true",
                    help="list the translated fault vectors no mutation's test filter selects")
    ap.add_argument("--uncovered-hand", action="store_true",
                    help="classify the fault points in no vector file: own, incidental or no mutation")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--build-dir", type=Path, default=BUILD,
                    help="an existing build tree to use instead (CI: build/default, rebuilt unmutated at the end)")
    args = ap.parse_args(argv)

    mutations = json.loads(LIST.read_text())
    if args.sample:
        mutations = [m for m in mutations if m.get("sample")]
    if args.only:
        mutations = [m for m in mutations if set(points_of(m)) & set(args.only)]
    errors = []
    for m in mutations:
        try:
            anchored(m)
        except ValueError as e:
            errors.append(str(e))
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 2
    if args.check:
        print(f"{len(mutations)} anchors found")
        return 0
    if args.uncovered:
        return uncovered(mutations, args.build_dir)
    if args.uncovered_hand:
        return uncovered_hand(mutations)

    restorer = Restorer()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *a: (restorer.restore(), sys.exit(130)))
    configure(args.build_dir)
    start = time.monotonic()
    r = build(args.build_dir, args.jobs)  # the unmutated tree first: a broken build is not a kill
    if r.returncode:
        sys.exit(f"the unmutated tree does not build:\n{r.stdout[-3000:]}")
    killed, survived, broken = [], [], []
    try:
        for m in mutations:
            path, original, mutated = anchored(m)
            restorer.apply(path, original, mutated)
            try:
                r = build(args.build_dir, args.jobs)
                if r.returncode:
                    broken.append(m["avs_id"])  # the mutant does not compile: counted, not a kill
                    print(f"BROKEN   {m['avs_id']}: the mutant does not compile", flush=True)
                    continue
                binary = str(args.build_dir / "tests/pto_tests")
                listed = run([binary, "--gtest_list_tests", f"--gtest_filter={m['tests']}"])
                selected = sum(line.startswith("  ") for line in listed.stdout.splitlines())
                ran = selected > 0
                t = run([binary, f"--gtest_filter={m['tests']}", "--gtest_brief=1"])
                if t.returncode != 0 and ran:  # a failing test, or a crash of one
                    failed = {line.split()[3].rstrip(",") for line in t.stdout.splitlines()
                              if line.startswith("[  FAILED  ] ") and not line.split()[3].isdigit()}
                    spared = [a for a in m.get("also", []) if failed and not killed_point(a, failed)]
                    if spared:  # a point the mutation is listed for has no failing test of its own
                        survived.append(m["avs_id"])
                        print(f"SURVIVED {m['avs_id']}: no failing test cites {' '.join(spared)}", flush=True)
                        continue
                    killed.append(m["avs_id"])
                    how = f"{len(failed)} of {selected} selected tests fail" if failed else "a selected test crashes"
                    print(f"killed   {m['avs_id']}: {how}", flush=True)
                else:
                    survived.append(m["avs_id"])
                    why = "no test matched the filter" if not ran else "the tests still pass"
                    print(f"SURVIVED {m['avs_id']}: {why} ({m['tests']})", flush=True)
            finally:
                restorer.restore()
    finally:
        restorer.restore()
    build(args.build_dir, args.jobs)  # leave build/mutation matching the tree
    print(f"mutations {len(mutations)}, killed {len(killed)}, survived {len(survived)}, "
          f"not compiling {len(broken)}; {time.monotonic() - start:.0f} s")
    return 0 if not survived and not broken else 1


if __name__ == "__main__":
    sys.exit(main())
