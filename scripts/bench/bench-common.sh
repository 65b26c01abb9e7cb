# Shared by the benches against ppsim (bench-vs-ppsim.sh, bench-inprocess.sh, bench-all-cores.sh),
# bench-papers.sh and bench-crn.sh (sourced, not run): the ppsim, batss and rebop venvs, poplab's
# venv (the wheel of this checkout, for bench-inprocess.sh and bench-crn.sh), the header lines
# naming versions and machine, and small helpers of the cell loops.
# Needs HERE (this directory, scripts/bench: the venvs go there) set by the sourcing script.

venv_python() { echo "$HERE/.venv-ppsim-$1/bin/python"; }
has_ppsim() {  # has_ppsim VERSION: the venv imports ppsim of that version
  local py; py=$(venv_python "$1")
  [ -x "$py" ] && "$py" - "$1" >/dev/null 2>&1 <<'EOF'
import sys, ppsim
v = ppsim.__version__
sys.exit(0 if (v if isinstance(v, str) else v.version) == sys.argv[1] else 1)
EOF
}
install_ppsim() {
  local v=$1 dir="$HERE/.venv-ppsim-$1"
  if has_ppsim "$v"; then echo "ppsim $v: already installed in $dir"; return; fi
  echo "ppsim $v: installing into $dir"
  python3 -m venv "$dir"
  local pip=("$dir/bin/python" -m pip install -q --disable-pip-version-check)
  if [ "$v" = 0.1.6 ]; then
    # 0.1.6 is an sdist: its Cython source needs Cython < 3, and it pins numpy<=1.20.1, which has
    # no wheel for Python 3.11: build without isolation against a current numpy, without its
    # pinned dependencies, then add the modules it imports at run time (numpy, pandas, natsort,
    # tqdm; matplotlib, seaborn and ipywidgets only for plots, not needed here).
    "${pip[@]}" 'Cython<3' wheel setuptools numpy
    "${pip[@]}" --no-build-isolation --no-deps ppsim==0.1.6
    "${pip[@]}" numpy pandas natsort tqdm
  else
    "${pip[@]}" "ppsim==$v"
  fi
  has_ppsim "$v" || { echo "ppsim $v: install failed" >&2; exit 1; }
}
install_ppsims() { install_ppsim 1.0.2; install_ppsim 0.1.6; }
batss_python() { echo "$HERE/.venv-batss-1.0.4/bin/python"; }
install_batss() {  # batss 1.0.4 (Petrack and Doty's CRN batching simulator, Rust backend) from PyPI
  local py; py=$(batss_python)
  if [ -x "$py" ] && "$py" -c 'import batss, sys; sys.exit(batss.__version__ != "1.0.4")' 2>/dev/null; then
    echo "batss 1.0.4: already installed in $HERE/.venv-batss-1.0.4"; return
  fi
  echo "batss 1.0.4: installing into $HERE/.venv-batss-1.0.4"
  python3 -m venv "$HERE/.venv-batss-1.0.4"
  "$py" -m pip install -q --disable-pip-version-check batss==1.0.4
}
rebop_python() { echo "$HERE/.venv-rebop-0.10.0/bin/python"; }
python312() {  # the path of a Python >= 3.12 (on PATH or under pyenv, oldest first), for rebop 0.10.0;
  # status 1 if none
  local c
  for c in python3.12 python3.13 python3.14 \
      $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -V); do
    if "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then command -v "$c"; return; fi
  done
  return 1
}
install_rebop() {  # rebop 0.10.0 (Andreani's Gillespie SSA, Rust backend) from PyPI; it needs Python >= 3.12
  # (rebop 0.9.3 on dropped 3.11), so its venv is made from python312, not python3 (git-ignored, as the
  # other venvs)
  local py base; py=$(rebop_python)
  if [ -x "$py" ] && "$py" -c 'import rebop, sys; sys.exit(rebop.__version__ != "0.10.0")' 2>/dev/null; then
    echo "rebop 0.10.0: already installed in $HERE/.venv-rebop-0.10.0"; return
  fi
  base=$(python312) || { echo "rebop 0.10.0: needs Python >= 3.12 (python3.12, python3.13 or a pyenv 3.12+), none found" >&2; return 1; }
  echo "rebop 0.10.0: installing into $HERE/.venv-rebop-0.10.0 ($("$base" --version))"
  "$base" -m venv "$HERE/.venv-rebop-0.10.0"
  "$py" -m pip install -q --disable-pip-version-check rebop==0.10.0
}

