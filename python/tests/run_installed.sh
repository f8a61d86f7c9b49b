#!/usr/bin/env bash
# Installs the build into a scratch prefix and imports pto from there (not
# from the build tree): the installed package runs the example kernel.
# Usage: run_installed.sh BUILD_DIR PYTHON SOURCE_DIR
set -euo pipefail
build=$1
python=$2
source=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cd "$work"
PYTHONPATH="$work/prefix/lib/python3/dist-packages" "$python" - "$source/examples/tadd.s" "$work/prefix" <<'PY'
import sys

import numpy as np

import pto

source, prefix = sys.argv[1], sys.argv[2]
assert pto.__file__.startswith(prefix), pto.__file__
m = pto.Machine()
m.load(pto.assemble(open(source).read()))
assert m.run(stop_symbol="done").reason == "stop-pc"
# tadd.s: A = 1..16 and B = 100..1600 by rows of four.
a = np.arange(1, 17, dtype=np.uint32).reshape(4, 4)
np.testing.assert_array_equal(m.tile("T#1"), a + 100 * a)
print("installed pto", pto.release, "at", pto.__file__)
PY
