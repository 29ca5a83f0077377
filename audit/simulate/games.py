"""What the simulator deals beyond the Italian games (games.md §7): the hole card and the
peek, surrender, rounding to the house's unit, side bets and the rigged shoe.

Everything here is driven by profile *fields* (games.md §1), never by a profile's id,
and draws only from a random stream of its own (``TableSession.games_rng``), so a
profile that sets none of these fields (the four Italian ones) is dealt byte for byte
as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, ROUND_UP, Decimal
from fractions import Fraction

from audit.events.cards import hand_total, is_ace, is_ten_value
from audit.profiles.model import Rules
from audit.sidebets.paytables import PayTable

__all__ = [
    "SideBet",
    "due",
    "peek_due",
    "plays_beyond_italian",
    "rank_of",
    "rig_cards",
    "rig_for_line",
    "side_bet_due",
    "wants_surrender",
]

ALL_UPCARDS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]


def plays_beyond_italian(rules: Rules) -> bool:
    """Whether a profile sets any field of games.md §1 away from its default (or deals a
    hole card): only then does the simulator draw from the games stream at all."""
    return bool(
        rules.initial_deal.has_hole_card
        or rules.side_bets
        or rules.surrender_allowed
        or rules.peek_on_ace
        or rules.peek_on_ten
        or rules.dealer_22_pushes
        or rules.double_max_cards != 2
        or not rules.resplit_aces
        or rules.split_forbidden_ranks
        or rules.payout_unit != Decimal("0.01")
        or rules.dealer_blackjack_takes in ("original", "busted_plus_one")
        or rules.max_hands_per_box > 2
        or not rules.split_aces_one_card
    )


def rank_of(card: str) -> str:
    """A card's rank as profiles name it: ``T`` for every ten-value (games.md §1)."""
    return "T" if is_ten_value(card) else card[0]


def due(stake: Decimal, ratio: Fraction, rules: Rules) -> Decimal:
    """``stake`` times ``ratio`` (negative for a take), rounded as games.md §3 says.

    A due that is a whole multiple of the unit is exact; any other is rounded to a
    multiple of ``payout_unit``: half away from zero, or under ``house`` a payment
    down and a take up in size (3:2 of 10.01: 15.02 or 15.01; half of 10.01: -5.01;
    6:5 of 7 at unit 0.50: 8.50 or 8.00).
    """
    exact = stake * ratio.numerator / ratio.denominator
    unit = rules.payout_unit
    units = exact / unit
    if units == units.to_integral_value():
        return exact if exact != 0 else Decimal(0)
    if rules.payout_rounding == "house":
        mode = ROUND_DOWN if exact > 0 else ROUND_UP
    else:
        mode = ROUND_HALF_UP
    return units.quantize(Decimal(1), rounding=mode) * unit


def peek_due(rules: Rules, up_card: str) -> bool:
    """games.md §3: a peek is due over a face-down hole card when the up card is an ace
    and ``peek_on_ace``, or a ten-value and ``peek_on_ten``."""
    if not rules.initial_deal.has_hole_card:
        return False
    return (is_ace(up_card) and rules.peek_on_ace) or (is_ten_value(up_card) and rules.peek_on_ten)


def wants_surrender(cards: Sequence[str], up_card: str) -> bool:
    """Basic strategy's surrender (6 decks): hard 16 against 9, T or A; hard 15 against T
    (and against A, where the dealer hits soft 17 the difference is small: left out)."""
    if len(cards) != 2:
        return False
    total, soft = hand_total(tuple(cards))
    if soft or cards[0][0] == cards[1][0] == "8":
        return False
    up = rank_of(up_card)
    return (total == 16 and up in ("9", "T", "A")) or (total == 15 and up == "T")


@dataclass(slots=True)
class SideBet:
    """One side bet placed on a spot: its id (the ``kind``), pay table and stake."""

    box: int
    spot: int
    kind: str
    table: PayTable
    stake: Decimal
    settled: bool = False


def side_bet_due(bet: SideBet, lines: Sequence[str], rules: Rules) -> tuple[Decimal, str | None]:
    """The due of a decided side bet (games.md §3): stake x the first listed line's ratio,
    rounded as a payout, or minus the stake when no listed line is satisfied."""
    line = bet.table.outcome(lines)
    if line is None:
        return -bet.stake, None
    return due(bet.stake, bet.table.ratio(line), rules), line


# ---------------------------------------------------------------------- the rigged shoe

_LINE_CARDS: dict[str, dict[str, tuple[str, ...]]] = {
    # (box first, dealer up, box second[, dealer second ...]) in the order they are dealt
    "pair": {
        "perfect": ("8S", "5C", "8S"),
        "coloured": ("8S", "5C", "8C"),
        "mixed": ("8S", "5C", "8H"),
    },
    "three_card": {
        "suited_trips": ("7H", "7H", "7H"),
        "straight_flush": ("5H", "7H", "6H"),
        "trips": ("7H", "7D", "7C"),
        "straight": ("5H", "7D", "6C"),
        "flush": ("2H", "KH", "9H"),
    },
    "twenty": {
        "queen_hearts_pair_dealer_blackjack": ("QH", "AS", "QH", "KD"),
        "queen_hearts_pair": ("QH", "9C", "QH", "7D"),
        "matched": ("KS", "5C", "KS"),
        "suited": ("KS", "5C", "QS"),
        "any": ("KS", "5C", "QH"),
    },
    # a box of A,9 stands on soft 20; the dealer's cards stay below 17 until the last
    "dealer_bust_cards": {
        "cards_3": ("AH", "TC", "9D", "6C", "TD"),
        "cards_4": ("AH", "2C", "9D", "4C", "TH", "TD"),
        "cards_5": ("AH", "2C", "9D", "2D", "2H", "TH", "TD"),
        "cards_6": ("AH", "2C", "9D", "2D", "2H", "2S", "8C", "TD"),
        "cards_7": ("AH", "2C", "9D", "2D", "2H", "2S", "2C", "6C", "TD"),
        "cards_8_plus": ("AH", "2C", "9D", "2D", "2H", "2S", "2C", "2D", "2H", "TD"),
    },
}
"""Cards that satisfy each line, first three as a one-box deal gives them (box, up, box)."""


def rig_for_line(evaluator: str, line: str) -> tuple[str, ...]:
    """The cards a one-box round must be dealt, in shoe order, to reach ``line``."""
    return _LINE_CARDS[evaluator][line]


def rig_cards(cards: list[str], at: int, wanted: Sequence[str]) -> list[str]:
    """The shoe with ``wanted`` moved to positions ``at``.. by swaps (still one full
    shoe: every card as often as before), so the ``shuffle`` event's ``order`` is true."""
    out = list(cards)
    for i, card in enumerate(wanted):
        pos = at + i
        if out[pos] == card:
            continue
        # a card from anywhere but the places already rigged
        j = next(k for k in range(len(out) - 1, pos, -1) if out[k] == card)
        out[pos], out[j] = out[j], out[pos]
    return out
