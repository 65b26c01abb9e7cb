"""ppsim's API on poplab's engines: `Simulation` and `time_trials`.

``from poplab import Simulation`` in place of ``from ppsim import Simulation`` runs code written
for ppsim (Doty & Severson) unchanged: the same constructor, ``run``, ``history``,
``config_dict`` and so on. The differences are listed in the package README ("Coming from ppsim").
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
import secrets
import time as _time
import warnings
from collections.abc import Mapping
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np
import pandas as pd

from . import _poplab, _reachable
from ._api import _MAX_AGENTS, _MAX_AGENTS_TEXT, _graph, _whole
from ._protocol import Protocol, _copy
from ._snapshot import Snapshot, TimeUpdate
from ._views import PpsimViews, _count
from .crn import CRNNotSupported

#: What ``transition_order`` takes.
TRANSITION_ORDERS = ("asymmetric", "symmetric", "symmetric_enforced")

#: ppsim's ``simulator_method`` names and the engines that play their part.
SIMULATOR_METHODS = {"multibatch": "batched", "gillespie": "counts", "sequential": "agents"}

#: The most reachable states whose rule results are kept from the enumeration for ``reactions``
#: (more are asked of the rule again).
_KEEP_RESULTS = 300

#: The exact stop rules ``run`` takes by name (silence always stops a run too).
STOP_RULES = ("silent", "one-leader", "consensus", "all-yes", "all-no")

Config = Dict[Any, int]

#: A step no run reaches (history_interval=math.inf records the start and the end only).
_NEVER = 1 << 127
RunUntil = Union[None, float, int, str, Callable[[Config], bool]]


def _is_null(result: Tuple[Any, Any], a: Any, b: Any, swaps: bool) -> bool:
    """ppsim's null test: the pair's states come out as they went in, in either order when
    ``swaps`` (on the complete graph, where a swap changes nothing)."""
    c, d = result
    return (c == a and d == b) or (swaps and c == b and d == a)


class _PpsimRule:
    """A ppsim rule as a poplab rule: ``rule(a, b)`` returns ``None`` (null), a pair, or a law.

    ppsim's conventions: a function gets copies of the states and extra keyword arguments; one
    returning ``None`` gives its (possibly mutated) arguments back; a dict's missing pairs are null;
    a pair that comes out unchanged is null, and so is a swap on the complete graph (on other graphs
    a swap moves states along an arc); a law's missing probability is null.
    With ``transition_order='symmetric'`` a null ordered pair takes the other order's result (the
    initiator of ``(a, b)`` plays the part of ``b``'s agent: ``(b, a) -> (c, d)`` gives
    ``(a, b) -> (d, c)``); ``'symmetric_enforced'`` also refuses two non-null orders that disagree.
    """

    #: It copies the states it gives the user's rule (the registry need not).
    copies_arguments = True

    def __init__(self, rule: Any, kwargs: Dict[str, Any], order: str, swaps_are_null: bool):
        if order not in TRANSITION_ORDERS:
            raise ValueError(f"transition_order must be one of {', '.join(TRANSITION_ORDERS)}, not {order!r}")
        if isinstance(rule, Mapping):
            if kwargs:
                raise TypeError(f"keyword arguments {sorted(kwargs)} go with a rule function, not a dict rule")
            self.call: Callable[[Any, Any], Any] = lambda a, b: rule.get((a, b))
        elif callable(rule):

            def call(a: Any, b: Any) -> Any:
                result = rule(a, b, **kwargs)
                return (a, b) if result is None else result

            self.call = call
        else:
            if isinstance(rule, (list, tuple, set)):
                raise CRNNotSupported(f"a rule given as a {type(rule).__name__}, as ppsim's list of reactions")
            raise TypeError(
                f"rule must be a dict {{(a, b): (c, d)}} or a function rule(a, b), not {type(rule).__name__}"
            )
        self.order = order
        self.swaps = swaps_are_null
        self.rule, self.kwargs = rule, kwargs
        self._known: Optional[Tuple[frozenset, Dict[Tuple[Any, Any], Any]]] = None

    def remember(self, states: List[Any], results: Dict[Tuple[Any, Any], Any]) -> None:
        """Answers :meth:`one_way` from an enumeration's ``results`` (the non-null ones) wherever both
        states are among ``states``, every ordered pair of which the enumeration met: the run then
        calls the user's rule only for states outside them."""
        self._known = (frozenset(states), results)

    def __repr__(self) -> str:
        return repr(self.rule)

    def __getstate__(self) -> Dict[str, Any]:
        return {"rule": self.rule, "kwargs": self.kwargs, "order": self.order, "swaps": self.swaps}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(state["rule"], state["kwargs"], state["order"], state["swaps"])  # type: ignore[misc]

    def one_way(self, a: Any, b: Any) -> Any:
        """The result of ``(a, b)`` alone: None, a pair, or a law without null entries."""
        if self._known is not None and a in self._known[0] and b in self._known[0]:
            return self._known[1].get((a, b))
        result = self.call(_copy(a), _copy(b))
        if result is None:
            return None
        if isinstance(result, Mapping):
            law = {}
            for pair, p in result.items():
                c, d = pair
                if not _is_null((c, d), a, b, self.swaps) and p > 0:
                    law[(c, d)] = law.get((c, d), 0.0) + float(p)
            if not law:
                return None
            if len(law) == 1 and next(iter(law.values())) >= 1.0:
                return next(iter(law))
            return law
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(f"expected a pair of states, None or a dict {{(c, d): probability}}, got {result!r}")
        c, d = result
        return None if _is_null((c, d), a, b, self.swaps) else (c, d)

    def raw(self, a: Any, b: Any) -> Any:
        """ppsim's ``sim.rule(a, b)``: what the user's rule gives for the ordered pair, as
        it gives it (a dict rule's missing pair: None; a function returning None: its arguments)."""
        return self.call(_copy(a), _copy(b))

    def applied(self, a: Any, b: Any, one_way: Callable[[Any, Any], Any]) -> Any:
        """The result of ``(a, b)`` once the transition order is applied, from the results of single
        orders ``one_way`` (without the check of ``'symmetric_enforced'``)."""
        result = one_way(a, b)
        if self.order == "asymmetric" or a == b or result is not None:
            return result
        return _swapped(one_way(b, a))

    def __call__(self, a: Any, b: Any) -> Any:
        result = self.one_way(a, b)
        if self.order == "asymmetric" or a == b:
            return result
        if result is None:
            return _swapped(self.one_way(b, a))
        if self.order != "symmetric_enforced":
            return result
        other = self.one_way(b, a)
        if other is not None and not _same_outcomes(result, other):
            raise ValueError(f"asymmetric interaction: ({a!r}, {b!r}) -> {result!r} but ({b!r}, {a!r}) -> {other!r}")
        return result


