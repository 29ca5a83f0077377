"""One round, event by event: betting, the initial deal, play, the dealer, settlements.

:class:`RoundState` is the working state of one round (mutable, private to a
replay); :func:`audit.engine.settle.judge_round` judges its wagers when the round
is over and :meth:`RoundState.freeze` turns it into a frozen
:class:`~audit.engine.result.RoundReplay`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal

from audit.engine.dealer import (
    dealer_must_draw,
    dealer_natural,
    dealer_rule_word,
    upcard_can_make_blackjack,
)
from audit.engine.hands import best_total, is_soft
from audit.engine.play import (
    HIT_RULE,
    PlayBox,
    PlayHand,
    double_violation,
    hit_violation,
    split_hand,
    split_violation,
)
from audit.engine.result import Step, WagerRecord
from audit.engine.sink import FindingSink
from audit.events import models as m
from audit.events.cards import is_ace
from audit.findings import Code
from audit.profiles.model import Rules

Target = tuple[str, int | None]
"""("box", n) or ("dealer", None)."""


def _where(t: Target | None) -> str:
    if t is None:
        return "no more cards"
    return "the dealer" if t[0] == "dealer" else f"box {t[1]}"


@dataclass
class SettleRec:
    """One ``settle`` event, kept until the round is judged."""

    key: tuple[int, int, int, str]
    amount: Decimal
    event_id: str
    index: int
    step: int


@dataclass
class Exposed:
    """An exposed card going through the offer procedure (000)."""

    card: str
    event_id: str
    candidates: list[Target]
    offers: list[tuple[Target, bool]] = field(default_factory=list)
    accepted: Target | None = None
    flagged: bool = False


@dataclass
class Limits:
    """Table limits from ``shoe_open``: per spot minimum, per box maximum."""

    min_bet: Decimal | None = None
    max_bet: Decimal | None = None


class RoundState:
    """The working state of one round while its events are replayed."""

    def __init__(
        self, number: int, rules: Rules, sink: FindingSink, limits: Limits, banker: str | None
    ) -> None:
        self.number = number
        self.rules = rules
        self.sink = sink
        self.limits = limits
        self.banker = banker
        self.status = "open"
        self.steps: list[Step] = []
        self.bets: dict[tuple[int, int], Decimal] = {}
        self.players: dict[tuple[int, int], str | None] = {}
        self.bet_events: dict[int, list[str]] = {}
        self.betting_closed = False
        self.close_event: str | None = None
        self.closed_by_burn = False
        self.boxes: dict[int, PlayBox] = {}
        self.boxes_made = False
        self.targets: list[Target] = []
        self.deal_k = 0
        self.deal_done = False
        self.deal_flagged = False
        self.deal_end_index: int | None = None
        self.dealer: list[str] = []
        self.dealer_indexes: list[int] = []
        self.dealer_events: list[str] = []
        self.draws: list[int] = []
        self.play_cards: list[tuple[int, Target]] = []
        self.settles: list[SettleRec] = []
        self.insurance: dict[tuple[int, int], tuple[Decimal, list[str]]] = {}
        self.objections: dict[tuple[int, int, str], list[str]] = {}
        self.void_event: str | None = None
        self.drew_flagged = False
        self.exposed: Exposed | None = None
        self.exposed_placing: Target | None = None
        self.event_ids: list[str] = []
        self.judged = False
        self.wagers: list[WagerRecord] = []

    # ------------------------------------------------------------------ helpers

    def _add(self, code: Code, message: str, **kw: object) -> None:
        self.sink.add(code, message, round=self.number, **kw)  # type: ignore[arg-type]

    def _step(self, e: m.Envelope, description: str, **kw: object) -> int:
        self.steps.append(
            Step(event_id=e.id, seq=e.seq, type=e.type, description=description, **kw)  # type: ignore[arg-type]
        )
        return len(self.steps) - 1

    @property
    def voided(self) -> bool:
        return self.void_event is not None

    @property
    def dealt(self) -> bool:
        return (
            bool(self.draws)
            or bool(self.dealer)
            or any(h.cards for b in self.boxes.values() for h in b.hands)
        )

    def turn_order(self) -> list[PlayHand]:
        """Player hands in playing order: boxes ascending, each box's hands by number."""
        return [
            h
            for b in sorted(self.boxes.values(), key=lambda b: b.number)
            if not b.phantom and not b.late
            for h in sorted(b.hands, key=lambda h: h.number)
            if not h.phantom
        ]

    def current(self) -> PlayHand | None:
        """The hand being played: the first in playing order that has not ended."""
        return next((h for h in self.turn_order() if not h.done), None)

    def wager_hands(self) -> list[PlayHand]:
        """Every hand that carries a stake (late boxes included)."""
        return [
            h
            for b in sorted(self.boxes.values(), key=lambda b: b.number)
            if not b.phantom
            for h in sorted(b.hands, key=lambda h: h.number)
            if any(v > 0 for v in h.stakes.values())
        ]

    def all_decided(self) -> bool:
        """Every player hand decided: the dealer may stop drawing (rules.md, "Findings").

        Busted, surrendered, settled as even money, or a natural the dealer can
        no longer match; open insurance still needs the dealer's second card.
        """
        d = self.dealer
        if d and dealer_natural(d):
            return True
        if self.insurance and len(d) < 2:
            return False
        for h in self.wager_hands():
            if h.bust or h.surrendered:
                continue
            if h.natural:
                staked = {s for s, v in h.stakes.items() if v > 0}
                if staked <= h.even_money:
                    continue
                if len(d) >= 2 or (len(d) == 1 and not upcard_can_make_blackjack(d)):
                    continue
            return False
        return True

    def _phantom_hand(self, box: int, hand: int) -> PlayHand:
        b = self.boxes.get(box)
        if b is None:
            b = PlayBox(number=box, phantom=True)
            self.boxes[box] = b
        h = b.hand(hand)
        if h is None:
            h = PlayHand(box=box, number=hand, phantom=True)
            b.hands.append(h)
        return h

    def _hand_step_kw(self, h: PlayHand) -> dict[str, object]:
        return {"cards": h.cards, "total": h.state.total, "soft": h.state.soft}

    # ------------------------------------------------------------------ betting

    def on_bet(self, e: m.Bet) -> None:
        """A stake placed, changed or withdrawn (``amount`` 0).

        After betting closed it is past-posting, ``BET_AFTER_NO_MORE_BETS``
        (004: «nessuna puntata può essere aggiunta, tolta o spostata»); the
        stake still counts as placed (rules.md: settlements follow the stakes
        as they were placed).
        """
        key = (e.box, e.spot)
        late = self.betting_closed
        if late:
            rule = "bets_close_before_start_burn" if self.closed_by_burn else None
            self._add(
                Code.BET_AFTER_NO_MORE_BETS,
                f"box {e.box} spot {e.spot}: stake set to {e.amount} after betting closed",
                events=[x for x in (self.close_event, e.id) if x],
                box=e.box,
                spot=e.spot,
                actual=str(e.amount),
                rule=rule,
            )
        self.bets[key] = e.amount
        self.players[key] = e.player
        self.bet_events.setdefault(e.box, []).append(e.id)
        if self.boxes_made:
            self._late_stake(e)
        who = f" ({e.player})" if e.player else ""
        verb = "withdraws" if e.amount == 0 else "bets"
        self._step(
            e,
            f"box {e.box} spot {e.spot}{who} {verb} {e.amount}"
            + (" after no more bets" if late else ""),
            box=e.box,
            spot=e.spot,
            amount=e.amount,
            allowed=not late,
            why_not="betting was closed" if late else None,
        )

    def _late_stake(self, e: m.Bet) -> None:
        box = self.boxes.get(e.box)
        if box is None or box.phantom:
            cards = box.hands if box is not None else []
            box = PlayBox(number=e.box, late=True)
            box.hands = [PlayHand(box=e.box, number=0)]
            for old in cards:
                if old.number == 0:
                    box.hands[0].state = old.state
            self.boxes[e.box] = box
        box.spots[e.spot] = e.amount
        box.players[e.spot] = e.player
        h0 = box.hand(0)
        if h0 is not None:
            if e.amount > 0:
                h0.stakes[e.spot] = e.amount
            else:
                h0.stakes.pop(e.spot, None)

    def close_betting(self, event_id: str, by_burn: bool = False) -> None:
        """Betting closes (no more bets, the first card, or 001's start burn).

        Checks the stakes as they stand: ``BET_LIMIT`` (a spot under
        ``min_bet``, a box total over ``max_bet``; 000: «la somma delle puntate
        non superi il massimo») and ``BET_SPOTS`` (``max_spots_per_box``; bets
        behind with no box holder).
        """
        if self.betting_closed:
            return
        self.betting_closed = True
        self.close_event = event_id
        self.closed_by_burn = by_burn
        boxes: dict[int, dict[int, Decimal]] = {}
        for (box, spot), amount in sorted(self.bets.items()):
            if amount > 0:
                boxes.setdefault(box, {})[spot] = amount
        lo, hi = self.limits.min_bet, self.limits.max_bet
        for box, spots in boxes.items():
            ev = self.bet_events.get(box, [])
            for spot, amount in spots.items():
                if lo is not None and amount < lo:
                    self._add(
                        Code.BET_LIMIT,
                        f"box {box} spot {spot}: stake {amount} under the table minimum {lo}",
                        events=ev,
                        box=box,
                        spot=spot,
                        expected=f">= {lo}",
                        actual=str(amount),
                        rule="min_bet",
                    )
            total = sum(spots.values(), Decimal(0))
            if hi is not None and total > hi:
                self._add(
                    Code.BET_LIMIT,
                    f"box {box}: stakes total {total}, over the table maximum {hi}",
                    events=ev,
                    box=box,
                    expected=f"<= {hi}",
                    actual=str(total),
                    rule="max_bet",
                )
            mx = self.rules.max_spots_per_box
            if mx is not None and (len(spots) > mx or max(spots) >= mx):
                self._add(
                    Code.BET_SPOTS,
                    f"box {box}: stakes on spots {sorted(spots)}; the profile allows {mx} "
                    f"spot(s) per box (0 to {mx - 1})",
                    events=ev,
                    box=box,
                    expected=str(mx),
                    actual=str(len(spots)),
                    rule="max_spots_per_box",
                )
            elif 0 not in spots:
                self._add(
                    Code.BET_SPOTS,
                    f"box {box}: bets behind on spots {sorted(spots)} with no box holder (spot 0)",
                    events=ev,
                    box=box,
                    expected="a stake on spot 0",
                    actual="none",
                    rule="box_holder_decides",
                )

    def on_no_more_bets(self, e: m.NoMoreBets) -> None:
        """«Rien ne va plus»: from here no stake may change."""
        already = self.betting_closed
        self.close_betting(e.id)
        self._step(e, "no more bets" + (" (betting had already closed)" if already else ""))

    def start_burn(self, e: m.Burn) -> None:
        """001: «A puntate effettuate, il banchiere chiude il gioco, bruciando 5 carte».

        With ``bets_close_before_start_burn``, a start burn during round 1 closes betting.
        """
        if self.rules.bets_close_before_start_burn:
            self.close_betting(e.id, by_burn=True)

    # ------------------------------------------------------------------ the deal

    def _make_boxes(self) -> None:
        self.boxes_made = True
        for (box, spot), amount in sorted(self.bets.items()):
            if amount <= 0:
                continue
            b = self.boxes.setdefault(box, PlayBox(number=box))
            b.spots[spot] = amount
            b.players[spot] = self.players.get((box, spot))
        for b in self.boxes.values():
            b.hands = [PlayHand(box=b.number, number=0, stakes=dict(b.spots))]
        order: list[Target] = [("box", n) for n in sorted(self.boxes)]
        dealer: list[Target] = [("dealer", None)]
        if self.rules.initial_deal == "face_down_two_each":
            self.targets = order + dealer + order + dealer
        else:
            self.targets = order + dealer + order

    def _dealer_needs(self) -> int:
        return 2 if self.rules.initial_deal == "face_down_two_each" else 1

    def _deal_complete(self) -> bool:
        if len(self.dealer) < self._dealer_needs():
            return False
        return all(
            len(h.cards) >= 2 for b in self.boxes.values() if not b.phantom for h in b.hands[:1]
        )

    def _finish_deal(self, e: m.Envelope, index: int) -> None:
        """The initial deal ends (complete, or cut short by a decision)."""
        if self.deal_done:
            return
        if self.boxes_made and not self._deal_complete() and not self.deal_flagged:
            self.deal_flagged = True
            self._add(
                Code.DEAL_ORDER,
                f"the initial deal is incomplete when {e.type} {e.id!r} comes",
                events=[e.id],
                rule="initial_deal",
            )
        self.deal_done = True
        self.deal_end_index = index

    def on_card(self, e: m.CardDealt, index: int, pos: int) -> None:
        """One card leaves the shoe and is placed (betting closes at the first card)."""
        self.close_betting(e.id)
        if not self.boxes_made:
            self._make_boxes()
        self.draws.append(index)
        placing = None
        if self.exposed is not None and self.exposed.card == e.card:
            placing = self.exposed.accepted
            self.exposed = None
        target: Target = ("dealer", None) if e.to == "dealer" else ("box", e.box)
        exempt = placing is not None and placing == target
        if not self.deal_done:
            self._deal_card(e, index, pos)
        elif e.to == "dealer":
            self._dealer_card(e, index, pos, exempt)
        else:
            self._play_card(e, index, pos, exempt)

    def _deal_card(self, e: m.CardDealt, index: int, pos: int) -> None:
        """A card of the initial deal: ``DEAL_ORDER`` on the first departure (rules.md).

        000/001/004: one face-up card to each box in order, one face-up to the
        dealer, a second to each box, no hole card. 002: two to each player and
        the banker, one at a time, banker last in each pass, all face down.
        """
        expected = self.targets[self.deal_k] if self.deal_k < len(self.targets) else None
        target: Target = ("dealer", None) if e.to == "dealer" else ("box", e.box)
        problems: list[str] = []
        box = self.boxes.get(e.box) if e.box is not None else None
        if e.to == "box" and (box is None or box.phantom):
            problems.append(f"box {e.box} has no stake")
        elif e.to == "box" and e.hand != 0:
            problems.append(f"hand {e.hand} does not exist in the initial deal")
        if target != expected:
            problems.append(f"the card went to {_where(target)}, {_where(expected)} was next")
        face_up = self.rules.initial_deal != "face_down_two_each"
        if e.face_up != face_up:
            problems.append(f"dealt face {'up' if e.face_up else 'down'}")
        self.deal_k += 1
        if problems and not self.deal_flagged:
            self.deal_flagged = True
            self._add(
                Code.DEAL_ORDER,
                f"initial deal, {e.card}: " + "; ".join(problems),
                events=[e.id],
                box=e.box if e.to == "box" else None,
                hand=e.hand if e.to == "box" else None,
                expected=_where(expected),
                actual=_where(target),
                rule="initial_deal",
            )
        kw: dict[str, object]
        if e.to == "dealer":
            self.dealer.append(e.card)
            self.dealer_indexes.append(index)
            self.dealer_events.append(e.id)
            kw = {"cards": tuple(self.dealer), "total": best_total(self.dealer)}
            kw["soft"] = is_soft(self.dealer)
            desc = f"{e.card} to the dealer"
        else:
            assert e.box is not None
            b = self.boxes.get(e.box)
            h = b.hand(e.hand) if b is not None and not b.phantom else None
            if h is None:
                h = self._phantom_hand(e.box, e.hand)
            h.add_card(e.card, e.id, index, self.rules)
            kw = self._hand_step_kw(h)
            desc = f"{e.card} to box {e.box} hand {e.hand}"
        self._step(
            e,
            f"deal: {desc} (pos {pos})",
            pos=pos,
            card=e.card,
            target=e.to,
            box=e.box if e.to == "box" else None,
            hand=e.hand if e.to == "box" else None,
            allowed=not problems,
            why_not="; ".join(problems) or None,
            **kw,
        )
        if self._deal_complete():
            self.deal_done = True
            self.deal_end_index = index

    # ------------------------------------------------------------------ play

    def _stand(self, h: PlayHand, evidence: str) -> None:
        """The hand ends by standing; 004's mandatory hit: best total <= 11 must hit."""
        h.done = True
        mx = self.rules.mandatory_hit_max
        if (
            mx is not None
            and not h.phantom
            and len(h.cards) >= 2
            and not h.natural
            and not h.bust
            and not h.state.doubled
            and not h.surrendered
            and h.state.total <= mx
        ):
            self._add(
                Code.PLAY_MANDATORY_HIT,
                f"box {h.box} hand {h.number} stopped at {h.state.total} "
                f"({','.join(h.cards)}); at {mx} or less it must hit",
                events=[*h.card_events[-1:], evidence],
                box=h.box,
                hand=h.number,
                expected="hit",
                actual=f"stand on {h.state.total}",
                rule="mandatory_hit_max",
            )

    def _advance_to(self, target: PlayHand | None, evidence: str) -> PlayHand | None:
        """Close the hands played before ``target`` (None: all); return one that needed a card.

        Hit and stand are optional events (event-log.md): a card to a later hand
        shows the earlier ones stood. A skipped hand that still needed a card
        (a split hand, a double) makes the card out of turn.
        """
        order = self.turn_order()
        skipped_needing: PlayHand | None = None
        for h in order:
            if h is target:
                break
            if h.done:
                continue
            if h.needs_card:
                skipped_needing = skipped_needing or h
                h.done = True
                h.flagged = True
            else:
                self._stand(h, evidence)
        return skipped_needing

    def _is_after(self, a: PlayHand, b: PlayHand | None) -> bool:
        if b is None:
            return True
        order = self.turn_order()
        return order.index(a) > order.index(b)

    def _play_card(self, e: m.CardDealt, index: int, pos: int, exempt: bool) -> None:
        """A card to a player hand after the initial deal.

        Precedence (rules.md, "How many findings"): ``PLAY_HIT_ON_BLACKJACK``,
        ``PLAY_SPLIT_ACES_CARDS``, ``PLAY_DOUBLE_CARDS``, ``PLAY_HIT_AFTER_BUST``,
        ``PLAY_HIT_ON_21``, ``DEAL_OUT_OF_TURN``. A card to a box with no stake
        or a hand that does not exist is ``DEAL_OUT_OF_TURN``.
        """
        assert e.box is not None
        self.play_cards.append((index, ("box", e.box)))
        b = self.boxes.get(e.box)
        h = b.hand(e.hand) if b is not None and not b.phantom and not b.late else None
        code: Code | None = None
        why = ""
        if h is None:
            h = self._phantom_hand(e.box, e.hand)
            code = Code.DEAL_OUT_OF_TURN
            why = f"box {e.box} hand {e.hand} has no stake in this round"
        else:
            code = hit_violation(h, self.rules)
            if code is not None:
                why = f"{code.value}: box {e.box} hand {e.hand} ({','.join(h.cards)}) takes no card"
            cur = self.current()
            out_of_turn = False
            if not exempt:
                if h.done and code is None:
                    out_of_turn = True
                    why = f"box {e.box} hand {e.hand} had already ended"
                elif h is not cur and self._is_after(h, cur):
                    needing = self._advance_to(h, e.id)
                    if needing is not None and code is None:
                        out_of_turn = True
                        why = f"box {needing.box} hand {needing.number} still needed its card"
            if code is None and out_of_turn:
                code = Code.DEAL_OUT_OF_TURN
        if code is not None:
            self._add(
                code,
                f"{e.card} to box {e.box} hand {e.hand}: {why}",
                events=[*h.card_events[-1:], e.id],
                box=e.box,
                hand=e.hand,
                actual=",".join((*h.cards, e.card)),
                rule=HIT_RULE.get(code),
            )
        h.add_card(e.card, e.id, index, self.rules)
        self._step(
            e,
            f"{e.card} to box {e.box} hand {e.hand} (pos {pos})",
            pos=pos,
            card=e.card,
            target="box",
            box=e.box,
            hand=e.hand,
            allowed=code is None,
            why_not=why or None,
            **self._hand_step_kw(h),
        )

    def _dealer_card(self, e: m.CardDealt, index: int, pos: int, exempt: bool) -> None:
        """A dealer card after the initial deal: the players' turn is over.

        ``DEALER_DREW_ON_STAND`` when the dealer rule said stand (once per
        round); ``DEAL_OUT_OF_TURN`` when a player hand still needed a card.
        """
        self.play_cards.append((index, ("dealer", None)))
        out_of_turn = False if exempt else self._advance_to(None, e.id) is not None
        before = list(self.dealer)
        word = dealer_rule_word(before, self.rules, self.all_decided()) if before else "draw"
        why = None
        if out_of_turn:
            why = "a player hand still needed its card"
            self._add(
                Code.DEAL_OUT_OF_TURN,
                f"{e.card} to the dealer while a player hand still needed its card",
                events=[e.id],
                actual="dealer",
            )
        elif (
            not self.rules.dealer_plays_freely
            and before
            and not dealer_must_draw(before, self.rules)
            and not self.drew_flagged
        ):
            self.drew_flagged = True
            total = best_total(before)
            soft = " soft" if is_soft(before) else ""
            why = f"the dealer stands on{soft} {total}"
            self._add(
                Code.DEALER_DREW_ON_STAND,
                f"the dealer drew {e.card} on{soft} {total} ({','.join(before)}); "
                f"the profile says stand on {self.rules.dealer_stands_on}",
                events=[*self.dealer_events[-1:], e.id],
                expected="stand",
                actual=f"drew on {total}",
                rule="dealer_stands_on_soft_17" if soft and total == 17 else "dealer_stands_on",
            )
        self.dealer.append(e.card)
        self.dealer_indexes.append(index)
        self.dealer_events.append(e.id)
        self._step(
            e,
            f"{e.card} to the dealer (pos {pos}); the rule said {word}",
            pos=pos,
            card=e.card,
            target="dealer",
            cards=tuple(self.dealer),
            total=best_total(self.dealer),
            soft=is_soft(self.dealer),
            dealer_rule=word,
            allowed=why is None,
            why_not=why,
        )

    def _hand_for(self, e: m.Envelope, box: int, hand: int, what: str) -> PlayHand | None:
        b = self.boxes.get(box)
        h = b.hand(hand) if b is not None and not b.phantom else None
        if h is None:
            self._add(
                Code.LOG_INCOMPLETE,
                f"{what} for box {box} hand {hand}, which has no stake in this round",
                events=[e.id],
                box=box,
                hand=hand,
            )
        return h

    def on_action(self, e: m.Action, index: int) -> None:
        """A player decision: hit, stand, double, split, surrender (000, 001, 004)."""
        self._finish_deal(e, index)
        h = self._hand_for(e, e.box, e.hand, e.action)
        if h is None:
            self._step(
                e,
                f"{e.action} for box {e.box} hand {e.hand}: no such hand",
                box=e.box,
                hand=e.hand,
                allowed=False,
                why_not="no such hand",
            )
            return
        cur = self.current()
        if not h.done and h is not cur and self._is_after(h, cur):
            order = self.turn_order()
            between = order[order.index(cur) : order.index(h)] if cur is not None else []
            if all(not x.needs_card for x in between if not x.done):
                self._advance_to(h, e.id)
        allowed = True
        why: str | None = None
        if e.action == "stand":
            self._stand(h, e.id)
        elif e.action == "hit":
            code = hit_violation(h, self.rules)
            if code is not None:
                allowed, why = False, code.value
        elif e.action == "surrender":
            if not self.rules.surrender_allowed:
                allowed, why = False, "the profile allows no surrender"
                self._add(
                    Code.PLAY_SURRENDER,
                    f"box {e.box} hand {e.hand} surrendered; the profile allows no surrender",
                    events=[e.id],
                    box=e.box,
                    hand=e.hand,
                    rule="surrender_allowed",
                )
            h.surrendered = True
            h.done = True
        elif e.action == "double":
            allowed, why = self._double(e, h)
        else:
            allowed, why = self._split(e, h)
        self._step(
            e,
            f"box {e.box} hand {e.hand}: {e.action}"
            + (f" ({','.join(h.cards)} = {h.state.total})" if h.cards else ""),
            box=e.box,
            hand=e.hand,
            amount=e.amount,
            allowed=allowed,
            why_not=why,
            **self._hand_step_kw(h),
        )

    def _consent(self, e: m.Action, h: PlayHand, spots: list[int]) -> str | None:
        """000: all who bet on the box must agree; one objection forbids it.

        With ``split_double_unanimity`` false the box holder binds the others
        (001, 004) and objections have no effect.
        """
        objections = self.objections.pop((e.box, e.hand, e.action), [])
        if not self.rules.split_double_unanimity:
            return None
        if objections:
            return f"objected to ({', '.join(objections)})"
        staked = sorted(s for s, v in h.stakes.items() if v > 0)
        missing = sorted(set(staked) - set(spots))
        if missing:
            return f"spot(s) {missing} did not take part"
        return None

    def _decision_findings(
        self,
        e: m.Action,
        violation: tuple[str, str] | None,
        unconsented: str | None,
        illegal: Code,
    ) -> tuple[bool, str | None]:
        if violation is not None:
            rule, reason = violation
            self._add(
                illegal,
                f"box {e.box} hand {e.hand}: {e.action} not allowed: {reason}",
                events=[e.id],
                box=e.box,
                hand=e.hand,
                rule=rule,
            )
            return False, reason
        if unconsented is not None:
            objected = [i for i in unconsented.split("(")[-1].rstrip(")").split(", ")]
            self._add(
                Code.PLAY_UNCONSENTED,
                f"box {e.box} hand {e.hand}: {e.action} went ahead though {unconsented}",
                events=[*(objected if unconsented.startswith("objected") else []), e.id],
                box=e.box,
                hand=e.hand,
                rule="split_double_unanimity",
            )
            return False, unconsented
        return True, None

    def _double(self, e: m.Action, h: PlayHand) -> tuple[bool, str | None]:
        """A double: one more card, the extra stake at most the stake (000); applied as made."""
        spots = e.spots if e.spots is not None else sorted(s for s, v in h.stakes.items() if v > 0)
        extras = {
            s: (e.amount if e.amount is not None else h.stakes[s]) for s in spots if s in h.stakes
        }
        violation = double_violation(h, self.rules, extras)
        unconsented = self._consent(e, h, spots)
        result = self._decision_findings(e, violation, unconsented, Code.PLAY_ILLEGAL_DOUBLE)
        for s, extra in extras.items():
            h.extra[s] = h.extra.get(s, Decimal(0)) + extra
        h.state = replace(h.state, doubled=True)
        h.cards_after_double = 0
        h.done = False
        return result

    def _split(self, e: m.Action, h: PlayHand) -> tuple[bool, str | None]:
        """A split of two equal cards into two hands (000); applied as made."""
        b = self.boxes[e.box]
        spots = e.spots if e.spots is not None else sorted(s for s, v in h.stakes.items() if v > 0)
        violation = split_violation(h, b, self.rules)
        unconsented = self._consent(e, h, spots)
        result = self._decision_findings(e, violation, unconsented, Code.PLAY_ILLEGAL_SPLIT)
        split_hand(b, h, spots)
        h.done = False
        return result

    def on_objection(self, e: m.Objection) -> None:
        """A bettor refuses the next double or split of the hand (000)."""
        h = self._hand_for(e, e.box, e.hand, "objection")
        if h is not None:
            self.objections.setdefault((e.box, e.hand, e.action), []).append(e.id)
        effect = "" if self.rules.split_double_unanimity else " (no effect under this profile)"
        self._step(
            e,
            f"box {e.box} hand {e.hand} spot {e.spot} objects to a {e.action}{effect}",
            box=e.box,
            hand=e.hand,
            spot=e.spot,
        )

    def on_insurance(self, e: m.Insurance, index: int) -> None:
        """Insurance against a dealer ace (000): at most half the stake, before any third card."""
        self._finish_deal(e, index)
        b = self.boxes.get(e.box)
        reasons: list[tuple[str, str]] = []
        if b is None or b.phantom:
            self._add(
                Code.LOG_INCOMPLETE,
                f"insurance for box {e.box}, which has no stake in this round",
                events=[e.id],
                box=e.box,
                spot=e.spot,
            )
            self._step(
                e,
                f"box {e.box} spot {e.spot} insures {e.amount}: no such box",
                box=e.box,
                spot=e.spot,
                amount=e.amount,
                allowed=False,
                why_not="no such box",
            )
            return
        stake = b.hands[0].stakes.get(e.spot, Decimal(0)) if b.hands else Decimal(0)
        r = self.rules
        if not r.insurance_offered:
            reasons.append(("insurance_offered", "the profile offers no insurance"))
        if not self.dealer or not is_ace(self.dealer[0]):
            up = self.dealer[0] if self.dealer else "none"
            reasons.append(("insurance_offered", f"the dealer's card is {up}, not an ace"))
        if any(t[0] == "box" for _, t in self.play_cards):
            reasons.append(("insurance_offered", "placed after a third card was dealt"))
        ratio = r.insurance_max_ratio
        if e.amount * ratio.denominator > stake * ratio.numerator:
            reasons.append(
                ("insurance_max_ratio", f"{e.amount} is over {ratio} of the stake {stake}")
            )
        if reasons:
            self._add(
                Code.PLAY_ILLEGAL_INSURANCE,
                f"box {e.box} spot {e.spot} insurance {e.amount}: "
                + "; ".join(why for _, why in reasons),
                events=[e.id],
                box=e.box,
                hand=0,
                spot=e.spot,
                actual=str(e.amount),
                rule=reasons[0][0],
            )
        old, ids = self.insurance.get((e.box, e.spot), (Decimal(0), []))
        self.insurance[(e.box, e.spot)] = (old + e.amount, [*ids, e.id])
        self._step(
            e,
            f"box {e.box} spot {e.spot} insures {e.amount}",
            box=e.box,
            spot=e.spot,
            amount=e.amount,
            allowed=not reasons,
            why_not="; ".join(why for _, why in reasons) or None,
        )

    def on_even_money(self, e: m.EvenMoney, index: int) -> None:
        """Even money (001): a blackjack against a dealer ace taken 1:1 at once."""
        self._finish_deal(e, index)
        h = self._hand_for(e, e.box, 0, "even money")
        reasons: list[str] = []
        if h is not None:
            if not self.rules.even_money_offered:
                reasons.append("the profile offers no even money")
            if not h.natural:
                reasons.append(
                    f"box {e.box} holds {','.join(h.cards) or 'no cards'}, not a blackjack"
                )
            if not self.dealer or not is_ace(self.dealer[0]):
                reasons.append("the dealer's card is not an ace")
            if reasons:
                self._add(
                    Code.PLAY_ILLEGAL_EVEN_MONEY,
                    f"box {e.box} spot {e.spot} even money: " + "; ".join(reasons),
                    events=[e.id],
                    box=e.box,
                    hand=0,
                    spot=e.spot,
                    rule="even_money_offered",
                )
            # What happened is judged: even money on a real blackjack against an ace is
            # binding whatever the profile says (the breach is its own finding).
            if h.natural and self.dealer and is_ace(self.dealer[0]):
                h.even_money.add(e.spot)
        self._step(
            e,
            f"box {e.box} spot {e.spot} takes even money",
            box=e.box,
            hand=0,
            spot=e.spot,
            allowed=h is not None and not reasons,
            why_not="; ".join(reasons) or ("no such hand" if h is None else None),
        )

    # ------------------------------------------------------------------ exposed card

    def on_exposed(self, e: m.ExposedCard) -> None:
        """An exposed card (000): offered to the player in turn, each later box, the dealer."""
        if self.rules.exposed_card_procedure:
            cands: list[Target] = []
            for h in self.turn_order():
                if not h.done and ("box", h.box) not in cands:
                    cands.append(("box", h.box))
            cands.append(("dealer", None))
            self.exposed = Exposed(card=e.card, event_id=e.id, candidates=cands)
        self._step(e, f"{e.card} exposed", card=e.card)

    def _exposed_finding(self, ex: Exposed | None, message: str, event_id: str) -> None:
        if ex is not None:
            if ex.flagged:
                return
            ex.flagged = True
        self._add(
            Code.PLAY_EXPOSED_CARD,
            message,
            events=[*([ex.event_id] if ex else []), event_id],
            rule="exposed_card_procedure",
        )

    def on_offer(self, e: m.Offer) -> None:
        """An offer of the exposed card, checked against the order of the procedure (000)."""
        target: Target = ("dealer", None) if e.to == "dealer" else ("box", e.box)
        ex = self.exposed
        ok = True
        if self.rules.exposed_card_procedure:
            if ex is None or ex.card != e.card:
                ok = False
                self._exposed_finding(
                    None, f"{e.card} offered, but it is not the exposed card", e.id
                )
            else:
                k = len(ex.offers)
                expected = ex.candidates[k] if k < len(ex.candidates) else None
                if target != expected:
                    ok = False
                    self._exposed_finding(
                        ex,
                        f"exposed {e.card} offered to {_where(target)}; "
                        f"{_where(expected)} was next",
                        e.id,
                    )
                ex.offers.append((target, e.accepted))
                if e.accepted:
                    ex.accepted = target
        verb = "accepts" if e.accepted else "refuses"
        self._step(
            e,
            f"{e.card} offered: {_where(target)} {verb}",
            card=e.card,
            target=e.to,
            box=e.box,
            allowed=ok,
        )

    def on_burn(self, e: m.Burn, index: int) -> None:
        """A burn during the round: only an exposed card refused by all may be burned (000)."""
        self.draws.append(index)
        ok = True
        if self.rules.exposed_card_procedure:
            ex = self.exposed
            if ex is not None and ex.card in e.cards:
                refused = [t for t, acc in ex.offers if not acc]
                if refused != ex.candidates:
                    ok = False
                    missing = [_where(t) for t in ex.candidates if t not in refused]
                    self._exposed_finding(
                        ex,
                        f"exposed {ex.card} burned without being offered to {', '.join(missing)}",
                        e.id,
                    )
                self.exposed = None
            else:
                ok = False
                self._exposed_finding(
                    None,
                    f"{','.join(e.cards) or e.n_cards} card(s) burned mid-shoe outside the "
                    "exposed-card procedure",
                    e.id,
                )
        self._step(e, f"burn {','.join(e.cards) or e.n_cards}", allowed=ok)

    # ------------------------------------------------------------------ the end

    def on_settle(self, e: m.Settle, index: int) -> None:
        """A settlement: judged when the round is over (:mod:`audit.engine.settle`)."""
        step = self._step(
            e,
            f"settle box {e.box} hand {e.hand} spot {e.spot} {e.kind}: {e.amount}",
            box=e.box,
            hand=e.hand,
            spot=e.spot,
            amount=e.amount,
        )
        self.settles.append(SettleRec((e.box, e.hand, e.spot, e.kind), e.amount, e.id, index, step))

    def on_void(self, e: m.Void) -> None:
        """The round is declared void (misdeal): every stake returned, settle 0."""
        if self.void_event is None:
            self.void_event = e.id
        self._step(e, f"round void: {e.reason}")

    def finish_dealer(self) -> None:
        """At the end of the round: ``DEALER_STOOD_ON_DRAW`` if the dealer stopped too soon.

        The dealer may stop once every player hand is decided (rules.md); open
        insurance needs the second card.
        """
        if self.voided or self.rules.dealer_plays_freely or not self.deal_done:
            return
        for h in self.turn_order():
            if not h.done:
                self._stand(h, h.card_events[-1] if h.card_events else self.event_ids[-1])
        d = self.dealer
        if not d or self.all_decided() or not dealer_must_draw(d, self.rules):
            return
        self._add(
            Code.DEALER_STOOD_ON_DRAW,
            f"the dealer stopped on {best_total(d)} ({','.join(d)}) while player hands were "
            f"undecided; the profile says draw below {self.rules.dealer_stands_on}",
            events=self.dealer_events[-1:],
            expected="draw",
            actual=f"stand on {best_total(d)}",
            rule="dealer_stands_on",
        )
