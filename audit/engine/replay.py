"""The entry point: replay one shoe's events under its profile.

:func:`replay_shoe` walks the events in ``seq`` order, keeps the shoe's story
(:class:`~audit.engine.shoe.ShoeTracker`) and one :class:`RoundState` at a time,
and raises every finding of the v1 catalogue that a replay can see (rules.md);
``LOG_MALFORMED``, ``LOG_ID_CONFLICT`` and ``LOG_SEQ_GAP`` belong to ingest.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.engine import bets, decisions, exposed
from audit.engine.dealer import dealer_natural
from audit.engine.hands import best_total, is_soft
from audit.engine.result import (
    DealerRecord,
    HandRecord,
    RoundReplay,
    ShoeContext,
    ShoeReplay,
    Step,
)
from audit.engine.round import Limits, RoundState
from audit.engine.settle import judge_round
from audit.engine.shoe import ShoeTracker
from audit.engine.sink import FindingSink
from audit.events import models as m
from audit.events.models import AnyEvent, UnknownEvent
from audit.findings import Code, Finding
from audit.profiles.model import Profile, Rules


class _Replay:
    """The working state of one shoe's replay."""

    def __init__(self, profile: Profile, context: ShoeContext, sink: FindingSink) -> None:
        self.profile = profile
        self.rules: Rules = profile.rules
        self.context = context
        self.sink = sink
        self.shoe = ShoeTracker(rules=self.rules, sink=sink, decks=self.rules.decks)
        self.opened: m.ShoeOpen | None = None
        self.limits = Limits()
        self.rounds: dict[int, RoundState] = {}
        self.finished: list[RoundState] = []
        self.current: RoundState | None = None
        self.max_round = 0
        self.shoe_steps: list[Step] = []
        self.shuffles: list[str] = []
        self.shuffle_events: list[str] = []
        self.shuffled_since_round = False
        self.cut: m.Cut | None = None
        self.inspections: list[m.Inspection] = []
        self.start_burned = 0
        self.start_burn_events: list[str] = []
        self.later_burned = 0
        self.cards_dealt = 0
        self.first_card_seen = False
        self.closed: m.ShoeClose | None = None
        self.after_close: list[str] = []
        self.shoe_flags: set[Code] = set()
        self.cut_card_round_flagged = False
        self.banker = context.banker
        self.streak = context.banker_rounds_before
        self.open_flagged = False

    # ------------------------------------------------------------------ shoe events

    def _flag_once(self, code: Code, message: str, **kw: object) -> None:
        """Shoe-level codes are reported once per shoe, with ``round`` null (rules.md)."""
        if code in self.shoe_flags:
            return
        self.shoe_flags.add(code)
        self.sink.add(code, message, **kw)  # type: ignore[arg-type]

    def _shoe_step(self, e: m.Envelope, description: str, **kw: object) -> None:
        step = Step(event_id=e.id, seq=e.seq, type=e.type, description=description, **kw)  # type: ignore[arg-type]
        if self.current is not None:
            self.current.steps.append(step)
            self.current.event_ids.append(e.id)
        else:
            self.shoe_steps.append(step)

    def shoe_open(self, e: m.ShoeOpen) -> None:
        """The shoe opens: ``SHOE_DECKS`` when ``decks`` differs from the profile (000, 001)."""
        if self.opened is not None:
            self.sink.add(
                Code.LOG_INCOMPLETE,
                f"a second shoe_open {e.id!r} in this shoe",
                events=[self.opened.id, e.id],
            )
            self._shoe_step(e, "shoe_open again (ignored)")
            return
        self.opened = e
        self.shoe.decks = e.decks
        self.limits = Limits(min_bet=e.min_bet, max_bet=e.max_bet)
        if context_banker_continues(self.context, e.dealer):
            self.streak = self.context.banker_rounds_before
        else:
            self.streak = 0
        self.banker = e.dealer
        want = self.rules.decks
        if want is not None and e.decks != want:
            self._flag_once(
                Code.SHOE_DECKS,
                f"shoe_open has {e.decks} decks; the profile {self.profile.id!r} plays {want}",
                events=[e.id],
                expected=str(want),
                actual=str(e.decks),
                rule="decks",
            )
        self._shoe_step(e, f"shoe opens: {e.decks} decks, profile {e.profile}, dealer {e.dealer}")

    def shuffle(self, e: m.Shuffle) -> None:
        self.shuffles.append(e.method)
        self.shuffle_events.append(e.id)
        self.shuffled_since_round = True
        self.shoe.shuffled(e.order)
        self._shoe_step(
            e, f"shuffle ({e.method})" + (" with the recorded order" if e.order else "")
        )

    def burn(self, e: m.Burn, index: int) -> None:
        """Burns: at shoe start (``SHOE_BURN_COUNT``), or mid-shoe (the exposed-card procedure)."""
        start = not self.first_card_seen
        cur = self.current
        rnd = cur.number if cur is not None else None
        pos = e.pos
        for n in range(e.n_cards):
            card = e.cards[n] if n < len(e.cards) else None
            self.shoe.draw(card, pos + n if pos is not None else None, e.id, rnd)
        if start:
            self.start_burned += e.n_cards
            self.start_burn_events.append(e.id)
            if cur is not None and cur.number == 1:
                bets.start_burn(cur, e)
            self._shoe_step(e, f"burn {e.n_cards} card(s) at shoe start", pos=pos)
            return
        self.later_burned += e.n_cards
        if cur is not None:
            exposed.on_burn(cur, e, index)
        else:
            if self.rules.exposed_card_procedure:
                self.sink.add(
                    Code.PLAY_EXPOSED_CARD,
                    f"{e.n_cards} card(s) burned mid-shoe, between rounds, outside the "
                    "exposed-card procedure",
                    events=[e.id],
                    rule="exposed_card_procedure",
                )
            self._shoe_step(e, f"burn {e.n_cards} card(s) mid-shoe", pos=pos)

    def _first_card_checks(self, rs: RoundState, e: m.CardDealt) -> None:
        """Checks due when a round is first dealt: shuffle, cut, inspection, start burn."""
        r = self.rules
        if r.shuffle_every_round:
            if not self.shuffled_since_round:
                self._flag_once(
                    Code.SHOE_NO_SHUFFLE,
                    f"round {rs.number} was dealt without its own full reshuffle (002: "
                    "«dopo aver effettuato una nuova mescolatura di tutte le carte»)",
                    events=[e.id],
                    rule="shuffle_every_round",
                )
        elif r.shuffle_required and not self.shuffles:
            self._flag_once(
                Code.SHOE_NO_SHUFFLE,
                f"round {rs.number} was dealt from a shoe never shuffled",
                events=[e.id],
                rule="shuffle_required",
            )
        self.shuffled_since_round = False
        if self.first_card_seen:
            return
        self.first_card_seen = True
        if r.cut_required and (self.cut is None or self.cut.by != "box"):
            how = "cut by the dealer" if self.cut is not None else "never cut"
            self._flag_once(
                Code.SHOE_NO_CUT,
                f"the shoe was {how} before the first round; a player must cut",
                events=[x for x in (self.cut.id if self.cut else None, e.id) if x],
                rule="cut_required",
            )
        if r.inspection_required and self.context.first_shoe_of_gaming_day:
            last = self.inspections[-1] if self.inspections else None
            if last is None or not last.ok:
                why = "no inspection" if last is None else "the inspection failed (ok false)"
                self._flag_once(
                    Code.SHOE_NO_INSPECTION,
                    f"first shoe of the gaming day dealt with {why}; "
                    "new decks are spread and checked (001)",
                    events=[x for x in (last.id if last else None, e.id) if x],
                    rule="inspection_required",
                )
        if self.start_burned != r.burn_count:
            self._flag_once(
                Code.SHOE_BURN_COUNT,
                f"{self.start_burned} card(s) burned at shoe start; "
                f"the profile burns {r.burn_count}",
                events=[*self.start_burn_events, e.id],
                expected=str(r.burn_count),
                actual=str(self.start_burned),
                rule="burn_count",
            )

    # ------------------------------------------------------------------ rounds

    def _start_round(self, number: int, e: m.Envelope) -> RoundState:
        """A new round begins: close the one in progress; cut card, banker rotation (rules.md)."""
        if self.current is not None:
            self._abandon(self.current, e)
        if number < self.max_round:
            self.sink.add(
                Code.LOG_INCOMPLETE,
                f"round {number} begins after round {self.max_round}: rounds out of order",
                events=[e.id],
                round=number,
            )
        self.max_round = max(self.max_round, number)
        out = self.shoe.cut_card_out_round
        if (
            self.rules.cut_card_last_round
            and out is not None
            and out < number
            and not self.cut_card_round_flagged
        ):
            self.cut_card_round_flagged = True
            self.sink.add(
                Code.SHOE_ROUND_AFTER_CUT_CARD,
                f"round {number} starts after the cut card came out in round {out}, "
                "which was the last of the shoe",
                events=[x for x in (self.shoe.cut_card_out_event, e.id) if x],
                round=number,
                rule="cut_card_last_round",
            )
        self.streak += 1
        mx = self.rules.banker_max_rounds
        if mx is not None and self.streak == mx + 1:
            self.sink.add(
                Code.DEALER_BANKER_ROTATION,
                f"banker {self.banker} deals round {number}, the {self.streak}th in a row; "
                f"the bank passes after {mx}",
                events=[e.id],
                round=number,
                expected=str(mx),
                actual=str(self.streak),
                rule="banker_max_rounds",
            )
        rs = RoundState(number, self.rules, self.sink, self.limits, self.banker)
        self.rounds[number] = rs
        self.current = rs
        return rs

    def _abandon(self, rs: RoundState, e: m.Envelope) -> None:
        """A round left open when the next round or the shoe's close begins: ``LOG_INCOMPLETE``."""
        self.sink.add(
            Code.LOG_INCOMPLETE,
            f"round {rs.number} was never closed when {e.type} {e.id!r} came",
            events=[*rs.event_ids[-1:], e.id],
            round=rs.number,
        )
        self._finish(rs, "incomplete")

    def _finish(self, rs: RoundState, status: str) -> None:
        rs.status = "void" if rs.voided and status == "closed" else status
        if not rs.boxes_made:
            rs._make_boxes()
        rs.finish_dealer()
        rs.wagers = judge_round(rs)
        rs.judged = True
        self.finished.append(rs)
        if self.current is rs:
            self.current = None

    def round_event(self, e: m.RoundEnvelope, index: int) -> None:
        rs = self.current
        if rs is None or rs.number != e.round:
            if e.round in self.rounds:
                self.sink.add(
                    Code.LOG_INCOMPLETE,
                    f"{e.type} {e.id!r} for round {e.round}, which is over",
                    events=[e.id],
                    round=e.round,
                )
                self._shoe_step(e, f"{e.type} for round {e.round}, which is over (not replayed)")
                return
            rs = self._start_round(e.round, e)
        rs.event_ids.append(e.id)
        if isinstance(e, m.RoundOpen):
            rs._step(e, f"round {e.round} opens")
        elif isinstance(e, m.Bet):
            bets.on_bet(rs, e)
        elif isinstance(e, m.NoMoreBets):
            bets.on_no_more_bets(rs, e)
        elif isinstance(e, m.CardDealt):
            first = not rs.draws
            if first:
                self._first_card_checks(rs, e)
            pos = self.shoe.draw(e.card, e.pos, e.id, rs.number)
            self.cards_dealt += 1
            rs.on_card(e, index, pos)
        elif isinstance(e, m.Action):
            decisions.on_action(rs, e, index)
        elif isinstance(e, m.Objection):
            decisions.on_objection(rs, e)
        elif isinstance(e, m.Insurance):
            decisions.on_insurance(rs, e, index)
        elif isinstance(e, m.EvenMoney):
            decisions.on_even_money(rs, e, index)
        elif isinstance(e, m.ExposedCard):
            exposed.on_exposed(rs, e)
        elif isinstance(e, m.Offer):
            exposed.on_offer(rs, e)
        elif isinstance(e, m.CutCardOut):
            self.shoe.cut_card_came_out(rs.number, e.id)
            rs._step(e, "the cut card came out: this round is the last")
        elif isinstance(e, m.Settle):
            rs.on_settle(e, index)
        elif isinstance(e, m.Void):
            rs.on_void(e)
        elif isinstance(e, m.RoundClose):
            rs._step(e, f"round {e.round} closes")
            self._finish(rs, "closed")

    def shoe_close(self, e: m.ShoeClose) -> None:
        """The shoe closes: an open round is ``LOG_INCOMPLETE``; ``SHOE_RECONCILIATION``."""
        if self.current is not None:
            self._abandon(self.current, e)
        if self.closed is None:
            self.closed = e
            self.shoe.reconcile(e, self.start_burned, self.start_burn_events[-1:])
        self._shoe_step(
            e,
            f"shoe closes ({e.reason})"
            + (f", {e.remaining} cards remaining" if e.remaining is not None else ""),
        )

    def event(self, e: AnyEvent, index: int) -> None:
        if self.closed is not None and not isinstance(e, UnknownEvent):
            self.after_close.append(e.id)
            if len(self.after_close) == 1:
                self.sink.add(
                    Code.LOG_INCOMPLETE,
                    f"{e.type} {e.id!r} comes after the shoe's close",
                    events=[self.closed.id, e.id],
                )
            if isinstance(e, m.ShoeClose):
                return
        if isinstance(e, UnknownEvent):
            self._shoe_step(e, f"unknown event type {e.type!r} (kept, not replayed)")
        elif isinstance(e, m.RoundEnvelope):
            self.round_event(e, index)
        elif isinstance(e, m.ShoeOpen):
            self.shoe_open(e)
        elif isinstance(e, m.Inspection):
            self.inspections.append(e)
            self._shoe_step(e, f"inspection of {e.decks} decks: {'ok' if e.ok else 'FAILED'}")
        elif isinstance(e, m.Shuffle):
            self.shuffle(e)
        elif isinstance(e, m.Cut):
            self.cut = self.cut or e
            who = f"box {e.box}" if e.by == "box" else "the dealer"
            self._shoe_step(e, f"cut by {who}")
        elif isinstance(e, m.CutCard):
            self.shoe.cut_card(e)
            self._shoe_step(e, f"cut card at position {e.position}", pos=e.position)
        elif isinstance(e, m.Burn):
            self.burn(e, index)
        elif isinstance(e, m.DealerChange):
            if e.dealer != self.banker:
                self.banker = e.dealer
                self.streak = 0
            self._shoe_step(e, f"dealer change: {e.dealer}")
        elif isinstance(e, m.ShoeClose):
            self.shoe_close(e)

    # ------------------------------------------------------------------ result

    def freeze_round(self, rs: RoundState, codes: dict[str, list[str]]) -> RoundReplay:
        judged = rs.judged
        status = rs.status if judged else "open"
        steps = tuple(
            s if s.event_id not in codes else _with_codes(s, codes[s.event_id]) for s in rs.steps
        )
        hands = tuple(
            HandRecord(
                box=h.box,
                hand=h.number,
                cards=h.cards,
                total=h.state.total,
                soft=h.state.soft,
                natural=h.natural,
                bust=h.bust,
                doubled=h.state.doubled,
                from_split=h.state.from_split,
                surrendered=h.surrendered,
            )
            for b in sorted(rs.boxes.values(), key=lambda b: b.number)
            for h in sorted(b.hands, key=lambda h: h.number)
            if h.cards or not h.phantom
        )
        d = rs.dealer
        dealer = DealerRecord(
            cards=tuple(d),
            total=best_total(d),
            soft=is_soft(d),
            natural=dealer_natural(d),
            bust=best_total(d) > 21,
        )
        findings = tuple(f for f in self.sink.items if f.round == rs.number)
        return RoundReplay(
            round=rs.number,
            status=status,
            steps=steps,
            wagers=tuple(rs.wagers if judged else ()),
            hands=hands,
            dealer=dealer,
            findings=findings,
            banker=rs.banker,
        )


