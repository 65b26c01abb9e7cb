"""The speed figure of the README and the guide: poplab against ppsim 0.1.6 on ppsim's own
examples, one core, from a CSV of `scripts/bench/bench-inprocess.sh` results (one row per workload and n:
both tools' seconds and final parallel times).

    python3 scripts/bench/speed_figure.py docs/guide/src/speed/ppsim-0.1.6-2026-11-27.csv \\
        docs/guide/src/speed/ppsim-0.1.6-2026-11-27.svg

Plots ppsim's seconds over poplab's against n, one line per workload, as the bench's table gives
it: per unit of simulated time (each tool's seconds over its own run's final parallel time) where
the runs stop at a random time (approximate majority from a near tie, averaging, SOSA), plain
where both stop at the same point (the README's approximate majority at time 10; angluin at its one
leader, which ppsim 0.1.6 notices only at its next check, up to n/100 later, so its final time is
not comparable). Needs matplotlib.
"""

import csv
import sys

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from ppsim_bench import RANDOM_STOP  # noqa: E402  (workloads compared per unit of simulated time)

LABELS = {
    "angluin": "angluin (2 states)",
    "approx-majority": "approximate majority, near tie",
    "readme-am": "approximate majority (README)",
    "readme-averaging": "averaging (51 values)",
    "readme-sosa": "SOSA election",
}


def main(source: str, target: str) -> None:
    series: dict[str, list[tuple[int, float]]] = {}
    with open(source, newline="") as fh:
        for row in csv.DictReader(fh):
            poplab, ppsim = float(row["poplab_seconds"]), float(row["ppsim_0.1.6_seconds"])
            if row["workload"] in RANDOM_STOP:
                poplab /= float(row["poplab_parallel_time"])
                ppsim /= float(row["ppsim_0.1.6_parallel_time"])
            series.setdefault(row["workload"], []).append((int(row["n"]), ppsim / poplab))
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for workload, points in series.items():
        points.sort()
        ax.plot([n for n, _ in points], [r for _, r in points], marker="o", label=LABELS.get(workload, workload))
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_yticks([0.5, 1, 2, 4, 8], labels=["0.5x", "1x", "2x", "4x", "8x"])
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("agents n")
    ax.set_ylabel("ppsim 0.1.6 time / poplab time")
    ax.set_title("poplab against ppsim 0.1.6 on ppsim's examples, one core", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(target, metadata={"Date": None} if target.endswith(".svg") else None)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python3 scripts/bench/speed_figure.py RESULTS.csv FIGURE.svg")
    main(sys.argv[1], sys.argv[2])