def _swapped(result: Any) -> Any:
    if result is None:
        return None
    if isinstance(result, Mapping):
        return {(d, c): p for (c, d), p in result.items()}
    c, d = result
    return d, c


def _same_outcomes(x: Any, y: Any) -> bool:
    """Whether two results give the same unordered pairs with the same probabilities."""

    def unordered(result: Any) -> Dict[Any, float]:
        law = result if isinstance(result, Mapping) else {result: 1.0}
        out: Dict[Any, float] = {}
        for (c, d), p in law.items():
            key = tuple(sorted([repr(c), repr(d)]))
            out[key] = out.get(key, 0.0) + p
        return out

    return unordered(x) == unordered(y)


def _natural_key(state: Any) -> List[Tuple[int, Any]]:
    """ppsim's order of states (natsort on ``repr``): digits compare as numbers."""
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", repr(state))]


class Simulation(PpsimViews):
    """A population protocol simulated one trial at a time, with ppsim's API on poplab's engines.

    ``init_config`` maps states to counts (``n`` is their sum); the rule (argument ``rule=``) is a dict
    ``{(a, b): (c, d)}`` or a function ``rule(a, b, **rule_kwargs)`` returning a pair, ``None``
    (its arguments as they are now: null unless it mutated them) or a law ``{(c, d): p}``.
    ``transition_order`` is ppsim's (``'symmetric'`` by default). ``seed`` fixes the run (``None``:
    a random seed, kept in ``self.seed``).

    Beyond ppsim: ``graph`` (``None``/``"complete"``, ``"ring"``, ``"undirected-ring"`` or a path to
    an arc list), ``engine`` (``"auto"``: batched on the complete graph, agents on other graphs;
    ``"agents"``, ``"counts"``, ``"batched"``), ``output`` (a function or dict mapping a state to
    ``"leader"``, ``"follower"``, ``"yes"``, ``"no"``, ``"undecided"`` or True/False, for the
    exact stop rules of ``run(until=...)``), ``closed_stops`` and ``name``. ppsim's
    ``simulator_method`` picks an engine (``'MultiBatch'``: batched, ``'Sequential'``: agents,
    ``'Gillespie'``: counts).

    ``closed_stops=True`` declares that the stop rules ``run(until=...)`` is given are never left
    once they hold (as one leader when leaders are never created): the batched engine then checks
    them once per batch and replays the batch that enters one to find its exact interaction, instead
    of taking single steps while it watches (which is exact for any protocol, and slow at large n).
    A wrong declaration can miss a stop that is entered and left within one batch.

    Raises:
        TypeError: an ``init_config`` that is not a non-empty dict, or a rule that is neither a
            dict nor a function.
        ValueError: counts that are not whole numbers, fewer than 2 agents, an unknown
            ``transition_order``, ``simulator_method`` or ``engine``.
        CRNNotSupported: (a ``NotImplementedError``) ppsim's chemical reaction networks: a list of
            reactions as the rule, ``volume``, ``continuous_time``, ``time_units``.
        RuleError: the rule failed while the reachable states were enumerated (on first use of
            ``state_list``, not at construction).

    ``state_list`` is ppsim's: every state reachable from the initial states, enumerated on first
    use (of ``state_list``, ``config_array``, ``history``, the reactions; not by a run) by
    breadth-first search (each new state meets every state found, in both orders;
    a dict rule's states are all included, as in ppsim). When more than
    ``MAX_ENUMERATED_STATES`` states are reachable (or the set is unbounded), the search stops
    there with a ``UserWarning`` and ``state_list`` falls back to ``states_met``: the states met
    so far (initial ones and results of the rule), which grows as the simulation runs.

    Approximate majority among 10^5 agents, 60% in A:

    >>> from poplab import Simulation
    >>> rule = {("A", "B"): ("U", "U"), ("A", "U"): ("A", "A"), ("B", "U"): ("B", "B")}
    >>> sim = Simulation({"A": 60_000, "B": 40_000}, rule, seed=1)
    >>> sim
    Simulation(n=100000, time=0.000, states=3, seed=1)
    >>> sim.run(5, 1)                  # 5 units of parallel time, recorded every 1
    >>> sim.history.shape              # times 0, 1, ..., 5; columns A, B, U
    (6, 3)
    >>> sim.run()                      # on until silent
    >>> sim.config_dict
    {'A': 100000}

    A simulation pickles (``pickle``, ``copy.deepcopy``) and the copy goes on on the same
    trajectory: it holds the run's exact state (the snapshot ``poplab run --checkpoint`` writes),
    the history and the protocol. The rule and ``output`` must pickle for ``pickle``: a dict, or
    functions defined with ``def`` at the top level of a module (else ``TypeError`` says so);
    ``copy.deepcopy`` takes any.

    >>> import pickle
    >>> sim.reset()
    >>> sim.run(2)
    >>> saved = pickle.dumps(sim)
    >>> sim.run(3)
    >>> again = pickle.loads(saved)
    >>> again.run(3)
    >>> (again.steps, again.config_dict) == (sim.steps, sim.config_dict), again.history.equals(sim.history)
    (True, True)
    """

    #: The most states ``state_list`` enumerates (see above); a class attribute, set
    #: it (``Simulation.MAX_ENUMERATED_STATES = 5000``) for larger protocols: the search calls the
    #: rule about this many squared times.
    MAX_ENUMERATED_STATES = 1000

    def __init__(
        self,
        init_config: Mapping,
        rule: Any,
        *,
        simulator_method: Optional[str] = None,
        transition_order: str = "symmetric",
        seed: Optional[int] = None,
        graph: Optional[str] = None,
        engine: Optional[str] = None,
        output: Union[None, Mapping, Callable[[Any], Any]] = None,
        closed_stops: bool = False,
        name: Optional[str] = None,
        volume: Optional[float] = None,
        continuous_time: bool = False,
        time_units: Optional[str] = None,
        **rule_kwargs: Any,
    ):
        if volume is not None or continuous_time or time_units is not None:
            raise CRNNotSupported("volume, continuous_time and time_units")
        if not isinstance(init_config, Mapping) or not init_config:
            raise TypeError("init_config must be a non-empty dict {state: count}")
        self.engine = _engine(engine, simulator_method)
        self.graph = graph
        self.seed = secrets.randbits(63) if seed is None else _whole("seed", seed, 0, 2**64 - 1, "2**64 - 1")
        self.transition_order = transition_order
        self.closed_stops = bool(closed_stops)
        self._ppsim_rule = _PpsimRule(rule, rule_kwargs, transition_order, swaps_are_null=graph in (None, "complete"))
        self.protocol = Protocol(self._ppsim_rule, output=output, name=name or getattr(rule, "__name__", "protocol"))
        self.init_config = {state: _count(state, amount) for state, amount in init_config.items()}
        self.n = sum(self.init_config.values())
        if self.n < 2:
            raise ValueError(f"init_config has {self.n} agents; a population needs at least 2")
        if self.n > _MAX_AGENTS:
            raise ValueError(f"init_config has {self.n} agents, more than the {_MAX_AGENTS_TEXT} a simulation takes; give fewer")
        self.steps_per_time_unit = self.n
        self.snapshots: List[Snapshot] = []
        # The reachable states are enumerated on first use (_enumerated): a run that never reads
        # state_list, config_array, history or the reactions pays nothing for them.
        self._enumerated = False
        self._reachable: Optional[List[Any]] = None
        self._results: Dict[Tuple[Any, Any], Any] = {}
        self._results_complete = False
        self._reactions: Optional[Tuple[int, List[_reachable.Reaction]]] = None
        self._trial = 0
        self._start(self.init_config)

    # Starting, resetting.

    def _start(self, config: Mapping) -> None:
        self._offset = 0
        self._live = self._new_live(config, _poplab.trial_seed(self.seed, self._trial))
        self._population = sum(config.values())
        self._rows: List[Tuple[int, List[Tuple[str, int]]]] = []
        self._history: Optional[pd.DataFrame] = None
        self._record(self._step(), self._live.counts())

    def _new_live(self, config: Mapping, seed: int) -> Any:
        """A run of the protocol from ``config`` (any number of agents >= 2) with trial seed
        ``seed``, at its step 0."""
        names = [(self.protocol._declare(state), count) for state, count in config.items() if count]
        population = sum(count for _, count in names)
        if population < 2:
            raise ValueError(f"the configuration has {population} agents; a population needs at least 2")
        if population > _MAX_AGENTS:
            raise ValueError(f"the configuration has {population} agents, more than the {_MAX_AGENTS_TEXT} a simulation takes")
        handle, _ = self.protocol._ensure()
        return _poplab.LiveSimulation(handle, names, _graph(self.graph), self.engine, seed)

    def _step(self) -> int:
        """Interactions so far in this trial: those before the last ``sim.set_config`` and since."""
        return self._offset + self._live.step()

    def _ensure_enumerated(self) -> None:
        """Enumerates the reachable states if that has not been done: ppsim's ``state_list``, or
        None past ``MAX_ENUMERATED_STATES`` (with a warning)."""
        if not self._enumerated:
            self._enumerate()
            self._enumerated = True

    def _enumerate(self) -> None:
        rule = self._ppsim_rule.rule
        initial = list(self.init_config)
        if isinstance(rule, Mapping):
            for (a, b), result in rule.items():
                initial += [a, b] + [s for pair, _ in _reachable.outcomes(result) for s in pair]
        try:
            found = _reachable.reachable_states(initial, self._ppsim_rule.one_way, self.MAX_ENUMERATED_STATES)
        except Exception as e:
            raise _poplab.RuleError(f"the rule failed while the reachable states were enumerated: {type(e).__name__}: {e}") from e
        self._reactions = None
        self._results_complete = False
        if found is None:
            warnings.warn(
                f"more than {self.MAX_ENUMERATED_STATES} states are reachable (Simulation.MAX_ENUMERATED_STATES): "
                "state_list lists the states met so far (states_met), and grows as the simulation runs",
                stacklevel=4,
            )
            self._reachable = None
            self._results = {}
            return
        self._reachable, self._results = found
        self._results_complete = len(self._reachable) <= _KEEP_RESULTS
        if self._results_complete:
            self._ppsim_rule.remember(self._reachable, self._results)
        else:
            self._results = {}

    def reset(self, init_config: Optional[Mapping] = None) -> None:
        """Starts a new trial (the next one of this seed) from ``init_config`` (default: the
        initial configuration given to the constructor), at time 0, with an empty history.

        ``init_config`` may have another number of agents (as in ppsim, whose majority notebook
        resets 5 * 10^8 agents to 10^9): ``n``, and with it the time unit, become its number of
        agents for this trial (ppsim keeps the old time unit, which its own TODO calls a bug).

        Raises:
            ValueError: an ``init_config`` of fewer than 2 agents (or more than 2**62).

        >>> from poplab import Simulation
        >>> sim = Simulation({"L": 100}, {("L", "L"): ("L", "F")}, seed=1)
        >>> sim.run()
        >>> sim.config_dict, sim.time > 0
        ({'L': 1, 'F': 99}, True)
        >>> sim.reset({"L": 10, "F": 90})
        >>> sim.config_dict, sim.time, len(sim.history)
        ({'L': 10, 'F': 90}, 0.0, 1)
        >>> sim.reset({"L": 200})
        >>> sim.run(1)
        >>> sim.n, sim.steps, sim.time
        (200, 200, 1.0)
        """
        config = self.init_config
        if init_config is not None:
            config = {state: _count(state, amount) for state, amount in init_config.items()}
        agents = sum(config.values())
        if not 2 <= agents <= _MAX_AGENTS:
            raise ValueError(f"reset: init_config has {agents} agents; give from 2 to {_MAX_AGENTS_TEXT}")
        self._trial += 1
        self.n = self.steps_per_time_unit = agents
        self._start(config)

    # Running.

    def run(
        self,
        run_until: RunUntil = None,
        history_interval: Union[float, Callable[[float], float]] = 1.0,
        stopping_interval: float = 1.0,
        timer: bool = False,
        *,
        until: RunUntil = None,
    ) -> None:
        """Runs the simulation, as ppsim's ``run``.

        ``run_until`` (or ``until=``): ``None`` runs until silent; a number runs for that much
        parallel time; a function of the configuration dict is checked every ``stopping_interval``
        (at multiples of it) and stops the run at the first check where it returns True, so the
        stop time is rounded up to that grid; a stop rule name (``"silent"``, ``"one-leader"``,
        ``"consensus"``, ``"all-yes"``, ``"all-no"``, on the outputs given by ``output=``) stops at
        the exact interaction where it first holds. Every run stops when silent. The configuration
        is recorded in ``history`` every ``history_interval`` (a number, or a function of the
        time giving the next interval) and at the end; recording never changes the trajectory.
        One run records at most ``MAX_HISTORY_ROWS`` rows, fewer if they would not fit in memory:
        more is refused up front when the end is known, and otherwise stops the run with
        ``ValueError`` (the configuration stays where it stopped).
        ``timer=True`` shows a progress bar of the time simulated (tqdm when installed, else a
        plain bar on stderr; `TimeUpdate`) when the simulation has no snapshot; the default is
        False (ppsim's is True). Snapshots (``sim.add_snapshot``) are updated every ``update_time``
        seconds while it runs, between pieces of the run, and at the end.

        Raises:
            ValueError: an unknown stop rule, a stop rule on outputs without ``output=``, a
                negative time or ``stopping_interval``, too many rows of history.
            RuleError: the rule failed.

        >>> from poplab import Simulation
        >>> election = Simulation({"L": 1000}, {("L", "L"): ("L", "F")}, output={"L": True, "F": False}, seed=1)
        >>> election.run(2.5)                      # for 2.5 units of parallel time
        >>> election.time
        2.5
        >>> election.run(until="one-leader")       # to the exact interaction that leaves one leader
        >>> election.config_dict["L"]
        1
        >>> election.steps == round(election.time * 1000)
        True
        >>> timed = Simulation({"L": 1000}, {("L", "L"): ("L", "F")}, seed=1)
        >>> timed.run(lambda config: config["L"] <= 10, stopping_interval=0.5)   # checked every 0.5
        >>> timed.config_dict["L"] <= 10, (timed.time * 2).is_integer()
        (True, True)
        """
        if until is not None:
            if run_until is not None:
                raise TypeError("give run_until or until=, not both")
            run_until = until
        if not (isinstance(stopping_interval, (int, float)) and stopping_interval > 0):
            raise ValueError("stopping_interval must be a number > 0")
        stop, end_step, condition = self._stop_of(run_until)
        _check_history(history_interval, self.time, end_step, self.n)
        if condition is not None and condition(self.config_dict):
            return
        # The states known so far (a run does not enumerate them): what a history row will hold.
        limit = _history_limit(len(self.state_list) if self._enumerated else len(self.protocol.states))
        offset = self._offset
        self._live.sample_at(step - offset for step in _history_steps(self.time, history_interval, self.n, limit))
        piece = max(1, math.floor(stopping_interval * self.n))
        timer_added = timer and not self.snapshots
        if timer_added:
            number = isinstance(run_until, (int, float)) and not isinstance(run_until, bool)
            self.add_snapshot(TimeUpdate(time_bound=run_until if number and math.isfinite(run_until) else None))
        for snapshot in self.snapshots:
            snapshot.next_snapshot_time = _time.perf_counter() + snapshot.update_time
        try:
            while True:
                step = self._step()
                if end_step is not None and step >= end_step:
                    break
                piece_end = (step // piece + 1) * piece
                if end_step is not None:
                    piece_end = min(piece_end, end_step)
                met, samples = self._live.advance(piece_end - offset, stop, self.closed_stops)
                for sample_step, counts in samples:
                    self._record(sample_step + offset, counts)
                self._update_snapshots(force=False)
                if met or (condition is not None and condition(self.config_dict)):
                    break
        finally:
            # The end (or the interruption: Ctrl-C lands between pieces) is recorded too.
            if self._step() > self._rows[-1][0]:
                self._record(self._step(), self._live.counts())
            self._update_snapshots(force=True)
            if timer_added:
                self.snapshots.pop().pbar.close()

    def _update_snapshots(self, force: bool) -> None:
        """Updates the snapshots whose time has come (all of them when ``force``)."""
        now = _time.perf_counter()
        for snapshot in self.snapshots:
            if force or now >= snapshot.next_snapshot_time:
                snapshot.update()
                snapshot.next_snapshot_time = _time.perf_counter() + snapshot.update_time

    def _stop_of(self, run_until: RunUntil) -> Tuple[str, Optional[int], Optional[Callable[[Config], bool]]]:
        """The exact stop rule, the last step, and the condition checked between pieces."""
        if run_until is None:
            return "silent", None, None
        if isinstance(run_until, str):
            if run_until not in STOP_RULES:
                raise ValueError(f"unknown stop rule {run_until!r}; use one of {', '.join(STOP_RULES)}")
            if run_until != "silent" and self.protocol.output is None:
                raise ValueError(
                    f"run(until={run_until!r}) looks at outputs, and this simulation has none: give "
                    "Simulation(..., output=...) mapping a state to leader, follower, yes, no or undecided"
                )
            return run_until, None, None
        if isinstance(run_until, bool) or not (isinstance(run_until, (int, float)) or callable(run_until)):
            raise TypeError("run_until must be None, a time, a function of the configuration or a stop rule name")
        if callable(run_until):
            return "silent", None, run_until
        if not run_until >= 0:
            raise ValueError(f"run_until = {run_until}: a time to run must be a number >= 0 (or math.inf)")
        if math.isinf(run_until):
            return "silent", None, None
        return "silent", math.floor((self.time + run_until) * self.n), None

    def silent(self) -> bool:
        """Whether no interaction can change the configuration.

        >>> from poplab import Simulation
        >>> sim = Simulation({"L": 50}, {("L", "L"): ("L", "F")}, seed=1)
        >>> sim.silent()
        False
        >>> sim.run()
        >>> sim.silent(), sim.config_dict["L"]
        (True, 1)
        """
        return self._live.silent()

    def sample_silence_time(self) -> float:
        """Starts a new trial from the initial configuration and returns its time to silence.

        >>> from poplab import Simulation
        >>> sim = Simulation({"L": 100}, {("L", "L"): ("L", "F")}, seed=1)
        >>> times = [sim.sample_silence_time() for _ in range(200)]
        >>> abs(sum(times) / 200 / (99**2 / 100) - 1) < 0.2     # (n - 1)^2 / n expected
        True
        """
        self.reset()
        self.run()
        return self.time

    # The record.

    def _record(self, step: int, counts: List[Tuple[str, int]]) -> None:
        self._rows.append((step, counts))
        self._history = None

    @property
    def steps(self) -> int:
        """Interactions so far in this trial (exact).

        >>> from poplab import Simulation
        >>> sim = Simulation({"L": 100}, {("L", "L"): ("L", "F")}, seed=1)
        >>> sim.run(3)
        >>> sim.steps, sim.time
        (300, 3.0)
        """
        return self._step()

    @property
    def time(self) -> float:
        """Parallel time so far: interactions / n (the n of the initial configuration, also after
        ``sim.set_config`` changed the number of agents, as in ppsim)."""
        return self._step() / self.n

    @property
    def population(self) -> int:
        """The number of agents now: ``n``, unless ``sim.set_config`` changed it."""
        return self._population

    @property
    def times(self) -> List[float]:
        """The times of the recorded configurations.

        >>> from poplab import Simulation
        >>> sim = Simulation({"L": 100}, {("L", "L"): ("L", "F")}, seed=1)
        >>> sim.run(2, history_interval=0.5)
        >>> sim.times
        [0.0, 0.5, 1.0, 1.5, 2.0]
        """
        return [step / self.n for step, _ in self._rows]

    @property
    def state_list(self) -> List[Any]:
        """ppsim's ``state_list``: every state reachable from the initial configuration (enumerated
        on first use, see the class), in ppsim's order (natural order of their ``repr``). The
        order of the columns of ``history`` and of ``config_array``.

        When the enumeration stopped at ``MAX_ENUMERATED_STATES``, the states met so far instead
        (``states_met``), which grows as the simulation runs.

        >>> import math
        >>> from poplab import Simulation
        >>> average = lambda a, b: (math.floor((a + b) / 2), math.ceil((a + b) / 2))
        >>> sim = Simulation({0: 50, 50: 50}, average, seed=1)
        >>> len(sim.state_list), sim.state_list[:3]
        (51, [0, 1, 2])
        >>> len(sim.states_met) < 51                # before any run: the states met so far
        True
        """
        self._ensure_enumerated()
        met = self.protocol.states
        key = (len(met), self._reachable is None)
        if getattr(self, "_sorted_key", None) != key:
            states = met if self._reachable is None else list(self._reachable)
            if self._reachable is not None and len(met) > 0:
                known = set(states)
                states = states + [s for s in met if s not in known]
            self._sorted_states = sorted(states, key=_natural_key)
            self._sorted_key = key
        return list(self._sorted_states)

    @property
    def states_met(self) -> List[Any]:
        """The states met so far: the initial ones and every result of the rule the engine has
        asked for so far, in order of appearance (poplab learns a protocol's states lazily; this
        is what ``state_list`` was before it enumerated reachable states as ppsim does)."""
        return list(self.protocol.states)

    @property
    def state_dict(self) -> Dict[Any, int]:
        """Each state's index in ``state_list`` (and ``config_array``).

        >>> from poplab import Simulation
        >>> averaging = lambda a, b: ((a + b) // 2, (a + b + 1) // 2)
        >>> sim = Simulation({2: 5, 0: 5}, averaging, seed=1)
        >>> sim.run()
        >>> sim.state_list                         # sorted, as ppsim sorts them
        [0, 1, 2]
        >>> sim.state_dict, sim.config_array.tolist()
        ({0: 0, 1: 1, 2: 2}, [0, 10, 0])
        """
        return {state: i for i, state in enumerate(self.state_list)}

    @property
    def config_dict(self) -> Config:
        """The current configuration: ``{state: count}`` of the states present."""
        state = self.protocol._state
        return {state(name): count for name, count in self._live.counts()}

    @property
    def config_array(self) -> np.ndarray:
        """The current configuration as counts in the order of ``state_list``."""
        index = self.state_dict
        array = np.zeros(len(index), dtype=np.int64)
        for state, count in self.config_dict.items():
            array[index[state]] = count
        return array

    @property
    def configs(self) -> List[np.ndarray]:
        """The recorded configurations as arrays in the order of ``state_list``."""
        return list(self.history.to_numpy())

    @property
    def history(self) -> pd.DataFrame:
        """Every recorded configuration: one row per record, indexed by ``time (n interactions)``,
        one column per state of ``state_list`` (a MultiIndex of the fields for dataclass, named
        tuple and tuple states, as in ppsim).

        >>> from poplab import Simulation
        >>> sim = Simulation({"L": 1000}, {("L", "L"): ("L", "F")}, seed=1)
        >>> sim.run(3, 1)
        >>> sim.history.index.tolist(), sim.history.columns.tolist()
        ([0.0, 1.0, 2.0, 3.0], ['F', 'L'])
        >>> (sim.history.sum(axis=1) == 1000).all() and sim.history["L"].is_monotonic_decreasing
        True
        """
        if self._history is None:
            state = self.protocol._state
            rows = [(step / self.n, {state(name): count for name, count in counts}) for step, counts in self._rows]
            self._history = self._frame(rows, "time (n interactions)")
        return self._history

    def _frame(self, rows: List[Tuple[Any, Config]], index_name: str) -> pd.DataFrame:
        states = self.state_list
        column = {state: i for i, state in enumerate(states)}
        data = np.zeros((len(rows), len(states)), dtype=np.int64)
        for r, (_, config) in enumerate(rows):
            for state, count in config.items():
                data[r, column[state]] = count
        index = pd.Index([key for key, _ in rows], name=index_name)
        return pd.DataFrame(data, index=index, columns=_columns(states))

    def __repr__(self) -> str:
        return f"Simulation(n={self.n}, time={self.time:.3f}, states={len(self.state_list)}, seed={self.seed})"

    # Pickling and copying: the settings, the history and the run's snapshot (the library's, as
    # `poplab run --checkpoint` writes them).

    #: What a pickle leaves out: the run (saved as its snapshot), caches, the snapshots (figures), and
    #: the rule (the protocol's, which explains a rule that does not pickle).
    _UNPICKLED = (
        "_live", "_history", "snapshots", "_ppsim_rule", "_results", "_results_complete", "_reactions", "_sorted_key", "_sorted_states"
    )

    def _fields(self) -> Dict[str, Any]:
        fields = {k: v for k, v in self.__dict__.items() if k not in self._UNPICKLED}
        fields["_snapshot"] = self._live.snapshot()
        return fields

    def __getstate__(self) -> Dict[str, Any]:
        return self._fields()

    def __setstate__(self, state: Dict[str, Any]) -> None:
        state = dict(state)
        snapshot = state.pop("_snapshot")
        # Pickles of earlier versions lack the fields of ppsim's state enumeration and set_config.
        self.__dict__.update({"_offset": 0, "_population": state["n"], "_reachable": None, "_enumerated": True})
        self.__dict__.update(state)
        self._ppsim_rule = self.protocol.rule
        self._history, self._results, self._results_complete, self._reactions = None, {}, False, None
        self.snapshots = []
        handle, _ = self.protocol._ensure()
        self._live = _poplab.LiveSimulation.restore(handle, snapshot, _graph(self.graph), self._population)

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Simulation":
        twin = Simulation.__new__(Simulation)
        memo[id(self)] = twin
        twin.__setstate__(copy.deepcopy(self._fields(), memo))
        return twin


def _engine(engine: Optional[str], simulator_method: Optional[str]) -> str:
    if simulator_method is not None:
        if engine is not None:
            raise TypeError("give engine= or simulator_method=, not both")
        key = simulator_method.lower()
        if key not in SIMULATOR_METHODS:
            raise ValueError("simulator_method must be MultiBatch, Sequential or Gillespie")
        return SIMULATOR_METHODS[key]
    return engine or "auto"


#: The most rows one run adds to ``history``: refused up front when the end is known, else the run
#: stops with ``ValueError`` once it has recorded this many (or as many as fit in memory, at about
#: ``_ROW_BYTES`` per state present, if fewer).
MAX_HISTORY_ROWS = 10**8

#: The memory a recorded row takes per state (a Python tuple of a name and a count, and its share
#: of the row's list), an estimate on the high side.
_ROW_BYTES = 160


def _history_limit(states: int) -> int:
    """The most rows one run may record: ``MAX_HISTORY_ROWS``, or fewer if they would not fit in
    the memory available (``poplab``'s own measure: the smallest of MemAvailable, ``ulimit -v`` and
    the cgroup's limit)."""
    return max(1, min(MAX_HISTORY_ROWS, _poplab.available_memory() // (_ROW_BYTES * (states + 1))))


def _check_history(interval: Any, start: float, end_step: Optional[int], n: int) -> None:
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


def _history_steps(
    start: float, interval: Union[float, Callable[[float], float]], n: int, limit: int
) -> Iterator[int]:
    """The steps at which to record, as ``floor(time n)``: ppsim's times ``start + k interval``
    (for a function of the time, each interval is its value at the time recorded last); at most
    ``limit`` of them, then ``ValueError`` (which stops the run at the end of its piece)."""
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
        yield math.floor(t * n) if math.isfinite(t) else _NEVER


def _columns(states: List[Any]) -> Union[pd.MultiIndex, List[str]]:
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
