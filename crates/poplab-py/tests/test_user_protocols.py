"""Protocols written in Python: laws, states, memoisation, errors."""

import dataclasses
import math

import pytest

import poplab
from conftest import REPO, ks_two_sample, z_test

ALPHA = 0.001


def angluin_in_python():
    return poplab.Protocol(
        {("L", "L"): ("L", "F")},
        output={"L": "leader", "F": "follower"},
        stop="one-leader",
        name="angluin-py",
        init={"L": 1.0},
    )


def test_a_python_rule_has_the_law_of_the_built_in():
    n, trials = 50, 300
    mine = poplab.run(angluin_in_python(), n, trials=trials, seed=11)
    built_in = poplab.run("angluin", n, trials=trials, seed=12)
    assert mine.summary["converged"] == built_in.summary["converged"] == trials
    p = ks_two_sample(list(mine.trials["steps"]), list(built_in.trials["steps"]))
    assert p > ALPHA, f"KS p-value {p}"
    # And both against the exact expectation (n - 1)^2.
    assert z_test(list(mine.trials["steps"]), (n - 1) ** 2) > ALPHA


def test_the_randomized_election_takes_twice_as_long():
    n, trials = 50, 300
    election = poplab.Protocol(
        {("L", "L"): {("L", "F"): 0.5}}, output={"L": True, "F": False}, stop="one-leader", init={"L": 1.0}
    )
    assert election.randomized
    result = poplab.run(election, n, trials=trials, seed=5)
    assert result.summary["converged"] == trials
    p = z_test([float(s) for s in result.trials["steps"]], 2 * (n - 1) ** 2)
    assert p > ALPHA, f"z-test p-value {p}, mean {result.summary['mean_steps']}"


def test_every_engine_runs_a_python_rule():
    for engine in ["agents", "counts", "batched"]:
        result = poplab.run(angluin_in_python(), 30, trials=20, seed=1, engine=engine)
        assert result.engine == engine and result.summary["converged"] == 20


@dataclasses.dataclass(frozen=True)
class Agent:
    leader: bool
    level: int


def test_dataclass_states_and_rule_functions_with_parameters():
    calls = []

    def rule(a, b, cap):
        calls.append((a, b))
        if a.leader and b.leader:
            return Agent(True, min(a.level + 1, cap)), Agent(False, 0)
        return None

    protocol = poplab.Protocol(
        rule,
        output=lambda s: s.leader,
        stop="one-leader",
        init={Agent(True, 0): 1.0},
        deterministic=True,
        cap=3,
    )
    result = poplab.run(protocol, 40, trials=50, seed=2)
    assert result.summary["converged"] == 50
    assert result.params["cap"] == 3 and result.params["stop"] == "one-leader"
    assert len(calls) == len(set(calls)) == protocol.resolved_pairs, "each pair resolved once"
    assert set(protocol.states) <= {Agent(l, k) for l in (True, False) for k in range(4)}
    assert Agent(True, 3) in protocol.states
    # Parameters derive a protocol of their own (and memo); the same values give the same one.
    other = protocol.with_params(cap=1)
    assert other is protocol.with_params(cap=1) and other.params == {"cap": 1}
    poplab.run(protocol, 40, trials=5, seed=2, params={"cap": 1})
    assert Agent(True, 2) not in other.states
    # Exact analysis of a deterministic Python protocol, states given back as objects.
    report = poplab.exact(protocol, 5)
    assert report["expected_steps"] == pytest.approx(16.0)  # (n - 1)^2


def test_rules_get_copies_they_may_mutate():
    @dataclasses.dataclass(unsafe_hash=True)
    class Counter:
        value: int

    originals = {}

    def rule(a, b):
        originals.setdefault((a.value, b.value), (id(a), id(b)))
        if a.value >= 5:
            return None
        a.value += 1  # mutate the copy and return it
        return a, b

    protocol = poplab.Protocol(rule, init={Counter(0): 1.0}, stop="silent", deterministic=True)
    result = poplab.run(protocol, 6, trials=3, seed=1, engine="agents")
    assert result.summary["converged"] == 3
    assert sorted(s.value for s in protocol.states) == list(range(6)), "the registry kept every value"


def test_init_as_dict_or_list_of_states():
    protocol = poplab.Protocol({("A", "B"): ("A", "A")}, output={"A": "yes", "B": "no"}, stop="all-yes")
    by_counts = poplab.run(protocol, 20, init={"A": 1, "B": 19}, trials=10, seed=3)
    by_list = poplab.run(protocol, 20, init=["A"] + ["B"] * 19, trials=10, seed=3, engine="agents")
    assert by_counts.summary["converged"] == by_list.summary["converged"] == 10
    assert by_list.document["init"] == "explicit(20 agents)"
    # On a ring the order of the list matters: it is kept.
    ring = poplab.run(protocol, 6, init=["A", "B", "B", "B", "B", "B"], graph="ring", trials=2, seed=1)
    assert ring.summary["converged"] == 2
    with pytest.raises(ValueError, match="sum"):
        poplab.run(protocol, 20, init={"A": 1, "B": 5})
    with pytest.raises(ValueError, match="no initial configuration"):
        poplab.run(protocol, 20)


