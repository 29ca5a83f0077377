"""The dealer's rule: draw to 16, stand on 17 (000, 001, 004); the home banker plays freely (002).

rules.md, "dealer draws": the dealer draws below ``dealer_stands_on`` and stands
on it and above, soft 17 included when ``dealer_stands_on_soft_17`` (000: «Deve
restare con 17 punti o più»; 001: «L'asso del banchiere vale 11 quando gli
consente di avere un punto superiore a 16»). Once every player hand is decided
the dealer may stop drawing (rules.md, "Findings").
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.engine.hands import best_total, is_soft, is_two_card_21
from audit.events.cards import is_ace, is_ten_value
from audit.profiles.model import Rules


def dealer_must_draw(cards: Sequence[str], rules: Rules) -> bool:
    """Whether the dealer rule requires another card at this hand (000, 001, 004).

    Below ``dealer_stands_on`` the dealer draws; at exactly that total a soft
    hand draws only when ``dealer_stands_on_soft_17`` is false.
    """
    total = best_total(cards)
    if total < rules.dealer_stands_on:
        return True
    return total == rules.dealer_stands_on and is_soft(cards) and not rules.dealer_stands_on_soft_17


def dealer_natural(cards: Sequence[str]) -> bool:
    """The dealer's first two cards are an ace and a ten-value (no hole card: 000)."""
    return is_two_card_21(cards)


def upcard_can_make_blackjack(cards: Sequence[str]) -> bool:
    """Whether the dealer can still make a natural: one card, an ace or a ten-value.

    rules.md, "Findings": a natural is decided once the dealer's first card is
    2 to 9, or the second card gave no blackjack.
    """
    return len(cards) == 1 and (is_ace(cards[0]) or is_ten_value(cards[0]))


def dealer_rule_word(cards: Sequence[str], rules: Rules, all_decided: bool) -> str:
    """What the dealer rule says at this hand, in one word for the dispute report.

    ``free`` (the home banker, 002), ``stand``, ``draw``, or ``may_stop`` (the
    rule says draw but every player hand is decided, rules.md).
    """
    if rules.dealer_plays_freely:
        return "free"
    if not dealer_must_draw(cards, rules):
        return "stand"
    return "may_stop" if all_decided else "draw"
