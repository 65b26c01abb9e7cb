"""poplab's functions: run, sweep, trace, exact, verify, protocols.

Every run option is declared once, in `_options._settings`, and reaches `run`, `trace` and
`sweep` as their ``**options`` (their signatures show it)."""

from __future__ import annotations

import json
import os
import pathlib
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import pandas as pd

from . import _poplab
from ._judge import Judgement, _check_claim
# _MAX_AGENTS, _MAX_AGENTS_TEXT and _graph are imported from here by _simulation.
from ._options import (
    _MAX_AGENTS,
    _MAX_AGENTS_TEXT,
    _MAX_TRIALS,
    _MAX_TRIALS_TEXT,
    _U64_MAX,
    _U128_MAX,
    _check_params,
    _graph,
    _init,
    _n,
    _param_text,
    _settings,
    _whole,
    _with_options,
)
from ._plot import TraceFrame, plot_run, plot_sweep
from ._protocol import Protocol, _combinations

ProtocolLike = Union[str, "os.PathLike[str]", Protocol]

#: The largest value an int64 column holds; step counts beyond it stay Python ints (object dtype).
_INT64_MAX = 2**63 - 1


def protocols() -> pd.DataFrame:
    """The built-in protocols, as ``poplab list`` shows them.

    Returns:
        A DataFrame with one row per protocol: ``name``, ``summary``, ``source``, ``params`` (a
        list of ``{"name", "default", "doc"}``) and ``init`` (the initial configurations
        ``init=`` takes).

    >>> import poplab
    >>> table = poplab.protocols().set_index("name")
    >>> table.loc["angluin", "init"]
    ['default', 'random', 'all-leaders', 'safe']
    >>> [p["name"] for p in table.loc["threshold", "params"]]
    ['k', 'f']
    """
    document = json.loads(_poplab.protocols())
    rows = [
        {
            "name": p["name"],
            "summary": p["summary"],
            "source": p["source"],
            "params": p["params"],
            "init": [family["name"] for family in p["init"]],
        }
        for p in document["protocols"]
    ]
    return pd.DataFrame(rows, columns=["name", "summary", "source", "params", "init"])


# Normalising what the user gave into what the library takes.


def _target(protocol: ProtocolLike) -> Tuple[Any, Optional[Protocol]]:
    """The extension's target (a name, ``@FILE`` or a user protocol) and the Python protocol."""
    if isinstance(protocol, Protocol):
        return protocol, protocol
    if isinstance(protocol, os.PathLike):
        return "@" + os.fspath(protocol), None
    if isinstance(protocol, str):
        if protocol.endswith(".toml") and not protocol.startswith("@"):
            return "@" + protocol, None
        return protocol, None
    raise TypeError(f"protocol must be a name, a protocol file's path or a poplab.Protocol, not {type(protocol).__name__}")


def _prepare(
    protocol: ProtocolLike, n: Any, params: Optional[Mapping], **options: Any
) -> Tuple[Any, Optional[Protocol], int, str]:
    target, user = _target(protocol)
    library_params: List[str] = []
    _check_params(params)
    if params:
        if user is not None:
            user = user.with_params(**params)
            target = user
        else:
            library_params = [f"{k}={_param_text(v)}" for k, v in params.items()]
    if user is not None and options.get("init") is None and user.init is not None:
        user._ensure()
    settings = {"params": library_params, **_settings(user, **options)}
    if user is not None:
        target = user._ensure()[0]
    return target, user, _n(n), json.dumps(settings)


def _int_column(values: Sequence[Any], unsigned: bool = False) -> pd.Series:
    """Exact integers: int64 when they fit (uint64 for seeds), else Python ints (object dtype),
    never rounded."""
    present = [v for v in values if v is not None]
    if unsigned and len(present) == len(values):
        return pd.Series(list(values), dtype="uint64")
    if present and max(present) > _INT64_MAX:
        return pd.Series(list(values), dtype=object)
    if len(present) < len(values):
        return pd.Series(list(values), dtype="Int64")
    return pd.Series(list(values), dtype="int64")


def _trials_frame(records: List[Dict[str, Any]], leading: Optional[List[str]] = None) -> pd.DataFrame:
    columns = (leading or []) + ["index", "seed", "outcome", "steps", "parallel_time"]
    for optional in ("recovery_steps", "distinct_states", "last_demotion"):
        if any(optional in r for r in records):
            columns.append(optional)
    data: Dict[str, Any] = {}
    for column in columns:
        values = [r.get(column) for r in records]
        if column in ("steps", "recovery_steps", "index", "seed", "distinct_states", "n"):
            data[column] = _int_column(values, unsigned=column == "seed")
        else:
            data[column] = values
    return pd.DataFrame(data, columns=columns)


