"""ppsim's API on poplab's engines: `poplab.Simulation` and `poplab.time_trials`.

The three examples of ppsim's README run here with only the import changed (and smaller n): their
code is ppsim_readme.py, next to this file, which the in-process benchmark against ppsim
(scripts/bench/ppsim_inprocess.py) runs too.
"""

import gc
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import poplab
from poplab import Simulation
from conftest import z_test
from ppsim_readme import (
    U,
    Agent,
    a,
    approximate_majority,
    b,
    discrete_averaging,
    one_leader,
    three_consecutive_values,
    transition,
    u,
)

ALPHA = 0.001


def test_readme_approximate_majority():
    n = 10**5
    init_config = {a: 0.501 * n, b: 0.499 * n}
    sim = Simulation(init_config, approximate_majority, seed=1)
    sim.run(10, 0.1)
    history = sim.history
    assert history.index.name == "time (n interactions)"
    assert list(history.columns) == ["A", "B", "U"]
    assert len(history) == 101 and history.index[-1] == 10.0 and sim.time == 10.0
    assert (history.sum(axis=1) == n).all()
    assert np.allclose(history.index, np.arange(101) / 10)
    # Pinned: the configuration at time 10 for seed 1 (batched engine).
    assert sim.config_dict == {"A": 97674, "B": 235, "U": 2091}
    sim.run()
    assert sim.silent() and sim.config_dict == {"A": n}
    assert sim.time == sim.steps / n and sim.history.index[-1] == sim.time


