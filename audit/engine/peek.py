"""The hole card and the peek (games.md §3): pure checks, no state.

A hole card is the dealer's deal card the profile's ``initial_deal`` deals
face down beside a face-up one (:attr:`audit.profiles.model.Deal.has_hole_card`).
The peek is due when the up card is an ace and ``peek_on_ace``, or a ten-value
and ``peek_on_ten``, over a face-down hole card; otherwise none is allowed.
:class:`audit.engine.round.Round` keeps the hole card's state and asks these
functions what a ``peek`` or ``reveal`` breaks before it applies it.
"""

from __future__ import annotations

from audit.events.cards import is_ace, is_ten_value
from audit.profiles.model import Rules


def peek_due(rules: Rules, upcard: str | None, hole_face_down: bool) -> bool:
    """Whether the profile has the dealer peek over this up card (games.md §3, "The peek")."""
    if upcard is None or not hole_face_down:
        return False
    if is_ace(upcard):
        return rules.peek_on_ace
    return is_ten_value(upcard) and rules.peek_on_ten


def needless_peek(
    rules: Rules, upcard: str | None, hole_face_down: bool, peeks_before: int
) -> str | None:
    """Why a ``peek`` is one none is due for (``DEAL_PEEK_NEEDLESS``, games.md §4), or None."""
    if peeks_before:
        return "a second peek in the round"
    if not hole_face_down:
        return "no face-down hole card to peek at"
    if upcard is None:
        return "the dealer has no up card"
    if not peek_due(rules, upcard, hole_face_down):
        rule = "peek_on_ace" if is_ace(upcard) else "peek_on_ten"
        if is_ace(upcard) or is_ten_value(upcard):
            return f"the profile does not peek under {upcard} ({rule} = false)"
        return f"the dealer peeks under an ace or a ten-value only, not {upcard}"
    return None


def needless_rule(upcard: str | None) -> str:
    """The field a needless peek is cited under."""
    return "peek_on_ace" if upcard is not None and is_ace(upcard) else "peek_on_ten"
