"""Exact theory per profile: the dealer's final outcome by up card, and the natural's chance.

``shoe-audit theory`` (cli.md, "``theory --format json``") prints
:meth:`TheoryTable.to_json`: for each up card ``A``, ``2`` … ``9``, ``T`` the
chance of each final outcome (17 to 21, ``blackjack``, ``bust``) from a full
shoe of the profile's decks with only the up card out, and ``all``, the up
cards weighted by their chance. No hole card is dealt (000, 001, 004), so the
dealer's blackjack is part of the up card's distribution, as in published
tables "before peek". A table is computed once per (decks, dealer rule).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from audit.errors import NoDealerRuleError, ProfileError
from audit.profiles.model import Profile
from audit.stats.dealer import (
    ACE,
    RANKS,
    TEN,
    DealerRule,
    dealer_graph,
    outcome_probabilities,
)

__all__ = ["TheoryTable", "full_shoe", "natural_probability", "theory", "theory_table"]


def full_shoe(decks: int) -> tuple[int, ...]:
    """The cards of a full shoe per rank (:data:`~audit.stats.dealer.RANKS` order)."""
    return (*([4 * decks] * 9), 16 * decks)


def natural_probability(remaining: tuple[int, ...] | list[int]) -> float:
    """P that two cards dealt from ``remaining`` are an ace and a ten-value.

    For a full shoe of n decks this is 2·4n·16n / (52n·(52n−1)).
    """
    n = sum(remaining)
    if n < 2:
        return 0.0
    return 2 * remaining[ACE] * remaining[TEN] / (n * (n - 1))


@dataclass(frozen=True, slots=True)
class TheoryTable:
    """The dealer's outcome distribution by up card for one shoe and dealer rule."""

    profile: str
    decks: int
    rule: DealerRule
    upcards: dict[str, dict[str, float]]
    all: dict[str, float]
    natural: float
    """P that a two-card hand from the full shoe is a natural."""

    @property
    def dealer(self) -> str:
        return self.rule.name

    def to_json(self) -> dict[str, Any]:
        """cli.md's exact shape: profile, decks, dealer, upcards, all."""
        return {
            "profile": self.profile,
            "decks": self.decks,
            "dealer": self.dealer,
            "upcards": {u: dict(p) for u, p in self.upcards.items()},
            "all": dict(self.all),
        }


@lru_cache(maxsize=64)
def _table(decks: int, rule: DealerRule) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    # floats: exact to ~1e-16 here, and ten times faster than fractions
    shoe = full_shoe(decks)
    total = sum(shoe)
    upcards: dict[str, dict[str, float]] = {}
    weighted = [0.0] * len(rule.outcomes)
    for u, name in enumerate(RANKS):
        remaining = list(shoe)
        remaining[u] -= 1
        probs = outcome_probabilities(dealer_graph(u, rule), remaining)
        upcards[name] = dict(zip(rule.outcomes, probs, strict=True))
        weight = shoe[u] / total
        weighted = [w + weight * p for w, p in zip(weighted, probs, strict=True)]
    return upcards, dict(zip(rule.outcomes, weighted, strict=True))


def theory_table(profile_id: str, decks: int, rule: DealerRule) -> TheoryTable:
    """The table for ``decks`` decks under ``rule`` (cached: computed once)."""
    if decks < 1:
        raise ProfileError(f"a shoe holds at least one deck, got --decks {decks}")
    upcards, weighted = _table(decks, rule)
    return TheoryTable(
        profile=profile_id,
        decks=decks,
        rule=rule,
        upcards=upcards,
        all=weighted,
        natural=natural_probability(full_shoe(decks)),
    )


def theory(profile: Profile, decks: int | None = None) -> TheoryTable:
    """The theory table of a profile, for its own decks or ``decks``.

    A profile whose banker plays freely (``dealer_plays_freely``, 002) has no
    dealer rule and so no distribution: :class:`~audit.errors.NoDealerRuleError`.
    """
    rule = DealerRule.of(profile.rules)
    if rule is None:
        raise NoDealerRuleError(
            f"profile {profile.id!r} has no dealer rule: the banker plays freely "
            "(dealer_plays_freely), so there is no dealer outcome distribution"
        )
    n = decks if decks is not None else profile.rules.decks
    if n is None:
        raise ProfileError(f"profile {profile.id!r} takes its decks from shoe_open: give --decks N")
    return theory_table(profile.id, n, rule)
