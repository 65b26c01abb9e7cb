"""Built-in protocols and protocol files: the values and documents of the command line."""

import json
import math

import numpy as np
import pandas as pd
import pytest

import poplab
from conftest import REPO


def test_protocols_lists_the_registry():
    table = poplab.protocols()
    assert list(table.columns) == ["name", "summary", "source", "params", "init"]
    assert "angluin" in set(table["name"]) and "approx-majority" in set(table["name"])
    angluin = table.set_index("name").loc["angluin"]
    assert angluin["init"][:2] == ["default", "random"]
    majority = table.set_index("name").loc["approx-majority"]
    assert "a" in [p["name"] for p in majority["params"]]


# `poplab run angluin --n 50 --trials 8 --seed 7 --json`: pinned (and compared with the command when built).
ANGLUIN_STEPS = [2124, 2986, 1274, 3933, 2648, 4722, 2817, 2881]


def test_fixed_seed_values_of_a_built_in():
    result = poplab.run("angluin", 50, trials=8, seed=7)
    assert result.engine == "batched"
    assert list(result.trials["steps"]) == ANGLUIN_STEPS
    assert result.trials["steps"].dtype == np.int64
    assert result.summary["mean_steps"] == pytest.approx(sum(ANGLUIN_STEPS) / 8)
    assert result.summary["converged"] == 8
    assert list(result.trials.columns) == ["index", "seed", "outcome", "steps", "parallel_time"]
    assert list(result.trials["index"]) == list(range(8))
    assert (result.trials["parallel_time"] == result.trials["steps"] / 50).all()
    document = json.loads(result.to_json())
    assert document["summary"] == result.summary
    assert [t["steps"] for t in document["trials"]] == ANGLUIN_STEPS


def test_the_document_is_the_command_lines(cli):
    for args, kwargs in [
        (["angluin", "--n", "50", "--trials", "8", "--seed", "7"], dict(trials=8, seed=7)),
        (
            ["approx-majority", "--n", "1000", "--trials", "4", "--seed", "3", "--set", "a=0.6", "--engine", "agents"],
            dict(trials=4, seed=3, params={"a": 0.6}, engine="agents"),
        ),
        (
            ["angluin", "--n", "30", "--trials", "3", "--seed", "1", "--census", "--fault", "500:3"],
            dict(trials=3, seed=1, census=True, faults=["500:3"]),
        ),
    ]:
        expected = cli("run", *args, "--json")
        result = poplab.run(args[0], int(args[2]), **kwargs)
        assert result.to_json() == expected, args
    assert json.loads(cli("exact", "angluin", "--n", "6", "--json")) == poplab.exact("angluin", 6)
    # verify exits with 1 when a check fails, and still prints its document.
    assert json.loads(cli("verify", "angluin", "--n", "5", "--from", "all", "--json", check=False)) == poplab.verify(
        "angluin", 5, start="all"
    )


def test_census_and_recovery_columns():
    result = poplab.run("angluin", 30, trials=3, seed=1, census=True, faults=[(500, 3)])
    assert {"recovery_steps", "distinct_states"} <= set(result.trials.columns)
    assert (result.trials["recovery_steps"] <= result.trials["steps"]).all()


def test_exact_and_verify_are_dicts():
    report = poplab.exact("angluin", 6)
    assert report["expected_steps"] == pytest.approx(25.0)  # (n - 1)^2
    assert report["converges_with_probability_1"] is True
    check = poplab.verify("angluin", 4)
    assert check["passed"] is True and check["closure"]["passed"] is True
    # From every configuration, the one without a leader never elects one.
    every = poplab.verify("angluin", 4, start="all")
    assert every["passed"] is False and every["convergence"]["passed"] is False
    assert every["convergence"]["counterexample"]["end"] == [{"leader": False}] * 4


def test_trace_is_one_trial_of_the_run():
    frame = poplab.trace("approx-majority", 1000, every=500, seed=3, params={"a": 0.6}, engine="agents")
    run = poplab.run("approx-majority", 1000, seed=3, params={"a": 0.6}, engine="agents")
    assert list(frame.columns[:3]) == ["step", "parallel_time", "leaders"]
    assert len(frame.columns) > 3, "the protocol's own columns"
    assert frame.attrs["record"]["steps"] == run.trials["steps"][0]
    assert frame["step"].iloc[0] == 0 and frame["step"].iloc[-1] == run.trials["steps"][0]
    assert (frame["step"].diff().dropna() <= 500).all()


def test_steps_beyond_int64_stay_exact():
    silent = poplab.Protocol({}, stop="time:1e19", init={"A": 1.0})
    result = poplab.run(silent, 10, trials=2, max_steps=10**20)
    assert result.trials["steps"].dtype == object
    assert list(result.trials["steps"]) == [10**20, 10**20]
    assert all(type(s) is int for s in result.trials["steps"])
    assert set(result.trials["outcome"]) == {"censored"}


