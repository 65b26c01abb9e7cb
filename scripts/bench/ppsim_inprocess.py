#!/usr/bin/env python3
"""In-process benchmark cell: one workload at one n with poplab's, ppsim's or batss's `Simulation`.

Run by scripts/bench/bench-inprocess.sh, one process per cell, in the venv of the tool:

  python ppsim_inprocess.py --tool ppsim  --workload readme-am --n 100000 --seed 1   # ppsim 1.0.2 or 0.1.6
  python ppsim_inprocess.py --tool poplab --workload readme-am --n 100000 --seed 1   # poplab's Simulation
  python ppsim_inprocess.py --tool batss  --workload angluin   --n 100000 --seed 1   # batss 1.0.4, as a CRN

prints ONE JSON line on stdout (anything the tools print goes to stderr): tool, tool_version,
workload, n, seed, setup_s (the `Simulation(...)` call), run_s (the `sim.run(...)` call(s)),
seconds = setup_s + run_s, parallel_time (`sim.time` at the end), ok (whether the run ended where
expected, see below), expected (what ok checks), and details (history rows, states, final
configuration when small, false silences, errors).

batss (Petrack and Doty 2026, the CRN successor of ppsim's batching) runs the two workloads that
are chemical reaction networks, written as CRNs (batss's `species`, `>>`, `.k(rate)`) with
batss's defaults: volume v = n, stochastic rate constants, continuous time, the "crn" batching
simulator. A reaction X + Y -> ... (X != Y) with rate k has propensity k x y / v and X + X -> ...
has k x (x - 1) / v (checked here: A + B -> C + C, k = 1, n = 2 takes time 2.01 +- 0.04 over 3000
seeds; L + L -> L + F, k = 1, n = 10: 9.16 +- 0.10, theory n - 1 = 9). Under the uniformly random
scheduler an ordered pair of agents meets at rate 1 / (n - 1) per unit of parallel time, so batss's
time is parallel time with these constants:
  angluin           L + L -> L + F, k = n / (n - 1) (the ordered (L, L) pairs: x (x - 1) / (n - 1))
  approx-majority   A + B -> U + U, A + U -> A + A, B + U -> B + B, each k = 2 n / (n - 1) (both
                    orders of each unordered pair: 2 x y / (n - 1))
Same initial configurations and stops as below (until silent; batss checks silence at each stopping
interval); batss's catalyst species K (a bookkeeping species it adds) is left out of the final
configuration. The other workloads are not CRNs (n/a for batss).

The interpreter, `import numpy`, `import pandas` and `from <tool> import Simulation` happen before
the clock starts; only `Simulation(...)` and `sim.run(...)` are timed (time.perf_counter()).
Reading `sim.history`, `sim.config_dict` afterwards is not timed.

The protocols below are written ONCE, in ppsim's API (the README code of ppsim where there is
one), and run unchanged by both tools: the only difference is `from ppsim import Simulation`
versus `from poplab import Simulation`. Every Simulation gets `seed=SEED`.

Workloads:
  angluin           {('L','L'): ('L','F')}, all n agents 'L', transition_order='asymmetric',
                    sim.run(None, history_interval=n/100, stopping_interval=n/100): until silent
                    (one L). The expected parallel time to silence is (n-1)^2/n ~ n, so the history
                    is recorded (and ppsim returns to Python) about 100 times. The stopping interval
                    must be raised too: ppsim runs in chunks of min(history_interval,
                    stopping_interval), and its default 1.0 would mean ~n round trips to Python.
                    ok = the final configuration is {L: 1, F: n-1}.
  approx-majority   ppsim README's dict {(a,b):(u,u), (a,u):(a,a), (b,u):(b,b)}, default symmetric
                    order, init {A: n//2, B: n - n//2} (an exact tie, as scripts/bench/bench-vs-ppsim.sh
                    and poplab's default a = 0.5; the 0.501/0.499 split is readme-am's),
                    sim.run(None, history_interval=1.0, stopping_interval=1.0): until silent. 1.0 is
                    ppsim's default, about 1/20 to 1/60 of the 20-60 units of parallel time a tie
                    takes from n = 10^3 to 10^9. ok = consensus (one state, A or B).
  readme-am         ppsim README example 1 exactly: init {a: 0.501 * n, b: 0.499 * n} (floats, as
                    printed), Simulation(init_config, approximate_majority), sim.run(10, 0.1): 10
                    units of parallel time, history every 0.1. ok = sim.time == 10, or the run
                    stopped before at a silent configuration (ppsim 1.0.2 stops timed runs at
                    silence; 0.1.6 runs on to 10).
  readme-averaging  README example 2: discrete_averaging(a, b) -> floor(avg), ceil(avg), init
                    {0: n // 2, 50: n // 2}, sim.run(three_consecutive_values, 0.1) (the predicate
                    is evaluated on sim.config_dict every 0.1). ok = three_consecutive_values(final).
  readme-sosa       README example 3, leader election of Berenbrink, Kaaser, Kling, Otterbach,
                    "Simple and Efficient Leader Election" (SOSA 2018): the Agent dataclass
                    (unsafe_hash=True), leader_election, transition, Simulation({Agent(): n},
                    transition, loglogn=int(np.log2(np.log2(n))), Ulogn=U * int(np.log2(n))),
                    sim.run(one_leader) (history and predicate every 1.0, ppsim's defaults).
                    ok = one_leader(final).
  readme-sosa-exact poplab only: sim.run("one-leader"), poplab's exact stop at the interaction
                    that leaves one contender (no predicate polling), on the same Simulation plus
                    two poplab arguments: output=sosa_output (contender -> 'leader', minion ->
                    'follower': without outputs no state is a leader, "one-leader" never holds, and
                    as this protocol is never silent (flip_bit flips forever) the run would never
                    end) and closed_stops=True (true here: contenders are never created; poplab then
                    follows the same trajectory as the polled readme-sosa run, with the same seed,
                    and stops at the exact interaction instead of at the next whole time unit).
                    Its speed-up in the table is against ppsim's readme-sosa (ppsim has no exact
                    stop).

The README's `u` (readme-sosa): the README writes `Ulogn= u * int(np.log2(n))`, and the only `u`
bound in the README at that point is the first cell's `a, b, u = 'A', 'B', 'U'` (the `u` of
leader_election and transition are their parameters). As printed, Ulogn is then the string
'UUU...' and the code cannot run: ppsim 1.0.2 and 0.1.6 both fail in Simulation(...) (the state
enumeration calls the rule) with "TypeError: '<=' not supported between instances of 'int' and
'str'" at `v.counter <= Ulogn`, at any n. The notebook's own outputs were made with hidden state
(execution counts jump from 153 to 163): at n = 10^9 they show 384 states and counters up to 59.
With an integer u, Ulogn = u * 29 and counters reach Ulogn + 1, so 59 means u = 2, and u = 2
indeed gives 384 states (u = 1: 152 states, max counter 30; u = 3: 616, 88). So U = 2 here, for
both tools: the constant the README's own run used.

ppsim 1.0.2 can report silence falsely (angluin, approx-majority, readme-am; see scripts/bench/ppsim_bench.py
resync): after sim.run() returns for a silent workload, the final configuration is checked against
the rule; if a pair of present states still reacts, ppsim's simulator is resynchronised (same
configuration and step) and sim.run(...) is called again, inside the timed region, and
false_silences counts it ((†) in the table). poplab's Simulation is not resynchronised: a false
silence there is reported as ok = false.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ppsim_bench import phase, report_progress_on_sigterm, resync  # noqa: E402

WORKLOADS = ["angluin", "approx-majority", "readme-am", "readme-averaging", "readme-sosa", "readme-sosa-exact"]
POPLAB_ONLY = {"readme-sosa-exact": "readme-sosa"}  # workload -> the ppsim workload it is compared with

# ---------------------------------------------------------------- the protocols, in ppsim's API
# ppsim's README examples live with the tests of `poplab.Simulation`, which run the same code.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../crates/poplab-py/tests"))
from ppsim_readme import (  # noqa: E402
    ANGLUIN,
    Agent,
    U,
    a,
    approximate_majority,
    b,
    discrete_averaging,
    np,
    one_leader,
    three_consecutive_values,
    transition,
)



def sosa_output(state):
    """poplab's output of an Agent, for readme-sosa-exact only (ppsim has no such argument)."""
    return 'leader' if state.role == 'contender' else 'follower'


