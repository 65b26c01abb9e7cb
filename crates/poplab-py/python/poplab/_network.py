"""Networks with births and deaths: a reaction network that is not conservative (``R >> 2 * R``,
``F >> None``, ``None >> A``: as batss and rebop take them) given to `Simulation` runs on the
library's network engines (``poplab._poplab.CrnRun``), exactly in the law of Gillespie's method:
the direct method for small counts, collision-free batches for large ones (``engine='auto'``
takes the faster for the network at its start, by the library's cost model; ``'direct'`` or
``'batched'`` force one).

>>> from poplab import Simulation, species
>>> r, f = species("R F")
>>> lv = [(r >> 2 * r).k(1), (r + f >> 2 * f).k(1), (f >> None).k(1)]
>>> sim = Simulation({r: 500, f: 500}, lv, seed=1)
>>> type(sim).__name__, sim.engine
('NetworkSimulation', 'direct')
>>> sim.run(2, history_interval=0.5)
>>> sim.time, list(sim.history.index)
(2.0, [0.0, 0.5, 1.0, 1.5, 2.0])
>>> sorted(sim.config_dict) == ["F", "R"]
True
"""

from __future__ import annotations

import math
import secrets
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np
import pandas as pd

from . import _poplab
from ._options import _whole
from .crn import Reaction, Specie, species_in_rxns

RunUntil = Union[None, float, Callable[[Dict[str, int]], bool]]


def is_conservative(reactions: List[Reaction]) -> bool:
    """Whether every reaction (both ways of a reversible one) has as many products as reactants."""
    return all(len(r.reactants) == len(r.products) for r in reactions)


def _name(state: Any) -> str:
    return state.name if isinstance(state, Specie) else str(state)


