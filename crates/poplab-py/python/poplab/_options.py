"""The options of poplab's functions, declared and checked in one place: `_settings` declares
every run option (the fields of the library's ``RawSpec``: a test compares them with
``_poplab.spec_fields()``), `_with_options` shows them in the signatures and docstrings of `run`,
`trace` and `sweep`, and the checkers below turn what the user gave into what the library takes,
refusing the rest with a TypeError or a ValueError that names the argument and how to fix it."""

from __future__ import annotations

import inspect
import json
import math
import numbers
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Set, Tuple

from . import _poplab

if TYPE_CHECKING:
    from ._protocol import Protocol


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


#: The largest value of a 64-bit unsigned integer (seeds, population sizes).
_U64_MAX = 2**64 - 1
#: The largest value of a 128-bit unsigned integer (step counts).
_U128_MAX = 2**128 - 1


def _power_text(value: int) -> str:
    """``value`` as messages write it: ``10**8``, ``2**62``, else its digits."""
    for base in (10, 2):
        exponent = round(math.log(value, base))
        if base**exponent == value:
            return f"{base}**{exponent}"
    return str(value)


#: The most agents a run takes and the most trials per run or sweep: the library's
#: ``engine::MAX_AGENTS`` and ``experiment::MAX_TRIALS``, as messages write them.
_MAX_AGENTS, _MAX_TRIALS = _poplab.limits()
_MAX_AGENTS_TEXT, _MAX_TRIALS_TEXT = _power_text(_MAX_AGENTS), _power_text(_MAX_TRIALS)


def _whole(name: str, value: Any, low: int, high: int, high_text: Optional[str] = None) -> int:
    """``value`` as a whole number from ``low`` to ``high``: a TypeError for anything that is not
    a whole number (``2.9``, ``"3"``, ``True``), a ValueError naming ``name`` and the range for
    one outside it. A float is never rounded."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be a whole number (an int), not {type(value).__name__} {value!r}")
    value = int(value)
    if not low <= value <= high:
        raise ValueError(f"{name} = {value} is out of range: give {low} to {high_text or high}")
    return value


def _flag(name: str, value: Any) -> bool:
    """``value`` as a bool: only True or False (``"no"`` is not False)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} {value!r}")
    return value


def _n(n: Any) -> int:
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"n must be a whole number, not {type(n).__name__}")
    n = int(n)
    if n < 0:
        raise ValueError(f"n = {n} is out of range: a population needs at least 2 agents")
    if n > _MAX_AGENTS:
        raise ValueError(f"n = {n} is out of range: at most {_MAX_AGENTS_TEXT} agents (the engines' limit)")
    return n


def _threads(threads: Any) -> Optional[int]:
    return None if threads is None else _whole("threads", threads, 1, 256)


def _max_steps(max_steps: Any) -> Optional[int]:
    return None if max_steps is None else _whole("max_steps", max_steps, 1, _U128_MAX, "2**128 - 1")


def _init(init: Any, user: Optional[Protocol]) -> Optional[str]:
    """The library's text of an initial configuration."""
    if init is None:
        if user is not None and user.init is None:
            raise ValueError(
                f"protocol {user.name} has no initial configuration; give init= to this call or to poplab.Protocol"
            )
        return None
    if isinstance(init, os.PathLike):
        return "@" + os.fspath(init)
    if isinstance(init, str):
        return init
    if isinstance(init, Mapping):
        if user is None:
            return json.dumps(dict(init))
        counts = []
        for state, count in init.items():
            if isinstance(count, bool) or not hasattr(count, "__index__"):
                raise ValueError(f"initial configuration: the count of state {state!r} must be a whole number")
            counts.append(f"{user._declare(state)}={int(count)}")
        if not counts:
            raise ValueError("initial configuration: the dict of counts is empty")
        return "counts:" + ",".join(counts)
    if isinstance(init, (list, tuple)):
        if user is None:
            return json.dumps(list(init))
        names = {}
        agents = []
        for state in init:
            name = names.get(state) if _hashable(state) else None
            if name is None:
                name = user._declare(state)
                names[state] = name
            agents.append(name)
        return json.dumps(agents)
    raise TypeError(
        "init must be a name (default, random, a family), a dict {state: count} or a list of states, "
        f"not {type(init).__name__}"
    )


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def _faults(faults: Any) -> List[str]:
    if faults is None:
        return []
    if isinstance(faults, (str, tuple)):
        faults = [faults]
    out = []
    for fault in faults:
        if isinstance(fault, str):
            out.append(fault)
        elif isinstance(fault, tuple) and len(fault) in (2, 3):
            out.append(":".join(str(x) for x in fault))
        else:
            raise TypeError(f"a fault is 'STEP:K[:FAMILY]' or (step, k[, family]), not {fault!r}")
    return out


def _either(names: Tuple[str, ...]) -> str:
    """``names`` in words, as messages list choices: ``"a, b or c"``."""
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else "".join(names)


#: The graphs known by name: the library's ``Graph::names``.
_GRAPHS = tuple(_poplab.graph_names())


def _graph(graph: Any) -> Optional[str]:
    if graph is None:
        return None
    if isinstance(graph, os.PathLike):
        graph = os.fspath(graph)
        if not os.path.isfile(graph):
            raise FileNotFoundError(f"graph: the arc list {graph!r} does not exist (or is not a file)")
        return "@" + graph
    if isinstance(graph, str):
        # A path to an arc list, or a graph's name.
        if graph in _GRAPHS:
            return graph
        path = graph[1:] if graph.startswith("@") else graph
        if os.path.isfile(path):
            return "@" + path
        if graph.startswith("@") or os.sep in graph or "." in graph:
            raise FileNotFoundError(f"graph={graph!r}: no such arc-list file; give an existing file, or {_either(_GRAPHS)}")
        raise ValueError(f"graph={graph!r} is not a graph: give {', '.join(_GRAPHS)} or the path of an arc list")
    raise TypeError(f"graph must be {', '.join(_GRAPHS)} or a path to an arc list, not {graph!r}")


