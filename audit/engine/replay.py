"""The entry point: replay one shoe's events under its profile.

:func:`replay_shoe` walks the events in ``seq`` order. The shoe's own story
(shuffles, the cut, the cut card, burns, dealer changes, the close) is kept by
:class:`_Shoe`, the physical shoe by :class:`~audit.engine.shoe.ShoeTracker`,
and each round by one :class:`~audit.engine.round.Round` at a time, the only
object that changes a round's state. Every finding of the catalogue a replay
can see is raised (rules.md); ``LOG_MALFORMED``, ``LOG_ID_CONFLICT`` and
``LOG_SEQ_GAP`` belong to ingest.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Any

from audit.engine.deal import DealShape
from audit.engine.dealer import dealer_natural
from audit.engine.event import ROUND_TYPES, RoundEvent, cents, round_event
from audit.engine.hands import best_total, is_soft
from audit.engine.judge import wager_record
from audit.engine.outcome import RoundRow, ShoeOutcome, WagerRow, round_rows, staked_boxes
from audit.engine.result import (
    DealerRecord,
    HandRecord,
    RoundReplay,
    ShoeContext,
    ShoeReplay,
    Step,
)
from audit.engine.round import Limits, Round
from audit.engine.shoe import ShoeTracker
from audit.engine.sink import Breach, FindingSink
from audit.events import models as m
from audit.events.models import AnyEvent, UnknownEvent
from audit.findings import Code, Finding
from audit.profiles.model import Profile, Rules, SideBetTable

ShoeEvent = RoundEvent | AnyEvent
"""What :func:`replay_shoe` takes: round events as :class:`RoundEvent` (or models), shoe
events as their TEL/1 models."""

_ROUND_HANDLERS: dict[str, Callable[[Round, RoundEvent, int], None]] = {
    "round_open": Round.open,
    "bet": Round.bet,
    "no_more_bets": Round.no_more_bets,
    "action": Round.action,
    "objection": Round.objection,
    "insurance": Round.insurance_bet,
    "even_money": Round.even_money,
    "exposed_card": Round.exposed_card,
    "offer": Round.offer,
    "cut_card_out": Round.cut_card_out,
    "settle": Round.settle,
    "void": Round.void,
    "round_close": Round.close_event_step,
    # v1.2, the hole card (games.md §2)
    "peek": Round.peek,
    "reveal": Round.reveal,
}
"""Round events other than ``card`` (the shoe draws it first) and ``round_close`` (it ends
the round too)."""


class _Shoe:
    """The working state of one shoe's replay: the shoe's story and its rounds."""

    def __init__(
        self,
        profile: Profile,
        context: ShoeContext,
        sink: FindingSink,
        trace: bool,
        only: frozenset[int] | None = None,
    ) -> None:
        self.profile = profile
        self.only = only
        self.rules: Rules = profile.rules
        self.context = context
        self.sink = sink
        self.trace = trace
        self.tracker = ShoeTracker(rules=self.rules, sink=sink, decks=self.rules.decks)
        self.opened: m.ShoeOpen | None = None
        self.limits = Limits()
        self.rounds: dict[int, Round] = {}
        self.current: Round | None = None
        self.max_round = 0
        self.shoe_steps: list[Step] = []
        self.shuffles: list[str] = []
        self.shuffled_since_round = False
        self.cut: m.Cut | None = None
        self.inspections: list[m.Inspection] = []
        self.start_burned = 0
        self.start_burn_events: list[str] = []
        self.later_burned = 0
        self.cards_dealt = 0
        self.first_card_seen = False
        self.closed: m.ShoeClose | None = None
        self.after_close = 0
        self.shoe_flags: set[Code] = set()
        self.cut_card_round_flagged = False
        self.banker = context.banker
        self.streak = context.banker_rounds_before
        self.plans: dict[tuple[int, ...], tuple[Any, ...]] = {}
        """The deal's plan by staked boxes: the same boxes round after round, planned once."""
        # read from the profile once a shoe, not once a round (pydantic reads, issue 32)
        self.deal = DealShape(self.rules.initial_deal)
        self.side_tables: dict[str, SideBetTable] = profile.side_bet_tables

    # ------------------------------------------------------------------ shoe events

    def flag_once(self, breach: Breach) -> None:
        """Shoe-level codes are reported once per shoe, with ``round`` null (rules.md)."""
        if breach.code in self.shoe_flags:
            return
        self.shoe_flags.add(breach.code)
        self.sink.add(breach)

    def shoe_step(self, e: ShoeEvent, description: str, **kw: object) -> None:
        if not self.trace:
            return
        cur = self.current
        if cur is not None and cur.skipped:
            return  # in a round passed over, whose steps no one asked for (as a full replay)
        step = Step(event_id=e.id, seq=e.seq, type=e.type, description=description, **kw)  # type: ignore[arg-type]
        if cur is not None and cur.steps is not None:
            cur.steps.append(step)
        else:
            self.shoe_steps.append(step)

    def shoe_open(self, e: m.ShoeOpen) -> None:
        """The shoe opens: ``SHOE_DECKS`` when ``decks`` differs from the profile (000, 001)."""
        if self.opened is not None:
            self.sink.add(
                Breach(
                    Code.LOG_INCOMPLETE,
                    f"a second shoe_open {e.id!r} in this shoe",
                    (self.opened.id, e.id),
                )
            )
            self.shoe_step(e, "shoe_open again (ignored)")
            return
        self.opened = e
        self.tracker.decks = e.decks
        side_limits = e.__dict__.get("side_limits")
        self.limits = Limits(
            min_bet=None if e.min_bet is None else cents(e.min_bet),
            max_bet=None if e.max_bet is None else cents(e.max_bet),
            side=tuple(
                (
                    kind,
                    None if lim.min_bet is None else cents(lim.min_bet),
                    None if lim.max_bet is None else cents(lim.max_bet),
                )
                for kind, lim in side_limits.items()
            )
            if side_limits
            else (),
        )
        ctx = self.context
        self.streak = ctx.banker_rounds_before if ctx.banker == e.dealer else 0
        self.banker = e.dealer
        want = self.rules.decks
        if want is not None and e.decks != want:
            self.flag_once(
                Breach(
                    Code.SHOE_DECKS,
                    f"shoe_open has {e.decks} decks; the profile {self.profile.id!r} plays {want}",
                    (e.id,),
                    expected=str(want),
                    actual=str(e.decks),
                    rule="decks",
                )
            )
        self.shoe_step(e, f"shoe opens: {e.decks} decks, profile {e.profile}, dealer {e.dealer}")

    def shuffle(self, e: m.Shuffle) -> None:
        self.shuffles.append(e.method)
        self.shuffled_since_round = True
        self.tracker.shuffled(e.order)
        self.shoe_step(e, f"shuffle ({e.method})" + (" with the recorded order" if e.order else ""))

    def burn(self, e: m.Burn, index: int) -> None:
        """Burns: at shoe start (``SHOE_BURN_COUNT``), or mid-shoe (the exposed-card procedure)."""
        start = not self.first_card_seen
        cur = self.current
        rnd = cur.number if cur is not None else None
        pos = e.pos
        passed_over = cur is not None and cur.skipped
        if passed_over:
            cur = None  # passed over: only the shoe's share of the burn (the cards) matters
        if cur is not None and cur.ranks_before_round is None and not start:
            cur.snapshot_round(self.tracker.ranks, self.tracker.unseen)
        known = min(len(e.cards), e.n_cards)
        for n in range(known):
            self.tracker.draw(e.cards[n], pos + n if pos is not None else None, e.id, rnd)
        # The rest unseen, in one step: a count may be huge (issue 14, point 19).
        rest_pos = pos + known if pos is not None else None
        self.tracker.draw_unseen(e.n_cards - known, rest_pos, e.id, rnd)
        if start:
            self.start_burned += e.n_cards
            self.start_burn_events.append(e.id)
            if cur is not None and cur.number == 1:
                cur.start_burn(e)
            self.shoe_step(e, f"burn {e.n_cards} card(s) at shoe start", pos=pos)
            return
        self.later_burned += e.n_cards
        if passed_over:
            return  # a burn inside the round (the exposed-card procedure), not between rounds
        if cur is not None:
            cur.burn(e, index)
        else:
            if self.rules.exposed_card_procedure:
                self.sink.add(
                    Breach(
                        Code.PLAY_EXPOSED_CARD,
                        f"{e.n_cards} card(s) burned mid-shoe, between rounds, outside the "
                        "exposed-card procedure",
                        (e.id,),
                        rule="exposed_card_procedure",
                    )
                )
            self.shoe_step(e, f"burn {e.n_cards} card(s) mid-shoe", pos=pos)

    def first_card_checks(self, rnd: Round, e: RoundEvent) -> None:
        """Checks due when a round is first dealt: shuffle, cut, inspection, start burn."""
        r = self.rules
        if r.shuffle_every_round:
            if not self.shuffled_since_round:
                self.flag_once(
                    Breach(
                        Code.SHOE_NO_SHUFFLE,
                        f"round {rnd.number} was dealt without its own full reshuffle (002: "
                        "«dopo aver effettuato una nuova mescolatura di tutte le carte»)",
                        (e.id,),
                        rule="shuffle_every_round",
                    )
                )
        elif r.shuffle_required and not self.shuffles:
            self.flag_once(
                Breach(
                    Code.SHOE_NO_SHUFFLE,
                    f"round {rnd.number} was dealt from a shoe never shuffled",
                    (e.id,),
                    rule="shuffle_required",
                )
            )
        self.shuffled_since_round = False
        if self.first_card_seen:
            return
        self.first_card_seen = True
        self.tracker.dealing_begins()
        if r.cut_required and (self.cut is None or self.cut.by != "box"):
            how = "cut by the dealer" if self.cut is not None else "never cut"
            self.flag_once(
                Breach(
                    Code.SHOE_NO_CUT,
                    f"the shoe was {how} before the first round; a player must cut",
                    tuple(x for x in (self.cut.id if self.cut else None, e.id) if x),
                    rule="cut_required",
                )
            )
        if r.inspection_required and self.context.first_shoe_of_gaming_day:
            last = self.inspections[-1] if self.inspections else None
            if last is None or not last.ok:
                why = "no inspection" if last is None else "the inspection failed (ok false)"
                self.flag_once(
                    Breach(
                        Code.SHOE_NO_INSPECTION,
                        f"first shoe of the gaming day dealt with {why}; "
                        "new decks are spread and checked (001)",
                        tuple(x for x in (last.id if last else None, e.id) if x),
                        rule="inspection_required",
                    )
                )
        if self.start_burned != r.burn_count:
            self.flag_once(
                Breach(
                    Code.SHOE_BURN_COUNT,
                    f"{self.start_burned} card(s) burned at shoe start; "
                    f"the profile burns {r.burn_count}",
                    (*self.start_burn_events, e.id),
                    expected=str(r.burn_count),
                    actual=str(self.start_burned),
                    rule="burn_count",
                )
            )

    # ------------------------------------------------------------------ rounds

    def start_round(self, number: int, e: RoundEvent) -> Round:
        """A new round begins: close the one in progress; cut card, banker rotation (rules.md)."""
        if self.current is not None:
            self.abandon(self.current, e)
        if number < self.max_round:
            self.sink.add(
                Breach(
                    Code.LOG_INCOMPLETE,
                    f"round {number} begins after round {self.max_round}: rounds out of order",
                    (e.id,),
                ),
                number,
            )
        self.max_round = max(self.max_round, number)
        out = self.tracker.cut_card_out_round
        if (
            self.rules.cut_card_last_round
            and out is not None
            and out < number
            and not self.cut_card_round_flagged
        ):
            self.cut_card_round_flagged = True
            self.sink.add(
                Breach(
                    Code.SHOE_ROUND_AFTER_CUT_CARD,
                    f"round {number} starts after the cut card came out in round {out}, "
                    "which was the last of the shoe",
                    tuple(x for x in (self.tracker.cut_card_out_event, e.id) if x),
                    rule="cut_card_last_round",
                ),
                number,
            )
        self.streak += 1
        mx = self.rules.banker_max_rounds
        if mx is not None and self.streak == mx + 1:
            self.sink.add(
                Breach(
                    Code.DEALER_BANKER_ROTATION,
                    f"banker {self.banker} deals round {number}, the {self.streak}th in a row; "
                    f"the bank passes after {mx}",
                    (e.id,),
                    expected=str(mx),
                    actual=str(self.streak),
                    rule="banker_max_rounds",
                ),
                number,
            )
        skipped = self.only is not None and number not in self.only
        rnd = Round(
            number, self.rules, self.sink, self.limits, self.banker,
            trace=self.trace and not skipped, plans=self.plans,
            side_tables=self.side_tables, deal=self.deal,
        )  # fmt: skip
        rnd.skipped = skipped
        rnd.first_seq = e.seq
        rnd.first_ts_us = e.ts_us
        self.rounds[number] = rnd
        self.current = rnd
        return rnd

    def abandon(self, rnd: Round, e: ShoeEvent) -> None:
        """A round left open when the next round or the shoe's close begins: ``LOG_INCOMPLETE``."""
        self.sink.add(
            Breach(
                Code.LOG_INCOMPLETE,
                f"round {rnd.number} was never closed when {e.type} {e.id!r} came",
                (*[x for x in (rnd.last_event,) if x], e.id),
            ),
            rnd.number,
        )
        self.finish(rnd, "incomplete")

    def finish(self, rnd: Round, status: str) -> None:
        rnd.finish(status)
        if self.current is rnd:
            self.current = None

    def replay(self, events: Sequence[ShoeEvent]) -> None:
        """Replay every event in order: round events on the fast path, the rest in :meth:`event`.

        Events of an unknown type are ``LOG_UNKNOWN_TYPE`` (event-log.md: kept, not
        replayed), reported before the replay's own findings.
        """
        handlers = _ROUND_HANDLERS
        unknown: list[tuple[Breach, int | None]] = []
        for i, e in enumerate(events):
            if not isinstance(e, RoundEvent):
                if isinstance(e, UnknownEvent):
                    unknown.append(_unknown_type(e))
                    self.shoe_step(e, f"unknown event type {e.type!r} (kept, not replayed)")
                    continue
                if e.type not in ROUND_TYPES:
                    self.event(e, i)
                    continue
                model = round_event(e)  # a round event's model (tests, the dispute report)
                assert isinstance(model, RoundEvent)
                e = model
            rnd = self.current
            if self.closed is not None or rnd is None or rnd.number != e.round:
                rnd = self.enter_round(e, i)
                if rnd is None:
                    continue
            rnd.last_event = e.id
            rnd.last_seq = e.seq
            etype = e.type
            if rnd.skipped:
                self.pass_over(rnd, e, i)
            elif etype == "card":
                self.card(rnd, e, i)
            elif etype == "round_close":
                rnd.close_event_step(e, i)
                self.finish(rnd, "closed")
            elif etype == "cut_card_out":
                self.tracker.cut_card_came_out(rnd.number, e.id)
                rnd.cut_card_out(e, i)
            else:
                handlers[etype](rnd, e, i)
        closed = self.closed
        if closed is not None:
            # after every event: a late card still left the shoe (rules.md v1.2)
            self.tracker.reconcile(closed, self.start_burned, self.start_burn_events[-1:])
        self.sink.add_first(unknown)

    def pass_over(self, rnd: Round, e: RoundEvent, index: int) -> None:
        """An event of a round replayed only as far as the shoe remembers it.

        A page needs one round's steps, not the rounds before it; what those leave
        behind for later rounds is the shoe's: the cards drawn (positions, counts,
        the composition, the cut card), the checks of a round's first card, and
        the round's end. A test checks that a round replayed after rounds passed
        over steps exactly as in a full replay.
        """
        etype = e.type
        if etype == "card":
            if not rnd.draws:
                self.first_card_checks(rnd, e)
                rnd.draws.append(index)
            self.tracker.draw(e.card, e.pos, e.id, rnd.number)
            self.cards_dealt += 1
        elif etype == "round_close":
            self.finish(rnd, "closed")
        elif etype == "cut_card_out":
            self.tracker.cut_card_came_out(rnd.number, e.id)

    def enter_round(self, e: RoundEvent, index: int) -> Round | None:
        """The round a round event belongs to: a new one, or None for a round that is over."""
        rnd = self.current
        if rnd is None or rnd.number != e.round:
            over = self.rounds.get(e.round)
            if over is not None:
                self.late(over, e, index)
                return None
        if self.closed is not None:
            self._after_close(e)
        if rnd is not None and rnd.number == e.round:
            return rnd
        return self.start_round(e.round, e)

    def late(self, rnd: Round, e: RoundEvent, index: int) -> None:
        """An event of a round that is over (``round_close``, the next ``round_open``, or the
        shoe's close came first; rules.md v1.2).

        A settlement is judged with the round's own (:meth:`Round.late_settle`:
        ``PAY_TIMING`` when right, its amount code when wrong, ``PAY_DUPLICATE`` if
        the wager was settled already). Any other event is ``LOG_INCOMPLETE``, once
        per round, and is not replayed; but a late card still left the shoe: it
        counts for the positions, the card counts and the reconciliation.
        """
        etype = e.type
        if etype == "settle":
            rnd.late_settle(e, index)
            self.shoe_step(e, f"settle for round {e.round} after it was over")
            return
        if not rnd.late_logged:
            rnd.late_logged = True
            self.sink.add(
                Breach(
                    Code.LOG_INCOMPLETE,
                    f"{etype} {e.id!r} for round {e.round}, which is over",
                    (e.id,),
                ),
                e.round,
            )
        if etype == "card":
            self.tracker.draw(e.card, e.pos, e.id, rnd.number)
            self.cards_dealt += 1
        self.shoe_step(e, f"{etype} for round {e.round}, which is over (not replayed)")

    def card(self, rnd: Round, e: RoundEvent, index: int) -> None:
        """A card leaves the shoe (the tracker) and is placed (the round)."""
        tracker = self.tracker
        if not rnd.draws:
            self.first_card_checks(rnd, e)
            rnd.snapshot_round(tracker.ranks, tracker.unseen)
        if e.to == "dealer" and len(rnd.dealer) == 1:
            rnd.snapshot_dealer(tracker.ranks, tracker.unseen)
        pos = tracker.draw(e.card, e.pos, e.id, rnd.number)
        self.cards_dealt += 1
        rnd.card(e, index, pos)

    def shoe_close(self, e: m.ShoeClose) -> None:
        """The shoe closes: an open round is ``LOG_INCOMPLETE``; ``SHOE_RECONCILIATION`` after
        the last event (:meth:`replay`)."""
        if self.current is not None:
            self.abandon(self.current, e)
        if self.closed is None:
            self.closed = e  # reconciled once every event is replayed (a late card counts)
        self.shoe_step(
            e,
            f"shoe closes ({e.reason})"
            + (f", {e.remaining} cards remaining" if e.remaining is not None else ""),
        )

    def event(self, e: AnyEvent, index: int) -> None:
        """A shoe event (``shoe_open``, ``shuffle``, ``burn``, ...)."""
        if self.closed is not None and self._after_close(e):
            return
        if isinstance(e, m.ShoeOpen):
            self.shoe_open(e)
        elif isinstance(e, m.Inspection):
            self.inspections.append(e)
            self.shoe_step(e, f"inspection of {e.decks} decks: {'ok' if e.ok else 'FAILED'}")
        elif isinstance(e, m.Shuffle):
            self.shuffle(e)
        elif isinstance(e, m.Cut):
            self.cut = self.cut or e
            who = f"box {e.box}" if e.by == "box" else "the dealer"
            self.shoe_step(e, f"cut by {who}")
        elif isinstance(e, m.CutCard):
            self.tracker.cut_card(e)
            self.shoe_step(e, f"cut card at position {e.position}", pos=e.position)
        elif isinstance(e, m.Burn):
            self.burn(e, index)
        elif isinstance(e, m.DealerChange):
            if e.dealer != self.banker:
                self.banker = e.dealer
                self.streak = 0
            self.shoe_step(e, f"dealer change: {e.dealer}")
        elif isinstance(e, m.ShoeClose):
            self.shoe_close(e)

    def _after_close(self, e: ShoeEvent) -> bool:
        """An event after ``shoe_close``: one ``LOG_INCOMPLETE``; a second close is dropped."""
        self.after_close += 1
        if self.after_close == 1:
            assert self.closed is not None
            self.sink.add(
                Breach(
                    Code.LOG_INCOMPLETE,
                    f"{e.type} {e.id!r} comes after the shoe's close",
                    (self.closed.id, e.id),
                )
            )
        return isinstance(e, m.ShoeClose)

    # ------------------------------------------------------------------ result

    def freeze_round(self, rnd: Round, codes: dict[str, list[str]]) -> RoundReplay:
        judged = rnd.judged
        steps: tuple[Step, ...] = ()
        if rnd.steps is not None:
            steps = tuple(
                s if s.event_id not in codes else _with_codes(s, codes[s.event_id])
                for s in rnd.steps
            )
        hands = tuple(
            HandRecord(
                box=h.box,
                hand=h.number,
                cards=tuple(h.cards),
                total=h.total,
                soft=h.soft,
                natural=h.natural,
                bust=h.bust,
                doubled=h.doubled,
                from_split=h.from_split,
                surrendered=h.surrendered,
            )
            for b in sorted(rnd.boxes.values(), key=lambda b: b.number)
            for h in sorted(b.hands, key=lambda h: h.number)
            if h.cards or not h.phantom
        )
        d = rnd.dealer
        dealer = DealerRecord(
            cards=tuple(d),
            total=best_total(d),
            soft=is_soft(d),
            natural=dealer_natural(d),
            bust=best_total(d) > 21,
            completed=rnd.dealer_completed(),
        )
        findings = tuple(f for f in self.sink.items if f.round == rnd.number)
        return RoundReplay(
            round=rnd.number,
            status=rnd.status if judged else "open",
            steps=steps,
            wagers=tuple(wager_record(w) for w in rnd.wagers) if judged else (),
            hands=hands,
            dealer=dealer,
            findings=findings,
            banker=rnd.banker,
            first_seq=rnd.first_seq,
            last_seq=rnd.last_seq,
            ranks_before_round=_ranks(rnd.ranks_before_round),
            unseen_before_round=rnd.unseen_before_round,
            ranks_before_dealer=_ranks(rnd.ranks_before_dealer),
            unseen_before_dealer=rnd.unseen_before_dealer,
        )


