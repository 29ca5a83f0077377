"""One round at a casino table with no dealer hole card (profiles 000, 001, 004).

The round follows rules.md: bets, no more bets (for 001's first round before
the start burn), one card to each box in box order, one face up to the dealer,
a second to each box; insurance or even money against an ace where offered;
each box plays in turn (splits, doubles, objections, the mandatory hit, the
exposed-card procedure), busts are collected at once, blackjacks are paid when
``blackjack_paid`` says; the dealer completes the hand while any player hand
is still open; the final pass settles in ``settlement_order``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from audit.events.cards import hand_total, is_ace, is_ten_value
from audit.findings import Code
from audit.simulate.base import ZERO, BoxPlan, BoxState, Hand, RoundBase, RoundResult, pay
from audit.simulate.shoe import Shoe
from audit.simulate.strategy import (
    DOUBLE,
    HIT,
    SPLIT,
    STAND,
    insurance_amount,
    player_decision,
)

__all__ = ["CasinoRound", "start_burn_fields"]

P_OBJECTION = 0.2
P_INSURANCE = 0.18
P_EVEN_MONEY = 0.5
P_DEALER_STOPS = 0.6
"""Chance the dealer stops at once when every player hand is already decided."""


class CasinoRound(RoundBase):
    def __init__(
        self,
        *,
        boxes: list[BoxPlan],
        min_bet: Decimal,
        max_bet: Decimal,
        start_burn: int | None,
        void: bool = False,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.plans = boxes
        self.min_bet = min_bet
        self.max_bet = max_bet
        self.start_burn = start_burn
        self.void = void
        self.boxes: dict[int, BoxState] = {}
        self.dealer: list[str] = []

    # ------------------------------------------------------------------ the round

    def play(self) -> RoundResult:
        rules = self.rules
        self.features["rounds"] += 1
        self.emit("round_open", self.pause(8, 25))
        self.boxes.update(self.place_bets(self.plans, 1, 6))
        self.features["bets_behind"] += sum(len(p.stakes) - 1 for p in self.plans)
        # 004: "Rien ne va plus" as the first card leaves the shoe
        self.emit("no_more_bets", self.pause(0, 1) if self.start_burn is None else 3)
        if self.start_burn is not None:
            self.emit(
                "burn",
                self.pause(5, 15),
                in_round=False,
                **start_burn_fields(self.shoe, self.start_burn, seen=False),
            )
        self.initial_deal()
        if self.void:
            self.declare_void()
            return self.result()
        if rules.insurance_offered and is_ace(self.dealer[0]):
            self.offer_insurance()
        for b in sorted(self.boxes):
            self.play_box(self.boxes[b])
        self.dealer_turn()
        self.final_pass()
        self.emit("round_close", self.pause(2, 6))
        return self.result()

    def hands(self) -> list[Hand]:
        return [h for b in sorted(self.boxes) for h in self.boxes[b].hands]

    def initial_deal(self) -> None:
        """The profile's deal procedure: a card to each box in box order, the dealer's card
        last in its pass (one face up to the dealer in 000/001/004: no hole card), a second
        card to each box."""
        deal = self.rules.initial_deal
        order = sorted(self.boxes)
        for i, b in enumerate(order):
            self.deal(
                "box",
                b,
                self.boxes[b].hands[0],
                face_up=deal.face_up,
                delay=(2, 4) if i == 0 else (1, 2),
            )
            if i == 0:
                self.maybe_late_bet()
        self.dealer.append(self.deal("dealer", face_up=deal.dealer_face_up))
        for b in order:
            self.deal("box", b, self.boxes[b].hands[0], face_up=deal.face_up)
        if deal.dealer_cards == 2:
            self.dealer.append(self.deal("dealer", face_up=deal.hole_card_face_up))
        for b in order:
            if self.boxes[b].hands[0].natural:
                self.features["naturals"] += 1

    def declare_void(self) -> None:
        """A misdeal found once the cards are out: the round is void, every stake returned
        with ``settle`` 0 (event-log.md, ``void``), and the round closes; its cards have
        still left the shoe."""
        self.features["voids"] += 1
        self.emit("void", self.pause(10, 30), reason="misdeal")
        for b in sorted(self.boxes):
            hand = self.boxes[b].hands[0]
            for spot in sorted(hand.stakes):
                self.settle(hand, spot, ZERO)
        self.emit("round_close", self.pause(2, 6))

    def maybe_late_bet(self) -> None:
        """Past-posting: a stake raised once the cards are coming (BET_AFTER_NO_MORE_BETS)."""
        raisable = [
            b
            for b, box in sorted(self.boxes.items())
            if sum(box.hands[0].stakes.values()) + self.min_bet <= self.max_bet
        ]
        if not raisable or not self.opportunity(Code.BET_AFTER_NO_MORE_BETS):
            return
        b = self.err_rng.choice(raisable)
        box = self.boxes[b]
        room = self.max_bet - sum(box.hands[0].stakes.values())
        steps = [k for k in (1, 2, 3, 5) if k * self.min_bet <= room]
        raise_by = self.err_rng.choice(steps) * self.min_bet
        old = box.hands[0].stakes[0]
        new = old + raise_by
        box.hands[0].stakes[0] = new
        fields: dict[str, Any] = {"box": b, "spot": 0, "amount": new}
        if box.players.get(0) is not None:
            fields["player"] = box.players[0]
        self.emit("bet", 1, **fields)
        self.fire(
            Code.BET_AFTER_NO_MORE_BETS,
            b,
            None,
            f"box {b} spot 0 raised {old} to {new} after no more bets",
        )

    def offer_insurance(self) -> None:
        """Insurance against the dealer's ace: at most half the stake, before any further card."""
        for b in sorted(self.boxes):
            box = self.boxes[b]
            natural = box.hands[0].natural
            for spot in sorted(box.nmb_stakes):
                p = 0.45 if natural else P_INSURANCE
                if self.rng.random() >= p:
                    continue
                amount = insurance_amount(box.nmb_stakes[spot], self.rng)
                if amount <= 0:
                    continue
                box.insurance[spot] = amount
                self.features["insurance"] += 1
                self.emit("insurance", self.pause(2, 5), box=b, spot=spot, amount=amount)

    # ------------------------------------------------------------------ a box plays

    def play_box(self, box: BoxState) -> None:
        h0 = box.hands[0]
        if h0.natural:
            self.natural_turn(box, h0)
            return
        self.play_hand(box, h0)
        if len(box.hands) > 1:
            h1 = box.hands[1]
            self.deal("box", box.box, h1, write_hand=True, delay=(2, 4))
            self.after_split_card(box, h1)
            self.play_hand(box, h1)

    def natural_turn(self, box: BoxState, hand: Hand) -> None:
        """A natural when play reaches its box: even money, or paid at once where due."""
        rules = self.rules
        up = self.dealer[0]
        if is_ace(up) and rules.even_money_offered:
            for spot in sorted(hand.stakes):
                if self.rng.random() < P_EVEN_MONEY:
                    self.features["even_money"] += 1
                    self.emit("even_money", self.pause(2, 4), box=box.box, spot=spot)
                    hand.even_money.add(spot)
                    self.settle(hand, spot, pay(hand.stakes[spot], rules.win_pays), even_money=True)
            return
        if rules.blackjack_paid == "at_once" or (
            rules.blackjack_paid == "on_the_spot" and not is_ace(up) and not is_ten_value(up)
        ):
            self.features["naturals_paid_at_once"] += 1
            for spot in sorted(hand.stakes):
                self.settle(hand, spot, pay(hand.stakes[spot], rules.blackjack_pays))

    def double_permitted(self, box: BoxState, hand: Hand) -> bool:
        rules = self.rules
        if not rules.double_allowed or len(hand.cards) != 2 or hand.natural or hand.doubled:
            return False
        if hand.from_split and (
            not rules.double_after_split or (hand.split_aces and not rules.double_on_split_aces)
        ):
            return False
        if rules.double_totals is None:
            return True
        hard = sum(1 if is_ace(c) else min(10, _rank_value(c)) for c in hand.cards)
        if hard in rules.double_totals:
            return True
        has_ace = any(is_ace(c) for c in hand.cards)
        return rules.double_soft_ace_either and has_ace and hard + 10 in rules.double_totals

    def split_permitted(self, box: BoxState, hand: Hand) -> bool:
        rules = self.rules
        if not rules.split_allowed or len(hand.cards) != 2 or hand.from_split:
            return False
        if len(box.hands) >= rules.max_hands_per_box:
            return False
        a, b = hand.cards
        return a[0] == b[0] or (is_ten_value(a) and is_ten_value(b))

    def play_hand(self, box: BoxState, hand: Hand) -> None:
        rules = self.rules
        while True:
            total = hand.total
            if total > 21:
                self.bust(hand)
                return
            if hand.doubled or hand.split_aces or total == 21 or hand.natural:
                return
            if self.maybe_exposed(box, hand):
                continue
            mandatory = rules.mandatory_hit_max is not None and total <= rules.mandatory_hit_max
            if mandatory and self.opportunity(Code.PLAY_MANDATORY_HIT):
                self.emit("action", self.pause(3, 8), box=box.box, hand=hand.index, action=STAND)
                self.fire(
                    Code.PLAY_MANDATORY_HIT,
                    box.box,
                    hand.index,
                    f"box {box.box} hand {hand.index} stood on {total} (must hit at 11 or less)",
                )
                return
            can_double = self.double_permitted(box, hand)
            if self.illegal_double_candidate(hand, can_double) and self.opportunity(
                Code.PLAY_ILLEGAL_DOUBLE
            ):
                cards = ",".join(hand.cards)
                self.do_double(box, hand)
                self.fire(
                    Code.PLAY_ILLEGAL_DOUBLE,
                    box.box,
                    hand.index,
                    f"box {box.box} hand {hand.index} doubled on {cards} "
                    f"(doubles only on {rules.double_totals})",
                )
                continue
            can_split = self.split_permitted(box, hand)
            choice = player_decision(
                hand.cards,
                self.dealer[0],
                can_double=can_double,
                can_split=can_split,
                rng=self.rng,
                chase_sevens=rules.three_sevens_pays is not None,
            )
            if mandatory and choice == STAND:
                choice = HIT
            if choice in (DOUBLE, SPLIT) and rules.split_double_unanimity and len(hand.stakes) > 1:
                behind = sorted(s for s in hand.stakes if s != 0)
                if self.opportunity(Code.PLAY_UNCONSENTED):
                    spot = self.err_rng.choice(behind)
                    self.emit(
                        "objection", 2, box=box.box, hand=hand.index, spot=spot, action=choice
                    )
                    self.fire(
                        Code.PLAY_UNCONSENTED,
                        box.box,
                        hand.index,
                        f"box {box.box} hand {hand.index}: {choice} went ahead "
                        f"after spot {spot} objected",
                    )
                elif self.rng.random() < P_OBJECTION:
                    spot = self.rng.choice(behind)
                    self.features["objections"] += 1
                    self.emit(
                        "objection",
                        self.pause(2, 4),
                        box=box.box,
                        hand=hand.index,
                        spot=spot,
                        action=choice,
                    )
                    choice = player_decision(
                        hand.cards,
                        self.dealer[0],
                        can_double=False,
                        can_split=False,
                        rng=self.rng,
                    )
                    if mandatory and choice == STAND:
                        choice = HIT
            # A table that lists spots can leave a bettor out: PLAY_UNCONSENTED wherever
            # every staked spot must take part (rules.md v1.2, all three casino profiles),
            # the only way a partial ``spots`` list is ever written.
            left_out: int | None = None
            if (
                choice in (DOUBLE, SPLIT)
                and self.style.writes_spots
                and len(hand.stakes) > 1
                and rules.split_double_every_spot
                and self.opportunity(Code.PLAY_UNCONSENTED)
            ):
                left_out = self.err_rng.choice(sorted(s for s in hand.stakes if s != 0))
                self.fire(
                    Code.PLAY_UNCONSENTED,
                    box.box,
                    hand.index,
                    f"box {box.box} hand {hand.index}: {choice} for spots "
                    f"{sorted(s for s in hand.stakes if s != left_out)}, leaving out "
                    f"staked spot {left_out}",
                )
            if choice == SPLIT:
                self.do_split(box, hand, left_out)
            elif choice == DOUBLE:
                self.do_double(box, hand, left_out)
            elif choice == HIT:
                if mandatory:
                    self.features["mandatory_hits"] += 1
                if self.style.records_actions:
                    self.emit("action", self.pause(2, 6), box=box.box, hand=hand.index, action=HIT)
                self.deal("box", box.box, hand, write_hand=len(box.hands) > 1, delay=(1, 3))
            else:
                if self.style.records_actions:
                    self.emit(
                        "action", self.pause(2, 6), box=box.box, hand=hand.index, action=STAND
                    )
                return

    def illegal_double_candidate(self, hand: Hand, can_double: bool) -> bool:
        """A double the profile's totals forbid, chosen so that nothing else is broken."""
        rules = self.rules
        if can_double or not rules.double_allowed or rules.double_totals is None:
            return False
        if len(hand.cards) != 2 or hand.natural or hand.from_split or hand.doubled:
            return False
        total, soft = hand_total(hand.cards)
        # a hard 12-20 or any soft hand stays above 11 after one card (no mandatory hit due)
        return soft or 12 <= total <= 20

    def do_double(self, box: BoxState, hand: Hand, left_out: int | None = None) -> None:
        """A double: each taking part spot adds its extra stake (event-log.md, ``action``).

        ``left_out`` (the injected ``PLAY_UNCONSENTED``) is a staked spot the
        ``spots`` list leaves out: it keeps its single stake.
        """
        rules = self.rules
        fields: dict[str, Any] = {"box": box.box, "hand": hand.index, "action": DOUBLE}
        spots = sorted(s for s in hand.stakes if s != left_out)
        if self.style.writes_spots:
            fields["spots"] = spots
        lowest = min(hand.stakes[s] for s in spots)
        # a lone holder's double for less (one ``amount``: each taking part spot's extra);
        # a table that lists spots also doubles for less with bets behind
        alone = len(hand.stakes) == 1 or self.style.writes_spots
        if alone and lowest >= 2 and self.rng.random() < self.style.p_double_for_less:
            extra = (lowest / 2).quantize(Decimal(1), rounding="ROUND_FLOOR")
            fields["amount"] = extra
            hand.extra = {s: extra for s in spots}
            self.features["doubles_for_less"] += 1
        elif rules.double_max_ratio < 1:
            # a double for at most part of the stake: one ``amount`` for every spot,
            # within the cap of the lowest stake, to the cent below
            cap = rules.double_max_ratio
            extra = pay(lowest, cap).quantize(Decimal("0.01"), rounding="ROUND_FLOOR")
            fields["amount"] = extra
            hand.extra = {s: extra for s in spots}
        else:
            cap = rules.double_max_ratio
            hand.extra = {s: pay(hand.stakes[s], cap) for s in spots}
        hand.doubled = True
        self.features["doubles"] += 1
        if any(is_ace(c) for c in hand.cards):
            self.features["doubles_soft"] += 1
        if hand.from_split:
            self.features["doubles_after_split"] += 1
        self.emit("action", self.pause(3, 8), **fields)
        self.deal("box", box.box, hand, write_hand=len(box.hands) > 1, delay=(1, 3))

    def do_split(self, box: BoxState, hand: Hand, left_out: int | None = None) -> None:
        """A split: each taking part spot stakes its stake on the new hand (event-log.md,
        "Hand"); ``left_out`` (the injected ``PLAY_UNCONSENTED``) keeps its stake on
        this hand only."""
        moved = hand.cards.pop()
        aces = is_ace(moved)
        self.features["splits"] += 1
        if aces:
            self.features["split_aces"] += 1
        elif is_ten_value(moved):
            self.features["split_tens"] += 1
        fields: dict[str, Any] = {"box": box.box, "hand": hand.index, "action": SPLIT}
        spots = sorted(s for s in hand.stakes if s != left_out)
        if self.style.writes_spots:
            fields["spots"] = spots
        self.emit("action", self.pause(3, 8), **fields)
        new = Hand(
            box.box,
            len(box.hands),
            [moved],
            {s: hand.stakes[s] for s in spots},
            from_split=True,
            split_aces=aces,
        )
        hand.from_split = True
        hand.split_aces = aces
        box.hands.append(new)
        self.deal("box", box.box, hand, write_hand=True, delay=(1, 3))
        self.after_split_card(box, hand)

    def after_split_card(self, box: BoxState, hand: Hand) -> None:
        """Split aces get one card each (000); the injected error gives one more."""
        if not hand.split_aces or is_ten_value(hand.cards[-1]):
            return
        if self.opportunity(Code.PLAY_SPLIT_ACES_CARDS):
            self.emit("action", 2, box=box.box, hand=hand.index, action=HIT)
            self.deal("box", box.box, hand, write_hand=True)
            self.fire(
                Code.PLAY_SPLIT_ACES_CARDS,
                box.box,
                hand.index,
                f"box {box.box} split ace hand {hand.index} took a second card "
                f"({','.join(hand.cards)})",
            )

    def maybe_exposed(self, box: BoxState, hand: Hand) -> bool:
        """The exposed-card procedure (000): offered in turn, then later boxes, then the dealer.

        True when the player in turn took the card.
        """
        rules = self.rules
        shoe = self.shoe
        if not rules.exposed_card_procedure or len(box.hands) > 1:
            return False
        if shoe.beyond_cut(shoe.next_pos) or shoe.remaining < 20:
            return False
        if self.rng.random() >= self.style.p_exposed:
            return False
        later = [b for b in sorted(self.boxes) if b > box.box]
        if any(self.boxes[b].hands[0].natural for b in later):
            return False
        card, pos = shoe.draw()
        shoe.seen[card] += 1
        self.emit("exposed_card", self.pause(1, 3), card=card)
        total = hand.total
        mandatory = rules.mandatory_hit_max is not None and total <= rules.mandatory_hit_max
        wants = mandatory or (
            player_decision(
                hand.cards, self.dealer[0], can_double=False, can_split=False, rng=self.rng
            )
            == HIT
        )
        accept = wants and hand_total([*hand.cards, card])[0] <= 21
        self.emit("offer", self.pause(3, 8), card=card, to="box", box=box.box, accepted=accept)
        if accept:
            self.features["exposed_taken"] += 1
            self.emit("card", 2, card=card, to="box", box=box.box, pos=pos)
            hand.cards.append(card)
            return True
        self.features["exposed_burned"] += 1
        for b in later:
            self.emit("offer", self.pause(2, 5), card=card, to="box", box=b, accepted=False)
        self.emit("offer", self.pause(2, 4), card=card, to="dealer", accepted=False)
        self.emit("burn", self.pause(2, 4), in_round=False, cards=[card], face_down=False, pos=pos)
        return False

    # ------------------------------------------------------------------ the dealer

    def open_hands(self) -> bool:
        """Whether some player hand could still win, lose or push on the dealer's cards."""
        up = self.dealer[0]
        for hand in self.hands():
            if hand.busted or hand.settled >= set(hand.stakes):
                continue
            if hand.natural and (len(self.dealer) >= 2 or not (is_ace(up) or is_ten_value(up))):
                continue
            return True
        return False

    def dealer_must_draw(self) -> bool:
        total, soft = hand_total(self.dealer)
        stands = self.rules.dealer_stands_on
        return total < stands or (
            total == stands and soft and not self.rules.dealer_stands_on_soft_17
        )

    def stops_a_card_short(self) -> bool:
        """The test-only bias ``short-dealer`` (:mod:`audit.simulate.bias`): the dealer
        stops before the card that would end his hand."""
        shoe = self.shoe
        if not self.bias.short_dealer or shoe.next_index >= len(shoe.cards):
            return False
        total, soft = hand_total([*self.dealer, shoe.cards[shoe.next_index]])
        stands = self.rules.dealer_stands_on
        ends = total > stands or (
            total == stands and (self.rules.dealer_stands_on_soft_17 or not soft)
        )
        return ends and self.bias_rng.random() < self.bias.short_dealer

    def dealer_turn(self) -> None:
        rules = self.rules
        insured = any(box.insurance for box in self.boxes.values())
        free: bool | None = None
        if not self.open_hands() and not insured:
            free = self.rng.random() < P_DEALER_STOPS
            if free:
                self.features["dealer_stopped_early"] += 1
                return
        if len(self.dealer) == 1:  # no hole card: the dealer's second card comes now
            self.dealer.append(self.deal("dealer", delay=(3, 6)))
        dealer_bj = len(self.dealer) == 2 and hand_total(self.dealer)[0] == 21
        if dealer_bj:
            self.features["dealer_blackjacks"] += 1
        for b in sorted(self.boxes):
            box = self.boxes[b]
            for spot in sorted(box.insurance):
                amount = box.insurance[spot]
                won = pay(amount, rules.insurance_pays) if dealer_bj else -amount
                self.settle(box.hands[0], spot, won, kind="insurance", stake=amount)
        up = self.dealer[0]
        if rules.blackjack_paid == "on_the_spot" and is_ten_value(up) and not dealer_bj:
            # 001: with a ten-value up, naturals are paid right after the dealer's second card
            for b in sorted(self.boxes, reverse=True):
                hand = self.boxes[b].hands[0]
                if hand.natural:
                    self.features["naturals_paid_at_once"] += 1
                    for spot in sorted(hand.stakes):
                        self.settle(hand, spot, pay(hand.stakes[spot], rules.blackjack_pays))
        if dealer_bj:
            return
        drew_extra = False
        while True:
            total, _ = hand_total(self.dealer)
            live = self.open_hands()
            if not live and free is None:
                free = self.rng.random() < P_DEALER_STOPS
                if free:
                    self.features["dealer_stopped_early"] += 1
                    return
            if self.dealer_must_draw():
                if live and self.opportunity(Code.DEALER_STOOD_ON_DRAW):
                    self.fire(
                        Code.DEALER_STOOD_ON_DRAW,
                        None,
                        None,
                        f"dealer stood on {total} ({','.join(self.dealer)})",
                    )
                    return
                if live and self.stops_a_card_short():
                    return
                self.dealer.append(self.deal("dealer", delay=(2, 4)))
                continue
            if (
                live
                and not drew_extra
                and total <= 20
                and self.opportunity(Code.DEALER_DREW_ON_STAND)
            ):
                drew_extra = True
                before = ",".join(self.dealer)
                self.dealer.append(self.deal("dealer", delay=(2, 4)))
                self.fire(
                    Code.DEALER_DREW_ON_STAND,
                    None,
                    None,
                    f"dealer drew on {total} ({before}), got {self.dealer[-1]}",
                )
                continue
            if total > 21:
                self.features["dealer_busts"] += 1
            return

    # ------------------------------------------------------------------ settlement

    def main_result(self, hand: Hand, spot: int) -> Decimal:
        """The correct net result of a main wager once the dealer's hand is complete."""
        rules = self.rules
        stake = hand.stakes[spot]
        whole = stake + hand.extra.get(spot, ZERO)
        dealer_total = hand_total(self.dealer)[0]
        dealer_bj = len(self.dealer) == 2 and dealer_total == 21
        if hand.natural:
            if dealer_bj or (dealer_total == 21 and not rules.blackjack_beats_dealer_21):
                return ZERO
            return pay(stake, rules.blackjack_pays)
        if dealer_bj:
            if rules.dealer_blackjack_takes == "all":
                return -whole
            # the original stake only: doubles are returned, a split's second hand too
            return -stake if hand.index == 0 else ZERO
        assert len(self.dealer) >= 2, "an open hand always sees the dealer complete"
        if dealer_total > 21:
            return pay(whole, rules.win_pays)
        total = hand.total
        if total > dealer_total:
            return pay(whole, rules.win_pays)
        if total < dealer_total:
            return -whole
        return ZERO

    def final_pass(self) -> None:
        rules = self.rules
        order = sorted(self.boxes, reverse=rules.settlement_order == "high_to_low")
        for b in order:
            for hand in self.boxes[b].hands:
                sevens = len(hand.cards) == 3 and all(c[0] == "7" for c in hand.cards)
                for spot in sorted(hand.stakes):
                    if spot not in hand.settled:
                        self.settle(hand, spot, self.main_result(hand, spot), final_pass=True)
                if sevens and rules.three_sevens_pays is not None:
                    self.features["three_sevens"] += 1
                    for spot in sorted(hand.stakes):
                        self.settle(
                            hand,
                            spot,
                            pay(hand.stakes[spot], rules.three_sevens_pays),
                            kind="bonus",
                        )


def _rank_value(card: str) -> int:
    r = card[0]
    return 10 if r in "TJQK" else int(r)


def start_burn_fields(shoe: Shoe, count: int, *, seen: bool) -> dict[str, Any]:
    """The shoe-start burn: ``count`` cards from the top, listed when the shoe reads them."""
    first = shoe.next_pos
    cards = [shoe.draw()[0] for _ in range(count)]
    fields: dict[str, Any]
    if seen:
        for c in cards:
            shoe.seen[c] += 1
        fields = {"cards": cards}
    else:
        fields = {"cards": [], "count": count}
    fields["face_down"] = True
    if shoe.has_pos:
        fields["pos"] = first
    return fields
