"""`poplab.claim`: one claim of the reproduction, its points and verdict, as the command reports them."""

import math

import pytest

import poplab


def test_a_claim_gives_the_numbers_of_the_report(cli, tmp_path):
    result = poplab.claim("prl-big-n", out=tmp_path / "python")
    cli("reproduce", "--quick", "--only", "prl-big-n", "--out", str(tmp_path / "command"))
    report = (tmp_path / "command" / "report.md").read_text()
    verdict = next(line for line in report.splitlines() if line.startswith("Verdict: **"))
    assert verdict.startswith(f"Verdict: **{result.verdict}**: {result.evidence} (")
    # The table's rows: N, trials, ended, censored, mean, 95% CI, median (4 significant digits);
    # the table of starts before it has a description in its second column.
    rows = [line.split(" | ") for line in report.splitlines() if line.startswith("| ") and line[2].isdigit()]
    table = [row for row in rows if row[1].isdigit()]
    assert [float(row[0][2:]) for row in table] == result.points["x"].tolist() == [6400, 12800, 25600, 51200, 102400]
    for row, (_, point) in zip(table, result.points.iterrows()):
        assert (int(row[1]), int(row[2]), int(row[3])) == (point["trials"], point["ended"], point["censored"])
        assert math.isclose(float(row[4]), point["mean"], rel_tol=1e-3)
        assert len(point["values"]) == point["ended"] == 10
    assert result.x == "N" and result.y == "steps"
    assert result.power["decide"] > 0.9 and result.design.startswith("prl at n in {100}, N in {6400, ")
    assert result.fits["form_fit"]["form"] == "x"
    # Run again into the same directory: every trial is read back, the result is the same.
    again = poplab.claim("prl-big-n", out=tmp_path / "python")
    assert (again.document["trials_run"], again.document["trials_reused"]) == (0, 50)
    assert again.document["rows"] == result.document["rows"]
    # A claim "from any configuration": per N, the start its search found, and the family's mean.
    starts = result.document["starts"]["starts"]
    assert [s["x"] for s in starts] == [6400, 12800, 25600, 51200, 102400]
    assert all(s["family"]["description"] == "no-leader" and s["file"].endswith(".json") for s in starts)
    assert len(rows) == 2 * len(table)


def test_an_estimated_claim_gives_logarithms_and_unknown_claims_are_listed():
    with pytest.raises(ValueError, match="unknown claim 'pll'; use angluin-exact, threshold-correct, "):
        poplab.claim("pll")
    with pytest.raises(TypeError):
        poplab.claim("prl-big-n", quick="yes")
    result = poplab.claim("ppl-holding", threads=2)
    assert result.verdict == "inconclusive"
    assert list(result.points.columns) == ["x", "variant", "trials", "log10_estimate", "log10_ci95_low", "log10_ci95_high"]
    assert result.points["x"].tolist() == [1.5, 2, 2.5, 3]
    assert (result.points["log10_ci95_low"] < result.points["log10_estimate"]).all()
