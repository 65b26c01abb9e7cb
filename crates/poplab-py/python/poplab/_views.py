"""What a `Simulation` shows of its rule and its configurations, computed from what it passes in:
its rule's state space (`StateSpace`: the reachable states, enumerated on first use, and the
reactions among states), reactions in ppsim's notation (`reaction_lines`, `enabled`,
`null_probability`), configurations given as a dict or an array of counts (`count`, `as_config`),
the history (the steps a run records at, `history_steps`, and how many rows it may) and recorded
configurations as a DataFrame (`frame`).

Nothing here reads a `Simulation`: it passes its rule, its states, its counts and its rows, and its
public views (``state_list``, ``reactions``, ``enabled_reactions``, ``null_probability``,
``history``, ``set_config``, ...) return what these give.
"""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np
import pandas as pd

from . import _poplab, _reachable

if TYPE_CHECKING:
    from ._rule import _PpsimRule

#: The most reachable states whose rule results are kept from the enumeration for the reactions
#: (more are asked of the rule again).
_KEEP_RESULTS = 300

#: A configuration: ``{state: count}``.
Config = Dict[Any, int]


def count(state: Any, amount: Any) -> int:
    """A count of ``init_config``: a whole number (ppsim's examples write ``0.501 * n``)."""
    if isinstance(amount, bool) or not isinstance(amount, (int, float, np.integer, np.floating)):
        raise TypeError(f"init_config: the count of state {state!r} must be a number, not {amount!r}")
    whole = int(round(float(amount))) if not isinstance(amount, (int, np.integer)) else int(amount)
    if abs(float(amount) - whole) > 1e-6 * max(1.0, abs(float(amount))) or whole < 0:
        raise ValueError(f"init_config: the count of state {state!r} is {amount!r}; give a whole number of agents >= 0")
    return whole


def as_config(config: Union[Mapping, np.ndarray, List[int]], state_list: Callable[[], List[Any]]) -> Config:
    """``config`` as ``{state: count}``: a dict of counts, or counts in the order of the states
    ``state_list()`` gives (``set_config``'s two forms; it is called for an array only, since it
    may enumerate the states)."""
    if isinstance(config, Mapping):
        return {state: count(state, amount) for state, amount in config.items()}
    counts = np.asarray(config)
    states = state_list()
    if counts.shape != (len(states),):
        raise ValueError(f"set_config: an array of counts needs one count per state of state_list ({len(states)}), "
                         f"not shape {counts.shape}")
    return {state: count(state, amount) for state, amount in zip(states, counts.tolist())}


def natural_key(state: Any) -> List[Tuple[int, Any]]:
    """ppsim's order of states (natsort on ``repr``): digits compare as numbers."""
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", repr(state))]


