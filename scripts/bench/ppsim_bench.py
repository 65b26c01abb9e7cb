#!/usr/bin/env python3
"""The ppsim side of scripts/bench/bench-vs-ppsim.sh, plus the table it prints.

Subcommands (run `ppsim_bench.py SUBCOMMAND --help`):
  run       one ppsim cell, in a venv that has ppsim (0.1.6 or 1.0.2): prints one JSON line
  validate  ppsim vs poplab at small n: parallel time to poplab's safe set, over several trials
  table     (plain python3, no ppsim) raw JSON lines -> markdown table, CSV and JSON (also of
            scripts/bench/bench-inprocess.sh, --kind inprocess)

The four protocols are written in ppsim's own API (a rule dict or a rule function of
(initiator, responder), `transition_order='asymmetric'`), transcribing poplab's Rust transition
functions (crates/poplab/src/protocols/{angluin,approx_majority,ls_timer,pll}.rs) line by line,
with poplab's default parameters and default initial configuration for the given n.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time
from typing import NamedTuple

PROTOCOLS = ["angluin", "approx-majority", "ls-timer", "pll"]
SILENT = {"angluin", "approx-majority"}  # run until silent; the others for a fixed parallel time


def phase(text):
    """A progress line on stderr: the driver reports the last one when a cell is killed."""
    print(f"phase: {text}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- angluin, approx-majority
ANGLUIN = {("L", "L"): ("L", "F")}
APPROX_MAJORITY = {
    ("A", "B"): ("U", "U"), ("B", "A"): ("U", "U"),
    ("A", "U"): ("A", "A"), ("U", "A"): ("A", "A"),
    ("B", "U"): ("B", "B"), ("U", "B"): ("B", "B"),
}


def round_half_away(x):
    """Rust's f64::round."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


# ---------------------------------------------------------------- ls-timer (ls_timer.rs)
def ls_timer_s(n, timer_factor=96.0):
    """s = max(1, round(timer_factor * N)), N = n (poplab's defaults)."""
    return max(1, round_half_away(timer_factor * n))


def ls_timer_rule(a, b, s):
    """State (leader, timer). The four rules of ls_timer.rs, initiator a, responder b."""
    if a[0]:  # rule 1
        return (True, s), (False, s)
    if b[0]:  # rule 2
        return (False, s), (True, s)
    if a[1] == 0 and b[1] == 0:  # rule 3: timeout
        return (True, s), (False, s)
    m = max(a[1], b[1]) - 1  # rule 4
    return (False, m), (False, m)


# ---------------------------------------------------------------- pll (pll.rs)
class PllState(NamedTuple):
    """pll.rs `State`: the common variables and the live additional variables of the agent's
    group (the others are None, as `pack` drops them). status is 'X', 'A' or 'B'."""
    leader: bool
    tick: bool
    init: int
    color: int
    status: str
    epoch: int
    count: object = None    # V_B
    level_q: object = None  # V_A and epoch 1
    done: object = None     # V_A and epoch 1
    rand: object = None     # V_A and epoch 2
    level_b: object = None  # V_A and epoch 3


PLL_INITIAL = PllState(True, False, 1, 0, "X", 1)
HINT = [""]  # what is known of the number of reachable states, for progress lines


def ceil_lg(x):
    return 0 if x <= 1 else (x - 1).bit_length()


def pll_params(n):
    """m = max(1, ceil(lg n)), c_max = 41 m, nonce_start = 2^ceil(lg m) (poplab's defaults)."""
    m = max(1, ceil_lg(n))
    return {"c_max": 41 * m, "nonce_start": 1 << ceil_lg(m)}