class NetworkSimulation:
    """A reaction network's simulation: ``Simulation(init_config, reactions)`` for a network that
    is not conservative. ppsim's names for what a network has: ``run``, ``time``, ``history``,
    ``config_dict``, ``config_array``, ``state_list``, ``reset``; the counts are by species name.

    ``volume`` (default: the number of molecules at the start) divides the rate of two-reactant
    reactions and multiplies that of reactions without reactants: ``A + B -> ...`` at rate ``k``
    happens at ``k #A #B / volume``, ``2A -> ...`` at ``k #A (#A - 1) / (2 volume)``, ``A -> ...``
    at ``k #A``, ``-> A`` at ``k volume``.
    """

    def __init__(
        self,
        init_config: Mapping,
        reactions: List[Reaction],
        *,
        seed: Optional[int] = None,
        volume: Optional[float] = None,
        engine: Optional[str] = None,
        time_units: Optional[str] = None,
        continuous_time: bool = True,
        name: Optional[str] = None,
    ):
        if not isinstance(init_config, Mapping) or not init_config:
            raise TypeError("init_config must be a non-empty dict {species: count}")
        self.reactions = list(reactions)
        self.init_config = {_name(s): _whole(f"the count of {_name(s)}", c, 0, 2**61, "2**61") for s, c in init_config.items()}
        self.volume: Optional[float] = None if volume is None else float(volume)  # the library's default, once run
        if not continuous_time:
            raise ValueError("a network with births or deaths runs in continuous time (continuous_time=True)")
        self.engine_choice = "auto" if engine is None else engine
        self.seed = secrets.randbits(63) if seed is None else _whole("seed", seed, 0, 2**64 - 1, "2**64 - 1")
        self.time_units = time_units
        self.name = name or "crn"
        # The network's species get neutral names for the library (s0, s1, ...): any ppsim name works.
        names = [s.name for s in species_in_rxns(self.reactions)]
        self._internal = {n: f"s{i}" for i, n in enumerate(names)}
        self._texts: List[Tuple[str, float]] = []
        for r in self.reactions:  # a reversible reaction as its two ways, as replace_reversible_rxns
            self._texts.append((self._text(r.reactants, r.products), r.rate_constant_stochastic))
            if r.reversible:
                self._texts.append((self._text(r.products, r.reactants), r.rate_constant_reverse_stochastic))
        # Species of init_config that no reaction names never change.
        self.state_list: List[str] = names + [n for n in self.init_config if n not in self._internal]
        self._trial = 0
        self._start(self.init_config)

    def _text(self, reactants: Any, products: Any) -> str:
        def side(expression: Any) -> str:
            return " + ".join(self._internal[s.name] for s in expression.species) or "0"

        return f"{side(reactants)} -> {side(products)}"

    def _start(self, config: Mapping[str, int]) -> None:
        unknown = [n for n in config if n not in self.state_list]
        if unknown:
            raise ValueError(f"species {unknown} are not in the network: {self.state_list}")
        # The library numbers species in the order the reactions first name them, as species_in_rxns.
        self._order = list(self._internal)
        counts = [int(config.get(n, 0)) for n in self._order]
        self._fixed = {n: int(config.get(n, 0)) for n in self.state_list if n not in self._internal}
        self._run = _poplab.CrnRun(self._texts, self.volume, counts, self.engine_choice, _poplab.trial_seed(self.seed, self._trial))
        self.volume = self._run.volume  # a reset keeps the first one
        assert self._run.species == [self._internal[n] for n in self._order]
        self._rows: List[Tuple[float, List[int]]] = []
        self._record()

    @property
    def engine(self) -> str:
        """The engine that runs the network: ``'direct'`` or ``'batched'``."""
        return self._run.engine

    @property
    def time(self) -> float:
        """The time reached, in the network's units (those of its rate constants)."""
        return self._run.time

    @property
    def config_dict(self) -> Dict[str, int]:
        """The counts by species name (species at 0 included)."""
        counts = dict(zip(self._order, self._run.counts()))
        return {n: counts[n] if n in counts else self._fixed[n] for n in self.state_list}

    @property
    def config_array(self) -> np.ndarray:
        """The counts in the order of ``state_list``."""
        return np.array([self.config_dict[n] for n in self.state_list], dtype=np.int64)

    @property
    def n(self) -> int:
        """The number of molecules now."""
        return sum(self.config_dict.values())

    @property
    def reactions_fired(self) -> int:
        """How many reactions fired since the start (or the last ``reset``)."""
        return self._run.reactions

    def _record(self) -> None:
        row = self.config_array.tolist()
        if self._rows and self._rows[-1][0] == self.time:
            self._rows[-1] = (self.time, row)
        else:
            self._rows.append((self.time, row))

    @property
    def history(self) -> pd.DataFrame:
        """The recorded counts: a row per recorded time (index ``time``), a column per species."""
        frame = pd.DataFrame([r for _, r in self._rows], columns=self.state_list, index=[t for t, _ in self._rows])
        frame.index.name = "time"
        return frame

    @property
    def times(self) -> List[float]:
        """The recorded times."""
        return [t for t, _ in self._rows]

    def run(
        self,
        run_until: RunUntil = None,
        history_interval: float = 1.0,
        stopping_interval: float = 1.0,
        timer: bool = False,
        *,
        until: RunUntil = None,
    ) -> None:
        """Runs the network: ``run_until`` a number runs for that much time; a function of
        ``config_dict`` is checked at the multiples of ``stopping_interval`` and stops the run at
        the first check where it holds; ``None`` runs until no reaction can happen (checked at the
        multiples of ``stopping_interval``: it may never come, as in a network with births).
        The counts are recorded at the multiples of ``history_interval`` and at the end, exactly
        at those times.

        Raises:
            ValueError: a negative time, an interval that is not a number > 0.
        """
        if until is not None:
            run_until = until
        for label, value in (("history_interval", history_interval), ("stopping_interval", stopping_interval)):
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"{label} = {value!r}: give a number > 0")
        start = self.time
        end = math.inf
        condition: Optional[Callable[[Dict[str, int]], bool]] = None
        if callable(run_until):
            condition = run_until
        elif run_until is not None:
            if not (isinstance(run_until, (int, float)) and run_until >= 0):
                raise ValueError(f"run_until = {run_until!r}: a time >= 0, a function of the configuration or None")
            end = start + float(run_until)
        next_record = (math.floor(start / history_interval) + 1) * history_interval
        next_check = (math.floor(start / stopping_interval) + 1) * stopping_interval
        while self.time < end:
            target = min(end, next_record, next_check)
            self._run.advance_to(target)
            if target == next_record:
                self._record()
                next_record += history_interval
            if target == next_check:
                next_check += stopping_interval
                if condition is not None and condition(self.config_dict):
                    break
                if end == math.inf and condition is None and self._run.silent():
                    break
        self._record()

    def reset(self, init_config: Optional[Mapping] = None) -> None:
        """Starts again from ``init_config`` (default: the first one) at time 0, with the next
        trial's seed."""
        self._trial += 1
        config = self.init_config if init_config is None else {_name(s): int(c) for s, c in init_config.items()}
        self._start(config)

    def __repr__(self) -> str:
        return f"NetworkSimulation(molecules={self.n}, time={self.time:.3f}, engine={self.engine!r}, seed={self.seed})"
