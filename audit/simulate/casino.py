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

import random
from decimal import Decimal
from fractions import Fraction
from typing import Any

from audit.events.cards import hand_total, is_ace, is_ten_value
from audit.findings import Code
from audit.sidebets.evaluators import (
    dealer_bust_cards_lines,
    pair_lines,
    three_card_lines,
    twenty_lines,
)
from audit.simulate.base import ZERO, BoxPlan, BoxState, Hand, RoundBase, RoundResult, pay
from audit.simulate.games import SideBet, due, peek_due, rank_of, side_bet_due, wants_surrender
from audit.simulate.shoe import Shoe
from audit.simulate.strategy import (
    DOUBLE,
    HIT,
    SPLIT,
    STAND,
    insurance_amount,
    player_decision,
)
from audit.simulate.writer import Draft

__all__ = ["CasinoRound", "start_burn_fields"]

P_OBJECTION = 0.2
P_INSURANCE = 0.18
P_EVEN_MONEY = 0.5
P_DEALER_STOPS = 0.6
"""Chance the dealer stops at once when every player hand is already decided."""
P_REVEAL = 0.85
"""Chance the dealer writes a ``reveal`` as he turns his hole card (games.md §2: optional)."""
P_PAID_WHEN_KNOWN = 0.5
"""Under ``when_known`` without a hole card, the chance a natural against a 2-9 up card is
paid when play reaches its box rather than in the final pass."""
HALF = Fraction(1, 2)
SIDE_BET_IDS = ("perfect_pairs", "21plus3", "lucky_ladies", "buster")
"""The side bets games.md §5 names, from which an injected one the profile does not
offer is drawn."""