class StateSpace:
    """The states a ppsim rule reaches from a simulation's initial states, enumerated on first use,
    and the reactions among states: what ``state_list`` and the reactions show.

    It keeps what the enumeration found (``reachable``: the states in the order found, or None past
    the limit; the rule's results when the states are few, which the run then takes instead of
    asking the rule again) and the reactions it listed last. A simulation pickles ``reachable``
    and ``enumerated`` and builds the space again from them.
    """

    def __init__(
        self, rule: _PpsimRule, initial: List[Any], reachable: Optional[List[Any]] = None, enumerated: bool = False
    ):
        self.rule = rule
        self.initial = initial
        self.reachable = reachable
        self.enumerated = enumerated
        self._results: Dict[Tuple[Any, Any], Any] = {}
        self._results_complete = False
        self._reactions: Optional[Tuple[int, List[_reachable.Reaction]]] = None
        self._sorted: Optional[Tuple[Tuple[int, bool], List[Any]]] = None

    def states(self, met: List[Any], limit: int) -> List[Any]:
        """ppsim's ``state_list``: the reachable states (enumerated the first time, with at most
        ``limit`` of them) and any of ``met`` (the states met so far) beyond them, or ``met`` alone
        past the limit, in ppsim's order."""
        if not self.enumerated:
            self._enumerate(limit)
            self.enumerated = True
        key = (len(met), self.reachable is None)
        if self._sorted is None or self._sorted[0] != key:
            states = list(met) if self.reachable is None else list(self.reachable)
            if self.reachable is not None and met:
                known = set(states)
                states += [s for s in met if s not in known]
            self._sorted = (key, sorted(states, key=natural_key))
        return list(self._sorted[1])

    def _enumerate(self, limit: int) -> None:
        rule = self.rule.rule
        initial = list(self.initial)
        if isinstance(rule, Mapping):
            for (a, b), result in rule.items():
                initial += [a, b] + [s for pair, _ in _reachable.outcomes(result) for s in pair]
        try:
            found = _reachable.reachable_states(initial, self.rule.one_way, limit)
        except Exception as e:
            raise _poplab.RuleError(f"the rule failed while the reachable states were enumerated: {type(e).__name__}: {e}") from e
        self._reactions = None
        self._results, self._results_complete = {}, False
        if found is None:
            warnings.warn(
                f"more than {limit} states are reachable (Simulation.MAX_ENUMERATED_STATES): "
                "state_list lists the states met so far (states_met), and grows as the simulation runs",
                stacklevel=4,
            )
            self.reachable = None
            return
        self.reachable, results = found
        if len(self.reachable) <= _KEEP_RESULTS:
            self._results, self._results_complete = results, True
            self.rule.remember(self.reachable, results)

    def _one_way(self) -> Callable[[Any, Any], Any]:
        """The results of single orders of pairs: from the enumeration when it kept them all."""
        if self._results_complete:
            return lambda a, b: self._results.get((a, b))
        memo: Dict[Tuple[Any, Any], Any] = {}

        def one_way(a: Any, b: Any) -> Any:
            if (a, b) not in memo:
                memo[(a, b)] = self.rule.one_way(a, b)
            return memo[(a, b)]

        return one_way

    def reactions(self, states: List[Any]) -> List[_reachable.Reaction]:
        """The non-null reactions among ``states`` (the transition order applied), in ppsim's order."""
        one_way = self._one_way()
        return _reachable.reactions(states, lambda a, b: self.rule.applied(a, b, one_way))

    def all_reactions(self, state_list: List[Any]) -> List[_reachable.Reaction]:
        """`reactions` among ``state_list`` (ppsim's ``state_list``, which only grows), kept until it
        grows."""
        if self._reactions is None or self._reactions[0] != len(state_list):
            self._reactions = (len(state_list), self.reactions(state_list))
        return self._reactions[1]


def reaction_lines(reactions: List[_reachable.Reaction], states: List[Any]) -> str:
    """``reactions`` one a line in ppsim's notation, each state numbered and padded by ``states``."""
    index = {state: i for i, state in enumerate(states)}
    width = max(len(str(state)) for state in states)
    return "\n".join(_reachable.reaction_string(r, index, width) for r in reactions)


def enabled(reactions: List[_reachable.Reaction], counts: Config) -> List[_reachable.Reaction]:
    """The ``reactions`` whose reactants are present in ``counts`` (two agents of a state that
    reacts with itself)."""
    return [
        r for r in reactions
        if (counts.get(r[0], 0) >= 2 if r[0] == r[1] else counts.get(r[0], 0) >= 1 and counts.get(r[1], 0) >= 1)
    ]


def null_probability(reactions: List[_reachable.Reaction], counts: Config) -> float:
    """The probability that a uniformly random pair of the agents of ``counts`` (on the complete
    graph) changes nothing, given the ``reactions`` among the states present."""
    agents = sum(counts.values())
    return 1.0 - _reachable.non_null_propensity(reactions, counts) / (agents * (agents - 1) / 2)


# The history: the steps a run records at, and how many rows it may.

#: A step no run reaches (history_interval=math.inf records the start and the end only).
_NEVER = 1 << 127

#: The most rows one run adds to ``history``: refused up front when the end is known, else the run
#: stops with ``ValueError`` once it has recorded this many (or as many as fit in memory, at about
#: ``_ROW_BYTES`` per state present, if fewer).
MAX_HISTORY_ROWS = 10**8

#: The memory a recorded row takes per state (a Python tuple of a name and a count, and its share
#: of the row's list), an estimate on the high side.
_ROW_BYTES = 160


