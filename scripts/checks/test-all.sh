#!/usr/bin/env bash
# Every test of poplab: the Rust workspace, then the Python package.
#
#   1. cargo test --workspace, in two runs: the tests of every target that has tests (`--tests`:
#      not `examples/`, which clippy --all-targets checks and no test runs, nor the extension
#      module, whose tests are pytest's), then the documentation's examples, while step 2's tools
#      install; this also builds the `poplab` command, whose JSON documents the Python tests
#      compare with;
#   2. a virtual environment (made once, reused: $POPLAB_VENV, default <target dir>/venv-py) with
#      pytest and pytest-xdist (the tests one per core), scipy and matplotlib (the example
#      notebook's plots), nbclient, ipykernel and nbformat
#      (to run ppsim's notebooks, tests/test_ppsim_notebooks.py), seaborn, ipywidgets and ipympl
#      (what those notebooks import) and tqdm (run(timer=True)'s bar), and the `poplab` wheel
#      built from crates/poplab-py by pip and maturin (with the test profile's settings, reusing the library
#      step 1 built; cargo rebuilds only what changed);
#   3. pytest on crates/poplab-py/tests, then on the examples (doctests) of the installed package's
#      docstrings (`--doctest-modules --pyargs poplab`: what `help(poplab.run)` shows is run).
#
# Idempotent: run it again and it reuses the environment and the builds.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}

venv=${POPLAB_VENV:-$target/venv-py}
python=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
fi
# The Python test tools and the wheel's dependencies (numpy, pandas), fetched and installed while
# cargo builds (mostly downloads the first time; nothing to do after).
tools_log=$target/test-all-pip.log
mkdir -p "$target"
"$venv/bin/python" -m pip install --quiet numpy pandas pytest pytest-xdist scipy matplotlib \
    nbclient ipykernel nbformat seaborn ipywidgets ipympl tqdm >"$tools_log" 2>&1 &
tools=$!

cargo test --workspace --tests
cargo test --workspace --doc

if ! wait "$tools"; then
    cat "$tools_log" >&2
    echo "test-all.sh: installing the Python test tools failed (above)" >&2
    exit 1
fi
# The wheel, built once per run (cargo rebuilds only what changed); --force-reinstall --no-deps
# puts the new build in place of an older one of the same version.
wheels=$target/wheels-py
rm -rf "$wheels"
# The wheel is built with the dev profile set to the test profile's settings (optimised, with
# debug assertions), so that it reuses the library cargo test just built instead of compiling it
# again in release mode. (`--profile test` itself would build a test harness.)
CARGO_PROFILE_DEV_OPT_LEVEL=3 CARGO_PROFILE_DEV_DEBUG=false MATURIN_PEP517_ARGS="--profile dev" \
    "$venv/bin/python" -m pip wheel --quiet --no-deps --wheel-dir "$wheels" ./crates/poplab-py
wheel=$(ls "$wheels"/poplab-*.whl)
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps "$wheel"

cd crates/poplab-py
# Figures drawn off screen (ipympl, installed for the notebooks, would otherwise be picked).
export MPLBACKEND=Agg
# One test per core at a time (pytest-xdist): the slowest (ppsim's notebooks) run side by side.
POPLAB_BIN=${POPLAB_BIN:-$target/debug/poplab} "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    -n "${POPLAB_TEST_JOBS:-$(nproc)}" tests
# The docstrings' examples; outputs that vary (timings, seeds drawn) are elided with `...`.
"$venv/bin/python" -m pytest -q -p no:cacheprovider --doctest-modules --pyargs poplab \
    -o doctest_optionflags="ELLIPSIS NORMALIZE_WHITESPACE"
