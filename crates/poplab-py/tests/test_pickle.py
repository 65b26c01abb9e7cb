"""A pickled `Simulation` (or `Protocol`) goes on on the same trajectory, in this process or
another, on every engine; a rule that cannot be pickled is named with what to do."""

import copy
import json
import os
import pickle
import subprocess
import sys

import pytest

import poplab
from poplab import Simulation


def flip(a, b):
    """Randomized and never silent (module level: pickle finds it by name)."""
    if a == b:
        return {("A", "B"): 0.5, ("B", "A"): 0.25}
    return None


def majority(a, b):
    return {("A", "B"): ("U", "U"), ("A", "U"): ("A", "A"), ("B", "U"): ("B", "B")}.get((a, b))


def state(sim):
    return sim.steps, sim.config_dict, sim.history


CASES = [
    ("agents", None, flip),
    ("counts", None, flip),
    ("batched", None, flip),
    ("agents", "ring", flip),
    ("batched", None, majority),
    ("counts", None, {("A", "B"): ("U", "U"), ("A", "U"): ("A", "A"), ("B", "U"): ("B", "B")}),
]


@pytest.mark.parametrize("engine,graph,rule", CASES)
def test_an_unpickled_simulation_goes_on_on_the_same_trajectory(engine, graph, rule):
    def start():
        return Simulation({"A": 600, "B": 400}, rule, engine=engine, graph=graph, seed=5)

    whole = start()
    whole.run(1.37, history_interval=0.25)
    whole.run(2.5, history_interval=0.25)
    sim = start()
    sim.run(1.37, history_interval=0.25)
    saved = pickle.dumps(sim)
    twin = copy.deepcopy(sim)
    sim.run(2.5, history_interval=0.25)  # saving changed nothing
    for again in (pickle.loads(saved), twin):
        assert again.steps == round(1.37 * 1000)
        again.run(2.5, history_interval=0.25)
        for mine, theirs in zip(state(again), state(whole)):
            assert mine == theirs if not hasattr(mine, "equals") else mine.equals(theirs)
        assert state(sim)[:2] == state(whole)[:2] and sim.history.equals(whole.history)
        assert again.times == whole.times and again.state_list == whole.state_list


def test_an_unpickled_simulation_goes_on_in_another_process(tmp_path):
    sim = Simulation({"A": 600, "B": 400}, flip, engine="counts", seed=9)
    sim.run(3)
    saved = tmp_path / "sim.pickle"
    saved.write_bytes(pickle.dumps(sim))
    sim.run(4)
    code = (
        "import json, pickle, sys; sim = pickle.load(open(sys.argv[1], 'rb')); sim.run(4); "
        "print(json.dumps([sim.steps, sorted(sim.config_dict.items()), sim.history.values.tolist()]))"
    )
    env = {**os.environ, "PYTHONPATH": os.path.dirname(__file__)}
    out = subprocess.run([sys.executable, "-c", code, str(saved)], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    # The pickle names `flip` by its module: this test file, imported there as test_pickle.
    here = [sim.steps, [list(item) for item in sorted(sim.config_dict.items())], sim.history.values.tolist()]
    assert json.loads(out.stdout) == here


def test_a_rule_that_cannot_be_pickled_is_named_with_what_to_do():
    sim = Simulation({"A": 6, "B": 4}, lambda a, b: ("A", "A") if a != b else None, seed=1)
    sim.run(1)
    with pytest.raises(TypeError, match=r"its rule <function .*<lambda> .*define the rule with def at the top level"):
        pickle.dumps(sim)
    twin = copy.deepcopy(sim)  # deepcopy takes any rule
    twin.run()
    sim.run()
    assert (twin.steps, twin.config_dict) == (sim.steps, sim.config_dict)
    protocol = poplab.Protocol(flip, output=lambda s: "yes", init={"A": 1.0})
    with pytest.raises(TypeError, match=r"its output <function .*<lambda> .*define the output with def"):
        pickle.dumps(protocol)


def test_a_pickled_protocol_runs_as_the_original():
    protocol = poplab.Protocol(majority, output={"A": "yes", "B": "no", "U": "undecided"}, stop="consensus",
                               init={"A": 0.6, "B": 0.4})
    before = poplab.run(protocol, 500, trials=4, seed=3, engine="agents").trials
    again = pickle.loads(pickle.dumps(protocol))
    assert again.states == protocol.states
    columns = ["seed", "outcome", "steps"]
    assert poplab.run(again, 500, trials=4, seed=3, engine="agents").trials[columns].equals(before[columns])


def test_a_pickle_of_an_earlier_version_still_loads(monkeypatch):
    # Earlier versions defined ppsim's rule (the rule of a simulation's protocol) in
    # poplab._simulation, and their pickles name it there; it is found there still.
    from poplab import _rule

    sim = Simulation({"A": 600, "B": 400}, majority, seed=5)
    sim.run(0.5)
    assert sim.state_list == ["A", "B", "U"]
    monkeypatch.setattr(_rule._PpsimRule, "__module__", "poplab._simulation")
    saved = pickle.dumps(sim)
    monkeypatch.undo()
    assert b"poplab._simulation" in saved and b"poplab._rule" not in saved
    again = pickle.loads(saved)
    assert again.state_list == sim.state_list and again.reactions == sim.reactions
    sim.run(1)
    again.run(1)
    assert state(again)[:2] == state(sim)[:2] and again.history.equals(sim.history)