def _states_back(value: Any, user: Optional[Protocol]) -> Any:
    """A library document with a user protocol's states (``{"state": id}``) turned back into the
    Python objects."""
    if user is None:
        return value
    if isinstance(value, dict):
        if set(value) == {"state"} and isinstance(value["state"], str):
            return user._state(value["state"])
        return {k: _states_back(v, user) for k, v in value.items()}
    if isinstance(value, list):
        return [_states_back(v, user) for v in value]
    return value


class RunResult:
    """The trials of a run, as `run` returns them.

    Attributes:
        trials: a DataFrame, one row per trial: ``index``, ``seed``, ``outcome`` (``converged``,
            ``broken`` or ``censored``), ``steps`` (exact integers), ``parallel_time``, and with
            faults or ``census=True`` ``recovery_steps``, ``distinct_states``, ``last_demotion``.
        summary: a dict: ``trials``, ``converged``, ``censored``, ``mean_steps``,
            ``median_steps``, ``mean_parallel_time``, ``ci95_parallel_time``, ... (``None`` for a
            mean when some trial was censored: see ``mean_steps_lower_bound``).
        params: the effective parameters, derived ones included.
        engine: the engine that ran (``auto`` resolved).
        n, protocol, document: the population size, the protocol, the whole JSON document.

    >>> import poplab
    >>> result = poplab.run("threshold", 100, params={"k": 10, "f": 12}, trials=20, seed=1)
    >>> result
    <RunResult threshold n=100 engine=batched trials=20 converged=20 censored=0 mean_parallel_time=...>
    >>> result.params
    {'k': 10, 'f': 12}
    >>> result.trials["outcome"].unique().tolist()
    ['converged']
    """

    def __init__(self, document: str, user: Optional[Protocol]):
        self._json = document
        self.document: Dict[str, Any] = json.loads(document)
        self.protocol = user if user is not None else self.document["protocol"]
        self.n: int = self.document["n"]
        self.engine: str = self.document["engine"]
        self.params: Dict[str, Any] = dict(self.document["params"])
        if user is not None:
            self.params.update(user.params)
        self.summary: Dict[str, Any] = self.document["summary"]
        self.trials: pd.DataFrame = _trials_frame(self.document["trials"])

    def to_json(self) -> str:
        """The document of ``poplab run --json`` for the same spec (the same text).

        >>> import json, poplab
        >>> document = json.loads(poplab.run("angluin", 50, trials=3, seed=1).to_json())
        >>> document["rng"], document["seed"], len(document["trials"])
        ('Xoshiro256PlusPlus', 1, 3)
        """
        return self._json

    def plot(self, ax: Any = None) -> Any:
        """Draws the fraction of trials converged by each parallel time, a step curve (censored
        trials never converge: the curve then ends below 1). Needs matplotlib.

        Args:
            ax: a matplotlib axis to draw on (default: a new figure's).

        Returns:
            The axis.

        >>> import poplab
        >>> axis = poplab.run("angluin", 50, trials=20, seed=1).plot()
        >>> axis.get_ylabel(), float(axis.get_lines()[0].get_ydata()[-1])
        ('fraction of trials converged', 1.0)
        """
        return plot_run(self.trials, self.n, self.document["protocol"], ax=ax)

    def __repr__(self) -> str:
        s = self.summary
        name = self.document["protocol"]
        return (
            f"<RunResult {name} n={self.n} engine={self.engine} trials={s['trials']} "
            f"converged={s['converged']} censored={s['censored']} mean_parallel_time={s['mean_parallel_time']}>"
        )


