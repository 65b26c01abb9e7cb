"""ppsim's snapshots: objects a `Simulation` updates while it runs (``sim.add_snapshot``), and that
show a recorded configuration afterwards (``sim.set_snapshot_index``, ``sim.set_snapshot_time``,
``sim.snapshot_slider``).

- `Snapshot`: the base class; ``update(index)`` takes the configuration ``sim.configs[index]`` at
  ``sim.times[index]``, or the current one.
- `TimeUpdate`: a progress bar of the time simulated (``run(timer=True)`` adds one): tqdm when it is
  installed (its notebook widget when ipywidgets is), else a plain bar on stderr.
- `Plotter`: a matplotlib figure of counts, optionally of categories ``state_map(state)``;
  `StatePlotter` draws a bar per category, `HistoryPlotter` the history's lines.

matplotlib is imported only when a plotter is added; ipywidgets only by ``snapshot_slider``.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from poplab import Simulation, StatePlotter
>>> sim = Simulation({"A": 60, "B": 40}, {("A", "B"): ("U", "U"), ("A", "U"): ("A", "A"),
...                                       ("B", "U"): ("B", "B")}, seed=1)
>>> bars = StatePlotter()
>>> sim.add_snapshot(bars)
>>> [rect.get_height() for rect in bars.ax.patches]       # A, B, U at time 0
[60.0, 40.0, 0.0]
>>> sim.run(3)
>>> [rect.get_height() for rect in bars.ax.patches] == sim.config_array.tolist()
True
>>> sim.set_snapshot_index(0)                              # back to the first record
>>> bars.time, [rect.get_height() for rect in bars.ax.patches]
(0.0, [60.0, 40.0, 0.0])
"""

from __future__ import annotations

import sys
import time as _time
from typing import Any, Callable, Hashable, Optional

import numpy as np
import pandas as pd

from ._views import natural_key

State = Hashable


class Snapshot:
    """The base class of snapshots: a view of one configuration of its simulation (``self.simulation``).

    Attributes:
        simulation: the `Simulation` that updates it (set by ``sim.add_snapshot``).
        update_time: seconds of wall-clock time between updates while the simulation runs.
        time, config: the time and the configuration (an array in the order of
            ``simulation.state_list``) shown now; set by `update`.

    >>> from poplab import Simulation, Snapshot
    >>> sim = Simulation({"L": 10}, {("L", "L"): ("L", "F")}, seed=1)
    >>> snap = Snapshot()
    >>> sim.add_snapshot(snap)
    >>> snap.time, snap.config.tolist()                   # states F, L
    (0.0, [0, 10])
    """

    def __init__(self) -> None:
        self.simulation: Any = None
        self.update_time = 0.1
        self.time: Optional[float] = None
        self.config: Optional[np.ndarray] = None
        self.next_snapshot_time = 0.0

    def initialize(self) -> None:
        """Called once by ``sim.add_snapshot``, with ``self.simulation`` set."""
        if self.simulation is None:
            raise ValueError("this snapshot has no simulation: add it with sim.add_snapshot(snapshot) first")

    def update(self, index: Optional[int] = None) -> None:
        """Takes the recorded configuration ``simulation.configs[index]`` (at
        ``simulation.times[index]``), or the current one when ``index`` is None."""
        if self.simulation is None:
            raise ValueError("this snapshot has no simulation: add it with sim.add_snapshot(snapshot) first")
        if index is not None:
            self.time = self.simulation.times[index]
            self.config = self.simulation.configs[index]
        else:
            self.time = self.simulation.time
            self.config = self.simulation.config_array


class _TextBar:
    """A progress bar on stderr, for when tqdm is not installed: the time simulated, and the
    fraction of ``total`` when known."""

    def __init__(self, total: Optional[float], unit: str) -> None:
        self.total, self.unit, self.n = total, unit, 0.0
        self.stream = sys.stderr

    def update(self, amount: float) -> None:
        self.n += amount
        text = f"{self.n:.3f}{self.unit}"
        if self.total:
            done = min(1.0, self.n / self.total)
            text = f"{100 * done:3.0f}%|{'#' * round(20 * done):<20}| {self.n:.3f}/{self.total:g}{self.unit}"
        self.stream.write("\r" + text)
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def _progress_bar(total: Optional[float], unit: str) -> Any:
    """tqdm's bar (the notebook widget when ipywidgets is installed), else `_TextBar`."""
    try:
        import ipywidgets  # noqa: F401

        from tqdm.auto import tqdm
    except ImportError:
        try:
            from tqdm import tqdm
        except ImportError:
            return _TextBar(total, unit)
    return tqdm(total=total, position=0, leave=False, unit=unit)


class TimeUpdate(Snapshot):
    """A progress bar of the time simulated since the snapshot was added (out of ``time_bound``
    when given). ``sim.run(..., timer=True)`` adds one for the run when the simulation has no other
    snapshot, and removes it at the end.

    >>> from poplab import Simulation, TimeUpdate
    >>> sim = Simulation({"L": 100}, {("L", "L"): ("L", "F")}, seed=1)
    >>> bar = TimeUpdate(time_bound=5)
    >>> sim.add_snapshot(bar)
    >>> sim.run(5)
    >>> bar.pbar.n
    5.0
    >>> bar.pbar.close()
    """

    def __init__(self, time_bound: Optional[float] = None, update_time: float = 0.2) -> None:
        super().__init__()
        self.pbar = _progress_bar(time_bound, " time simulated")
        self.update_time = update_time
        self.start_time = 0.0

    def initialize(self) -> None:
        super().initialize()
        self.start_time = self.simulation.time

    def update(self, index: Optional[int] = None) -> None:
        super().update(index)
        done = round(self.time - self.start_time, 3)  # type: ignore[operator]
        self.pbar.update(done - self.pbar.n)


