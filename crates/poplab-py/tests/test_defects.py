"""Issue 33, N11 and N12: arguments are checked, never rounded or read as something else, and
errors name the argument and its allowed range. Each test failed on the code before the fix."""

import math

import pytest

import poplab
from poplab import Simulation


def test_n11_floats_are_not_rounded_and_strings_are_not_flags():
    # seed=1.7 ran seed 1, trials=2.9 two trials, threads=1.5 one thread.
    with pytest.raises(TypeError, match=r"seed must be a whole number.*1\.7"):
        poplab.run("angluin", 10, seed=1.7)
    with pytest.raises(TypeError, match=r"trials must be a whole number.*2\.9"):
        poplab.run("angluin", 10, trials=2.9)
    with pytest.raises(TypeError, match=r"threads must be a whole number.*1\.5"):
        poplab.run("angluin", 10, threads=1.5)
    with pytest.raises(TypeError, match=r"trials must be a whole number"):
        poplab.sweep("angluin", [10, 20], trials=2.9)
    # census="no" turned the census on.
    with pytest.raises(TypeError, match=r"census must be True or False.*'no'"):
        poplab.run("angluin", 10, census="no")
    # A whole float is still a float: refused, not read.
    with pytest.raises(TypeError, match="seed"):
        Simulation({"A": 5, "B": 5}, {("A", "B"): ("B", "B")}, seed=2.0)


def test_n11_negative_or_out_of_range_initial_amounts_are_refused():
    with pytest.raises(ValueError, match=r"count of state 'A' is -3"):
        poplab.Protocol({("A", "B"): ("B", "B")}, init={"A": -3, "B": 1.0})
    with pytest.raises(ValueError, match=r"fraction of n from 0 to 1"):
        poplab.Protocol({("A", "B"): ("B", "B")}, init={"A": 1.5, "B": 0.0})
    with pytest.raises(ValueError, match=r"fraction of n from 0 to 1"):
        poplab.Protocol({("A", "B"): ("B", "B")}, init={"A": float("nan"), "B": 0.0})


def test_n12_ranges_are_named_with_the_argument():
    with pytest.raises(ValueError, match=r"trials = -1 is out of range: give 1 to 10\*\*8"):
        poplab.run("angluin", 10, trials=-1)
    with pytest.raises(ValueError, match=r"seed = -5 is out of range: give 0 to 2\*\*64 - 1"):
        poplab.run("angluin", 10, seed=-5)
    with pytest.raises(ValueError, match=r"seed = -5 is out of range"):
        Simulation({"A": 5, "B": 5}, {("A", "B"): ("B", "B")}, seed=-5)
    with pytest.raises(ValueError, match=r"n = 10{30} is out of range: at most 2\*\*62 agents"):
        poplab.run("angluin", 10**30)
    with pytest.raises(ValueError, match=r"threads = 0 is out of range: give 1 to 256"):
        poplab.run("angluin", 10, threads=0)
    with pytest.raises(ValueError, match=r"max_steps = 0 is out of range"):
        poplab.run("angluin", 10, max_steps=0)


def test_n12_nan_times_and_missing_graph_files_are_named():
    sim = Simulation({"A": 5, "B": 5}, {("A", "B"): ("B", "B")}, seed=1)
    with pytest.raises(ValueError, match=r"run_until = nan"):
        sim.run(float("nan"))
    with pytest.raises(FileNotFoundError, match=r"missing\.txt.*no such arc-list file"):
        poplab.run("angluin", 10, graph="missing.txt")
    with pytest.raises(ValueError, match=r"graph='rign' is not a graph"):
        poplab.run("angluin", 10, graph="rign")


def test_n12_a_keyboard_interrupt_in_a_rule_propagates():
    def rule(a, b):
        raise KeyboardInterrupt

    protocol = poplab.Protocol(rule, init={"A": 1.0}, output=lambda s: "yes")
    with pytest.raises(KeyboardInterrupt):
        poplab.run(protocol, 10)


def test_n13_a_history_of_10_to_the_14_rows_is_refused_up_front():
    sim = Simulation({"A": 5, "B": 5}, {("A", "B"): ("B", "B")}, seed=1)
    with pytest.raises(ValueError, match=r"history_interval = 1e-12 would record about 1e\+14 rows"):
        sim.run(100, history_interval=1e-12)
    with pytest.raises(ValueError, match=r"history_interval = 0"):
        sim.run(1, history_interval=0)
    sim.run(1, history_interval=math.inf)


def test_n13_a_history_without_a_known_end_is_capped_by_memory(monkeypatch):
    # Never silent: A,A -> B,B and B,B -> A,A forever. Until silent, a row per 1e-12 of time (the
    # same step again and again) would grow without end; 48 kB of memory hold 100 rows of 2 states.
    flip = {("A", "A"): ("B", "B"), ("B", "B"): ("A", "A")}
    sim = Simulation({"A": 5, "B": 5}, flip, seed=1)
    monkeypatch.setenv("POPLAB_AVAILABLE_MEMORY", str(160 * 3 * 100))
    with pytest.raises(ValueError, match=r"history_interval = 1e-12: this run has recorded 100 rows of history"):
        sim.run(history_interval=1e-12)
    assert len(sim.history) <= 102  # the start, 100 rows, the end
    assert sim.steps <= 10  # stopped at the end of its first piece (stopping_interval 1: n steps)