def _ranks(ranks: list[int] | None) -> tuple[int, ...] | None:
    return None if ranks is None else tuple(ranks)


def _with_codes(step: Step, codes: list[str]) -> Step:
    return replace(step, codes=tuple(dict.fromkeys(codes)))


def _unknown_type(e: UnknownEvent) -> tuple[Breach, int | None]:
    """``LOG_UNKNOWN_TYPE`` for an event whose type TEL/1 does not define (with its round)."""
    rnd = getattr(e, "round", None)
    return (
        Breach(
            Code.LOG_UNKNOWN_TYPE,
            f"event {e.id!r} has type {e.type!r}, which TEL/1 does not define; kept, not replayed",
            (e.id,),
        ),
        rnd if isinstance(rnd, int) and not isinstance(rnd, bool) else None,
    )


def replay_shoe(
    events: Sequence[ShoeEvent],
    profile: Profile | None,
    context: ShoeContext = ShoeContext(),
    *,
    trace: bool = True,
    rounds: Collection[int] | None = None,
) -> ShoeReplay:
    """Replay one shoe (one table, one shoe id, events in ``seq`` order) under its profile.

    Implements rules.md end to end: every finding of the catalogue a replay can
    see, counted as "How many findings" says. Round events may come as
    :class:`~audit.engine.event.RoundEvent` (what ``run`` builds from the store)
    or as TEL/1 models; shoe events as models. ``profile`` None (the shoe names
    a profile the auditor lacks) gives one ``LOG_UNKNOWN_PROFILE`` and no
    replay. An event of an unknown type is ``LOG_UNKNOWN_TYPE`` (event-log.md:
    kept, not replayed). ``trace`` records every event as a step (the dispute
    report); ``run`` turns it off. ``rounds`` replays only those rounds in full
    (the others only as far as the shoe remembers them: a page needs one round's
    steps); the replay then holds those rounds and their findings, and the
    shoe's own. Never raises on well-formed events.
    """
    first = next((e for e in events if not isinstance(e, RoundEvent)), None)
    table, shoe_id = (first.table, first.shoe) if first is not None else (None, None)
    return replay_shoe_of(table, shoe_id, events, profile, context, trace=trace, rounds=rounds)


