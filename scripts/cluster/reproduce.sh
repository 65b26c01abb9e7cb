#!/usr/bin/env bash
# The whole reproduction (`poplab reproduce`) on a Slurm cluster, in three dependent steps:
#
#   1. the searches for the slowest starts, one array task per searched size
#      (reproduce --searches --shard-from-env: into $WORK/searches/s-I);
#   2. the claims' sweeps, an array of K shards, each reading the searches
#      (reproduce --shard-from-env --starts ...: into $WORK/shards/rep-I);
#   3. the merge: the shards joined, the holding estimates run, the report written
#      (reproduce --merge ... --starts ...: into $WORK/report).
#
# Each step starts only if the one before succeeded (afterok). Run it again after a failure or a
# kill: every task continues from what its directory holds (finished searches and trials are read
# back, running trials from their checkpoints, running searches and holding estimates from their
# journals of finished trials and repetitions), so little done is done twice.
#
#   scripts/cluster/reproduce.sh [--work DIR] [--searches S] [--shards K] [--at-once M] [--threads T]
#                                [--merge-threads U] -- REPRODUCE_ARGS
#   e.g. scripts/cluster/reproduce.sh --work rep-full --shards 16 --at-once 2 -- --full --seed 1
#
# S search tasks (default 32: a task per searched size when there are at most 32; the sizes are
# dealt round-robin, and a task with none ends at once), K shards (default 16), at most M tasks of
# an array at once (default: no limit), T threads per task (default 1) and U for the merge, which
# runs the holding estimates (default T).
#
# Environment: POPLAB (the poplab binary, on a file system the nodes share; default: poplab on
# PATH). It waits for the jobs and prints their states; it exits 0 once the report is written.
set -euo pipefail

work=reproduction searches=32 shards=16 at_once=0 threads=1 merge_threads=
while (( $# )); do
    case $1 in
        --work) work=$2; shift 2 ;;
        --searches) searches=$2; shift 2 ;;
        --shards) shards=$2; shift 2 ;;
        --merge-threads) merge_threads=$2; shift 2 ;;
        --at-once) at_once=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "reproduce.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
args=("$@")
poplab=$(command -v "${POPLAB:-poplab}") || { echo "reproduce.sh: no poplab binary (set POPLAB)" >&2; exit 2; }
merge_threads=${merge_threads:-$threads}
mkdir -p "$work/logs" "$work/searches" "$work/shards"
work=$(realpath "$work")
throttle=""
(( at_once > 0 )) && throttle="%$at_once"

echo "reproduce.sh: $searches search tasks, $shards shards, $threads threads per task ($merge_threads for the merge), into $work"

# --open-mode=append: a job run again (a cluster's job ids can start over) adds to its log.
submit() { sbatch --parsable --open-mode=append --chdir="$work" --cpus-per-task="$threads" "$@" | cut -d';' -f1; }
quoted=$(printf ' %q' "${args[@]}")
search=$(submit --job-name=poplab-searches --array="0-$((searches - 1))$throttle" \
    --output="$work/logs/%x-%A_%a.out" \
    --wrap="exec $poplab reproduce$quoted --searches --shard-from-env --threads $threads --out searches/s-\$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN))")
starts=$(for (( i = 0; i < searches; i++ )); do printf ' searches/s-%d' "$i"; done)
sweeps=$(submit --job-name=poplab-shards --array="0-$((shards - 1))$throttle" --dependency="afterok:$search" \
    --output="$work/logs/%x-%A_%a.out" \
    --wrap="exec $poplab reproduce$quoted --shard-from-env --threads $threads --starts$starts --out shards/rep-\$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN))")
parts=$(for (( i = 0; i < shards; i++ )); do printf ' shards/rep-%d' "$i"; done)
merge=$(sbatch --parsable --open-mode=append --chdir="$work" --cpus-per-task="$merge_threads" --job-name=poplab-merge \
    --dependency="afterok:$sweeps" --output="$work/logs/%x-%j.out" \
    --wrap="exec $poplab reproduce$quoted --threads $merge_threads --merge$parts --starts$starts --out report")
echo "reproduce.sh: submitted searches $search, shards $sweeps (afterok), merge $merge (afterok)"

last=""
while :; do
    queue=$(squeue -h -o '%i %j %T %r' 2>/dev/null | grep -E "^($search|$sweeps|$merge)" || true)
    [[ -z $queue ]] && break
    now=$(awk '{ print $2, $3 }' <<<"$queue" | sort | uniq -c | tr -s ' ' | paste -sd ';' -)
    [[ $now != "$last" ]] && echo "$(date +%T) $now"
    last=$now
    sleep 30
done
if [[ -f $work/report/report.md ]] && grep -q "COMPLETED" <(scontrol show job "$merge" 2>/dev/null || echo COMPLETED); then
    echo "reproduce.sh: report written to $work/report"
else
    echo "reproduce.sh: the merge did not complete; see $work/logs and run this again to continue" >&2
    exit 1
fi
