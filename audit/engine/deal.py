"""The initial deal, as the profile's procedure (:class:`audit.profiles.model.Deal`) lays it out.

rules.md, "initial deal": 000/001/004 deal one face-up card to each box in box
order, one face-up to the dealer, then a second face-up card to each box, and
**no dealer hole card**; 002 deals two cards to each player and the banker, one
at a time in order, banker last in each pass, all face down. Both are one
procedure with different data: two passes over the staked boxes, the dealer's
cards last in their passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from audit.profiles.model import Deal

DEALER = 0
"""The dealer's seat in a :class:`Slot` (boxes are numbered from 1)."""


class Slot(NamedTuple):
    """One card of the initial deal: where it goes (a box, or :data:`DEALER`) and its face."""

    seat: int
    face_up: bool


class DealShape:
    """Where the profile's deal puts the dealer's cards, as plain values a round reads often.

    The same answers as :class:`~audit.profiles.model.Deal`'s properties, read once a
    shoe: each of those is a Python call on a pydantic model, which the compiled engine
    paid several times a round (``upcard_index`` alone some 4.6 times a round: about 3% of
    the replay of an Italian night, issue 32).
    """

    __slots__ = ("dealer_cards", "hole_card_index", "upcard_index")

    def __init__(self, deal: Deal) -> None:
        self.dealer_cards: int = deal.dealer_cards
        """The dealer's cards in the deal (1 or 2)."""
        self.hole_card_index: int | None = deal.hole_card_index
        """Which of them is the hole card (None: the deal has none)."""
        self.upcard_index: int | None = deal.upcard_index
        """Which of them is his up card (None: none is dealt face up)."""


def deal_plan(deal: Deal, boxes: Sequence[int]) -> tuple[Slot, ...]:
    """The cards of the initial deal in order, for the staked ``boxes`` (ascending)."""
    first = [Slot(b, deal.face_up) for b in boxes]
    second = list(first)
    first.append(Slot(DEALER, deal.dealer_face_up))
    if deal.dealer_cards == 2:
        second.append(Slot(DEALER, deal.hole_card_face_up))
    return (*first, *second)


def where(seat: int | None) -> str:
    """A seat in words: ``box 3``, ``the dealer``; None is past the end of the deal."""
    if seat is None:
        return "no more cards"
    return "the dealer" if seat == DEALER else f"box {seat}"


def expected_face(deal: Deal, seat: int, dealer_cards_before: int) -> bool:
    """Whether a deal card to ``seat`` is dealt face up under the procedure."""
    if seat != DEALER:
        return deal.face_up
    return deal.dealer_face_up if dealer_cards_before == 0 else deal.hole_card_face_up


def deal_problems(
    slot: Slot | None, seat: int, face_up: bool, want_face_up: bool, staked: bool, hand: int | None
) -> list[str]:
    """How one card of the initial deal departs from the procedure (``DEAL_ORDER``), in words.

    ``slot`` is the card the procedure expects next (None past its end);
    ``seat`` where the card went, ``face_up`` how, ``want_face_up`` how such a
    card is dealt (:func:`expected_face`); ``staked`` whether that box has a stake.
    """
    problems: list[str] = []
    if seat != DEALER and not staked:
        problems.append(f"box {seat} has no stake")
    elif seat != DEALER and hand:
        problems.append(f"hand {hand} does not exist in the initial deal")
    if slot is None or slot.seat != seat:
        problems.append(f"the card went to {where(seat)}, {where(slot and slot.seat)} was next")
    if face_up != want_face_up:
        problems.append(f"dealt face {'up' if face_up else 'down'}")
    return problems
