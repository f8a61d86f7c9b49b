#!/usr/bin/env bash
# Installs the build into a scratch prefix, builds the consumer project
# against it with find_package(pto), and runs its C-ABI and C++ programs on
# a program assembled by the installed `pto as`.
# Usage: run_consumer_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source/tests/install/consumer" -B "$work/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
# 0x00000011 is BSTART (32-bit, command form) in the catalog.
"$work/consumer/lib_cxx" 0x00000011 32 BSTART
"$work/prefix/bin/pto" as --section-start .text=0x100 "$source/tests/install/consumer/stop_pc.s" -o "$work/prog.elf"
mkdir -p "$work/run"
# stop_pc.s: six instructions leave TPC at 0x114 with 25 stored at 0x200.
"$work/consumer/abi_c" "$work/prog.elf" "$work/run" 0x114 6 0x200 19000000