class CasinoRound(RoundBase):
    def __init__(
        self,
        *,
        boxes: list[BoxPlan],
        min_bet: Decimal,
        max_bet: Decimal,
        start_burn: int | None,
        void: bool = False,
        side_bets: list[SideBet] | None = None,
        games_rng: random.Random | None = None,
        rigged: bool = False,
        games: bool = False,
        side_max: Decimal = Decimal(100),
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.side_max = side_max
        self.second_cards: dict[int, Draft] = {}
        """Each box's second card as drafted: what decides its dealt side bets."""
        self.games = games
        """The profile sets a field of games.md §1: only then do games.md §7's injections
        count opportunities (an Italian round is dealt, and injected, as before)."""
        self.side_bets = side_bets or []
        self.games_rng = games_rng or random.Random(0)
        self.rigged = rigged
        self.layouts: dict[int, list[Hand]] = {}
        self.peeked = False
        self.revealed = False
        self.deferred_busts: list[Hand] = []
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
        late = self.maybe_side_bet_errors()
        for bet in self.side_bets:
            self.features["side_bets"] += 1
            if bet is late:
                continue
            self.emit(
                "bet", self.pause(1, 4), box=bet.box, spot=bet.spot, kind=bet.kind, amount=bet.stake
            )
        not_offered = self.maybe_side_bet_not_offered()
        # 004: "Rien ne va plus" as the first card leaves the shoe
        self.emit("no_more_bets", self.pause(0, 1) if self.start_burn is None else 3)
        if late is not None:
            self.emit("bet", 2, box=late.box, spot=late.spot, kind=late.kind, amount=late.stake)
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
        self.settle_side_bets_dealt()
        if not_offered is not None:
            kind, stake = not_offered
            box = self.boxes[min(self.boxes)]
            self.settle(box.hands[0], 0, -stake, kind=kind, stake=stake)
        if rules.insurance_offered and is_ace(self.dealer[0]):
            self.offer_insurance()
        if rules.initial_deal.has_hole_card:
            if rules.even_money_offered and is_ace(self.dealer[0]):
                self.even_money_before_play()
            if peek_due(rules, self.dealer[0]):
                if rules.surrender_kind == "early":
                    self.early_surrenders()
                else:
                    self.maybe_surrender_before_peek()
                if not self.maybe_peek_missing() and self.peek():
                    self.emit("round_close", self.pause(2, 6))
                    return self.result()
            else:
                self.maybe_peek_needless()
        order = sorted(self.boxes)
        for b in order:
            if b == order[-1] and len(order) > 1:
                self.maybe_hole_card_shown(self.boxes[b])
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
            self.second_cards[b] = self.drafts[-1]
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
        for bet in self.side_bets:  # a void returns a side bet too (games.md §3)
            bet.settled = True
            hand = self.boxes[bet.box].hands[0]
            self.settle(hand, bet.spot, ZERO, kind=bet.kind, stake=bet.stake)
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

    # ------------------------------------------------------------------ hole card, peek, side bets

    def even_money_before_play(self) -> None:
        """Even money with a hole card: taken in the insurance window and settled before
        the first player decision (games.md §1, house default)."""
        for b in sorted(self.boxes):
            hand = self.boxes[b].hands[0]
            if not hand.natural:
                continue
            for spot in sorted(hand.stakes):
                if self.games_rng.random() < P_EVEN_MONEY:
                    self.features["even_money"] += 1
                    self.emit("even_money", self.pause(2, 4), box=b, spot=spot)
                    hand.even_money.add(spot)
                    self.settle(
                        hand, spot, pay(hand.stakes[spot], self.rules.win_pays), even_money=True
                    )

    def early_surrenders(self) -> None:
        """Early surrender (games.md §3): before the due peek, no card moving, by any box
        and in any order (house default); it stands against a dealer blackjack, so it is
        settled at once (half the stake)."""
        order = sorted(self.boxes)
        self.games_rng.shuffle(order)
        for b in order:
            hand = self.boxes[b].hands[0]
            if hand.natural or not self.surrender_allowed_on(hand):
                continue
            if wants_surrender(hand.cards, self.dealer[0]) or (
                rank_of(self.dealer[0]) == "A" and (hand.total in (14, 15, 16) and not hand.soft)
            ):
                self.surrender(self.boxes[b], hand, early=True)

    def surrender_allowed_on(self, hand: Hand) -> bool:
        rules = self.rules
        return (
            rules.surrender_allowed
            and rank_of(self.dealer[0]) in rules.surrender_against
            and len(hand.cards) == 2
            and not hand.from_split
            and not hand.natural
        )

    def blackjack_known(self) -> bool:
        """Whether the dealer's blackjack is ruled in or out yet (games.md §3, *known*)."""
        up = self.dealer[0]
        if not (is_ace(up) or is_ten_value(up)):
            return True  # a 2-9 up card rules it out, hole card or not
        if not self.rules.initial_deal.has_hole_card:
            return len(self.dealer) >= 2
        return self.peeked or (len(self.dealer) >= 2 and not self.hole_face_down())

    def hole_face_down(self) -> bool:
        return self.rules.initial_deal.has_hole_card and not self.revealed

    def surrender(self, box: BoxState, hand: Hand, *, early: bool) -> None:
        """A surrender: the holder gives up half of every spot's stake (games.md §3). It is
        settled at once when it stands (early, or the dealer's blackjack ruled out), else
        in the final pass (forfeited, the whole stake, if the dealer has a blackjack)."""
        hand.surrendered = True
        self.features["early_surrenders" if early else "surrenders"] += 1
        self.emit("action", self.pause(3, 6), box=box.box, hand=hand.index, action="surrender")
        if early or self.rules.surrender_kind == "early" or self.blackjack_known():
            for spot in sorted(hand.stakes):
                self.settle(hand, spot, due(-hand.stakes[spot], HALF, self.rules))

    def peek(self) -> bool:
        """The peek (games.md §3): after the hole card, insurance and even money, before any
        decision. A blackjack it finds ends play: insurance wins, naturals push, early
        surrenders stand, every other main wager loses its stake, side bets pay by their
        lines. True when it found one."""
        bj = hand_total(self.dealer)[0] == 21
        self.emit("peek", self.pause(2, 5), blackjack=bj)
        self.peeked = True
        self.peek_found = bj
        self.features["peeks"] += 1
        self.settle_side_bets_known()
        if not bj:
            self.maybe_insurance_after_peek()
            return False
        self.features["peek_blackjacks"] += 1
        self.features["dealer_blackjacks"] += 1
        self.maybe_play_after_blackjack()
        if self.games_rng.random() < P_REVEAL:
            self.emit("reveal", self.pause(1, 3))
            self.revealed = True
            self.features["reveals"] += 1
        for b in sorted(self.boxes):
            box = self.boxes[b]
            for spot in sorted(box.insurance):
                amount = box.insurance[spot]
                self.settle(
                    box.hands[0],
                    spot,
                    pay(amount, self.rules.insurance_pays),
                    kind="insurance",
                    stake=amount,
                )
            hand = box.hands[0]
            for spot in sorted(hand.stakes):
                if spot not in hand.settled:
                    self.settle(hand, spot, ZERO if hand.natural else -hand.stakes[spot])
        self.settle_buster()
        return True

    # ------------------------------------------------------------------ games.md §7's injections

    def dealer_has_blackjack(self) -> bool:
        return len(self.dealer) == 2 and hand_total(self.dealer)[0] == 21

    def maybe_peek_missing(self) -> bool:
        """``DEAL_PEEK_MISSING``: no peek under a peeked up card; play goes on and a
        blackjack the hole card holds is found when it is turned, every wager settled by
        ``dealer_blackjack_takes``. Only where a written decision follows (a table that
        writes its actions, a box without a natural), so the peek is seen missing."""
        if not (self.style.records_actions and any(self.closes_peek_window(b) for b in self.boxes)):
            return False
        if not self.opportunity(Code.DEAL_PEEK_MISSING):
            return False
        found = "a blackjack" if self.dealer_has_blackjack() else "no blackjack"
        self.fire(
            Code.DEAL_PEEK_MISSING,
            None,
            None,
            f"no peek under the dealer's {self.dealer[0]} (the hole card holds {found})",
        )
        return True

    def closes_peek_window(self, b: int) -> bool:
        """Whether box ``b`` will write a decision that shows a missing peek: a box without a
        natural that does not surrender (a surrender before a peek that never comes shows
        nothing yet; one the reveal follows reads as early, the reveal taking the peek's
        place, games.md §3)."""
        hand = self.boxes[b].hands[0]
        if hand.natural or hand.surrendered:
            return False
        return not (self.surrender_allowed_on(hand) and wants_surrender(hand.cards, self.dealer[0]))

    def maybe_peek_needless(self) -> None:
        """``DEAL_PEEK_NEEDLESS``: a peek under an up card the profile does not peek on
        (2-9, or a ten where it peeks on aces only), over a hole card with no blackjack."""
        if not (self.games and self.rules.initial_deal.has_hole_card):
            return
        if self.dealer_has_blackjack() or not self.opportunity(Code.DEAL_PEEK_NEEDLESS):
            return
        self.emit("peek", self.pause(2, 5), blackjack=False)
        self.fire(
            Code.DEAL_PEEK_NEEDLESS, None, None, f"a peek under the dealer's {self.dealer[0]}"
        )

    def maybe_hole_card_shown(self, box: BoxState) -> None:
        """``DEAL_HOLE_CARD_SHOWN``: the hole card turned before the last box has played
        (a table that writes its actions, so the last box's decision after the reveal
        shows it still to be played, games.md §3)."""
        if not (self.hole_face_down() and self.style.records_actions):
            return
        if box.hands[0].natural or box.hands[0].surrendered or self.dealer_has_blackjack():
            return  # a box whose play is over (an early surrender) acts no more
        if not self.opportunity(Code.DEAL_HOLE_CARD_SHOWN):
            return
        self.emit("reveal", self.pause(2, 4))
        self.revealed = True
        self.fire(
            Code.DEAL_HOLE_CARD_SHOWN,
            None,
            None,
            f"the hole card {self.dealer[1]} turned before box {box.box} played",
        )

    def maybe_play_after_blackjack(self) -> None:
        """``PLAY_AFTER_DEALER_BLACKJACK``: the peek found a blackjack, and a box still
        hits; its stake is lost as the blackjack's (the original stake, no double)."""
        for b in sorted(self.boxes):
            hand = self.boxes[b].hands[0]
            if hand.natural or hand.surrendered or hand.settled:
                continue
            if not self.opportunity(Code.PLAY_AFTER_DEALER_BLACKJACK):
                continue
            self.emit("action", self.pause(2, 5), box=b, hand=0, action=HIT)
            self.deal("box", b, hand, delay=(1, 3))
            self.fire(
                Code.PLAY_AFTER_DEALER_BLACKJACK,
                b,
                0,
                f"box {b} hit ({','.join(hand.cards)}) after the peek found "
                f"{','.join(self.dealer)}",
            )
            return

    def maybe_insurance_after_peek(self) -> None:
        """``PLAY_ILLEGAL_INSURANCE`` / ``PLAY_ILLEGAL_EVEN_MONEY``: taken after the peek
        (that found no blackjack): the insurance loses, the even money is paid 1:1."""
        rules = self.rules
        if not is_ace(self.dealer[0]):
            return
        for b in sorted(self.boxes):
            box = self.boxes[b]
            hand = box.hands[0]
            if (
                rules.even_money_offered
                and hand.natural
                and 0 not in hand.even_money
                and 0 not in hand.settled
                and self.opportunity(Code.PLAY_ILLEGAL_EVEN_MONEY)
            ):
                self.emit("even_money", self.pause(2, 4), box=b, spot=0)
                hand.even_money.add(0)
                self.settle(hand, 0, pay(hand.stakes[0], rules.win_pays), even_money=True)
                self.fire(
                    Code.PLAY_ILLEGAL_EVEN_MONEY, b, None, f"box {b} took even money after the peek"
                )
                return
            if (
                rules.insurance_offered
                and not hand.natural
                and 0 not in box.insurance
                and self.opportunity(Code.PLAY_ILLEGAL_INSURANCE)
            ):
                amount = insurance_amount(box.nmb_stakes[0], self.err_rng)
                if amount <= 0:
                    continue
                box.insurance[0] = amount
                self.emit("insurance", self.pause(2, 5), box=b, spot=0, amount=amount)
                self.fire(
                    Code.PLAY_ILLEGAL_INSURANCE,
                    b,
                    None,
                    f"box {b} insured {amount} after the peek",
                )
                return

    def maybe_surrender_before_peek(self) -> None:
        """``PLAY_SURRENDER``: the first box surrenders before the peek where only late
        surrender is allowed (it stands: half the stake, settled at once)."""
        if not self.rules.surrender_allowed:
            return
        first = min(self.boxes)
        hand = self.boxes[first].hands[0]
        if hand.natural or not self.surrender_allowed_on(hand) or hand.total >= 17:
            return
        if not self.opportunity(Code.PLAY_SURRENDER):
            return
        self.surrender(self.boxes[first], hand, early=True)
        self.fire(
            Code.PLAY_SURRENDER,
            first,
            0,
            f"box {first} surrendered {','.join(hand.cards)} before the peek (late only)",
        )

    def maybe_illegal_surrender(self, box: BoxState, hand: Hand) -> bool:
        """``PLAY_SURRENDER`` in turn: after a hit, against an up card the profile does not
        allow it against, or where it allows none; settled as made (half the stake, or
        the whole against a dealer blackjack: a late surrender's)."""
        rules = self.rules
        if not self.games or len(box.hands) > 1 or hand.from_split or hand.natural:
            return False
        total, soft = hand_total(tuple(hand.cards))
        if soft or not 12 <= total <= 16:
            return False
        up = rank_of(self.dealer[0])
        allowed_here = rules.surrender_allowed and up in rules.surrender_against
        if len(hand.cards) == 2:
            if allowed_here or not wants_surrender(hand.cards, self.dealer[0]):
                return False
            why = (
                "where the profile allows none" if not rules.surrender_allowed else f"against {up}"
            )
        elif allowed_here:
            why = "after a hit"
        else:
            return False
        if not self.opportunity(Code.PLAY_SURRENDER):
            return False
        cards = ",".join(hand.cards)
        self.surrender(box, hand, early=False)
        self.fire(
            Code.PLAY_SURRENDER, box.box, hand.index, f"box {box.box} surrendered {cards} {why}"
        )
        return True

    def maybe_illegal_split(self, box: BoxState, hand: Hand) -> bool:
        """``PLAY_ILLEGAL_SPLIT``: a pair in ``split_forbidden_ranks`` split, or aces from
        split aces split again without ``resplit_aces``; played on as split."""
        rules = self.rules
        if not rules.split_allowed or len(hand.cards) != 2 or hand.doubled:
            return False
        if len(box.hands) >= rules.max_hands_per_box:
            return False
        a, b = hand.cards
        if not (a[0] == b[0] or (is_ten_value(a) and is_ten_value(b))):
            return False
        forbidden = rank_of(a) in rules.split_forbidden_ranks
        aces = hand.split_aces and is_ace(a) and not rules.resplit_aces
        if not (forbidden or aces) or not self.opportunity(Code.PLAY_ILLEGAL_SPLIT):
            return False
        why = "split aces split again" if aces else f"a pair of {rank_of(a)} split"
        note = f"box {box.box} hand {hand.index}: {why} ({a},{b})"
        self.do_split(box, hand)
        self.fire(Code.PLAY_ILLEGAL_SPLIT, box.box, hand.index, note)
        return True

    def settle_side_bet(
        self, bet: SideBet, lines: tuple[str, ...], decided_at: Draft | None = None
    ) -> None:
        amount, line = side_bet_due(bet, lines, self.rules)
        bet.settled = True
        self.features[f"side_line:{bet.kind}:{line or 'lose'}"] += 1
        hand = self.boxes[bet.box].hands[0]
        wager = self.settle(hand, bet.spot, amount, kind=bet.kind, stake=bet.stake)
        wager.paytable = bet.table
        wager.decided_at = decided_at

    def maybe_side_bet_errors(self) -> SideBet | None:
        """games.md §7's side-bet stakes: one over its limit (``BET_LIMIT``), or one placed
        after no more bets (``BET_AFTER_NO_MORE_BETS``, returned to be written then);
        each settled as placed."""
        if not self.side_bets or self.void:
            return None
        bet = self.side_bets[0]
        if self.opportunity(Code.BET_LIMIT):
            bet.stake = self.side_max + 5 * (1 + self.err_rng.randrange(5))
            self.fire(
                Code.BET_LIMIT,
                bet.box,
                None,
                f"box {bet.box} spot {bet.spot} {bet.kind} {bet.stake} over its limit "
                f"{self.side_max}",
            )
            return None
        if self.opportunity(Code.BET_AFTER_NO_MORE_BETS):
            self.fire(
                Code.BET_AFTER_NO_MORE_BETS,
                bet.box,
                None,
                f"box {bet.box} spot {bet.spot} {bet.kind} {bet.stake} placed after no more bets",
            )
            return bet
        return None

    def maybe_side_bet_not_offered(self) -> tuple[str, Decimal] | None:
        """``BET_SIDE_NOT_OFFERED``: the first box stakes a side bet its profile does not
        offer (settled after the deal as lost; the engine does not judge it)."""
        if not self.games or self.void:
            return None
        offered = set(self.rules.side_bets)
        kind = next((k for k in SIDE_BET_IDS if k not in offered), None)
        if kind is None or not self.opportunity(Code.BET_SIDE_NOT_OFFERED):
            return None
        b = min(self.boxes)
        stake = Decimal(5)
        self.emit("bet", self.pause(1, 4), box=b, spot=0, kind=kind, amount=stake)
        self.fire(Code.BET_SIDE_NOT_OFFERED, b, None, f"box {b} staked {stake} on {kind}")
        return kind, stake

    def settle_side_bets_dealt(self) -> None:
        """Side bets decided by the deal (games.md §1): ``pair`` and ``three_card`` at
        once; ``twenty`` at once unless a QH pair waits for the dealer's blackjack."""
        for bet in self.side_bets:
            cards = self.boxes[bet.box].hands[0].cards
            evaluator = bet.table.evaluator
            second = self.second_cards.get(bet.box)
            if evaluator == "pair":
                self.settle_side_bet(bet, pair_lines(cards[0], cards[1]), second)
            elif evaluator == "three_card":
                lines = three_card_lines(cards[0], cards[1], self.dealer[0])
                self.settle_side_bet(bet, lines, second)
            elif evaluator == "twenty" and not (cards[0] == cards[1] == "QH"):
                self.settle_side_bet(bet, twenty_lines(cards[0], cards[1]), second)
        if self.blackjack_known():
            self.settle_side_bets_known()

    def settle_side_bets_known(self) -> None:
        """A QH pair's Lucky Ladies, once the dealer's blackjack is known."""
        for bet in self.side_bets:
            if bet.settled or bet.table.evaluator != "twenty":
                continue
            cards = self.boxes[bet.box].hands[0].cards
            dealer = self.dealer[:2] if len(self.dealer) >= 2 else []
            self.settle_side_bet(bet, twenty_lines(cards[0], cards[1], dealer))

    def settle_buster(self) -> None:
        """Buster, when the dealer's hand is complete (a blackjack loses it)."""
        last = next(
            (d for d in reversed(self.drafts) if d.type == "card" and d.fields["to"] == "dealer"),
            None,
        )
        for bet in self.side_bets:
            if not bet.settled and bet.table.evaluator == "dealer_bust_cards":
                self.settle_side_bet(bet, dealer_bust_cards_lines(self.dealer), last)

    def side_open(self) -> bool:
        """A side bet that needs the dealer's cards is still open (games.md §3: he completes
        his hand for Buster, takes his second card for a QH pair)."""
        return any(not b.settled for b in self.side_bets)

    # ------------------------------------------------------------------ a box plays

    def play_box(self, box: BoxState) -> None:
        h0 = box.hands[0]
        if h0.natural:
            self.natural_turn(box, h0)
            return
        # hands are played in layout order (games.md §3): a new hand lies right after the
        # hand it came from, and takes its second card in its turn
        layout = self.layouts[box.box] = [h0]
        i = 0
        while i < len(layout):
            hand = layout[i]
            if len(hand.cards) == 1:
                self.deal("box", box.box, hand, write_hand=True, delay=(2, 4))
                self.after_split_card(box, hand)
            self.play_hand(box, hand)
            i += 1

    def natural_turn(self, box: BoxState, hand: Hand) -> None:
        """A natural when play reaches its box: even money, or paid at once where due."""
        rules = self.rules
        up = self.dealer[0]
        if rules.initial_deal.has_hole_card:
            return
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
        elif (
            rules.blackjack_paid == "when_known"
            and self.blackjack_known()
            and self.games_rng.random() < P_PAID_WHEN_KNOWN
        ):
            # when_known (games.md §1): at any moment once a 2-9 up card has ruled the
            # dealer's blackjack out (§3 "Known"), here as play reaches the box
            self.features["naturals_paid_when_known"] += 1
            for spot in sorted(hand.stakes):
                self.settle(hand, spot, due(hand.stakes[spot], rules.blackjack_pays, rules))

    def double_permitted(self, box: BoxState, hand: Hand) -> bool:
        rules = self.rules
        most = rules.double_max_cards
        cards_ok = len(hand.cards) == 2 or (most is None or len(hand.cards) <= most)
        if not rules.double_allowed or not cards_ok or hand.natural or hand.doubled:
            return False
        if len(hand.cards) > 2:
            return hand_total(hand.cards)[0] in (10, 11) and not hand.soft
        if hand.from_split and (
            not rules.double_after_split or (hand.split_aces and not rules.double_on_split_aces)
        ):
            return False
        if rules.double_totals is None:
            return True
        hard = sum(1 if is_ace(c) else min(10, _rank_value(c)) for c in hand.cards)
        has_ace = any(is_ace(c) for c in hand.cards)
        if not rules.double_soft_ace_either and has_ace and hard + 10 <= 21:
            # the best total (games.md §1): "hard 9-11" refuses A,8 (soft 19)
            return hard + 10 in rules.double_totals
        if hard in rules.double_totals:
            return True
        return rules.double_soft_ace_either and has_ace and hard + 10 in rules.double_totals

    def split_permitted(self, box: BoxState, hand: Hand) -> bool:
        rules = self.rules
        if not rules.split_allowed or len(hand.cards) != 2:
            return False
        if len(box.hands) >= rules.max_hands_per_box:
            return False
        if hand.split_aces and not rules.resplit_aces:
            return False
        a, b = hand.cards
        pair = a[0] == b[0] or (is_ten_value(a) and is_ten_value(b))
        return pair and rank_of(a) not in rules.split_forbidden_ranks

    def play_hand(self, box: BoxState, hand: Hand) -> None:
        rules = self.rules
        while True:
            total = hand.total
            if total > 21:
                self.bust(hand)
                return
            if self.maybe_illegal_split(box, hand):
                continue
            one_card = hand.split_aces and self.rules.split_aces_one_card
            if hand.doubled or one_card or total == 21 or hand.natural or hand.surrendered:
                return
            if self.maybe_illegal_surrender(box, hand):
                return
            if (
                rules.surrender_allowed
                and len(box.hands) == 1
                and self.surrender_allowed_on(hand)
                and wants_surrender(hand.cards, self.dealer[0])
            ):
                self.surrender(box, hand, early=False)
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
        if hand.from_split:
            self.features["resplits"] += 1
        hand.from_split = True
        hand.split_aces = aces
        box.hands.append(new)
        layout = self.layouts.setdefault(box.box, [hand])
        layout.insert(layout.index(hand) + 1, new)
        self.deal("box", box.box, hand, write_hand=True, delay=(1, 3))
        self.after_split_card(box, hand)

    def after_split_card(self, box: BoxState, hand: Hand) -> None:
        """Split aces get one card each (000); the injected error gives one more."""
        if (
            not hand.split_aces
            or is_ten_value(hand.cards[-1])
            or not self.rules.split_aces_one_card
        ):
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
        if not rules.exposed_card_procedure or len(box.hands) > 1 or self.rigged:
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
            if hand.surrendered and len(self.dealer) >= 2:
                continue  # decided once his second card is seen (the engine's all_decided)
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
        insured = any(box.insurance for box in self.boxes.values()) or self.side_open()
        free: bool | None = None
        if not self.open_hands() and not insured:
            free = self.rng.random() < P_DEALER_STOPS
            if free:
                self.features["dealer_stopped_early"] += 1
                return
        if len(self.dealer) == 1:  # no hole card: the dealer's second card comes now
            self.dealer.append(self.deal("dealer", delay=(3, 6)))
        elif self.hole_face_down() and self.games_rng.random() < P_REVEAL:
            self.emit("reveal", self.pause(2, 4))
            self.features["reveals"] += 1
        self.revealed = True
        dealer_bj = len(self.dealer) == 2 and hand_total(self.dealer)[0] == 21
        if dealer_bj:
            self.features["dealer_blackjacks"] += 1
        self.settle_side_bets_known()
        for b in sorted(self.boxes):
            box = self.boxes[b]
            for spot in sorted(box.insurance):
                amount = box.insurance[spot]
                won = pay(amount, rules.insurance_pays) if dealer_bj else -amount
                self.settle(box.hands[0], spot, won, kind="insurance", stake=amount)
        if self.deferred_busts:
            # OBO: busts wait for the dealer's blackjack to be known (games.md §3)
            for hand in self.deferred_busts:
                for spot in sorted(hand.stakes):
                    if spot not in hand.settled:
                        self.settle(hand, spot, self.main_result(hand, spot))
            self.deferred_busts = []
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
            self.settle_buster()
            return
        drew_extra = False
        while True:
            total, _ = hand_total(self.dealer)
            live = self.open_hands() or self.side_open()
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
                        f"dealer stood on {total} ({','.join(self.dealer)})"
                        + ("" if self.open_hands() else " with a side bet open"),
                    )
                    self.settle_buster()  # as the cards fell: he did not bust
                    return
                if live and self.stops_a_card_short():
                    self.settle_buster()
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
            self.settle_buster()
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
            return due(stake, rules.blackjack_pays, rules)
        if hand.surrendered:  # a late surrender, forfeited against a dealer blackjack
            return -stake if dealer_bj else due(-stake, HALF, rules)
        if dealer_bj:
            return self.dealer_blackjack_share(hand, spot)
        if hand.busted:
            return -whole
        assert len(self.dealer) >= 2, "an open hand always sees the dealer complete"
        if dealer_total == 22 and rules.dealer_22_pushes:
            return ZERO
        if dealer_total > 21:
            return pay(whole, rules.win_pays)
        total = hand.total
        if total > dealer_total:
            return pay(whole, rules.win_pays)
        if total < dealer_total:
            return -whole
        return ZERO

    def dealer_blackjack_share(self, hand: Hand, spot: int) -> Decimal:
        """What a dealer blackjack takes from a hand already played (games.md §3): ENHC the
        whole stake; OBO the original stake from hand 0, busted or not; OBBO a bust's whole
        stake, else the original from hand 0; BB+1 busts whole, the lowest-numbered hand
        not busted the original, the rest returned."""
        takes = self.rules.dealer_blackjack_takes
        stake = hand.stakes[spot]
        whole = stake + hand.extra.get(spot, ZERO)
        if takes == "all":
            return -whole
        if takes == "busted_plus_one":
            if hand.busted:
                return -whole
            standing = [h.index for h in self.boxes[hand.box].hands if not h.busted]
            return -stake if hand.index == min(standing) else ZERO
        if hand.busted and takes == "original_and_busted":
            return -whole
        return -stake if hand.index == 0 else ZERO

    def bust(self, hand: Hand) -> None:
        """A bust loses at once, but under OBO only once the dealer's blackjack is known
        (games.md §3): until then its settlement waits."""
        if self.rules.dealer_blackjack_takes == "original" and not self.blackjack_known():
            if (
                len(self.dealer) == 2
                and not self.dealer_has_blackjack()
                and self.style.records_actions
                and any(not self.boxes[b].hands[0].natural for b in self.boxes if b > hand.box)
                and self.opportunity(Code.PAY_TIMING)
            ):
                # games.md §7: an OBO bust collected before the blackjack is known: spot
                # 0's at once (one wager, one finding), the others when it is known; only
                # with a later box's play written after it (the end of play makes it known)
                hand.busted = True
                self.features["busts"] += 1
                self.settle(hand, 0, -(hand.stakes[0] + hand.extra.get(0, ZERO)))
                self.deferred_busts.append(hand)
                self.fire(
                    Code.PAY_TIMING,
                    hand.box,
                    hand.index,
                    f"box {hand.box} hand {hand.index}: bust collected before the dealer's "
                    "blackjack is known (OBO)",
                )
                return
            hand.busted = True
            self.features["busts"] += 1
            self.features["busts_deferred"] += 1
            self.deferred_busts.append(hand)
            return
        super().bust(hand)

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
