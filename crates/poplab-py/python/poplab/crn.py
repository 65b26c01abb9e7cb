"""ppsim's chemical reaction networks (``species``, ``Reaction``, ``ppsim.crn``) on poplab.

A network is written as in ppsim: species from `species`, reactions with ``+``, ``>>`` (one way),
``|`` (both ways), ``2 * a``, rate constants with ``.k(rate)`` and ``.r(rate)`` (the reverse
one), in stochastic units or, with ``units=RateConstantUnits.mass_action``, per molar per second.
``Simulation(init_config, reactions, volume=..., time_units=...)`` runs it as ppsim does: each
reaction becomes randomized pair transitions (`reactions_to_dict`) and the network runs in
continuous time, its Gillespie kinetics (the chemical master equation) exactly. The volume ``v``
(default: the number of molecules ``n``) divides bimolecular rates: ``A + B -> ...`` at rate
``k`` happens at ``k #A #B / v``, ``A + A -> ...`` at ``k #A (#A - 1) / (2 v)``, ``A -> ...``
at ``k #A``.

A conservative network (every reaction as many products as reactants, one or two) runs as ppsim
runs it. A network with births or deaths (``a >> 2 * a``, ``a + b >> c``, ``f >> None``,
``None >> a``: batss's and rebop's networks, which ppsim refuses) runs on the library's network
engines instead, exactly in the law of Gillespie's method: `Simulation` then returns a
`NetworkSimulation` (see ``poplab._network``). `reactions_to_dict`, ppsim's conversion to pair
rules, still refuses such a network with `CRNNotSupported`.

>>> from poplab import species
>>> a, b, c, d = species("A B C D")
>>> crn = [(a + b | 2 * c).k(0.5).r(4), (c >> d).k(5)]
>>> print(crn[0])
A + B (4)<-->(0.5) C + C
>>> rule, max_rate = reactions_to_dict(crn, n=100, volume=100)
>>> max_rate                         # the pair (C, C): 4 * 99 / 200 for C + C -> A + B, 5 for C -> D
6.98
>>> rule[(c, c)] == {(a, b): 4 * 99 / 200 / 6.98, (d, c): 5 / 6.98}
True
>>> rule[(a, b)] == rule[(b, a)] == {(c, c): 0.5 * 99 / 200 / 6.98}
True
>>> reactions_to_dict([a >> b + c], n=100, volume=100)
Traceback (most recent call last):
...
poplab.crn.CRNNotSupported: reaction A -->(1.0) B + C has 1 reactant(s) and 2 product(s): ppsim's conversion to pair rules takes only conservative networks ...
"""

from __future__ import annotations

import copy
from collections import defaultdict
from dataclasses import dataclass
from enum import Enum
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple, Union

#: Avogadro's number: molecules per mole.
avogadro = 6.02214076e23


class CRNNotSupported(NotImplementedError, ValueError):
    """A network that ppsim's conversion to pair rules (`reactions_to_dict`) does not take: one
    with a non-conservative reaction (`Simulation` runs it on the network engines instead). A
    ``NotImplementedError``, and a ``ValueError`` as ppsim's refusal of such a network is."""


def _not_conservative(reaction: "Reaction") -> CRNNotSupported:
    return CRNNotSupported(
        f"reaction {reaction} has {reaction.num_reactants()} reactant(s) and {reaction.num_products()} product(s): "
        "ppsim's conversion to pair rules takes only conservative networks (as many products as reactants); "
        "Simulation(init_config, reactions) runs this one on the network engines"
    )


def species(sp: Union[str, Iterable[str]]) -> Tuple["Specie", ...]:
    """The species named in ``sp``: a string of names separated by spaces, or names.

    Raises:
        ValueError: a name given twice.

    >>> from poplab import species
    >>> w, x, y, z = species("W X Y Z")
    >>> print(x + y >> z + w)
    X + Y -->(1.0) Z + W
    >>> species(["A", "B"])
    (Specie(name='A'), Specie(name='B'))
    """
    names = sp.split() if isinstance(sp, str) else [name.strip() for name in sp]
    if len(names) != len(set(names)):
        raise ValueError(f"species_list {names} cannot contain duplicates.")
    return tuple(Specie(name) for name in names)


