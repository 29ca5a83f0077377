"""The shoe: 52 x decks real cards, shuffled once, drawn in order with their positions.

A position counts from 1 and includes burns (event-log.md, ``card.pos``). The
cut card lies after ``cut_card`` cards: the first card drawn from beyond it
makes the round in progress the last of the shoe (rules.md, "When things must
happen").
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from audit.events.cards import full_deck

__all__ = ["Shoe", "ShoeExhausted", "new_shoe"]


class ShoeExhausted(RuntimeError):
    """No card is left in the shoe (the simulator never plays that far)."""


@dataclass
class Shoe:
    """A loaded shoe: ``cards[0]`` is the card at position 1."""

    cards: list[str]
    decks: int
    cut_card: int | None = None
    has_pos: bool = True
    order_recorded: bool = False
    next_index: int = 0
    cut_out: bool = False
    seen: Counter[str] = field(default_factory=Counter)
    """How many times each card was recorded face known (dealt, shown, burned with its cards)."""

    @property
    def next_pos(self) -> int:
        """The position of the next card to leave the shoe."""
        return self.next_index + 1

    @property
    def remaining(self) -> int:
        """Cards still in the shoe, as a dealer counts them at the close."""
        return len(self.cards) - self.next_index

    def draw(self) -> tuple[str, int]:
        """Take the next card: (card, position)."""
        if self.next_index >= len(self.cards):
            raise ShoeExhausted(f"all {len(self.cards)} cards of the shoe are out")
        card = self.cards[self.next_index]
        self.next_index += 1
        return card, self.next_index

    def beyond_cut(self, pos: int) -> bool:
        """Whether the card at ``pos`` lies behind the cut card."""
        return self.cut_card is not None and pos > self.cut_card

    def snapshot(self) -> tuple[int, bool, Counter[str]]:
        return self.next_index, self.cut_out, Counter(self.seen)

    def restore(self, state: tuple[int, bool, Counter[str]]) -> None:
        self.next_index, self.cut_out, seen = state
        self.seen = Counter(seen)


def new_shoe(rng: random.Random, decks: int) -> list[str]:
    """52 x ``decks`` cards in a random order (a real shuffle: every card once per deck)."""
    cards = full_deck() * decks
    rng.shuffle(cards)
    return cards