def flip(a, b):
    """Randomized and never silent (module level: pickle finds it by name)."""
    if a == b:
        return {("A", "B"): 0.5, ("B", "A"): 0.25}
    return None


def _unpickled(sim, damage):
    """`sim` pickled, its run's snapshot changed by `damage` (a dict of the library's JSON), and
    unpickled again."""
    import json

    state = sim.__getstate__()
    snapshot = json.loads(state["_snapshot"])
    damage(snapshot["engine"])
    twin = Simulation.__new__(Simulation)
    twin.__setstate__({**state, "_snapshot": json.dumps(snapshot)})
    return twin


def test_r7_a_damaged_pickle_is_refused_against_its_own_n():
    # Issue 46, R7: n was taken from the snapshot itself, so a damaged one was accepted.
    def start(engine):
        sim = Simulation({"A": 600, "B": 380}, flip, engine=engine, seed=5)
        sim.run(0.5)
        return sim

    for engine in ("counts", "batched"):
        sim = start(engine)
        assert _unpickled(sim, lambda e: None).steps == sim.steps

        def one_more(e):
            e["counts"]["counts"][e["counts"]["present"][0]] += 1

        with pytest.raises(ValueError, match="a saved Simulation is damaged: its counts sum to 981 agents, and the run has n = 980"):
            _unpickled(sim, one_more)

        def huge(e):
            counts = e["counts"]
            counts["counts"] = [2**63 if i in counts["present"][:2] else 0 for i in range(len(counts["counts"]))]
            counts["present"] = counts["present"][:2]

        with pytest.raises(ValueError, match="a saved Simulation is damaged: its counts sum to 18446744073709551616"):
            _unpickled(sim, huge)
    sim = start("agents")

    def one_short(e):
        e["agents"]["agents"].pop()

    with pytest.raises(ValueError, match="a saved Simulation is damaged: its agent array holds 979 agents, and the run has n = 980"):
        _unpickled(sim, one_short)


def test_r8_an_output_failing_on_an_initial_state_raises_rule_error():
    # Issue 46, R8: the private poplab._protocol._Failure escaped instead of RuleError.
    raising = poplab.Protocol({("A", "A"): ("B", "B")}, output=lambda s: 1 / 0, init={"A": 1.0})
    with pytest.raises(poplab.RuleError, match=r"output\('A'\) raised ZeroDivisionError") as info:
        poplab.run(raising, 10)
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    not_an_output = poplab.Protocol({("A", "A"): ("B", "B")}, output=lambda s: 42, init={"A": 1.0})
    with pytest.raises(poplab.RuleError, match=r"output\('A'\)"):
        poplab.run(not_an_output, 10)


def test_r9_to_r16_python_messages_name_the_argument_and_the_fix():
    # Issue 46: a wrapping sum ("n = 0 is out of range"), a bare OverflowError, an AttributeError,
    # command-line advice, a stop rule accepted until the first run, the type's limit for n.
    with pytest.raises(ValueError, match=r"init_config has 18446744073709551616 agents, more than the 2\*\*62"):
        Simulation({"A": 2**63, "B": 2**63}, {("A", "B"): ("B", "B")})
    with pytest.raises(ValueError, match=r"init_config has 100000000000000000000 agents"):
        Simulation({"A": 10**20}, {("A", "B"): ("B", "B")})
    with pytest.raises(TypeError, match=r"params must be a dict of names to values"):
        poplab.run("threshold", 10, params=[("k", 3)])
    with pytest.raises(TypeError, match=r"params must be a dict of names to values"):
        poplab.sweep("threshold", [10], params=[("k", 3)])
    with pytest.raises(ValueError, match=r"init is empty: give each initial state's amount"):
        poplab.Protocol({("A", "A"): ("B", "B")}, init={})
    with pytest.raises(ValueError, match=r"n is an empty list: give a size or a list of sizes"):
        poplab.sweep("angluin", [])
    with pytest.raises(ValueError, match=r"bogus"):
        poplab.Protocol({("A", "A"): ("B", "B")}, stop="bogus")
    with pytest.raises(ValueError, match=r"n = 10{30} is out of range: at most 2\*\*62 agents"):
        poplab.run("angluin", 10**30)


def test_r2_a_sweep_over_its_own_input_is_refused(tmp_path):
    # Issue 46, R2: an input file that is one of the files a sweep writes into `out` was
    # overwritten (here the initial configuration, kept as summary.csv).
    init = tmp_path / "summary.csv"
    agents = '[{"leader": true}, {"leader": true}, {"leader": false}, {"leader": true}]'
    init.write_text(agents)
    with pytest.raises(ValueError, match=r"summary\.csv' is the same file as the input --init"):
        poplab.sweep("angluin", [4], trials=2, init=init, out=tmp_path)
    assert init.read_text() == agents