def test_readme_approximate_majority_asymmetric_takes_twice_as_long():
    n, trials = 2000, 60
    times = {}
    for order in ["symmetric", "asymmetric"]:
        sim = Simulation({a: n // 2, b: n // 2}, approximate_majority, transition_order=order, seed=3)
        times[order] = [sim.sample_silence_time() for _ in range(trials)]
    ratio = np.mean(times["asymmetric"]) / np.mean(times["symmetric"])
    assert 1.6 < ratio < 2.5, ratio


def test_readme_discrete_averaging():
    n = 10**4
    sim = Simulation({0: n // 2, 50: n // 2}, discrete_averaging, seed=2)
    sim.run(three_consecutive_values, 0.1)
    assert three_consecutive_values(sim.config_dict)
    # A function of the configuration is checked every stopping_interval (1.0): the stop time is on
    # that grid; history rows are every 0.1 up to it.
    assert sim.time == round(sim.time) and 5 <= sim.time <= 40
    assert len(sim.history) == round(sim.time / 0.1) + 1
    assert sim.state_list == sorted(sim.state_list) and sim.state_list[0] == 0
    assert list(sim.history.columns) == [str(s) for s in sim.state_list]
    # Silence: everybody at 25 (the average) in the end; (25, 24) -> (24, 25) is null, as in ppsim.
    sim.run(history_interval=lambda t: 10 ** len(str(int(t))) / 100)
    assert sim.config_dict == {25: n}


def sosa(n, **kwargs):
    return Simulation(
        {Agent(): n}, transition, loglogn=int(np.log2(np.log2(n))), Ulogn=U * int(np.log2(n)), seed=4, **kwargs
    )


def test_a_simulation_and_the_states_its_rule_met_are_freed():
    # The extension's protocol holds the rule's callbacks and the garbage collector cannot see
    # through it: a callback referring back to the Simulation's protocol kept every Simulation
    # alive, with every state its enumeration met (16 MB each at n = 300 in ppsim's README).
    def agents():
        gc.collect()
        return sum(1 for o in gc.get_objects() if type(o) is Agent)

    before = agents()
    for _ in range(3):
        sim = sosa(300, engine="counts")
        sim.run(one_leader)
        assert len(sim.state_list) > 50
        del sim
    assert agents() == before


def test_readme_leader_election_with_an_agent_dataclass():
    n = 10**4
    sim = sosa(n)
    sim.run(one_leader)
    assert one_leader(sim.config_dict)
    columns = sim.history.columns
    assert isinstance(columns, pd.MultiIndex)
    assert list(columns.names) == ["role", "flip_bit", "marker", "phase", "counter"]
    roles = sim.history.T.groupby(level="role").sum().T
    assert roles["contender"].iloc[0] == n and roles["contender"].iloc[-1] == 1
    assert (roles.sum(axis=1) == n).all()


def test_an_exact_stop_rule_stops_at_the_interaction():
    n = 3000
    leader = {"output": lambda s: s.role == "contender"}
    with pytest.raises(ValueError, match="output="):
        sosa(n).run(until="one-leader")
    # On the agent engine, watching a stop rule changes nothing: one trajectory, stopped where
    # one contender is left, or at the next multiple of stopping_interval for a function.
    checked = sosa(n, engine="agents", **leader)
    checked.run(one_leader)
    exact = sosa(n, engine="agents", **leader)
    exact.run(until="one-leader")
    assert one_leader(exact.config_dict)
    assert exact.steps < checked.steps and checked.time == math.ceil(exact.time)
    # The step before, there were two contenders (on the engines whose draws do not depend on
    # where a run stops: agents, and counts without batches).
    for engine in ["agents", "counts"]:
        stopped = sosa(n, engine=engine, **leader)
        stopped.run(until="one-leader")
        before = sosa(n, engine=engine, **leader)
        before.run((stopped.steps - 0.5) / n)
        assert before.steps == stopped.steps - 1
        assert one_leader(stopped.config_dict) and not one_leader(before.config_dict)
    # The batched engine takes single steps while it watches a set that may be left, and batches
    # (replaying the batch that enters it) when the stop rules are declared closed.
    for closed in [False, True]:
        batched = sosa(n, closed_stops=closed, **leader)
        batched.run(until="one-leader")
        assert one_leader(batched.config_dict) and batched.steps % n != 0


def test_the_trajectory_does_not_depend_on_the_history_interval():
    n = 10**5
    finals, rows = [], []
    for interval in [0.01, 0.1, 1.0, 7.0, math.inf]:
        sim = Simulation({a: 0.6 * n, b: 0.4 * n}, approximate_majority, seed=9)
        sim.run(30, interval)
        finals.append((sim.steps, sim.config_dict))
        rows.append(sim.history)
        sim.run()
        finals.append((sim.steps, sim.config_dict))
    assert all(f == finals[0] for f in finals[0::2]) and all(f == finals[1] for f in finals[1::2])
    fine, coarse = rows[0], rows[2]
    # The rows at whole times are the same configurations, whatever else was recorded.
    assert fine.loc[coarse.index].equals(coarse)


def test_engines_seeds_and_resets():
    n = 3000
    election = {("L", "L"): ("L", "F")}

    def silence(engine, seed):
        sim = Simulation({"L": n}, election, engine=engine, seed=seed)
        sim.run()
        return sim.steps, sim.config_dict

    for engine in ["agents", "counts", "batched"]:
        steps, config = silence(engine, 5)
        assert config == {"L": 1, "F": n - 1}
        assert silence(engine, 5) == (steps, config), "a seed gives one trajectory"
    sim = Simulation({"L": n}, election, seed=5)
    first = sim.sample_silence_time()
    second = sim.sample_silence_time()
    assert first != second, "each reset starts the next trial"
    assert Simulation({"L": n}, election).seed != Simulation({"L": n}, election).seed


def test_the_randomized_election_against_its_closed_form():
    n, trials = 30, 400
    sim = Simulation({"L": n}, {("L", "L"): {("L", "F"): 0.5}}, seed=6)
    steps = []
    for _ in range(trials):
        sim.sample_silence_time()
        steps.append(float(sim.steps))
    p = z_test(steps, 2 * (n - 1) ** 2)
    assert p > ALPHA, (p, np.mean(steps))


def test_rings_and_arc_lists(tmp_path):
    n = 40
    # Leaders walk the directed ring (a swap moves them: on a graph it is not null) and merge.
    walk = {("L", "L"): ("L", "F"), ("L", "F"): ("F", "L")}
    sim = Simulation({"L": n}, walk, graph="ring", seed=1, transition_order="asymmetric", output={"L": True, "F": False})
    sim.run(until="one-leader")
    assert sim.config_dict == {"L": 1, "F": n - 1}
    sim.run(5)
    assert sim.config_dict == {"L": 1, "F": n - 1} and not sim.silent()
    # A star as an arc list: the centre (agent 0) starts as the one F and spreads F only where arcs go.
    arcs = tmp_path / "star.txt"
    arcs.write_text("".join(f"0 {k}\n" for k in range(1, 5)))
    star = Simulation({"F": 1, "L": 4}, {("F", "L"): ("F", "F")}, graph=str(arcs), seed=1)
    star.run()
    assert star.config_dict == {"F": 5}
    with pytest.raises(ValueError, match="complete graph only"):
        Simulation({"L": n}, {("L", "L"): ("L", "F")}, graph="ring", engine="batched")


def test_ppsim_conventions_for_rules():
    # A function returning None gives its (mutated) copies back.
    @dataclass(unsafe_hash=True)
    class Level:
        value: int = 0

    def grow(x, y):
        if x.value < 5:
            x.value += 1

    sim = Simulation({Level(): 10}, grow, seed=1)
    sim.run()
    assert sim.config_dict == {Level(5): 10}
    # symmetric: (U, A) takes (A, U)'s result, the agent of A staying A.
    sim = Simulation({a: 1, u: 1}, {(a, u): (a, a)}, seed=2)
    sim.run()
    assert sim.config_dict == {a: 2}
    # asymmetric: only A initiating converts; symmetric_enforced refuses disagreeing orders.
    with pytest.raises(poplab.RuleError) as failure:
        Simulation({a: 5, b: 5}, {(a, b): (a, a), (b, a): (b, b)}, transition_order="symmetric_enforced").run(1)
    assert isinstance(failure.value.__cause__, ValueError)
    with pytest.raises(ValueError, match="transition_order"):
        Simulation({a: 2}, approximate_majority, transition_order="both")
    with pytest.raises(ValueError, match="whole number"):
        Simulation({a: 0.3, b: 2}, approximate_majority)
    assert Simulation({a: 2}, approximate_majority, continuous_time=True).continuous_time


def test_configuration_views():
    n = 1000
    sim = Simulation({a: 600, b: 400}, approximate_majority, seed=3)
    sim.run(2, 1)
    assert sum(sim.config_dict.values()) == n
    assert sim.state_list == ["A", "B", "U"] and sim.state_dict == {"A": 0, "B": 1, "U": 2}
    assert list(sim.config_array) == [sim.config_dict.get(s, 0) for s in sim.state_list]
    assert sim.times == [0.0, 1.0, 2.0] and len(sim.configs) == 3
    sim.reset({a: 1, b: 999})
    assert sim.time == 0 and sim.config_dict == {a: 1, b: 999} and len(sim.history) == 1
    with pytest.raises(ValueError, match="has 1 agents"):  # another n is taken (ppsim's), one agent is not
        sim.reset({a: 1})


def test_an_interruption_keeps_the_simulation_usable():
    sim = Simulation({a: 500, b: 500}, approximate_majority, seed=4)
    calls = []

    def interrupt(config):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return False

    with pytest.raises(KeyboardInterrupt):
        sim.run(interrupt, 0.5)
    assert sim.history.index[-1] == sim.time == 2.0
    sim.run()
    assert sim.silent()


def test_time_trials():
    ns = [100, 1000]
    frame = poplab.time_trials(approximate_majority, ns, lambda n: {a: n // 2, b: n - n // 2}, num_trials=5, seed=1)
    assert list(frame.columns) == ["n", "time"] and list(frame["n"]) == [100] * 5 + [1000] * 5
    assert (frame["time"] > 0).all()
