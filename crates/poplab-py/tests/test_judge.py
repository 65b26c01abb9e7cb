"""`poplab.judge` and `SweepResult.judge`: a user's claim judged by the library's rules, with the
verdict and evidence of `poplab sweep --claim`."""

import json
import math

import pytest

import poplab

SIZES = [100, 1000, 10_000, 100_000]


def n_log_n(spread=0.01, trials=4):
    """Values whose mean is 3 n ln n at each size, `trials` of them spread by +-`spread`."""
    offsets = [spread * (2 * j / (trials - 1) - 1) for j in range(trials)] if trials > 1 else [0.0]
    return [[3 * n * math.log(n) * (1 + o) for o in offsets] for n in SIZES]


def test_consistent_inconsistent_and_inconclusive():
    values = n_log_n()
    consistent = poplab.judge(SIZES, values, "O(n log n)")
    assert isinstance(consistent, poplab.Judgement)
    assert consistent.verdict == "consistent", consistent.evidence
    assert consistent.claim == "O(n log n)" and consistent.variable == "n"
    assert set(consistent.power) == {"decide", "trials_factor"}
    assert repr(consistent).startswith("<Judgement O(n log n): consistent (power ")
    inconsistent = poplab.judge(SIZES, values, "O(n)")
    assert inconsistent.verdict == "inconsistent", inconsistent.evidence
    assert "grows faster than O(n) allows" in inconsistent.evidence
    assert poplab.judge(SIZES, values, "Omega(n)").verdict == "consistent"
    assert poplab.judge(SIZES, values, "Theta(n log n)").verdict == "consistent"
    # One trial per size: no error, no decision.
    single = poplab.judge(SIZES, n_log_n(trials=1), "O(n log n)")
    assert single.verdict == "inconclusive"
    assert single.evidence == "at x = 100 fewer than two trials: no error"
    assert single.power is None and repr(single) == "<Judgement O(n log n): inconclusive>"


def test_exact_claims_and_other_variables():
    sizes = [10, 20, 40, 80]
    exact = [[(n - 1) ** 2 * (1 + 0.01 * (j % 3 - 1)) for j in range(60)] for n in sizes]
    assert poplab.judge(sizes, exact, "= (n-1)^2").verdict == "consistent"
    assert poplab.judge(sizes, exact, "= 2 (n-1)^2").verdict == "inconsistent"
    # A parameter swept, n held fixed; numpy numbers and tuples are accepted.
    np = pytest.importorskip("numpy")
    k = np.array([2, 4, 8, 16])
    values = tuple(tuple(np.full(5, 100.0) * kk * (1 + 0.01 * np.arange(-2, 3))) for kk in k)
    by_k = poplab.judge(k, values, "Theta(n k)", variable="k", fixed={"n": 100})
    assert by_k.verdict == "consistent", by_k.evidence
    assert by_k.variable == "k"


def test_errors_name_the_argument():
    values = n_log_n()
    with pytest.raises(ValueError, match=r"claim 'O\(n': .*parentheses"):
        poplab.judge(SIZES, values, "O(n")
    with pytest.raises(ValueError, match="'Big' is no bound"):
        poplab.judge(SIZES, values, "Big(n)")
    with pytest.raises(ValueError, match="values has 3 entries and x has 4"):
        poplab.judge(SIZES, values[:3], "O(n)")
    with pytest.raises(ValueError, match="'k' has no value: the swept variable is n"):
        poplab.judge(SIZES, values, "O(n k)")
    with pytest.raises(ValueError, match="'n' has no value: the swept variable is N"):
        poplab.judge(SIZES, values, "O(n)", variable="N")
    with pytest.raises(ValueError, match=r"values\[1\]\[2\] is nan"):
        poplab.judge(SIZES, [values[0], [1.0, 2.0, float("nan")], *values[2:]], "O(n)")
    with pytest.raises(ValueError, match=r"x\[3\] is inf"):
        poplab.judge([*SIZES[:3], float("inf")], values, "O(n)")
    with pytest.raises(ValueError, match=r"values\[0\]\[0\] is -1.0: .* not negative"):
        poplab.judge(SIZES, [[-1.0, 2.0], *values[1:]], "O(n)")
    with pytest.raises(ValueError, match=r"fixed\['k'\] is nan"):
        poplab.judge(SIZES, values, "O(n k)", fixed={"k": float("nan")})
    with pytest.raises(TypeError, match=r"values\[0\] must be a sequence"):
        poplab.judge(SIZES, [1.0, *values[1:]], "O(n)")
    with pytest.raises(TypeError, match="claim must be a string"):
        poplab.judge(SIZES, values, 3)


