"""The side-bet evaluators: which pay-table lines the dealt cards satisfy.

games.md §1, "Side bets are data": a side bet is an **evaluator** (code, a
closed set: a verifier of the dealt cards) and a **pay table** (data). Each
evaluator here is a pure function of the cards its bet reads that returns
every line those cards satisfy, best first, in the order games.md's table
gives; the pay table then pays the first of them it lists
(:meth:`audit.sidebets.paytables.PayTable.outcome`), so a table without
``suited_trips`` pays suited trips as ``trips``. No I/O, no clock, no state:
the engine calls them when the bet is decided (§1's "decided" column), and
:mod:`audit.sidebets.odds` enumerates them for the exact house edge.

Cards are stored TEL/1 codes (``QH``, ``TS``, ``AD``; :mod:`audit.events.cards`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from audit.events.cards import hand_total, is_ace, is_ten_value, value

__all__ = [
    "EVALUATORS",
    "Evaluator",
    "dealer_bust_cards_lines",
    "pair_lines",
    "three_card_lines",
    "twenty_lines",
]

RED_SUITS = frozenset("HD")
"""Hearts and diamonds are red; spades and clubs black (games.md §1, ``pair``)."""
_ORDER = {rank: i for i, rank in enumerate("A23456789TJQK", start=1)}
"""Ranks as straights count them: T J Q K are 10-13, the ace 1 (or 14: below)."""


def _rank(card: str) -> str:
    return card[0]


def _suit(card: str) -> str:
    return card[1]


def _colour(card: str) -> str:
    return "red" if _suit(card) in RED_SUITS else "black"


def pair_lines(first: str, second: str) -> tuple[str, ...]:
    """Perfect Pairs (games.md §1, evaluator ``pair``): the box's first two cards.

    ``perfect``: same rank and suit; ``coloured``: same rank and colour, suits
    differ; ``mixed``: same rank, colours differ. Rank is the card's own (K, Q is
    no pair), as Wizard of Odds' Perfect Pairs page counts them. A pair satisfies
    exactly one line. Decided at the box's second card.
    """
    if _rank(first) != _rank(second):
        return ()
    if _suit(first) == _suit(second):
        return ("perfect",)
    if _colour(first) == _colour(second):
        return ("coloured",)
    return ("mixed",)


def _is_straight(cards: Sequence[str]) -> bool:
    ranks = sorted(_ORDER[_rank(c)] for c in cards)  # ace 1 ... king 13
    if len(set(ranks)) != len(ranks):
        return False
    if ranks[-1] - ranks[0] == len(ranks) - 1:
        return True
    # the ace high: Q-K-A (not K-A-2, which wraps)
    return ranks[0] == 1 and ranks[1:] == list(range(15 - len(ranks), 14))


def three_card_lines(first: str, second: str, up_card: str) -> tuple[str, ...]:
    """21+3 (games.md §1, evaluator ``three_card``): the box's first two cards and the up card.

    ``suited_trips``: same rank and suit; ``straight_flush``; ``trips``: same
    rank; ``straight``: three consecutive ranks, T J Q K being 10-13 and the ace
    high or low (A-2-3, Q-K-A; not K-A-2); ``flush``: same suit. A hand
    satisfies every line its cards meet (suited trips are also trips and a
    flush), best first. Decided at the later of the box's second card and the up card.
    """
    cards = (first, second, up_card)
    same_rank = len({_rank(c) for c in cards}) == 1
    flush = len({_suit(c) for c in cards}) == 1
    straight = _is_straight(cards)
    lines: list[str] = []
    if same_rank and flush:
        lines.append("suited_trips")
    if straight and flush:
        lines.append("straight_flush")
    if same_rank:
        lines.append("trips")
    if straight:
        lines.append("straight")
    if flush:
        lines.append("flush")
    return tuple(lines)


def _is_natural(cards: Sequence[str]) -> bool:
    return len(cards) == 2 and any(map(is_ace, cards)) and any(map(is_ten_value, cards))


def twenty_lines(first: str, second: str, dealer: Sequence[str] = ()) -> tuple[str, ...]:
    """Lucky Ladies (games.md §1, evaluator ``twenty``): the box's first two cards total 20.

    Two ten-values, or an ace and a nine. ``queen_hearts_pair_dealer_blackjack``
    (two QH and the dealer's first two cards a blackjack); ``queen_hearts_pair``;
    ``matched`` (two identical cards); ``suited``; ``any``. ``dealer`` is the
    dealer's first two cards once his blackjack is known (§3), else empty: the
    top line is only reached with them. Decided at the box's second card; a QH
    pair once the dealer's blackjack is known.
    """
    values = sorted((value(first), value(second)))
    if values not in ([10, 10], [1, 9]):
        return ()
    lines: list[str] = []
    if first == second == "QH":
        if _is_natural(dealer):
            lines.append("queen_hearts_pair_dealer_blackjack")
        lines.append("queen_hearts_pair")
    if first == second:
        lines.append("matched")
    if _suit(first) == _suit(second):
        lines.append("suited")
    lines.append("any")
    return tuple(lines)


BUST_LINES = ("cards_3", "cards_4", "cards_5", "cards_6", "cards_7", "cards_8_plus")


def dealer_bust_cards_lines(dealer: Sequence[str]) -> tuple[str, ...]:
    """Buster (games.md §1, evaluator ``dealer_bust_cards``): the dealer's final hand.

    ``cards_3`` ... ``cards_7``, ``cards_8_plus``: he busts holding that many
    cards. A hand that does not bust (a blackjack included) satisfies none.
    Decided when his hand is complete (after the players' play, his hole card
    turned and his last draw; a blackjack loses it at once).
    """
    total, _ = hand_total(tuple(dealer))
    if total <= 21 or len(dealer) < 3:
        return ()
    return (f"cards_{len(dealer)}" if len(dealer) < 8 else "cards_8_plus",)


@dataclass(frozen=True, slots=True)
class Evaluator:
    """One evaluator of games.md §1: its name, its lines best first, what it reads."""

    name: str
    lines: tuple[str, ...]
    reads: str
    """What the bet reads, as games.md §1 says it (for ``theory`` and messages)."""
    function: Callable[..., tuple[str, ...]]


EVALUATORS: dict[str, Evaluator] = {
    e.name: e
    for e in (
        Evaluator(
            "pair", ("perfect", "coloured", "mixed"), "the box's first two cards", pair_lines
        ),
        Evaluator(
            "three_card",
            ("suited_trips", "straight_flush", "trips", "straight", "flush"),
            "the box's first two cards and the dealer's up card",
            three_card_lines,
        ),
        Evaluator(
            "twenty",
            ("queen_hearts_pair_dealer_blackjack", "queen_hearts_pair", "matched", "suited", "any"),
            "the box's first two cards (totalling 20) and, for the top line, "
            "the dealer's first two",
            twenty_lines,
        ),
        Evaluator(
            "dealer_bust_cards", BUST_LINES, "the dealer's final hand", dealer_bust_cards_lines
        ),
    )
}
"""The closed set of evaluators (games.md §1), by the name a pay table's ``evaluator`` gives."""
