"""The hand packet: one round replayed step by step, for a dispute."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from audit.engine import (
    ENGINE_VERSION,
    DealerRecord,
    HandRecord,
    RoundReplay,
    ShoeReplay,
    Step,
    WagerRecord,
)
from audit.errors import NotFoundError
from audit.events.models import (
    RESERVED_KINDS,
    Action,
    AnyEvent,
    Bet,
    Burn,
    DealerChange,
    Peek,
    ShoeOpen,
)
from audit.findings import Code, Finding, money_str
from audit.profiles import Profile, load_registry
from audit.reports.cards import card_view
from audit.reports.context import (
    FindingView,
    HandContext,
    HandView,
    ProfileView,
    RoundLink,
    ShoeStory,
    StepView,
    StoryLine,
    TotalView,
    WagerView,
    to_json,
)
from audit.reports.holecard import DealMarks, StepMarks, deal_marks
from audit.reports.templating import render

if TYPE_CHECKING:
    import datetime as dt

    from audit.engine.event import RoundEvent

HandFormat = Literal["text", "html", "json"]

Sources = Mapping[str, tuple[str, int]]
"""Where each event was read: event id -> (input file path as ingested, line number)."""


class StepFacts(NamedTuple):
    """What a step's line shows of its event beyond the engine's step: when it was logged
    (ISO text, with the table's UTC offset), whether its card was dealt face up, the
    decision it names, what a ``peek`` announced, and a ``bet``'s wager (``main`` or a
    side-bet id). From a TEL/1 model
    (:func:`model_facts`) or, where a report's pages replayed the round from lean events,
    from the engine's own record of it and its logged time (:func:`lean_facts`): the
    same facts either way."""

    ts: str
    face_up: bool
    decision: str | None
    announced: bool | None = None
    wager: str | None = None


def model_facts(ev: AnyEvent) -> StepFacts:
    """The :class:`StepFacts` of a TEL/1 event (its schema's fields: a ``face_up`` beyond
    its type's schema is not read, as the engine reads none)."""
    return StepFacts(
        ev.ts.isoformat(),
        bool(ev.__dict__.get("face_up", True)),
        ev.action if isinstance(ev, Action) else None,
        ev.blackjack if isinstance(ev, Peek) else None,
        ev.wager if isinstance(ev, Bet) else None,
    )


def lean_facts(ev: RoundEvent, logged_at: dt.datetime) -> StepFacts:
    """The :class:`StepFacts` of a round event the engine read as a
    :class:`~audit.engine.event.RoundEvent`, logged at ``logged_at`` (its ``ts``, with
    the table's UTC offset: the record keeps the instant only)."""
    return StepFacts(
        logged_at.isoformat(),
        ev.face_up,
        ev.word if ev.type == "action" else None,
        ev.blackjack if ev.type == "peek" else None,
        (ev.word or "main") if ev.type == "bet" else None,
    )


def build_hand_context(
    replay: ShoeReplay,
    round_no: int,
    profile: Profile | None = None,
    *,
    events: Sequence[AnyEvent] | None = None,
    engine_version: str | None = None,
    sources: Sources | None = None,
    facts: Mapping[str, StepFacts] | None = None,
) -> HandContext:
    """The context of round ``round_no`` of a replayed shoe.

    ``replay`` is the engine's :class:`~audit.engine.ShoeReplay`; ``profile`` the
    profile it was replayed under (looked up by the replay's ``profile_id`` when
    not given); ``events`` the shoe's events as replayed (optional: they add
    timestamps, face-down flags, the decision names and the ``shoe_open`` facts);
    ``facts`` those of some events by id, where ``events`` lacks their models
    (:class:`StepFacts`: a report's pages); ``sources`` where each event was read
    (:data:`Sources`, issue 10 point 10).
    Every total, verdict and settlement is the engine's; this only arranges them:
    a wager's verdict is the ``PAY_`` finding the engine raised on it, never a
    comparison of amounts made here (issue 10, point 12).

    Raises :class:`audit.errors.NotFoundError` naming the nearest existing
    rounds when the shoe has no such round.
    """
    table = replay.table or "?"
    shoe = replay.shoe or "?"
    rnd = replay.round_replay(round_no)
    if rnd is None:
        raise no_such_round(table, shoe, round_no, [r.round for r in replay.rounds])
    if profile is None and replay.profile_id is not None:
        registry = load_registry()
        profile = registry.get(replay.profile_id) if replay.profile_id in registry else None
    by_id: dict[str, AnyEvent] = {e.id: e for e in events} if events else {}
    where = sources or {}

    round_findings = _round_findings(replay, rnd)
    seq_of = {st.event_id: st.seq for st in rnd.steps}
    first_seq = min(seq_of.values(), default=0)
    naturals = {(h.box, h.hand) for h in rnd.hands if h.natural}

    given = facts or {}

    def facts_of(event_id: str) -> StepFacts | None:
        fact = given.get(event_id)
        if fact is None and (ev := by_id.get(event_id)) is not None:
            return model_facts(ev)
        return fact

    marks = deal_marks(rnd.steps, facts_of, profile, rnd.wagers, round_findings)
    steps = tuple(
        _step_view(
            n,
            st,
            facts_of(st.event_id),
            naturals,
            rnd.dealer.natural,
            where.get(st.event_id),
            marks.steps.get(st.event_id),
        )
        for n, st in enumerate(rnd.steps, start=1)
    )
    findings = tuple(
        _finding_view(f, profile)
        for f in sorted(
            round_findings,
            key=lambda f: (
                -f.severity.rank,
                min((seq_of.get(e, 1 << 62) for e in f.events), default=1 << 62),
                str(f.code),
                f.box or 0,
                f.hand or 0,
                f.spot or 0,
            ),
        )
    )
    impacts = [f.impact for f in round_findings if f.impact is not None]
    verdicts = wager_verdicts(rnd.wagers, round_findings)
    bet_codes = side_bet_codes(rnd.steps, facts_of, round_findings)
    split_hands = {(h.box, h.hand) for h in rnd.hands if h.from_split}
    # A replay of some rounds only (a report's pages) passed over the others: the
    # shoe's round numbers still say which rounds came before and after this one.
    numbers = list(replay.round_numbers) or sorted(r.round for r in replay.rounds)
    idx = numbers.index(round_no)
    prev = numbers[idx - 1] if idx > 0 else None
    nxt = numbers[idx + 1] if idx + 1 < len(numbers) else None
    earlier = [r for r in replay.rounds if r.round in set(numbers[:idx])]

    return HandContext(
        table=table,
        shoe=shoe,
        round=round_no,
        profile=_profile_view(profile, replay.profile_id),
        engine_version=engine_version or ENGINE_VERSION,
        story=_story(replay, rnd, earlier, idx, first_seq, by_id, events or (), where, facts_of),
        steps=steps,
        hands=tuple(
            _hand_view(h, rnd.wagers, marks)
            for h in sorted(rnd.hands, key=lambda h: (h.box, h.hand))
        ),
        dealer=_dealer_view(rnd.dealer, marks) if rnd.dealer.cards else None,
        dealer_rule=dealer_rule_text(profile),
        wagers=tuple(
            _wager_view(w, verdicts.get(_wager_key(w)), split_hands, bet_codes)
            for w in sorted(
                rnd.wagers, key=lambda w: (w.box, w.hand, w.spot, _KIND_ORDER.get(w.kind, 9))
            )
        ),
        findings=findings,
        worst_severity=str(findings[0].severity) if findings else None,
        net_impact=money_str(sum(impacts, Decimal(0))) if impacts else None,
        previous_round=_link(replay, prev),
        next_round=_link(replay, nxt),
    )


def _link(replay: ShoeReplay, number: int | None) -> RoundLink | None:
    """The link to round ``number``, with its findings; a round the replay passed over has
    none counted (whoever replays some rounds only replays every flagged one it shows)."""
    if number is None:
        return None
    rnd = replay.round_replay(number)
    if rnd is None:
        return RoundLink(number, 0)
    found = _round_findings(replay, rnd)
    worst = max(found, key=lambda f: f.severity.rank).severity if found else None
    return RoundLink(rnd.round, len(found), None, str(worst) if worst is not None else None)


# --------------------------------------------------------------------------- verdicts

_WAGER_KIND = {Code.PAY_INSURANCE: "insurance", Code.PAY_BONUS: "bonus"}
"""The kind of wager a ``PAY_`` code judges; every other wager code judges a main wager."""
_ROUND_CODES = frozenset({Code.PAY_ORDER, Code.PAY_UNKNOWN_WAGER})
"""``PAY_`` codes about a round's order, or a settlement of no wager: no wager's verdict."""


def _wager_key(w: WagerRecord) -> tuple[int, int, int, str]:
    return (w.box, w.hand, w.spot, w.kind)


def wager_verdicts(
    wagers: Sequence[WagerRecord], findings: Sequence[Finding]
) -> dict[tuple[int, int, int, str], Finding]:
    """The ``PAY_`` finding the engine raised on each wager, by (box, hand, spot, kind).

    A finding judges the wager whose ``settle`` events it cites (wrong amount,
    duplicate, timing); a finding on an unsettled wager (``PAY_MISSING``, a
    missing prize's ``PAY_BONUS``) judges the unsettled wager of its box, hand,
    spot and kind (a side bet's, cited under ``side_bets``: the unsettled side bet of its
    box and spot whose engine verdict it is). Where two findings judge one wager the most
    severe wins.
    """
    by_settle = {e: _wager_key(w) for w in wagers for e in w.settle_events}
    unsettled = {(w.box, w.hand, w.spot, w.kind): w for w in wagers if not w.settle_events}
    out: dict[tuple[int, int, int, str], Finding] = {}
    for f in findings:
        if not str(f.code).startswith("PAY_") or f.code in _ROUND_CODES or f.box is None:
            continue
        key = next((by_settle[e] for e in f.events if e in by_settle), None)
        if key is None and f.rule == "side_bets":
            # a side bet never settled: the engine's verdict names which of the spot's
            key = next(
                (
                    k
                    for k, w in unsettled.items()
                    if w.side_bet and (k[0], k[2]) == (f.box, f.spot or 0)
                    and w.verdict == str(f.code) and k not in out
                ),
                None,
            )  # fmt: skip
        elif key is None:
            cand = (f.box, f.hand or 0, f.spot or 0, _WAGER_KIND.get(f.code, "main"))
            key = cand if cand in unsettled else None
        if key is None:
            continue
        if key not in out or f.severity.rank > out[key].severity.rank:
            out[key] = f
    return out


# --------------------------------------------------------------------------- pieces

_KIND_ORDER = {"main": 0, "insurance": 1, "bonus": 2}

_DEALER_RULE_NOTE = {
    "draw": "dealer rule before this card: must draw",
    "stand": "dealer rule before this card: must stand",
    "may_stop": "dealer may stop: every player hand is decided",
    "free": "the banker plays freely",
}


def _round_findings(replay: ShoeReplay, rnd: RoundReplay) -> list[Finding]:
    """The round's own findings and the shoe's findings placed in this round, once each."""
    seen: set[str] = set()
    out: list[Finding] = []
    for f in (*rnd.findings, *(f for f in replay.findings if f.round == rnd.round)):
        key = f.to_json()
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def total_label(total: int, soft: bool, natural: bool = False) -> str:
    """A total in words, from the engine's verdicts: ``blackjack``, ``bust 25``, ``soft 17``."""
    if natural:
        return "blackjack"
    if total > 21:
        return f"bust {total}"
    return f"{'soft' if soft else 'hard'} {total}"


def dealer_rule_text(profile: Profile | None) -> str:
    """The profile's dealer rule in words."""
    if profile is None:
        return "unknown (the profile is not known)"
    r = profile.rules
    if r.dealer_plays_freely:
        return "the banker plays freely: no dealer-draw rule"
    n = r.dealer_stands_on
    if r.dealer_stands_on_soft_17 or n != 17:
        return f"draws to {n - 1}, stands on all {n}s"
    return f"draws to {n - 1} and on soft {n}, stands on hard {n}"


def _profile_view(profile: Profile | None, profile_id: str | None) -> ProfileView:
    if profile is None:
        return ProfileView(id=profile_id or "?", title="unknown profile", seed="", digest="")
    return ProfileView(id=profile.id, title=profile.title, seed=profile.seed, digest=profile.digest)


def _finding_view(f: Finding, profile: Profile | None) -> FindingView:
    src = profile.sources.get(f.rule) if (profile is not None and f.rule) else None
    return FindingView(
        code=str(f.code),
        severity=str(f.severity),
        message=f.message,
        table=f.table,
        shoe=f.shoe,
        round=f.round,
        box=f.box,
        hand=f.hand,
        spot=f.spot,
        expected=f.expected,
        actual=f.actual,
        impact=money_str(f.impact),
        rule=f.rule,
        rule_source=src.source if src is not None else None,
        rule_house_default=src.house_default if src is not None else False,
        events=tuple(f.events),
        source=f.source,
    )


def _source(where: tuple[str, int] | None) -> str | None:
    return f"{where[0]}:{where[1]}" if where is not None else None


def _step_view(
    n: int,
    st: Step,
    ev: StepFacts | None,
    naturals: set[tuple[int, int]],
    dealer_natural: bool,
    source: tuple[str, int] | None = None,
    mark: StepMarks | None = None,
) -> StepView:
    total: TotalView | None = None
    if st.type == "card" and st.total is not None and st.soft is not None:
        who_dealer = st.box is None
        natural = len(st.cards) == 2 and (
            dealer_natural if who_dealer else (st.box, st.hand or 0) in naturals
        )
        total = TotalView(
            who=st.target or ("dealer" if who_dealer else f"box {st.box} hand {st.hand or 0}"),
            box=st.box,
            hand=None if who_dealer else (st.hand or 0),
            cards=tuple(card_view(c) for c in st.cards),
            total=st.total,
            soft=st.soft,
            label=total_label(st.total, st.soft, natural),
        )
    decision = ev.decision if ev is not None else None
    if decision is None and st.type in ("action", "insurance", "even_money"):
        decision = st.type
    notes: list[str] = []
    if st.dealer_rule:
        notes.append(_DEALER_RULE_NOTE.get(st.dealer_rule, f"dealer rule: {st.dealer_rule}"))
    if st.why_not:
        notes.append(st.why_not)
    where = None
    if st.target == "dealer":
        where = "dealer"
    elif st.box is not None:
        where = f"box {st.box}" + (f" hand {st.hand}" if st.hand is not None else "")
        where += f" spot {st.spot}" if st.spot is not None else ""
    ts = ev.ts if ev is not None else None
    card = card_view(st.card, ev.face_up if ev is not None else True) if st.card else None
    if mark is not None:
        total = mark.total or total
        card = card_view(mark.card) if mark.card is not None else card
        if mark.dealer_card is not None:
            where = "dealer"
    return StepView(
        n=n,
        event_id=st.event_id,
        seq=st.seq,
        ts=ts,
        time=ts[11:19] if ts is not None else None,  # "2026-11-28T20:03:21+01:00": 20:03:21
        source=_source(source),
        type=st.type,
        description=st.description,
        card=card,
        pos=st.pos,
        target=where or st.target,
        total=total,
        decision=decision,
        decision_allowed=st.allowed,
        rule_note="; ".join(notes) or None,
        finding_codes=tuple(st.codes),
        dealer_card=mark.dealer_card if mark is not None else None,
        peek=mark.peek if mark is not None else None,
        surrender=mark.surrender if mark is not None else None,
    )


def _hand_view(h: HandRecord, wagers: Sequence[WagerRecord], marks: DealMarks) -> HandView:
    mains = [w for w in wagers if w.kind == "main" and (w.box, w.hand) == (h.box, h.hand)]
    base = sum((w.base_stake for w in mains), Decimal(0))
    extra = sum((w.stake - w.base_stake for w in mains), Decimal(0))
    notes = [
        text
        for flag, text in (
            (h.from_split, "from a split"),
            (h.doubled, "doubled"),
            (h.surrendered, _surrendered(h, marks)),
        )
        if flag
    ]
    return HandView(
        who=f"box {h.box} hand {h.hand}",
        box=h.box,
        hand=h.hand,
        cards=tuple(card_view(c) for c in h.cards),
        total=h.total,
        soft=h.soft,
        label=total_label(h.total, h.soft, h.natural),
        notes=tuple(notes),
        stake=money_str(base) if mains else None,
        double_stake=money_str(extra) if (mains and (h.doubled or extra)) else None,
        split_stake=money_str(base) if (mains and h.from_split) else None,
    )


def _surrendered(h: HandRecord, marks: DealMarks) -> str:
    """``surrendered``, with its timing where the round's steps show one (``late``)."""
    for mark in marks.steps.values():
        s = mark.surrender
        if s is not None and s.timing is not None and s.box == h.box and s.hand == h.hand:
            return f"surrendered ({s.timing})"
    return "surrendered"


def _dealer_view(d: DealerRecord, marks: DealMarks) -> HandView:
    return HandView(
        who="dealer",
        box=None,
        hand=None,
        cards=tuple(card_view(c) for c in d.cards),
        total=d.total,
        soft=d.soft,
        label=total_label(d.total, d.soft, d.natural),
        notes=(),
        card_roles=marks.dealer_roles,
        hole_card=marks.hole_card,
    )


def side_bet_codes(
    steps: Sequence[Step],
    facts_of: Callable[[str], StepFacts | None],
    findings: Sequence[Finding],
) -> dict[tuple[int, int, str], tuple[str, ...]]:
    """The ``BET_`` findings on the ``bet`` events that placed side bets, by (box, spot,
    side-bet id): their codes, most severe first (issue 32, point 6: a side bet's finding
    beside it, as a ``PAY_`` verdict is beside its wager)."""
    placed: dict[str, tuple[int, int, str]] = {}
    for st in steps:
        fact = facts_of(st.event_id) if st.type == "bet" else None
        if fact is not None and fact.wager not in (None, *RESERVED_KINDS):
            assert fact.wager is not None
            placed[st.event_id] = (st.box or 0, st.spot or 0, fact.wager)
    found: dict[tuple[int, int, str], list[Finding]] = {}
    for f in findings:
        if str(f.code).startswith("BET_"):
            for key in {placed[e] for e in f.events if e in placed}:
                found.setdefault(key, []).append(f)
    return {
        key: tuple(dict.fromkeys(str(f.code) for f in sorted(fs, key=lambda f: -f.severity.rank)))
        for key, fs in found.items()
    }


def _wager_view(
    w: WagerRecord,
    judged: Finding | None,
    split_hands: set[tuple[int, int]],
    bet_codes: Mapping[tuple[int, int, str], tuple[str, ...]] | None = None,
) -> WagerView:
    actual = " + ".join(m for m in (money_str(a) for a in w.actual) if m is not None) or None
    if judged is not None:
        verdict: str | None = str(judged.code)
    elif w.expected is None:
        verdict = None  # the round is not judged (still open at the end of the data)
    else:
        verdict = "ok"
    extra = w.stake - w.base_stake
    return WagerView(
        box=w.box,
        hand=w.hand,
        spot=w.spot,
        kind=w.kind,
        player=w.player,
        stake=money_str(w.stake) or "0",
        base_stake=money_str(w.base_stake) or "0",
        double_stake=money_str(extra) if extra else None,
        from_split=w.kind == "main" and (w.box, w.hand) in split_hands,
        expected=money_str(w.expected),
        actual=actual,
        settled=money_str(sum(w.actual, Decimal(0))) if w.actual else None,
        verdict=verdict,
        verdict_severity=str(judged.severity) if judged is not None else None,
        impact=money_str(judged.impact) if judged is not None else None,
        ok=verdict == "ok",
        note=w.outcome or None,
        side_bet=w.side_bet,
        line=w.line,
        ratio=to_one(w.ratio),
        bet_codes=(bet_codes or {}).get((w.box, w.spot, w.kind), ()),
    )


def to_one(ratio: str | None) -> str | None:
    """A pay-table ratio as a table card says it: ``"9/1"`` -> ``"9 to 1"``, ``"5/2"`` ->
    ``"5 to 2"`` (a pay is net, "to 1"); an unreadable one as written."""
    if ratio is None:
        return None
    num, sep, den = ratio.partition("/")
    return f"{num} to {den}" if sep and num and den else ratio


def mask_player(player: str | None) -> str | None:
    """A player id as a static report shows it by default: its last two characters only
    (``"P-1881"`` -> ``"••••81"``), so pages that travel by e-mail name nobody, while
    two players of one round still look different. ``--show-players`` shows ids.
    (The one masking, :func:`audit.reports.masking.mask_id`, for an id that may be None.)"""
    from audit.reports.masking import mask_id

    return None if player is None else mask_id(player)


def masked(ctx: HandContext, bankers: Iterable[str] = ()) -> HandContext:
    """``ctx`` with every player id masked (:func:`mask_player`), in the wagers and in the
    engine's words (a bet's description names its player); and the ``bankers``' ids (the
    dealer ids that are players', :func:`audit.store.lookup.player_dealers`) wherever they
    stand: the dealer on duty, a dealer change, a message (issue 30, point 8)."""
    from audit.reports.masking import hide_ids

    ids = sorted({w.player for w in ctx.wagers if w.player}, key=len, reverse=True)

    masks = [(pid, mask_player(pid) or "") for pid in ids]

    def hide(text: str) -> str:
        for pid, mask in masks:
            if pid in text:
                text = text.replace(pid, mask)
        return text

    # A copy only of what changes: most steps name no player, and dataclasses.replace
    # of every step was a fifth of a hand page's context.
    ctx = dataclasses.replace(
        ctx,
        wagers=tuple(
            w if w.player is None else dataclasses.replace(w, player=mask_player(w.player))
            for w in ctx.wagers
        ),
        steps=tuple(
            st
            if (d := hide(st.description)) == st.description
            else dataclasses.replace(st, description=d)
            for st in ctx.steps
        ),
        findings=tuple(
            f if (m := hide(f.message)) == f.message else dataclasses.replace(f, message=m)
            for f in ctx.findings
        ),
        players_masked=True,
    )
    return hide_ids(ctx, bankers)


def _story(
    replay: ShoeReplay,
    rnd: RoundReplay,
    earlier: Sequence[RoundReplay],
    rounds_before: int,
    first_seq: int,
    by_id: dict[str, AnyEvent],
    events: Sequence[AnyEvent],
    where: Sources,
    facts_of: Callable[[str], StepFacts | None],
) -> ShoeStory:
    before = [st for st in replay.shoe_steps if st.seq < first_seq]
    lines = []
    for st in before:
        ev = by_id.get(st.event_id)
        shown: tuple[str, ...] = ()
        if isinstance(ev, Burn):
            shown = tuple(ev.cards)
        elif st.type == "burn":
            shown = st.cards
        lines.append(
            StoryLine(
                event_id=st.event_id,
                seq=st.seq,
                # a shoe event's model, or a round event's facts: one of an earlier
                # round that came after that round was over (LOG_INCOMPLETE)
                ts=fact.ts if (fact := facts_of(st.event_id)) is not None else None,
                source=_source(where.get(st.event_id)),
                type=st.type,
                text=st.description,
                cards=tuple(
                    card_view(c, face_up=not bool(getattr(ev, "face_down", True))) for c in shown
                ),
            )
        )
    opened = next((e for e in events if isinstance(e, ShoeOpen)), None)
    dealer = opened.dealer if opened is not None else None
    for e in events:
        if isinstance(e, DealerChange) and e.seq < first_seq:
            dealer = e.dealer
    if rnd.banker is not None:
        dealer = rnd.banker
    burned = sum(
        (ev.n_cards if isinstance(ev, Burn) else len(st.cards))
        for st in before
        if st.type == "burn"
        for ev in (by_id.get(st.event_id),)
    )
    if not by_id:
        burned = max(burned, replay.burned)
    first_pos = next((st.pos for st in rnd.steps if st.pos is not None), None)
    if first_pos is not None:
        cards_before = first_pos - 1
    elif len(earlier) == rounds_before:
        cards_before = burned + sum(1 for r in earlier for st in r.steps if st.type == "card")
    else:  # earlier rounds passed over: the engine's count of the cards gone before it
        cards_before = sum(rnd.ranks_before_round or ()) + rnd.unseen_before_round
    return ShoeStory(
        decks=opened.decks if opened is not None else replay.decks,
        dealer=dealer,
        currency=opened.currency if opened is not None else None,
        min_bet=money_str(opened.min_bet) if opened is not None else None,
        max_bet=money_str(opened.max_bet) if opened is not None else None,
        opened_at=opened.ts.isoformat() if opened is not None else None,
        lines=tuple(lines),
        cut_card_position=replay.cut_card_position,
        burned=burned,
        rounds_before=rounds_before,
        cards_before=cards_before,
    )


def render_hand_context(
    ctx: HandContext,
    fmt: HandFormat = "text",
    *,
    color: bool = False,
    templates_dir: Path | None = None,
    ascii_only: bool = False,
) -> str:
    """Render a hand context as ``text`` (terminal), ``html`` (one file) or ``json``.

    ``text`` uses suit symbols and ANSI colour when ``color``; it keeps the
    regulation's words as written («più») unless ``ascii_only`` (an output that
    cannot carry them); ``html`` is one self-contained file (inline CSS, cards
    drawn as inline SVG); ``json`` is the context itself.
    """
    if fmt == "json":
        return to_json(ctx)
    if fmt == "html":
        return render("hand/hand.html.j2", "html", ctx, templates_dir=templates_dir)
    if fmt == "text":
        return render(
            "hand/hand.txt.j2",
            "text",
            ctx,
            color=color,
            templates_dir=templates_dir,
            ascii_only=ascii_only,
        )
    raise ValueError(f"unknown hand format {fmt!r}: expected 'text', 'html' or 'json'")


def nearest_rounds(wanted: int, existing: list[int], k: int = 3) -> list[int]:
    """The ``k`` existing round numbers closest to ``wanted``, ascending."""
    return sorted(sorted(existing, key=lambda r: (abs(r - wanted), r))[:k])


def no_such_round(table: str, shoe: str, round_no: int, existing: list[int]) -> NotFoundError:
    """The error for a round the shoe does not have, naming the nearest ones."""
    if not existing:
        return NotFoundError(
            f"shoe {shoe!r} at table {table!r} has no rounds (asked for {round_no})"
        )
    near = ", ".join(str(r) for r in nearest_rounds(round_no, existing))
    return NotFoundError(
        f"no round {round_no} in shoe {shoe!r} at table {table!r}: it has rounds "
        f"{min(existing)} to {max(existing)} ({len(existing)} in all); nearest: {near}"
    )


def render_hand(
    replay: ShoeReplay,
    round_no: int,
    fmt: HandFormat = "text",
    *,
    color: bool = False,
    templates_dir: Path | None = None,
    profile: Profile | None = None,
    events: Sequence[AnyEvent] | None = None,
    sources: Sources | None = None,
    ascii_only: bool = False,
) -> str:
    """Replay-to-page in one call: :func:`build_hand_context` then :func:`render_hand_context`.

    ``text`` uses suit symbols and ANSI colour when ``color``, and folds to
    ASCII only with ``ascii_only``; ``html`` is one self-contained file with the
    cards drawn as inline SVG; ``json`` is the :class:`HandContext` as JSON.
    """
    ctx = build_hand_context(replay, round_no, profile, events=events, sources=sources)
    return render_hand_context(
        ctx, fmt, color=color, templates_dir=templates_dir, ascii_only=ascii_only
    )