class EstimateResult:
    """A splitting estimate of the expected holding time, as `run` returns it with
    ``estimator="splitting"`` (the document of ``poplab run --estimator splitting --json``).

    Attributes:
        estimate: a dict: ``mean_steps`` and ``ci95`` (its 95% interval, in steps), their base-10
            logarithms ``log10_mean_steps`` and ``log10_ci95``, the ``score``, ``replicas``,
            ``repetitions``, ``cycles``, ``levels``, ``interactions_simulated``, ``runs``, ...
        wall_seconds: the time it took.
        n, protocol, params, document: the population size, the protocol's name, the effective
            parameters and the whole JSON document.

    >>> import poplab
    >>> result = poplab.run("ls-timer", 4, params={"s": 8}, measure="holding", estimator="splitting",
    ...                     trials=10, seed=1)
    >>> result
    <EstimateResult ls-timer n=4 mean_steps=... ci95=[...]>
    >>> low, high = result.estimate["ci95"]   # poplab.exact gives 64431.72 steps
    >>> low < result.estimate["mean_steps"] < high
    True
    """

    def __init__(self, document: str):
        self._json = document
        self.document: Dict[str, Any] = json.loads(document)
        self.protocol: str = self.document["protocol"]
        self.n: int = self.document["n"]
        self.params: Dict[str, Any] = dict(self.document["params"])
        self.estimate: Dict[str, Any] = self.document["estimate"]
        self.wall_seconds: float = self.document["wall_seconds"]

    def to_json(self) -> str:
        """The document of ``poplab run --estimator splitting --json`` for the same spec."""
        return self._json

    def __repr__(self) -> str:
        e = self.estimate
        return f"<EstimateResult {self.protocol} n={self.n} mean_steps={e['mean_steps']} ci95={e['ci95']}>"


@_with_options
def run(protocol: ProtocolLike, n: int, *, params: Optional[Mapping] = None, **options: Any) -> Union[RunResult, "EstimateResult"]:
    """Runs ``trials`` independent trials of ``protocol`` with ``n`` agents (as ``poplab run``).

    Args:
        protocol: a built-in name (`protocols()`), a protocol file (a path ending in ``.toml``, a
            ``pathlib.Path``, or ``"@FILE"``), or a `Protocol`.
        n: the population size.
        params: the protocol's parameters, ``{"k": 10}`` (as ``--set k=10``).

    Returns:
        A `RunResult`: ``trials`` (a DataFrame), ``summary`` (a dict), ``engine``, ``params``; or
        with the splitting estimator an `EstimateResult`.

    Raises:
        ValueError: invalid input, with the library's one-line message.
        RuleError: a rule or output of a Python `Protocol` failed (a ``ValueError``).
        OSError: the machine failed while reading a file.

    The trials run with the GIL released.

    >>> import poplab
    >>> result = poplab.run("angluin", 100, trials=200, seed=1)
    >>> result.engine, result.summary["converged"]
    ('batched', 200)
    >>> abs(result.summary["mean_steps"] / 99**2 - 1) < 0.2   # exactly (n - 1)^2 expected
    True
    >>> result.trials.head(2)   # trial seeds: SplitMix64 of seed 1; steps vary with the engine
       index                  seed    outcome  steps  parallel_time
    0      0  10451216379200822465  converged  ...
    1      1  13757245211066428519  converged  ...
    >>> ring = poplab.run("angluin", 50, graph="ring", max_steps=10**4, trials=3)
    >>> ring.summary["censored"], ring.summary["mean_steps"]   # leaders that never meet
    (3, None)
    >>> poplab.run("threshold", 100, params={"kk": 3})
    Traceback (most recent call last):
    ...
    ValueError: protocol threshold has no parameter 'kk'; its parameters: k, f
    """
    target, user, n, settings = _prepare(protocol, n, params, **options)
    method, document = _poplab.run(target, n, settings)
    if method == "splitting":
        return EstimateResult(document)
    return RunResult(document, user)


#: The columns of an event trace after ``step`` and ``parallel_time``.
_EVENT_COLUMNS = ("initiator", "responder", "initiator_after", "responder_after")


