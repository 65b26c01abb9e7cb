"""The rest of ppsim's `Simulation` API, mixed into poplab's `Simulation`: the rule and its
reactions (``rule``, ``reactions``, ``enabled_reactions``, ``null_probability``), changing and
sampling configurations (``set_config``, ``sample_future_configuration``, ``time_to_steps``) and
snapshots (``add_snapshot``, ``set_snapshot_index``, ``set_snapshot_time``, ``snapshot_slider``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Dict, List, Tuple, Union

import numpy as np
import pandas as pd

from . import _poplab, _reachable
from ._snapshot import Snapshot

#: Mixes the seed of a trial into the seeds of ``sample_future_configuration``'s samples.
_SAMPLE_STREAMS = 0x5DEECE66D


def _count(state: Any, amount: Any) -> int:
    """A count of ``init_config``: a whole number (ppsim's examples write ``0.501 * n``)."""
    if isinstance(amount, bool) or not isinstance(amount, (int, float, np.integer, np.floating)):
        raise TypeError(f"init_config: the count of state {state!r} must be a number, not {amount!r}")
    count = int(round(float(amount))) if not isinstance(amount, (int, np.integer)) else int(amount)
    if abs(float(amount) - count) > 1e-6 * max(1.0, abs(float(amount))) or count < 0:
        raise ValueError(f"init_config: the count of state {state!r} is {amount!r}; give a whole number of agents >= 0")
    return count


class PpsimViews:
    """ppsim's methods on the rule, the configuration and snapshots (a part of `Simulation`)."""

    # The rule and its reactions.

    def rule(self, a: Any, b: Any) -> Any:
        """ppsim's ``rule(a, b)``: what the rule gives for the ordered pair ``(a, b)``, as given (a
        pair, a law ``{(c, d): p}``, or None for a pair a dict rule lacks; a rule function that
        returns None gives its, possibly mutated, arguments). It gets copies of the states.

        >>> from poplab import Simulation
        >>> sim = Simulation({"A": 5, "B": 5}, {("A", "B"): ("U", "U")}, seed=1)
        >>> sim.rule("A", "B"), sim.rule("B", "A")
        (('U', 'U'), None)
        """
        return self._ppsim_rule.raw(a, b)

    def time_to_steps(self, time: float) -> int:
        """ppsim's ``time_to_steps``: the number of interactions in ``time`` units of parallel
        time, ``floor(time * steps_per_time_unit)``.

        >>> from poplab import Simulation
        >>> Simulation({"L": 1000}, {("L", "L"): ("L", "F")}, seed=1).time_to_steps(2.5)
        2500
        """
        return math.floor(time * self.steps_per_time_unit)

    def _one_way(self) -> Any:
        """The results of single orders of pairs: from the enumeration when it kept them all."""
        self._ensure_enumerated()
        if getattr(self, "_results_complete", False):
            return lambda a, b: self._results.get((a, b))
        memo: Dict[Tuple[Any, Any], Any] = {}

        def one_way(a: Any, b: Any) -> Any:
            if (a, b) not in memo:
                memo[(a, b)] = self._ppsim_rule.one_way(a, b)
            return memo[(a, b)]

        return one_way

    def _reaction_list(self, states: List[Any]) -> List[_reachable.Reaction]:
        one_way = self._one_way()
        return _reachable.reactions(states, lambda a, b: self._ppsim_rule.applied(a, b, one_way))

    def _format(self, reactions: List[_reachable.Reaction]) -> str:
        states = self.state_list
        index = {state: i for i, state in enumerate(states)}
        width = max(len(str(state)) for state in states)
        return "\n".join(_reachable.reaction_string(r, index, width) for r in reactions)

    def _all_reactions(self) -> List[_reachable.Reaction]:
        states = self.state_list
        if self._reactions is None or self._reactions[0] != len(states):
            self._reactions = (len(states), self._reaction_list(states))
        return self._reactions[1]

    @property
    def reactions(self) -> str:
        """ppsim's ``reactions``: the non-null reactions among the states of ``state_list``, one a
        line, in ppsim's notation and order: ``a, b  -->  c, d`` (reactants and products each in
        the order of ``state_list``), followed by ``with probability p`` when a meeting of the two
        reacts so with probability ``p < 1``: a law's probability, halved when only one order of
        the pair reacts (or the two orders react differently), as ppsim counts unordered pairs.

        >>> from poplab import Simulation
        >>> majority = {("A", "B"): ("U", "U"), ("A", "U"): ("A", "A"), ("B", "U"): ("B", "B")}
        >>> print(Simulation({"A": 6, "B": 4}, majority, seed=1).reactions)
        A, B  -->  U, U
        A, U  -->  A, A
        B, U  -->  B, B
        >>> print(Simulation({"A": 6, "B": 4}, majority, transition_order="asymmetric", seed=1).reactions)
        A, B  -->  U, U      with probability 0.5
        A, U  -->  A, A      with probability 0.5
        B, U  -->  B, B      with probability 0.5
        """
        return self._format(self._all_reactions())

    @property
    def enabled_reactions(self) -> str:
        """ppsim's ``enabled_reactions``: the lines of ``reactions`` whose reactants are present
        now (two agents of a state that reacts with itself).

        >>> from poplab import Simulation
        >>> majority = {("A", "B"): ("U", "U"), ("A", "U"): ("A", "A"), ("B", "U"): ("B", "B")}
        >>> sim = Simulation({"A": 6, "U": 4}, majority, seed=1)
        >>> print(sim.enabled_reactions)
        A, U  -->  A, A
        """
        counts = self.config_dict
        enabled = [
            r for r in self._all_reactions()
            if (counts.get(r[0], 0) >= 2 if r[0] == r[1] else counts.get(r[0], 0) >= 1 and counts.get(r[1], 0) >= 1)
        ]
        return self._format(enabled)

    @property
    def null_probability(self) -> float:
        """ppsim's ``null_probability``: the probability that the next interaction (a uniformly
        random pair of agents of the complete graph) changes nothing.

        Raises:
            ValueError: a simulation on another graph.

        Approximate majority with ``a``, ``b``, ``u`` agents of A, B, U: an interaction is non-null
        when it meets A with B, A with U or B with U.

        >>> from poplab import Simulation
        >>> majority = {("A", "B"): ("U", "U"), ("A", "U"): ("A", "A"), ("B", "U"): ("B", "B")}
        >>> sim = Simulation({"A": 5, "B": 3, "U": 2}, majority, seed=1)
        >>> sim.null_probability == 1 - (5 * 3 + 5 * 2 + 3 * 2) / (10 * 9 / 2)
        True
        """
        if self.graph not in (None, "complete"):
            raise ValueError("null_probability is that of the complete graph's uniformly random pairs; this simulation "
                             f"runs on graph {self.graph!r}")
        counts = self.config_dict
        present = [state for state in self.state_list if counts.get(state, 0) > 0]
        propensity = _reachable.non_null_propensity(self._reaction_list(present), counts)
        agents = sum(counts.values())
        return 1.0 - propensity / (agents * (agents - 1) / 2)

    # Changing and sampling the configuration.

    def _as_config(self, config: Union[Mapping, np.ndarray, List[int]]) -> Dict[Any, int]:
        if isinstance(config, Mapping):
            return {state: _count(state, amount) for state, amount in config.items()}
        counts = np.asarray(config)
        states = self.state_list
        if counts.shape != (len(states),):
            raise ValueError(f"set_config: an array of counts needs one count per state of state_list ({len(states)}), "
                             f"not shape {counts.shape}")
        return {state: _count(state, amount) for state, amount in zip(states, counts.tolist())}

    def set_config(self, config: Union[Mapping, np.ndarray, List[int]]) -> None:
        """ppsim's ``set_config``: the configuration becomes ``config`` (a dict ``{state: count}``
        or counts in the order of ``state_list``) at the current time, which is recorded in
        ``history``. The number of agents may change; the time unit stays ``n`` interactions (the
        initial configuration's n, as in ppsim). The run goes on on fresh random streams.

        Raises:
            ValueError: fewer than 2 agents, or an array of the wrong length.

        >>> from poplab import Simulation
        >>> sim = Simulation({"L": 100}, {("L", "L"): ("L", "F")}, seed=1)
        >>> sim.run(1)
        >>> sim.set_config({"L": 50, "F": 49})
        >>> sim.config_dict, sim.time, sim.population
        ({'L': 50, 'F': 49}, 1.0, 99)
        >>> sim.run(1)
        >>> sim.time, sum(sim.config_dict.values())
        (2.0, 99)
        """
        counts = self._as_config(config)
        step = self._step()
        self._trial += 1
        live = self._new_live(counts, _poplab.trial_seed(self.seed, self._trial))
        self._live, self._offset = live, step
        self._population = sum(counts.values())
        self._record(step, live.counts())

    def sample_future_configuration(self, time: float, num_samples: int = 100) -> pd.DataFrame:
        """ppsim's ``sample_future_configuration``: ``num_samples`` independent samples of the
        configuration ``time`` units of parallel time after the current one, as a DataFrame with a
        row per sample (index ``trial #``) and the columns of ``history``. The simulation itself
        does not move (ppsim's is left at its last sample).

        >>> from poplab import Simulation
        >>> sim = Simulation({"L": 100}, {("L", "L"): ("L", "F")}, seed=1)
        >>> samples = sim.sample_future_configuration(5, num_samples=20)
        >>> samples.shape, samples.index.name, bool((samples.sum(axis=1) == 100).all()), sim.time
        ((20, 2), 'trial #', True, 0.0)
        """
        if not (isinstance(num_samples, (int, np.integer)) and num_samples >= 0):
            raise ValueError(f"num_samples must be a whole number >= 0, not {num_samples!r}")
        if not time >= 0:
            raise ValueError(f"time = {time}: give a time >= 0")
        steps = self.time_to_steps(time)
        current = self.config_dict
        base = _poplab.trial_seed(self.seed, self._trial) ^ _SAMPLE_STREAMS
        draws = getattr(self, "_draws", 0)
        rows = []
        for k in range(num_samples):
            live = self._new_live(current, _poplab.trial_seed(base, draws + k))
            live.advance(steps, "silent", False)
            state = self.protocol._state
            rows.append((k, {state(name): count for name, count in live.counts()}))
        self._draws = draws + num_samples
        return self._frame(rows, "trial #")

    # Snapshots.

    def add_snapshot(self, snap: Snapshot) -> None:
        """ppsim's ``add_snapshot``: ``snap`` (a `Snapshot`, such as a `StatePlotter`) shows this
        simulation, now and while it runs."""
        snap.simulation = self
        snap.initialize()
        snap.update()
        self.snapshots.append(snap)

    def set_snapshot_index(self, index: int) -> None:
        """Every snapshot shows the recorded configuration ``configs[index]``."""
        for snapshot in self.snapshots:
            snapshot.update(index=index)

    def set_snapshot_time(self, time: float) -> None:
        """Every snapshot shows the first recorded configuration at ``time`` or later (the last
        one past the end).

        >>> from poplab import Simulation, Snapshot
        >>> sim = Simulation({"L": 100}, {("L", "L"): ("L", "F")}, seed=1)
        >>> snap = Snapshot()
        >>> sim.add_snapshot(snap)
        >>> sim.run(3, history_interval=0.5)
        >>> sim.set_snapshot_time(1.2)
        >>> snap.time
        1.5
        """
        index = min(int(np.searchsorted(self.times, time)), len(self.times) - 1)
        self.set_snapshot_index(index)

    def snapshot_slider(self, var: str = "index") -> Any:
        """ppsim's ``snapshot_slider``: an ipywidgets slider over the recorded configurations (by
        ``'index'`` or by ``'time'``) that updates every snapshot.

        Raises:
            ImportError: ipywidgets is not installed (``set_snapshot_index`` and
                ``set_snapshot_time`` do the same without it).
            ValueError: ``var`` is neither ``'index'`` nor ``'time'``.
        """
        if var.lower() not in ("index", "time"):
            raise ValueError("var must be either 'index' or 'time'")
        try:
            import ipywidgets as widgets
        except ImportError as e:
            raise ImportError("snapshot_slider needs ipywidgets (pip install ipywidgets); without it, "
                              "set_snapshot_index(i) and set_snapshot_time(t) update the snapshots") from e
        layout = widgets.Layout(width="100%")
        if var.lower() == "index":
            slider = widgets.IntSlider(min=0, max=len(self.times) - 1, step=1, layout=layout)
            return widgets.interactive(self.set_snapshot_index, index=slider)
        slider = widgets.FloatSlider(min=self.times[0], max=self.times[-1], step=0.01, layout=layout)
        return widgets.interactive(self.set_snapshot_time, time=slider)
