"""What every simulated round shares: hands, wagers, dealing from the shoe, injection hooks.

A round is played into a list of :class:`~audit.simulate.writer.Draft` events
(no ids or times yet) together with a record of every wager and its correct
settlement, so that an error can be injected either while the round is played
(a :class:`Directive` fires at the n-th opportunity of its class) or afterwards
on the settlements.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from audit.events.cards import hand_total, is_ace, is_ten_value
from audit.findings import Code
from audit.profiles.model import Rules
from audit.simulate.bias import NO_BIAS, Bias
from audit.simulate.shoe import Shoe
from audit.simulate.writer import Draft

__all__ = [
    "ZERO",
    "BoxPlan",
    "BoxState",
    "Directive",
    "Fired",
    "Hand",
    "RoundBase",
    "RoundResult",
    "TableStyle",
    "Wager",
    "pay",
]

ZERO = Decimal(0)


def pay(stake: Decimal, ratio: Fraction) -> Decimal:
    """A stake times a payout ratio, exactly (3/2 of 25 is 37.5)."""
    out = stake * ratio.numerator / ratio.denominator
    return out if out != 0 else ZERO


@dataclass(frozen=True, slots=True)
class TableStyle:
    """How a table's equipment and staff write the log."""

    records_actions: bool = True
    """hit/stand actions are written (they are optional in TEL/1)."""
    writes_cut_card_out: bool = True
    burn_cards_seen: bool = True
    """the start burn lists its cards (a reading shoe) rather than a count."""
    writes_spots: bool = False
    """doubles and splits list the ``spots`` taking part (optional in TEL/1: default all)."""
    p_double_for_less: float = 0.08
    """chance a lone box holder doubles for less than the stake (``action.amount``)."""
    p_exposed: float = 0.004
    """chance, at each decision, that the dealer draws and shows a card nobody asked for."""


@dataclass(slots=True)
class BoxPlan:
    """A box's bets for one round, as decided before it starts.

    ``bets`` is the sequence of ``bet`` events (spot, amount, player): a later
    bet for the same spot replaces it, amount 0 withdraws it. ``stakes`` is the
    result at no more bets.
    """

    box: int
    bets: list[tuple[int, Decimal, str | None]]
    stakes: dict[int, Decimal]
    players: dict[int, str | None]


@dataclass(slots=True)
class Hand:
    box: int
    index: int
    cards: list[str]
    stakes: dict[int, Decimal]
    extra: dict[int, Decimal] = field(default_factory=dict)
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False
    busted: bool = False
    settled: set[int] = field(default_factory=set)
    even_money: set[int] = field(default_factory=set)
    surrendered: bool = False

    @property
    def total(self) -> int:
        return hand_total(self.cards)[0]

    @property
    def soft(self) -> bool:
        return hand_total(self.cards)[1]

    @property
    def natural(self) -> bool:
        """Ace and ten-value as the first two cards of a hand not from a split (rules.md)."""
        return not self.from_split and _two_card_21(self.cards)

    @property
    def split21(self) -> bool:
        return self.from_split and len(self.cards) == 2 and _two_card_21(self.cards)


def _two_card_21(cards: list[str]) -> bool:
    if len(cards) < 2:
        return False
    a, b = cards[0], cards[1]
    return (is_ace(a) and is_ten_value(b)) or (is_ace(b) and is_ten_value(a))


@dataclass(slots=True)
class BoxState:
    box: int
    players: dict[int, str | None]
    nmb_stakes: dict[int, Decimal]
    hands: list[Hand]
    insurance: dict[int, Decimal] = field(default_factory=dict)