@_with_options
def trace(
    protocol: ProtocolLike,
    n: int,
    *,
    every: Union[int, str, None] = None,
    trial: int = 0,
    params: Optional[Mapping] = None,
    **options: Any,
) -> pd.DataFrame:
    """The time series of one trial, as ``poplab run --trace``; with ``every="event"``, its
    event trace, as ``poplab run --trace-every event``.

    The trial is trial ``trial`` of a run seeded ``seed``: the same trial `run` gives, whatever
    ``every`` is (looking never changes a run). An event trace
    needs each event's exact step, which batches do not keep: it runs on the count engine where
    ``engine="auto"`` would batch, and ``engine="batched"`` is refused.

    Returns:
        A DataFrame with one row every ``every`` steps (default ``n``) and at the end: ``step``,
        ``parallel_time``, ``leaders`` (agents whose output is leader, or yes), the protocol's
        own columns, and for a protocol file or a `Protocol` the agents per output
        (``output=leader``, ... for each output its states give) and per state (``state=NAME``;
        a `Protocol`'s state named as it is if a string, else by its ``repr``), each group summing
        to ``n`` at every row. Its ``plot()`` draws the configuration over time as step curves.
        With ``every="event"``: one row per interaction that changed a
        state, with ``step``, ``parallel_time``, and ``initiator``, ``responder``,
        ``initiator_after``, ``responder_after`` (the states as JSON text, as in ``--init``
        files). The trial's record is in ``frame.attrs["record"]``.

    Raises:
        ValueError: invalid input (``every`` below 1, say).

    >>> import poplab
    >>> frame = poplab.trace("angluin", 100, every=1000, seed=1)
    >>> frame.columns.tolist()
    ['step', 'parallel_time', 'leaders']
    >>> int(frame["leaders"].iloc[0]), int(frame["leaders"].iloc[-1])
    (100, 1)
    >>> record = frame.attrs["record"]
    >>> record["outcome"], bool(record["steps"] == poplab.run("angluin", 100, seed=1).trials["steps"][0])
    ('converged', True)
    >>> election = poplab.Protocol({("L", "L"): ("L", "F")}, output={"L": "leader", "F": "follower"},
    ...                            init={"L": 1.0})
    >>> counts = poplab.trace(election, 10, every=20, seed=1)
    >>> counts.columns.tolist()[3:]
    ['output=leader', 'output=follower', 'state=L', 'state=F']
    >>> counts[["state=L", "state=F"]].iloc[-1].tolist()
    [1, 9]
    >>> events = poplab.trace("angluin", 100, every="event", seed=1)
    >>> len(events), events["initiator_after"].iloc[0], events["responder_after"].iloc[0]
    (99, '{"leader":true}', '{"leader":false}')
    """
    for fixed in ("trials", "threads"):
        if fixed in options:
            raise TypeError(f"trace() runs one trial on one thread: it takes trial=, not {fixed}=")
    options.update(trials=_whole("trial", trial, 0, _MAX_TRIALS - 1) + 1, threads=1)
    target, user, n, settings = _prepare(protocol, n, params, **options)
    if every == "event":
        record, steps, states = _poplab.events(target, n, settings, int(trial))
        data = {"step": _int_column(steps), "parallel_time": [s / n for s in steps]}
        for k, column in enumerate(_EVENT_COLUMNS):
            data[column] = [row[k] for row in states]
        frame = pd.DataFrame(data, columns=["step", "parallel_time", *_EVENT_COLUMNS])
        frame.attrs["record"] = json.loads(record)
        return frame
    if isinstance(every, str):
        raise ValueError(f"every={every!r}: give a number of steps (at least 1) or 'event'")
    every = n if every is None else _whole("every", every, 1, _U128_MAX, "2**128 - 1")
    record, columns, steps, leaders, values, count_columns, counts = _poplab.trace(target, n, settings, every, int(trial))
    data: Dict[str, Any] = {"step": _int_column(steps), "parallel_time": [s / n for s in steps], "leaders": leaders}
    for k, column in enumerate(columns):
        data[column] = [row[k] for row in values]
    names = _count_names(count_columns, user)
    for k, column in enumerate(names):
        data[column] = [row[k] for row in counts]
    frame = TraceFrame(data, columns=["step", "parallel_time", "leaders", *columns, *names])
    frame.attrs["record"] = json.loads(record)
    return frame


def _count_names(columns: List[str], user: Optional[Protocol]) -> List[str]:
    """The count columns of a trace (``output=VALUE``, ``state=NAME``), a Python protocol's
    states named by their objects: a string as it is, anything else by its ``repr`` (every state by
    its ``repr`` where that would name two alike)."""
    if user is None:
        return columns
    outputs = [c for c in columns if c.startswith("output=")]
    objects = [user._state(c[len("state="):]) for c in columns if c.startswith("state=")]
    names = [s if isinstance(s, str) else repr(s) for s in objects]
    if len(set(names)) < len(names):
        names = [repr(s) for s in objects]
    return outputs + [f"state={name}" for name in names]


