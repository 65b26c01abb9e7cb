#!/usr/bin/env bash
# In-process side-by-side benchmark: poplab's Python `Simulation` against ppsim 1.0.2's and ppsim
# 0.1.6's, running the same protocol code (ppsim's API, ppsim's README examples) inside Python, and
# batss 1.0.4's on the two workloads that are chemical reaction networks.
# See --help. The cells are scripts/bench/ppsim_inprocess.py; the venvs and helpers are shared with
# scripts/bench/bench-vs-ppsim.sh (scripts/bench/bench-common.sh); the table is `ppsim_bench.py table`.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
ALL_WORKLOADS="angluin,approx-majority,readme-am,readme-averaging,readme-sosa,readme-sosa-exact"
ALL_TOOLS="poplab,ppsim-1.0.2,ppsim-0.1.6,batss-1.0.4"

usage() {
  cat <<EOF
Usage: scripts/bench/bench-inprocess.sh [options]

For each workload and n = 10^3, 10^4, ... up to the max, runs one cell per tool: a fresh Python
process that imports the tool, then times \`Simulation(...)\` + \`sim.run(...)\` with
time.perf_counter() (scripts/bench/ppsim_inprocess.py). The protocols are written once in ppsim's API
and run unchanged by \`from poplab import Simulation\` and \`from ppsim import Simulation\`.
Prints a markdown table of seconds and the final parallel time \`sim.time\` of each tool.

Tools (--tools, default $ALL_TOOLS):
  poplab        the poplab Python package of this checkout: the wheel is built with
                \`pip wheel ./crates/poplab-py\` (maturin, release; CARGO_TARGET_DIR or target/) and
                installed into $TARGET/venv-bench (with numpy, pandas), unless --no-build or --wheel
  ppsim-1.0.2   ppsim 1.0.2 (Rust backend) in scripts/bench/.venv-ppsim-1.0.2 } created on first use
  ppsim-0.1.6   ppsim 0.1.6 (Cython) in scripts/bench/.venv-ppsim-0.1.6        } (git-ignored; needs PyPI)
  batss-1.0.4   batss 1.0.4 (Rust backend) in scripts/bench/.venv-batss-1.0.4  }
                angluin and approx-majority written as CRNs with the rate constants that make
                batss's time parallel time (ppsim_inprocess.py --help); the other workloads n/a

Workloads (--workloads, default all; details and the README's \`u\` in ppsim_inprocess.py --help):
  angluin            {(L,L): (L,F)}, n x L, asymmetric; sim.run() until silent, history and
                     stopping interval n/100 (1% of the expected parallel time ~n)
  approx-majority    README dict (symmetric), {A: n//2, B: n - n//2}; until silent, history and
                     stopping interval 1.0 (ppsim's default)
  readme-am          README example 1: {A: 0.501 n, B: 0.499 n}, sim.run(10, 0.1)
  readme-averaging   README example 2: discrete averaging {0: n//2, 50: n//2},
                     sim.run(three_consecutive_values, 0.1)
  readme-sosa        README example 3 (SOSA 2018 leader election, Agent dataclass, u = 2),
                     sim.run(one_leader)
  readme-sosa-exact  poplab only: the same Simulation with output= (contender = leader) and
                     closed_stops=True, sim.run("one-leader") (exact stop); compared with ppsim's
                     readme-sosa

Options:
  --quick               smoke test: n up to 10^5, 30 s per cell, 4 GB per ppsim cell (explicit
                        --max-n, --time-limit, --mem-limit win, in any order)
  --max-n N             largest n, a power of ten (10^9, 1e9 or 1000000000; default 10^9)
  --workloads LIST      comma-separated, from $ALL_WORKLOADS
  --tools LIST          comma-separated, from $ALL_TOOLS
  --seed S              seed of every Simulation (default 1)
  --time-limit SEC      wall-clock limit per cell: its whole process (start and imports included),
                        every tool alike (default 600)
  --repeat R            run each cell up to R times (fresh processes, same seed) and keep the
                        fastest (default 1); a run over 60 s is not repeated
  --mem-limit GB        address-space limit per ppsim cell (prlimit --as; default 8)
  --no-build            poplab: use the package already installed in the venv
  --wheel FILE          poplab: install this wheel instead of building one
  --out DIR             results directory (default target/): bench-inprocess.{md,csv,json,jsonl}
  -h, --help            this help

What is timed: inside each cell's process, after the interpreter started and numpy, pandas and the
tool were imported: Simulation(...) (setup_s: ppsim enumerates the reachable states and tabulates
the transitions; poplab builds its protocol) plus sim.run(...) (run_s). The raw files also have
the process wall time (wall_s), sim.time, the history length and the final configuration.
Same stop for both tools, as the README writes it; the table shows each tool's final sim.time.
ppsim 1.0.2 sometimes reports silence falsely; a ppsim run is then resynchronised and resumed
inside the timed region (marked (†)). A cell that does not end where expected (one L; consensus;
time 10 or silent; three consecutive values; one contender) is marked "(wrong end: ...)".
A cell that runs out of time or memory is "could not run: <reason>", and larger n are then skipped
for that tool and workload ("not run: exceeded the limit at n = ...").
Seeds: poplab and ppsim 1.0.2 repeat a run exactly for a seed; ppsim 0.1.6 as installed here (built
against numpy 2) does not: Simulation(..., seed=1) gives a different run in every process, so its
sim.time varies from run to run (and --repeat keeps the fastest of different runs for it).
EOF
}

# ---------------------------------------------------------------- options
MAX_N=""; WORKLOADS="$ALL_WORKLOADS"; TOOLS="$ALL_TOOLS"; SEED=1; LIMIT=""; MEM_GB=""; REPEAT=1
QUICK=0; BUILD=1; WHEEL=""; OUT="$ROOT/target"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --max-n) MAX_N="$2"; shift ;;
    --workloads) WORKLOADS="$2"; shift ;;
    --tools) TOOLS="$2"; shift ;;
    --seed) SEED="$2"; shift ;;
    --time-limit) LIMIT="$2"; shift ;;
    --repeat) REPEAT="$2"; shift ;;
    --mem-limit) MEM_GB="$2"; shift ;;
    --no-build) BUILD=0 ;;
    --wheel) WHEEL="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ $QUICK = 1 ]; then : "${MAX_N:=100000}" "${LIMIT:=30}" "${MEM_GB:=4}"; fi
: "${MAX_N:=1000000000}" "${LIMIT:=600}" "${MEM_GB:=8}"
for w in ${WORKLOADS//,/ }; do
  [[ ",$ALL_WORKLOADS," == *",$w,"* ]] || { echo "unknown workload: $w (known: $ALL_WORKLOADS)" >&2; exit 2; }
done
for t in ${TOOLS//,/ }; do
  [[ ",$ALL_TOOLS," == *",$t,"* ]] || { echo "unknown tool: $t (known: $ALL_TOOLS)" >&2; exit 2; }
done
uses() { [[ ",$TOOLS," == *",$1,"* ]]; }
MEM_BYTES=$((MEM_GB * 1024 * 1024 * 1024))

. "$HERE/bench-common.sh"
MAX_N=$(pow10_arg "$MAX_N")

# ---------------------------------------------------------------- venvs
for v in 1.0.2 0.1.6; do uses "ppsim-$v" && install_ppsim "$v"; done
if uses batss-1.0.4; then install_batss; fi
VENV="$TARGET/venv-bench"
if uses poplab; then poplab_venv "$TARGET" "$BUILD" "$WHEEL"; fi
tool_python() {
  case "$1" in poplab) echo "$VENV/bin/python" ;; batss-*) batss_python ;; *) venv_python "${1#ppsim-}" ;; esac
}

# ---------------------------------------------------------------- run the cells
mkdir -p "$OUT"
RAW="$OUT/bench-inprocess.jsonl"; MD="$OUT/bench-inprocess.md"; : >"$RAW"
TMP=$(mktemp -d /tmp/wt-bench-XXXXXX 2>/dev/null || mktemp -d); trap 'rm -rf "$TMP"' EXIT
declare -A SKIP  # "tool workload" -> why larger n are not run ("exceeded the limit at n = ...")

record() {  # record TOOL WORKLOAD N JSON-FIELDS: one raw line
  echo "{\"tool\": \"$1\", \"workload\": \"$2\", \"n\": $3, \"seed\": $SEED, $4}" >>"$RAW"
}

run_cell() {  # run_cell TOOL WORKLOAD N: up to REPEAT processes, the fastest kept
  local tool=$1 w=$2 n=$3 rc=0 t0 t1 best="" line="" runs=0 seconds lim=()
  [ "$tool" = poplab ] || lim=(prlimit --as="$MEM_BYTES")
  while [ $runs -lt "$REPEAT" ]; do
    rc=0
    t0=$EPOCHREALTIME
    timeout -k 10 "$LIMIT" "${lim[@]}" "$(tool_python "$tool")" "$HERE/ppsim_inprocess.py" \
      --tool "${tool%%-*}" --workload "$w" --n "$n" --seed "$SEED" >"$TMP/out" 2>"$TMP/err" || rc=$?
    t1=$EPOCHREALTIME
    [ $rc -eq 0 ] || break
    runs=$((runs + 1))
    seconds=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["seconds"])' "$(tail -1 "$TMP/out")")
    if [ "$(fastest "$best" "$seconds")" != "$best" ]; then
      best=$seconds; line="$(tail -1 "$TMP/out" | sed 's/}$//'), \"wall_s\": $(elapsed "$t0" "$t1")}"
    fi
    long "$best" && break
  done
  if [ $runs -gt 0 ]; then  # a later repeat that failed does not undo a finished run
    echo "${line%\}}, \"runs\": $runs}" >>"$RAW"
    return
  fi
  local why skip="exceeded the limit at n = $n"
  why=$(cell_failure $rc "$TMP/err") || skip="failed at n = $n"
  record "$tool" "$w" "$n" "$(reason_json "could not run: $why")"
  SKIP["$tool $w"]=$skip
}

# ---------------------------------------------------------------- header (versions, machine, seeds)
{
  echo "# poplab vs ppsim, in process: \`from poplab import Simulation\` vs \`from ppsim import Simulation\` ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  if uses poplab; then
    echo "- poplab: Python package $("$VENV/bin/python" -c 'import poplab; print(getattr(poplab, "__version__", "?"))') ($VENV, $(cat "$VENV/poplab-source.txt" 2>/dev/null || echo 'source not recorded')), $("$VENV/bin/python" --version), numpy $("$VENV/bin/python" -c 'import numpy; print(numpy.__version__)'), pandas $("$VENV/bin/python" -c 'import pandas; print(pandas.__version__)')"
  fi
  for v in 1.0.2 0.1.6; do if uses "ppsim-$v"; then ppsim_header_lines "$v"; fi; done
  if uses batss-1.0.4; then echo "- batss 1.0.4: $("$(batss_python)" --version), numpy $("$(batss_python)" -c 'import numpy; print(numpy.__version__)'); angluin and approx-majority as CRNs (volume n; L + L -> L + F at k = n/(n-1); A + B -> U + U, A + U -> A + A, B + U -> B + B at k = 2n/(n-1): batss's time is then parallel time)"; fi
  machine_line
  echo "- seed $SEED for every Simulation; limits per cell: ${LIMIT}s wall clock, ${MEM_GB} GB address space (ppsim)"
  echo "- seconds: Simulation(...) + sim.run(...) inside an already started Python (interpreter start and imports not timed); the fastest of up to $REPEAT runs per cell, each in a fresh process (same seed; runs over 60 s not repeated)"
  echo "- the same protocol code for every tool (ppsim's API; scripts/bench/ppsim_inprocess.py): angluin and approx-majority until silent (history and stop interval n/100 and 1.0); readme-am sim.run(10, 0.1); readme-averaging sim.run(three_consecutive_values, 0.1); readme-sosa sim.run(one_leader) with u = 2; readme-sosa-exact (poplab only: output=, closed_stops=True) sim.run(\"one-leader\")"
  echo
} >"$MD"
cat "$MD"

for w in ${WORKLOADS//,/ }; do
  for ((n = 1000; n <= MAX_N; n *= 10)); do
    echo "== $w n=$n" >&2
    for tool in ${TOOLS//,/ }; do
      if [ "$w" = readme-sosa-exact ] && [ "$tool" != poplab ]; then
        record "$tool" "$w" "$n" "$(reason_json "n/a: poplab only")"
      elif [ "$tool" = batss-1.0.4 ] && [ "$w" != angluin ] && [ "$w" != approx-majority ]; then
        record "$tool" "$w" "$n" "$(reason_json "n/a: not a CRN")"
      elif [ -n "${SKIP[$tool $w]:-}" ]; then
        record "$tool" "$w" "$n" "$(reason_json "not run: ${SKIP[$tool $w]}")"
      else
        run_cell "$tool" "$w" "$n"
      fi
    done
  done
done

# ---------------------------------------------------------------- table
echo
cat "$MD"
python3 "$HERE/ppsim_bench.py" table --kind inprocess --raw "$RAW" --md "$MD" \
  --csv "$OUT/bench-inprocess.csv" --json "$OUT/bench-inprocess.json"
echo
echo "written: $MD, $OUT/bench-inprocess.csv, $OUT/bench-inprocess.json (raw lines: $RAW)"