def _expression(side: Any, what: str) -> "Expression":
    if side is None:  # batss's "no molecule": f >> None
        return Expression([])
    if isinstance(side, Specie):
        return Expression([side])
    if isinstance(side, Expression):
        return side
    raise ValueError(
        f"Attempted construction of reaction with type of {what} as {type(side)}. "
        f"Type of {what} must be Species or Expression"
    )


def _times(coeff: Any, expression: "Expression") -> "Expression":
    if isinstance(coeff, bool) or not isinstance(coeff, int):
        raise TypeError(f"a species or expression is multiplied by a whole number, not {coeff!r}")
    return Expression(list(expression.species) * coeff)


@dataclass(frozen=True)
class Specie:
    """A species (a state of the population protocol): ``a + b`` is an `Expression`, ``a >> b``
    and ``a | b`` are reactions, ``2 * a`` is ``a + a``."""

    name: str

    def __add__(self, other: Union["Specie", "Expression"]) -> "Expression":
        if isinstance(other, Expression):
            # ppsim's order: a + (b + c) lists a last.
            return Expression(list(other.species) + [self])
        if isinstance(other, Specie):
            return Expression([self, other])
        return NotImplemented

    __radd__ = __add__

    def __rshift__(self, other: Union["Specie", "Expression"]) -> "Reaction":
        return Reaction(self, other)

    def __rrshift__(self, other: Union["Specie", "Expression"]) -> "Reaction":
        return Reaction(other, self)

    def __or__(self, other: Union["Specie", "Expression"]) -> "Reaction":
        return Reaction(self, other, reversible=True)

    def __ror__(self, other: Union["Specie", "Expression"]) -> "Reaction":
        return Reaction(other, self, reversible=True)

    def __mul__(self, coeff: int) -> "Expression":
        return _times(coeff, Expression([self]))

    __rmul__ = __mul__

    def __str__(self) -> str:
        return self.name

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Specie):
            return NotImplemented
        return self.name < other.name


@dataclass(frozen=True)
class Expression:
    """A side of a reaction: its species in order, with repetitions (``2 * a + b`` is
    ``[a, a, b]``)."""

    species: List[Specie]

    def __add__(self, other: Union[Specie, "Expression"]) -> "Expression":
        if isinstance(other, Expression):
            return Expression(list(self.species) + list(other.species))
        if isinstance(other, Specie):
            return Expression(list(self.species) + [other])
        return NotImplemented

    def __mul__(self, coeff: int) -> "Expression":
        return _times(coeff, self)

    __rmul__ = __mul__

    def __rshift__(self, other: Union[Specie, "Expression"]) -> "Reaction":
        return Reaction(self, other)

    def __or__(self, other: Union[Specie, "Expression"]) -> "Reaction":
        return Reaction(self, other, reversible=True)

    def __str__(self) -> str:
        return " + ".join(s.name for s in self.species)

    def __len__(self) -> int:
        return len(self.species)

    def get_species(self) -> Set[Specie]:
        """The species of the expression, without their coefficients."""
        return set(self.species)


def concentration_to_count(concentration: float, volume: float) -> int:
    """The number of molecules of a ``concentration`` (molar: moles per liter) in ``volume``
    liters.

    >>> concentration_to_count(80e-9, 1e-6)          # 80 nM in 1 uL
    48177126080
    """
    return round(avogadro * concentration * volume)


class RateConstantUnits(Enum):
    """The units of a rate constant."""

    stochastic = "stochastic"
    """Per second (unimolecular), liters per second (bimolecular: divided by the volume)."""

    mass_action = "mass_action"
    """Per molar per second (bimolecular only): divided by Avogadro's number into stochastic units."""


