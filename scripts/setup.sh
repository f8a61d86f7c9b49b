#!/usr/bin/env bash
# Shared set-up for scripts/example.sh and scripts/test.sh: install the Debian
# packages pto needs (only those missing), then configure and build a preset.
set -euo pipefail

PTO_PACKAGES=(
  g++ cmake ninja-build ccache python3     # toolchain, build, table generator
  clang libclang-rt-14-dev                 # ASan/UBSan preset and libFuzzer
  libfmt-dev nlohmann-json3-dev libcli11-dev  # formatting, JSON, CLI parsing
  libgtest-dev libbenchmark-dev libmpfr-dev   # tests, benchmarks, numeric oracle
  libxbyak-dev                             # x86-64 code emitter of the translation tier
  # The Python package (python/, -DPTO_PYTHON=ON in the default preset):
  # pybind11 (which does not pull in the headers) and python3-dev build the
  # extension; numpy is its tile representation; pytest runs its tests.  All
  # belong to Debian's /usr/bin/python3.
  pybind11-dev python3-dev python3-numpy python3-pytest
)

pto_install_packages() {
  local missing=()
  for p in "${PTO_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "pto: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# pto_build PRESET [TARGET...]
pto_build() {
  local preset=$1
  shift
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$(nproc)" ${1:+--target "$@"}
}
