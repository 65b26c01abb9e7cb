"""ppsim's API on poplab's engines: `Simulation` and `time_trials`.

``from poplab import Simulation`` in place of ``from ppsim import Simulation`` runs code written
for ppsim (Doty & Severson) unchanged: the same constructor, ``run``, ``history``,
``config_dict`` and so on. The differences are listed in the package README ("Coming from ppsim").
"""

from __future__ import annotations

import copy
import math
import secrets
import time as _time
from collections.abc import Mapping
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np
import pandas as pd

from . import _clock, _poplab, _views
from ._network import NetworkSimulation, is_conservative
from ._api import _MAX_AGENTS, _MAX_AGENTS_TEXT, _graph, _whole
from ._protocol import Protocol
from ._rule import _PpsimRule  # also where pickles of earlier versions find it
from ._snapshot import Snapshot, TimeUpdate
from ._views import Config, StateSpace
from .crn import reaction_list, reactions_to_dict

#: ppsim's ``simulator_method`` names and the engines that play their part.
SIMULATOR_METHODS = {"multibatch": "batched", "gillespie": "counts", "sequential": "agents"}

#: The exact stop rules ``run`` takes by name (silence always stops a run too): the library's
#: stop rules of user protocols known by name.
STOP_RULES = tuple(_poplab.stop_names())

#: Mixes the seed of a trial into the seeds of ``sample_future_configuration``'s samples.
_SAMPLE_STREAMS = 0x5DEECE66D

RunUntil = Union[None, float, int, str, Callable[[Config], bool]]