poplab_venv() {  # poplab_venv TARGET BUILD WHEEL: the poplab package of this checkout in
  # TARGET/venv-bench (created with numpy and pandas if missing): WHEEL non-empty installs that
  # wheel; else BUILD = 1 builds one (pip wheel ./crates/poplab-py, maturin, release,
  # CARGO_TARGET_DIR=TARGET) into TARGET/wheels and installs it; else (BUILD = 0) the package
  # already installed is used. Records where it came from in TARGET/venv-bench/poplab-source.txt
  # (git describe of the build, or the wheel's path); exits if the venv's poplab has no Simulation.
  local target=$1 build=$2 wheel=$3 source="" venv="$1/venv-bench" root
  root="$(cd "$HERE/../.." && pwd)"
  if [ ! -x "$venv/bin/python" ]; then
    echo "poplab: creating $venv (numpy, pandas)"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check numpy pandas
  fi
  if [ -z "$wheel" ] && [ "$build" = 1 ]; then
    echo "poplab: building the wheel (pip wheel ./crates/poplab-py, CARGO_TARGET_DIR=$target)"
    rm -f "$target"/wheels/poplab-*.whl
    CARGO_TARGET_DIR="$target" python3 -m pip wheel -q --disable-pip-version-check --no-deps \
      -w "$target/wheels" "$root/crates/poplab-py"
    wheel=$(ls "$target"/wheels/poplab-*.whl)
    source="git $(git -C "$root" describe --always --dirty 2>/dev/null || echo '?')"
  fi
  if [ -n "$wheel" ]; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"
    # Where the installed package came from, for the header of later runs with --no-build.
    echo "${source:-wheel $wheel}" > "$venv/poplab-source.txt"
  fi
  "$venv/bin/python" -c 'from poplab import Simulation' || {
    echo "poplab in $venv has no Simulation: build a checkout that has it, or leave poplab out (--tools)" >&2; exit 1; }
}

# ---------------------------------------------------------------- helpers
pow10_arg() {  # pow10_arg 10^9|1e9|1000000000 -> 1000000000
  python3 -c "import sys; s=sys.argv[1].replace('_',''); print(int(10**int(s[3:])) if s.startswith('10^') else int(float(s)))" "$1"
}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b - a }'; }
fastest() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'; }  # of two seconds ("" = none)
long() { awk -v a="$1" 'BEGIN { exit !(a > 60) }'; }  # a run this long is not repeated
reason_json() { python3 -c 'import json,sys; print("\"reason\": " + json.dumps(sys.argv[1]))' "$1"; }
ppsim_header_lines() {  # ppsim_header_lines [VERSION...]: "- ppsim V: Python ..., numpy ..." (default: both)
  local v
  [ $# -gt 0 ] || set -- 1.0.2 0.1.6
  for v in "$@"; do echo "- ppsim $v: $("$(venv_python $v)" --version), numpy $("$(venv_python $v)" -c 'import numpy; print(numpy.__version__)')"; done
}
machine_line() {
  echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GB"
}
cell_failure() {  # cell_failure RC ERRFILE: why a cell's process failed, from its exit code and the
  # "phase: ..." lines of its stderr; status 0 for a limit (LIMIT seconds, MEM_GB), 1 for an error
  local rc=$1 err=$2 ph
  ph=$(tr '\r' '\n' <"$err" | grep -o 'phase: .*' | tail -1 | sed 's/^phase: //')
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "timeout (${LIMIT}s) during: $ph"
  elif grep -q 'MemoryError\|memory allocation' "$err"; then echo "memory (${MEM_GB} GB) during: $ph"
  else
    echo "error (exit $rc) during: $ph: $(tr '\r' '\n' <"$err" | grep -v 'phase: ' | grep -v '^[[:space:]]*$' | tail -1 | cut -c1-120)"
    return 1
  fi
}
