"""The players' side of a round: boxes, spots, hands, whose turn it is, and what they may do.

Decision checks return the reason a decision breaks the profile (or None), so
the round can both raise the finding and tell the dispute report why
(PokerKit's ``verify_x``/``can_x`` split).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from audit.engine.hands import (
    HandState,
    can_split_pair,
    double_total_ok,
    is_three_sevens,
    is_two_card_21,
)
from audit.events.cards import is_ace
from audit.findings import Code
from audit.profiles.model import Rules


@dataclass
class Skip:
    """A card that went past a hand still owed a card (a split hand, a double).

    rules.md, "How many findings": one breach, one finding. The skip is judged
    once it is known how it ended: the owed card came later (one
    ``DEAL_OUT_OF_TURN``), or never (a double or split ace left without its one
    card is ``PLAY_DOUBLE_CARDS`` / ``PLAY_SPLIT_ACES_CARDS``, else
    ``DEAL_OUT_OF_TURN``).
    """

    event_id: str
    box: int | None
    hand: int | None
    card: str
    reported: bool = False


@dataclass
class PlayHand:
    """One hand of a box while the round is replayed (mutable working state)."""

    box: int
    number: int
    state: HandState = field(default_factory=HandState)
    stakes: dict[int, Decimal] = field(default_factory=dict)
    extra: dict[int, Decimal] = field(default_factory=dict)
    done: bool = False
    surrendered: bool = False
    cards_after_double: int = 0
    phantom: bool = False
    flagged: bool = False
    card_events: list[str] = field(default_factory=list)
    card_indexes: list[int] = field(default_factory=list)
    bust_index: int | None = None
    bust_event: str | None = None
    even_money: set[int] = field(default_factory=set)
    skipped: Skip | None = None

    @property
    def key(self) -> tuple[int, int]:
        return (self.box, self.number)

    @property
    def cards(self) -> tuple[str, ...]:
        return self.state.cards

    @property
    def needs_card(self) -> bool:
        """A hand that cannot end yet: fewer than two cards, or a double awaiting its card."""
        if self.surrendered:
            return False
        return len(self.cards) < 2 or (self.state.doubled and self.cards_after_double == 0)

    def owed_code(self, rules: Rules) -> Code | None:
        """The code for a hand left without its one card (rules.md catalogue), or None.

        ``PLAY_DOUBLE_CARDS``: a doubled hand receives other than exactly one card;
        ``PLAY_SPLIT_ACES_CARDS``: a hand from split aces likewise (000).
        """
        if self.surrendered:
            return None
        if self.state.doubled and self.cards_after_double == 0:
            return Code.PLAY_DOUBLE_CARDS
        if self.state.split_aces and rules.split_aces_one_card and len(self.cards) < 2:
            return Code.PLAY_SPLIT_ACES_CARDS
        return None

    @property
    def natural(self) -> bool:
        return len(self.cards) >= 2 and self.state.natural

    @property
    def bust(self) -> bool:
        return self.state.bust

    @property
    def three_sevens(self) -> bool:
        return is_three_sevens(self.cards)

    @property
    def split_21(self) -> bool:
        """A two-card 21 after a split: an ordinary 21, paid even money (000).

        Exactly two cards (rules.md, the PAY_ code choice): a third card makes it
        another total, whatever the first two were.
        """
        return self.state.from_split and len(self.cards) == 2 and is_two_card_21(self.cards)

    def stake(self, spot: int) -> Decimal:
        """The spot's stake on this hand, a double's extra included."""
        return self.stakes.get(spot, Decimal(0)) + self.extra.get(spot, Decimal(0))

    def add_card(self, card: str, event_id: str, index: int, rules: Rules) -> None:
        """Place one card and mark the hand ended where the rules end it."""
        self.state = self.state.add(card)
        self.card_events.append(event_id)
        self.card_indexes.append(index)
        if self.state.doubled:
            self.cards_after_double += 1
        if self.bust and self.bust_index is None:
            self.bust_index = index
            self.bust_event = event_id
        if len(self.cards) >= 2 and (
            self.natural
            or self.bust
            or (self.state.doubled and self.cards_after_double >= 1)
            or (self.state.split_aces and rules.split_aces_one_card)
            or (rules.stand_on_21 and self.state.total == 21)
        ):
            self.done = True


@dataclass
class PlayBox:
    """A betting box: its spots' stakes and its hands."""

    number: int
    spots: dict[int, Decimal] = field(default_factory=dict)
    players: dict[int, str | None] = field(default_factory=dict)
    hands: list[PlayHand] = field(default_factory=list)
    phantom: bool = False
    late: bool = False

    def hand(self, number: int) -> PlayHand | None:
        for h in self.hands:
            if h.number == number:
                return h
        return None


