#!/usr/bin/env bash
# Installs a wheel built by scripts/release/build-wheel.sh where no Rust can be found, and runs it.
#
#   bash scripts/release/test-wheel.sh WHEEL [PYTHON]...      (default PYTHON: /usr/bin/python3)
#
# For each PYTHON (an absolute path): a fresh virtual environment in a temporary directory,
# made and used with PATH=/usr/bin:/bin and nothing else from the environment (the script fails
# if cargo or rustc is still found there), `pip install WHEEL` (numpy and pandas from PyPI),
# then a small program: poplab.run on angluin, a protocol written in Python, a Simulation, and
# poplab.exact, each checked against what it must give.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/release/test-wheel.sh WHEEL [PYTHON]..." >&2; exit 2; }
wheel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -f "$wheel" ] || { echo "error: '$1' is not a file" >&2; exit 2; }
shift
[ $# -ge 1 ] || set -- /usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/smoke.py" <<'EOF'
import sys
import poplab
from poplab import Simulation

print("python", sys.version.split()[0], "poplab", poplab.__file__)
r = poplab.run("angluin", 1000, trials=20, seed=1)
assert r.summary["converged"] == 20, r.summary
print("angluin n=1000:", r.engine, "mean steps", r.summary["mean_steps"], "((n-1)^2 = 998001)")
p = poplab.Protocol({("L", "L"): ("L", "F")}, output={"L": "leader", "F": "follower"},
                    stop="one-leader", init={"L": 1.0})
u = poplab.run(p, 500, trials=50, seed=2)
assert u.summary["converged"] == 50, u.summary
print("Python protocol n=500: mean steps", u.summary["mean_steps"], "((n-1)^2 = 249001)")
sim = Simulation({"A": 501_000, "B": 499_000},
                 {("A", "B"): ("U", "U"), ("A", "U"): ("A", "A"), ("B", "U"): ("B", "B")}, seed=1)
sim.run()
assert sim.silent() and sorted(sim.config_dict.values()) == [10**6], sim.config_dict
print("Simulation approx-majority n=10^6: silent at time", round(sim.time, 3), sim.config_dict)
e = poplab.exact("angluin", 8)
assert abs(e["expected_steps"] - 49) < 1e-9, e
print("exact angluin n=8:", e["expected_steps"], "steps ((n-1)^2 = 49)")
EOF
for python in "$@"; do
    rm -rf "$work/venv"
    env -i HOME="$work" PATH=/usr/bin:/bin bash -euo pipefail -c '
        if command -v cargo || command -v rustc; then echo "error: Rust is on PATH=$PATH" >&2; exit 1; fi
        echo "== $1 (PATH=$PATH: no cargo, no rustc)"
        "$1" -m venv "$2/venv"
        "$2/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$3"
        "$2/venv/bin/python" "$2/smoke.py"
    ' bash "$python" "$work" "$wheel"
done
echo "ok: $(basename "$wheel") installed and ran without Rust on $# Python(s)"