def test_protocol_files_by_path(tmp_path):
    file = REPO / "examples" / "protocols" / "angluin.toml"
    by_path = poplab.run(file, 40, trials=5, seed=2)
    by_text = poplab.run(str(file), 40, trials=5, seed=2)
    by_at = poplab.run("@" + str(file), 40, trials=5, seed=2)
    assert by_path.to_json() == by_text.to_json() == by_at.to_json()
    majority = REPO / "examples" / "protocols" / "exact-majority.toml"
    counts = poplab.run(majority, 40, init={"A": 30, "B": 10}, trials=3, seed=1)
    assert counts.document["init"] == "counts:A=30,B=10"
    assert counts.summary["converged"] == 3


def test_init_as_a_list_of_state_objects():
    result = poplab.run("angluin", 4, init=[{"leader": True}] * 2 + [{"leader": False}] * 2, trials=2)
    assert result.document["init"] == "explicit(4 agents)"
    assert result.summary["converged"] == 2


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: poplab.run("nope", 10), "unknown protocol 'nope'; known protocols: threshold"),
        (lambda: poplab.run("angluin", 1), "n = 1 is out of range"),
        (lambda: poplab.run("angluin", 10, engine="fast"), "unknown engine 'fast'"),
        (lambda: poplab.run("angluin", 10, params={"k": 3}), "protocol angluin has no parameter 'k'"),
        (lambda: poplab.run("angluin", 10, trials=0), "trials = 0 is out of range: give 1 to 10**8"),
        (lambda: poplab.run("angluin", 10, init="nothing"), "initial configuration"),
        (lambda: poplab.run("angluin", 10, graph="torus"), "graph"),
        (lambda: poplab.run("angluin", 10, init=[{"leader": 1}] * 10), "initial configuration"),
        (lambda: poplab.run("missing.toml", 10), "'missing.toml'"),
    ],
)
def test_input_errors_are_value_errors_with_the_librarys_message(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert not isinstance(info.value, poplab.RuleError)


def test_sweeps_return_frames_and_resume(tmp_path):
    out = tmp_path / "sweep"
    first = poplab.sweep("approx-majority", [200, 400], params={"a": [0.6, 0.7]}, trials=4, seed=1, out=out)
    assert len(first.summary) == 4 and len(first.trials) == 16
    assert {"cell", "n", "a", "index", "steps"} <= set(first.trials.columns)
    assert sorted(set(first.trials["a"])) == [0.6, 0.7]
    for name in ["sweep.json", "trials.csv", "summary.csv", "summary.json", "fits.json"]:
        assert (out / name).exists(), name
    assert first.document == json.loads((out / "summary.json").read_text())
    assert first.fits == json.loads((out / "fits.json").read_text())["fits"]
    # Kill half the trials, resume: the same results.
    lines = (out / "trials.csv").read_text().splitlines(keepends=True)
    (out / "trials.csv").write_text("".join(lines[:9]))
    again = poplab.sweep("approx-majority", [200, 400], params={"a": [0.6, 0.7]}, trials=4, seed=1, out=out)
    pd.testing.assert_frame_equal(first.trials, again.trials)
    pd.testing.assert_frame_equal(first.summary, again.summary)
    # Without a directory, the same trials.
    memory = poplab.sweep("approx-majority", [200, 400], params={"a": [0.6, 0.7]}, trials=4, seed=1)
    pd.testing.assert_frame_equal(first.trials, memory.trials)
    with pytest.raises(ValueError, match="holds a different sweep"):
        poplab.sweep("approx-majority", [200], trials=4, seed=1, out=out)


def test_sweep_fits_against_n():
    result = poplab.sweep("angluin", [100, 200, 400, 800], trials=40, seed=4)
    power = result.fits[0]["power_law"]
    assert 0.8 < power["exponent"] < 1.2, power  # parallel time (n - 1)^2 / n grows linearly
    assert math.isfinite(result.summary["mean_parallel_time"].iloc[-1])


def test_the_splitting_estimator_gives_the_document_of_the_command(cli):
    """`run(..., measure="holding", estimator="splitting")` is `poplab run --estimator splitting
    --json` for the same seed: the same estimate, to the last digit (the wall-clock time aside)."""
    options = {"replicas": 20, "cycles": 50}
    result = poplab.run(
        "ls-timer", 4, params={"s": 8}, measure="holding", estimator=options, trials=5, seed=3, threads=2
    )
    assert isinstance(result, poplab.EstimateResult)
    document = json.loads(
        cli("run", "ls-timer", "--n", "4", "--set", "s=8", "--measure", "holding", "--estimator", "splitting",
            "--replicas", "20", "--cycles", "50", "--trials", "5", "--seed", "3", "--json")
    )
    mine = json.loads(result.to_json())
    for d in (document, mine):
        d.pop("wall_seconds")
    assert mine == document
    assert result.estimate["repetitions"] == 5 and result.estimate["replicas"] == 20
    # Without trials=, the estimator's 100 repetitions, as on the command line.
    small = {"replicas": 10, "cycles": 20}
    assert poplab.run("ls-timer", 3, params={"s": 4}, measure="holding", estimator=small).estimate["repetitions"] == 100
    with pytest.raises(ValueError, match="--measure holding"):
        poplab.run("ls-timer", 4, estimator="splitting")
    with pytest.raises(ValueError, match="estimator 'bogus'"):
        poplab.run("ls-timer", 4, measure="holding", estimator="bogus")