def hit_violation(hand: PlayHand, rules: Rules) -> Code | None:
    """Which rule a card to this hand breaks, in rules.md's precedence order.

    ``PLAY_HIT_ON_BLACKJACK`` (004: no card after a blackjack),
    ``PLAY_SPLIT_ACES_CARDS`` (000: one card each), ``PLAY_DOUBLE_CARDS`` (000:
    exactly one card), ``PLAY_HIT_AFTER_BUST`` (004: out of the game),
    ``PLAY_HIT_ON_21`` (004: «quando arriva al 21 si deve fermare»). The caller
    checks ``DEAL_OUT_OF_TURN`` last.
    """
    n = len(hand.cards)
    if hand.natural:
        return Code.PLAY_HIT_ON_BLACKJACK
    if hand.state.split_aces and rules.split_aces_one_card and n >= 2:
        return Code.PLAY_SPLIT_ACES_CARDS
    if hand.state.doubled and hand.cards_after_double >= 1:
        return Code.PLAY_DOUBLE_CARDS
    if hand.bust:
        return Code.PLAY_HIT_AFTER_BUST
    if rules.stand_on_21 and n >= 2 and hand.state.total == 21:
        return Code.PLAY_HIT_ON_21
    return None


HIT_RULE = {
    Code.PLAY_HIT_ON_BLACKJACK: "blackjack_pays",
    Code.PLAY_SPLIT_ACES_CARDS: "split_aces_one_card",
    Code.PLAY_DOUBLE_CARDS: "double_allowed",
    Code.PLAY_HIT_AFTER_BUST: "win_pays",
    Code.PLAY_HIT_ON_21: "stand_on_21",
}
"""The profile field each card-to-a-hand code cites."""


def double_violation(
    hand: PlayHand, rules: Rules, extras: dict[int, Decimal]
) -> tuple[str, str] | None:
    """Why a double breaks the profile, as (rule field, reason), or None (000, 001).

    000: the first two cards total 9, 10 or 11 (the ace 1 or 11 at the
    player's choice), one more card, the extra stake at most the stake; rules.md:
    never on a natural; after a split when ``double_after_split``; never on
    split aces unless ``double_on_split_aces``.
    """
    cards = hand.cards
    if not rules.double_allowed:
        return ("double_allowed", "the profile allows no double")
    if hand.state.doubled:
        return ("double_allowed", "the hand is already doubled")
    if len(cards) != 2:
        return ("double_allowed", f"a double is on the first two cards, the hand has {len(cards)}")
    if hand.natural:
        return ("double_allowed", "a natural never doubles")
    if hand.state.split_aces and not rules.double_on_split_aces:
        return ("double_on_split_aces", "no double on split aces")
    if hand.state.from_split and not rules.double_after_split:
        return ("double_after_split", "no double after a split")
    if not double_total_ok(cards, rules.double_totals, rules.double_soft_ace_either):
        return (
            "double_totals",
            f"{','.join(cards)} totals {hand.state.total}; doubles are allowed on "
            f"{', '.join(str(t) for t in rules.double_totals or [])}",
        )
    ratio = rules.double_max_ratio
    for spot, extra in sorted(extras.items()):
        own = hand.stakes.get(spot, Decimal(0))
        if extra * ratio.denominator > own * ratio.numerator:
            return (
                "double_max_ratio",
                f"spot {spot} adds {extra} on a stake of {own}: at most {ratio} of the stake",
            )
    return None


def split_violation(hand: PlayHand, box: PlayBox, rules: Rules) -> tuple[str, str] | None:
    """Why a split breaks the profile, as (rule field, reason), or None.

    000: two equal cards (ten-values are all equal); rules.md: no re-split
    (``max_hands_per_box``); 002: no split at all (house default).
    """
    cards = hand.cards
    if not rules.split_allowed:
        return ("split_allowed", "the profile allows no split")
    if len(cards) != 2:
        return ("split_allowed", f"a split is of two cards, the hand has {len(cards)}")
    if not can_split_pair(cards):
        return ("split_allowed", f"{cards[0]} and {cards[1]} are not equal cards")
    if len(box.hands) + 1 > rules.max_hands_per_box:
        return (
            "max_hands_per_box",
            f"the box would hold {len(box.hands) + 1} hands; at most {rules.max_hands_per_box}",
        )
    return None


def split_hand(box: PlayBox, hand: PlayHand, spots: list[int]) -> PlayHand:
    """Apply a split as event-log.md "Hand" numbers it.

    The first card stays in hand *h*, the second moves to a new hand numbered by
    the count of hands the box had; every taking-part spot stakes its stake on
    *h* on the new hand.
    """
    cards = hand.cards
    first, moved = cards[:1], cards[1:2]
    aces = len(cards) >= 2 and is_ace(cards[0]) and is_ace(cards[1])
    hand.state = HandState(cards=(*first, *cards[2:]), from_split=True, split_aces=aces)
    new = PlayHand(
        box=box.number,
        number=len(box.hands),
        state=HandState(cards=tuple(moved), from_split=True, split_aces=aces),
        stakes={s: hand.stakes[s] for s in spots if s in hand.stakes},
    )
    box.hands.append(new)
    return new
