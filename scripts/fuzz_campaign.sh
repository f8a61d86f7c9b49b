#!/usr/bin/env bash
# The long fuzzing campaign (docs/fuzzing.md): each named target (default:
# every built one) fuzzes for SECONDS from its committed corpus, with its
# dictionary, in a scratch copy under $PTO_CAMPAIGN_DIR (default a new temp
# directory, kept, so a campaign can be resumed).  Prints one Markdown table
# row per target: executions, edges and features at the end, seconds, and
# the crash files libFuzzer wrote.
#   scripts/fuzz_campaign.sh SECONDS [fuzz_TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz_campaign.sh SECONDS [fuzz_TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(cd build/asan/fuzz && ls -d fuzz_* | grep -v '\.'))
dir=${PTO_CAMPAIGN_DIR:-$(mktemp -d)}
echo "campaign directory: $dir" >&2
echo "| Target | Seconds | Executions | Exec/s | Edges (cov) | Features (ft) | Corpus | Crashes |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for name in "${targets[@]}"; do
  corpus="$dir/$name" artifacts="$dir/$name.artifacts"
  mkdir -p "$corpus" "$artifacts"
  [ -d "fuzz/corpus/$name" ] && cp -Rn "fuzz/corpus/$name/." "$corpus/"
  dict=()
  [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
  # A crash ends the target's run; its input lands in $artifacts.
  "build/asan/fuzz/$name" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "${dict[@]}" "$corpus" >"$dir/$name.log" 2>&1 || true
  done_line=$(grep -E '^#[0-9]+\s+DONE' "$dir/$name.log" | tail -1)
  [ -n "$done_line" ] || done_line=$(grep -E '^#[0-9]+' "$dir/$name.log" | tail -1)
  execs=$(grep -oP 'number_of_executed_units: \K[0-9]+' "$dir/$name.log" || echo "${done_line%%[[:space:]]*}")
  rate=$(grep -oP 'average_exec_per_sec:\s+\K[0-9]+' "$dir/$name.log" || echo "?")
  cov=$(grep -oP 'cov: \K[0-9]+' <<<"$done_line" || echo "?")
  ft=$(grep -oP 'ft: \K[0-9]+' <<<"$done_line" || echo "?")
  crashes=$(find "$artifacts" -type f | wc -l)
  echo "| $name | $seconds | ${execs#\#} | $rate | $cov | $ft | $(ls "$corpus" | wc -l) | $crashes |"
done
