"""Figures as a paper shows them: `TraceFrame.plot`, `RunResult.plot`, `SweepResult.plot`.

matplotlib is imported when a figure is drawn, not with poplab (``pip install poplab[plot]``).
Counts are drawn as steps (a count holds until the next sample, never between two values),
means with bootstrap intervals (percentiles of resampled means: on a log axis they never run
below zero, as a symmetric t-interval of skewed times does), fits as smooth curves evaluated at
many sizes, and one measure per axis.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from . import _poplab

#: Points a fitted curve is evaluated at.
_CURVE_POINTS = 200


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("drawing needs matplotlib: pip install matplotlib (or poplab[plot])") from None
    return plt


def _axes(ax: Any, rows: int = 1) -> List[Any]:
    """``rows`` axes sharing x: ``ax`` itself (a single axis), or a new figure's."""
    if ax is not None:
        if rows != 1:
            raise ValueError(f"this figure has {rows} panels, one measure each: leave ax=None")
        return [ax]
    plt = _pyplot()
    _, axes = plt.subplots(
        rows, 1, sharex=True, squeeze=False, figsize=(7, 2.6 * rows + 1.2), constrained_layout=True
    )
    return list(axes[:, 0])


def _plain_log_ticks(axis: Any, which: str) -> None:
    """Log-scale tick labels as plain numbers (``20``, ``0.5``, ``1e+06``), not ``2×10¹``."""
    from matplotlib.ticker import FuncFormatter

    ticks = axis.xaxis if which == "x" else axis.yaxis
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ticks.set_major_formatter(plain)
    ticks.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:g}"[0] in "25" else ""))


def bootstrap_mean_interval(values: Sequence[float]) -> Tuple[float, float]:
    """The percentile bootstrap interval (95%) of the mean of ``values``: the central range of the
    means of resamples drawn with replacement, the interval ``poplab plot`` and the report draw
    (the library's, with the same seed: the same values give the same interval). It lies within
    the values' range, so it is never below zero for times.

    >>> from poplab._plot import bootstrap_mean_interval
    >>> low, high = bootstrap_mean_interval([1.0, 1.0, 1.0, 100.0])
    >>> 1.0 <= low < 26.0 < high <= 100.0
    True
    """
    data = [float(v) for v in values]
    if not data:
        raise ValueError("no values: an interval needs at least one")
    interval = _poplab.bootstrap_mean_ci95(data)
    return (data[0], data[0]) if interval is None else interval


def plot_trace(frame: pd.DataFrame, ax: Any = None) -> Any:
    """The configuration of one trial over parallel time as step curves: agents per state (and per
    output) for a user protocol, else leaders; each protocol column on an axis of its own."""
    states = [c for c in frame.columns if isinstance(c, str) and c.startswith("state=")]
    outputs = [c for c in frame.columns if isinstance(c, str) and c.startswith("output=")]
    fixed = {"step", "parallel_time", "leaders", *states, *outputs}
    own = [c for c in frame.columns if c not in fixed]
    panels: List[Tuple[str, List[str]]] = []
    if states:
        panels.append(("agents per state", states))
        # Where each state has an output of its own, the outputs' panel would repeat the states'.
        if len(outputs) < len(states):
            panels.append(("agents per output", outputs))
    elif "leaders" in frame.columns:
        panels.append(("leaders (agents whose output is leader or yes)", ["leaders"]))
    panels.extend((str(c), [c]) for c in own)
    if not panels:
        raise ValueError("the frame has no column to draw: give a frame of poplab.trace")
    axes = _axes(ax, len(panels))
    time = frame["parallel_time"].to_numpy(dtype=float)
    for axis, (label, columns) in zip(axes, panels):
        for column in columns:
            name = column.split("=", 1)[1] if "=" in column else None
            axis.step(time, frame[column].to_numpy(dtype=float), where="post", label=name)
        axis.set_ylabel(label)
        if len(columns) > 1:
            axis.legend(fontsize="small", ncol=min(4, len(columns)))
    axes[-1].set_xlabel("parallel time (interactions / n)")
    record = frame.attrs.get("record")
    if record is not None:
        axes[0].set_title(f"trial {record.get('index', '')}: {record.get('outcome', '')}".strip())
    return axes[0] if len(axes) == 1 else axes