@dataclass(init=False)
class Reaction:
    """A reaction ``reactants -> products`` with a forward rate constant (``.k``) and, when
    reversible (``a + b | c + d``), a reverse one (``.r``). Both default to 1, in stochastic
    units.

    Raises:
        ValueError: a side that is not a species or an expression, or an empty one.

    >>> from poplab import species
    >>> a, b, c = species("A B C")
    >>> rxn = (a + b | 2 * c).k(2).r(0.5)
    >>> rxn.reactants_if_bimolecular(), rxn.products_if_exactly_two() == (c, c), rxn.reversible
    ((Specie(name='A'), Specie(name='B')), True, True)
    >>> (a >> b).r(3)
    Traceback (most recent call last):
    ...
    ValueError: cannot set r on an irreversible reaction
    """

    reactants: Expression
    products: Expression
    rate_constant: float
    rate_constant_reverse: float
    rate_constant_units: RateConstantUnits
    rate_constant_reverse_units: RateConstantUnits
    reversible: bool

    def __init__(
        self,
        reactants: Union[Specie, Expression],
        products: Union[Specie, Expression],
        k: float = 1,
        r: float = 1,
        rate_constant_units: RateConstantUnits = RateConstantUnits.stochastic,
        rate_constant_reverse_units: RateConstantUnits = RateConstantUnits.stochastic,
        reversible: bool = False,
    ) -> None:
        self.reactants = _expression(reactants, "reactants")
        self.products = _expression(products, "products")
        if len(self.reactants) == 0 and len(self.products) == 0:
            raise ValueError("a reaction needs reactants or products (None is no molecule: f >> None)")
        self.rate_constant = float(k)
        self.rate_constant_reverse = float(r)
        self.rate_constant_units = rate_constant_units
        self.rate_constant_reverse_units = rate_constant_reverse_units
        self.reversible = reversible

    def is_unimolecular(self) -> bool:
        return self.num_reactants() == 1

    def is_bimolecular(self) -> bool:
        return self.num_reactants() == 2

    def symmetric(self) -> bool:
        """Whether there are two reactants of the same species."""
        return self.num_reactants() == 2 and self.reactants.species[0] == self.reactants.species[1]

    def symmetric_products(self) -> bool:
        """Whether there are two products of the same species."""
        return self.num_products() == 2 and self.products.species[0] == self.products.species[1]

    def num_reactants(self) -> int:
        return len(self.reactants)

    def num_products(self) -> int:
        return len(self.products)

    def is_conservative(self) -> bool:
        """Whether there are as many products as reactants."""
        return self.num_reactants() == self.num_products()

    def reactant_if_unimolecular(self) -> Specie:
        if self.is_unimolecular():
            return self.reactants.species[0]
        raise ValueError(f"reaction {self} is not unimolecular")

    def product_if_unique(self) -> Specie:
        if self.num_products() == 1:
            return self.products.species[0]
        raise ValueError(f"reaction {self} does not have exactly one product")

    def reactants_if_bimolecular(self) -> Tuple[Specie, Specie]:
        if self.is_bimolecular():
            return self.reactants.species[0], self.reactants.species[1]
        raise ValueError(f"reaction {self} is not bimolecular")

    def reactant_names_if_bimolecular(self) -> Tuple[str, str]:
        r1, r2 = self.reactants_if_bimolecular()
        return r1.name, r2.name

    def products_if_exactly_two(self) -> Tuple[Specie, Specie]:
        if self.num_products() == 2:
            return self.products.species[0], self.products.species[1]
        raise ValueError(f"reaction {self} does not have exactly two products")

    def product_names_if_exactly_two(self) -> Tuple[str, str]:
        p1, p2 = self.products_if_exactly_two()
        return p1.name, p2.name

    def __str__(self) -> str:
        reverse = f"({self.rate_constant_reverse})<" if self.reversible else ""
        return f"{self.reactants} {reverse}-->({self.rate_constant}) {self.products}"

    def __repr__(self) -> str:
        return f"Reaction({self.reactants!r}, {self.products!r}, {self.rate_constant})"

    @property
    def rate_constant_stochastic(self) -> float:
        """The forward rate constant in stochastic units (a mass-action one divided by Avogadro's
        number)."""
        if self.rate_constant_units == RateConstantUnits.stochastic:
            return self.rate_constant
        return self.rate_constant / avogadro

    @property
    def rate_constant_reverse_stochastic(self) -> float:
        """The reverse rate constant in stochastic units."""
        if self.rate_constant_reverse_units == RateConstantUnits.stochastic:
            return self.rate_constant_reverse
        return self.rate_constant_reverse / avogadro

    def k(self, coeff: float, units: RateConstantUnits = RateConstantUnits.stochastic) -> "Reaction":
        """Sets the forward rate constant (in ``units``) and returns the reaction.

        Raises:
            ValueError: mass-action units on a unimolecular reaction.
        """
        if self.is_unimolecular() and units == RateConstantUnits.mass_action:
            raise ValueError("cannot use mass-action rate constants on a unimolecular reaction")
        self.rate_constant_units = units
        self.rate_constant = coeff  # as given, as ppsim keeps it (it prints as given)
        return self

    def r(self, coeff: float, units: RateConstantUnits = RateConstantUnits.stochastic) -> "Reaction":
        """Sets the reverse rate constant of a reversible reaction (in ``units``) and returns it.

        Raises:
            ValueError: an irreversible reaction, or mass-action units on a reverse reaction
                that is unimolecular (one product).
        """
        if self.num_products() == 1 and units == RateConstantUnits.mass_action:
            raise ValueError(
                "cannot use mass-action rate constants on a unimolecular reaction; "
                "this reaction has only one product, so its reverse is unimolecular"
            )
        if not self.reversible:
            raise ValueError("cannot set r on an irreversible reaction")
        self.rate_constant_reverse_units = units
        self.rate_constant_reverse = coeff
        return self

    def get_species(self) -> Set[Specie]:
        """The species among reactants and products."""
        return {*self.reactants.get_species(), *self.products.get_species()}