def _replayed(
    table: str | None,
    shoe_id: str | None,
    events: Sequence[ShoeEvent],
    profile: Profile | None,
    context: ShoeContext,
    trace: bool,
    only: frozenset[int] | None = None,
) -> tuple[FindingSink, _Shoe | None, list[ShoeEvent]]:
    """Replay a shoe: its findings, and its state (None for an unknown profile)."""
    sink = FindingSink(table, shoe_id)
    if profile is None:
        opened = next((e for e in events if isinstance(e, m.ShoeOpen)), None)
        name = opened.profile if opened is not None else "(no shoe_open)"
        sink.add(
            Breach(
                Code.LOG_UNKNOWN_PROFILE,
                f"shoe {shoe_id} names profile {name!r}, which the auditor does not have; "
                "not replayed",
                (opened.id,) if opened is not None else (),
            )
        )
        sink.add_first([_unknown_type(e) for e in events if isinstance(e, UnknownEvent)])
        return sink, None, list(events)
    shoe = _Shoe(profile, context, sink, trace, only)
    shoe.replay(events)
    return sink, shoe, list(events)


def replay_shoe_of(
    table: str | None,
    shoe_id: str | None,
    events: Sequence[ShoeEvent],
    profile: Profile | None,
    context: ShoeContext = ShoeContext(),
    *,
    trace: bool = True,
    rounds: Collection[int] | None = None,
) -> ShoeReplay:
    """:func:`replay_shoe` for a shoe whose table and shoe id the caller knows.

    (A :class:`~audit.engine.event.RoundEvent` does not carry them.)
    """
    only = None if rounds is None else frozenset(rounds)
    sink, shoe, evs = _replayed(table, shoe_id, events, profile, context, trace, only)
    if shoe is None:
        opened = next((e for e in evs if isinstance(e, m.ShoeOpen)), None)
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
    assert profile is not None
    codes: dict[str, list[str]] = {}
    if trace:
        for f in sink.items:
            for ev in f.events:
                codes.setdefault(ev, []).append(str(f.code))
    states = sorted((r for r in shoe.rounds.values() if not r.skipped), key=lambda r: r.number)
    replayed = tuple(shoe.freeze_round(r, codes) for r in states)
    shoe_steps = tuple(
        s if s.event_id not in codes else _with_codes(s, codes[s.event_id]) for s in shoe.shoe_steps
    )
    kept = (
        sink.items
        if only is None
        else [f for f in sink.items if f.round in only or f.round is None]
    )
    findings: list[Finding] = sorted(kept, key=lambda f: f.round or 0)
    cut = shoe.cut
    closed = shoe.closed
    return ShoeReplay(
        table=table,
        shoe=shoe_id,
        profile_id=profile.id,
        findings=tuple(findings),
        rounds=replayed,
        shoe_steps=shoe_steps,
        decks=shoe.tracker.decks,
        shuffles=tuple(shoe.shuffles),
        cut_by=cut.by if cut else None,
        cut_box=cut.box if cut else None,
        cut_card_position=shoe.tracker.cut_card_position,
        burned=shoe.start_burned,
        burned_later=shoe.later_burned,
        cards_dealt=shoe.cards_dealt,
        cards_drawn=shoe.tracker.cards_drawn,
        remaining=closed.remaining if closed else None,
        is_closed=closed is not None,
        close_reason=closed.reason if closed else None,
        banker=shoe.banker,
        banker_streak=shoe.streak,
        round_numbers=tuple(sorted(shoe.rounds)),
    )


