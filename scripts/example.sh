#!/usr/bin/env bash
# Main job on a built-in example: assemble and run examples/tadd.s (two TLOADs
# with a non-dense row stride, TADD, TSTORE) and print the result tile.
# Sets everything up first.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
pto_install_packages
pto_build default pto
./build/default/pto run examples/tadd.s --stop-symbol done --print-tile T#1