@dataclass(slots=True)
class Wager:
    """One settlement as written, with what it takes to mis-settle it on purpose."""

    box: int
    hand: int
    spot: int
    kind: str
    amount: Decimal
    draft: Draft
    stake: Decimal
    extra: Decimal = ZERO
    natural: bool = False
    split21: bool = False
    final_pass: bool = False
    even_money: bool = False
    surrendered: bool = False
    paytable: Any = None
    """A side bet's pay table (:class:`~audit.sidebets.paytables.PayTable`), else None."""
    decided_at: Draft | None = None
    """A side bet's deciding event: the box's second card, or the dealer's last card."""


@dataclass(slots=True)
class Directive:
    """Inject ``code`` at its ``nth`` opportunity in this round."""

    code: Code | None = None
    nth: int = 1


@dataclass(frozen=True, slots=True)
class Fired:
    """An error that was injected: where, and a note for people."""

    code: Code
    box: int | None
    hand: int | None
    note: str


@dataclass(slots=True)
class RoundResult:
    drafts: list[Draft]
    wagers: list[Wager]
    opportunities: Counter[Code]
    features: Counter[str]
    fired: Fired | None
    recorded_cards: int
    peek_found: bool | None = None
    """What the round's ``peek`` found (None: no peek): a settlement moved before it must
    not be one a blackjack would change."""

    @property
    def peek_index(self) -> int | None:
        return next((i for i, d in enumerate(self.drafts) if d.type == "peek"), None)


