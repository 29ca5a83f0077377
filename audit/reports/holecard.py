"""The dealer's hole card, the peek and surrenders on a hand page (games.md §2, §3).

The engine's steps carry every card, total and verdict; what this module adds is where
each of them sits in the US deal, read from the steps' order and the profile's
``initial_deal``: which dealer card is the up card and which the hole card, that the hole
card stays face down (the table sees the up card alone) until a ``reveal`` turns it or the
players' play is over, what a ``peek`` looked at beside what the dealer announced, and
whether a surrender came before or after the peek with each spot's due (the engine's).
Nothing here judges a rule: the legality of every step stays the engine's (``allowed``,
``why_not``, the findings).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from audit.engine.dealer import dealer_natural
from audit.engine.peek import peek_due
from audit.findings import Code, Finding, money_str
from audit.reports.cards import card_view
from audit.reports.context import PeekView, SurrenderDue, SurrenderView, TotalView

if TYPE_CHECKING:
    from audit.engine import Step, WagerRecord
    from audit.profiles import Profile
    from audit.reports.hand import StepFacts

UP_CARD = "up card"
HOLE_CARD = "hole card"


class StepMarks(NamedTuple):
    """What a step shows beyond the engine's step: the dealer card's role, the total the
    table sees (the up card alone while the hole card is face down), the card a ``reveal``
    turned, a peek's view, a surrender's view. None: as the engine's step has it."""

    dealer_card: str | None = None
    total: TotalView | None = None
    card: str | None = None
    peek: PeekView | None = None
    surrender: SurrenderView | None = None


class DealMarks(NamedTuple):
    """The round's marks: by event id, and the dealer's cards' roles with the hole card's
    story for the table of the cards."""

    steps: Mapping[str, StepMarks]
    dealer_roles: tuple[str, ...]
    hole_card: str | None


NO_MARKS = DealMarks({}, (), None)


def _label(total: int, soft: bool, natural: bool) -> str:
    from audit.reports.hand import total_label

    return total_label(total, soft, natural)


def deal_marks(
    steps: Sequence[Step],
    facts_of: Callable[[str], StepFacts | None],
    profile: Profile | None,
    wagers: Sequence[WagerRecord],
    findings: Sequence[Finding],
) -> DealMarks:
    """The :class:`DealMarks` of a round's engine ``steps`` (in order).

    ``facts_of`` gives an event's logged facts (face up or down, the decision, a peek's
    announcement); ``profile`` says where the deal puts the hole card (without one, a
    face-down second dealer card is taken for it); ``wagers`` are the engine's, for a
    surrender's dues; ``findings`` the round's (where a ``DEAL_PEEK_MISSING`` says the
    peek's window closed: see :func:`_surrender_view`).
    """
    deal = profile.rules.initial_deal if profile is not None else None
    if deal is not None:
        hole_at, up_at = deal.hole_card_index, deal.upcard_index if deal.has_hole_card else None
    else:
        hole_at, up_at = 1, 0
    if hole_at is None:
        return _surrenders_only(steps, facts_of, wagers)

    marks: dict[str, StepMarks] = {}
    roles: list[str] = []
    hole_step: int | None = None
    hole_face_up = False
    turned_at: int | None = None
    up_total: TotalView | None = None
    dealer_now: tuple[str, ...] = ()
    dealer_total: tuple[int, bool] | None = None
    surrenders: list[tuple[int, Step]] = []
    for n, st in enumerate(steps, start=1):
        fact = facts_of(st.event_id)
        if st.type == "card" and st.box is None and st.target == "dealer" and st.cards:
            idx = len(st.cards) - 1
            face_up = fact.face_up if fact is not None else True
            dealer_now, dealer_total = st.cards, None
            if st.total is not None and st.soft is not None:
                dealer_total = (st.total, st.soft)
            role = ""
            if idx == up_at and face_up:
                role = UP_CARD
                if st.total is not None and st.soft is not None:
                    up_total = TotalView(
                        who="dealer",
                        box=None,
                        hand=None,
                        cards=(card_view(st.cards[idx]),),
                        total=st.total,
                        soft=st.soft,
                        label=_label(st.total, st.soft, False),
                    )
            elif (
                idx == hole_at
                and hole_step is None
                and (not face_up or (deal is not None and _in_deal(st)))
            ):
                role = HOLE_CARD
                hole_step, hole_face_up = n, face_up
                if not face_up and up_total is not None:
                    shown = (*up_total.cards, card_view(st.cards[idx], face_up=False))
                    hidden = TotalView(
                        who="dealer",
                        box=None,
                        hand=None,
                        cards=shown,
                        total=up_total.total,
                        soft=up_total.soft,
                        label=f"{up_total.label} up",
                        hole_down=True,
                    )
                    marks[st.event_id] = StepMarks(dealer_card=role, total=hidden)
            while len(roles) < idx:
                roles.append("")
            if len(roles) == idx:
                roles.append(role)
            if st.event_id not in marks and role:
                marks[st.event_id] = StepMarks(dealer_card=role)
        elif st.type == "reveal" and st.cards and hole_step is not None and turned_at is None:
            turned_at = n
            dealer_now = st.cards
            hole = st.cards[hole_at] if len(st.cards) > hole_at else None
            total = None
            if st.total is not None and st.soft is not None:
                dealer_total = (st.total, st.soft)
                total = TotalView(
                    who="dealer",
                    box=None,
                    hand=None,
                    cards=tuple(card_view(c) for c in st.cards),
                    total=st.total,
                    soft=st.soft,
                    label=_label(
                        st.total, st.soft, len(st.cards) == 2 and dealer_natural(list(st.cards))
                    ),
                )
            marks[st.event_id] = StepMarks(dealer_card=HOLE_CARD, total=total, card=hole)
        elif st.type == "peek":
            marks[st.event_id] = StepMarks(
                peek=_peek_view(
                    dealer_now,
                    dealer_total,
                    hole_at,
                    turned_at is None and not hole_face_up,
                    fact.announced if fact is not None else None,
                )
            )
        elif st.type == "action" and fact is not None and fact.decision == "surrender":
            surrenders.append((n, st))
    if surrenders:
        upcard = up_total.cards[0].code if up_total is not None else None
        due = (
            profile is not None
            and hole_step is not None
            and not hole_face_up
            and peek_due(profile.rules, upcard, True)
        )
        window = _peek_window(steps, findings) if due else None
        for n, st in surrenders:
            late_only = profile is not None and profile.rules.surrender_kind == "late"
            timing, moment = _surrender_moment(
                n, due, window, upcard, profile is not None, late_only
            )
            view = SurrenderView(st.box or 0, st.hand or 0, timing, moment, _dues(st, wagers))
            marks[st.event_id] = StepMarks(surrender=view)
    return DealMarks(marks, tuple(roles), _hole_story(hole_step, hole_face_up, turned_at))