# ---------------------------------------------------------------- workloads
class Workload:
    """make(Simulation) -> sim; run(sim); ended(sim) -> bool (the run ended where expected).
    Workloads whose run may stop at silence also have the rule (a dict) and its order, to check
    the silence, and early(sim): whether the run stopped before its goal (so at a silence)."""

    def __init__(self, make, run, ended, expected, rule=None, symmetric=True, early=lambda sim: True, resume=None):
        self.make, self.run, self.ended, self.expected = make, run, ended, expected
        self.rule, self.symmetric, self.early, self.resume = rule, symmetric, early, resume or run


def workload(name, n, seed):
    if name == "angluin":
        h = n / 100
        return Workload(
            lambda Simulation: Simulation({'L': n}, ANGLUIN, transition_order='asymmetric', seed=seed),
            lambda sim: sim.run(None, history_interval=h, stopping_interval=h),
            lambda sim: sim.config_dict == ({'L': 1, 'F': n - 1} if n > 1 else {'L': 1}),
            "silent with one L", rule=ANGLUIN, symmetric=False)
    if name == "approx-majority":
        return Workload(
            lambda Simulation: Simulation({a: n // 2, b: n - n // 2}, approximate_majority, seed=seed),
            lambda sim: sim.run(None, history_interval=1.0, stopping_interval=1.0),
            lambda sim: len(sim.config_dict) == 1 and next(iter(sim.config_dict)) in (a, b),
            "silent consensus on A or B", rule=approximate_majority)
    if name == "readme-am":
        def make(Simulation):
            init_config = {a: 0.501 * n, b: 0.499 * n}
            return Simulation(init_config, approximate_majority, seed=seed)
        # ppsim 1.0.2 (not 0.1.6) also stops a timed run at silence: consensus before time 10.
        return Workload(make, lambda sim: sim.run(10, 0.1),
                        lambda sim: float(sim.time) == 10.0 or still_reacting(sim.config_dict, approximate_majority) is None,
                        "sim.time == 10, or silent before", rule=approximate_majority,
                        early=lambda sim: float(sim.time) < 10.0, resume=lambda sim: sim.run(10 - sim.time, 0.1))
    if name == "readme-averaging":
        return Workload(
            lambda Simulation: Simulation({0: n // 2, 50: n // 2}, discrete_averaging, seed=seed),
            lambda sim: sim.run(three_consecutive_values, 0.1),
            lambda sim: three_consecutive_values(sim.config_dict), "three consecutive values")
    if name in ("readme-sosa", "readme-sosa-exact"):
        # poplab's exact stop rules read the agents' outputs: the exact variant says which states
        # are leaders (output=), and that one leader, once reached, holds (closed_stops=True:
        # contenders are never created), so the batched engine keeps the same trajectory as the
        # polled run and finds the exact interaction by replaying the batch that enters it.
        exact = {"output": sosa_output, "closed_stops": True} if name == "readme-sosa-exact" else {}

        def make(Simulation):
            return Simulation({Agent(): n}, transition, loglogn=int(np.log2(np.log2(n))),
                              Ulogn=U * int(np.log2(n)), seed=seed, **exact)
        run = (lambda sim: sim.run(one_leader)) if name == "readme-sosa" else (lambda sim: sim.run("one-leader"))
        return Workload(make, run, lambda sim: one_leader(sim.config_dict), "one contender")
    raise SystemExit(f"unknown workload {name} (known: {', '.join(WORKLOADS)})")


def crn_workload(name, n, seed):
    """angluin and approx-majority as batss CRNs (rate constants in the module docstring)."""
    from batss import Simulation, species
    if name == "angluin":
        L, F = species("L F")
        h = n / 100
        return Workload(
            lambda _: Simulation({L: n}, [(L + L >> L + F).k(n / (n - 1))], seed=seed),
            lambda sim: sim.run(None, history_interval=h, stopping_interval=h, timer=False),
            lambda sim: crn_config(sim) == ({'L': 1, 'F': n - 1} if n > 1 else {'L': 1}),
            "silent with one L")
    if name == "approx-majority":
        A, B, U = species("A B U")
        k = 2 * n / (n - 1)
        rxns = [(A + B >> U + U).k(k), (A + U >> A + A).k(k), (B + U >> B + B).k(k)]
        return Workload(
            lambda _: Simulation({A: n // 2, B: n - n // 2}, rxns, seed=seed),
            lambda sim: sim.run(None, history_interval=1.0, stopping_interval=1.0, timer=False),
            lambda sim: len(crn_config(sim)) == 1 and next(iter(crn_config(sim))) in ('A', 'B'),
            "silent consensus on A or B")
    raise SystemExit(f"{name} is not a CRN workload (batss runs angluin and approx-majority)")


def crn_config(sim):
    """batss's final configuration by species name, without its bookkeeping species (catalyst K)."""
    return {s.name: int(c) for s, c in sim.config_dict.items() if c and not s.is_special_specie}


def still_reacting(config, rule, symmetric=True):
    """A pair of present states that the rule dict changes, or None (the configuration is silent)."""
    for p in config:
        for q in config:
            if p == q and config[p] < 2:
                continue
            out = rule.get((p, q), rule.get((q, p)) if symmetric else None)
            if out is not None and sorted(map(repr, out)) != sorted(map(repr, (p, q))):
                return (p, q)
    return None


def tool_version(tool, module):
    if tool == "poplab":
        return getattr(module, "__version__", "?")
    v = module.__version__  # 1.0.2: a string; 0.1.6: the module ppsim.__version__
    return v if isinstance(v, str) else v.version


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", choices=["poplab", "ppsim", "batss"], required=True,
                    help="whose Simulation: poplab's, ppsim's (whichever version this Python has) or batss's")
    ap.add_argument("--workload", choices=WORKLOADS, required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start-at", type=float, default=None,
                    help="wait after the imports until this wall-clock time (seconds since the epoch), so that "
                         "replicas started together run their timed regions together (bench-all-cores.sh)")
    args = ap.parse_args()

    # The JSON line goes to the real stdout; whatever the tools print (ppsim's progress bar,
    # warnings) goes to stderr.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    if args.tool == "ppsim" and args.workload in POPLAB_ONLY:
        raise SystemExit(f"{args.workload} is poplab only (ppsim's run() has no exact stop)")
    phase("imports")
    import pandas  # noqa: F401  (imported before the clock, as by any user of sim.history)
    if args.tool == "poplab":
        import poplab as module
        from poplab import Simulation
    elif args.tool == "batss":
        import batss as module
        Simulation = None  # crn_workload builds batss's Simulation from its reactions
    else:
        import ppsim as module
        from ppsim import Simulation
    version = tool_version(args.tool, module)
    tool = "poplab" if args.tool == "poplab" else f"{args.tool}-{version}"
    w = crn_workload(args.workload, args.n, args.seed) if args.tool == "batss" else workload(args.workload, args.n, args.seed)
    if args.tool == "ppsim":
        report_progress_on_sigterm()  # on `timeout`: how far ppsim's setup got

    if args.start_at is not None:
        time.sleep(max(0.0, args.start_at - time.time()))
    phase("Simulation(...)")
    t0 = time.perf_counter()
    sim = w.make(Simulation)
    t1 = time.perf_counter()
    phase("sim.run(...)")
    w.run(sim)
    false_silences = 0
    while args.tool == "ppsim" and w.rule is not None and w.early(sim) and \
            still_reacting(sim.config_dict, w.rule, w.symmetric):
        false_silences += 1  # ppsim 1.0.2's false silence: resynchronise, run on
        resync(sim)
        w.resume(sim)
    t2 = time.perf_counter()
    phase("done")

    details = {}
    config = crn_config(sim) if args.tool == "batss" else sim.config_dict
    if w.rule is not None and w.early(sim):
        pair = still_reacting(config, w.rule, w.symmetric)
        if pair is not None:
            details["not_silent"] = f"{pair[0]!r}, {pair[1]!r} still react"
    try:
        details["history_rows"] = len(sim.history)
    except Exception as e:  # noqa: BLE001  (reported, not fatal: the timing is done)
        details["history_error"] = f"{type(e).__name__}: {e}"
    try:
        details["states"] = len(sim.state_list)
    except Exception:  # noqa: BLE001  (poplab need not have state_list)
        pass
    if len(config) <= 4:
        details["final"] = {repr(s): int(c) for s, c in config.items()}
    else:
        details["final_states"] = len(config)
    if sum(config.values()) != args.n:
        details["agents"] = int(sum(config.values()))
    line = {
        "tool": tool, "tool_version": version, "workload": args.workload, "n": args.n, "seed": args.seed,
        "setup_s": t1 - t0, "run_s": t2 - t1, "seconds": t2 - t0, "parallel_time": float(sim.time),
        "ok": bool(w.ended(sim)), "expected": w.expected, "false_silences": false_silences, **details,
    }
    if args.workload in POPLAB_ONLY:
        line["baseline"] = POPLAB_ONLY[args.workload]
    print(json.dumps(line), file=out, flush=True)


if __name__ == "__main__":
    main()
