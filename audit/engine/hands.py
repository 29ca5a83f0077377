"""Hands and their totals: the card arithmetic every profile shares.

rules.md, "Card values and hands (all profiles)": 2-9 count their face value,
ten-values count 10, an ace counts 11 unless that busts the hand (000, 001,
004); a *natural* (blackjack) is an ace and a ten-value as the first two cards
of a hand not produced by a split (000, 004); a hand over 21 is *bust*.

These are plain public functions so the simulator can share them: it must deal
by exactly the arithmetic the auditor judges by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from audit.events.cards import hand_total, is_ace, is_ten_value, value

__all__ = [
    "HandState",
    "best_total",
    "can_split_pair",
    "double_total_ok",
    "hard_total",
    "is_bust",
    "is_natural",
    "is_soft",
    "is_three_sevens",
    "is_two_card_21",
]


def best_total(cards: Sequence[str]) -> int:
    """The hand's best total: an ace counts 11 when that does not bust (000, 001, 004).

    004 calls it «il punteggio più favorevole»; the mandatory hit and the
    dealer's rule both read this total.
    """
    return hand_total(tuple(cards))[0]


def is_soft(cards: Sequence[str]) -> bool:
    """Whether the best total counts an ace as 11 (rules.md, "Card values")."""
    return hand_total(tuple(cards))[1]


def hard_total(cards: Sequence[str]) -> int:
    """The total with every ace counting 1."""
    return sum(value(c) for c in cards)


def is_bust(cards: Sequence[str]) -> bool:
    """A hand over 21 is bust and loses at once (000, 001; 004: out of the game)."""
    return best_total(cards) > 21


def is_two_card_21(cards: Sequence[str]) -> bool:
    """The first two cards are an ace and a ten-value (whether or not after a split)."""
    if len(cards) < 2:
        return False
    a, b = cards[0], cards[1]
    return (is_ace(a) and is_ten_value(b)) or (is_ace(b) and is_ten_value(a))


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
    return a[0] == b[0] or (is_ten_value(a) and is_ten_value(b))


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
        if any(is_ace(c) for c in cards):
            candidates.add(hard + 10)
    return any(t in totals for t in candidates)


@dataclass(frozen=True, slots=True)
class HandState:
    """One hand's cards and how it came to be; an immutable value.

    ``add`` returns a new state. ``from_split`` marks a hand made by a split (its
    two-card 21 is no natural, 000); ``split_aces`` a hand from split aces (one
    card each, 000); ``doubled`` a hand whose stake was doubled (one card, 000).
    """

    cards: tuple[str, ...] = ()
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False

    def add(self, card: str) -> HandState:
        """The hand after one more card."""
        return replace(self, cards=(*self.cards, card))

    @property
    def total(self) -> int:
        """Best total (see :func:`best_total`)."""
        return best_total(self.cards)

    @property
    def soft(self) -> bool:
        """Whether the best total counts an ace as 11."""
        return is_soft(self.cards)

    @property
    def natural(self) -> bool:
        """A blackjack (see :func:`is_natural`)."""
        return is_natural(self.cards, self.from_split)

    @property
    def bust(self) -> bool:
        """Over 21, unless it is a natural (a hit natural is still settled as one)."""
        return not self.natural and is_bust(self.cards)