class Simulation:
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
    exact stop rules of ``run(until=...)``), ``closed_stops`` and ``name``.

    A chemical reaction network (ppsim's list of `poplab.crn.Reaction`'s) as the rule runs as
    ppsim runs it: converted to randomized pair transitions by `poplab.crn.reactions_to_dict` with
    ``volume`` (default: ``n``; it divides bimolecular rates), in continuous time at
    ``steps_per_time_unit = n * max_rate`` interactions per unit of time of the network's rate
    constants (seconds, say: ``time_units='seconds'`` shows ``history``'s times as such). Only
    conservative networks (as many products as reactants, one or two): others raise
    `poplab.crn.CRNNotSupported`. ``continuous_time=True`` runs any rule in continuous time
    (``steps_per_time_unit`` interactions per unit on average, a Poisson number in each span;
    exact, and fixed by the seed: `poplab._clock`). ppsim's
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
        CRNNotSupported: (a ``NotImplementedError`` and ``ValueError``) a chemical reaction network
            with a non-conservative reaction.
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

    def __new__(cls, init_config: Any = None, rule: Any = None, *args: Any, **kwargs: Any) -> Any:
        # A network with births or deaths runs on the library's network engines (`_network`).
        reactions = reaction_list(rule) if rule is not None else None
        if reactions is not None and not is_conservative(reactions):
            return NetworkSimulation(init_config, reactions, *args, **kwargs)
        return super().__new__(cls)

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
        if not isinstance(init_config, Mapping) or not init_config:
            raise TypeError("init_config must be a non-empty dict {state: count}")
        self.init_config = {state: _views.count(state, amount) for state, amount in init_config.items()}
        self.n = sum(self.init_config.values())
        if self.n < 2:
            raise ValueError(f"init_config has {self.n} agents; a population needs at least 2")
        if self.n > _MAX_AGENTS:
            raise ValueError(f"init_config has {self.n} agents, more than the {_MAX_AGENTS_TEXT} a simulation takes; give fewer")
        self.engine = _engine(engine, simulator_method)
        self.graph = graph
        self.seed = secrets.randbits(63) if seed is None else _whole("seed", seed, 0, 2**64 - 1, "2**64 - 1")
        self.closed_stops = bool(closed_stops)
        self.steps_per_time_unit: float = self.n
        self.continuous_time = bool(continuous_time)
        self.time_units = _time_units(time_units)
        self.volume = volume
        # The chemical reaction network given as the rule, if one was.
        self._crn = reaction_list(rule)
        if self._crn is not None:
            self.volume = float(self.n if volume is None else volume)
            if not (math.isfinite(self.volume) and self.volume > 0):
                raise ValueError(f"volume = {volume!r}: give a number > 0")
            if graph not in (None, "complete"):
                raise ValueError(f"a chemical reaction network is well mixed: it runs on the complete graph, not {graph!r}")
            rule, max_rate = reactions_to_dict(self._crn, self.n, self.volume, species=list(self.init_config))
            transition_order, self.continuous_time = "asymmetric", True
            self.steps_per_time_unit = self.n * max_rate
            name = name or "crn"
        self.transition_order = transition_order
        self._ppsim_rule = _PpsimRule(rule, rule_kwargs, transition_order, swaps_are_null=graph in (None, "complete"))
        self.protocol = Protocol(self._ppsim_rule, output=output, name=name or getattr(rule, "__name__", "protocol"))
        self.snapshots: List[Snapshot] = []
        # The reachable states are enumerated on first use: a run that never reads state_list,
        # config_array, history or the reactions pays nothing for them.
        self._space = StateSpace(self._ppsim_rule, list(self.init_config))
        self._trial = 0
        self._start(self.init_config)

    # Starting, resetting.

    def _start(self, config: Mapping) -> None:
        self._offset = 0
        self._live = self._new_live(config, _poplab.trial_seed(self.seed, self._trial))
        self._population = sum(config.values())
        self._clock, self._ticks = 0.0, 0
        self._rows: List[Tuple[int, List[Tuple[str, int]]]] = []
        # In continuous time, the times of the rows (in discrete time, a row's step over n).
        self._row_times: List[float] = []
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

    def _next_draw(self) -> int:
        """The seed of the next draw of the continuous-time clock (`poplab._clock`)."""
        self._ticks += 1
        return _clock.stream(_poplab.trial_seed(self.seed, self._trial), self._ticks - 1)

    def reset(self, init_config: Optional[Mapping] = None) -> None:
        """Starts a new trial (the next one of this seed) from ``init_config`` (default: the
        initial configuration given to the constructor), at time 0, with an empty history.

        ``init_config`` may have another number of agents (as in ppsim, whose majority notebook
        resets 5 * 10^8 agents to 10^9): ``n``, and with it the time unit, become its number of
        agents for this trial (ppsim keeps the old time unit, which its own TODO calls a bug).

        Raises:
            ValueError: an ``init_config`` of fewer than 2 agents (or more than 2**62), or of
                another number of molecules for a chemical reaction network (whose conversion to
                pair transitions depends on it: make a new `Simulation`).

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
            config = {state: _views.count(state, amount) for state, amount in init_config.items()}
        agents = sum(config.values())
        if not 2 <= agents <= _MAX_AGENTS:
            raise ValueError(f"reset: init_config has {agents} agents; give from 2 to {_MAX_AGENTS_TEXT}")
        self._check_crn_population(agents, "reset")
        self._trial += 1
        if agents != self.n:
            self.n = self.steps_per_time_unit = agents
        self._start(config)

    def _check_crn_population(self, agents: int, what: str) -> None:
        if self._crn is not None and agents != self.n:
            raise ValueError(
                f"{what}: this chemical reaction network was converted to pair transitions for n = {self.n} "
                f"molecules (ppsim's reactions_to_dict depends on n), not {agents}; make a new Simulation for "
                f"{agents} molecules"
            )

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
        stop, end, condition = self._stop_of(run_until)
        # `end`: the last step, or in continuous time the end time (a step count over n = 1).
        _views.check_history(history_interval, self.time, end, 1 if self.continuous_time else self.n)
        if condition is not None and condition(self.config_dict):
            return
        # The states known so far (a run does not enumerate them): what a history row will hold.
        limit = _views.history_limit(len(self.state_list) if self._space.enumerated else len(self.protocol.states))
        offset = self._offset
        if not self.continuous_time:
            self._live.sample_at(step - offset for step in _views.history_steps(self.time, history_interval, self.n, limit))
        piece = max(1, math.floor(stopping_interval * self.n))
        timer_added = timer and not self.snapshots
        if timer_added:
            number = isinstance(run_until, (int, float)) and not isinstance(run_until, bool)
            self.add_snapshot(TimeUpdate(time_bound=run_until if number and math.isfinite(run_until) else None))
        for snapshot in self.snapshots:
            snapshot.next_snapshot_time = _time.perf_counter() + snapshot.update_time
        try:
            while not self.continuous_time:
                step = self._step()
                if end is not None and step >= end:
                    break
                piece_end = (step // piece + 1) * piece
                if end is not None:
                    piece_end = min(piece_end, end)
                met, samples = self._live.advance(piece_end - offset, stop, self.closed_stops)
                for sample_step, counts in samples:
                    self._record(sample_step + offset, counts)
                self._update_snapshots(force=False)
                if met or (condition is not None and condition(self.config_dict)):
                    break
            if self.continuous_time:
                _clock.run(self, stop, end, condition, history_interval, stopping_interval, limit)
        finally:
            # The end (or the interruption: Ctrl-C lands between pieces) is recorded too.
            if self._step() > self._rows[-1][0] or (self.continuous_time and self._clock > self._row_times[-1]):
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

    def _stop_of(self, run_until: RunUntil) -> Tuple[str, Any, Optional[Callable[[Config], bool]]]:
        """The exact stop rule, the last step (in continuous time, the end time), and the
        condition checked between pieces."""
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
        if self.continuous_time:
            return "silent", self.time + run_until, None
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

    # Changing and sampling the configuration.

    def set_config(self, config: Union[Mapping, np.ndarray, List[int]]) -> None:
        """ppsim's ``set_config``: the configuration becomes ``config`` (a dict ``{state: count}``
        or counts in the order of ``state_list``) at the current time, which is recorded in
        ``history``. The number of agents may change; the time unit stays ``n`` interactions (the
        initial configuration's n, as in ppsim). The run goes on on fresh random streams.

        Raises:
            ValueError: fewer than 2 agents, an array of the wrong length, or another number of
                molecules for a chemical reaction network (see `reset`).

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
        counts = _views.as_config(config, lambda: self.state_list)
        self._check_crn_population(sum(counts.values()), "set_config")
        step = self._step()
        self._trial += 1
        live = self._new_live(counts, _poplab.trial_seed(self.seed, self._trial))
        self._live, self._offset, self._ticks = live, step, 0
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
        steps = None if self.continuous_time else self.time_to_steps(time)
        current = self.config_dict
        base = _poplab.trial_seed(self.seed, self._trial) ^ _SAMPLE_STREAMS
        draws = getattr(self, "_draws", 0)
        rows = []
        for k in range(num_samples):
            seed = _poplab.trial_seed(base, draws + k)
            live = self._new_live(current, seed)
            if steps is None:  # continuous time: a Poisson number of interactions for each sample
                live.advance(_clock.interactions(_clock.stream(seed, 0), time, self.steps_per_time_unit), "silent", False)
            else:
                live.advance(steps, "silent", False)
            state = self.protocol._state
            rows.append((k, {state(name): count for name, count in live.counts()}))
        self._draws = draws + num_samples
        return _views.frame(rows, self.state_list, "trial #")

    # The record.

    def _record(self, step: int, counts: List[Tuple[str, int]]) -> None:
        self._rows.append((step, counts))
        if self.continuous_time:
            self._row_times.append(self._clock)
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
        ``sim.set_config`` changed the number of agents, as in ppsim). In continuous time (and for
        a chemical reaction network, in the units of its rate constants) the time of the clock,
        whose interactions come at ``steps_per_time_unit`` per unit on average.

        >>> import math
        >>> from poplab import Simulation, species
        >>> a, b = species("A B")
        >>> sim = Simulation({a: 1000}, [(a >> b).k(0.5)], seed=1)     # A decays at rate 0.5
        >>> sim.run(2)
        >>> sim.time, abs(sim.config_dict[a] / 1000 - math.exp(-1)) < 0.05   # exp(-0.5 * 2) left
        (2.0, True)
        """
        if self.continuous_time:
            return self._clock
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
        if self.continuous_time:
            return list(self._row_times)
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
        return self._space.states(self.protocol.states, self.MAX_ENUMERATED_STATES)

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
            rows = [(t, {state(name): count for name, count in counts}) for t, (_, counts) in zip(self.times, self._rows)]
            self._history = _views.frame(rows, self.state_list, self._index_name())
            if self.time_units is not None:
                self._history.index = pd.to_timedelta(self._history.index, unit=self.time_units)
        return self._history

    def _index_name(self) -> str:
        """ppsim's name of ``history``'s index."""
        if self.continuous_time:
            return "time (continuous units)"
        return f"time ({'n' if self.steps_per_time_unit == self.n else self.steps_per_time_unit} interactions)"

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
        time, ``floor(time * steps_per_time_unit)``; in continuous time, as ppsim, the step the
        simulation would be at at time ``time``: the steps so far and a Poisson number for the
        time from now to ``time`` (a draw of the clock).

        >>> from poplab import Simulation
        >>> Simulation({"L": 1000}, {("L", "L"): ("L", "F")}, seed=1).time_to_steps(2.5)
        2500
        """
        if self.continuous_time:
            return self._step() + _clock.interactions(self._next_draw(), time - self.time, self.steps_per_time_unit)
        return math.floor(time * self.steps_per_time_unit)

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
        states = self.state_list
        return _views.reaction_lines(self._space.all_reactions(states), states)

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
        states = self.state_list
        return _views.reaction_lines(_views.enabled(self._space.all_reactions(states), self.config_dict), states)

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
        return _views.null_probability(self._space.reactions(present), counts)

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

    def __repr__(self) -> str:
        return f"Simulation(n={self.n}, time={self.time:.3f}, states={len(self.state_list)}, seed={self.seed})"

    # Pickling and copying: the settings, the history and the run's snapshot (the library's, as
    # `poplab run --checkpoint` writes them).

    #: What a pickle leaves out: the run (saved as its snapshot), caches, the snapshots (figures), the
    #: rule (the protocol's, which explains a rule that does not pickle) and the state space (saved as
    #: its reachable states).
    _UNPICKLED = ("_live", "_history", "snapshots", "_ppsim_rule", "_space")

    def _fields(self) -> Dict[str, Any]:
        fields = {k: v for k, v in self.__dict__.items() if k not in self._UNPICKLED}
        fields["_reachable"], fields["_enumerated"] = self._space.reachable, self._space.enumerated
        fields["_snapshot"] = self._live.snapshot()
        return fields

    def __getstate__(self) -> Dict[str, Any]:
        return self._fields()

    def __setstate__(self, state: Dict[str, Any]) -> None:
        state = dict(state)
        snapshot = state.pop("_snapshot")
        # Pickles of earlier versions lack the fields of ppsim's state enumeration and set_config.
        reachable, enumerated = state.pop("_reachable", None), state.pop("_enumerated", True)
        self.__dict__.update({"_offset": 0, "_population": state["n"], "continuous_time": False, "time_units": None})
        self.__dict__.update({"volume": None, "_crn": None, "_clock": 0.0, "_ticks": 0, "_row_times": []})
        self.__dict__.update(state)
        self._ppsim_rule = self.protocol.rule
        self._space = StateSpace(self._ppsim_rule, list(self.init_config), reachable, enumerated)
        self._history = None
        self.snapshots = []
        handle, _ = self.protocol._ensure()
        self._live = _poplab.LiveSimulation.restore(handle, snapshot, _graph(self.graph), self._population)

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Simulation":
        twin = Simulation.__new__(Simulation)
        memo[id(self)] = twin
        twin.__setstate__(copy.deepcopy(self._fields(), memo))
        return twin


def _time_units(units: Optional[str]) -> Optional[str]:
    """ppsim's ``time_units``: a unit pandas' ``to_timedelta`` knows (``'seconds'``, ``'s'``,
    ``'minutes'``, ...), or None."""
    if units is not None:
        try:
            pd.to_timedelta(0, unit=units)
        except (ValueError, TypeError) as e:
            raise ValueError(f"time_units = {units!r}: give a unit pandas.to_timedelta knows ('seconds', 'ms', "
                             f"'minutes', 'hours', 'days'): {e}") from None
    return units


def _engine(engine: Optional[str], simulator_method: Optional[str]) -> str:
    if simulator_method is not None:
        if engine is not None:
            raise TypeError("give engine= or simulator_method=, not both")
        key = simulator_method.lower()
        if key not in SIMULATOR_METHODS:
            raise ValueError("simulator_method must be MultiBatch, Sequential or Gillespie")
        return SIMULATOR_METHODS[key]
    return engine or "auto"
