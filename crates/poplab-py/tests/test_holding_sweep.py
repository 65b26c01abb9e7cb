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