def _in_deal(st: Step) -> bool:
    """A dealer card the engine placed in the initial deal (its step says so)."""
    return st.description.startswith("deal:")


def _peek_view(
    cards: tuple[str, ...],
    total: tuple[int, bool] | None,
    hole_at: int,
    hole_down: bool,
    announced: bool | None,
) -> PeekView:
    natural = len(cards) == 2 and dealer_natural(list(cards))
    says = _label(total[0], total[1], natural) if total is not None else "no cards"
    return PeekView(
        cards=tuple(
            card_view(c, face_up=not (hole_down and i == hole_at)) for i, c in enumerate(cards)
        ),
        says=says,
        announced=None if announced is None else ("blackjack" if announced else "no blackjack"),
        differs=announced is not None and announced != natural,
    )


def _hole_story(hole_step: int | None, face_up: bool, turned_at: int | None) -> str | None:
    if hole_step is None:
        return None
    if face_up:
        return f"dealt face up (step {hole_step})"
    if turned_at is not None:
        return f"dealt face down (step {hole_step}); turned at the reveal (step {turned_at})"
    return (
        f"dealt face down (step {hole_step}); no reveal logged: it counts as turned once "
        "the players' play was over"
    )


def _peek_window(steps: Sequence[Step], findings: Sequence[Finding]) -> tuple[int, str] | None:
    """Where a due peek's window closed (games.md §3), as (step number, what closed it): the
    first ``peek``, the first ``reveal`` that turned the hole card (in the peek's place), or
    the event that made the peek late (the engine's ``DEAL_PEEK_MISSING`` cites it); None
    when it never closed (a peek that never came, its finding citing no event)."""
    late = {e for f in findings if f.code == Code.DEAL_PEEK_MISSING for e in f.events}
    for n, st in enumerate(steps, start=1):
        if st.type == "peek":
            return n, "the peek"
        if st.type == "reveal" and st.cards:
            return n, "the hole card was turned"
        if st.event_id in late:
            return n, "the peek was due (it never came in time)"
    return None


def _surrender_moment(
    n: int,
    due: bool,
    window: tuple[int, str] | None,
    upcard: str | None,
    known: bool,
    late_only: bool = False,
) -> tuple[str | None, str]:
    """A surrender's timing and moment: ``early`` inside a due peek's window, ``late``
    after it or where no peek is due (games.md §3, *Surrender*: the engine's definitions,
    read from the order of the round's steps and its findings). Where only ``late`` is
    allowed (``late_only``), one in a window the peek never closed in time (it came late
    or never) was a late surrender in turn, as the engine reads it."""
    if not known:
        return None, "the profile is not known"
    if not due:
        return "late", f"in turn: no peek is due under {upcard or 'no up card'}"
    if window is None or n < window[0]:
        missed = window is None or window[1].endswith("(it never came in time)")
        if late_only and missed:
            return "late", "in turn: the peek came late or never"
        what = window[1] if window is not None else "any peek (none came)"
        return "early", "before " + what.replace(" (it never came in time)", "")
    return "late", f"after {window[1]}"


def _dues(st: Step, wagers: Sequence[WagerRecord]) -> tuple[SurrenderDue, ...]:
    hand = st.hand or 0
    return tuple(
        SurrenderDue(
            spot=w.spot,
            stake=money_str(w.stake) or "0",
            due=money_str(w.expected),
            why=w.outcome or None,
        )
        for w in sorted(wagers, key=lambda w: w.spot)
        if w.kind == "main" and (w.box, w.hand) == (st.box, hand)
    )


def _surrenders_only(
    steps: Sequence[Step],
    facts_of: Callable[[str], StepFacts | None],
    wagers: Sequence[WagerRecord],
) -> DealMarks:
    """A game without a hole card: only surrenders are marked (in turn: no peek)."""
    marks: dict[str, StepMarks] = {}
    for st in steps:
        fact = facts_of(st.event_id)
        if st.type == "action" and fact is not None and fact.decision == "surrender":
            view = SurrenderView(
                st.box or 0,
                st.hand or 0,
                None,
                "in turn: no hole card in this game",
                _dues(st, wagers),
            )
            marks[st.event_id] = StepMarks(surrender=view)
    return DealMarks(marks, (), None) if marks else NO_MARKS
