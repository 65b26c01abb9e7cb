#!/usr/bin/env bash
# Publishes a finished reproduction as the reproduction of record, in docs/reproduction/.
#
#   scripts/release/publish-reproduction.sh WORK [--quick REPORT_DIR] [--dest DIR] [--commit SHA]
#                                               [--searches-commit SHA] [--started TIME]
#
# WORK is the directory of `scripts/cluster/reproduce.sh --work WORK -- --full ...` (its report/,
# searches/, shards/ and logs/). It writes into DIR (default docs/reproduction):
#
#   report.md, index.html, verdicts.json   the report, rendered again from the stored data with
#                                          --compare REPORT_DIR when given (quick against full)
#   plots/*.svg, *.png, *.pdf               every figure (the PDF and the PNG converted from the
#                                          SVG by rsvg-convert, installed with apt-get if missing)
#   data/CLAIM/...                          each sweep's sweep.json, summary.csv, summary.json,
#                                          fits.json (not its trials), each search's record and
#                                          start, each holding estimate's files
#   sizing.md, sizing.json                  scripts/cluster/sizing.py: costs and modelled wall times
#   check/                                  the first trials of each sweep's smallest cell, which
#                                          scripts/release/check-reproduction.sh runs again
#   README.md                               the provenance: commit, seed, machine, dates, the
#                                          command, each claim's verdict, wall time and cost
#
# and refuses a result over 20 MB. POPLAB: the poplab binary of the run's commit (default
# target/release/poplab); --commit names that commit (default: the one the binary reports in
# WORK/logs, else HEAD); --searches-commit names the commit whose binary ran the searches, when an
# earlier one did (a run resumed across commits that draw the same; the provenance says so);
# --started says when the run began (UTC, e.g. "2026-11-29 22:06:05"; default: the birth time of
# WORK/logs, which a run copied back from a saved state no longer has).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:?usage: publish-reproduction.sh WORK [--quick REPORT_DIR] [--dest DIR] [--commit SHA] [--searches-commit SHA] [--started TIME]}
shift
quick="" dest=$repo/docs/reproduction commit="" searches_commit="" started=""
while (( $# )); do
    case $1 in
        --quick) quick=$(realpath "$2"); shift 2 ;;
        --dest) dest=$2; shift 2 ;;
        --commit) commit=$2; shift 2 ;;
        --searches-commit) searches_commit=$2; shift 2 ;;
        --started) started=$2; shift 2 ;;
        *) echo "publish-reproduction.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
poplab=${POPLAB:-$repo/target/release/poplab}
work=$(realpath "$work")
report=$work/report
[[ -f $report/verdicts.json ]] || { echo "publish-reproduction.sh: $report has no verdicts.json" >&2; exit 2; }
mode=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["mode"])' "$report/verdicts.json")
seed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seed"])' "$report/verdicts.json")
commit=${commit:-$(git -C "$repo" rev-parse HEAD)}

# The report again, from the stored data (nothing runs again), with the comparison.
compare=()
[[ -n $quick ]] && compare=(--compare "$quick")
"$poplab" reproduce "--$mode" --seed "$seed" --out "$report" "${compare[@]}" 2>"$work/logs/publish-report.log"