class RoundBase:
    """Drafting, dealing and settling, with the hooks play-changing injections use."""

    def __init__(
        self,
        *,
        rules: Rules,
        shoe: Shoe,
        rng: random.Random,
        err_rng: random.Random,
        directive: Directive,
        style: TableStyle,
        bias: Bias = NO_BIAS,
        bias_rng: random.Random | None = None,
    ) -> None:
        self.rules = rules
        self.shoe = shoe
        self.rng = rng
        self.err_rng = err_rng
        self.directive = directive
        self.style = style
        self.bias = bias
        self.bias_rng = bias_rng or random.Random(0)
        self.drafts: list[Draft] = []
        self.wagers: list[Wager] = []
        self.opps: Counter[Code] = Counter()
        self.features: Counter[str] = Counter()
        self.fired: Fired | None = None
        self.recorded = 0
        self._excess_seen = False
        self.peek_found: bool | None = None

    # ------------------------------------------------------------------ drafting

    def emit(self, type_: str, delay: int, *, in_round: bool = True, **fields: Any) -> Draft:
        draft = Draft(type_, fields, delay, in_round)
        self.drafts.append(draft)
        return draft

    def place_bets(self, plans: list[BoxPlan], lo: int, hi: int) -> dict[int, BoxState]:
        """Emit every planned ``bet`` (``lo``..``hi`` s apart) and open the boxes."""
        boxes: dict[int, BoxState] = {}
        for plan in plans:
            for spot, amount, player in plan.bets:
                fields: dict[str, Any] = {"box": plan.box, "spot": spot, "amount": amount}
                if player is not None:
                    fields["player"] = player
                self.emit("bet", self.pause(lo, hi), **fields)
            boxes[plan.box] = BoxState(
                box=plan.box,
                players=dict(plan.players),
                nmb_stakes=dict(plan.stakes),
                hands=[Hand(plan.box, 0, [], dict(plan.stakes))],
            )
            self.features["boxes"] += 1
            self.features["spots"] += len(plan.stakes)
        return boxes

    def pause(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def play(self) -> RoundResult:
        raise NotImplementedError

    def result(self) -> RoundResult:
        return RoundResult(
            self.drafts,
            self.wagers,
            self.opps,
            self.features,
            self.fired,
            self.recorded,
            self.peek_found,
        )

    # ------------------------------------------------------------------ injection hooks

    def opportunity(self, code: Code) -> bool:
        """Count an opportunity for ``code``; True when the directive fires here."""
        self.opps[code] += 1
        return (
            self.fired is None
            and self.directive.code is code
            and self.opps[code] == self.directive.nth
        )

    def fire(self, code: Code, box: int | None, hand: int | None, note: str) -> None:
        assert self.fired is None, "one injected error per round"
        self.fired = Fired(code, box, hand, note)

    # ------------------------------------------------------------------ the shoe

    def cut_check(self) -> None:
        """``cut_card_out`` just before the first card drawn from beyond the cut card."""
        shoe = self.shoe
        if shoe.cut_card is not None and not shoe.cut_out and shoe.beyond_cut(shoe.next_pos):
            shoe.cut_out = True
            if self.style.writes_cut_card_out:
                self.emit("cut_card_out", 0)

    def deal(
        self,
        to: str,
        box: int | None = None,
        hand: Hand | None = None,
        *,
        write_hand: bool = False,
        face_up: bool = True,
        delay: tuple[int, int] = (1, 2),
    ) -> str:
        """One card from the shoe to a box's hand or to the dealer, as a ``card`` event."""
        shoe = self.shoe
        self.recorded += 1
        if shoe.has_pos and self.recorded >= 2 and self.opportunity(Code.SHOE_POSITION_GAP):
            self.cut_check()
            _, lost = shoe.draw()
            self.fire(
                Code.SHOE_POSITION_GAP,
                box,
                hand.index if hand is not None else None,
                f"the card at position {lost} left the shoe unrecorded",
            )
        self.cut_check()
        card, pos = shoe.draw()
        if not shoe.order_recorded and not self._excess_seen:
            added = sorted(c for c, n in shoe.seen.items() if n == shoe.decks)
            if added:
                self._excess_seen = True
                if self.opportunity(Code.SHOE_CARD_EXCESS):
                    real = card
                    card = self.err_rng.choice(added)
                    self.fire(
                        Code.SHOE_CARD_EXCESS,
                        box,
                        hand.index if hand is not None else None,
                        f"{card} dealt at position {pos} in place of {real}: {card} out "
                        f"{shoe.decks + 1} times from a {shoe.decks}-deck shoe",
                    )
        shoe.seen[card] += 1
        fields: dict[str, Any] = {"card": card, "to": to}
        if box is not None:
            fields["box"] = box
            if write_hand and hand is not None:
                fields["hand"] = hand.index
        if not face_up:
            fields["face_up"] = False
        if shoe.has_pos:
            fields["pos"] = pos
        self.emit("card", self.pause(*delay), **fields)
        if hand is not None:
            hand.cards.append(card)
        return card

    # ------------------------------------------------------------------ settling

    def settle(
        self,
        hand: Hand,
        spot: int,
        amount: Decimal,
        *,
        kind: str = "main",
        delay: tuple[int, int] = (1, 3),
        final_pass: bool = False,
        even_money: bool = False,
        stake: Decimal | None = None,
    ) -> Wager:
        amount = amount if amount != 0 else ZERO
        draft = self.emit(
            "settle",
            self.pause(*delay),
            box=hand.box,
            hand=hand.index if kind != "insurance" else 0,
            spot=spot,
            kind=kind,
            amount=amount,
        )
        if kind == "main":
            hand.settled.add(spot)
        wager = Wager(
            box=hand.box,
            hand=hand.index if kind != "insurance" else 0,
            spot=spot,
            kind=kind,
            amount=amount,
            draft=draft,
            stake=hand.stakes[spot] if stake is None else stake,
            extra=hand.extra.get(spot, ZERO) if kind == "main" else ZERO,
            natural=hand.natural,
            split21=hand.split21,
            final_pass=final_pass,
            even_money=even_money,
            surrendered=hand.surrendered and kind == "main",
        )
        self.wagers.append(wager)
        return wager

    def bust(self, hand: Hand) -> None:
        """A bust loses at once: its stakes are taken before the next card (000, 001)."""
        hand.busted = True
        self.features["busts"] += 1
        for spot in sorted(hand.stakes):
            self.settle(hand, spot, -(hand.stakes[spot] + hand.extra.get(spot, ZERO)))