class _Vars:
    """pll.rs `Vars`: all variables; those of other groups at unpack's defaults."""
    __slots__ = ("leader", "tick", "status", "epoch", "init", "color", "count", "level_q", "done", "rand", "level_b")

    def __init__(self, s):
        self.leader, self.tick, self.status, self.epoch = s.leader, s.tick, s.status, s.epoch
        self.init, self.color = s.init, s.color
        self.count = 0 if s.count is None else s.count
        self.level_q = 0 if s.level_q is None else s.level_q
        self.done = True if s.done is None else s.done
        self.rand = 0 if s.rand is None else s.rand  # RAND_UNDEFINED = 0
        self.level_b = 0 if s.level_b is None else s.level_b

    def pack(self):
        c = (self.leader, self.tick, self.init, self.color, self.status, self.epoch)
        if self.status == "X":
            return PllState(*c)
        if self.status == "B":
            return PllState(*c, count=self.count)
        if self.epoch == 1:
            return PllState(*c, level_q=self.level_q, done=self.done)
        if self.epoch == 2:
            return PllState(*c, rand=self.rand)
        return PllState(*c, level_b=self.level_b)


def pll_rule(s0, s1, c_max, nonce_start):
    """Lines 1-57 of P_LL in order, exactly as Pll::transition (initiator s0, responder s1)."""
    a = [_Vars(s0), _Vars(s1)]
    rand_start = lambda leader: 1 if leader else nonce_start  # line 12 with erratum 3 (`pll`)
    # Lines 1-6: status assignment.
    if a[0].status == "X" and a[1].status == "X":
        a[0].status, a[0].level_q, a[0].done, a[0].leader = "A", 0, False, True
        a[1].status, a[1].count, a[1].leader = "B", 0, False
    else:
        for i in (0, 1):
            if a[i].status == "X" and a[1 - i].status != "X":
                a[i].status, a[i].level_q, a[i].done, a[i].leader = "A", 0, True, False
                break
    # Line 7.
    a[0].tick = a[1].tick = False
    # Line 8: CountUp (lines 23-34).
    for v in a:
        if v.status == "B":
            v.count = (v.count + 1) % c_max
            if v.count == 0:
                v.color = (v.color + 1) % 3
                v.tick = True
    for i in (0, 1):
        if a[1 - i].color == (a[i].color + 1) % 3:
            a[i].color = a[1 - i].color
            a[i].tick = True
            if a[i].status == "B":
                a[i].count = 0
            break
    # Line 9 (erratum 1: min) and line 10.
    for v in a:
        if v.tick:
            v.epoch = min(v.epoch + 1, 3)
    a[0].epoch = a[1].epoch = max(a[0].epoch, a[1].epoch)
    # Lines 11-15 (+ poplab's rule for an undefined rand).
    for v in a:
        if v.epoch > v.init:
            if v.status == "A" and v.epoch == 2:
                v.rand = rand_start(v.leader)
            if v.status == "A" and v.epoch == 3:
                v.level_b = 0
            v.init = v.epoch
        if v.status == "A" and v.epoch == 2 and v.rand == 0:
            v.rand = rand_start(v.leader)
    # Lines 16-22.
    e = a[0].epoch
    if e == 1:  # QuickElimination, lines 35-42
        for i in (0, 1):
            if a[i].leader and not a[1 - i].leader and a[i].status == "A" and not a[i].done:
                if i == 0:
                    a[0].level_q = min(a[0].level_q + 1, c_max)
                else:
                    a[1].done = True
                break
        if a[0].status == "A" and a[1].status == "A" and a[0].done and a[1].done:
            for i in (0, 1):
                if a[i].level_q < a[1 - i].level_q:
                    a[i].leader = False
                    a[i].level_q = a[1 - i].level_q
                    break
    elif e == 2:  # Tournament, lines 43-49
        for i in (0, 1):
            if a[i].leader and not a[1 - i].leader and a[i].status == "A" and a[i].rand < nonce_start:
                a[i].rand = 2 * a[i].rand + i
                break
        if a[0].status == "A" and a[1].status == "A" and a[0].rand >= nonce_start and a[1].rand >= nonce_start:
            for i in (0, 1):
                if a[i].rand < a[1 - i].rand:
                    a[i].leader = False
                    a[i].rand = a[1 - i].rand
                    break
    else:  # BackUp, lines 50-57
        if a[0].tick and a[0].leader and a[0].status == "A":
            a[0].level_b = min(a[0].level_b + 1, c_max)
        if a[0].status == "A" and a[1].status == "A":
            for i in (0, 1):
                if a[i].level_b < a[1 - i].level_b:
                    a[i].level_b = a[1 - i].level_b
                    a[i].leader = False
                    break
        if a[0].leader and a[1].leader:
            a[1].leader = False
    return a[0].pack(), a[1].pack()