def exact(
    protocol: ProtocolLike,
    n: int,
    *,
    params: Optional[Mapping] = None,
    init: Any = None,
    graph: Any = None,
    measure: str = "convergence",
    max_configs: int = 10**6,
    start: Optional[str] = None,
) -> Dict[str, Any]:
    """The exact expected steps to the safe set (or the holding time) of a small population, as
    ``poplab exact``: the configuration space is explored exhaustively (at most ``max_configs``
    configurations) and the absorbing Markov chain solved. Randomized rules are weighed exactly
    (each probability read as a fraction such as 1/2 or 1/3).

    Args:
        protocol, n, params, init, graph: as for `run`.
        measure: ``"convergence"`` (steps to the safe set) or ``"holding"`` (steps from a safe
            start until an output changes).
        max_configs: the cap on the configurations explored; more is an error, never a silent
            truncation.
        start: ``"all"`` (``--from all``): solve from every configuration of the state space at
            once, for a claim "from any configuration" (built-ins at small constants and protocol
            tables); ``init``, if given, is then one more named start to compare.

    Returns:
        The dict of ``poplab exact --json``: ``expected_steps``, ``variance_steps``,
        ``expected_parallel_time``, ``relative_error_bound``, ``configurations``, ... and ``trap``
        (a schedule into a trap, when the expectation is infinite; its states are the protocol's
        objects for a `Protocol`). With ``start="all"``, that of ``poplab exact --from all
        --json``: ``worst`` (``expected_steps``, ``start``, ``ties``), ``best_unsafe``,
        ``quantiles_steps``, ``uniform_states_steps`` and ``families`` (each named start's value
        and ``share_of_worst``).

    Raises:
        ValueError: invalid input, a probability that is no fraction with a denominator up to
            10^6, or more than ``max_configs`` configurations.

    >>> import poplab
    >>> report = poplab.exact("angluin", 30)
    >>> round(report["expected_steps"], 6), report["configurations"]   # (n - 1)^2
    (841.0, 30)
    >>> holding = poplab.exact("ls-timer", 4, params={"s": 8}, measure="holding")
    >>> round(holding["expected_steps"], 2)
    64431.72
    >>> every = poplab.exact("ls-timer", 4, params={"s": 6}, start="all")
    >>> every["starts"], round(every["worst"]["expected_steps"], 4), every["families"]["no-leader"]["share_of_worst"]
    (2380, 22.6669, 1.0)
    """
    if start is not None and start != "all":
        raise ValueError(f"start={start!r}: exact takes start='all' (every configuration); give one start with init=")
    target, user, n, settings = _prepare(protocol, n, params, init=init, graph=graph, measure=measure)
    solve = _poplab.exact_every if start == "all" else _poplab.exact
    return _states_back(json.loads(solve(target, n, settings, _whole("max_configs", max_configs, 1, _U64_MAX))), user)


def search(
    protocol: ProtocolLike,
    n: int,
    *,
    params: Optional[Mapping] = None,
    budget: str = "60s",
    trials: int = 40,
    top: int = 3,
    **options: Any,
) -> Dict[str, Any]:
    """The slowest start found, as ``poplab search``: candidate starts (the protocol's families and
    parameterized families, corners of the count simplex, mutations of the slowest) raced on
    common seeds, the slowest re-measured on fresh seeds. For a claim "from any configuration",
    which bounds the slowest start, not a typical one.

    Args:
        protocol, n, params: as for `run`.
        budget: ``"60s"`` (core-seconds of racing: the result depends on the machine) or
            ``"200c"`` (candidate starts: the same result anywhere).
        trials: fresh trials that re-measure each start reported.
        top: how many of the slowest starts to report.
        options: ``init`` (the start given, one candidate), ``graph``, ``engine``, ``seed``,
            ``max_steps``, ``threads``, as for `run`.

    Returns:
        The dict of ``poplab search --json``: ``worst`` (``start``, one state per agent, which
        ``init=`` takes; ``description``; ``mean_parallel_time`` and ``ci95`` on the fresh
        trials), ``top``, ``families`` (each named family measured the same way) and ``budget``
        (candidates, rounds, trials and core-seconds spent).

    Raises:
        ValueError: invalid input, or ``measure="holding"``.

    >>> import poplab
    >>> found = poplab.search("ls-timer", 4, params={"s": 6}, budget="20c", trials=10, seed=1)
    >>> len(found["worst"]["start"]), found["budget"]["candidates"] <= 20
    (4, True)
    """
    target, user, n, settings = _prepare(protocol, n, params, **options)
    document = _poplab.search(target, n, settings, str(budget), _whole("trials", trials, 2, _MAX_TRIALS, _MAX_TRIALS_TEXT), _whole("top", top, 1, 1000))
    return _states_back(json.loads(document), user)