command -v rsvg-convert >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq librsvg2-bin >/dev/null
rm -rf "$dest"
mkdir -p "$dest/plots"
cp "$report/report.md" "$report/index.html" "$report/verdicts.json" "$dest/"
cp "$report"/plots/*.svg "$report"/plots/*.png "$dest/plots/"
# The PDF and the PNG (at twice the SVG's size, as poplab writes it) from the SVG: rsvg-convert
# smooths lines where poplab's own PNG backend places them on whole pixels.
for svg in "$dest"/plots/*.svg; do
    rsvg-convert --format=pdf --output="${svg%.svg}.pdf" "$svg"
    rsvg-convert --format=png --zoom=2 --output="${svg%.svg}.png" "$svg"
done
(cd "$report" && find data -type f \( -name sweep.json -o -name 'summary.*' -o -name fits.json \
    -o -name '*.search.json' -o -path '*/starts/*.json' -o -name 'estimates*' -o -name 'holding*' \) \
    -print0 | xargs -0 -I{} cp --parents {} "$dest/")
python3 "$repo/scripts/cluster/sizing.py" "$work" --json "$dest/sizing.json" >"$dest/sizing.md"

# What scripts/release/check-reproduction.sh runs again: the first $check_trials trials of the
# smallest cell of each of a claim's sweeps (of a claim searched per size, whose sweeps are one per
# size, only the smallest size's), their published rows in check/.
python3 - "$report" "$dest" "${POPLAB_CHECK_TRIALS:-3}" <<'PY'
import csv, io, json, os, re, sys
report, dest, keep = sys.argv[1], sys.argv[2], int(sys.argv[3])
sweeps = {}
for root, _, files in sorted(os.walk(os.path.join(report, "data"))):
    if "sweep.json" in files and "trials.csv" in files:
        sweeps[os.path.relpath(root, report)] = json.load(open(os.path.join(root, "sweep.json")))
smallest = {}
for sweep, definition in sweeps.items():
    claim, name = sweep.split(os.sep)[1], sweep.split(os.sep)[-1]
    if name.startswith("sweep-"):
        continue
    # The smallest size first, then the smallest parameters ("n100-N6400" before "n100-N12800").
    size = [int(x) for x in re.findall(r"\d+", name)]
    if claim not in smallest or size < smallest[claim][0]:
        smallest[claim] = (size, sweep)
replays = []
for sweep, definition in sweeps.items():
    claim, name = sweep.split(os.sep)[1], sweep.split(os.sep)[-1]
    if not name.startswith("sweep-") and smallest[claim][1] != sweep:
        continue
    root = os.path.join(report, sweep)
    text = open(os.path.join(root, "trials.csv")).read()
    header, *lines = text.splitlines(keepends=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    n = min(definition["n"])
    cell = next(r["cell"] for r in rows if int(r["n"]) == n)
    chosen = [line for line, row in zip(lines, rows) if row["cell"] == cell and int(row["trial"]) < keep]
    # The cell's parameters, from its key ("n=16 N=100").
    params = [tuple(part.split("=", 1)) for part in cell.split()[1:]]
    name = sweep.replace(os.sep, "-") + ".csv"
    os.makedirs(os.path.join(dest, "check"), exist_ok=True)
    with open(os.path.join(dest, "check", name), "w") as f:
        f.write(header + "".join(chosen))
    replays.append({"sweep": sweep, "cell": cell, "n": n, "params": params, "trials": len(chosen),
                    "rows": os.path.join("check", name)})
with open(os.path.join(dest, "check", "replay.json"), "w") as f:
    json.dump(replays, f, indent=1)
PY

# Provenance.
# The run began when its logs directory was made (its birth time, else its last change).
[[ -z $started ]] && started=$(stat -c %w "$work/logs" | cut -d. -f1)
[[ $started == - ]] && started=$(stat -c %y "$work/logs" | cut -d. -f1)
finished=$(stat -c %y "$report/verdicts.json" | cut -d. -f1)
{
    echo "# The reproduction of record (\`poplab reproduce --$mode --seed $seed\`)"
    echo
    if [[ -n $searches_commit && $searches_commit != "$commit" ]]; then
        echo "- Commit: \`$commit\` (the binary that ran the trials, the holding estimates and the merge);"
        echo "  the searches ran on the binary of \`$searches_commit\`, whose search code and engines draw as"
        echo "  \`$commit\`'s for them (searches run again on \`$commit\` give the same records and starts,"
        echo "  processor seconds aside: docs/verdicts.md lists those checked)."
    else
        echo "- Commit: \`$commit\` (the binary that ran every step)."
    fi
    echo "- Seed: $seed; generator Xoshiro256PlusPlus, seeded per trial by SplitMix64."
    echo "- Machine: $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p' | head -n 1)), $(free -g | awk '/^Mem:/ { print $2 }') GiB;"
    echo "  a one-node Slurm ($(sbatch --version 2>/dev/null || dpkg-query -W -f='slurm ${Version}' slurm-wlm 2>/dev/null || echo slurm)) started by \`scripts/cluster/slurm-test.sh --run\`."
    echo "- Run between $started and $finished (UTC), stopped at times and continued from its"
    echo "  checkpoints, the machine shared with other work at times: wall times are this machine's,"
    echo "  core-hours are thread CPU time and do not depend on the load."
    echo "- Command:"
    echo
    echo '  ```sh'
    echo "  POPLAB=target/release/poplab scripts/cluster/slurm-test.sh --run scripts/cluster/reproduce.sh \\"
    echo "      --work WORK --searches 32 --shards 16 --at-once 1 --threads 2 --merge-threads 2 -- --$mode --seed $seed"
    echo '  ```'
    echo
    echo "  (or, without Slurm, \`poplab reproduce --$mode --seed $seed\`: the same data; see"
    echo "  docs/cluster.md)."
    echo
    echo "## Verdicts and costs"
    echo
    # The guide's reproduction chapter includes the table between these anchors (mdBook).
    echo "<!-- ANCHOR: verdicts -->"
    python3 - "$dest/verdicts.json" "$dest/sizing.json" "$(nproc)" <<'PY'
import json, sys
verdicts = json.load(open(sys.argv[1]))
sizing = json.load(open(sys.argv[2]))["claims"]
cores = int(sys.argv[3])
print(f"| claim | verdict | searches (core-h) | trials (core-h) | holding (core-h) | alone on {cores} cores |")
print("|---|---|---:|---:|---:|---:|")
for c in verdicts["claims"]:
    s = sizing.get(c["id"], {})
    steps = [s[step] for step in ("searches", "trials", "holding") if step in s]
    cost = lambda step: f"{s[step]['core_seconds'] / 3600:.2f}" if step in s else "-"
    # Each step by list scheduling on this machine's cores: at least its longest job and its total
    # over the cores (scripts/cluster/sizing.py's model, for this claim alone).
    alone = sum(max(step["longest_seconds"], step["core_seconds"] / cores) for step in steps)
    wall = f"{alone / 3600:.2f} h" if alone >= 3600 else f"{alone / 60:.1f} min" if steps else "-"
    print(f"| {c['id']} | {c['verdict']} | {cost('searches')} | {cost('trials')} | {cost('holding')} | {wall} |")
PY
    echo "<!-- ANCHOR_END: verdicts -->"
    echo
    echo "The costs per step and claim, and the modelled wall time on 2, 16, 100 and 1000 cores:"
    echo "[sizing.md](sizing.md). The report: [report.md](report.md) ([index.html](index.html)); the"
    echo "figures in [plots/](plots/) as SVG, PNG and PDF; the data in [data/](data/) (each sweep's"
    echo "definition, summaries and fits, each search's record and start; not the trials, which the"
    echo "command above writes again byte for byte)."
} >"$dest/README.md"

size=$(du -sm "$dest" | cut -f1)
if (( size > 20 )); then
    echo "publish-reproduction.sh: $dest is $size MB, over 20 MB" >&2
    exit 1
fi
echo "published $mode reproduction (commit $commit, seed $seed) in $dest: $size MB"
