#!/usr/bin/env bash
# Side-by-side benchmark: poplab against ppsim 1.0.2 (Rust backend) and ppsim 0.1.6 (Cython),
# the fastest public simulators for the complete graph (Doty & Severson), on the same machine in
# the same run. See --help. The ppsim side (protocols in ppsim's API, table) is scripts/bench/ppsim_bench.py.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

usage() {
  cat <<'EOF'
Usage: scripts/bench/bench-vs-ppsim.sh [options]

For each protocol and n = 10^3, 10^4, ... up to the max, runs one trial in poplab
(`poplab run P --n N --trials 1 --seed S --json --engine E`), ppsim 1.0.2 and ppsim 0.1.6, and
prints a markdown table of wall-clock seconds. The ppsim venvs are created on first use under
scripts/bench/.venv-ppsim-{1.0.2,0.1.6} (git-ignored; needs PyPI).

Options:
  --quick               smoke test: n up to 10^5, 30 s per cell, 4 GB per ppsim cell
  --max-n N             largest n, a power of ten (10^9, 1e9 or 1000000000; default 10^9)
  --protocols LIST      comma-separated, from angluin,approx-majority,ls-timer,pll (default: all)
  --engine E            poplab engine (default auto)
  --seed S              seed of every run (default 1)
  --time-limit SEC      wall-clock limit per cell, poplab and ppsim alike (default 600)
  --repeat R            run each cell up to R times with the same seed and keep the fastest
                        (default 1; the work is identical, so the minimum filters out machine
                        noise); a run over 60 s is not repeated
  --mem-limit GB        address-space limit per ppsim cell (prlimit --as; default 8)
  --poplab PATH         use this binary instead of building (cargo build --release -p poplab-cli)
  --out DIR             results directory (default target/): bench-vs-ppsim.{md,csv,json,jsonl}
  --validate            instead of the benchmark: compare ppsim and poplab parallel times to the
                        safe set at n = 100 over 100 trials (ls-timer with timer_factor = 1)
  -h, --help            this help

What is timed:
  poplab: the whole process, measured outside it (build excluded).
  ppsim:  Simulation(...) construction (state enumeration + q x q transition table: its setup)
          plus sim.run(...), measured inside the process (interpreter start and imports
          excluded; the raw files also have setup_s, run_s and the process wall time).
Stop rules:
  angluin, approx-majority: both tools run until silent / the safe set (poplab: one leader;
    consensus). ppsim checks at intervals of 1% of the elapsed parallel time (history_interval),
    1.0.2 stops at the exact step of silence, 0.1.6 at the next check.
  ls-timer, pll: not silent. ppsim runs for exactly the parallel time poplab needed to reach the
    safe set at the same n and seed: the same amount of simulated work. Its final leader count
    is recorded in the raw results.
ppsim 1.0.2 sometimes reports silence falsely (approx-majority: U agents left; ls-timer, pll: early
stop); each ppsim run checks the final configuration with the rule, resumes after a false silence
(marked (†) in the table) and records "ok" (the silent protocols ended in poplab's safe set).
A cell that runs out of time or memory is "could not run: <reason>", and larger n are then skipped
for that tool and protocol ("not run: exceeded the limit at n = ...").
EOF
}

# ---------------------------------------------------------------- options
MAX_N=1000000000; PROTOCOLS="angluin,approx-majority,ls-timer,pll"; ENGINE=auto; SEED=1
LIMIT=600; MEM_GB=8; POPLAB=""; OUT="$ROOT/target"; VALIDATE=0; REPEAT=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) MAX_N=100000; LIMIT=30; MEM_GB=4 ;;
    --max-n) MAX_N="$2"; shift ;;
    --protocols) PROTOCOLS="$2"; shift ;;
    --engine) ENGINE="$2"; shift ;;
    --seed) SEED="$2"; shift ;;
    --time-limit) LIMIT="$2"; shift ;;
    --repeat) REPEAT="$2"; shift ;;
    --mem-limit) MEM_GB="$2"; shift ;;
    --poplab) POPLAB="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    --validate) VALIDATE=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