# ---------------------------------------------------------------- building a ppsim Simulation
def workload(protocol, n):
    """(initial configuration, rule, rule kwargs, leader count of a state) for poplab's defaults."""
    if protocol == "angluin":
        return {"L": n}, ANGLUIN, {}, lambda s: s == "L"
    if protocol == "approx-majority":
        a = round_half_away(0.5 * n)  # poplab: round(a n) agents in A, a = 0.5
        return {k: v for k, v in (("A", a), ("B", n - a)) if v}, APPROX_MAJORITY, {}, lambda s: s == "A"
    if protocol == "ls-timer":
        s = ls_timer_s(n)
        return {(True, s): n}, ls_timer_rule, {"s": s}, lambda st: st[0]
    if protocol == "pll":
        return {PLL_INITIAL: n}, pll_rule, pll_params(n), lambda st: st.leader
    raise SystemExit(f"unknown protocol {protocol}")


def make_simulation(ppsim, protocol, n, seed):
    """Builds the Simulation, reporting its phases (state enumeration, q x q tabulation)."""
    import ppsim.simulation as sm
    init, rule, kwargs, _ = workload(protocol, n)
    enumerate_states = sm.state_enumeration

    if protocol == "ls-timer":  # the reachable states are (l, s) and (f, 0..=s)
        HINT[0] = f" (of s + 2 = {kwargs['s'] + 2} reachable)"

    def traced_enumeration(*args):
        phase(f"state enumeration, breadth-first over pairs of reachable states{HINT[0]}")
        states = enumerate_states(*args)
        phase(f"state enumeration done: {len(states)} states")
        return states
    sm.state_enumeration = traced_enumeration
    initialize = sm.Simulation.initialize_simulator

    def traced_initialize(self, config):
        q = len(self.state_list)
        phase(f"tabulating the {q} x {q} transition table ({q} states)")
        initialize(self, config)
        phase("simulator built")
    sm.Simulation.initialize_simulator = traced_initialize
    return ppsim.Simulation(init, rule, transition_order="asymmetric", seed=seed, **kwargs)


def ppsim_version(ppsim):
    """1.0.2 has ppsim.__version__ (a string); 0.1.6 has the module ppsim.__version__.version."""
    v = ppsim.__version__
    return v if isinstance(v, str) else v.version


def config_of(sim):
    """{state: count} of the current configuration. Not sim.config_dict: in 1.0.2 it re-reads the
    whole simulator.config (a copy out of Rust) once per state, O(q^2) per call."""
    return {sim.state_list[i]: int(c) for i, c in enumerate(list(sim.simulator.config)) if c > 0}


def really_silent(sim):
    """Whether no pair of present states changes the configuration (checked with the rule)."""
    from collections import Counter
    config = config_of(sim)
    for a in config:
        for b in config:
            if a == b and config[a] < 2:
                continue
            out = sim.rule(a, b)
            if out is not None and Counter(out) != Counter((a, b)):
                return False
    return True


def resync(sim):
    """ppsim 1.0.2 can report silence falsely: in Gillespie mode it refreshes its list of enabled
    reactions before applying a reaction, so reactions of a state that reaction creates are missed
    (approx-majority: the last A,B -> U,U leaves U's and stops). simulator.reset(config, t)
    recomputes the list; the run goes on from the same configuration and step."""
    config = sim.array_from_dict({})  # zeros in the dtype this version's simulator takes
    config[:] = list(sim.simulator.config)
    sim.simulator.reset(config, sim.simulator.t)


def checkpoints(t):
    """history/stop interval: every 1% of the elapsed parallel time, at least 1 unit (so a run of
    parallel time T costs O(log T) Python round trips, and 0.1.6's silence time is known to 1%)."""
    return max(1.0, t / 100.0)


