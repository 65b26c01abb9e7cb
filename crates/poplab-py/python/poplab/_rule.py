"""ppsim's rule as a poplab rule: `_PpsimRule` takes a rule as ppsim takes it (a dict, or a function
with extra keyword arguments), with ppsim's transition orders, and answers for each ordered pair
of states as a `Protocol`'s rule does (None, a pair, or a law). `Simulation` runs it and its
`StateSpace` enumerates the states it reaches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._protocol import _copy

#: What ``transition_order`` takes.
TRANSITION_ORDERS = ("asymmetric", "symmetric", "symmetric_enforced")


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
            raise TypeError(
                f"rule must be a dict {{(a, b): (c, d)}}, a function rule(a, b) or a list of ppsim's reactions "
                f"(poplab.crn.Reaction), not {type(rule).__name__}"
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