def context_banker_continues(context: ShoeContext, dealer: str) -> bool:
    """Whether the shoe's banker held the bank at the end of the previous shoe (002)."""
    return context.banker is not None and context.banker == dealer


def _with_codes(step: Step, codes: list[str]) -> Step:
    from dataclasses import replace

    return replace(step, codes=tuple(dict.fromkeys(codes)))


def _unknown_type_findings(events: Sequence[AnyEvent], sink: FindingSink) -> None:
    for e in events:
        if isinstance(e, UnknownEvent):
            sink.add(
                Code.LOG_UNKNOWN_TYPE,
                f"event {e.id!r} has type {e.type!r}, which TEL/1 does not define; "
                "kept, not replayed",
                events=[e.id],
                round=getattr(e, "round", None)
                if isinstance(getattr(e, "round", None), int)
                else None,
            )


def replay_shoe(
    events: Sequence[AnyEvent], profile: Profile | None, context: ShoeContext = ShoeContext()
) -> ShoeReplay:
    """Replay one shoe (one table, one shoe id, events in ``seq`` order) under its profile.

    Implements rules.md end to end: every finding of the v1 catalogue a replay
    can see, counted as "How many findings" says. ``profile`` None (the shoe
    names a profile the auditor lacks) gives one ``LOG_UNKNOWN_PROFILE`` and no
    replay. An event of an unknown type is ``LOG_UNKNOWN_TYPE`` (event-log.md:
    kept, not replayed). Never raises on well-formed events.
    """
    table = events[0].table if events else None
    shoe_id = events[0].shoe if events else None
    sink = FindingSink(table, shoe_id)
    if profile is None:
        opened = next((e for e in events if isinstance(e, m.ShoeOpen)), None)
        name = opened.profile if opened is not None else "(no shoe_open)"
        sink.add(
            Code.LOG_UNKNOWN_PROFILE,
            f"shoe {shoe_id} names profile {name!r}, which the auditor does not have; not replayed",
            events=[opened.id] if opened is not None else [],
            rule=None,
        )
        _unknown_type_findings(events, sink)
        return ShoeReplay(
            table=table,
            shoe=shoe_id,
            profile_id=None,
            findings=tuple(sink.items),
            rounds=(),
            replayed=False,
            decks=opened.decks if opened else None,
            banker=context.banker,
            banker_streak=context.banker_rounds_before,
        )
    _unknown_type_findings(events, sink)
    rp = _Replay(profile, context, sink)
    for i, e in enumerate(events):
        rp.event(e, i)
    codes: dict[str, list[str]] = {}
    for f in sink.items:
        for ev in f.events:
            codes.setdefault(ev, []).append(str(f.code))
    states = sorted(rp.rounds.values(), key=lambda r: r.number)
    rounds = tuple(rp.freeze_round(rs, codes) for rs in states)
    shoe_steps = tuple(
        s if s.event_id not in codes else _with_codes(s, codes[s.event_id]) for s in rp.shoe_steps
    )
    findings: list[Finding] = sorted(sink.items, key=lambda f: f.round or 0)
    cut = rp.cut
    return ShoeReplay(
        table=table,
        shoe=shoe_id,
        profile_id=profile.id,
        findings=tuple(findings),
        rounds=rounds,
        shoe_steps=shoe_steps,
        decks=rp.shoe.decks,
        shuffles=tuple(rp.shuffles),
        cut_by=cut.by if cut else None,
        cut_box=cut.box if cut else None,
        cut_card_position=rp.shoe.cut_card_position,
        burned=rp.start_burned,
        burned_later=rp.later_burned,
        cards_dealt=rp.cards_dealt,
        cards_drawn=rp.shoe.cards_drawn,
        remaining=rp.closed.remaining if rp.closed else None,
        is_closed=rp.closed is not None,
        close_reason=rp.closed.reason if rp.closed else None,
        banker=rp.banker,
        banker_streak=rp.streak,
    )
