#!/usr/bin/env bash
# Every test: the default preset's suite, then the ASan+UBSan preset's suite and
# a bounded libFuzzer run of every fuzz target.  Sets everything up first.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
pto_install_packages
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
# Cache hits across checkouts in different folders (CI clones afresh).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true

echo "== default preset: build and test (C++ suites and pytest over the Python package)" >&2
pto_build default
ctest --preset default -j "$(nproc)"

echo "== mutation checks (sample): a deleted fault-point rule must fail its tests" >&2
# tools/rule_mutations.json entries marked "sample"; the full list and its
# last result are in docs/conformance.md.  Rebuilds build/default unmutated
# at the end.
python3 tools/mutate_rules.py --sample --build-dir build/default -j "$(nproc)"

echo "== asan preset (ASan+UBSan): build and test" >&2
pto_build asan
ctest --preset asan -j "$(nproc)"

echo "== fuzzing (bounded, from the committed corpora)" >&2
# Each target first replays its regression inputs (fuzz/regressions/<target>/,
# every crash ever found), then fuzzes from a scratch copy of its seed corpus
# (fuzz/corpus/<target>/, tools/make_fuzz_corpus.py) so the repository is not
# modified.  docs/fuzzing.md has the long campaign.
FUZZ_SECONDS=${PTO_FUZZ_SECONDS:-15}
for f in build/asan/fuzz/fuzz_*; do
  [ -x "$f" ] || continue
  name=$(basename "$f")
  corpus=$(mktemp -d)
  [ -d "fuzz/corpus/$name" ] && cp -R "fuzz/corpus/$name/." "$corpus/"
  regressions=()
  [ -d "fuzz/regressions/$name" ] && regressions=(fuzz/regressions/"$name"/*)
  dict=()
  [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
  echo "fuzz: $name for ${FUZZ_SECONDS}s (${#regressions[@]} regression inputs)" >&2
  {
    [ ${#regressions[@]} -eq 0 ] || "$f" "${regressions[@]}"
    "$f" -max_total_time="$FUZZ_SECONDS" -print_final_stats=0 "${dict[@]}" "$corpus"
  } 2>"$corpus.log" || {
    tail -50 "$corpus.log" >&2
    echo "fuzz: $name found a failure" >&2
    exit 1
  }
  rm -rf "$corpus" "$corpus.log"
done
echo "all tests passed" >&2
