#!/usr/bin/env bash
# Chemical reaction networks: poplab's Python package against its peers, batss 1.0.4, rebop 0.10.0
# and ppsim 0.1.6, on the same two CRNs at n = 10^3 ... --max-n, one cell per fresh Python process
# (scripts/bench/crn_peers.py).
# See --help. The venvs and header helpers are shared with the other benches (bench-common.sh).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
ALL_WORKLOADS="lotka-volterra,dimerization"
ALL_TOOLS="poplab,batss,rebop,ppsim-0.1.6"

usage() {
  cat <<EOF
Usage: scripts/bench/bench-crn.sh [options]

For each workload, each n = 10^3, 10^4, ... up to the max and each tool, runs one cell: a fresh
Python process of the tool's venv running scripts/bench/crn_peers.py, which builds the simulator
(construction s) and simulates to the end time (run s), timed with time.perf_counter() inside the
process (interpreter start and imports not timed). Prints a markdown table: n, tool (poplab's
with its engine), workload, construction s, run s, total s, and the final counts, under header
lines naming the versions, the machine and its load average at start and end.

Tools (--tools, default $ALL_TOOLS):
  poplab        the poplab Python package of this checkout, in target/venv-bench (CARGO_TARGET_DIR's
                if set; shared with bench-inprocess.sh): the wheel is built with \`pip wheel
                ./crates/poplab-py\` (maturin, release) and installed there, unless --no-build or
                --wheel; Simulation(..., engine="auto") chooses direct or batched by the library's
                cost model at the start (the tool column names the engine)
  batss         batss 1.0.4 (Petrack and Doty's batching CRN simulator, Rust backend), Python 3.11,
                in scripts/bench/.venv-batss-1.0.4                         } created on first use
  rebop         rebop 0.10.0 (Gillespie's direct method, Rust backend), in } (git-ignored; needs
                scripts/bench/.venv-rebop-0.10.0; rebop 0.10.0 needs       } PyPI)
                Python >= 3.12 (found on PATH or under pyenv)              }
  ppsim-0.1.6   ppsim 0.1.6 (Cython) in scripts/bench/.venv-ppsim-0.1.6    }
                simulates only conservative CRNs: both workloads are n/a for it (shown once)

Workloads (--workloads, default all; the same law for every tool, rates converted to each tool's
convention by crn_peers.py --help):
  lotka-volterra  R -> 2R (k=1), R + F -> 2F (k=1), F -> 0 (k=1); R = F = n/2; to time 1
  dimerization    A + A -> D (k=1), D -> A + A (k=1); A = n, D = 0; to time 1
  Rates in poplab's (= ppsim's) convention, volume v = n: A -> ... at k #A, A + B -> ... at
  k #A #B / v, A + A -> ... at k #A (#A - 1) / (2 v), 0 -> A at k v.

Options:
  --max-n N          largest n, a power of ten (10^9, 1e9 or 1000000000; default 10^9)
  --workloads LIST   comma-separated, from $ALL_WORKLOADS
  --tools LIST       comma-separated, from $ALL_TOOLS
  --seed S           seed of every cell (default 1)
  --time T           end time (default 1)
  --repeat R         run each cell up to R times (fresh processes, same seed) and keep the fastest
                     (lowest total; default 3); a run over 60 s is not repeated
  --timeout SEC      wall-clock limit per cell process, start and imports included (default 600);
                     a cell over it is "> SEC s", and larger n are then not run for that tool and
                     workload
  --no-build         poplab: use the package already installed in the venv
  --wheel FILE       poplab: install this wheel instead of building one
  --out DIR          also write DIR/bench-crn.md (the table) and DIR/bench-crn.jsonl (one line per
                     cell); default: print only
  -h, --help         this help

Run it under nice on a shared machine (nice -n 5 bash scripts/bench/bench-crn.sh ...): the cells
inherit it. Seeds: poplab and rebop repeat a run exactly for a seed; batss 1.0.4 does not (its default switch
between batching and Gillespie steps measures wall-clock time), so its final counts vary from run to
run with the same seed.
EOF
}

# ---------------------------------------------------------------- options
MAX_N=1000000000; WORKLOADS="$ALL_WORKLOADS"; TOOLS="$ALL_TOOLS"; SEED=1; END_TIME=1; REPEAT=3
LIMIT=600; OUT=""; BUILD=1; WHEEL=""
while [ $# -gt 0 ]; do
  case "$1" in
    --max-n) MAX_N="$2"; shift ;;
    --workloads) WORKLOADS="$2"; shift ;;
    --tools) TOOLS="$2"; shift ;;
    --seed) SEED="$2"; shift ;;
    --time) END_TIME="$2"; shift ;;
    --repeat) REPEAT="$2"; shift ;;
    --timeout) LIMIT="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    --no-build) BUILD=0 ;;
    --wheel) WHEEL="$2"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
for w in ${WORKLOADS//,/ }; do
  [[ ",$ALL_WORKLOADS," == *",$w,"* ]] || { echo "unknown workload: $w (known: $ALL_WORKLOADS)" >&2; exit 2; }
done
for t in ${TOOLS//,/ }; do
  [[ ",$ALL_TOOLS," == *",$t,"* ]] || { echo "unknown tool: $t (known: $ALL_TOOLS)" >&2; exit 2; }
done
uses() { [[ ",$TOOLS," == *",$1,"* ]]; }

. "$HERE/bench-common.sh"
MAX_N=$(pow10_arg "$MAX_N")
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
START_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# ---------------------------------------------------------------- venvs
VENV="$TARGET/venv-bench"
if uses poplab; then
  poplab_venv "$TARGET" "$BUILD" "$WHEEL" >&2
  "$VENV/bin/python" -c 'from poplab import NetworkSimulation' || {
    echo "poplab in $VENV has no NetworkSimulation (networks with births and deaths): build a checkout that has it, or leave poplab out (--tools)" >&2; exit 1; }
fi
if uses batss; then install_batss >&2; fi
if uses rebop; then install_rebop >&2; fi
if uses ppsim-0.1.6; then install_ppsim 0.1.6 >&2; fi
tool_python() {
  case "$1" in poplab) echo "$VENV/bin/python" ;; batss) batss_python ;; rebop) rebop_python ;; ppsim-0.1.6) venv_python 0.1.6 ;; esac
}

# ---------------------------------------------------------------- run the cells
TMP=$(mktemp -d /tmp/bench-crn-XXXXXX); trap 'rm -rf "$TMP"' EXIT
RAW="$TMP/raw.jsonl"; : >"$RAW"
declare -A SKIP  # "tool workload" -> why larger n are not run

note() {  # note TOOL WORKLOAD N TEXT: a row without numbers
  python3 -c 'import json,sys; t,w,n,s=sys.argv[1:]; print(json.dumps({"tool":t,"workload":w,"n":int(n),"note":s}))' \
    "$1" "$2" "$3" "$4" >>"$RAW"
}

run_cell() {  # run_cell TOOL WORKLOAD N: up to REPEAT processes, the one of lowest total kept
  local tool=$1 w=$2 n=$3 rc best="" line="" runs=0 total
  while [ $runs -lt "$REPEAT" ]; do
    rc=0
    timeout -k 10 "$LIMIT" "$(tool_python "$tool")" "$HERE/crn_peers.py" --tool "$tool" --workload "$w" \
      --n "$n" --seed "$SEED" --time "$END_TIME" >"$TMP/out" 2>"$TMP/err" || rc=$?
    [ $rc -eq 0 ] || break
    runs=$((runs + 1))
    total=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["total_s"])' "$(tail -1 "$TMP/out")")
    if [ "$(fastest "$best" "$total")" != "$best" ]; then best=$total; line=$(tail -1 "$TMP/out"); fi
    long "$best" && break
  done
  if [ $runs -gt 0 ]; then  # a later repeat that failed does not undo a finished run
    echo "${line%\}}, \"runs\": $runs}" >>"$RAW"
    return
  fi
  local why
  if [ $rc -eq 3 ]; then
    why=$(grep -v '^[[:space:]]*$' "$TMP/err" | tail -1)
    note "$tool" "$w" "$n" "${why:-n/a}"
    SKIP["$tool $w"]="n/a"
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    note "$tool" "$w" "$n" "> $LIMIT s"
    SKIP["$tool $w"]="not run (> $LIMIT s at n = $n)"
  else
    why=$(tr '\r' '\n' <"$TMP/err" | grep -v '^[[:space:]]*$' | tail -1 | cut -c1-160)
    note "$tool" "$w" "$n" "error (exit $rc): $why"
    SKIP["$tool $w"]="not run (failed at n = $n)"
  fi
}

for w in ${WORKLOADS//,/ }; do
  for ((n = 1000; n <= MAX_N; n *= 10)); do
    for tool in ${TOOLS//,/ }; do
      case "${SKIP[$tool $w]:-}" in
        "") echo "== $w n=$n $tool" >&2; run_cell "$tool" "$w" "$n" ;;
        n/a) ;;  # said once, at the smallest n
        *) note "$tool" "$w" "$n" "${SKIP[$tool $w]}" ;;
      esac
    done
  done
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- header and table
report() {
  echo "# CRNs: ${TOOLS//,/, } on ${WORKLOADS//,/ and } ($START_DATE)"
  echo
  if uses poplab; then
    echo "- poplab: Python package $("$VENV/bin/python" -c 'import poplab; print(poplab.__version__)') ($VENV, $(cat "$VENV/poplab-source.txt" 2>/dev/null || echo 'source not recorded')), $("$VENV/bin/python" --version), numpy $("$VENV/bin/python" -c 'import numpy; print(numpy.__version__)'); Simulation(..., seed=S, volume=n, engine=\"auto\") (a NetworkSimulation: direct or batched by the library's cost model; the engine is named in the tool column), sim.run(T); k unchanged (poplab's convention); repeatable for a seed"
  fi
  if uses batss; then
    echo "- batss 1.0.4: $("$(batss_python)" --version), numpy $("$(batss_python)" -c 'import numpy; print(numpy.__version__)'); Simulation(..., seed=S, volume=n), sim.run(T); A + A at k/2 (batss's A + A propensity is k #A (#A - 1) / v); not repeatable for a seed"
  fi
  if uses rebop; then
    echo "- rebop 0.10.0: $("$(rebop_python)" --version), numpy $("$(rebop_python)" -c 'import numpy; print(numpy.__version__)'); Gillespie.add_reaction, run(init, T, nb_steps=1, rng=S); A + B at k/n, A + A at k/(2n) (mass action k #A #B, k #A (#A - 1), no volume)"
  fi
  if uses ppsim-0.1.6; then
    echo "$(ppsim_header_lines 0.1.6): only conservative CRNs, so n/a here"
  fi
  machine_line
  echo "- load average (1, 5, 15 min): $LOAD_START at start, $LOAD_END at end"
  echo "- workloads: lotka-volterra R -> 2R, R + F -> 2F, F -> 0 (k = 1), R = F = n/2; dimerization A + A -> D, D -> A + A (k = 1), A = n; volume n; rates in poplab's convention (A + A at k #A (#A - 1) / (2n)), converted per tool (scripts/bench/crn_peers.py --help); to time $END_TIME"
  echo "- seconds: construction (the simulator object) and run (time 0 to $END_TIME) inside an already started Python, time.perf_counter(); the fastest total of up to $REPEAT runs per cell, each in a fresh process (seed $SEED; runs over 60 s not repeated); limit ${LIMIT} s per cell process"
  echo
  python3 - "$RAW" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def pow10(n):
    e = len(str(n)) - 1
    return f"10^{e}" if 10 ** e == n else str(n)
def s(x):
    return f"{x:.1e}" if x < 0.001 else f"{x:.4f}" if x < 10 else f"{x:.1f}"
print("| n | tool | workload | construction s | run s | total s | final counts (time) |")
print("|---|---|---|---:|---:|---:|---|")
for r in rows:
    tool = f"{r['tool']} ({r['engine']})" if "engine" in r else r["tool"]
    head = f"| {pow10(r['n'])} | {tool} | {r['workload']} |"
    if "note" in r:
        print(f"{head} {r['note']} | | | |")
    else:
        counts = ", ".join(f"{k} = {v}" for k, v in r["counts"].items())
        print(f"{head} {s(r['construction_s'])} | {s(r['run_s'])} | {s(r['total_s'])} | {counts} (t = {r['end_time']:g}) |")
EOF
}
report >"$TMP/table.md"
echo
cat "$TMP/table.md"
if [ -n "$OUT" ]; then
  mkdir -p "$OUT"
  cp "$TMP/table.md" "$OUT/bench-crn.md"; cp "$RAW" "$OUT/bench-crn.jsonl"
  echo; echo "written: $OUT/bench-crn.md, $OUT/bench-crn.jsonl"
fi