MEM_BYTES=$((MEM_GB * 1024 * 1024 * 1024))

# ---------------------------------------------------------------- ppsim venvs (idempotent)
. "$HERE/bench-common.sh"
MAX_N=$(pow10_arg "$MAX_N")
install_ppsims

# ---------------------------------------------------------------- poplab
if [ -z "$POPLAB" ]; then
  (cd "$ROOT" && cargo build --release -q -p poplab-cli)
  POPLAB="${CARGO_TARGET_DIR:-$ROOT/target}/release/poplab"
fi
[ -x "$POPLAB" ] || { echo "no poplab binary at $POPLAB" >&2; exit 1; }

if [ "$VALIDATE" = 1 ]; then
  for v in 1.0.2 0.1.6; do
    for p in ${PROTOCOLS//,/ }; do
      extra=(); [ "$p" = ls-timer ] && extra=(--timer-factor 1)
      "$(venv_python $v)" "$HERE/ppsim_bench.py" validate --protocol "$p" --n 100 --seed "$SEED" \
        --poplab "$POPLAB" "${extra[@]}" || echo "$p (ppsim $v): validation failed"
    done
  done
  exit 0
fi

# ---------------------------------------------------------------- run the cells
mkdir -p "$OUT"
RAW="$OUT/bench-vs-ppsim.jsonl"; MD="$OUT/bench-vs-ppsim.md"; : >"$RAW"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
declare -A SKIP  # "tool protocol" -> why larger n are not run ("exceeded the limit at n = ...")

record() {  # record TOOL PROTOCOL N JSON-FIELDS: one raw line
  echo "{\"tool\": \"$1\", \"protocol\": \"$2\", \"n\": $3, \"seed\": $SEED, $4}" >>"$RAW"
}

run_poplab() {  # run_poplab PROTOCOL N: sets POPLAB_T (parallel time to the safe set, or "")
  local p=$1 n=$2 t0 t1 rc=0 extra=()
  POPLAB_T=""
  [ "$p" = approx-majority ] && extra=(--set a=0.5)
  local best="" runs=0
  while [ $runs -lt "$REPEAT" ]; do
    t0=$EPOCHREALTIME
    timeout -k 10 "$LIMIT" "$POPLAB" run "$p" --n "$n" --trials 1 --seed "$SEED" --json --engine "$ENGINE" \
      --max-steps 10^30 "${extra[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
    t1=$EPOCHREALTIME
    [ $rc -eq 0 ] || break
    runs=$((runs + 1))
    best=$(fastest "$best" "$(elapsed "$t0" "$t1")")
    long "$best" && break
  done
  if [ $rc -eq 0 ]; then
    local info; info=$(python3 - "$TMP/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); t = d["trials"][0]
print(t["outcome"], t["parallel_time"], t["steps"], d["engine"])
EOF
)
    read -r outcome ptime steps engine <<<"$info"
    if [ "$outcome" = converged ]; then
      POPLAB_T=$ptime
      record poplab "$p" "$n" "\"seconds\": $best, \"runs\": $runs, \"steps\": $steps, \"parallel_time\": $ptime, \"engine\": \"$engine\", \"stop_rule\": \"safe set\""
      return
    fi
    record poplab "$p" "$n" "$(reason_json "could not run: $outcome at 10^30 steps")"
    SKIP["poplab $p"]="failed at n = $n"
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    record poplab "$p" "$n" "$(reason_json "could not run: timeout (${LIMIT}s)")"
    SKIP["poplab $p"]="exceeded the limit at n = $n"
  else
    record poplab "$p" "$n" "$(reason_json "could not run: $(tail -1 "$TMP/err" | cut -c1-120)")"
    SKIP["poplab $p"]="failed at n = $n"
  fi
}

run_ppsim() {  # run_ppsim VERSION PROTOCOL N
  local v=$1 p=$2 n=$3 rc=0 t0 t1 args=()
  if [ "$p" = ls-timer ] || [ "$p" = pll ]; then
    if [ -z "$POPLAB_T" ]; then
      record "ppsim-$v" "$p" "$n" "$(reason_json "could not run: no poplab parallel time to match")"; return
    fi
    args=(--time "$POPLAB_T")
  fi
  local best="" line="" runs=0
  while [ $runs -lt "$REPEAT" ]; do
    t0=$EPOCHREALTIME
    timeout -k 10 "$LIMIT" prlimit --as="$MEM_BYTES" "$(venv_python "$v")" "$HERE/ppsim_bench.py" run \
      --protocol "$p" --n "$n" --seed "$SEED" "${args[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
    t1=$EPOCHREALTIME
    [ $rc -eq 0 ] || break
    runs=$((runs + 1))
    local seconds; seconds=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["seconds"])' "$(tail -1 "$TMP/out")")
    if [ "$(fastest "$best" "$seconds")" != "$best" ]; then
      best=$seconds; line="$(tail -1 "$TMP/out" | sed 's/}$//'), \"wall_s\": $(elapsed "$t0" "$t1")}"
    fi
    long "$best" && break
  done
  line="${line%\}}, \"runs\": $runs}"
  if [ $rc -eq 0 ]; then
    local rule="silence"; [ ${#args[@]} -gt 0 ] && rule="poplab's parallel time"
    record "ppsim-$v" "$p" "$n" "${line:1:-1}, \"stop_rule\": \"$rule\""
    return
  fi
  local why skip="exceeded the limit at n = $n"
  why=$(cell_failure $rc "$TMP/err") || skip="failed at n = $n"
  record "ppsim-$v" "$p" "$n" "$(reason_json "could not run: $why")"
  SKIP["ppsim-$v $p"]=$skip
}

# ---------------------------------------------------------------- header (versions, machine, seeds)
{
  echo "# poplab vs ppsim ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  echo "- poplab: $("$POPLAB" --version) ($POPLAB, git $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')), engine $ENGINE"
  ppsim_header_lines
  machine_line
  echo "- seed $SEED for every cell; limits per cell: ${LIMIT}s wall clock, ${MEM_GB} GB address space (ppsim)"
  echo "- seconds: poplab = process wall time; ppsim = Simulation() setup + run() inside the process; the fastest of up to $REPEAT runs per cell (same seed; runs over 60 s not repeated)"
  echo "- stop: angluin, approx-majority until silent; ls-timer, pll: ppsim runs for poplab's parallel time to the safe set"
  echo
} >"$MD"
cat "$MD"

for p in ${PROTOCOLS//,/ }; do
  for ((n = 1000; n <= MAX_N; n *= 10)); do
    echo "== $p n=$n" >&2
    if [ -n "${SKIP[poplab $p]:-}" ]; then
      POPLAB_T=""; record poplab "$p" "$n" "$(reason_json "not run: ${SKIP[poplab $p]}")"
    else
      run_poplab "$p" "$n"
    fi
    for v in 1.0.2 0.1.6; do
      if [ -n "${SKIP[ppsim-$v $p]:-}" ]; then
        record "ppsim-$v" "$p" "$n" "$(reason_json "not run: ${SKIP[ppsim-$v $p]}")"
      else
        run_ppsim "$v" "$p" "$n"
      fi
    done
  done
done

# ---------------------------------------------------------------- table
echo
cat "$MD"
python3 "$HERE/ppsim_bench.py" table --raw "$RAW" --md "$MD" --csv "$OUT/bench-vs-ppsim.csv" --json "$OUT/bench-vs-ppsim.json"
echo
echo "written: $MD, $OUT/bench-vs-ppsim.csv, $OUT/bench-vs-ppsim.json (raw lines: $RAW)"
