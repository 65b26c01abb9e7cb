#!/usr/bin/env bash
# The Python API reference of the `poplab` package, by pdoc, from the installed package.
#
#   scripts/guide/build-python-api.sh [--out DIR] [--python PYTHON]
#
# PYTHON (default: the test environment of scripts/checks/test-all.sh, <target>/venv-py/bin/python)
# must have `poplab` installed (test-all.sh installs it there; or `pip install dist/poplab-*.whl`).
# pdoc is installed into that environment if it is missing (from PyPI). Writes HTML into DIR
# (default <target>/guide/python-api, where the guide's chapter "Python API reference" links to).
# Exits with 3, writing nothing, when PYTHON cannot import poplab.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
out=$target/guide/python-api
python=${POPLAB_PYTHON:-$target/venv-py/bin/python}
while [ $# -gt 0 ]; do
    case $1 in
        --out) out=$2; shift 2 ;;
        --python) python=$2; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "build-python-api.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
if ! [ -x "$python" ] && ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c 'import poplab' 2>/dev/null; then
    echo "build-python-api.sh: $python cannot import poplab; run scripts/checks/test-all.sh first, or give --python" >&2
    exit 3
fi
"$python" -c 'import pdoc' 2>/dev/null || "$python" -m pip install --quiet pdoc
rm -rf "$out"
mkdir -p "$out"
# --no-search keeps the pages self-contained; pdoc's output is static HTML, readable offline.
"$python" -m pdoc --no-search --docformat markdown --output-directory "$out" poplab
echo "python API reference written to $out"
