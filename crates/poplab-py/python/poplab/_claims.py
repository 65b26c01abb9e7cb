"""`claim`: one claim of the four papers, reproduced: its points and its verdict."""

from __future__ import annotations

import json
import os
import pathlib
import tempfile
from typing import Any, Dict, List, Optional, Union

import pandas as pd

from . import _poplab
from ._options import _U64_MAX, _flag, _threads, _whole


class ClaimResult:
    """A claim of the papers and what its experiment found, as `claim` returns it.

    Attributes:
        claim, title, source, statement: the claim's name, title, paper and statement.
        verdict: ``consistent``, ``inconsistent`` or ``inconclusive``, by the claim's written rule.
        evidence: the figures that decided it, in words.
        power: the design's power estimated from its own data (``decide``: the probability
            that the same design decides; ``trials_factor``: how many times the trials would
            decide with probability 0.95), or None for rules without one.
        design: the design in words: sizes, trials, how means were estimated, cost, power.
        scope: what the experiment covers when it is less than the claim, or None.
        points: a DataFrame, one row per x (per variant and x when the claim compares two):
            ``x``, ``variant``, ``trials``, ``ended``, ``censored``, ``mean``, ``ci95_low``,
            ``ci95_high``, ``median``, ``values`` (the ended trials' values, which the rules
            fit); claims measured by the splitting estimator give ``log10_estimate``,
            ``log10_ci95_low`` and ``log10_ci95_high`` instead of means.
        x, y: what ``x`` is (``n`` or a parameter) and what the values measure, with the unit.
        fits: ``power_law`` and ``form_fit`` (the claimed form ``a + b f(x)``), or None.
        engines: per sweep, the engines its cells ran on.
        document: the whole JSON document.

    >>> import poplab
    >>> result = poplab.claim("threshold-correct")
    >>> result
    <ClaimResult threshold-correct: consistent, 7 points>
    >>> result.points[["x", "trials", "censored"]].head(3)
         x  trials  censored
    0  1.0      20        20
    1  5.0      20        20
    2  9.0      20        20
    """

    def __init__(self, document: str):
        self.document: Dict[str, Any] = json.loads(document)
        d = self.document
        self.claim: str = d["claim"]
        self.title: str = d["title"]
        self.source: str = d["source"]
        self.statement: str = d["statement"]
        self.verdict: str = d["verdict"]
        self.evidence: str = d["evidence"]
        self.power: Optional[Dict[str, Any]] = d["power"]
        self.design: str = d["design"]
        self.scope: Optional[str] = d["scope"]
        self.x: str = d["x"]
        self.y: str = d["y"]
        self.fits: Dict[str, Any] = {"power_law": d["power_law"], "form_fit": d["form_fit"]}
        self.engines: List[str] = d["engines"]
        rows = []
        for row in d["rows"]:
            point = row["point"]
            entry: Dict[str, Any] = {
                "x": point["x"],
                "variant": row["variant"][0] if row["variant"] else None,
                "trials": row["trials"],
            }
            if d["estimated"]:
                log10, (low, high) = row["log10_estimate"]
                entry.update(log10_estimate=log10, log10_ci95_low=low, log10_ci95_high=high)
            else:
                low, high = row["ci95"] or (None, None)
                entry.update(
                    ended=len(point["values"]),
                    censored=point["censored"],
                    mean=row["mean"],
                    ci95_low=low,
                    ci95_high=high,
                    median=row["median"],
                    values=point["values"],
                )
            rows.append(entry)
        self.points: pd.DataFrame = pd.DataFrame(rows)

    def __repr__(self) -> str:
        return f"<ClaimResult {self.claim}: {self.verdict}, {len(self.points)} points>"


def claim(
    name: str,
    quick: bool = True,
    *,
    seed: int = 1,
    out: Union[None, str, "os.PathLike[str]"] = None,
    threads: Optional[int] = None,
) -> ClaimResult:
    """Reproduces one claim of the papers: its experiment, its points and its verdict, as
    ``poplab reproduce --only NAME`` computes them (the same seed gives the same numbers).

    Args:
        name: the claim, as the report names it (``angluin-exact``, ``pll-stabilisation``,
            ``prl-n``, ...); an unknown name raises ValueError listing them.
        quick: the quick sizes (minutes at most) or, with False, the full ones (hours).
        seed: the master seed (``poplab reproduce``'s default is 1).
        out: a directory for the claim's sweeps (``data/CLAIM/sweep-I`` under it, or for a
            claim "from any configuration" a sweep per size and its found starts in
            ``data/CLAIM/starts``, as in a reproduction's directory; calling again continues
            them); a temporary one if None.
        threads: worker threads (default: one per core); results do not depend on it.

    Returns:
        A `ClaimResult`: ``verdict``, ``evidence``, ``points`` (one row per x) and ``fits``.
    """
    quick = _flag("quick", quick)
    seed = _whole("seed", seed, 0, _U64_MAX, "2**64 - 1")
    threads = _threads(threads)
    if out is not None:
        return ClaimResult(_poplab.claim(str(name), quick, seed, os.fspath(pathlib.Path(out)), threads))
    with tempfile.TemporaryDirectory(prefix="poplab-claim-") as path:
        return ClaimResult(_poplab.claim(str(name), quick, seed, path, threads))
