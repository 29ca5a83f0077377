"""The phases a round moves through (rules.md, "When things must happen").

Its own module so the phase modules that act on a :class:`~audit.engine.round.Round`
(the dealer's turn, the players' decisions, ...) can set the phase without importing
the round at run time.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Phase"]


class Phase(IntEnum):
    """Where a round stands (rules.md, "When things must happen")."""

    BETTING = 0
    """Stakes may be placed, changed or withdrawn."""
    DEAL = 1
    """Betting is closed; the initial deal, card by card, as the profile lays it out."""
    INSURANCE = 2
    """The deal is complete and no one has played yet: insurance and even money."""
    PLAY = 3
    """The players' turns, box by box in order, each box's hands by number."""
    DEALER = 4
    """The dealer's turn: his cards after the initial deal."""
    SETTLEMENT = 5
    """The dealer's hand is complete (his rule says stand): the final pass."""
    CLOSED = 6
    """``round_close``, or the round was abandoned (``LOG_INCOMPLETE``)."""
