"""User protocols defined in Python: `Protocol`."""

from __future__ import annotations

import copy
import itertools
import pickle
import threading
from collections.abc import Mapping
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from . import _poplab
from ._options import _U64_MAX

#: The outputs a state can give: the library's, in its order.
OUTPUTS = tuple(_poplab.output_names())

#: Types whose values are immutable and hold nothing mutable: the rule gets them as they are.
_ATOMIC = (int, float, complex, str, bytes, bool, type(None), range)


def _copy(state: Any) -> Any:
    """What the rule receives: the state itself if it is atomic (or a tuple of atomic values), else
    a deep copy, so that a rule may mutate its arguments and return them. An object whose
    attributes are all atomic (a dataclass of numbers and strings, say) is copied attribute by
    attribute, as ``copy.deepcopy`` would, without its machinery."""
    kind = type(state)
    if kind in _ATOMIC:
        return state
    if kind is tuple and all(type(x) in _ATOMIC for x in state):
        return state
    attributes = getattr(state, "__dict__", None)
    if (
        type(attributes) is dict
        and kind.__reduce_ex__ is object.__reduce_ex__
        and not hasattr(kind, "__deepcopy__")
        and all(type(v) in _ATOMIC for v in attributes.values())
    ):
        twin = object.__new__(kind)
        twin.__dict__.update(attributes)
        return twin
    return copy.deepcopy(state)


def _output_name(value: Any, state: Any) -> str:
    if value is True:
        return "leader"
    if value is False:
        return "follower"
    if value is None:
        return "undecided"
    if isinstance(value, str) and value in OUTPUTS:
        return value
    raise ValueError(
        f"the output of state {state!r} is {value!r}; give one of {', '.join(OUTPUTS)} "
        "(or True/False for leader/follower)"
    )


class _Failure(Exception):
    """A Python rule or output failed: the message names the states, `__cause__` is the exception."""


def _output_function(output: Any) -> Callable[[Any], str]:
    """The function that names a state's output: by the dict or the function `output`, or
    ``undecided`` for every state without one."""

    def output_of(state: Any) -> str:
        if output is None:
            return "undecided"
        if isinstance(output, Mapping):
            if state not in output:
                raise KeyError(f"the output dict has no entry for state {state!r}")
            return _output_name(output[state], state)
        return _output_name(output(state), state)

    return output_of


class _Registry:
    """The state objects of one protocol instance and their ids (the library's state names), and
    the callbacks the library calls. It does not reference the `Protocol`, so no cycle goes through
    the extension."""

    def __init__(self, rule: Callable, output: Callable[[Any], str]):
        self.objects: List[Any] = []
        self.ids: Dict[Any, int] = {}
        self.rule = rule
        # A rule that copies its arguments itself (ppsim's, in `Simulation`) gets the states.
        self.rule_copies = getattr(rule, "copies_arguments", False)
        self.output = output
        # The library's worker threads and Python threads may intern at once (each holding the
        # GIL, which a state's __hash__ or __eq__ may release): one id per state.
        self.lock = threading.RLock()

    def intern(self, state: Any) -> str:
        with self.lock:
            try:
                known = self.ids.get(state)
            except TypeError:
                raise TypeError(
                    f"state {state!r} is not hashable: states must be hashable "
                    "(str, int, tuples, frozen dataclasses, ...)"
                ) from None
            if known is None:
                known = len(self.objects)
                self.objects.append(state)
                self.ids[state] = known
            return str(known)

    def state(self, name: str) -> Any:
        return self.objects[int(name)]

    def resolve(self, a: str, b: str) -> Optional[List[Tuple[Tuple[str, str], float]]]:
        x, y = self.state(a), self.state(b)
        try:
            result = self.rule(x, y) if self.rule_copies else self.rule(_copy(x), _copy(y))
        except Exception as e:
            raise _Failure(f"rule({x!r}, {y!r}) raised {type(e).__name__}: {e}") from e
        try:
            return self.law(result)
        except (TypeError, ValueError) as e:
            raise _Failure(f"rule({x!r}, {y!r}) returned {result!r}: {e}") from e

    def law(self, result: Any) -> Optional[List[Tuple[Tuple[str, str], float]]]:
        if result is None:
            return None
        if isinstance(result, Mapping):
            law = []
            for pair, p in result.items():
                c, d = _pair(pair)
                law.append(((self.intern(c), self.intern(d)), float(p)))
            return law
        c, d = _pair(result)
        return [((self.intern(c), self.intern(d)), 1.0)]

    def output_of(self, name: str) -> str:
        state = self.state(name)
        try:
            return self.output(state)
        except Exception as e:
            raise _Failure(f"output({state!r}) raised {type(e).__name__}: {e}") from e


