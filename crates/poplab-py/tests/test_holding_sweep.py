"""A sweep with the splitting estimator from Python: the same estimates as `poplab sweep
--estimator splitting` (the library's `run_sweep` chooses the estimator for both)."""

import json

import poplab


def test_a_splitting_sweep_gives_the_commands_estimates(cli, tmp_path):
    cli("sweep", "ls-timer", "--n", "4,6", "--measure", "holding", "--estimator", "splitting",
        "--trials", "3", "--seed", "7", "--out", str(tmp_path / "cli"))
    lines = (tmp_path / "cli" / "estimates.jsonl").read_text().splitlines()
    expected = {c["cell"]: c["estimate"] for c in map(json.loads, lines)}
    for out in [None, tmp_path / "py"]:
        curve = poplab.sweep("ls-timer", [4, 6], measure="holding", estimator="splitting", trials=3, seed=7,
                             out=out)
        assert isinstance(curve, poplab.HoldingSweepResult)
        assert {c["cell"]: c["estimate"] for c in curve.document["cells"]} == expected
        assert curve.estimates["log10_mean_steps"].tolist() == [expected[k]["log10_mean_steps"] for k in ("n=4", "n=6")]
        assert curve.fit["axis"] == "n"
    assert (tmp_path / "py" / "estimates.csv").exists()
    # Direct sweeps are unchanged.
    assert isinstance(poplab.sweep("angluin", [10], trials=2, seed=1), poplab.SweepResult)


def test_trials_left_out_are_the_commands_default_for_either_estimator(cli, tmp_path):
    # The splitting estimator's repetitions (100), not a direct sweep's 20 trials, as the command.
    options = ["--measure", "holding", "--estimator", "splitting", "--replicas", "20", "--cycles", "50"]
    cli("sweep", "ls-timer", "--n", "4", *options, "--seed", "7", "--out", str(tmp_path / "cli"))
    expected = json.loads((tmp_path / "cli" / "estimates.jsonl").read_text().splitlines()[0])["estimate"]
    estimator = {"replicas": 20, "cycles": 50}
    curve = poplab.sweep("ls-timer", 4, measure="holding", estimator=estimator, seed=7)
    (got,) = curve.document["cells"]
    assert got["estimate"]["repetitions"] == expected["repetitions"] == 100
    assert got["estimate"] == expected
    # A direct sweep without trials: the command's 20 per cell.
    cli("sweep", "angluin", "--n", "10", "--seed", "1", "--out", str(tmp_path / "direct"))
    rows = (tmp_path / "direct" / "trials.csv").read_text().splitlines()[1:]
    assert len(poplab.sweep("angluin", 10, seed=1).trials) == len(rows) == 20