def cli_judgements(cli, tmp_path, args, claims, unit):
    out = tmp_path / "command"
    flags = [f for c in claims for f in ("--claim", c)]
    cli("sweep", *args, "--out", str(out), *flags, "--claim-in", unit)
    return json.loads((out / "claims.json").read_text())


@pytest.mark.parametrize(
    "python_args, cli_args, claims, unit",
    [
        (
            (("angluin", [10, 20, 40]), {"trials": 40, "seed": 3}),
            ["angluin", "--n", "10,20,40", "--trials", "40", "--seed", "3"],
            ["O(n)", "O(log n)"],
            "parallel-time",
        ),
        (
            (("angluin", [10, 20, 40]), {"trials": 40, "seed": 3}),
            ["angluin", "--n", "10,20,40", "--trials", "40", "--seed", "3"],
            ["= (n-1)^2", "Theta(n^2)"],
            "steps",
        ),
        (
            (("threshold", 40), {"params": {"k": [2, 4, 8]}, "trials": 20, "seed": 3}),
            ["threshold", "--n", "40", "--set", "k=2,4,8", "--trials", "20", "--seed", "3"],
            ["O(k)", "Omega(n log k)"],
            "parallel-time",
        ),
    ],
)
def test_sweep_judgements_match_the_command(cli, tmp_path, python_args, cli_args, claims, unit):
    expected = cli_judgements(cli, tmp_path, cli_args, claims, unit)
    (positional, keywords) = python_args
    result = poplab.sweep(*positional, **keywords)
    for document, claim in zip(expected, claims):
        judgement = result.judge(claim, unit=unit.replace("-", "_"))
        assert document["claim"] == judgement.claim
        assert judgement.verdict == document["judgement"]["verdict"]
        assert judgement.evidence == document["judgement"]["evidence"]
        assert judgement.power == document["judgement"]["power"]


def test_sweep_judge_refuses():
    two = poplab.sweep("threshold", [20, 40], params={"k": [2, 4]}, trials=2, seed=1)
    with pytest.raises(ValueError, match="this sweep varies n and k; sweep one of them"):
        two.judge("O(n)")
    one = poplab.sweep("angluin", 20, trials=2, seed=1)
    with pytest.raises(ValueError, match="a claim needs a sweep over one variable"):
        one.judge("O(n)")
    with pytest.raises(ValueError, match="unit must be 'parallel_time' or 'steps'"):
        one.judge("O(n)", unit="seconds")

    def rule(a, b, mode):
        return ("L", "F") if (a, b) == ("L", "L") else None

    election = poplab.Protocol(rule, output={"L": True, "F": False}, stop="one-leader", init={"L": 1.0}, mode="a")
    by_mode = poplab.sweep(election, 10, params={"mode": ["a", "b", "c"]}, trials=2, seed=1)
    with pytest.raises(ValueError, match="mode = a is not a number: a claim needs a numeric swept variable"):
        by_mode.judge("O(mode)")


def test_sweep_judge_counts_censored_trials():
    # A step budget too small for n = 400: its trials are censored, and the rule cannot decide.
    result = poplab.sweep("angluin", [10, 20, 400], trials=5, seed=1, max_steps=2000)
    assert (result.trials["outcome"] == "censored").any()
    judgement = result.judge("O(n)")
    assert judgement.verdict == "inconclusive"
    assert "censored" in judgement.evidence
