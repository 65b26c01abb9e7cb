"""ppsim's ``time_trials`` on poplab's `Simulation`."""

from __future__ import annotations

import math
import time as _time
from collections.abc import Mapping
from typing import Any, Callable, Dict, List, Union

import pandas as pd

from ._simulation import RunUntil, Simulation


def time_trials(
    rule: Any,
    ns: List[int],
    initial_conditions: Union[Callable[[int], Mapping], List[Mapping]],
    convergence_condition: RunUntil = None,
    convergence_check_interval: float = 0.1,
    num_trials: int = 100,
    max_wallclock_time: float = 60 * 60 * 24,
    **kwargs: Any,
) -> pd.DataFrame:
    """ppsim's ``time_trials``: the time to ``convergence_condition`` (``None``: silence; a stop
    rule name: that rule, exactly; a function of the configuration: checked every
    ``convergence_check_interval``) over up to ``num_trials`` trials per n, within
    ``max_wallclock_time`` seconds shared out over the ns as ppsim does. Returns a DataFrame with
    columns ``n`` and ``time``. ``kwargs`` go to ``Simulation`` (``seed=`` makes it reproducible).

    >>> from poplab import time_trials
    >>> rule = {("L", "L"): ("L", "F")}
    >>> frame = time_trials(rule, [10, 100], lambda n: {"L": n}, num_trials=50, seed=1)
    >>> frame.groupby("n").size().tolist()
    [50, 50]
    >>> means = frame.groupby("n")["time"].mean()       # (n - 1)^2 / n expected
    >>> bool(abs(means[100] / (99**2 / 100) - 1) < 0.3)
    True
    """
    data: Dict[str, List[Any]] = {"n": [], "time": []}
    end = _time.perf_counter() + max_wallclock_time
    if callable(initial_conditions):
        initial_conditions = [initial_conditions(n) for n in ns]
    for i, n in enumerate(ns):
        sim = Simulation(initial_conditions[i], rule, **kwargs)
        start = _time.perf_counter()
        limit = start + (end - start) / (len(ns) - i)
        for j in range(num_trials):
            if j > 0:
                if _time.perf_counter() >= limit:
                    break
                sim.reset(initial_conditions[i])
            sim.run(convergence_condition, history_interval=math.inf, stopping_interval=convergence_check_interval)
            data["n"].append(n)
            data["time"].append(sim.time)
    return pd.DataFrame(data)