def _amount(state: Any, amount: Any) -> Union[int, float]:
    """An initial amount: a count (a whole number >= 0) or a fraction of n (a float from 0 to 1)."""
    if isinstance(amount, bool) or not isinstance(amount, (int, float)):
        raise TypeError(
            f"init: the amount of state {state!r} must be a count (an int >= 0) or a fraction of n (a float from 0 "
            f"to 1), not {type(amount).__name__} {amount!r}"
        )
    if isinstance(amount, int) and amount < 0:
        raise ValueError(f"init: the count of state {state!r} is {amount}; give a count >= 0")
    if isinstance(amount, float) and not 0.0 <= amount <= 1.0:
        raise ValueError(
            f"init: the amount of state {state!r} is {amount}; a float is a fraction of n from 0 to 1 (give a "
            "count as an int)"
        )
    if isinstance(amount, int) and amount > _U64_MAX:
        raise ValueError(f"init: the count of state {state!r} is {amount}, more than 2**64 - 1")
    return amount


def _pair(value: Any) -> Tuple[Any, Any]:
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return value[0], value[1]
    raise TypeError("expected a pair of states (c, d), None for a null interaction, or a dict {(c, d): probability}")


class Protocol:
    """A population protocol defined in Python.

    ``rule`` is either a dict ``{(a, b): (c, d)}`` (pairs not listed are null), with laws
    ``{(a, b): {(c, d): p, ...}}`` for randomized rules (the rest of 1 is null), or a function
    ``rule(a, b, **params)`` returning a pair ``(c, d)``, ``None`` (null) or a law
    ``{(c, d): p, ...}``. It is called the first time a pair of states meets, and its answer is
    memoised for every later trial, run and thread. States are any hashable Python objects
    (str, int, tuples, frozen dataclasses, ...); the rule receives copies (``copy.deepcopy``, or the
    state itself when it is an atomic immutable value), so it may mutate its arguments and return
    them.

    ``output`` maps a state to ``"leader"``, ``"follower"``, ``"yes"``, ``"no"`` or
    ``"undecided"`` (``True``/``False`` mean leader/follower): a function or a dict (default: every
    state undecided). ``stop`` is the safe set that ends a trial: ``"silent"`` (default),
    ``"one-leader"``, ``"consensus"``, ``"all-yes"``, ``"all-no"`` or ``"time:T"``. ``init`` is the
    default initial configuration: ``{state: count}`` (a float in [0, 1] is a fraction of n; the
    last state takes the agents left over) or a list of states, one per agent.

    A rule function is treated as randomized (it may return a law at any time) unless
    ``deterministic=True``; a dict rule is deterministic when every value is a pair. On the count
    and batched engines, the pairs of a randomized protocol that return one pair or ``None`` cost
    what a deterministic protocol's do (they are memoised; only pairs with a law draw). Exact
    analysis (`poplab.exact`, `poplab.verify`) needs a deterministic protocol. Extra keyword
    arguments are the protocol's parameters, passed to a rule function as keyword arguments;
    ``run(..., params={...})`` and sweeps over parameters derive protocols with other values.

    ``closed_stops`` says whether the stop rule's safe set is never left once entered, which lets
    the batched engine check it once per batch instead of after every interaction (as for a
    protocol file). By default (``None``) it is checked: on a dict rule's entries, as for a file;
    a rule function is known closed only for ``stop="silent"``. ``closed_stops=True`` declares it
    for a rule function (if the set is in fact left, a visit inside one batch can be missed);
    ``False`` keeps single steps.

    A `Protocol` goes wherever a protocol name goes: `run`, `sweep`, `trace`, `exact`, `verify`.
    A rule or output that raises makes the run raise `RuleError`, with the Python exception as
    its ``__cause__``.

    Raises:
        TypeError: a rule that is neither a dict nor a function, or parameters with a dict rule.
        ValueError: ``deterministic=True`` with a dict rule that gives probabilities.

    A table: angluin's election, whose expected time to one leader is exactly ``(n - 1)^2``.

    >>> import poplab
    >>> election = poplab.Protocol({("L", "L"): ("L", "F")}, output={"L": "leader", "F": "follower"},
    ...                            stop="one-leader", init={"L": 1.0}, name="election")
    >>> election
    Protocol('election', stop='one-leader')
    >>> round(poplab.exact(election, 10)["expected_steps"], 6)
    81.0
    >>> poplab.run(election, 1000, trials=20, seed=1).summary["converged"]
    20

    The 4-state exact majority as a dict: its consensus is closed under the rule (checked), so
    runs batch as the protocol file's do.

    >>> majority = poplab.Protocol(
    ...     {("A", "B"): ("a", "b"), ("B", "A"): ("b", "a"), ("A", "b"): ("A", "a"),
    ...      ("b", "A"): ("a", "A"), ("B", "a"): ("B", "b"), ("a", "B"): ("b", "B")},
    ...     output={"A": "yes", "a": "yes", "B": "no", "b": "no"}, stop="consensus",
    ...     init={"A": 0.51, "B": 0.49})
    >>> majority.safe_set_closed
    True

    A function of two states (any hashable objects) and of the protocol's parameters: a leader
    counts the leaders it beat, up to ``cap``.

    >>> def rule(a, b, cap):
    ...     if a[0] == "L" and b[0] == "L":
    ...         return ("L", min(a[1] + b[1] + 1, cap)), ("F", 0)
    ...     return None   # null; or a pair; or a law {(c, d): probability}
    >>> counting = poplab.Protocol(rule, output=lambda s: s[0] == "L", stop="one-leader",
    ...                            init={("L", 0): 1.0}, deterministic=True, cap=3)
    >>> result = poplab.run(counting, 100, trials=5, seed=1)
    >>> sorted(s for s in counting.states if s[0] == "L")
    [('L', 0), ('L', 1), ('L', 2), ('L', 3)]

    A failing rule:

    >>> broken = poplab.Protocol(lambda a, b: 1 / 0, init={"x": 1.0})
    >>> try:
    ...     poplab.run(broken, 10)
    ... except poplab.RuleError as error:
    ...     print(error)
    ...     print(repr(error.__cause__))
    rule of protocol: pair (0, 0): rule('x', 'x') raised ZeroDivisionError: division by zero
    ZeroDivisionError('division by zero')
    """

    def __init__(
        self,
        rule: Union[Mapping, Callable],
        *,
        output: Union[None, Mapping, Callable[[Any], Any]] = None,
        stop: Optional[str] = None,
        name: Optional[str] = None,
        init: Union[None, Mapping, list, tuple] = None,
        deterministic: Optional[bool] = None,
        closed_stops: Optional[bool] = None,
        **params: Any,
    ):
        self._table: Optional[Dict[Tuple[Any, Any], Any]] = None
        if isinstance(rule, Mapping):
            if params:
                raise TypeError("parameters go with a rule function, not a dict rule")
            table = {}
            randomized = False
            for pair, result in rule.items():
                a, b = _pair(pair)
                if isinstance(result, Mapping):
                    laws = {_pair(r): float(p) for r, p in result.items()}
                    randomized |= not (len(laws) == 1 and next(iter(laws.values())) >= 1.0)
                    table[(a, b)] = laws
                else:
                    table[(a, b)] = None if result is None else _pair(result)
            if deterministic and randomized:
                raise ValueError("deterministic=True, but the rule gives a law with probabilities")
            self._call = table.get
            self._table = table
            self.randomized = randomized
            self.rule: Union[Mapping, Callable] = dict(rule)
            default_name = "protocol"
        elif callable(rule):
            self._call = rule
            self.randomized = not deterministic
            self.rule = rule
            default_name = getattr(rule, "__name__", "protocol")
            if default_name == "<lambda>":
                default_name = "protocol"
        else:
            raise TypeError(f"rule must be a dict or a function, not {type(rule).__name__}")
        self.output = output
        self.stop = "silent" if stop is None else stop
        _poplab.check_stop(self.stop)
        self.name = name or default_name
        if isinstance(init, Mapping):
            for state, amount in init.items():
                _amount(state, amount)
        if init is not None and len(init) == 0:
            raise ValueError("init is empty: give each initial state's amount, such as init={'A': 1.0}, or leave init out")
        self.init = init
        self.deterministic = deterministic
        if closed_stops is not None and not isinstance(closed_stops, bool):
            raise TypeError(f"closed_stops must be True, False or None, not {closed_stops!r}")
        self.closed_stops = closed_stops
        self.params: Dict[str, Any] = dict(params)
        self._handle: Optional[Any] = None
        self._registry: Optional[_Registry] = None
        # Python threads may start runs of this protocol at once: it is built once.
        self._building = threading.RLock()
        self._variants: Dict[Any, Protocol] = {}

    def __repr__(self) -> str:
        params = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"Protocol({self.name!r}, stop={self.stop!r}{params})"

    def with_params(self, **params: Any) -> "Protocol":
        """This protocol with some parameters changed (cached: the same values give the same
        protocol, and so keep its memo of resolved pairs).

        Raises:
            TypeError: the protocol's rule is a dict (it takes no parameters).

        >>> import poplab
        >>> def rule(a, b, p):
        ...     return {("L", "F"): p} if a == b == "L" else None
        >>> election = poplab.Protocol(rule, output={"L": True, "F": False}, stop="one-leader",
        ...                            init={"L": 1.0}, p=1.0)
        >>> slow = election.with_params(p=0.5)
        >>> slow, slow is election.with_params(p=0.5)
        (Protocol('rule', stop='one-leader', p=0.5), True)
        >>> fast = poplab.run(election, 200, trials=100, seed=1).summary["mean_steps"]
        >>> half = poplab.run(slow, 200, trials=100, seed=1).summary["mean_steps"]
        >>> 1.5 < half / fast < 2.5   # twice as many steps expected
        True
        """
        merged = {**self.params, **params}
        if merged == self.params:
            return self
        try:
            key: Any = tuple(sorted(merged.items()))
            hash(key)
        except TypeError:
            key = None
        with self._building:
            if key is not None and key in self._variants:
                return self._variants[key]
            if isinstance(self.rule, Mapping):
                raise TypeError("parameters go with a rule function, not a dict rule")
            variant = Protocol(
                self.rule,
                output=self.output,
                stop=self.stop,
                name=self.name,
                init=self.init,
                deterministic=self.deterministic,
                closed_stops=self.closed_stops,
                **merged,
            )
            if key is not None:
                self._variants[key] = variant
            return variant

    # The library's side.

    def _output_of(self, state: Any) -> str:
        return _output_function(self.output)(state)

    def _rule_of(self) -> Callable:
        call, params = self._call, self.params
        if isinstance(self.rule, Mapping):
            return lambda a, b: call((a, b))
        return (lambda a, b: call(a, b, **params)) if params else call

    def _ensure(self) -> Tuple[Any, _Registry]:
        """The extension's protocol (built on first use) and the state registry."""
        with self._building:
            return self._build()

    def _build(self) -> Tuple[Any, _Registry]:
        if self._handle is None:
            # Callbacks that do not reference this Protocol: the registry is held by the extension's
            # protocol, which the garbage collector cannot see through, so a reference back to
            # self would keep the whole Simulation alive (16 MB each in ppsim's README example).
            registry = _Registry(self._rule_of(), _output_function(self.output))
            init: List[Tuple[str, Any]] = []
            if isinstance(self.init, Mapping):
                for state, amount in self.init.items():
                    init.append((registry.intern(state), _amount(state, amount)))
            elif self.init is not None:
                counts: Dict[str, int] = {}
                for state in self.init:
                    key = registry.intern(state)
                    counts[key] = counts.get(key, 0) + 1
                init = list(counts.items())
            try:
                states = [(name, registry.output_of(name)) for name, _ in init]
            except _Failure as e:
                # An initial state's output fails as a run's would: RuleError, the cause kept.
                raise _poplab.RuleError(f"rule of {self.name}: {e}") from e.__cause__
            self._handle = _poplab.UserProtocol(
                self.name, registry.resolve, registry.output_of, self.stop, self.randomized, states, init, self.safe_set_closed
            )
            self._registry = registry
        assert self._registry is not None
        return self._handle, self._registry

    @property
    def safe_set_closed(self) -> bool:
        """Whether the stop rule's safe set is taken as closed under the rule (runs then check it
        once per batch): as declared by
        ``closed_stops``; else, for a dict rule, checked on its entries (the outputs of each pair
        and of its results; a state whose output fails makes it unchecked, and so not closed);
        else only silence is known to be (the library's own rule)."""
        if self.closed_stops is not None:
            return self.closed_stops
        if self.stop == "silent":
            return True
        if self._table is None:
            return False
        try:
            rules = []
            for (a, b), result in self._table.items():
                results = [] if result is None else list(result) if isinstance(result, Mapping) else [result]
                pair = (self._output_of(a), self._output_of(b))
                rules.append((pair, [(self._output_of(c), self._output_of(d)) for c, d in results]))
        except Exception:
            return False
        return _poplab.safe_set_is_closed(self.stop, rules)

    def _declare(self, state: Any) -> str:
        """The library's name of `state`, known to the library (its output asked now if new)."""
        handle, registry = self._ensure()
        name = registry.intern(state)
        handle.declare(name)
        return name

    def _state(self, name: str) -> Any:
        return self._ensure()[1].state(name)

    @property
    def resolved_pairs(self) -> int:
        """How many pairs of states the rule was called on so far (each pair once, however many
        trials, runs and threads met it).

        >>> import poplab
        >>> calls = []
        >>> def rule(a, b):
        ...     calls.append((a, b))
        ...     return ("L", "F") if a == b == "L" else None
        >>> election = poplab.Protocol(rule, output={"L": True, "F": False}, stop="one-leader",
        ...                            init={"L": 1.0}, deterministic=True)
        >>> election.resolved_pairs
        0
        >>> _ = poplab.run(election, 100, trials=20, engine="agents")
        >>> election.resolved_pairs == len(calls) <= 4   # (L, L), (L, F), (F, L), (F, F)
        True
        """
        return 0 if self._handle is None else self._handle.resolved_pairs()

    @property
    def states(self) -> List[Any]:
        """The states met so far (declared or produced by the rule), in order of appearance.

        >>> import poplab
        >>> election = poplab.Protocol({("L", "L"): ("L", "F")}, output={"L": True, "F": False},
        ...                            stop="one-leader", init={"L": 1.0})
        >>> election.states
        []
        >>> _ = poplab.run(election, 10)
        >>> election.states
        ['L', 'F']
        """
        return [] if self._registry is None else list(self._registry.objects)

    # Pickling and copying: the definition and the states met, in order (the library's names of
    # the states are their positions, which a saved run refers to).

    def _fields(self) -> Dict[str, Any]:
        return {
            "rule": self.rule,
            "output": self.output,
            "stop": self.stop,
            "name": self.name,
            "init": self.init,
            "deterministic": self.deterministic,
            "closed_stops": self.closed_stops,
            "params": self.params,
            "states": self.states,
        }

    def __getstate__(self) -> Dict[str, Any]:
        fields = self._fields()
        for part in ("rule", "output"):
            try:
                pickle.dumps(fields[part])
            except Exception as e:
                raise TypeError(
                    f"protocol {self.name!r} cannot be pickled: its {part} {fields[part]!r} cannot be ({e}); define "
                    f"the {part} with def at the top level of a module (not a lambda or a nested function), so that "
                    "pickle finds it by name (copy.deepcopy works whatever it is)"
                ) from e
        return fields

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(  # type: ignore[misc]
            state["rule"],
            output=state["output"],
            stop=state["stop"],
            name=state["name"],
            init=state["init"],
            deterministic=state["deterministic"],
            closed_stops=state.get("closed_stops"),
            **state["params"],
        )
        if state["states"]:
            registry = self._ensure()[1]
            for i, known in enumerate(state["states"]):
                if registry.intern(known) != str(i):
                    raise ValueError(f"a pickled protocol {self.name!r} lists state {known!r} twice; it is damaged")

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Protocol":
        twin = Protocol.__new__(Protocol)
        memo[id(self)] = twin
        twin.__setstate__(copy.deepcopy(self._fields(), memo))
        return twin


def _combinations(params: Mapping) -> List[Dict[str, Any]]:
    names = list(params)
    return [dict(zip(names, values)) for values in itertools.product(*(params[k] for k in names))]

