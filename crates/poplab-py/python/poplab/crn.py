"""ppsim's chemical reaction networks (``species``, ``Reaction``, ``ppsim.crn``): not taken by poplab.

poplab simulates population protocols in discrete parallel time (interactions / n). The names
ppsim's CRN module offers are here so that code written for ppsim fails at the first use of a CRN
with `CRNNotSupported` saying so and what to write instead, rather than with a NameError or an
ImportError.

>>> from poplab import species
>>> species("A B C")
Traceback (most recent call last):
...
poplab.crn.CRNNotSupported: poplab does not simulate chemical reaction networks ...
"""

from __future__ import annotations

from typing import Any, NoReturn

#: What a CRN's user reads: why, and what to do instead.
MESSAGE = (
    "poplab does not simulate chemical reaction networks (ppsim's species, Reaction, crn, and "
    "Simulation's volume, continuous_time and time_units): it simulates population protocols in "
    "discrete parallel time. Write the reactions as a population protocol instead: a rule dict "
    "{(a, b): (c, d)} for each bimolecular reaction a + b -> c + d (with a law {(c, d): p} for "
    "reactions that happen with probability p when a and b meet; a unimolecular reaction a -> c "
    "becomes (a, x) -> (c, x) for every state x), or run the CRN with ppsim itself"
)


class CRNNotSupported(NotImplementedError):
    """Raised by every use of a chemical reaction network (see `MESSAGE`)."""

    def __init__(self, what: str = "") -> None:
        super().__init__(MESSAGE + (f" ({what})" if what else ""))


def _refuse(what: str) -> NoReturn:
    raise CRNNotSupported(what)


def species(sp: Any = None, *args: Any, **kwargs: Any) -> NoReturn:
    """ppsim's ``species``: raises `CRNNotSupported`."""
    _refuse("species")


def reactions_to_dict(*args: Any, **kwargs: Any) -> NoReturn:
    """ppsim's ``reactions_to_dict``: raises `CRNNotSupported`."""
    _refuse("reactions_to_dict")


class Specie:
    """ppsim's ``Specie``: making one raises `CRNNotSupported`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _refuse("Specie")


class Expression:
    """ppsim's ``Expression``: making one raises `CRNNotSupported`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _refuse("Expression")


class Reaction:
    """ppsim's ``Reaction``: making one raises `CRNNotSupported`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _refuse("Reaction")
