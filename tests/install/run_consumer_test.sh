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
case="$source/examples/cases/scalar_stop_pc"
"$work/prefix/bin/pto" as -T "$case/case.ld" "$case/source.S" -o "$work/prog.elf"
mkdir -p "$work/run"
# The example case: six instructions from 0x100 leave TPC at 0x114 with 25
# stored at 0x200 (its case.ld places the result there).
"$work/consumer/abi_c" "$work/prog.elf" "$work/run" 0x114 6 0x200 19000000
