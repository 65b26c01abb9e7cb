#!/usr/bin/env python3
"""Writes examples/protocols/max-propagation.toml: an epidemic of the largest of K values.

    python3 scripts/examples/max-propagation.py [K] > examples/protocols/max-propagation.toml

Every pair of distinct values becomes the larger one twice, so the rule is monotone (the batched
engine's monotone table draws a batch in O(K) rather than O(K^2), see the guide's speed chapter).
"""
import sys

K = int(sys.argv[1]) if len(sys.argv) > 1 else 100
lines = [
    f"# An epidemic of the largest value: each agent starts with one of {K} values, uniformly, and two",
    "# agents take the larger of their two values. Silent once every agent holds the largest, after",
    "# about (ln n + ln K) / 2 units of parallel time. The rule is monotone (a pair's result depends",
    "# only on its larger value), so the batched engine draws its batches in O(K) (the guide's speed",
    f"# chapter). Written by scripts/examples/max-propagation.py {K}. Output: yes from {K // 2} up.",
    'name = "max-propagation"',
    "",
    "[states]",
]
lines += [f'"{v}" = "{"yes" if v >= K // 2 else "no"}"' for v in range(K)]
lines += ["", "[rules]"]
lines += [f'"{x},{y}" = "{max(x, y)},{max(x, y)}"' for x in range(K) for y in range(K) if x != y]
lines += ["", f"[init]   # 1/{K} of the agents at each value"]
lines += [f'"{v}" = {1 / K!r}' for v in range(K)]
lines += ["", "[stop]", 'safe = "silent"']
print("\n".join(lines))
