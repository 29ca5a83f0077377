"""One round of the home game (002, ``ventuno-family``).

Two cards to each player and to the banker, one at a time, banker last in
each pass, all face down. A banker's two-card 21 takes every stake except
from players who also hold one (push). Otherwise each player in turn: a
blackjack is declared and paid 1:1 at once, a bust is taken at once; the
banker then plays freely and settles the rest 1:1.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from audit.events.cards import hand_total
from audit.findings import Code
from audit.simulate.base import ZERO, BoxPlan, BoxState, RoundBase, RoundResult, pay
from audit.simulate.strategy import banker_draws, home_player_hits

__all__ = ["VentunoRound"]


class VentunoRound(RoundBase):
    def __init__(self, *, boxes: list[BoxPlan], min_bet: Decimal, max_bet: Decimal, **kw: Any):
        super().__init__(**kw)
        self.plans = boxes
        self.min_bet = min_bet
        self.max_bet = max_bet
        self.boxes: dict[int, BoxState] = {}
        self.banker: list[str] = []

    def play(self) -> RoundResult:
        rules = self.rules
        self.features["rounds"] += 1
        self.emit("round_open", self.pause(5, 20))
        self.boxes.update(self.place_bets(self.plans, 2, 8))
        self.emit("no_more_bets", self.pause(2, 6))
        order = sorted(self.boxes)
        for i in range(2):
            for j, b in enumerate(order):
                self.deal("box", b, self.boxes[b].hands[0], face_up=False, delay=(1, 3))
                if i == 0 and j == 0:
                    self.maybe_late_bet()
            self.banker.append(self.deal("dealer", face_up=False, delay=(1, 3)))
        hands = [self.boxes[b].hands[0] for b in order]
        self.features["naturals"] += sum(h.natural for h in hands)
        if hand_total(self.banker)[0] == 21:
            # the banker's two-card 21 takes every stake but a player's two-card 21 (002)
            self.features["dealer_blackjacks"] += 1
            for hand in hands:
                self.settle(hand, 0, ZERO if hand.natural else -hand.stakes[0], delay=(2, 5))
            self.emit("round_close", self.pause(3, 8))
            return self.result()
        for hand in hands:
            if hand.natural:
                self.features["naturals_paid_at_once"] += 1
                self.settle(hand, 0, pay(hand.stakes[0], rules.blackjack_pays), delay=(3, 8))
                continue
            while hand.total < 21 and home_player_hits(hand.cards, self.rng):
                self.deal("box", hand.box, hand, delay=(4, 12))
            if hand.total > 21:
                self.bust(hand)
            elif self.style.records_actions and hand.total < 21:
                self.emit("action", self.pause(3, 8), box=hand.box, hand=0, action="stand")
        live = [h for h in hands if not h.settled]
        if live:
            while banker_draws(self.banker, self.rng):
                self.banker.append(self.deal("dealer", delay=(4, 10)))
        banker_total = hand_total(self.banker)[0]
        if live and banker_total > 21:
            self.features["dealer_busts"] += 1
        for hand in live:
            stake = hand.stakes[0]
            if banker_total > 21 or hand.total > banker_total:
                amount = pay(stake, rules.win_pays)
            elif hand.total < banker_total:
                amount = -stake
            else:
                amount = ZERO
            self.settle(hand, 0, amount, delay=(2, 5), final_pass=True)
        self.emit("round_close", self.pause(3, 8))
        return self.result()

    def maybe_late_bet(self) -> None:
        raisable = [
            b
            for b, box in sorted(self.boxes.items())
            if box.hands[0].stakes[0] + self.min_bet <= self.max_bet
        ]
        if not raisable or not self.opportunity(Code.BET_AFTER_NO_MORE_BETS):
            return
        b = self.err_rng.choice(raisable)
        box = self.boxes[b]
        old = box.hands[0].stakes[0]
        room = self.max_bet - old
        new = old + self.err_rng.choice([k for k in (1, 2, 3, 5) if k * self.min_bet <= room]) * (
            self.min_bet
        )
        box.hands[0].stakes[0] = new
        fields: dict[str, Any] = {"box": b, "spot": 0, "amount": new}
        if box.players.get(0) is not None:
            fields["player"] = box.players[0]
        self.emit("bet", 2, **fields)
        self.fire(
            Code.BET_AFTER_NO_MORE_BETS,
            b,
            None,
            f"box {b} raised {old} to {new} after the first card",
        )
