"""The table and fits of docs/holding.md from the JSON files of holding-curve.sh (next to this).

    python3 scripts/experiments/holding_fit.py DIR

Weighted least squares of log10 E[T] on N (and on log10 N) with each point's standard error
(half its 95% interval over t_{0.975, M-1}); slope intervals widened by the Birge ratio when the
reduced chi^2 exceeds 1, as poplab's estimates-fit.json computes them.
"""

import glob
import json
import math
import re
import sys

from scipy import stats


def points(directory):
    rows = []
    for path in glob.glob(f"{directory}/N*-s*.json"):
        n = int(re.search(r"N(\d+)-s", path).group(1))
        doc = json.load(open(path))
        e = doc["estimate"]
        t = stats.t.ppf(0.975, e["repetitions"] - 1)
        se = (e["log10_ci95"][1] - e["log10_mean_steps"]) / t
        seconds = float(open(path + ".seconds").read())
        rows.append((n, doc["params"]["s"], e, se, seconds))
    return sorted(rows, key=lambda row: row[0])


def weighted_line(xs, ys, ses):
    w = [1 / s**2 for s in ses]
    sw = sum(w)
    mx = sum(a * x for a, x in zip(w, xs)) / sw
    my = sum(a * y for a, y in zip(w, ys)) / sw
    sxx = sum(a * (x - mx) ** 2 for a, x in zip(w, xs))
    slope = sum(a * (x - mx) * (y - my) for a, x, y in zip(w, xs, ys)) / sxx
    intercept = my - slope * mx
    chi2 = sum(a * (y - intercept - slope * x) ** 2 for a, x, y in zip(w, xs, ys))
    reduced = chi2 / (len(xs) - 2) if len(xs) > 2 else float("nan")
    if reduced > 1:
        half = stats.t.ppf(0.975, len(xs) - 2) * math.sqrt(reduced / sxx)
    else:
        half = 1.959964 / math.sqrt(sxx)
    return intercept, slope, (slope - half, slope + half), reduced


def main(directory):
    rows = points(directory)
    print("| N = n | s | log10 E[T] (steps) | 95% CI (log10) | replicas R | base L | binomial rel. variance | interactions | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n, s, e, _, seconds in rows:
        lo, hi = e["log10_ci95"]
        print(
            f"| {n} | {s} | {e['log10_mean_steps']:.2f} | [{lo:.2f}, {hi:.2f}] | {e['replicas']} | "
            f"{e['levels']['base']} | {e['levels']['binomial_relative_variance']:.2f} | "
            f"{e['interactions_simulated']:.3e} | {seconds:.0f} |"
        )
    xs = [row[0] for row in rows]
    ses = [row[3] for row in rows]
    for unit, ys in [
        ("steps", [row[2]["log10_mean_steps"] for row in rows]),
        ("parallel time", [row[2]["log10_mean_steps"] - math.log10(row[0]) for row in rows]),
    ]:
        a, b, (lo, hi), chi = weighted_line(xs, ys, ses)
        ln10 = math.log(10)
        print(
            f"\n{unit}: log10 E[T] = {a:.3f} + {b:.4f} N, slope 95% CI [{lo:.4f}, {hi:.4f}] decades per unit N, "
            f"i.e. e^({b * ln10:.3f} N) [{lo * ln10:.3f}, {hi * ln10:.3f}]; reduced chi^2 {chi:.1f}"
        )


if __name__ == "__main__":
    main(sys.argv[1])
