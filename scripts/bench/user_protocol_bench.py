"""One protocol written three ways, timed per run: the 4-state exact majority as a protocol file
(examples/protocols/exact-majority.toml), as a `poplab.Protocol` with a dict rule, and with a rule
function (declared closed_stops=True, and without). Prints a markdown table of seconds.

    python scripts/bench/user_protocol_bench.py [--sizes 1e7,1e8] [--trials 4] [--seed 1] [--open-max 1e7]

Each cell is one `poplab.run(protocol, n, trials=T, seed=S, threads=1)` in this process, stop rule
"consensus", init 51% A and 49% B. The undeclared rule function takes single steps near its
stop (its closedness is unknown), so it is timed only up to --open-max.
"""

import argparse
import pathlib
import time

import poplab

ROOT = pathlib.Path(__file__).resolve().parents[2]
RULES = {
    ("A", "B"): ("a", "b"), ("B", "A"): ("b", "a"), ("A", "b"): ("A", "a"),
    ("b", "A"): ("a", "A"), ("B", "a"): ("B", "b"), ("a", "B"): ("b", "B"),
}
OUTPUT = {"A": "yes", "a": "yes", "B": "no", "b": "no"}


def rule(a, b):
    return RULES.get((a, b))


def protocols():
    common = dict(output=OUTPUT, stop="consensus", init={"A": 0.51, "B": 0.49})
    return {
        "file": f"@{ROOT}/examples/protocols/exact-majority.toml",
        "dict": poplab.Protocol(RULES, **common),
        "function, closed_stops": poplab.Protocol(rule, deterministic=True, closed_stops=True, **common),
        "function": poplab.Protocol(rule, deterministic=True, **common),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1e7,1e8")
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--open-max", type=float, default=1e7)
    args = parser.parse_args()
    cells = protocols()
    print(f"exact majority to consensus, {args.trials} trials per cell, seed {args.seed}, one thread; seconds "
          "(ratio to the file)\n")
    print("| n | " + " | ".join(cells) + " |")
    print("|---" * (len(cells) + 1) + "|")
    for size in args.sizes.split(","):
        n = int(float(size))
        row, base = [], None
        for name, protocol in cells.items():
            if name == "function" and n > args.open_max:
                row.append("(not run)")
                continue
            start = time.perf_counter()
            poplab.run(protocol, n, trials=args.trials, seed=args.seed, threads=1)
            seconds = time.perf_counter() - start
            base = base or seconds
            row.append(f"{seconds:.2f} ({seconds / base:.2f}x)")
        print(f"| 10^{len(str(n)) - 1} | " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