def plot_run(trials: pd.DataFrame, n: int, protocol: str, ax: Any = None) -> Any:
    """The fraction of trials converged by each parallel time (the empirical distribution, a step
    curve); censored trials never converge, so the curve ends below 1 when some are."""
    [axis] = _axes(ax)
    ended = np.sort(trials.loc[trials["outcome"] == "converged", "parallel_time"].to_numpy(dtype=float))
    total = len(trials)
    if total == 0:
        raise ValueError("the run has no trial to draw")
    if ended.size:
        times = np.concatenate([[0.0], ended])
        fraction = np.arange(ended.size + 1) / total
        axis.step(times, fraction, where="post")
        if ended[0] > 0 and ended[-1] / ended[0] > 100:
            axis.set_xscale("log")
            _plain_log_ticks(axis, "x")
    axis.set_ylim(0, 1.02)
    axis.set_xlabel("parallel time (interactions / n)")
    axis.set_ylabel("fraction of trials converged")
    censored = int((trials["outcome"] == "censored").sum())
    note = f", {censored} censored" if censored else ""
    axis.set_title(f"{protocol}, n = {n}: {total} trials{note}")
    return axis


def plot_sweep(
    trials: pd.DataFrame,
    params: Sequence[str],
    fits: Sequence[Dict[str, Any]],
    ax: Any = None,
) -> Any:
    """Mean parallel time against n on log-log axes, per combination of parameters: the mean of
    the converged trials with its bootstrap interval (cells with censored trials have no mean and
    are left out, as in the fits), and the fitted power law ``c n^e`` as a smooth curve."""
    [axis] = _axes(ax)
    groups = trials.groupby(list(params), sort=True) if params else [((), trials)]
    fit_of = {fit["params"]: fit for fit in fits}
    for key, group in groups:
        values = key if isinstance(key, tuple) else (key,)
        label = " ".join(f"{p}={v}" for p, v in zip(params, values))
        xs, means, lows, highs = [], [], [], []
        for n, cell in group.groupby("n", sort=True):
            if (cell["outcome"] == "censored").any():
                continue
            times = cell.loc[cell["outcome"] == "converged", "parallel_time"].to_numpy(dtype=float)
            if times.size == 0:
                continue
            low, high = bootstrap_mean_interval(times)
            xs.append(float(n))
            means.append(float(times.mean()))
            lows.append(low)
            highs.append(high)
        if not xs:
            continue
        mean = np.asarray(means)
        errors = np.vstack([mean - np.asarray(lows), np.asarray(highs) - mean])
        shown = axis.errorbar(xs, mean, yerr=errors, fmt="o", capsize=3, label=label or "mean, 95% bootstrap interval")
        fit = fit_of.get(_fit_label(params, values, fits))
        power = fit.get("power_law") if fit else None
        if power and len(xs) >= 2:
            grid = np.geomspace(min(xs), max(xs), _CURVE_POINTS)
            curve = power["coefficient"] * grid ** power["exponent"]
            fit_label = f"fit ${power['coefficient']:.3g}\\,n^{{{power['exponent']:.2f}}}$"
            axis.plot(grid, curve, color=shown[0].get_color(), linewidth=1, label=fit_label)
    axis.set_xscale("log")
    axis.set_yscale("log")
    _plain_log_ticks(axis, "x")
    _plain_log_ticks(axis, "y")
    axis.set_xlabel("n (agents)")
    axis.set_ylabel("mean parallel time (interactions / n)")
    axis.legend(fontsize="small")
    return axis


def _fit_label(params: Sequence[str], values: Sequence[Any], fits: Sequence[Dict[str, Any]]) -> str:
    """The ``params`` label of ``fits.json`` for a combination: ``k=v`` joined by spaces, in the
    library's order (the order of the labels that name every one of these parameters)."""
    pairs = dict(zip(params, values))
    for fit in fits:
        label = fit["params"]
        parts = dict(part.split("=", 1) for part in label.split(" ") if "=" in part)
        if set(parts) == set(pairs) and all(_same(parts[k], v) for k, v in pairs.items()):
            return label
    return ""


def _same(text: str, value: Any) -> bool:
    """Whether the library's text of a parameter value is ``value``."""
    if str(value) == text:
        return True
    try:
        return float(text) == float(value)
    except (TypeError, ValueError):
        return False


class _TracePlot(pd.plotting.PlotAccessor):
    """``frame.plot()`` draws the trace as a paper does (`plot_trace`); with arguments, and as
    ``frame.plot.line(...)`` and the like, it is pandas' own."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not args and set(kwargs) <= {"ax"}:
            return plot_trace(self._parent, ax=kwargs.get("ax"))
        return super().__call__(*args, **kwargs)


class TraceFrame(pd.DataFrame):
    """The DataFrame `trace` returns: a pandas DataFrame whose ``plot()`` without arguments
    draws the configuration over time as step curves (`plot_trace`)."""

    @property
    def _constructor(self) -> Any:
        return TraceFrame

    @property
    def plot(self) -> _TracePlot:  # type: ignore[override]
        return _TracePlot(self)
