#!/usr/bin/env python3
"""The wall time of a reproduction on K cores, modelled from what its run measured.

    scripts/cluster/sizing.py WORK [--cores 2,16,100,1000] [--merge-threads U] [--node C]
                            [--search-threads T] [--json FILE]

WORK is the directory of `scripts/cluster/reproduce.sh --work WORK`: its searches (searches/*),
shards (shards/*) and merged report (report/). The run's jobs and their measured costs:

- a search per searched size: the processor seconds of its record (`*.search.json`);
- a trial per row of each shard's `times.csv` (the thread CPU time of the trial);
- a holding estimate per cell of a splitting claim: its wall time (`estimates.jsonl`) times the
  merge's threads U, split into its independent repetitions.

The model runs the three steps one after another, as reproduce.sh does (every search, then every
trial, then the merge's holding estimates), each by list scheduling, longest job first: the
searches and trials on K cores, the holding estimates on min(K, C) (the merge is one process on
one node of C cores, default 32, whose threads run an estimate's repetitions side by side). With
--search-threads T (reproduce.sh --threads T), a search runs on T cores of a node and takes its
processor time over T (an optimistic bound: a round of the race waits for its slowest trial), so
the searches run K / T at a time. A step takes at least its longest job and its total over its
cores. It prints, per claim, the
core-hours of each step and the longest job, and per K the modelled wall time and what bounds
it. The trial times are those of this machine: scale them by the speed of the cluster's cores.
"""

import argparse
import csv
import glob
import heapq
import json
import os
import sys
from collections import defaultdict


def claim_of(path, work):
    """The claim a file under WORK/{searches,shards,report}/*/data/CLAIM/... belongs to."""
    parts = os.path.relpath(path, work).split(os.sep)
    return parts[parts.index("data") + 1]


def jobs(work, merge_threads):
    """(step, claim, what, seconds) for every job of the run."""
    found = []
    for record in glob.glob(os.path.join(work, "searches", "*", "data", "*", "starts", "*.search.json")):
        with open(record) as f:
            chosen = json.load(f)["chosen"]
        found.append(("searches", claim_of(record, work), "search " + chosen["cell"], chosen["core_seconds"]))
    for times in glob.glob(os.path.join(work, "shards", "*", "data", "**", "times.csv"), recursive=True):
        with open(times, newline="") as f:
            for row in csv.DictReader(f):
                found.append(("trials", claim_of(times, work), f"trial {row['trial']} of {row['cell']}",
                              float(row["cpu_seconds"])))
    for lines in glob.glob(os.path.join(work, "report", "data", "**", "estimates.jsonl"), recursive=True):
        with open(lines) as f:
            for line in f:
                doc = json.loads(line)
                reps = max(1, int(doc["estimate"].get("repetitions", 1)))
                for r in range(reps):
                    found.append(("holding", claim_of(lines, work), f"repetition {r} of {doc['cell']}",
                                  doc["wall_seconds"] * merge_threads / reps))
    return found


def list_schedule(costs, cores):
    """The makespan of `costs` on `cores`, longest first, each to the core free first."""
    free = [0.0] * min(cores, max(1, len(costs)))
    for cost in sorted(costs, reverse=True):
        heapq.heapreplace(free, free[0] + cost)
    return max(free) if costs else 0.0


def hours(seconds):
    return f"{seconds / 3600:.2f}"


def clock(seconds):
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.0f} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("work")
    parser.add_argument("--cores", default="2,16,100,1000")
    parser.add_argument("--merge-threads", type=int, default=2)
    parser.add_argument("--node", type=int, default=32)
    parser.add_argument("--search-threads", type=int, default=1)
    parser.add_argument("--json")
    args = parser.parse_args()
    found = jobs(args.work, args.merge_threads)
    if not found:
        sys.exit(f"sizing.py: no measured jobs under {args.work} (searches/, shards/, report/)")
    steps = ["searches", "trials", "holding"]
    by_claim = defaultdict(lambda: {s: [0.0, 0, 0.0, ""] for s in steps})
    for step, claim, what, seconds in found:
        entry = by_claim[claim][step]
        entry[0] += seconds
        entry[1] += 1
        if seconds > entry[2]:
            entry[2], entry[3] = seconds, what
    print("| claim | searches (core-h) | trials (core-h) | holding (core-h) | longest job |")
    print("|---|---:|---:|---:|---|")
    for claim in sorted(by_claim):
        e = by_claim[claim]
        longest = max((e[s] for s in steps), key=lambda x: x[2])
        print(f"| {claim} | {hours(e['searches'][0])} | {hours(e['trials'][0])} | {hours(e['holding'][0])} | "
              f"{longest[3]}: {clock(longest[2])} |")
    totals = {s: sum(c for st, _, _, c in found if st == s) for s in steps}
    print(f"| all | {hours(totals['searches'])} | {hours(totals['trials'])} | {hours(totals['holding'])} | "
          f"total {hours(sum(totals.values()))} core-h |")
    print()
    print("| cores K | searches | trials | holding | wall time | bound by |")
    print("|---:|---:|---:|---:|---:|---|")
    model = []
    for k in [int(c) for c in args.cores.split(",")]:
        spans = {}
        bound = {}
        for s in steps:
            costs = [c for st, _, _, c in found if st == s]
            cores = k
            if s == "holding":
                cores = min(k, args.node)
            elif s == "searches":
                threads = max(1, min(args.search_threads, k, args.node))
                costs, cores = [c / threads for c in costs], max(1, k // threads)
            spans[s] = list_schedule(costs, cores)
            longest = max(costs, default=0.0)
            bound[s] = "longest job" if longest >= 0.999 * spans[s] and len(costs) > 1 and spans[s] > 0 else "total / K"
        wall = sum(spans.values())
        binding = max(steps, key=lambda s: spans[s])
        model.append({"cores": k, "wall_seconds": wall, **{f"{s}_seconds": spans[s] for s in steps},
                      "bound": f"{binding}: {bound[binding]}"})
        print(f"| {k} | {clock(spans['searches'])} | {clock(spans['trials'])} | {clock(spans['holding'])} | "
              f"**{clock(wall)}** | {binding} ({bound[binding]}) |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"claims": {c: {s: {"core_seconds": e[s][0], "jobs": e[s][1], "longest_seconds": e[s][2],
                                           "longest": e[s][3]} for s in steps} for c, e in by_claim.items()},
                       "model": model}, f, indent=2)


if __name__ == "__main__":
    main()
