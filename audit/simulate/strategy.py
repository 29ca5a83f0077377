"""How simulated players decide: basic strategy with some noise, and a few gamblers' habits.

The habits are there so that every feature a profile allows happens often
enough to be audited: ten-value pairs split now and then, A,8 and A,9 doubled
where the ace may count 1 (000), 7,7 played for the three-sevens prize (001).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from decimal import Decimal

from audit.events.cards import hand_total, is_ace, is_ten_value, value

__all__ = [
    "DOUBLE",
    "HIT",
    "SPLIT",
    "STAND",
    "banker_draws",
    "dealer_up_value",
    "home_player_hits",
    "insurance_amount",
    "player_decision",
]

HIT, STAND, DOUBLE, SPLIT = "hit", "stand", "double", "split"

NOISE = 0.04
"""Chance that a player at 12 to 17 does the opposite of what basic strategy says."""


def dealer_up_value(card: str) -> int:
    """The dealer's card for strategy tables: 2..10, ace 11."""
    return 11 if is_ace(card) else value(card)


def _split_wanted(cards: Sequence[str], up: int, rng: random.Random, chase_sevens: bool) -> bool:
    a = cards[0]
    if is_ace(a):
        return True
    if is_ten_value(a):
        # a gambler's split: rare, a little less rare against a weak dealer card
        return rng.random() < (0.25 if up in (5, 6) else 0.08)
    r = value(a)
    if r == 7 and chase_sevens:
        return False
    table = {
        9: (2, 3, 4, 5, 6, 8, 9),
        8: (2, 3, 4, 5, 6, 7, 8, 9),
        7: (2, 3, 4, 5, 6, 7),
        6: (2, 3, 4, 5, 6),
        4: (5, 6),
        3: (2, 3, 4, 5, 6, 7),
        2: (2, 3, 4, 5, 6, 7),
    }
    return up in table.get(r, ())


def _soft_play(total: int, up: int, two_cards: bool, rng: random.Random) -> str:
    if total >= 19:
        if two_cards and (
            (total == 19 and up in (5, 6) and rng.random() < 0.4)
            or (total == 20 and up == 6 and rng.random() < 0.25)
        ):
            return DOUBLE  # A,8 / A,9: the ace counted 1, a 9 or 10 doubled (000)
        return STAND
    if total == 18:
        if two_cards and up in (3, 4, 5, 6):
            return DOUBLE
        return STAND if up in (2, 7, 8) else HIT
    if total == 17:
        return DOUBLE if two_cards and up in (3, 4, 5, 6) else HIT
    if total in (15, 16):
        return DOUBLE if two_cards and up in (4, 5, 6) else HIT
    return DOUBLE if two_cards and up in (5, 6) else HIT


def _hard_play(total: int, up: int, two_cards: bool) -> str:
    if total >= 17:
        return STAND
    if total >= 13:
        return STAND if up <= 6 else HIT
    if total == 12:
        return STAND if up in (4, 5, 6) else HIT
    if total == 11:
        return DOUBLE if two_cards and up <= 10 else HIT
    if total == 10:
        return DOUBLE if two_cards and up <= 9 else HIT
    if total == 9:
        return DOUBLE if two_cards and up in (3, 4, 5, 6) else HIT
    return HIT


def player_decision(
    cards: Sequence[str],
    up_card: str,
    *,
    can_double: bool,
    can_split: bool,
    rng: random.Random,
    chase_sevens: bool = False,
) -> str:
    """What the box holder wants: ``hit``, ``stand``, ``double`` or ``split``.

    Legality is the caller's business (it passes what the profile allows);
    a wanted double that is not allowed falls back to the hit or stand.
    """
    up = dealer_up_value(up_card)
    if can_split and _split_wanted(cards, up, rng, chase_sevens):
        return SPLIT
    total, soft = hand_total(tuple(cards))
    two = len(cards) == 2
    if chase_sevens and two and all(c[0] == "7" for c in cards):
        return HIT
    if chase_sevens and len(cards) == 3 and sum(c[0] == "7" for c in cards) == 2 and total == 14:
        return HIT
    choice = _soft_play(total, up, two, rng) if soft else _hard_play(total, up, two)
    if choice == DOUBLE and not can_double:
        # the double not allowed: a soft 18+ stands, a soft hand below hits; hard 11- hits
        choice = (STAND if total >= 18 else HIT) if soft else (HIT if total <= 11 else STAND)
    if choice in (HIT, STAND) and 12 <= total <= 17 and rng.random() < NOISE:
        choice = STAND if choice == HIT else HIT
    return choice


def insurance_amount(stake: Decimal, rng: random.Random) -> Decimal:
    """An insurance stake: at most half the spot's stake (000), in whole or half units."""
    half = (stake / 2).quantize(Decimal("0.5"), rounding="ROUND_FLOOR")
    if half <= 0:
        return Decimal(0)
    if rng.random() < 0.8:
        return half
    return max(Decimal(1), (half / 2).quantize(Decimal(1), rounding="ROUND_FLOOR"))


def home_player_hits(cards: Sequence[str], rng: random.Random) -> bool:
    """A player at the home table (002): the banker's cards are face down, so a rough rule."""
    total, soft = hand_total(tuple(cards))
    if total >= 21:
        return False
    if total <= 11:
        return True
    if soft:
        return total <= 17
    if total <= 14:
        return rng.random() < 0.75
    if total <= 16:
        return rng.random() < 0.4
    return total == 17 and rng.random() < 0.03


def banker_draws(cards: Sequence[str], rng: random.Random) -> bool:
    """The home banker plays freely (002); mostly like a casino dealer, with some whims."""
    total, soft = hand_total(tuple(cards))
    if total >= 21:
        return False
    if total >= 18:
        return False
    if total == 17:
        return soft and rng.random() < 0.3
    if total >= 15:
        return rng.random() < 0.7
    return True
