"""One round, event by event: betting, the initial deal, play, the dealer, settlements.

:class:`RoundState` is the working state of one round (mutable, private to a
replay); :func:`audit.engine.settle.judge_round` judges its wagers when the round
is over and :meth:`RoundState.freeze` turns it into a frozen
:class:`~audit.engine.result.RoundReplay`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from audit.engine.bets import close_betting
from audit.engine.dealer import (
    dealer_must_draw,
    dealer_natural,
    dealer_rule_word,
    upcard_can_make_blackjack,
)
from audit.engine.exposed import Exposed, Target, _where
from audit.engine.hands import best_total, is_soft
from audit.engine.play import (
    HIT_RULE,
    PlayBox,
    PlayHand,
    Skip,
    hit_violation,
)
from audit.engine.result import Step, WagerRecord
from audit.engine.sink import FindingSink
from audit.events import models as m
from audit.findings import Code
from audit.profiles.model import Rules


@dataclass
class SettleRec:
    """One ``settle`` event, kept until the round is judged."""

    key: tuple[int, int, int, str]
    amount: Decimal
    event_id: str
    index: int
    step: int


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
        close_betting(self, e.id)
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

    def _advance_to(
        self, target: PlayHand | None, evidence: str, skip: Skip | None = None
    ) -> PlayHand | None:
        """Close the hands played before ``target`` (None: all); return one that needed a card.

        Hit and stand are optional events (event-log.md): a card to a later hand
        shows the earlier ones stood. A skipped hand that still needed a card
        (a split hand, a double) is marked with ``skip``, judged when its card
        comes late or at the round's end (:meth:`_owed_card_late`,
        :meth:`_owed_cards_at_end`).
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
                h.skipped = h.skipped or skip
            else:
                self._stand(h, evidence)
        return skipped_needing

    def _report_skip(self, skip: Skip, message: str, events: list[str]) -> None:
        """One ``DEAL_OUT_OF_TURN`` per card that went past a hand owed a card."""
        if skip.reported:
            return
        skip.reported = True
        self._add(
            Code.DEAL_OUT_OF_TURN,
            message,
            events=events,
            box=skip.box,
            hand=skip.hand,
            actual=skip.card,
        )

    def _owed_card_late(self, h: PlayHand, e: m.CardDealt) -> None:
        """A skipped hand gets the card it was owed: the skip was one card out of turn."""
        skip = h.skipped
        assert skip is not None
        h.skipped = None
        where = "the dealer" if skip.box is None else f"box {skip.box} hand {skip.hand}"
        self._report_skip(
            skip,
            f"{skip.card} went to {where} while box {h.box} hand {h.number} still needed "
            f"its card; it got it later ({e.card})",
            [skip.event_id, e.id],
        )

    def _owed_cards_at_end(self) -> None:
        """At the round's end: a double or split ace left without its one card (000).

        ``PLAY_DOUBLE_CARDS`` / ``PLAY_SPLIT_ACES_CARDS`` on that hand ("other than
        exactly one card"); another skipped hand never served is the card that
        went past it, ``DEAL_OUT_OF_TURN``.
        """
        for h in self.turn_order():
            code = h.owed_code(self.rules)
            skip = h.skipped
            if code is not None:
                self._add(
                    code,
                    f"box {h.box} hand {h.number} ({','.join(h.cards)}) never received "
                    "its one card",
                    events=[*h.card_events[-1:], *([skip.event_id] if skip else [])],
                    box=h.box,
                    hand=h.number,
                    expected="exactly one card",
                    actual=",".join(h.cards),
                    rule=HIT_RULE[code],
                )
            elif skip is not None and h.needs_card:
                where = "the dealer" if skip.box is None else f"box {skip.box} hand {skip.hand}"
                self._report_skip(
                    skip,
                    f"{skip.card} went to {where} while box {h.box} hand {h.number} still "
                    "needed its card",
                    [skip.event_id],
                )

    def _is_after(self, a: PlayHand, b: PlayHand | None) -> bool:
        """Whether ``a`` plays after ``b``; a hand outside the turn order (a late box) never."""
        if b is None:
            return True
        order = self.turn_order()
        if a not in order or b not in order:
            return False
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
                if h.done and h.skipped is not None and h.needs_card:
                    if code is None:
                        self._owed_card_late(h, e)
                elif h.done and code is None:
                    out_of_turn = True
                    why = f"box {e.box} hand {e.hand} had already ended"
                elif h is not cur and self._is_after(h, cur):
                    skip = Skip(e.id, e.box, e.hand, e.card)
                    needing = self._advance_to(h, e.id, skip)
                    if needing is not None and code is None:
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
            allowed=code is None and not why,
            why_not=why or None,
            **self._hand_step_kw(h),
        )

    def _dealer_card(self, e: m.CardDealt, index: int, pos: int, exempt: bool) -> None:
        """A dealer card after the initial deal: the players' turn is over.

        ``DEALER_DREW_ON_STAND`` when the dealer rule said stand (once per
        round); ``DEAL_OUT_OF_TURN`` when a player hand still needed a card.
        """
        self.play_cards.append((index, ("dealer", None)))
        skip = Skip(e.id, None, None, e.card)
        out_of_turn = False if exempt else self._advance_to(None, e.id, skip) is not None
        before = list(self.dealer)
        word = dealer_rule_word(before, self.rules, self.all_decided()) if before else "draw"
        why = None
        if out_of_turn:
            why = "a player hand still needed its card"
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
        if self.voided:
            return
        self._owed_cards_at_end()
        if self.rules.dealer_plays_freely or not self.deal_done:
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
