#!/usr/bin/env bash
# Whole-process CPU time of pto against qemu-riscv64 (TCG, Debian's
# qemu-user) on the same checksum loop, and start-up of a tiny program
# (issue 18; README "Performance").  Needs qemu-user and
# binutils-riscv64-linux-gnu (installed when missing) and a built pto.
#   bench/qemu/compare.sh [PTO_BINARY]   (default build/release/pto, else build/default/pto)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pto=${1:-}
if [ -z "$pto" ]; then
  pto="$root/build/release/pto"
  [ -x "$pto" ] || pto="$root/build/default/pto"
fi
[ -x "$pto" ] || { echo "compare.sh: no pto binary at $pto (build first)" >&2; exit 2; }

missing=()
command -v qemu-riscv64 >/dev/null || missing+=(qemu-user)
command -v riscv64-linux-gnu-as >/dev/null || missing+=(binutils-riscv64-linux-gnu)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for prog in checksum_riscv tiny_riscv; do
  riscv64-linux-gnu-as "$here/$prog.S" -o "$work/$prog.o"
  riscv64-linux-gnu-ld -static "$work/$prog.o" -o "$work/$prog"
done
"$pto" as "$here/checksum.s" -o "$work/checksum.elf"

# Least user+system CPU seconds of a command over N runs (its own children
# only, so other load on the machine does not count).
python3 - "$pto" "$work" "$root" <<'PY'
import os, resource, subprocess, sys
pto, work, root = sys.argv[1:4]

def cpu(cmd, runs):
    best = None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = t if best is None else min(best, t)
    return best

loop = [pto, "run", f"{work}/checksum.elf", "--stop-symbol", "done"]
steps = 3 + 8 * 50_000_000
rows = [
    ("checksum loop, pto (translated)", cpu(loop, 3)),
    ("checksum loop, pto --no-jit", cpu(loop + ["--no-jit"], 3)),
    ("checksum loop, qemu-riscv64", cpu(["qemu-riscv64", f"{work}/checksum_riscv"], 3)),
]
for name, t in rows:
    print(f"{name:40s} {t * 1000:9.1f} ms CPU  {steps / t / 1e6:7.0f} MIPS (pto steps)")
print(f"pto translated / qemu CPU time: {rows[0][1] / rows[2][1]:.2f}")
start = [
    ("start-up, pto run examples/tadd.s", cpu([pto, "run", f"{root}/examples/tadd.s", "--stop-symbol", "done"], 40)),
    ("start-up, pto --version", cpu([pto, "--version"], 40)),
    ("start-up, qemu-riscv64 3-instruction program", cpu(["qemu-riscv64", f"{work}/tiny_riscv"], 40)),
]
for name, t in start:
    print(f"{name:48s} {t * 1000:7.2f} ms CPU")
print(f"pto run examples/tadd.s / qemu start-up CPU time: {start[0][1] / start[2][1]:.2f}")
PY

# Start-up in instructions (valgrind's callgrind, when installed): all user
# code of the process, dynamic loader and static initialisers included.
if command -v valgrind >/dev/null; then
  count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null --smc-check=all "$@" 2>&1 >/dev/null |
              sed -n 's/.*Collected : //p'; }
  run_i=$(count "$pto" run "$root/examples/tadd.s" --stop-symbol done)
  ver_i=$(count "$pto" --version)
  qemu_i=$(count qemu-riscv64 "$work/tiny_riscv")
  printf '%-48s %12s instructions\n' "start-up, pto run examples/tadd.s" "$run_i" "start-up, pto --version" "$ver_i" \
    "start-up, qemu-riscv64 3-instruction program" "$qemu_i"
  python3 -c "print(f'pto run examples/tadd.s / qemu start-up instructions: {$run_i / $qemu_i:.2f}')"
fi