SpeciePair = Tuple[Specie, Specie]
Output = Union[SpeciePair, Dict[SpeciePair, float]]


def replace_reversible_rxns(rxns: Iterable[Reaction]) -> List[Reaction]:
    """The reactions with each reversible one replaced by its two one-way reactions (copies)."""
    out: List[Reaction] = []
    for rxn in rxns:
        if not rxn.reversible:
            out.append(copy.deepcopy(rxn))
            continue
        out.append(Reaction(rxn.reactants, rxn.products, k=rxn.rate_constant, rate_constant_units=rxn.rate_constant_units))
        out.append(
            Reaction(rxn.products, rxn.reactants, k=rxn.rate_constant_reverse,
                     rate_constant_units=rxn.rate_constant_reverse_units)
        )
    return out


def species_in_rxns(rxns: Iterable[Reaction]) -> List[Specie]:
    """The species of the reactions, each once, in order of appearance."""
    seen: Dict[Specie, None] = {}
    for rxn in rxns:
        for s in rxn.reactants.species + rxn.products.species:
            seen.setdefault(s, None)
    return list(seen)


def _check(rxn: Reaction) -> None:
    if not rxn.is_conservative():
        raise _not_conservative(rxn)
    if rxn.num_reactants() > 2:
        raise ValueError(f"each reaction must have exactly one or two reactants, violated by {rxn}")


def convert_unimolecular_to_bimolecular_and_flip_reactant_order(
    reactions: Iterable[Reaction], n: int, volume: float, *, species: Iterable[Specie] = ()
) -> List[Reaction]:
    """ppsim's pair reactions of one-way ``reactions`` (new ones: those given are left as they
    are): a bimolecular reaction with its rate constant times ``(n - 1) / (2 volume)``, and, when
    its two reactants differ, again with them in the other order; a unimolecular one ``r -> p``
    (rate ``k``) as ``r + s -> p + s`` at rate ``k`` for every species ``s`` of the reactions (and
    of ``species``: poplab's addition, the other species present, which ppsim leaves out and so
    slows ``r -> p`` down when some are present).

    Raises:
        CRNNotSupported: a non-conservative reaction.
        ValueError: a reaction of more than two reactants.
    """
    reactions = list(reactions)
    catalysts = species_in_rxns(reactions)
    catalysts += [s for s in species if s not in set(catalysts)]
    out: List[Reaction] = []
    for rxn in reactions:
        _check(rxn)
        if rxn.is_bimolecular():
            pair = Reaction(rxn.reactants, rxn.products, rate_constant_units=rxn.rate_constant_units)
            pair.rate_constant = rxn.rate_constant * ((n - 1) / (2 * volume))
            out.append(pair)
            first, second = rxn.reactants_if_bimolecular()
            if first != second:
                flipped = copy.copy(pair)
                flipped.reactants = Expression([second, first])
                out.append(flipped)
        else:
            reactant, product = rxn.reactant_if_unimolecular(), rxn.product_if_unique()
            out += [Reaction(Expression([reactant, s]), Expression([product, s]), k=rxn.rate_constant) for s in catalysts]
    return out