def history_limit(states: int) -> int:
    """The most rows one run may record: ``MAX_HISTORY_ROWS``, or fewer if they would not fit in
    the memory available (``poplab``'s own measure: the smallest of MemAvailable, ``ulimit -v`` and
    the cgroup's limit)."""
    return max(1, min(MAX_HISTORY_ROWS, _poplab.available_memory() // (_ROW_BYTES * (states + 1))))


def check_history(interval: Any, start: float, end_step: Optional[int], n: int) -> None:
    """Refuses a numeric ``history_interval`` that is not a number > 0, or one that would record
    more than ``MAX_HISTORY_ROWS`` rows before a known end (``run(100, 1e-12)``: 10^14 rows)."""
    if callable(interval):
        return
    if isinstance(interval, bool) or not isinstance(interval, (int, float)):
        raise TypeError(f"history_interval must be a number > 0 or a function of the time, not {interval!r}")
    if not interval > 0:
        raise ValueError(f"history_interval = {interval}: give a number > 0 (math.inf records the end only)")
    if end_step is not None and math.isfinite(interval):
        rows = (end_step / n - start) / interval
        if rows > MAX_HISTORY_ROWS:
            raise ValueError(
                f"history_interval = {interval} would record about {rows:.3g} rows of history over this run, more "
                f"than {MAX_HISTORY_ROWS}; raise history_interval"
            )


def history_times(start: float, interval: Union[float, Callable[[float], float]], limit: int) -> Iterator[float]:
    """The times at which to record: ppsim's ``start + k interval`` (for a function of the time,
    each interval is its value at the time recorded last); at most ``limit`` of them, then
    ``ValueError`` (which stops the run at the end of its piece)."""
    t, k = start, 0
    while True:
        if k == limit:
            raise ValueError(
                f"history_interval = {interval!r}: this run has recorded {limit} rows of history, the most one run "
                f"records (at most {MAX_HISTORY_ROWS}, and no more than fit in memory at about {_ROW_BYTES} bytes per "
                "state a row); raise history_interval, or give run a time to run for"
            )
        length = interval(t) if callable(interval) else interval
        if not length > 0:
            raise ValueError("history_interval must always be > 0")
        k += 1
        t = t + length if callable(interval) else start + k * length
        yield t


def history_steps(
    start: float, interval: Union[float, Callable[[float], float]], n: int, limit: int
) -> Iterator[int]:
    """The steps at which to record, as ``floor(time n)``, at the times of `history_times`."""
    for t in history_times(start, interval, limit):
        yield math.floor(t * n) if math.isfinite(t) else _NEVER


def frame(rows: List[Tuple[Any, Config]], states: List[Any], index_name: str) -> pd.DataFrame:
    """Configurations as a DataFrame: a row per ``(key, {state: count})`` of ``rows``, indexed by
    the keys (named ``index_name``), a column per state of ``states`` (ppsim's `columns`)."""
    column = {state: i for i, state in enumerate(states)}
    data = np.zeros((len(rows), len(states)), dtype=np.int64)
    for r, (_, config) in enumerate(rows):
        for state, amount in config.items():
            data[r, column[state]] = amount
    index = pd.Index([key for key, _ in rows], name=index_name)
    return pd.DataFrame(data, index=index, columns=columns(states))


def columns(states: List[Any]) -> Union[pd.MultiIndex, List[str]]:
    """ppsim's column names: a MultiIndex of the fields for states with several (dataclasses,
    named tuples, tuples), else ``str(state)``."""
    if states:
        first = states[0]
        if dataclasses.is_dataclass(first) and not isinstance(first, type):
            fields = [f.name for f in dataclasses.fields(first)]
            if len(fields) > 1 and all(type(s) is type(first) for s in states):
                return pd.MultiIndex.from_tuples([dataclasses.astuple(s) for s in states], names=fields)
        names = getattr(first, "_fields", None)
        if isinstance(first, tuple) and len(first) > 1 and all(
            isinstance(s, tuple) and len(s) == len(first) for s in states
        ):
            return pd.MultiIndex.from_tuples(states, names=list(names) if names else None)
    return [str(s) for s in states]
