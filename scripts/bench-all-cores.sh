#!/usr/bin/env bash
# ppsim's own examples, one core and all cores: poplab's `Simulation` against ppsim 0.1.6's, the
# same protocol code (scripts/ppsim_inprocess.py, ppsim's API), per unit of simulated time.
#
#   scripts/bench-all-cores.sh [--workloads LIST] [--ns "1e6 1e7 1e8"] [--seed S]
#
# For each workload and n, each tool runs its cell alone (one core), then as $(nproc) replicas at
# once, each in its own process with seeds S, S+1, ..., whose timed regions start at the same
# instant after the imports (all cores: ppsim 0.1.6 runs one trajectory
# on one core, and so does poplab, so replicas are how either uses every core). Prints a markdown
# table: one-core seconds per unit of parallel time (sim.time), all-core units of parallel time
# per second summed over the replicas, and the ratio of ppsim's cost to poplab's in both.
# The venvs are bench-inprocess.sh's: target/venv-bench (poplab, as last installed there) and
# scripts/.venv-ppsim-0.1.6; run bench-inprocess.sh once first.
set -euo pipefail
cd "$(dirname "$0")/.."
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
HERE=$PWD/scripts
. scripts/bench-common.sh
target=${CARGO_TARGET_DIR:-target}
declare -A python=([poplab]="$target/venv-bench/bin/python" [ppsim]="$(venv_python 0.1.6)")
for tool in poplab ppsim; do
    [ -x "${python[$tool]}" ] || { echo "bench-all-cores: ${python[$tool]} is missing: run scripts/bench-inprocess.sh once" >&2; exit 2; }
done
cores=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cell TOOL WORKLOAD N REPLICAS: runs the replicas at once; prints "wall_seconds total_parallel_time".
cell() {
    local tool=$1 workload=$2 n=$3 replicas=$4 i
    # The replicas import their tools, then start their timed regions together, 3 s from now.
    local start_at
    start_at=$(python3 -c 'import time; print(time.time() + 3)')
    for ((i = 0; i < replicas; i++)); do
        "${python[$tool]}" scripts/ppsim_inprocess.py --tool "$tool" --workload "$workload" --n "$n" \
            --seed $((seed + i)) --start-at "$start_at" > "$tmp/$i.out" 2> /dev/null &
    done
    wait
    python3 - "$tmp" "$replicas" <<'PY'
import json, sys
tmp, replicas = sys.argv[1], int(sys.argv[2])
cells = [json.loads(open(f"{tmp}/{i}.out").read().strip().splitlines()[-1]) for i in range(replicas)]
if not all(c.get("ok") for c in cells):
    sys.exit(f"bench-all-cores: a cell did not end where expected: {[c.get('expected') for c in cells]}")
# The replicas ran side by side from the same instant: the time is the longest timed region.
print(max(c["seconds"] for c in cells), sum(c["parallel_time"] for c in cells))
PY
}

echo "# ppsim's examples, one core and all cores ($(date -u +%FT%TZ), git $(git rev-parse --short HEAD), poplab $(cat "$target/venv-bench/poplab-source.txt" 2>/dev/null || echo '?'))"
echo
echo "$(machine_line), load average at start $(cut -d' ' -f1 /proc/loadavg)"
echo "- one core: one cell, its timed region (Simulation + run); all cores: $cores cells at once (seeds $seed to $((seed + cores - 1))), their timed regions started together, the longest of them"
echo
echo "| workload | n | poplab s per unit, one core | ppsim 0.1.6 s per unit, one core | ratio, one core | poplab units per s, all cores | ppsim 0.1.6 units per s, all cores | ratio, all cores |"
echo "|---|---|---|---|---|---|---|---|"
for workload in ${workloads//,/ }; do
    for n in $ns; do
        n=$(python3 -c "print(int(float('$n')))")
        read -r p1s p1t <<< "$(cell poplab "$workload" "$n" 1)"
        read -r q1s q1t <<< "$(cell ppsim "$workload" "$n" 1)"
        read -r pas pat <<< "$(cell poplab "$workload" "$n" "$cores")"
        read -r qas qat <<< "$(cell ppsim "$workload" "$n" "$cores")"
        python3 - "$workload" "$n" "$p1s" "$p1t" "$q1s" "$q1t" "$pas" "$pat" "$qas" "$qat" <<'PY'
import sys
w, n = sys.argv[1], int(sys.argv[2])
p1s, p1t, q1s, q1t, pas, pat, qas, qat = map(float, sys.argv[3:])
one_p, one_q = p1s / p1t, q1s / q1t
all_p, all_q = pat / pas, qat / qas
print(f"| {w} | 10^{len(str(n)) - 1} | {one_p:.4g} | {one_q:.4g} | {one_q / one_p:.2f}x | {all_p:.4g} | {all_q:.4g} | {all_p / all_q:.2f}x |")
PY
    done
done
