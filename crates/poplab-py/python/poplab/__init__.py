"""poplab: a laboratory for population protocols.

Run the built-in protocols of Sudo et al. (and approximate majority), protocol files, or
protocols written in Python (`Protocol`) under the uniformly random scheduler, exactly and at
scale; sweep sizes and parameters; fit growth laws; analyse small populations exactly. Results
come back as pandas DataFrames and dicts with the fields of the ``poplab`` command's JSON.

- `run`, `sweep`, `trace`, `exact`, `search`, `verify`, `protocols`: the commands of ``poplab``, as
  functions (`RunResult`, `SweepResult`: what `run` and `sweep` return; `EstimateResult`: what
  `run` returns with the splitting estimator). ``plot()`` on a `RunResult`, a `SweepResult` or a
  frame of `trace` draws it as a paper does (matplotlib).
- `Protocol`: a protocol written in Python (a dict or a function of two states); `OUTPUTS`
  lists the outputs a state can give; a failing rule raises `RuleError`.
- `Simulation`, `time_trials`: ppsim's API on poplab's engines; `Snapshot`, `TimeUpdate`,
  `Plotter`, `StatePlotter`, `HistoryPlotter`: ppsim's snapshots (``sim.add_snapshot``).
  ppsim's chemical reaction networks (`species`, `Specie`, `Reaction`, `RateConstantUnits`,
  `reactions_to_dict`, `poplab.crn`) run as ppsim runs them, in continuous time; a network with
  births or deaths (batss's and rebop's: ``f >> None``) runs on the library's network engines,
  exactly in the law of Gillespie's method (`Simulation` returns a `NetworkSimulation`).
- `claim`: one claim of the four papers reproduced, its points and verdict (`ClaimResult`), as
  ``poplab reproduce`` reports it.
- `judge`: a claim written as in the papers (``O(log n)``, ``= (n-1)^2``) judged on measured
  values by the same rules (`Judgement`); `SweepResult.judge` judges a sweep's own trials, as
  ``poplab sweep --claim`` does.
- `RNG`: the name of the generator every run uses (Xoshiro256++, seeded by SplitMix64).

>>> import poplab
>>> result = poplab.run("angluin", 100, trials=50, seed=1)
>>> result.summary["converged"]
50
>>> poplab.RNG, poplab.OUTPUTS
('Xoshiro256PlusPlus', ('leader', 'follower', 'yes', 'no', 'undecided'))
>>> issubclass(poplab.RuleError, ValueError)
True
"""

from ._poplab import RNG, RuleError
from ._api import EstimateResult, HoldingSweepResult, RunResult, SweepResult, exact, protocols, run, search, sweep, trace, verify
from ._claims import ClaimResult, claim
from ._judge import Judgement, judge
from ._protocol import OUTPUTS, Protocol
from ._network import NetworkSimulation
from ._simulation import Simulation
from ._trials import time_trials
from ._snapshot import HistoryPlotter, Plotter, Snapshot, StatePlotter, TimeUpdate
from .crn import (
    CRNNotSupported,
    Expression,
    RateConstantUnits,
    Reaction,
    Specie,
    avogadro,
    concentration_to_count,
    gillespy2_format,
    reactions_to_dict,
    species,
)

try:
    from importlib.metadata import version as _version

    __version__ = _version("poplab")
except Exception:  # pragma: no cover - not installed as a distribution
    __version__ = "0+unknown"

__all__ = [
    "CRNNotSupported",
    "EstimateResult",
    "NetworkSimulation",
    "Expression",
    "RateConstantUnits",
    "avogadro",
    "concentration_to_count",
    "gillespy2_format",
    "reactions_to_dict",
    "HistoryPlotter",
    "Plotter",
    "Reaction",
    "Snapshot",
    "Specie",
    "StatePlotter",
    "TimeUpdate",
    "species",
    "OUTPUTS",
    "RNG",
    "ClaimResult",
    "Judgement",
    "Protocol",
    "RuleError",
    "RunResult",
    "Simulation",
    "SweepResult",
    "HoldingSweepResult",
    "claim",
    "exact",
    "judge",
    "protocols",
    "run",
    "search",
    "sweep",
    "time_trials",
    "trace",
    "verify",
]
