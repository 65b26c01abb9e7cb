#!/usr/bin/env python3
"""One cell of the CRN bench of poplab against its peers (scripts/bench/bench-crn.sh): one workload
at one n, run by one tool imported in this interpreter; prints one JSON line.

    PYTHON crn_peers.py --tool {poplab,batss,rebop,ppsim-0.1.6} --workload {lotka-volterra,dimerization}
                        --n N --seed S [--time T]

Exit status: 0 ran (the JSON line is on stdout); 3 the tool cannot run this workload (the reason,
"n/a: ...", is the last line of stderr); 2 bad arguments; anything else failed.

The rates are written once, in poplab's convention (which is ppsim's), volume v = n:
  A -> ...      propensity k #A
  A + B -> ...  propensity k #A #B / v
  A + A -> ...  propensity k #A (#A - 1) / (2 v)
  0 -> A        propensity k v
and converted to each tool's own convention (tool_rate below), as read in its source:
  poplab        its own convention, volume=v (poplab/_network.py, NetworkSimulation's docstring):
                k unchanged. Simulation(...) of a network with births or deaths (neither workload is
                conservative) is a NetworkSimulation on the library's CRN engines; engine='auto'
                chooses the direct method or the batched engine by the library's cost model at the
                start (the JSON line's "engine"). A seed repeats a run exactly.
  batss 1.0.4   Simulation(..., volume=v) divides a bimolecular k by v itself (batss/crn.py:727,
                convert_to_uniform: k / volume**(order - 1)), but its A + A propensity is
                k #A (#A - 1) / v, without the 1/2: the batching engine multiplies the rate of a
                reaction with two equal reactants by its symmetry degree 2 (src/simulator_crn.rs:146-160
                of the 1.0.4 sdist) and the Gillespie phases hand the same k to rebop's mass action
                (src/simulator_crn.rs:909), which is #A (#A - 1). So k / 2 for A + A, k otherwise.
                (Measured: A + A -> D, D -> A + A given to batss at k = 1, n = 10^6, time 1, ends at
                A = 0.519 n, the ODE of k #A (#A - 1) / v; poplab's convention would end at 0.653 n,
                where batss ends given k / 2 and rebop given k / (2 v).) Its counts include two
                filler species, K and W, left out here. A seed does not repeat a run: the default
                batch/Gillespie switch measures wall-clock time (heuristic_gillespie_switching = 0;
                1, the reaction-count proxy, repeats, but is not the default and is not used here).
  rebop 0.10.0  no volume; mass action is k times the falling factorial: k #A, k #A #B,
                k #A (#A - 1), k (rebop/gillespie.py:47-61; src/gillespie.rs:71-78 and its test
                rate_lma, of the 0.10.0 crate). So k / v for A + B, k / (2 v) for A + A, k v for 0 -> A.
  ppsim 0.1.6   the same convention as poplab (ppsim/crn.py:168-201 with simulation.py:225-231),
                volume=v: k unchanged. But it simulates only conservative CRNs (as many products as
                reactants in every reaction, ppsim/crn.py:183-185), and neither workload is one, nor
                has a conservative form with the same law (the dimer's split D -> A + A is first order
                in D; a conservative rewrite would make it second order): exit 3.

Workloads (start, end time T, default 1):
  lotka-volterra  R -> 2R (k=1), R + F -> 2F (k=1), F -> 0 (k=1); R = n//2, F = n - n//2
  dimerization    A + A -> D (k=1), D -> A + A (k=1); A = n, D = 0

Timed with time.perf_counter(): construction = building the simulator object from the reactions and
the initial counts (poplab.Simulation(...); batss.Simulation(...); rebop.Gillespie() and its
add_reaction calls -- rebop builds its Rust simulator inside run(); ppsim.Simulation(...)); run =
simulating from time 0 to T (sim.run(T, history_interval=T, stopping_interval=T) for poplab, batss
and ppsim, gillespie.run(init, T, nb_steps=1, rng=seed) for rebop: the counts at 0 and T only).
Imports and the interpreter's start are not timed.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
from time import perf_counter

TOOLS = ("poplab", "batss", "rebop", "ppsim-0.1.6")

# name -> (species, initial counts as a function of n, reactions (reactants, products, k) in poplab's
# convention: the module docstring)
WORKLOADS = {
    "lotka-volterra": (
        ["R", "F"],
        lambda n: {"R": n // 2, "F": n - n // 2},
        [(["R"], ["R", "R"], 1.0), (["R", "F"], ["F", "F"], 1.0), (["F"], [], 1.0)],
    ),
    "dimerization": (
        ["A", "D"],
        lambda n: {"A": n, "D": 0},
        [(["A", "A"], ["D"], 1.0), (["D"], ["A", "A"], 1.0)],
    ),
}


class CannotRun(Exception):
    """The tool cannot run this workload (exit 3)."""


def symmetry(reactants: list[str]) -> int:
    """Product of the factorials of the reactants' multiplicities (2 for A + A)."""
    s = 1
    for x in set(reactants):
        s *= math.factorial(reactants.count(x))
    return s


