"""Continuous time for `Simulation` (``continuous_time=True``, and every chemical reaction network,
as in ppsim): the interactions happen at the events of a Poisson process of rate
``steps_per_time_unit`` per unit of time, independent of which pairs interact.

This is exact: the number of interactions in a span of time ``t`` is Poisson with mean
``t * steps_per_time_unit``, drawn afresh for each span (independent increments), so a
simulation runs the continuous-time Markov chain whose transition rates are
``steps_per_time_unit`` times the per-interaction probabilities (uniformization); for a network
converted by `poplab.crn.reactions_to_dict`, its Gillespie kinetics. A run that stops at an
interaction (silence, a stop rule) inside a span of ``N`` interactions, at its ``k``-th, stops at
that interaction's time: the span's start plus its length times a Beta(k, N - k + 1) draw (the
``k``-th of ``N`` uniform points in order).

The draws come from the library's generator (``poplab.RNG``) on streams of their own: draw ``i``
of trial ``j`` of a simulation of seed ``s`` is seeded by
``trial_seed(trial_seed(s, j) ^ CLOCK_STREAMS, i)``. The interactions' streams are those of the
trial seed, as in discrete time, so the clock never changes which pairs interact.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from . import _poplab, _views

if TYPE_CHECKING:
    from ._simulation import Simulation

#: Mixes a trial's seed into the seeds of its clock's draws.
CLOCK_STREAMS = 0xC10C_C10C_5EED_0001


def stream(trial_seed: int, index: int) -> int:
    """The seed of draw ``index`` of the clock of the trial seeded by ``trial_seed``."""
    return _poplab.trial_seed(trial_seed ^ CLOCK_STREAMS, index)


def interactions(seed: int, span: float, rate: float) -> int:
    """A Poisson number of interactions in ``span`` units of time at ``rate`` per unit (0 for a
    span <= 0), from the stream seeded by ``seed``."""
    return _poplab.poisson(seed, span * rate) if span > 0 else 0


def run(
    sim: "Simulation",
    stop: str,
    end_time: Optional[float],
    condition: Optional[Callable[[Any], bool]],
    history_interval: Union[float, Callable[[float], float]],
    stopping_interval: float,
    limit: int,
) -> None:
    """Runs ``sim`` in continuous time until ``end_time`` (``None``: no end), the stop rule
    ``stop`` (or silence, at its exact interaction) or ``condition`` (checked at the multiples of
    ``stopping_interval``), recording the configuration at the times ``history_interval`` gives.

    It goes from one time that matters to the next (a record, a check, the end): a Poisson number
    of interactions for each span. The last record (the end) is the caller's."""
    records = _views.history_times(sim._clock, history_interval, limit)
    next_record = next(records)
    check = math.floor(sim._clock / stopping_interval) + 1
    while True:
        now = sim._clock
        if end_time is not None and now >= end_time:
            return
        while check * stopping_interval <= now:
            check += 1
        target = min(next_record, check * stopping_interval, math.inf if end_time is None else end_time)
        start = sim._step()
        count = interactions(sim._next_draw(), target - now, sim.steps_per_time_unit)
        try:
            met, _ = sim._live.advance(start + count - sim._offset, stop, sim.closed_stops)
        except BaseException:  # a failing rule, Ctrl-C: the time of the last interaction done
            _stopped(sim, now, target, sim._step() - start, count)
            raise
        if met:
            # It stopped at interaction `done` of the span's `count` (0: it held at the start).
            _stopped(sim, now, target, sim._step() - start, count)
            return
        sim._clock = target
        if target >= next_record:
            sim._record(sim._step(), sim._live.counts())
            next_record = next(records)
        sim._update_snapshots(force=False)
        if condition is not None and condition(sim.config_dict):
            return


def _stopped(sim: "Simulation", now: float, target: float, done: int, count: int) -> None:
    """Sets the clock of a span from ``now`` to ``target`` that holds ``count`` interactions, and
    stopped after ``done`` of them, to the time of the last one done (``now`` if none): the
    ``done``-th of ``count`` uniform points in the span, in order."""
    if done > 0:
        place = _poplab.beta(sim._next_draw(), float(done), float(count - done + 1))
        sim._clock = min(target, now + (target - now) * place)
