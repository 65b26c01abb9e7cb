"""ppsim's view of a protocol's states and reactions: the reachable states, found by breadth-first
search from the initial states, and the non-null reactions in ppsim's notation.

`Simulation` builds on these: ``state_list`` (every reachable state), ``reactions``,
``enabled_reactions`` and ``null_probability``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, Callable, Dict, Hashable, Iterable, List, Optional, Tuple

#: A rule's result for one ordered pair: None (null), a pair, or a law {(c, d): p} (no null entries).
Result = Any
#: One reaction: the reactants, the products and the probability they react when they meet.
Reaction = Tuple[Any, Any, Any, Any, float]


def outcomes(result: Result) -> List[Tuple[Tuple[Any, Any], float]]:
    """The outcomes of a result as ((c, d), probability) pairs: none for a null result.

    >>> outcomes(None), outcomes(("A", "A")), outcomes({("A", "A"): 0.25})
    ([], [(('A', 'A'), 1.0)], [(('A', 'A'), 0.25)])
    """
    if result is None:
        return []
    if isinstance(result, Mapping):
        return [((c, d), float(p)) for (c, d), p in result.items()]
    c, d = result
    return [((c, d), 1.0)]


def reachable_states(
    initial: Iterable[Hashable], one_way: Callable[[Any, Any], Result], limit: int
) -> Optional[Tuple[List[Any], Dict[Tuple[Any, Any], Result]]]:
    """Every state reachable from ``initial`` by the rule (``one_way(a, b)``: the result of the
    ordered pair alone), found by breadth-first search as ppsim does at construction: each new
    state meets every state found before it, in both orders. Returns the states in the order
    found and the non-null results met, or ``None`` as soon as more than ``limit`` states are found
    (the search then costs at most about ``limit**2`` calls of the rule).

    Discrete averaging from 0 and 50 reaches the 51 values between:

    >>> import math
    >>> average = lambda a, b: (math.floor((a + b) / 2), math.ceil((a + b) / 2))
    >>> states, results = reachable_states([0, 50], average, limit=100)
    >>> sorted(states) == list(range(51)), results[(0, 50)]
    (True, (25, 25))
    >>> reachable_states([0, 50], average, limit=50) is None
    True
    """
    found: List[Any] = []
    seen = set()
    queue: deque = deque()
    for state in initial:
        if state not in seen:
            seen.add(state)
            queue.append(state)
    if len(seen) > limit:
        return None
    results: Dict[Tuple[Any, Any], Result] = {}
    while queue:
        state = queue.popleft()
        found.append(state)
        for other in found:
            pairs = [(state, other)] if other == state else [(state, other), (other, state)]
            for a, b in pairs:
                result = one_way(a, b)
                if result is None:
                    continue
                results[(a, b)] = result
                for (c, d), _ in outcomes(result):
                    for new in (c, d):
                        if new not in seen:
                            seen.add(new)
                            queue.append(new)
                            if len(seen) > limit:
                                return None
    return found, results


def reactions(states: List[Any], law: Callable[[Any, Any], Result]) -> List[Reaction]:
    """ppsim's list of non-null reactions among ``states`` (in that order), for the rule as the
    simulation applies it (``law(a, b)``: the result of the ordered pair once the transition
    order is applied).

    Each unordered pair ``{states[i], states[j]}``, ``j <= i``, in that order, gives its outcomes
    with the probability that they happen when the two agents meet: when both orders give the same
    outcomes (as unordered pairs), each outcome once with its probability; otherwise each order's
    outcomes with half its probability (the pair meets in that order half of the time).

    >>> rule = {("A", "B"): ("U", "U")}
    >>> reactions(["A", "B", "U"], lambda a, b: rule.get((a, b)))
    [('A', 'B', 'U', 'U', 0.5)]
    >>> both = {**rule, ("B", "A"): ("U", "U")}
    >>> reactions(["A", "B", "U"], lambda a, b: both.get((a, b)))
    [('B', 'A', 'U', 'U', 1.0)]
    """
    out: List[Reaction] = []
    for i, a in enumerate(states):
        for b in states[: i + 1]:
            forward = outcomes(law(a, b))
            if a == b:
                orders = [(a, b, forward, 1.0)]
            else:
                backward = outcomes(law(b, a))
                if _unordered(forward) == _unordered(backward):
                    orders = [(a, b, forward, 1.0)]
                else:
                    orders = [(a, b, forward, 0.5), (b, a, backward, 0.5)]
            for x, y, law_of_pair, share in orders:
                for (c, d), p in law_of_pair:
                    out.append((x, y, c, d, p * share))
    return out


def _unordered(law: List[Tuple[Tuple[Any, Any], float]]) -> Dict[Tuple[str, str], float]:
    table: Dict[Tuple[str, str], float] = {}
    for (c, d), p in law:
        key = tuple(sorted((repr(c), repr(d))))
        table[key] = table.get(key, 0.0) + p  # type: ignore[index]
    return table  # type: ignore[return-value]


def reaction_string(reaction: Reaction, index: Mapping, width: int) -> str:
    """ppsim's notation for one reaction: reactants and products each in the order of
    ``state_list`` (``index``), right-justified to ``width``, and the probability when below 1.

    >>> reaction_string(("B", "A", "U", "U", 0.5), {"A": 0, "B": 1, "U": 2}, 1)
    'A, B  -->  U, U      with probability 0.5'
    """
    a, b, c, d, p = reaction
    order = lambda s: index.get(s, len(index))  # noqa: E731
    reactants = sorted([a, b], key=order)
    products = sorted([c, d], key=order)
    text = "{0}, {1}  -->  {2}, {3}".format(*[str(x).rjust(width) for x in reactants + products])
    if p < 1:
        text += f"      with probability {p}"
    return text


def non_null_propensity(reactions_: Iterable[Reaction], counts: Mapping) -> float:
    """The expected number of non-null interactions among the ``n (n - 1) / 2`` unordered pairs
    of agents: each reaction's probability times the number of pairs of its reactants.

    >>> non_null_propensity([("A", "B", "U", "U", 1.0), ("A", "A", "B", "B", 0.5)], {"A": 3, "B": 2})
    7.5
    """
    total = 0.0
    for a, b, _, _, p in reactions_:
        x, y = counts.get(a, 0), counts.get(b, 0)
        total += p * (x * (x - 1) / 2 if a == b else x * y)
    return total