def verify(
    protocol: ProtocolLike,
    n: int,
    *,
    start: Any = "default",
    params: Optional[Mapping] = None,
    graph: Any = None,
    max_configs: int = 10**6,
) -> Dict[str, Any]:
    """Checks closure, safety and convergence of the safe set exhaustively, as ``poplab verify``.

    Args:
        protocol, n, params, graph: as for `run`.
        start: ``--from``: ``"default"``, ``"all"`` (every configuration; built-ins and
            protocol files), a family, or an initial configuration as for `run`.
        max_configs: the cap on the configurations explored.

    Returns:
        The dict of ``poplab verify --json``: ``passed``, and per property (``closure``,
        ``safety``, ``convergence``) whether it passed, how many configurations violate it and a
        shortest counterexample schedule.

    Raises:
        ValueError: invalid input, a probability that is no fraction with a denominator up to
            10^6, or more than ``max_configs`` configurations.

    >>> import poplab
    >>> poplab.verify("prl", 2, start="all")["passed"]   # self-stabilizing: from everywhere
    True
    >>> poplab.verify("angluin", 5)["passed"]   # from 5 leaders: one leader, for good
    True
    >>> report = poplab.verify("angluin", 5, start="all")   # no leader: none is ever elected
    >>> report["passed"], report["convergence"]["passed"]
    (False, False)
    """
    from_all = isinstance(start, str) and start == "all"
    target, user, n, settings = _prepare(protocol, n, params, init=None if from_all else start, graph=graph)
    from_name = start if isinstance(start, str) else str(json.loads(settings)["init"])
    document = json.loads(_poplab.verify(target, n, settings, from_name, _whole("max_configs", max_configs, 1, _U64_MAX)))
    return _states_back(document, user)


class HoldingSweepResult:
    """A sweep with the splitting estimator (``measure="holding", estimator="splitting"``), as
    `sweep` returns it: one estimate of the expected holding time per cell, as ``poplab sweep
    --estimator splitting`` writes them.

    Attributes:
        estimates: a DataFrame, one row per cell: ``cell``, ``mean_steps``, ``ci95_low`` and
            ``ci95_high`` (steps; NaN beyond 10^300), their base-10 logarithms
            ``log10_mean_steps``, ``log10_ci95_low`` and ``log10_ci95_high`` (always given),
            ``log10_standard_error``, ``repetitions``, ``wall_seconds``.
        fit: the fits of ``log10 E[T]`` along the one swept axis (``exponential``, ``power``), or
            None when not exactly one axis varies.
        document: the whole curve, as a dict.
        out: the directory, if any.

    >>> import poplab
    >>> curve = poplab.sweep("ls-timer", [4, 6], measure="holding", estimator="splitting",
    ...                      trials=3, seed=1)
    >>> curve.estimates["cell"].tolist()
    ['n=4', 'n=6']
    >>> e = curve.estimates
    >>> bool(((e["log10_ci95_low"] < e["log10_mean_steps"]) & (e["log10_mean_steps"] < e["log10_ci95_high"])).all())
    True
    >>> curve.fit["axis"]
    'n'
    """

    def __init__(self, document: str, out: Optional[str]):
        self.document: Dict[str, Any] = json.loads(document)
        self.out = out
        rows = []
        for cell in self.document["cells"]:
            e = cell["estimate"]
            low, high = e["ci95"] if e.get("ci95") else (None, None)
            rows.append(
                {
                    "cell": cell["cell"],
                    "mean_steps": e["mean_steps"],
                    "ci95_low": low,
                    "ci95_high": high,
                    "log10_mean_steps": e["log10_mean_steps"],
                    "log10_ci95_low": e["log10_ci95"][0],
                    "log10_ci95_high": e["log10_ci95"][1],
                    "log10_standard_error": e["log10_standard_error"],
                    "repetitions": e["repetitions"],
                    "wall_seconds": cell["wall_seconds"],
                }
            )
        self.estimates = pd.DataFrame(rows)
        self.fit: Optional[Dict[str, Any]] = self.document.get("fit")

    def __repr__(self) -> str:
        return f"<HoldingSweepResult: {len(self.estimates)} cells>"


