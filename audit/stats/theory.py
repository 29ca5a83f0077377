"""Exact theory per profile: the dealer's final outcome by up card, and the natural's chance.

``shoe-audit theory`` (cli.md, "``theory --format json``") prints
:meth:`TheoryTable.to_json`: for each up card ``A``, ``2`` … ``9``, ``T`` the
chance of each final outcome (17 to 21, ``blackjack``, ``bust``) from a full
shoe of the profile's decks with only the up card out, and ``all``, the up
cards weighted by their chance. No hole card is dealt (000, 001, 004), so the
dealer's blackjack is part of the up card's distribution, as in published
tables "before peek". A table is computed once per (decks, dealer rule).

games.md §6 adds, for each side bet the profile offers and each pay table
asked for, every line's chance and the exact house edge
(:mod:`audit.stats.side_bets`), and for a profile with a peek the dealer's
distribution behind each peeked up card given no blackjack (``after_peek``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from audit.errors import NoDealerRuleError, ProfileError
from audit.profiles.model import Profile
from audit.stats.dealer import (
    ACE,
    BLACKJACK,
    RANKS,
    TEN,
    DealerRule,
    dealer_graph,
    outcome_probabilities,
)

if TYPE_CHECKING:
    from audit.sidebets.paytables import PayTable
    from audit.stats.side_bets import SideBetOdds

__all__ = [
    "TheoryTable",
    "after_peek",
    "full_shoe",
    "natural_probability",
    "peeked_upcards",
    "theory",
    "theory_table",
]


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
    side_bets: tuple[tuple[str, SideBetOdds], ...] = ()
    """Each side bet asked for (the profile's by side-bet id, ``--paytable`` by pay-table id)."""
    after_peek: dict[str, dict[str, float]] | None = None
    """For a profile with a peek: each peeked up card's outcomes given no blackjack."""

    @property
    def dealer(self) -> str:
        return self.rule.name

    def to_json(self) -> dict[str, Any]:
        """cli.md's exact shape: profile, decks, dealer, upcards, all.

        games.md §6 adds ``side_bets`` when any side bet is asked for and
        ``after_peek`` for a profile with a peek; a table with neither keeps
        cli.md's five keys, as before v1.2.
        """
        doc: dict[str, Any] = {
            "profile": self.profile,
            "decks": self.decks,
            "dealer": self.dealer,
            "upcards": {u: dict(p) for u, p in self.upcards.items()},
            "all": dict(self.all),
        }
        if self.side_bets:
            doc["side_bets"] = {key: odds.to_json() for key, odds in self.side_bets}
        if self.after_peek is not None:
            doc["after_peek"] = {u: dict(p) for u, p in self.after_peek.items()}
        return doc


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


def after_peek(table: TheoryTable, upcards: Sequence[str]) -> dict[str, dict[str, float]]:
    """Each of ``upcards``' outcomes given that the dealer has no blackjack (games.md §6).

    What a peek leaves: the before-peek chances of 17-21 and bust divided by
    1 − P(blackjack), as Wizard of Odds' appendix 2A ("after peek") prints them.
    """
    out: dict[str, dict[str, float]] = {}
    for up in upcards:
        probs = table.upcards[up]
        left = 1 - probs[BLACKJACK]
        out[up] = {k: p / left for k, p in probs.items() if k != BLACKJACK}
    return out


def peeked_upcards(rules: Any) -> tuple[str, ...]:
    """The up cards the profile's dealer peeks under (games.md §1).

    ``A`` with ``peek_on_ace``, ``T`` with ``peek_on_ten``.

    A profile written before these fields (or a model without them) peeks under none.
    """
    return tuple(
        up
        for up, field in (("A", "peek_on_ace"), ("T", "peek_on_ten"))
        if getattr(rules, field, False) is True
    )


def theory(
    profile: Profile,
    decks: int | None = None,
    *,
    paytables: Sequence[tuple[str, PayTable]] = (),
) -> TheoryTable:
    """The theory table of a profile, for its own decks or ``decks``.

    A profile whose banker plays freely (``dealer_plays_freely``, 002) has no
    dealer rule and so no distribution: :class:`~audit.errors.NoDealerRuleError`.
    ``paytables`` are the side bets to price, each under the key it is shown by
    (games.md §6): their odds at the same decks, a bet on the dealer's draw by
    the profile's soft-17 rule.
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
    table = theory_table(profile.id, n, rule)
    if paytables:
        from audit.stats.side_bets import side_bet_odds

        odds = tuple((key, side_bet_odds(pt, n, rule)) for key, pt in paytables)
        table = replace(table, side_bets=odds)
    peeked = peeked_upcards(profile.rules)
    if peeked:
        table = replace(table, after_peek=after_peek(table, peeked))
    return table
