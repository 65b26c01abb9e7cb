#!/usr/bin/env bash
# ls-timer holding times against N = n by the splitting estimator, with enough replicas for each
# point: a pilot estimate (2 repetitions of 100 replicas) gives log10 P, then 10 repetitions of
# R = max(200, 4 ln(1/P)) replicas (gAMS's binomial relative variance near 0.25). One JSON file
# per point in DIR (a point already there is skipped, so a killed run continues); then
# scripts/experiments/holding_fit.py DIR prints the table and the fits of docs/holding.md.
#
#   scripts/experiments/holding-curve.sh DIR "N s" ...   e.g. DIR s96 and the points "4 384" "5 480"
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p poplab-cli
bin=${CARGO_TARGET_DIR:-target}/release/poplab
dir=$1
shift
mkdir -p "$dir"
for point in "$@"; do
    read -r N s <<<"$point"
    out=$dir/N$N-s$s.json
    [ -s "$out" ] && continue
    args=(run ls-timer --n "$N" --set "s=$s" --measure holding --estimator splitting --score total-deficit --threads 1 --json)
    log10p=$("$bin" "${args[@]}" --trials 2 --replicas 100 --seed 7 |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["estimate"]["log10_break_probability"])')
    replicas=$(python3 -c "import math; print(max(200, math.ceil(4 * math.log(10) * -($log10p))))")
    echo "N=$N s=$s: pilot log10 P = $log10p, $replicas replicas" >&2
    start=$(date +%s.%N)
    "$bin" "${args[@]}" --trials 10 --replicas "$replicas" --seed 1 >"$out.tmp"
    python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(date +%s.%N)" >"$out.seconds"
    mv "$out.tmp" "$out"
done
