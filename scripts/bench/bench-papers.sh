#!/usr/bin/env bash
# The papers' protocols, one core against all cores: for each protocol and n, `poplab run PROTOCOL
# --n N --trials T --seed S` (the release build of this checkout) with --threads 1 and with
# --threads $(nproc) (every core), timed as whole processes. Prints a markdown table: seconds, the
# interactions run, ns per interaction on one core, and the all-core speed-up.
#
# "All cores" splits the trials between threads (replicas): a seed gives the same trials at any
# thread count, which the script checks by comparing the two runs' steps. One trial is not split.
#
#   scripts/bench/bench-papers.sh [--trials T] [--seed S] [--cells "PROTOCOL:N PROTOCOL:N ..."]
#
# Default cells: pll and pll-as-printed at n = 10^5 and 10^6, ppl at 10^4 and 10^5, angluin at
# 10^9, ls-timer at N = n = 10^4 (ppl at 10^6 and ls-timer at 10^5 take minutes per trial: give
# them with --cells). The last column bounds what replicas can gain: the longest trial's share
# of the interactions (a run cannot end before its longest trial).
set -euo pipefail
cd "$(dirname "$0")/../.."
trials=8
seed=1
cells="pll:1e5 pll:1e6 pll-as-printed:1e5 pll-as-printed:1e6 ppl:1e4 ppl:1e5 angluin:1e9 ls-timer:1e4"
while [ $# -gt 0 ]; do
    case $1 in
        --trials) trials=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --cells) cells=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-papers: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
HERE=$PWD/scripts/bench
. scripts/bench/bench-common.sh
cargo build --release -q -p poplab-cli
poplab=${CARGO_TARGET_DIR:-target}/release/poplab
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# The papers' protocols, one core and all cores ($(date -u +%FT%TZ), git $(git rev-parse --short HEAD))"
echo
echo "$(machine_line), load average at start $(cut -d' ' -f1 /proc/loadavg)"
echo "- $trials trials per cell (angluin at 10^9: 2), seed $seed; whole processes timed (start included)"
echo
echo "| protocol | n | engine | trials | interactions | one core s | ns per interaction | all cores s | speed-up | longest trial's share |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for cell in $cells; do
    protocol=${cell%%:*} n=${cell#*:}
    t=$trials
    [ "$protocol:$n" = "angluin:1e9" ] && t=2
    for threads in 1 "$(nproc)"; do
        date +%s.%N > "$tmp/$threads.start"
        "$poplab" run "$protocol" --n "$n" --trials "$t" --seed "$seed" --threads "$threads" \
            --max-steps 1e20 --json > "$tmp/$threads.json"
        date +%s.%N > "$tmp/$threads.end"
    done
    python3 - "$tmp" "$protocol" "$n" "$t" <<'EOF'
import json, os, sys
tmp, protocol, n, trials = sys.argv[1:]
one, all_ = (json.load(open(f"{tmp}/{t}.json")) for t in ("1", str(os.cpu_count())))
s1, s0 = (float(open(f"{tmp}/{t}.end").read()) - float(open(f"{tmp}/{t}.start").read()) for t in ("1", str(os.cpu_count())))
if any(t["outcome"] != "converged" for t in one["trials"] + all_["trials"]):
    sys.exit(f"bench-papers: {protocol} n={n}: a trial did not converge; its steps are a lower bound, not a time")
steps = [t["steps"] for t in one["trials"]]
if steps != [t["steps"] for t in all_["trials"]]:
    sys.exit(f"bench-papers: {protocol} n={n}: the trials differ between 1 thread and all cores")
total = sum(steps)
print(f"| {protocol} | {n} | {one['engine']} | {trials} | {total:.3e} | {s1:.2f} | {s1 / total * 1e9:.3g} | "
      f"{s0:.2f} | {s1 / s0:.2f} | {max(steps) / total:.0%} |")
EOF
done