def report_progress_on_sigterm():
    """When `timeout` stops a cell, say how far ppsim's setup got (read from its frames: no cost
    while running)."""
    import signal

    def handler(signum, frame):
        while frame is not None:
            loc = frame.f_locals
            if frame.f_code.co_name == "state_enumeration" and "checked_states" in loc:
                phase(f"state enumeration: {len(loc['checked_states'])} states checked, "
                      f"{len(loc.get('unchecked_states', ()))} queued{HINT[0]}")
                break
            if frame.f_code.co_name == "initialize_simulator" and "q" in loc:
                phase(f"tabulating the {loc['q']} x {loc['q']} transition table: row {loc.get('i', 0)} of {loc['q']}")
                break
            frame = frame.f_back
        sys.exit(124)
    signal.signal(signal.SIGTERM, handler)


def cmd_run(args):
    import ppsim
    report_progress_on_sigterm()
    version = ppsim_version(ppsim)
    t0 = time.perf_counter()
    sim = make_simulation(ppsim, args.protocol, args.n, args.seed)
    t1 = time.perf_counter()
    phase(f"running ({len(sim.state_list)} states)")
    target = None if args.protocol in SILENT else math.floor(args.time * args.n)  # steps
    resumed = 0
    while True:
        if target is None:
            sim.run(None, history_interval=checkpoints, stopping_interval=1e12, timer=False)
        else:
            rest = (target - sim.simulator.t) / args.n
            sim.run(rest, history_interval=rest, stopping_interval=rest, timer=False)
        if not (sim.simulator.silent and (target is None or sim.simulator.t < target)) or really_silent(sim):
            break
        resumed += 1  # a false silence (ppsim 1.0.2): resynchronise and go on
        resync(sim)
    t2 = time.perf_counter()
    leader_of = workload(args.protocol, args.n)[3]
    config = config_of(sim)
    print(json.dumps({
        "ppsim": version, "protocol": args.protocol, "n": args.n, "seed": args.seed, "states": len(sim.state_list),
        "setup_s": t1 - t0, "run_s": t2 - t1, "seconds": t2 - t0, "steps": int(sim.simulator.t),
        "parallel_time": sim.simulator.t / args.n, "silent": bool(sim.simulator.silent),
        "false_silences": resumed,
        "leaders": int(sum(c for s, c in config.items() if leader_of(s))),
        # the silent protocols must end in poplab's safe set: one leader; consensus on A or B
        "ok": (len(config) == 1 and "U" not in config) if args.protocol == "approx-majority" else
              (sum(c for s, c in config.items() if leader_of(s)) == 1) if args.protocol == "angluin" else None,
        "final": {repr(s): int(c) for s, c in config.items()} if len(config) <= 4 else None,
    }))


# ---------------------------------------------------------------- validate
def cmd_validate(args):
    """ppsim's parallel time to poplab's safe set (checked every `--every` time units) over
    `--trials` seeds, against poplab's own median over as many trials."""
    import ppsim
    import statistics
    init, rule, kwargs, is_leader = workload(args.protocol, args.n)
    if args.protocol == "ls-timer" and args.timer_factor is not None:
        kwargs = {"s": ls_timer_s(args.n, args.timer_factor)}
        init = {(True, kwargs["s"]): args.n}

    def safe(config):
        leaders = sum(c for s, c in config.items() if is_leader(s))
        if args.protocol == "ls-timer":  # one leader and every timer >= s/2
            return leaders == 1 and all(2 * s[1] >= kwargs["s"] for s in config)
        if args.protocol == "approx-majority":
            return len(config) == 1 and next(iter(config)) != "U"
        return leaders == 1
    times = []
    setup = time.perf_counter()
    sim = ppsim.Simulation(init, rule, transition_order="asymmetric", seed=args.seed, **kwargs)
    setup = time.perf_counter() - setup
    phase(f"setup done in {setup:.1f}s ({len(sim.state_list)} states)")
    start = sim.array_from_dict(init)  # in the dtype each version's simulator takes
    step = max(1, round(args.every * args.n))
    for trial in range(args.trials):
        # Drive the simulator directly: Simulation.reset() fails in 1.0.2 (dtype) and leaves 0.1.6's
        # time behind. The generator goes on from trial to trial.
        sim.simulator.reset(start.copy(), 0)
        while not safe(config_of(sim)):
            if sim.simulator.silent:
                if really_silent(sim):  # e.g. approx-majority all U: never safe (poplab censors)
                    break
                resync(sim)
            sim.simulator.run(sim.simulator.t + step)
        else:
            times.append(sim.simulator.t / args.n)
        phase(f"trial {trial}: {sim.simulator.t / args.n:.2f}")
    cmd = [args.poplab, "run", args.protocol, "--n", str(args.n), "--trials", str(args.trials),
           "--seed", str(args.seed), "--json"]
    if args.protocol == "ls-timer" and args.timer_factor is not None:
        cmd += ["--set", f"timer_factor={args.timer_factor}"]
    pop = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    pt = [t["parallel_time"] for t in pop["trials"]]
    q = lambda xs: f"median {statistics.median(xs):.1f}, mean {statistics.mean(xs):.1f}, " \
                   f"min {min(xs):.1f}, max {max(xs):.1f}"
    print(f"{args.protocol} n={args.n} params={kwargs} trials={args.trials}, {len(times)} reached the safe set "
          f"(ppsim {len(sim.state_list)} states, setup {setup:.2f}s)\n"
          f"  ppsim {ppsim_version(ppsim)}: parallel time to the safe set (checked every {args.every}): {q(times)}\n"
          f"  poplab ({pop['engine']}): parallel time to the safe set: {q(pt)}")