def audit_shoe(
    table: str | None,
    shoe_id: str | None,
    events: Sequence[ShoeEvent],
    profile: Profile | None,
    context: ShoeContext = ShoeContext(),
) -> ShoeOutcome:
    """Replay one shoe as ``run`` does: its findings and the outcome rows it stores.

    The same replay as :func:`replay_shoe`, without the step trace and the frozen
    records pages need (:mod:`audit.engine.outcome`).
    """
    sink, shoe, _ = _replayed(table, shoe_id, events, profile, context, False)
    findings = tuple(sorted(sink.items, key=lambda f: f.round or 0))
    if shoe is None:
        return ShoeOutcome(
            findings, [], [], context.banker, context.banker_rounds_before, replayed=False
        )
    by_round: dict[int | None, list[Finding]] = {}
    for f in findings:
        by_round.setdefault(f.round, []).append(f)
    rounds: list[RoundRow] = []
    wagers: list[WagerRow] = []
    for number in sorted(shoe.rounds):
        row, ws = round_rows(table, shoe_id, shoe.rounds[number], by_round.get(number, ()))
        rounds.append(row)
        wagers.extend(ws)
    one = shoe.rounds.get(1)
    return ShoeOutcome(
        findings,
        rounds,
        wagers,
        shoe.banker,
        shoe.streak,
        replayed=True,
        prefix_ranks=shoe.tracker.prefix_ranks(staked_boxes(one) if one is not None else None),
    )