def test_exceptions_from_rules_carry_the_pair_and_the_cause():
    def rule(a, b):
        if (a, b) == ("x", "y"):
            raise ZeroDivisionError("no rule here")
        return ("y", "y") if a == "x" else None

    protocol = poplab.Protocol(rule, init={"x": 0.5, "y": 0.5}, output=lambda s: "undecided")
    with pytest.raises(poplab.RuleError) as info:
        poplab.run(protocol, 10, trials=4, seed=1)
    message = str(info.value)
    assert "rule('x', 'y') raised ZeroDivisionError: no rule here" in message, message
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value.__cause__, ZeroDivisionError)

    bad_result = poplab.Protocol(lambda a, b: 42, init={"x": 1.0})
    with pytest.raises(poplab.RuleError, match=r"rule\('x', 'x'\) returned 42"):
        poplab.run(bad_result, 5)

    bad_output = poplab.Protocol({("x", "x"): ("x", "z")}, output={"x": "yes"}, init={"x": 1.0})
    with pytest.raises(poplab.RuleError, match="no entry for state 'z'") as info:
        poplab.run(bad_output, 5)
    assert isinstance(info.value.__cause__, KeyError)

    too_likely = poplab.Protocol(lambda a, b: {("x", "y"): 0.7, ("y", "y"): 0.7}, init={"x": 1.0})
    with pytest.raises(poplab.RuleError, match="sum"):
        poplab.run(too_likely, 5)

    unhashable = poplab.Protocol(lambda a, b: (["list"], b), init={"x": 1.0})
    with pytest.raises(poplab.RuleError, match="not hashable"):
        poplab.run(unhashable, 5)


def test_declared_deterministic_functions_refuse_laws():
    protocol = poplab.Protocol(lambda a, b: {("x", "y"): 0.5}, init={"x": 1.0}, deterministic=True)
    with pytest.raises(poplab.RuleError, match="declared deterministic"):
        poplab.run(protocol, 5)


def test_one_memo_for_every_trial_run_and_thread():
    calls = []

    def rule(a, b):
        calls.append((a, b))
        return (a + 1, b) if a < 30 else None

    protocol = poplab.Protocol(rule, init={0: 1.0}, stop="time:20", deterministic=True)
    poplab.run(protocol, 50, trials=40, seed=1, threads=2, engine="agents")
    first = len(calls)
    assert first == len(set(calls)) == protocol.resolved_pairs
    poplab.run(protocol, 50, trials=40, seed=2, threads=2, engine="agents")
    assert len(calls) == len(set(calls)), "no pair resolved twice across runs"


def test_sweep_of_a_python_protocol_over_parameters(tmp_path):
    def rule(a, b, p):
        return {("L", "F"): p} if (a, b) == ("L", "L") else None

    election = poplab.Protocol(rule, output={"L": True, "F": False}, stop="one-leader", init={"L": 1.0}, p=1.0)
    result = poplab.sweep(election, [20, 40], params={"p": [0.5, 1.0]}, trials=30, seed=1, out=tmp_path / "s")
    assert len(result.summary) == 4
    means = result.summary.set_index(["n", "p"])["mean_steps"]
    assert means[(40, 0.5)] > means[(40, 1.0)]
    assert sorted(set(result.trials["p"])) == [0.5, 1.0]
    again = poplab.sweep(election, [20, 40], params={"p": [0.5, 1.0]}, trials=30, seed=1, out=tmp_path / "s")
    assert list(again.trials["steps"]) == list(result.trials["steps"])


def test_verify_a_python_protocol_from_its_configuration():
    check = poplab.verify(angluin_in_python(), 4)
    assert check["passed"] is True and check["from"] == "default"
    broken = poplab.Protocol(
        {("L", "L"): ("F", "F")}, output={"L": "leader", "F": "follower"}, stop="one-leader", init={"L": 1.0}
    )
    report = poplab.verify(broken, 4)
    assert report["passed"] is False
    end = report["convergence"]["counterexample"]["end"]
    assert set(end) == {"F"}, "states come back as the protocol's objects"
    assert math.isinf(float("inf"))


MAJORITY_RULES = {
    ("A", "B"): ("a", "b"), ("B", "A"): ("b", "a"), ("A", "b"): ("A", "a"),
    ("b", "A"): ("a", "A"), ("B", "a"): ("B", "b"), ("a", "B"): ("b", "B"),
}
MAJORITY_OUTPUT = {"A": "yes", "a": "yes", "B": "no", "b": "no"}


def majority(rule, **options):
    return poplab.Protocol(rule, output=MAJORITY_OUTPUT, stop="consensus", init={"A": 0.51, "B": 0.49}, **options)


def test_a_dict_rule_batches_to_its_stop_as_the_protocol_file_does():
    """The 4-state exact majority as a dict: its consensus is checked closed, so its runs batch up
    to the stop as the file's do, and draw the same (the states are met in the file's order)."""
    protocol = majority(MAJORITY_RULES)
    assert protocol.safe_set_closed

    steps = lambda p: [t["steps"] for t in poplab.run(p, 10**5, trials=3, seed=1).document["trials"]]
    assert steps(protocol) == steps(f"@{REPO}/examples/protocols/exact-majority.toml")


def test_closed_stops_for_rule_functions():
    """A rule function is known closed only for silence; closed_stops=True declares it (and then
    draws as the dict does); a dict whose stop set is left is found open."""
    function = lambda a, b: MAJORITY_RULES.get((a, b))
    assert not majority(function, deterministic=True).safe_set_closed
    declared = majority(function, deterministic=True, closed_stops=True)
    assert declared.safe_set_closed and declared.with_params().safe_set_closed
    steps = lambda p: [t["steps"] for t in poplab.run(p, 10**5, trials=3, seed=1).document["trials"]]
    assert steps(declared) == steps(majority(MAJORITY_RULES))
    leaky = poplab.Protocol({("A", "A"): ("A", "b")}, output=MAJORITY_OUTPUT, stop="all-yes", init={"A": 1.0})
    assert not leaky.safe_set_closed
    assert poplab.Protocol(function, stop="silent", init={"A": 1.0}).safe_set_closed
    with pytest.raises(TypeError, match="closed_stops"):
        majority(MAJORITY_RULES, closed_stops="yes")