class SweepResult:
    """A sweep, as `sweep` returns it.

    Attributes:
        trials: a DataFrame, one row per trial: ``cell``, ``n``, the swept parameters, then the
            columns of `RunResult.trials`.
        summary: a DataFrame, one row per cell: ``cell``, ``n``, the swept parameters, the
            summary fields of `run`, ``ci95_low``, ``ci95_high``, ``in_fits`` and
            ``left_out_of_fits`` (why a cell with censored trials has no mean).
        fits: the fits of ``fits.json``, one per combination of parameters: the mean parallel
            time against n as a power law and as ``a + b f(n)`` for several forms ``f``.
        document: the ``summary.json`` of the sweep directory.
        out: the directory, if any.

    >>> import poplab
    >>> result = poplab.sweep("threshold", [20, 40], params={"k": [2, 4]}, trials=5, seed=1)
    >>> result
    <SweepResult 4 cells, 20 trials, out=None>
    >>> result.summary[["cell", "n", "k", "converged"]]
               cell   n  k  converged
    0  n=20 k=2  20  2          5
    1  n=20 k=4  20  4          5
    2  n=40 k=2  40  2          5
    3  n=40 k=4  40  4          5
    """

    def __init__(self, rows: str, summary: str, fits: str, params: Dict[str, Dict[str, Any]], out: Optional[str]):
        names = list(params)
        records = []
        # Each trial's parameter values as the library wrote them (what `judge` parses, as
        # `poplab sweep --claim` does), in the order of the trials.
        self._param_texts: Dict[str, List[str]] = {name: [] for name in names}
        for row in json.loads(rows):
            record = dict(row["record"])
            record["cell"] = row["cell"]
            record["n"] = row["n"]
            for name in names:
                text = row["params"][name]
                record[name] = params[name].get(text, text)
                self._param_texts[name].append(text)
            records.append(record)
        self.trials: pd.DataFrame = _trials_frame(records, ["cell", "n", *names])
        self.document: Dict[str, Any] = json.loads(summary)
        cells = []
        for cell in self.document["cells"]:
            entry: Dict[str, Any] = {"cell": cell["cell"], "n": cell["n"]}
            for name in names:
                text = cell["params"][name]
                entry[name] = params[name].get(text, text)
            s = dict(cell["summary"])
            ci = s.pop("ci95_parallel_time", None)
            s.pop("last_demotion", None)
            entry.update(s)
            entry["ci95_low"], entry["ci95_high"] = (ci if ci else (None, None))
            entry["in_fits"] = "left_out_of_fits" not in cell
            entry["left_out_of_fits"] = cell.get("left_out_of_fits")
            cells.append(entry)
        self.summary: pd.DataFrame = pd.DataFrame(cells)
        self.fits: List[Dict[str, Any]] = json.loads(fits)["fits"]
        self.out = out

    def __repr__(self) -> str:
        return f"<SweepResult {len(self.summary)} cells, {len(self.trials)} trials, out={self.out!r}>"

    def plot(self, ax: Any = None) -> Any:
        """Draws the mean parallel time against n on log-log axes, one series per combination of
        the other parameters: each cell's mean with its 95% bootstrap interval (percentiles of
        resampled means, so never below zero; a cell with censored trials has no mean and is left
        out, as in the fits) and the fitted power law ``c n^e`` as a smooth curve. Needs
        matplotlib.

        Args:
            ax: a matplotlib axis to draw on (default: a new figure's).

        Returns:
            The axis.

        >>> import poplab
        >>> axis = poplab.sweep("angluin", [10, 20, 40], trials=10, seed=1).plot()
        >>> axis.get_xscale(), axis.get_yscale(), len(axis.get_lines()[-1].get_xdata())
        ('log', 'log', 200)
        """
        return plot_sweep(self.trials, list(self._param_texts), self.fits, ax=ax)

    def judge(self, claim: str, unit: str = "parallel_time") -> Judgement:
        """Judges a claim written as in the papers on this sweep's trials, as
        ``poplab sweep --claim CLAIM --claim-in UNIT`` does (the same verdict and evidence).

        The claim is a function of the swept variable: ``n``, or the one parameter with several
        values (a sweep that varies none or several is refused); its other variables take the
        values held fixed (numeric parameters, and ``n`` when a parameter is swept). Censored
        trials count as censored: a point with some has no mean, and the rules say
        ``inconclusive``.

        Args:
            claim: as for `judge`: ``O(log n)``, ``Omega(N^2)``, ``= (n-1)^2``, ...
            unit: what the values are: ``parallel_time`` (steps / n) or ``steps``.

        Returns:
            A `Judgement`: ``verdict``, ``evidence`` and ``power``.

        Raises:
            ValueError: an unknown unit, a claim the parser refuses, a sweep that varies no
                variable or several, a swept parameter that is not a number, or a claim
                variable with no value.

        >>> import poplab
        >>> result = poplab.sweep("angluin", [10, 20, 40, 80], trials=40, seed=1)
        >>> result.judge("Omega(n)")
        <Judgement Omega(n): consistent (power 0.95)>
        >>> result.judge("O(log n)").verdict
        'inconsistent'
        >>> result.judge("O(n)").evidence   # 40 trials do not tell (n-1)^2/n from faster forms
        'the slope is within its error of the margin; ...'
        """
        if unit not in ("parallel_time", "steps"):
            raise ValueError(f"unit must be 'parallel_time' or 'steps', not {unit!r}")
        _check_claim(claim)
        trials = self.trials
        # The library gathers the trials into points and decides (as `poplab sweep --claim`).
        document = _poplab.judge_sweep(
            claim,
            [int(n) for n in trials["n"]],
            [int(steps) for steps in trials["steps"]],
            [outcome == "censored" for outcome in trials["outcome"]],
            [(name, [str(v) for v in values]) for name, values in self._param_texts.items()],
            unit == "parallel_time",
        )
        return Judgement(document)


