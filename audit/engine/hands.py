"""Hands and their totals: the card arithmetic every profile shares.

rules.md, "Card values and hands (all profiles)": 2-9 count their face value,
ten-values count 10, an ace counts 11 unless that busts the hand (000, 001,
004); a *natural* (blackjack) is an ace and a ten-value as the first two cards
of a hand not produced by a split (000, 004); a hand over 21 is *bust*.

Plain functions over card codes, so the dealer's rule, the theory tables and
the reports all count exactly as the auditor judges. (A replayed hand keeps
its hard total as its cards arrive: :class:`audit.engine.state.Hand`.)
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "RANK_INDEX",
    "VALUE",
    "best_total",
    "can_split_pair",
    "double_total_ok",
    "hard_total",
    "is_natural",
    "is_soft",
    "is_three_sevens",
    "is_two_card_21",
]

VALUE: dict[str, int] = {
    "A": 1,
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "8": 8,
    "9": 9,
    "T": 10,
    "J": 10,
    "Q": 10,
    "K": 10,
}
"""The hard value of a card by its rank letter (``card[0]``): ace 1, ten-values 10."""

RANK_INDEX: dict[str, int] = {r: (v - 1) for r, v in VALUE.items()}
"""A card's place in a composition count by rank: A 0, 2 1, ..., 9 8, ten-values 9."""


def hard_total(cards: Sequence[str]) -> int:
    """The total with every ace counting 1."""
    return sum(VALUE[c[0]] for c in cards)


def best_total(cards: Sequence[str]) -> int:
    """The hand's best total: an ace counts 11 when that does not bust (000, 001, 004).

    004 calls it «il punteggio più favorevole»; the mandatory hit and the
    dealer's rule both read this total.
    """
    hard = hard_total(cards)
    if hard <= 11 and any(c[0] == "A" for c in cards):
        return hard + 10
    return hard


def is_soft(cards: Sequence[str]) -> bool:
    """Whether the best total counts an ace as 11 (rules.md, "Card values")."""
    return hard_total(cards) <= 11 and any(c[0] == "A" for c in cards)


def is_two_card_21(cards: Sequence[str]) -> bool:
    """The first two cards are an ace and a ten-value (whether or not after a split)."""
    if len(cards) < 2:
        return False
    a, b = VALUE[cards[0][0]], VALUE[cards[1][0]]
    return (a == 1 and b == 10) or (a == 10 and b == 1)


def is_natural(cards: Sequence[str], from_split: bool = False) -> bool:
    """Blackjack: ace and ten-value as the first two cards of a hand not from a split.

    rules.md "Card values and hands" (000, 004; NJ 13:69F-2B.1). A two-card 21
    after a split is an ordinary 21 (000). A card given to a natural later does
    not unmake it (rules.md, "Findings"), so only the first two cards count.
    """
    return not from_split and is_two_card_21(cards)


def is_three_sevens(cards: Sequence[str]) -> bool:
    """Exactly three sevens: the "21 with three sevens" prize hand (001)."""
    return len(cards) == 3 and all(c[0] == "7" for c in cards)


def can_split_pair(cards: Sequence[str]) -> bool:
    """Two equal cards: same rank, or any two ten-values (000: «Figure e Dieci»)."""
    if len(cards) != 2:
        return False
    a, b = cards
    return a[0] == b[0] or (VALUE[a[0]] == 10 and VALUE[b[0]] == 10)


def double_total_ok(
    cards: Sequence[str], totals: Sequence[int] | None, soft_ace_either: bool
) -> bool:
    """Whether a two-card hand's total allows a double.

    000: «la somma delle prime due carte è di 9, 10 o 11 punti», the ace counting
    1 or 11 as the player chooses when ``soft_ace_either`` (so A,8 and A,9 may
    double). ``totals`` None means any two cards (001 house default).
    """
    if totals is None:
        return True
    hard = hard_total(cards)
    candidates = {best_total(cards)}
    if soft_ace_either:
        candidates.add(hard)
        if any(c[0] == "A" for c in cards):
            candidates.add(hard + 10)
    return any(t in totals for t in candidates)
