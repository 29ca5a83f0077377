"""Cards as TEL/1 writes them: rank then suit (``AS``, ``TD``, ``7H``).

Card values (all profiles; seeds 000, 001, 004): 2-9 count their face value,
T J Q K count 10, an ace counts 11 unless that takes the hand over 21.
"""

from __future__ import annotations

import re

RANKS = "A23456789TJQK"
SUITS = "SHDC"
TEN_VALUES = frozenset("TJQK")
_CARD_RE = re.compile(r"^(10|[A2-9TJQK])([SHDC])$")


def normalise_card(code: str) -> str:
    """Return the stored (upper-case) form of a card code, or raise ValueError.

    ``10`` is accepted as a synonym of ``T``, and input is case-insensitive
    (event-log.md, "Cards").
    """
    # ASCII only: str.upper() would make a card of "ſ" (U+017F), which upper-cases to S.
    m = _CARD_RE.match(code.upper()) if code.isascii() else None
    if m is None:
        raise ValueError(
            f"unknown card {code!r}: expected rank A 2-9 T J Q K (or 10) then suit S H D C"
        )
    rank, suit = m.groups()
    return ("T" if rank == "10" else rank) + suit


def rank(card: str) -> str:
    """The rank letter of a stored card code."""
    return card[0]


def value(card: str) -> int:
    """The hard value of a card: ace 1, ten-values 10, others face value."""
    r = card[0]
    if r == "A":
        return 1
    if r in TEN_VALUES:
        return 10
    return int(r)


def is_ten_value(card: str) -> bool:
    """T, J, Q and K all count 10 and are "equal cards" for splitting (000)."""
    return card[0] in TEN_VALUES


def is_ace(card: str) -> bool:
    return card[0] == "A"


def hand_total(cards: list[str] | tuple[str, ...]) -> tuple[int, bool]:
    """Best total of a hand and whether it is soft.

    An ace counts 11 if that does not take the hand over 21, else 1 (000,
    001, 004). A hand whose best total counts an ace as 11 is *soft*.
    """
    hard = 0
    aces = 0
    for c in cards:
        v = value(c)
        hard += v
        if v == 1:
            aces += 1
    if aces and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def full_deck() -> list[str]:
    """The 52 cards of one deck, in a fixed order."""
    return [r + s for s in SUITS for r in RANKS]