@_with_options
def sweep(
    protocol: ProtocolLike,
    n: Union[int, Sequence[int]],
    *,
    params: Optional[Mapping] = None,
    trials: Optional[int] = None,
    out: Union[None, str, "os.PathLike[str]"] = None,
    **options: Any,
) -> Union["SweepResult", "HoldingSweepResult"]:
    """Runs ``protocol`` over the cross product of sizes and parameter values (as
    ``poplab sweep``).

    Args:
        protocol: as for `run`.
        n: a size or a list of sizes.
        params: each parameter with a value or a list of values, ``{"k": [5, 10]}``.
        trials: trials per cell (default: as ``poplab sweep``, 20, or with
            ``estimator="splitting"`` the estimator's repetitions, 100).
        seed: the master seed. Cell seeds come from it and the cell, so adding sizes or values
            never changes the cells already there.
        out: a directory: the sweep directory of ``poplab sweep`` is written there
            (``sweep.json``, ``trials.csv`` as trials finish, then ``summary.csv``,
            ``summary.json``, ``fits.json``); calling again with the same ``out`` continues it,
            running only the missing trials (like ``--resume``).

    Returns:
        A `SweepResult`: ``trials``, ``summary`` (one row per cell) and ``fits``; with
        ``estimator="splitting"`` (holding times), a `HoldingSweepResult`: one estimate per cell.

    Raises:
        ValueError: invalid input (every cell is resolved and checked before the first trial
            runs), or an ``out`` directory that holds a different sweep.
        OSError: the machine failed while writing ``out``.

    >>> import poplab
    >>> result = poplab.sweep("angluin", [10, 20, 40, 80], trials=100, seed=1)
    >>> result.summary["converged"].tolist()
    [100, 100, 100, 100]
    >>> power = result.fits[0]["power_law"]   # (n - 1)^2 / n: parallel time linear in n
    >>> low, high = power["exponent_ci95"]
    >>> low < 1 < high
    True
    """
    ns = [_n(x) for x in ([n] if hasattr(n, "__index__") else n)]
    if not ns:
        raise ValueError("n is an empty list: give a size or a list of sizes, such as [100, 1000]")
    _check_params(params)
    init = options.pop("init", None)
    target, user = _target(protocol)
    swept: Dict[str, List[Any]] = {}
    for name, values in (params or {}).items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            values = [values]
        swept[name] = list(values)
    texts = {name: {_param_text(v): v for v in values} for name, values in swept.items()}
    variants: Dict[str, Any] = {}
    if user is not None:
        name = user.name
        for combination in _combinations(swept) if swept else [{}]:
            variant = user.with_params(**combination)
            _init(init, variant)  # declares the states of an explicit init
            key = " ".join(f"{k}={_param_text(v)}" for k, v in combination.items())
            variants[key] = variant._ensure()[0]
        init_text = None
        if init is not None:
            # Every variant names the states of `init` alike (the first declared them first).
            first = user.with_params(**(_combinations(swept)[0] if swept else {}))
            init_text = _init(init, first)
            for variant in (user.with_params(**c) for c in (_combinations(swept) if swept else [{}])):
                if _init(init, variant) != init_text:
                    raise ValueError(
                        "the parameter variants of this protocol name the initial states differently; "
                        "give init as a family name or give the protocol init="
                    )
    else:
        name = target
        init_text = _init(init, None)
    settings = {**_settings(None, trials=trials, **options), "init": init_text}
    out_path = None if out is None else os.fspath(pathlib.Path(out))
    library_params = [(k, [_param_text(v) for v in values]) for k, values in swept.items()]
    kind, *parts = _poplab.sweep(name, json.dumps(settings), ns, library_params, variants, out_path)
    if kind == "holding":
        return HoldingSweepResult(parts[0], out_path)
    rows, summary, fits = parts
    return SweepResult(rows, summary, fits, texts, out_path)