# ---------------------------------------------------------------- table
TOOLS = ["poplab", "ppsim-1.0.2", "ppsim-0.1.6"]
INPROCESS_TOOLS = TOOLS + ["batss-1.0.4"]  # batss: scripts/bench/bench-inprocess.sh only (CRN workloads)


def write_md_csv_json(args, rows, md, fields):
    """Appends the markdown to args.md (and prints it); the raw rows to args.csv and args.json."""
    with open(args.md, "a") as f:
        f.write(md)
    print(md, end="")
    with open(args.csv, "w") as f:
        f.write(",".join(fields) + "\n")
        for r in rows:
            f.write(",".join('"' + str(r.get(k, "")).replace('"', "'") + '"' if "," in str(r.get(k, ""))
                             else ("" if r.get(k) is None else str(r[k])) for k in fields) + "\n")
    with open(args.json, "w") as f:
        json.dump(rows, f, indent=1)


def cmd_table(args):
    """Raw JSON lines (one per cell: tool, protocol, n, seconds or reason) -> md, csv, json."""
    rows = [json.loads(line) for line in open(args.raw) if line.strip()]
    if args.kind == "inprocess":
        return table_inprocess(args, rows)
    cells = {}
    for r in rows:
        cells[(r["protocol"], r["n"], r["tool"])] = r
    keys = sorted({(r["protocol"], r["n"]) for r in rows}, key=lambda k: (PROTOCOLS.index(k[0])
                  if k[0] in PROTOCOLS else 99, k[1]))
    tools = TOOLS

    def show(r):
        if r is None:
            return "-"
        if r.get("seconds") is not None:
            return f"{r['seconds']:.3g}" + (" (†)" if r.get("false_silences") else "") + \
                (" (wrong final configuration)" if r.get("ok") is False else "")
        return r.get("reason", "?")
    def per_time(r):  # seconds per unit of parallel time simulated
        if r and r.get("seconds") is not None and r.get("parallel_time"):
            return r["seconds"] / r["parallel_time"]
        return None

    lines = ["| protocol | n | poplab s | ppsim 1.0.2 s | ppsim 0.1.6 s | faster ppsim / poplab "
             "| same, per unit of parallel time |",
             "|---|---|---|---|---|---|---|"]
    for p, n in keys:
        c = [cells.get((p, n, t)) for t in tools]
        pp = [r["seconds"] for r in c[1:] if r and r.get("seconds") is not None]
        ratio = f"{min(pp) / c[0]['seconds']:.3g}" if pp and c[0] and c[0].get("seconds") else "-"
        pp_t = [t for t in map(per_time, c[1:]) if t is not None]
        ratio_t = f"{min(pp_t) / per_time(c[0]):.3g}" if p == "approx-majority" and pp_t and per_time(c[0]) else "-"
        lines.append(f"| {p} | 10^{round(math.log10(n))} | " + " | ".join(show(r) for r in c)
                     + f" | {ratio} | {ratio_t} |")
    lines.append("\nThe last column (approx-majority only) divides seconds by the parallel time each tool simulated: "
                 "with one seed the tools follow different random runs to consensus, and a batching simulator's cost "
                 "grows with the interactions simulated, so this compares equal work. (angluin's cost grows with its "
                 "n - 1 leader meetings, whatever their parallel time; ls-timer and pll run for the same parallel "
                 "time on both sides.)")
    if any(r.get("false_silences") for r in rows):
        lines.append("\n(†) ppsim reported silence falsely during this run (a ppsim 1.0.2 bug); the script "
                     "resynchronised it (simulator.reset with the same configuration and step) and let it go on; "
                     "`false_silences` in the raw results counts them.")
    write_md_csv_json(args, rows, "\n".join(lines) + "\n",
                      ["tool", "protocol", "n", "seed", "seconds", "reason", "setup_s", "run_s", "states", "steps",
                       "parallel_time", "leaders", "silent", "false_silences", "ok", "wall_s", "runs", "engine",
                       "stop_rule"])