def _estimator(estimator: Any) -> Dict[str, Any]:
    """The library's estimator: ``"direct"``, ``"splitting"``, or a dict of the splitting
    estimator's options (``replicas``, ``cycles``, ``score``, ``base_level``)."""
    if isinstance(estimator, str):
        return {"method": estimator}
    if isinstance(estimator, Mapping):
        return {"method": "splitting", **estimator}
    raise TypeError(f"estimator must be 'direct', 'splitting' or a dict of splitting options, not {estimator!r}")


def _settings(
    user: Optional[Protocol],
    *,
    init: Any = None,
    graph: Any = None,
    engine: str = "auto",
    measure: str = "convergence",
    trials: Optional[int] = None,
    seed: int = 0,
    max_steps: Optional[int] = None,
    faults: Any = None,
    threads: Optional[int] = None,
    census: bool = False,
    estimator: Any = "direct",
) -> Dict[str, Any]:
    """The options of a run, checked, as the library's JSON (the fields of its ``RawSpec``): the
    one place the Python layer declares them, with their documentation below, which
    `_with_options` adds to the ``Args`` of `run`, `trace` and `sweep`. Options left out keep the
    library's defaults.

    Options:
        init: ``"default"``, ``"random"``, a family name, ``"counts:A=6,B=4"``,
            ``{state: count}`` or a list of states (one per agent); ``None``: the protocol's own.
        graph: ``None`` (the protocol's own), ``"complete"``, ``"ring"``,
            ``"undirected-ring"`` or a path to an arc list.
        engine: ``"auto"``, ``"agents"``, ``"counts"`` or ``"batched"``.
        measure: ``"convergence"`` (steps to the safe set) or ``"holding"`` (steps until an
            output changes, from a safe start).
        trials, seed: independent trials; trial ``i`` is seeded by the ``i``-th SplitMix64
            output of ``seed``.
        max_steps: the horizon (default 10^12); a trial that reaches it is ``censored``.
        faults: ``"STEP:K[:FAMILY]"`` strings or ``(step, k[, family])`` tuples.
        threads: worker threads (default: every core; trials run side by side, one thread
            each; results do not depend on it).
        census: count distinct states and demotion causes per trial.
        estimator: with ``measure="holding"``, ``"direct"`` (trials until the break) or
            ``"splitting"`` (the splitting estimator, ``--estimator splitting``; ``trials`` are
            its repetitions, default 100), or a dict of its options ``{"replicas": 200,
            "cycles": 1000, "score": None, "base_level": None}``.
    """
    settings: Dict[str, Any] = {
        "init": _init(init, user),
        "graph": _graph(graph),
        "engine": str(engine),
        "measure": str(measure),
    }
    if trials is not None:
        settings["trials"] = _whole("trials", trials, 1, _MAX_TRIALS, _MAX_TRIALS_TEXT)
    settings["seed"] = _whole("seed", seed, 0, _U64_MAX, "2**64 - 1")
    if max_steps is not None:
        settings["max_steps"] = _max_steps(max_steps)
    settings["faults"] = _faults(faults)
    if threads is not None:
        settings["threads"] = _threads(threads)
    settings["census"] = _flag("census", census)
    settings["estimator"] = _estimator(estimator)
    return settings


def _doc_entries(block: str) -> List[Tuple[Set[str], str]]:
    """The entries of a docstring's argument block: the names before each ``name[, name]:`` at an
    8-space indent, with the entry's text (continuation lines included)."""
    entries: List[Tuple[Set[str], str]] = []
    for line in block.splitlines(keepends=True):
        if line.startswith("        ") and not line.startswith("         "):
            entries.append(({name.strip() for name in line.split(":", 1)[0].split(",")}, line))
        elif entries and line.startswith("         "):
            entries[-1] = (entries[-1][0], entries[-1][1] + line)
    return entries


def _with_options(function: Any) -> Any:
    """Shows the options of `_settings` in ``function``'s signature (``help``, completion), in
    place of its ``**options``, and their documentation at the end of its ``Args`` (but those
    it takes or documents itself)."""
    own = [p for p in inspect.signature(function).parameters.values() if p.kind != p.VAR_KEYWORD]
    taken = {p.name for p in own}
    options = [p for p in list(inspect.signature(_settings).parameters.values())[1:] if p.name not in taken]
    function.__signature__ = inspect.signature(function).replace(parameters=own + options)
    head, returns = function.__doc__.split("\n\n    Returns:", 1)
    if "\n    Args:\n" in head:
        taken |= set().union(*(names for names, _ in _doc_entries(head.split("\n    Args:\n", 1)[1])))
    else:
        head += "\n\n    Args:"
    block = (_settings.__doc__ or "").split("    Options:\n", 1)[1]
    added = "".join(text for names, text in _doc_entries(block) if not names <= taken)
    function.__doc__ = f"{head}\n{added.rstrip()}\n\n    Returns:{returns}"
    return function


def _check_params(params: Any) -> None:
    """Refuses ``params`` that is not a mapping of names to values."""
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"params must be a dict of names to values, such as {{'k': 3}}, not {type(params).__name__} {params!r}")


def _number(name: str, value: Any) -> float:
    """`value` as a finite float; `name` says which argument it is in the error."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} is {value}: give finite numbers")
    return value


def _sequence(name: str, value: Any) -> List[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a sequence, not {type(value).__name__}")
    return list(value)
