"""`judge`: a claim written as in the papers judged on measured values, by the library's rules."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _poplab
from ._options import _number, _sequence

#: A point as the extension takes it: x, the ended trials' values, the censored trials, their horizon.
_Point = Tuple[float, List[float], int, float]


class Judgement:
    """A claim's verdict on measured values, as `judge` and `SweepResult.judge` return it.

    Attributes:
        claim: the claim as written (trimmed).
        variable: the swept variable the claim is a function of.
        verdict: ``consistent``, ``inconsistent`` or ``inconclusive``.
        evidence: the figures that decided it, in words (the text ``poplab sweep --claim`` prints).
        power: for rules that compare an estimate with a margin, the design's power estimated
            from the data: ``decide`` (the probability that the same sizes and trials decide)
            and ``trials_factor`` (how many times the trials per point would decide with
            probability 0.95; None when the estimate sits on the margin); None for other rules.
        document: the whole JSON document.

    >>> import poplab
    >>> x = [100, 1000, 10000, 100000]
    >>> values = [[n * (1 + 0.01 * (j % 3 - 1)) for j in range(30)] for n in x]   # 30 trials per x
    >>> judgement = poplab.judge(x, values, "= n")
    >>> judgement
    <Judgement = n: consistent (power 1.00)>
    >>> print(judgement.evidence)
    consistent: the pooled ratio is within 0.05 of 1 ...
    >>> sorted(judgement.power)
    ['decide', 'trials_factor']
    """

    def __init__(self, document: str):
        self.document: Dict[str, Any] = json.loads(document)
        d = self.document
        self.claim: str = d["claim"]
        self.variable: str = d["variable"]
        self.verdict: str = d["verdict"]
        self.evidence: str = d["evidence"]
        self.power: Optional[Dict[str, Any]] = d["power"]

    def __repr__(self) -> str:
        power = "" if self.power is None else f" (power {self.power['decide']:.2f})"
        return f"<Judgement {self.claim}: {self.verdict}{power}>"


def _check_claim(claim: Any) -> None:
    """Refuses a claim that is not text (what the text says, the library checks)."""
    if not isinstance(claim, str):
        raise TypeError(f"claim must be a string such as 'O(log n)', not {type(claim).__name__}")


def _judge(claim: Any, variable: Any, fixed: Any, points: List[_Point]) -> Judgement:
    """The library's verdict on `points`."""
    _check_claim(claim)
    if not isinstance(variable, str) or not variable.strip():
        raise ValueError(f"variable must be the name the claim uses for x ('n', 'N', ...), not {variable!r}")
    if fixed is None:
        fixed = {}
    if not isinstance(fixed, Mapping):
        raise TypeError(f"fixed must be a mapping of variable names to numbers, not {type(fixed).__name__}")
    pairs = [(str(k), _number(f"fixed[{k!r}]", v)) for k, v in fixed.items()]
    return Judgement(_poplab.judge(claim, variable, pairs, points))


def judge(
    x: Sequence[float],
    values: Sequence[Sequence[float]],
    claim: str,
    *,
    variable: str = "n",
    fixed: Optional[Mapping[str, float]] = None,
) -> Judgement:
    """Judges a claim written as in the papers on measured values, by the rules of the
    reproduction's claims (the same verdict and evidence as ``poplab sweep --claim`` on the
    same values).

    The claim is about the mean of the values as a function of ``x``: ``O(f)`` and ``Omega(f)``
    by the trend of mean/f against a margin, ``Theta(f)`` by both, ``= f`` by the exact mean,
    ``Omega(e^(r x))`` by an exponential lower bound at rate ``r``.

    Args:
        x: the values of the swept variable, one per point (three or more for a trend).
        values: for each x, the trials' values (finite, not negative: times or counts, in the
            caller's unit).
        claim: ``O(log n)``, ``Omega(n^2)``, ``Theta(n log n)``, ``= (n-1)^2``,
            ``Omega(e^N)``, ...: numbers, variables, ``+ - * / ^``, parentheses, products by
            juxtaposition and ``log`` (natural), ``lg``, ``log10``, ``sqrt``, ``exp``, ``ceil``,
            ``floor``.
        variable: the name the claim uses for x (``n``, or a parameter such as ``N``).
        fixed: the values of the claim's other variables, ``{"n": 1000}``.

    Returns:
        A `Judgement`: ``verdict``, ``evidence`` and ``power``.

    Raises:
        ValueError: a claim the parser refuses (with the library's message), a claim variable
            with no value, values that are not finite or are negative, or ``values`` of another
            length than ``x``.

    >>> import math, poplab
    >>> x = [100, 1000, 10000, 100000]
    >>> values = [[0.99 * 3 * n * math.log(n), 3 * n * math.log(n), 1.01 * 3 * n * math.log(n)] for n in x]
    >>> poplab.judge(x, values, "O(n log n)").verdict
    'consistent'
    >>> poplab.judge(x, values, "O(n)").verdict
    'inconsistent'
    """
    xs = [_number(f"x[{i}]", v) for i, v in enumerate(_sequence("x", x))]
    per_x = _sequence("values", values)
    if len(per_x) != len(xs):
        raise ValueError(
            f"values has {len(per_x)} entries and x has {len(xs)}: give one sequence of trial values per x"
        )
    points: List[_Point] = []
    for i, (xi, trials) in enumerate(zip(xs, per_x)):
        ended = [_number(f"values[{i}][{j}]", v) for j, v in enumerate(_sequence(f"values[{i}]", trials))]
        for j, v in enumerate(ended):
            if v < 0:
                raise ValueError(f"values[{i}][{j}] is {v}: trial values are times or counts, not negative")
        points.append((xi, ended, 0, 0.0))
    return _judge(claim, variable, fixed, points)