# Workloads of scripts/bench/ppsim_inprocess.py whose stop comes at a random parallel time (silence,
# predicate): their seconds per unit of sim.time compare equal work across different random runs.
RANDOM_STOP = {"approx-majority", "readme-averaging", "readme-sosa", "readme-sosa-exact"}


def table_inprocess(args, rows):
    """The table of scripts/bench/bench-inprocess.sh: rows workload x n (workloads in the order of the
    raw lines), columns poplab, ppsim 1.0.2, ppsim 0.1.6 and batss seconds, the speed-ups over the
    faster ppsim and over batss, the final sim.time of each."""
    cells, order = {}, []
    for r in rows:
        cells[(r["workload"], r["n"], r["tool"])] = r
        if r["workload"] not in order:
            order.append(r["workload"])
    keys = sorted({(r["workload"], r["n"]) for r in rows}, key=lambda k: (order.index(k[0]), k[1]))
    done = lambda r: r is not None and r.get("seconds") is not None

    def show(r):
        if r is None:
            return "-"
        if done(r):
            return f"{r['seconds']:.3g}" + (" (†)" if r.get("false_silences") else "") + \
                (f" (wrong end: not {r.get('expected')})" if r.get("ok") is False else "")
        return "n/a" if r.get("reason", "").startswith("n/a") else r.get("reason", "?")

    def per_time(r):
        return r["seconds"] / r["parallel_time"] if done(r) and r.get("parallel_time") else None

    def speedup(w, mine, others, note=""):  # the fastest of others / mine, in seconds and per sim.time
        secs = [r["seconds"] for r in others if done(r)]
        ratio = f"{min(secs) / mine['seconds']:.3g}{note}" if secs and done(mine) else "-"
        pt = [t for t in map(per_time, others) if t is not None]
        ratio_t = f"{min(pt) / per_time(mine):.3g}" if w in RANDOM_STOP and pt and per_time(mine) else "-"
        return ratio, ratio_t

    lines = ["| workload | n | poplab s | ppsim 1.0.2 s | ppsim 0.1.6 s | batss 1.0.4 s | faster ppsim / poplab "
             "| same, per unit of sim.time | batss / poplab (per unit of sim.time) "
             "| final sim.time: poplab / 1.0.2 / 0.1.6 / batss |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    baselines = set()
    for w, n in keys:
        c = [cells.get((w, n, t)) for t in INPROCESS_TOOLS]
        pp, batss, note = c[1:3], c[3], ""
        base = c[0].get("baseline") if c[0] else None
        if base and not any(map(done, pp)):  # poplab only: against ppsim's run of the baseline workload
            pp, note = [cells.get((base, n, t)) for t in INPROCESS_TOOLS[1:3]], f" (vs {base})"
            baselines.add((w, base))
        ratio, ratio_t = speedup(w, c[0], pp, note)
        b_ratio, b_ratio_t = speedup(w, c[0], [batss]) if done(batss) else ("-", "-")
        vs_batss = b_ratio + (f" ({b_ratio_t})" if b_ratio_t != "-" else "")
        times = " / ".join(f"{r['parallel_time']:.4g}" if done(r) else "-" for r in [c[0]] + pp + [batss])
        lines.append(f"| {w} | 10^{round(math.log10(n))} | " + " | ".join(show(r) for r in c)
                     + f" | {ratio} | {ratio_t} | {vs_batss} | {times} |")
    lines.append("\nseconds: Simulation(...) + sim.run(...), timed inside Python (imports excluded); setup_s and "
                 "run_s apart in the raw results. Every tool runs the same protocol code and the same run(...) "
                 "call (batss: the same reactions as a CRN, see scripts/bench/ppsim_inprocess.py --help), so the cells of a row stop by the same rule, at the parallel time of their own random "
                 "run (last column). \"same, per unit of sim.time\" (workloads stopping at a random time: "
                 f"{', '.join(w for w in order if w in RANDOM_STOP)}) divides each tool's seconds by its final "
                 "sim.time, comparing equal simulated work. At silence, ppsim 0.1.6 stops at the next history "
                 "or stop check, 1.0.2 and poplab at the exact step. A run_until function is evaluated by ppsim "
                 "at every history record and stop check (readme-averaging's sim.run(three_consecutive_values, "
                 "0.1): every 0.1), by poplab every stopping_interval only (there: every 1.0), so poplab can stop "
                 "up to 0.9 later and calls the predicate a tenth as often.")
    for w, base in sorted(baselines):
        lines.append(f"\n{w}: poplab only; its speed-up and sim.time columns compare it with ppsim's {base} "
                     "(the same Simulation, stopped by polling the README's predicate instead).")
    if any(r.get("false_silences") for r in rows):
        lines.append("\n(†) ppsim reported silence falsely during this run (a ppsim 1.0.2 bug); the script "
                     "resynchronised it (simulator.reset with the same configuration and step) and called "
                     "sim.run(...) again, inside the timed region; `false_silences` in the raw results counts them.")
    if any(r.get("history_error") for r in rows):
        lines.append("\nsim.history failed after the run for: " + ", ".join(
            f"{r['tool']} {r['workload']} 10^{round(math.log10(r['n']))} ({r['history_error'][:80]})"
            for r in rows if r.get("history_error")))
    write_md_csv_json(args, rows, "\n".join(lines) + "\n",
                      ["tool", "tool_version", "workload", "n", "seed", "seconds", "reason", "setup_s", "run_s",
                       "parallel_time", "ok", "expected", "false_silences", "not_silent", "history_rows",
                       "history_error", "states", "final", "final_states", "agents", "wall_s", "runs", "baseline"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="one ppsim cell -> one JSON line on stdout")
    r.add_argument("--protocol", choices=PROTOCOLS, required=True)
    r.add_argument("--n", type=int, required=True)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--time", type=float, help="parallel time to run (ls-timer, pll)")
    v = sub.add_parser("validate", help="ppsim vs poplab parallel time to the safe set at small n")
    v.add_argument("--protocol", choices=PROTOCOLS, required=True)
    v.add_argument("--n", type=int, default=100)
    v.add_argument("--seed", type=int, default=1)
    v.add_argument("--trials", type=int, default=100)
    v.add_argument("--every", type=float, default=0.1, help="predicate check interval (parallel time)")
    v.add_argument("--timer-factor", type=float, help="ls-timer: s = timer_factor * n (both tools)")
    v.add_argument("--poplab", default=os.environ.get("POPLAB", "poplab"))
    t = sub.add_parser("table", help="raw JSON lines -> markdown (appended), CSV, JSON")
    t.add_argument("--kind", choices=["process", "inprocess"], default="process",
                   help="the raw lines of bench-vs-ppsim.sh (process) or bench-inprocess.sh (inprocess)")
    for k in ("raw", "md", "csv", "json"):
        t.add_argument(f"--{k}", required=True)
    args = ap.parse_args()
    {"run": cmd_run, "validate": cmd_validate, "table": cmd_table}[args.cmd](args)


if __name__ == "__main__":
    main()
