#!/usr/bin/env bash
# ppsim's own examples, one core and all cores: poplab's `Simulation` against ppsim 0.1.6's, the
# same protocol code (scripts/bench/ppsim_inprocess.py, ppsim's API), per unit of simulated time.
#
#   scripts/bench/bench-all-cores.sh [--workloads LIST] [--ns "1e6 1e7 1e8"] [--seed S]
#
# For each workload and n, each tool runs its cell alone (one core), then as $(nproc) replicas at
# once, each in its own process with seeds S, S+1, ..., whose timed regions start at the same
# instant after the imports (all cores: ppsim 0.1.6 runs one trajectory
# on one core, and so does poplab, so replicas are how either uses every core). Prints a markdown
# table: one-core seconds per unit, all-core units per second summed over the replicas, and the
# ratio of ppsim's cost to poplab's in both. The unit is one unit of parallel time (sim.time) for
# the workloads that stop at a random time (ppsim_bench.py's RANDOM_STOP), else one run: the
# README's approximate majority stops at time 10 in both tools, and angluin at one leader, which
# ppsim 0.1.6 notices only at its next check, up to n/100 later (as in scripts/bench/speed_figure.py).
# The venvs are bench-inprocess.sh's: target/venv-bench (poplab, as last installed there) and
# scripts/bench/.venv-ppsim-0.1.6; run bench-inprocess.sh once first.
set -euo pipefail
cd "$(dirname "$0")/../.."
workloads="readme-am,readme-averaging,readme-sosa,approx-majority,angluin"
ns="1e6 1e7 1e8"
seed=1
while [ $# -gt 0 ]; do
    case $1 in
        --workloads) workloads=$2; shift 2 ;;
        --ns) ns=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-all-cores: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
HERE=$PWD/scripts/bench
. scripts/bench/bench-common.sh
target=${CARGO_TARGET_DIR:-target}
declare -A python=([poplab]="$target/venv-bench/bin/python" [ppsim]="$(venv_python 0.1.6)")
for tool in poplab ppsim; do
    [ -x "${python[$tool]}" ] || { echo "bench-all-cores: ${python[$tool]} is missing: run scripts/bench/bench-inprocess.sh once" >&2; exit 2; }
done
cores=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cell TOOL WORKLOAD N REPLICAS: runs the replicas at once; prints "seconds units": the longest
# timed region and the units simulated, summed over the replicas.
cell() {
    local tool=$1 workload=$2 n=$3 replicas=$4 i start=()
    # Several replicas import their tools, then start their timed regions together, 3 s from now.
    [ "$replicas" -gt 1 ] && start=(--start-at "$(python3 -c 'import time; print(time.time() + 3)')")
    for ((i = 0; i < replicas; i++)); do
        "${python[$tool]}" scripts/bench/ppsim_inprocess.py --tool "$tool" --workload "$workload" --n "$n" \
            --seed $((seed + i)) "${start[@]}" > "$tmp/$i.out" 2> /dev/null &
    done
    wait
    python3 - "$tmp" "$replicas" "$workload" <<'PY'
import json, sys
sys.path.insert(0, "scripts/bench")
from ppsim_bench import RANDOM_STOP
tmp, replicas, workload = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cells = [json.loads(open(f"{tmp}/{i}.out").read().strip().splitlines()[-1]) for i in range(replicas)]
if not all(c.get("ok") for c in cells):
    sys.exit(f"bench-all-cores: a cell did not end where expected: {[c.get('expected') for c in cells]}")
units = sum(c["parallel_time"] for c in cells) if workload in RANDOM_STOP else replicas
print(max(c["seconds"] for c in cells), units)
PY
}

echo "# ppsim's examples, one core and all cores ($(date -u +%FT%TZ), git $(git rev-parse --short HEAD), poplab $(cat "$target/venv-bench/poplab-source.txt" 2>/dev/null || echo '?'))"
echo
echo "$(machine_line), load average at start $(cut -d' ' -f1 /proc/loadavg)"
echo "- one core: one cell, its timed region (Simulation + run); all cores: $cores cells at once (seeds $seed to $((seed + cores - 1))), their timed regions started together, the longest of them"
echo "- unit: one unit of parallel time for workloads that stop at a random time ($(cd scripts/bench && python3 -c 'from ppsim_bench import RANDOM_STOP; print(", ".join(sorted(RANDOM_STOP)))')), else one run"
echo
echo "| workload | n | unit | poplab s per unit, one core | ppsim 0.1.6 s per unit, one core | ratio, one core | poplab units per s, all cores | ppsim 0.1.6 units per s, all cores | ratio, all cores |"
echo "|---|---|---|---|---|---|---|---|---|"
for workload in ${workloads//,/ }; do
    for n in $ns; do
        n=$(python3 -c "print(int(float('$n')))")
        read -r p1s p1t <<< "$(cell poplab "$workload" "$n" 1)"
        read -r q1s q1t <<< "$(cell ppsim "$workload" "$n" 1)"
        read -r pas pat <<< "$(cell poplab "$workload" "$n" "$cores")"
        read -r qas qat <<< "$(cell ppsim "$workload" "$n" "$cores")"
        python3 - "$workload" "$n" "$p1s" "$p1t" "$q1s" "$q1t" "$pas" "$pat" "$qas" "$qat" <<'PY'
import sys
sys.path.insert(0, "scripts/bench")
from ppsim_bench import RANDOM_STOP
w, n = sys.argv[1], int(sys.argv[2])
p1s, p1t, q1s, q1t, pas, pat, qas, qat = map(float, sys.argv[3:])
one_p, one_q = p1s / p1t, q1s / q1t
all_p, all_q = pat / pas, qat / qas
unit = "sim.time" if w in RANDOM_STOP else "run"
print(f"| {w} | 10^{len(str(n)) - 1} | {unit} | {one_p:.4g} | {one_q:.4g} | {one_q / one_p:.2f}x | {all_p:.4g} | {all_q:.4g} | {all_p / all_q:.2f}x |")
PY
    done
done