def tool_rate(tool: str, reactants: list[str], k: float, v: float) -> float:
    """The rate constant to give `tool` for a reaction of rate k in poplab's convention."""
    order = len(reactants)
    if tool == "poplab":  # its own convention
        return k
    if tool == "batss":  # divides by v**(order-1) itself; no 1/m! in its propensity
        return k / symmetry(reactants)
    if tool == "rebop":  # no volume, no 1/m!
        return k / v ** (order - 1) / symmetry(reactants)
    if tool == "ppsim-0.1.6":  # poplab's convention
        return k
    raise ValueError(tool)


def show(reactants: list[str], products: list[str], k: float) -> str:
    return f"{' + '.join(reactants) or '0'} -> {' + '.join(products) or '0'} @ {k:.6g}"


def ppsim_style(module, species, init, reactions, t_end, **options):
    """Builds and runs a `Simulation` of a tool with ppsim's CRN notation (poplab, batss, ppsim):
    the species by `module.species`, the reactions by `module.crn`'s `Reaction` and `Expression`,
    the configuration without zero counts. Returns (sim, its species by name, construction s, run s)."""
    import importlib

    crn = importlib.import_module(module.__name__ + ".crn")
    sp = {name: s for name, s in zip(species, module.species(species))}
    side = lambda names: crn.Expression([sp[x] for x in names])  # noqa: E731
    rxns = [crn.Reaction(side(r), side(p), k=k) for r, p, k in reactions]
    config = {sp[name]: c for name, c in init.items() if c > 0}
    t0 = perf_counter()
    sim = module.Simulation(config, rxns, **options)
    t1 = perf_counter()
    sim.run(t_end, history_interval=t_end, stopping_interval=t_end, timer=False)
    t2 = perf_counter()
    return sim, sp, t1 - t0, t2 - t1


def run_poplab(species, init, reactions, v, seed, t_end):
    import poplab

    sim, _, build_s, run_s = ppsim_style(poplab, species, init, reactions, t_end, seed=seed, volume=v, engine="auto")
    conf = sim.config_dict
    counts = {name: int(conf.get(name, 0)) for name in species}
    return poplab.__version__, build_s, run_s, float(sim.time), counts, {"engine": sim.engine}


def run_batss(species, init, reactions, v, seed, t_end):
    import batss

    sim, _, build_s, run_s = ppsim_style(batss, species, init, reactions, t_end, seed=seed, volume=v)
    arr = sim.config_array
    counts = {s.name: int(arr[i]) for i, s in enumerate(sim.state_list) if not s.is_special_specie}
    return batss.__version__, build_s, run_s, float(sim.time), {name: counts[name] for name in species}


def run_rebop(species, init, reactions, v, seed, t_end):
    import rebop

    t0 = perf_counter()
    g = rebop.Gillespie()
    for r, p, k in reactions:
        g.add_reaction(k, r, p)
    t1 = perf_counter()
    ds = g.run(init, tmax=t_end, nb_steps=1, rng=seed)
    t2 = perf_counter()
    counts = {name: int(ds[name].values[-1]) for name in species}
    return rebop.__version__, t1 - t0, t2 - t1, float(ds["time"].values[-1]), counts


def run_ppsim(species, init, reactions, v, seed, t_end):
    import ppsim

    bad = [show(r, p, k) for r, p, k in reactions if len(r) != len(p)]
    if bad:
        raise CannotRun(
            "ppsim 0.1.6 simulates only conservative CRNs (ppsim/crn.py:183-185), and no conservative "
            f"form has this law; not conservative: {'; '.join(bad)}"
        )
    sim, sp, build_s, run_s = ppsim_style(ppsim, species, init, reactions, t_end, seed=seed, volume=v)
    conf = sim.config_dict
    counts = {name: int(conf.get(sp[name], 0)) for name in species}
    return ppsim.version, build_s, run_s, float(sim.time), counts


RUNNERS = {"poplab": run_poplab, "batss": run_batss, "rebop": run_rebop, "ppsim-0.1.6": run_ppsim}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", required=True, choices=TOOLS)
    ap.add_argument("--workload", required=True, choices=tuple(WORKLOADS))
    ap.add_argument("--n", required=True, type=lambda s: int(float(s)))
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--time", type=float, default=1.0, help="end time T (default 1)")
    a = ap.parse_args()
    if a.n < 2:
        ap.error("--n must be at least 2")
    species, init_of, reactions = WORKLOADS[a.workload]
    v = float(a.n)  # volume v = n
    native = [(r, p, tool_rate(a.tool, r, k, v)) for r, p, k in reactions]
    try:
        version, build_s, run_s, end_time, counts, *extra = RUNNERS[a.tool](
            species, init_of(a.n), native, v, a.seed, a.time
        )
    except CannotRun as e:
        print(f"n/a: {e}", file=sys.stderr)
        return 3
    print(json.dumps({
        "tool": a.tool, "version": str(version), "python": platform.python_version(),
        "workload": a.workload, "n": a.n, "volume": a.n, "seed": a.seed,
        "end_time": end_time, "construction_s": round(build_s, 6), "run_s": round(run_s, 6),
        "total_s": round(build_s + run_s, 6), "counts": counts,
        "rates": [show(r, p, k) for r, p, k in native],
        **(extra[0] if extra else {}),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