class Plotter(Snapshot):
    """The base class of snapshots that plot: a matplotlib figure ``fig`` and axes ``ax``.

    ``state_map=`` maps each state to a category (``None``: left out); the plot shows the counts of
    the categories (in ppsim's natural order) instead of the states. ``yscale`` goes to
    ``ax.set_yscale``.
    """

    def __init__(
        self,
        state_map: Optional[Callable[[State], Any]] = None,
        update_time: float = 0.5,
        yscale: str = "linear",
        sort_by: str = "categories",
    ) -> None:
        super().__init__()
        self._matrix: Optional[np.ndarray] = None
        self.state_map = state_map
        self.update_time = update_time
        self.yscale = yscale
        self.sort_by = sort_by
        self.categories: list = []

    def _add_state_map(self, state_map: Callable[[State], Any]) -> None:
        """Sets ``categories`` and the matrix that turns counts of states into counts of them."""
        states = self.simulation.state_list
        mapped = [state_map(state) for state in states]
        categories = []
        for m in mapped:
            if m is not None and m not in categories:
                categories.append(m)
        self.categories = sorted(categories, key=natural_key)
        column = {c: i for i, c in enumerate(self.categories)}
        self._matrix = np.zeros((len(states), len(self.categories)), dtype=np.int64)
        for i, m in enumerate(mapped):
            if m is not None:
                self._matrix[i, column[m]] += 1

    def initialize(self) -> None:
        """Makes the figure and the categories."""
        super().initialize()
        from matplotlib import pyplot as plt

        self.fig, self.ax = plt.subplots()
        if self.state_map is not None:
            self._add_state_map(self.state_map)
        else:
            self._matrix = None
            self.categories = list(self.simulation.state_list)

    def _current(self, width: int) -> bool:
        """Brings the categories up to the simulation's states when a configuration of ``width``
        states no longer fits them (a run met states that ``state_list`` did not list before);
        says whether they changed."""
        if self._matrix is None:
            if len(self.categories) == width:
                return False
            self.categories = list(self.simulation.state_list)
            return True
        if self._matrix.shape[0] == width:
            return False
        before = list(self.categories)
        self._add_state_map(self.state_map)  # type: ignore[arg-type]
        return self.categories != before

    def _counts(self, config: np.ndarray) -> np.ndarray:
        return np.asarray(config) if self._matrix is None else np.matmul(config, self._matrix)

    def _limits(self, headroom: float = 1.0) -> None:
        self.ax.set_yscale(self.yscale)
        population = self.simulation.population
        self.ax.set_ylim(0, 2 * population if self.yscale in ("symlog", "log") else headroom * population)


class StatePlotter(Plotter):
    """A bar per state (or category of ``state_map=``): its count in the configuration shown.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from poplab import Simulation, StatePlotter
    >>> sim = Simulation({0: 5, 4: 5}, lambda a, b: ((a + b) // 2, (a + b + 1) // 2), seed=1)
    >>> parity = StatePlotter(state_map=lambda s: "even" if s % 2 == 0 else "odd")
    >>> sim.add_snapshot(parity)
    >>> parity.categories, [rect.get_height() for rect in parity.ax.patches]
    (['even', 'odd'], [10.0, 0.0])
    """

    def initialize(self) -> None:
        """Draws the bars (at 0). Call it again after changing ``self.state_map``."""
        super().initialize()
        self._draw_bars()

    def _draw_bars(self) -> None:
        self.ax.clear()
        labels = [str(c) for c in self.categories]
        self.bars = self.ax.bar(labels, np.zeros(len(labels)))
        if labels and max(len(label) for label in labels) > 2:
            for tick in self.ax.get_xticklabels():
                tick.set_rotation(90)
        self._limits()

    def update(self, index: Optional[int] = None) -> None:
        """Sets the heights of the bars to the counts shown."""
        super().update(index)
        if self._current(len(self.config)):  # type: ignore[arg-type]
            self._draw_bars()
        heights = self._counts(self.config)  # type: ignore[arg-type]
        for rect, height in zip(self.bars, heights):
            rect.set_height(float(height))
        self.ax.set_title(f"Time {self.time: .3f}")
        self.fig.tight_layout()
        self.fig.canvas.draw_idle()


class HistoryPlotter(Plotter):
    """The history's counts over time, a line per state (or category of ``state_map=``).

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from poplab import Simulation, HistoryPlotter
    >>> sim = Simulation({"L": 100}, {("L", "L"): ("L", "F")}, seed=1)
    >>> lines = HistoryPlotter()
    >>> sim.add_snapshot(lines)
    >>> sim.run(4)
    >>> [line.get_label() for line in lines.ax.get_lines()], len(lines.ax.get_lines()[0].get_xdata())
    (['F', 'L'], 5)
    """

    def update(self, index: Optional[int] = None) -> None:
        """Draws the history again."""
        super().update(index)
        self.ax.clear()
        history = self.simulation.history
        self._current(history.shape[1])
        if self._matrix is not None:
            frame = pd.DataFrame(np.matmul(history.to_numpy(), self._matrix), columns=self.categories,
                                 index=history.index)
        else:
            frame = history
        frame.plot(ax=self.ax)
        self._limits(headroom=1.1)
        self.fig.tight_layout()
        self.fig.canvas.draw_idle()
