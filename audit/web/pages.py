"""What each page of the web app shows, read from the store (one call per page).

Each ``load_*`` function runs inside one read-only connection
(:meth:`audit.web.data.Reader.read`) and returns a plain, immutable view; the
templates in ``reports/web/`` lay them out. The hand page and the report reuse
the static report's context builders and templates (:mod:`audit.reports`):
only their links change, to the app's URLs (:mod:`audit.web.urls`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from audit.engine import ShoeContext
from audit.errors import InputError, NotFoundError
from audit.findings import Code, Finding, Severity
from audit.profiles import ProfileRegistry
from audit.reports.context import (
    FlaggedPage,
    FlaggedRound,
    HandContext,
    ReportContext,
    RoundLink,
)
from audit.reports.statistics import StatisticsSection
from audit.review import Decision, Review, ReviewState, against
from audit.store import ShoeKey, Store
from audit.store.browse import (
    SORTS,
    UNREVIEWED,
    FilterChoices,
    FindingFilter,
    FindingsPage,
    Timeline,
    filter_choices,
    findings_page,
    shoe_rounds,
    shoe_timeline,
)
from audit.web.urls import finding_url, findings_url, hand_url, report_url, shoe_url

REVIEW_FILTERS = (UNREVIEWED, *(str(s) for s in ReviewState))
MAX_PAGE = 1_000_000
"""The highest page number the list takes (beyond it a page's offset would not fit the
database's integers: a 400, not a 500)."""


# --------------------------------------------------------------------------- the list


@dataclass(frozen=True, slots=True)
class ListQuery:
    """The findings list's query string, checked (a bad value is a 400, never a 500)."""

    day: str = ""
    first: str = ""
    last: str = ""
    table: str = ""
    dealer: str = ""
    codes: tuple[str, ...] = ()
    severities: tuple[str, ...] = ()
    review: str = ""
    sort: str = "impact"
    page: int = 1

    @classmethod
    def parse(cls, params: Mapping[str, Sequence[str]]) -> ListQuery:
        def one(name: str) -> str:
            values = params.get(name) or [""]
            return values[-1].strip()

        for name in ("day", "from", "to"):
            if one(name):
                try:
                    dt.date.fromisoformat(one(name))
                except ValueError:
                    raise InputError(
                        f"{name}: a gaming day is YYYY-MM-DD, got {one(name)!r}"
                    ) from None
        codes = tuple(c for c in params.get("code", []) if c)
        for c in codes:
            if c not in Code.__members__:
                raise InputError(f"code: unknown finding code {c!r}")
        sevs = tuple(s for s in params.get("severity", []) if s)
        for s in sevs:
            if s not in {str(x) for x in Severity}:
                raise InputError(f"severity: unknown severity {s!r}")
        review = one("review")
        if review and review not in REVIEW_FILTERS:
            raise InputError(f"review: expected one of {', '.join(REVIEW_FILTERS)}, got {review!r}")
        sort = one("sort") or "impact"
        if sort not in SORTS:
            raise InputError(f"sort: expected one of {', '.join(SORTS)}, got {sort!r}")
        try:
            page = int(one("page") or 1)
        except ValueError:
            raise InputError(f"page: a number, got {one('page')[:40]!r}") from None
        if page > MAX_PAGE:
            raise InputError(f"page: a number from 1 to {MAX_PAGE:,}, got {one('page')[:40]!r}")
        return cls(
            day=one("day"),
            first=one("from"),
            last=one("to"),
            table=one("table"),
            dealer=one("dealer"),
            codes=codes,
            severities=sevs,
            review=review,
            sort=sort,
            page=max(1, page),
        )

    def params(self, **change: str | int) -> dict[str, str | Sequence[str] | None]:
        base: dict[str, str | Sequence[str] | None] = {
            "day": self.day,
            "from": self.first,
            "to": self.last,
            "table": self.table,
            "dealer": self.dealer,
            "code": list(self.codes),
            "severity": list(self.severities),
            "review": self.review,
            "sort": self.sort if self.sort != "impact" else "",
            "page": str(self.page) if self.page > 1 else "",
        }
        base.update({k: str(v) for k, v in change.items()})
        return base

    def url(self, **change: str | int) -> str:
        return findings_url(self.params(**change))

    def filter(self) -> FindingFilter:
        day = dt.date.fromisoformat(self.day) if self.day else None
        first = dt.date.fromisoformat(self.first) if self.first else day
        last = dt.date.fromisoformat(self.last) if self.last else day
        return FindingFilter(
            first_day=first,
            last_day=last,
            table=self.table or None,
            dealer=self.dealer or None,
            codes=self.codes,
            severities=self.severities,
            review=self.review or None,
        )


@dataclass(frozen=True, slots=True)
class ListRow:
    finding: Finding
    gaming_day: str | None
    dealer: str | None
    review: Review | None
    finding_href: str
    hand_href: str | None
    shoe_href: str | None


@dataclass(frozen=True, slots=True)
class FindingsList:
    query: ListQuery
    rows: tuple[ListRow, ...]
    total: int
    page: int
    pages: int
    choices: FilterChoices
    prev_href: str | None
    next_href: str | None
    sort_hrefs: tuple[tuple[str, str, bool], ...]
    """(label, href, chosen) for each order the list offers."""
    review_filters: tuple[str, ...] = REVIEW_FILTERS
    severities: tuple[str, ...] = tuple(str(s) for s in Severity)


def load_findings_list(
    store: Store,
    query: ListQuery,
    reviews: Mapping[str, Review],
    choices: FilterChoices | None = None,
) -> FindingsList:
    """One page of the list; ``choices`` (the filters' options) are read when not given."""
    choices = choices or filter_choices(store)
    states = {fid: str(r.state) for fid, r in reviews.items()}
    got: FindingsPage = findings_page(
        store, query.filter(), sort=query.sort, page=query.page, reviews=states
    )
    rows = []
    for r in got.rows:
        f = r.finding
        rev = reviews.get(f.id or "")
        rows.append(
            ListRow(
                finding=f,
                gaming_day=r.gaming_day.isoformat() if r.gaming_day else None,
                dealer=r.dealer,
                review=against(rev, f) if rev is not None else None,
                finding_href=finding_url(f.id or ""),
                hand_href=(
                    hand_url(f.table, f.shoe, f.round)
                    if f.table is not None and f.shoe is not None and f.round is not None
                    else None
                ),
                shoe_href=shoe_url(f.table, f.shoe) if f.table and f.shoe else None,
            )
        )
    labels = {"impact": "money impact", "severity": "severity", "time": "newest"}
    return FindingsList(
        query=query,
        rows=tuple(rows),
        total=got.total,
        page=got.page,
        pages=got.pages,
        choices=choices,
        prev_href=query.url(page=got.page - 1) if got.page > 1 else None,
        next_href=query.url(page=got.page + 1) if got.page < got.pages else None,
        sort_hrefs=tuple((labels[s], query.url(sort=s, page=1), s == query.sort) for s in SORTS),
    )


# --------------------------------------------------------------------------- one finding


@dataclass(frozen=True, slots=True)
class FindingPage:
    finding_id: str
    finding: Finding | None
    """As the latest run raises it; None when it is no longer raised."""
    review: Review | None
    history: tuple[Decision, ...]
    hand_href: str | None
    shoe_href: str | None


def load_finding(store: Store, finding_id: str, history: Sequence[Decision]) -> FindingPage:
    from audit.review import review_of

    found = store.all_findings(ids=[finding_id])
    f = found[0] if found else None
    if f is None and not history:
        raise NotFoundError(f"no finding with id {finding_id!r}")
    review = against(review_of(history), f) if history else None
    place = f or None
    table = place.table if place else history[-1].snapshot.table
    shoe = place.shoe if place else history[-1].snapshot.shoe
    rnd = place.round if place else history[-1].snapshot.round
    return FindingPage(
        finding_id=finding_id,
        finding=f,
        review=review,
        history=tuple(history),
        hand_href=hand_url(table, shoe, rnd) if table and shoe and rnd is not None else None,
        shoe_href=shoe_url(table, shoe) if table and shoe else None,
    )


# --------------------------------------------------------------------------- a shoe


@dataclass(frozen=True, slots=True)
class ShoePage:
    timeline: Timeline
    hand_hrefs: Mapping[int, str]
    finding_hrefs: Mapping[str, str]
    reviews: Mapping[str, Review]
    report_href: str | None


def load_shoe(store: Store, table: str, shoe: str, reviews: Mapping[str, Review]) -> ShoePage:
    tl = shoe_timeline(store, table, shoe)
    if tl is None:
        raise NotFoundError(f"no shoe {shoe!r} at table {table!r}")
    return ShoePage(
        timeline=tl,
        hand_hrefs={r.round: hand_url(table, shoe, r.round) for r in tl.rounds},
        finding_hrefs={f.id: finding_url(f.id) for f in tl.findings if f.id},
        reviews={
            f.id: against(reviews[f.id], f)
            for f in tl.findings
            if f.id is not None and f.id in reviews
        },
        report_href=report_url(tl.gaming_day) if tl.gaming_day else None,
    )


# --------------------------------------------------------------------------- a hand


@dataclass(frozen=True, slots=True)
class HandReview:
    """A stored finding of the round, with its review, for the hand page's review panel."""

    finding: Finding
    review: Review | None
    history: tuple[Decision, ...]
    finding_href: str


@dataclass(frozen=True, slots=True)
class HandPage:
    context: HandContext
    findings: tuple[HandReview, ...]
    prev_flagged: str | None
    next_flagged: str | None
    shoe_href: str


def load_hand(
    store: Store,
    registry: ProfileRegistry,
    table: str,
    shoe: str,
    round_no: int,
    *,
    show_players: bool,
    trail: Mapping[str, Sequence[Decision]],
    contexts: Mapping[ShoeKey, ShoeContext],
) -> HandPage:
    """The hand packet of one round from the engine's replay, linked into the app.

    The shoe is replayed as ``run`` replays it (:func:`audit.batch.replay_stored_shoe`:
    its profile, its cross-shoe ``contexts`` from :func:`table_contexts`), from its
    events read with their sources in one query.
    """
    from audit.batch.runner import profile_for
    from audit.engine import replay_shoe
    from audit.reports import build_hand_context
    from audit.reports.hand import masked
    from audit.review import review_of
    from audit.store.browse import shoe_events_with_sources
    from audit.store.lookup import player_dealers

    key = ShoeKey(table, shoe)
    info = store.shoe_info([key]).get(key)
    if info is None:
        raise NotFoundError(f"no shoe {shoe!r} at table {table!r}")
    events, sources = shoe_events_with_sources(store, table, shoe)
    profile = profile_for(registry, info.profile)
    replay = replay_shoe(events, profile, contexts.get(key, ShoeContext()))
    # the same replay as `run`: a test compares its findings with the stored ones
    ctx = build_hand_context(replay, round_no, profile, events=events, sources=sources)
    stored = shoe_rounds(store, table, shoe)
    flagged = [(r, n, w) for r, n, w in stored if n]

    def link(rl: RoundLink | None) -> RoundLink | None:
        return None if rl is None else dataclasses.replace(rl, href=hand_url(table, shoe, rl.round))

    ctx = dataclasses.replace(
        ctx,
        previous_round=link(ctx.previous_round),
        next_round=link(ctx.next_round),
        report_href=report_url(info.gaming_day) if info.gaming_day else None,
        shoe_flagged=tuple(RoundLink(r, n, hand_url(table, shoe, r), w) for r, n, w in flagged),
    )
    if not show_players:
        ctx = masked(ctx, player_dealers(store.con))
    mine = [f for f in store.all_findings(table=table, shoe=shoe) if f.round == round_no]
    before = [r for r, _, _ in flagged if r < round_no]
    after = [r for r, _, _ in flagged if r > round_no]
    return HandPage(
        context=ctx,
        findings=tuple(
            HandReview(
                finding=f,
                review=against(review_of(trail[f.id]), f)
                if f.id is not None and f.id in trail
                else None,
                history=tuple(trail.get(f.id or "", ())),
                finding_href=finding_url(f.id or ""),
            )
            for f in mine
        ),
        prev_flagged=hand_url(table, shoe, before[-1]) if before else None,
        next_flagged=hand_url(table, shoe, after[0]) if after else None,
        shoe_href=shoe_url(table, shoe),
    )


def table_contexts(store: Store, table: str) -> dict[ShoeKey, ShoeContext]:
    """The cross-shoe context of every shoe of one table, exactly as ``run`` computes it
    (:func:`audit.batch.shoe_contexts`: one read of the table's outline)."""
    from audit.batch.runner import shoe_contexts

    return shoe_contexts(store, [ShoeKey(table, "")])


# --------------------------------------------------------------------------- the report


def latest_day(store: Store) -> dt.date:
    from audit.batch.nightly import latest_gaming_day

    return latest_gaming_day(store)


def load_report(
    store: Store,
    registry: ProfileRegistry,
    day: dt.date,
    *,
    show_players: bool,
    reviews: Mapping[str, Review],
    statistics: StatisticsSection | None = None,
) -> ReportContext:
    """The compliance report of one gaming day, as ``report`` builds it, linked into the app
    (``statistics``: the section :func:`audit.batch.statistics.report_statistics` gives)."""
    from audit.reports import build_report_context

    ctx = build_report_context(
        store,
        [day],
        registry=registry,
        show_players=show_players,
        with_pages=True,
        require_rounds=True,
        reviews=reviews,
    )
    return dataclasses.replace(
        ctx,
        statistics=statistics,
        flagged=tuple(_flagged_link(r) for r in ctx.flagged),
        flagged_href=report_url(day, flagged=True),
        shoe_integrity=tuple(
            dataclasses.replace(
                s,
                rounds=tuple(
                    dataclasses.replace(rl, href=hand_url(s.table, s.shoe, rl.round))
                    if rl.href is not None
                    else rl
                    for rl in s.rounds
                ),
            )
            for s in ctx.shoe_integrity
        ),
        dismissed=tuple(
            dataclasses.replace(
                d, hand_href=hand_url(d.finding.table or "", d.finding.shoe or "", d.finding.round)
            )
            if d.hand_href is not None and d.finding.round is not None
            else d
            for d in ctx.dismissed
        ),
    )


def _flagged_link(r: FlaggedRound) -> FlaggedRound:
    if r.hand_href is None:
        return r
    return dataclasses.replace(r, hand_href=hand_url(r.table, r.shoe, r.round))


def load_flagged(
    store: Store, registry: ProfileRegistry, day: dt.date, reviews: Mapping[str, Review]
) -> FlaggedPage:
    from audit.reports.report import build_flagged_page

    page = build_flagged_page(
        store, [day], registry=registry, with_pages=True, reviews=reviews, report_href=""
    )
    return dataclasses.replace(
        page,
        report_href=report_url(day),
        rounds=tuple(_flagged_link(r) for r in page.rounds),
    )


# --------------------------------------------------------------------------- the trail


@dataclass(frozen=True, slots=True)
class TrailRow:
    review: Review
    finding_href: str
    hand_href: str | None


@dataclass(frozen=True, slots=True)
class TrailPage:
    rows: tuple[TrailRow, ...]
    changed: int
    gone: int
    decisions: int
    chain_ok: bool
    chain_head: str
    broken_at: int | None
    show: str


def load_trail(
    store: Store, reviews: Mapping[str, Review], show: str, chain: tuple[int, str, int | None]
) -> TrailPage:
    from audit.review.service import reviews_against_store

    every = reviews_against_store(store, reviews)
    chosen = [
        r
        for r in every
        if show == "all" or (show == "changed" and r.changed) or (show == "gone" and r.gone)
    ]
    n, head, broken = chain
    return TrailPage(
        rows=tuple(
            TrailRow(
                review=r,
                finding_href=finding_url(r.finding_id),
                hand_href=(
                    hand_url(r.snapshot.table, r.snapshot.shoe, r.snapshot.round)
                    if r.snapshot.table and r.snapshot.shoe and r.snapshot.round is not None
                    else None
                ),
            )
            for r in chosen
        ),
        changed=sum(1 for r in every if r.changed),
        gone=sum(1 for r in every if r.gone),
        decisions=n,
        chain_ok=broken is None,
        chain_head=head,
        broken_at=broken,
        show=show,
    )
