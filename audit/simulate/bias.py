"""Tables dealt wrong on purpose, to show that ``shoe-audit stats`` sees it (never by default).

A bias is not an injected error: no single hand need break a rule visibly,
and nothing is listed in ``injected.ndjson``. It is for testing the statistics
(``shoe-audit simulate --bias T03:short-dealer=0.5``):

- ``short-dealer=Q``: with chance Q, when the next card would end his hand,
  the dealer stops one card too few (from his third card on, while some
  player hand is open; the engine sees each as ``DEALER_STOOD_ON_DRAW``).
- ``strip-tens=K``: K ten-value cards are taken out of every shoe of the table
  before it is dealt (``shoe_close.remaining`` then shows it too).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from audit.errors import InputError

__all__ = ["NO_BIAS", "Bias", "parse_biases", "strip_tens"]


@dataclass(frozen=True, slots=True)
class Bias:
    short_dealer: float = 0.0
    stripped_tens: int = 0


NO_BIAS = Bias()

_DEFAULTS = {"short-dealer": "1", "strip-tens": "8"}


def parse_biases(specs: Iterable[str]) -> dict[str, Bias]:
    """``TABLE:KIND[=VALUE]`` (repeatable) to a bias per table id."""
    out: dict[str, Bias] = {}
    for spec in specs:
        table, sep, what = spec.partition(":")
        kind, _, value = what.partition("=")
        if not sep or not table or kind not in _DEFAULTS:
            raise InputError(
                "--bias takes TABLE:short-dealer[=CHANCE] or TABLE:strip-tens[=COUNT], "
                f"got {spec!r}"
            )
        value = value or _DEFAULTS[kind]
        bias = out.get(table, NO_BIAS)
        try:
            if kind == "short-dealer":
                chance = float(value)
                if not 0 < chance <= 1:
                    raise ValueError
                bias = Bias(chance, bias.stripped_tens)
            else:
                count = int(value)
                if not 0 < count <= 64:
                    raise ValueError
                bias = Bias(bias.short_dealer, count)
        except ValueError:
            raise InputError(f"--bias {spec!r}: {kind} takes {_what(kind)}") from None
        out[table] = bias
    return out


def _what(kind: str) -> str:
    return "a chance above 0, at most 1" if kind == "short-dealer" else "a count from 1 to 64"


def strip_tens(cards: list[str], count: int) -> list[str]:
    """The shoe without its first ``count`` ten-value cards (the shoe is already shuffled)."""
    out = list(cards)
    for _ in range(count):
        out.remove(next(c for c in out if c[0] in "TJQK"))
    return out