def reactions_to_dict(
    reactions: Iterable[Reaction], n: int, volume: float, *, species: Iterable[Specie] = ()
) -> Tuple[Dict[SpeciePair, Output], float]:
    """ppsim's conversion of a network of ``n`` molecules in ``volume`` to a population protocol:
    ``(rule, max_rate)``, where ``rule`` maps each ordered pair of reactants to its products (a
    pair when one reaction takes the whole rate, else a law ``{(c, d): probability}``, the rest
    of the probability null) and ``max_rate`` is the largest total rate of an ordered pair.

    The pair reactions are those of `convert_unimolecular_to_bimolecular_and_flip_reactant_order`
    (reversible reactions split first); a reaction's probability is its rate over ``max_rate``.
    Run with uniformly random ordered pairs, ``n * max_rate`` interactions per unit of time, it is
    the network's stochastic kinetics: ``A + B -> ...`` (rate ``k``) at ``k #A #B / volume``,
    ``A + A -> ...`` at ``k #A (#A - 1) / (2 volume)``, ``A -> ...`` at ``k #A`` (with every
    species present among the reactions' or ``species``).

    Where two reactions give the same ordered pair the same products, their probabilities add
    (ppsim keeps the last one only).

    Raises:
        CRNNotSupported: a non-conservative reaction (a different number of reactants and
            products).
        ValueError: a reaction of more than two reactants, no reactions, no positive rate.
    """
    pairs = convert_unimolecular_to_bimolecular_and_flip_reactant_order(
        replace_reversible_rxns(reactions), n, volume, species=species
    )
    if not pairs:
        raise ValueError("a chemical reaction network needs at least one reaction")
    totals: Dict[SpeciePair, float] = defaultdict(float)
    for rxn in pairs:
        totals[rxn.reactants_if_bimolecular()] += rxn.rate_constant_stochastic
    max_rate = max(totals.values())
    if not max_rate > 0:
        raise ValueError("every rate constant of the network is 0: nothing ever happens")
    rule: Dict[SpeciePair, Output] = {}
    for rxn in pairs:
        p = rxn.rate_constant_stochastic / max_rate
        reactants, products = rxn.reactants_if_bimolecular(), rxn.products_if_exactly_two()
        known = rule.get(reactants)
        if known is None:
            rule[reactants] = products if p == 1.0 else {products: p}
            continue
        law = known if isinstance(known, dict) else {known: 1.0}
        law[products] = law.get(products, 0.0) + p
        rule[reactants] = law
    for reactants, out in rule.items():
        if isinstance(out, dict) and len(out) == 1 and next(iter(out.values())) == 1.0:
            rule[reactants] = next(iter(out))
    return rule, max_rate


def gillespy2_format(init_config: Dict[Specie, int], rxns: Iterable[Reaction], volume: float = 1.0) -> Any:
    """ppsim's export of a network to a GillesPy2 ``Model`` (to compare with Gillespie's algorithm):
    the species with their initial counts, ``volume``, a parameter per one-way reaction (its rate
    constant, halved for two reactants of one species, whose GillesPy2 propensity counts ordered
    pairs) and the reactions.

    Raises:
        ModuleNotFoundError: gillespy2 is not installed (``pip install gillespy2``).
    """
    import gillespy2  # type: ignore[import-not-found]

    one_way = replace_reversible_rxns(rxns)
    model = gillespy2.Model()
    made = {s: gillespy2.Species(name=s.name, initial_value=int(init_config.get(s, 0))) for s in species_in_rxns(one_way)}
    model.add_species(list(made.values()))
    model.volume = volume
    for i, rxn in enumerate(one_way):
        rate = rxn.rate_constant / 2 if rxn.symmetric() else rxn.rate_constant
        parameter = gillespy2.Parameter(name=f"r{i}", expression=rate)
        model.add_parameter(parameter)
        reactants = {made[s]: rxn.reactants.species.count(s) for s in rxn.reactants.get_species()}
        products = {made[s]: rxn.products.species.count(s) for s in rxn.products.get_species()}
        model.add_reaction(gillespy2.Reaction(reactants=reactants, products=products, rate=parameter))
    return model


def reaction_list(rule: Any) -> Optional[List[Reaction]]:
    """The reactions of a rule given as ppsim's list (or tuple, set) of `Reaction`'s, else None
    (a dict, a function, anything else).

    Raises:
        ValueError: an empty list.
    """
    if not isinstance(rule, (list, tuple, set, frozenset)):
        return None
    items = list(rule)
    if items and all(isinstance(item, Reaction) for item in items):
        return items
    if not items:
        raise ValueError("the rule is an empty list: a chemical reaction network needs at least one reaction")
    return None
