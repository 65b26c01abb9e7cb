#!/usr/bin/env bash
# Records the per-trial results (outcome, steps, recovery, census) of a fixed set of commands that
# covers every protocol, every engine, faults, holding runs, census, random starts and sweeps, so
# that a refactoring can be checked to change no result:
#   scripts/checks/same-results.sh record DIR    # run the commands with target/release/poplab into DIR
#   scripts/checks/same-results.sh compare A B   # per-trial comparison of two recordings
set -euo pipefail
cd "$(dirname "$0")/../.."
P=${POPLAB:-target/release/poplab}

commands() {
cat <<'LIST'
angluin-agents       run angluin --n 300 --trials 6 --seed 3 --engine agents
angluin-counts       run angluin --n 3000 --trials 6 --seed 3 --engine counts
angluin-batched      run angluin --n 100000 --trials 4 --seed 3 --engine batched
angluin-auto-census  run angluin --n 2000 --trials 4 --seed 5 --census
angluin-ring         run angluin --n 50 --graph ring --max-steps 10^6 --trials 2
angluin-uring        run angluin --n 30 --graph undirected-ring --max-steps 10^6 --trials 3 --seed 2
angluin-random       run angluin --n 500 --init random --trials 4 --seed 8
angluin-trace-fault  run angluin --n 200 --trials 3 --seed 4 --fault 3000:20 --engine agents
threshold-auto       run threshold --n 500 --set k=10 --set f=12 --trials 5 --seed 1
threshold-agents     run threshold --n 500 --set k=10 --set f=12 --trials 5 --seed 1 --engine agents
threshold-fault      run threshold --n 100 --fault 5000:10 --trials 5 --seed 2
threshold-fault-cnt  run threshold --n 100 --fault 5000:10 --trials 5 --seed 2 --engine counts
threshold-random     run threshold --n 200 --init random --trials 5 --seed 6 --engine batched
lstimer-agents       run ls-timer --n 60 --trials 4 --seed 1 --census
lstimer-counts       run ls-timer --n 60 --trials 4 --seed 1 --engine counts
lstimer-batched      run ls-timer --n 60 --trials 4 --seed 1 --engine batched
lstimer-holding      run ls-timer --n 6 --set s=6 --measure holding --trials 5 --seed 1
lstimer-random       run ls-timer --n 40 --init random --trials 3 --seed 9
ppl-agents           run ppl --n 40 --trials 3 --seed 1 --census
ppl-counts           run ppl --n 40 --trials 3 --seed 1 --engine counts
ppl-holding          run ppl --n 30 --set t_virus=2 --set t_max=6 --set t_emit=6 --measure holding --trials 5
ppl-random           run ppl --n 30 --init random --trials 3 --seed 2
pll-agents           run pll --n 1000 --trials 4 --seed 1 --census
pll-counts           run pll --n 1000 --trials 3 --seed 1 --engine counts
pll-batched          run pll --n 100000 --trials 2 --seed 1
pll-printed          run pll-as-printed --n 1000 --trials 4 --seed 2
pll-random           run pll --n 300 --init random --trials 3 --seed 3
pllsym-agents        run pll-sym --n 1000 --trials 3 --seed 1 --census
pllsym-batched       run pll-sym --n 2000 --trials 3 --seed 1 --engine batched
prl-default          run prl --n 32 --trials 4 --seed 1
prl-random           run prl --n 32 --init random --trials 4 --seed 1 --census
prl-fault            run prl --n 16 --fault 10000:4 --trials 3 --seed 5
am-batched           run approx-majority --n 100000 --set a=0.6 --trials 4 --seed 1
am-counts            run approx-majority --n 10000 --set a=0.6 --trials 4 --seed 1 --engine counts
am-agents            run approx-majority --n 1000 --set a=0.6 --trials 4 --seed 1 --engine agents
am-holding           run approx-majority --n 100 --measure holding --max-steps 10^5 --trials 2
LIST
}

case "${1:-}" in
record)
    out=$2; mkdir -p "$out"
    commands | while read -r name args; do
        # shellcheck disable=SC2086
        $P $args --json --threads 2 > "$out/$name.json"
    done
    rm -rf "$out/sweep-prl" "$out/sweep-threshold"
    $P sweep prl --n 8..32*2 --trials 5 --init random --seed 4 --out "$out/sweep-prl" 2>/dev/null
    $P sweep threshold --n 20,40 --set k=3,5 --trials 4 --census --out "$out/sweep-threshold" 2>/dev/null
    ;;
compare)
    python3 - "$2" "$3" <<'PY'
import json, csv, sys, pathlib
a, b = map(pathlib.Path, sys.argv[1:3])
keys = ("index", "seed", "outcome", "steps", "recovery_steps", "distinct_states", "last_demotion")
bad = 0
for fa in sorted(a.glob("*.json")):
    ta = [{k: t.get(k) for k in keys} for t in json.loads(fa.read_text())["trials"]]
    tb = [{k: t.get(k) for k in keys} for t in json.loads((b / fa.name).read_text())["trials"]]
    if ta != tb:
        bad += 1; print("DIFFERS", fa.name)
for d in sorted(p for p in a.iterdir() if p.is_dir()):
    rows = lambda p: sorted((r["cell"], r["trial"], r["outcome"], r["steps"], r["distinct_states"]) for r in csv.DictReader(open(p / "trials.csv")))
    if rows(d) != rows(b / d.name):
        bad += 1; print("DIFFERS", d.name)
print("compared", len(list(a.glob('*.json'))), "runs and", len([p for p in a.iterdir() if p.is_dir()]), "sweeps:", "all identical" if bad == 0 else f"{bad} differ")
sys.exit(1 if bad else 0)
PY
    ;;
*) sed -n '2,6p' "$0"; exit 2 ;;
esac
