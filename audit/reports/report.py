"""The compliance report: a span of gaming days, aggregated in DuckDB SQL.

:func:`build_report_context` runs a fixed set of aggregate queries over the
store (never a Python loop over events) through :class:`Sources`; each part of
the report has its own builder (``summary``, ``flagged_rounds``, ``groups``...)
so that a page of the web app can build just the part it shows.
:func:`render_report` writes the folder: the report, the full list of flagged
rounds, and the hand pages of :attr:`ReportContext.hand_pages` (at scale the
batch layer writes hand pages itself: :mod:`audit.batch.pages`).

Only :mod:`audit.reports.sources` knows the store's table and column names.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from audit import __version__
from audit.errors import AuditError
from audit.findings import Code, Severity, money_str
from audit.profiles import ProfileRegistry, load_registry
from audit.reports.context import (
    Chart,
    CountRow,
    Coverage,
    DataQuality,
    DismissedRow,
    FindingView,
    FlaggedPage,
    FlaggedRound,
    GroupMoney,
    GroupRow,
    InputFileRow,
    MoneyTotal,
    OpenShoeRow,
    OutsideRow,
    PendingShoe,
    ProfileView,
    QuarantineRow,
    ReportContext,
    Reproducibility,
    RoundLink,
    Segment,
    ShoeIntegrityRow,
    Summary,
)
from audit.reports.folder import Staging, Swap, report_folder
from audit.reports.paths import FLAGGED as FLAGGED_PAGE
from audit.reports.paths import hand_href, safe_name
from audit.reports.side_bets import side_bet_totals
from audit.reports.sources import (
    DISMISSED,
    FINDINGS,
    FLAGGED,
    FLAGGED_ORDER,
    ROUNDS,
    SHOES,
    Sources,
)
from audit.reports.templating import render

if TYPE_CHECKING:
    from audit.review import Review
    from audit.store import Store

__all__ = [
    "DEALER_RULE",
    "NothingAuditedError",
    "build_flagged_page",
    "build_report_context",
    "hand_href",
    "render_report",
    "safe_name",
]

ReportFormat = Literal["html", "md"]


def check_format(fmt: str) -> None:
    """Refuse a report format other than ``html`` or ``md`` (before anything is written)."""
    if fmt not in ("html", "md"):
        raise ValueError(f"unknown report format {fmt!r}: expected 'html' or 'md'")


INTEGRITY_CODES = (
    Code.SHOE_CARD_EXCESS,
    Code.SHOE_POSITION_GAP,
    Code.SHOE_ORDER_MISMATCH,
    Code.SHOE_RECONCILIATION,
)
SEVERITIES = (Severity.CRITICAL, Severity.MAJOR, Severity.MINOR, Severity.INFO)
FIRST_SCREEN = 20
"""Flagged rounds on the report's first screen; the rest is one click away."""
CHART_ROWS = 20
"""Tables or dealers a chart draws (most findings first); the full table has every one."""

DEALER_RULE = (
    "Each round is credited to the dealer in charge when it opened (the latest shoe_open "
    "or dealer_change before it); a finding goes with its round, and a finding without a "
    "round to the dealer who opened the shoe."
)


class NothingAuditedError(AuditError):
    """No round of the selected gaming days was audited (cli.md: ``report`` exits 1)."""


def build_report_context(
    store: Store,
    gaming_days: Sequence[dt.date | str],
    *,
    registry: ProfileRegistry | None = None,
    generated_at: str | None = None,
    show_players: bool = False,
    with_pages: bool = False,
    require_rounds: bool = False,
    reviews: Mapping[str, Review] | None = None,
    src: Sources | None = None,
) -> ReportContext:
    """Aggregate the store's findings, shoes, rounds and inputs for ``gaming_days``.

    Every figure is computed in DuckDB SQL (:mod:`audit.reports.sources`).
    Rounds, findings and money are credited to one dealer per round
    (:data:`DEALER_RULE`). ``with_pages`` links every flagged round of a
    replayed shoe to its hand page (:func:`audit.reports.paths.hand_href`);
    the caller writes those pages. ``registry`` is the profile registry
    (default: :func:`audit.profiles.load_registry`). ``generated_at`` is
    printed in the report; leave it None for byte-identical output from the
    same input. ``require_rounds`` raises :class:`NothingAuditedError` when
    no round of those days was audited. ``reviews`` (finding id -> its standing
    review, :mod:`audit.review`) takes dismissed findings out of every count and
    total and lists them apart (issue 12). ``src`` is the :class:`Sources` of those
    days, built with those reviews, to read instead of building them anew.
    """
    days = sorted({d if isinstance(d, dt.date) else dt.date.fromisoformat(d) for d in gaming_days})
    profiles = registry or load_registry()
    with _sources(store, days, profiles, reviews, src) as src:
        if require_rounds:
            check_audited(src, days)
        ctx = _build(src, days, profiles, generated_at, show_players, with_pages)
        return dataclasses.replace(ctx, dismissed=dismissed(src, profiles, reviews, with_pages))


def report_sources(
    store: Store,
    days: Sequence[dt.date],
    profiles: ProfileRegistry,
    reviews: Mapping[str, Review] | None,
) -> Sources:
    """The :class:`Sources` a report of ``days`` reads (close it, or use it in ``with``)."""
    from audit.engine import ENGINE_VERSION

    return Sources(
        store.con,
        days,
        engine_version=ENGINE_VERSION,
        profile_digests={p.id: p.digest for p in profiles.all()},
        reviews={fid: str(r.state) for fid, r in (reviews or {}).items()},
    )


@contextmanager
def _sources(
    store: Store,
    days: Sequence[dt.date],
    profiles: ProfileRegistry,
    reviews: Mapping[str, Review] | None,
    given: Sources | None,
) -> Iterator[Sources]:
    if given is not None:
        yield given
        return
    with report_sources(store, days, profiles, reviews) as src:
        yield src


def check_audited(src: Sources, days: Sequence[dt.date]) -> None:
    """Raise :class:`NothingAuditedError` when the period has no audited round."""
    rounds, shoes, pending = src.one(
        f"""SELECT (SELECT count(*) FROM {ROUNDS}), count(*),
                   count(*) FILTER (WHERE audit_state IN ('not_audited', 'failed'))
            FROM {SHOES}"""
    )
    if rounds:
        return
    label = ", ".join(d.isoformat() for d in days) if len(days) <= 3 else _period(days)
    if not shoes:
        why = "the database holds no shoe of that day" if len(days) == 1 else "no shoes"
        raise NothingAuditedError(f"nothing audited for gaming day(s) {label}: {why}")
    if pending:
        raise NothingAuditedError(
            f"nothing audited for gaming day(s) {label}: {pending:,} of its {shoes:,} shoes "
            "are not yet audited (run `shoe-audit run`)"
        )
    raise NothingAuditedError(
        f"nothing audited for gaming day(s) {label}: its {shoes:,} shoes hold no replayed round"
    )


def _period(days: Sequence[dt.date]) -> str:
    if not days:
        return "-"
    return days[0].isoformat() if len(days) == 1 else f"{days[0]} to {days[-1]}"


def _build(
    src: Sources,
    days: list[dt.date],
    profiles: ProfileRegistry,
    generated_at: str | None,
    show_players: bool,
    with_pages: bool,
) -> ReportContext:
    flagged, flagged_total = flagged_rounds(src, profiles, FIRST_SCREEN, with_pages)
    outside, outside_total = outside_findings(src, profiles, FIRST_SCREEN)
    by_day = groups(src, "gaming_day", keys=[d.isoformat() for d in days])
    by_table = groups(src, "table_id")
    by_dealer = groups(src, "dealer")
    plural = "s" if len(days) > 1 else ""
    return ReportContext(
        title=f"Compliance report, gaming day{plural} {_period(days)}",
        gaming_days=tuple(d.isoformat() for d in days),
        generated_at=generated_at,
        dealer_rule=DEALER_RULE,
        summary=dataclasses.replace(summary(src), side_bets=side_bet_totals(src, profiles)),
        flagged=flagged,
        flagged_more=flagged_total - len(flagged),
        flagged_href=FLAGGED_PAGE,
        outside=outside,
        outside_more=outside_total - len(outside),
        by_severity=by_severity(src),
        by_code=by_code(src),
        by_day=by_day,
        by_table=by_table,
        by_dealer=by_dealer,
        day_chart=chart("Findings and money paid wrongly per gaming day", by_day, None),
        table_chart=chart("Per table", by_table, "tables", limit=CHART_ROWS),
        dealer_chart=chart("Per dealer", by_dealer, "dealers", limit=CHART_ROWS),
        shoe_integrity=shoe_integrity(src, with_pages),
        data_quality=data_quality(src),
        coverage=coverage(src, days),
        open_shoes=open_shoes(src),
        reproducibility=reproducibility(src, profiles),
        show_players=show_players,
    )


# --------------------------------------------------------------------------- the parts


def summary(src: Sources) -> Summary:
    """The headline figures, money per currency."""
    tables, shoes, rounds, wagers = src.one(
        f"""SELECT count(DISTINCT table_id) FILTER (WHERE replayed),
                   count(*) FILTER (WHERE replayed), coalesce(sum(rounds), 0),
                   coalesce(sum(wagers), 0) FROM {SHOES}"""
    )
    findings, critical = src.one(
        f"SELECT count(*), count(*) FILTER (WHERE severity = 'critical') FROM {FINDINGS}"
    )
    (flagged,) = src.one(f"SELECT count(*) FROM {FLAGGED}")
    (dismissed_n,) = src.one(f"SELECT count(*) FROM {DISMISSED}")
    rows = src.all(
        f"""
        WITH h AS (SELECT currency, sum(handle) AS handle FROM {SHOES} GROUP BY 1),
             m AS (SELECT currency,
                          sum(impact) FILTER (WHERE impact > 0) AS over,
                          -sum(impact) FILTER (WHERE impact < 0) AS under,
                          sum(impact) AS net, count(impact) AS n
                   FROM {FINDINGS} GROUP BY 1)
        SELECT coalesce(h.currency, m.currency), m.over, m.under, m.net, h.handle, m.n
        FROM h FULL JOIN m ON h.currency IS NOT DISTINCT FROM m.currency
        ORDER BY 1 NULLS LAST
        """
    )
    money = tuple(
        MoneyTotal(
            currency=c,
            overpaid=_money(o),
            underpaid=_money(u),
            net=_money(n),
            handle=_money(h),
            priced=int(p or 0),
        )
        for c, o, u, n, h, p in rows
    ) or (MoneyTotal(None, "0", "0", "0", "0", 0),)
    return Summary(
        tables=int(tables),
        shoes=int(shoes),
        rounds=int(rounds),
        wagers=int(wagers),
        findings=int(findings),
        critical=int(critical),
        flagged_rounds=int(flagged),
        money=money,
        dismissed=int(dismissed_n),
    )


def flagged_rounds(
    src: Sources,
    profiles: ProfileRegistry,
    limit: int | None = None,
    with_pages: bool = False,
) -> tuple[tuple[FlaggedRound, ...], int]:
    """The flagged rounds in the report's ranking (the first ``limit``; all when None),
    and how many there are in all (issue 10, points 1 and 2)."""
    (total,) = src.one(f"SELECT count(*) FROM {FLAGGED}")
    cap = "" if limit is None else f"LIMIT {int(limit)}"
    rows = src.all(
        f"""
        WITH ranked AS (
               SELECT *, row_number() OVER (ORDER BY {FLAGGED_ORDER}) AS rank
               FROM {FLAGGED} ORDER BY rank {cap}),
             head AS (
               SELECT f.table_id, f.shoe, f.round,
                      arg_max(f.message, (f.sev_rank, abs(coalesce(f.impact, 0)), -f.box))
                        AS headline
               FROM {FINDINGS} f SEMI JOIN ranked r USING (table_id, shoe, round)
               GROUP BY ALL)
        SELECT r.table_id, r.shoe, r.round, r.gaming_day,
               strftime(r.opened_local, '%Y-%m-%d %H:%M:%S'), r.utc_offset_min, r.dealer,
               r.currency, r.findings, r.worst_severity, r.codes, h.headline, r.overpaid,
               r.underpaid, r.net, r.moved, r.replayed, r.reviews
        FROM ranked r JOIN head h USING (table_id, shoe, round)
        ORDER BY r.rank
        """
    )
    out = tuple(
        FlaggedRound(
            rank=i,
            table=t,
            shoe=s,
            round=int(r),
            gaming_day=_iso(day),
            opened_at=_local(opened, offset),
            dealer=dealer,
            currency=cur,
            findings=int(n),
            worst_severity=str(worst),
            codes=tuple(codes),
            headline=str(headline),
            overpaid=_money(over),
            underpaid=_money(under),
            net=_money(net),
            moved=_money(moved),
            hand_href=hand_href(t, s, r) if (with_pages and replayed) else None,
            reviews=tuple(reviews),
        )
        for i, (
            t,
            s,
            r,
            day,
            opened,
            offset,
            dealer,
            cur,
            n,
            worst,
            codes,
            headline,
            over,
            under,
            net,
            moved,
            replayed,
            reviews,
        ) in enumerate(rows, start=1)
    )
    return out, int(total)


def outside_findings(
    src: Sources, profiles: ProfileRegistry, limit: int | None = None
) -> tuple[tuple[OutsideRow, ...], int]:
    """Findings not tied to a round (shoe-level, or raised reading a file), most severe
    first: the first ``limit`` (all when None) and how many in all."""
    (total,) = src.one(f"SELECT count(*) FROM {FINDINGS} WHERE round IS NULL")
    cap = "" if limit is None else f"LIMIT {int(limit)}"
    rows = src.all(
        f"""
        SELECT f.code, f.severity, f.message, f.table_id, f.shoe, f.round, f.box, f.hand,
               f.spot, f.expected, f.actual, f.impact, f.rule, f.events, f.source,
               f.dealer, f.gaming_day, s.profile, f.id, f.review
        FROM {FINDINGS} f LEFT JOIN {SHOES} s USING (table_id, shoe)
        WHERE f.round IS NULL
        ORDER BY f.sev_rank DESC, f.gaming_day, f.table_id NULLS FIRST, f.shoe NULLS FIRST,
                 f.code, f.source NULLS FIRST, f.message
        {cap}
        """
    )
    return tuple(
        OutsideRow(
            finding=finding_view(r[:15], profiles.get(r[17]) if r[17] in profiles else None),
            dealer=r[15],
            gaming_day=_iso(r[16]),
            finding_id=r[18],
            review=r[19],
        )
        for r in rows
    ), int(total)


def by_severity(src: Sources) -> tuple[CountRow, ...]:
    """Findings by severity, most severe first, every severity even at 0."""
    counts = dict(src.all(f"SELECT severity, count(*) FROM {FINDINGS} GROUP BY 1"))
    largest = max(counts.values(), default=0)
    return tuple(
        CountRow(str(s), str(s), counts.get(str(s), 0), _pct(counts.get(str(s), 0), largest))
        for s in SEVERITIES
    )


def by_code(src: Sources) -> tuple[CountRow, ...]:
    """Every finding code found, most frequent first (issue 10, point 4: no cut), with how
    many of each a review dismissed (issue 12: the false-positive rate)."""
    rows = src.all(
        f"""WITH c AS (SELECT code, count(*) AS n FROM {FINDINGS} GROUP BY 1),
                 d AS (SELECT code, count(*) AS n FROM {DISMISSED} GROUP BY 1)
            SELECT code, coalesce(c.n, 0) AS n, coalesce(d.n, 0)
            FROM c FULL JOIN d USING (code) ORDER BY n DESC, code"""
    )
    largest = max((n for _, n, _ in rows), default=0)
    return tuple(
        CountRow(
            c,
            _severity_of(c),
            int(n),
            _pct(n, largest),
            dismissed=int(d),
            dismissed_share=f"{Decimal(100 * d) / Decimal(n + d):.1f}%" if d else None,
        )
        for c, n, d in rows
    )


def dismissed(
    src: Sources,
    profiles: ProfileRegistry,
    reviews: Mapping[str, Review] | None,
    with_pages: bool = False,
) -> tuple[DismissedRow, ...]:
    """The findings a review dismissed, with who dismissed them and why (issue 12)."""
    rows = src.all(
        f"""
        SELECT f.code, f.severity, f.message, f.table_id, f.shoe, f.round, f.box, f.hand,
               f.spot, f.expected, f.actual, f.impact, f.rule, f.events, f.source,
               f.dealer, f.gaming_day, s.profile, f.id, s.replayed
        FROM {DISMISSED} f LEFT JOIN {SHOES} s USING (table_id, shoe)
        ORDER BY f.gaming_day, f.table_id NULLS FIRST, f.shoe NULLS FIRST, f.round NULLS FIRST,
                 f.code, f.source NULLS FIRST, f.message
        """
    )
    out = []
    for r in rows:
        review = (reviews or {}).get(r[18])
        view = finding_view(r[:15], profiles.get(r[17]) if r[17] in profiles else None)
        out.append(
            DismissedRow(
                finding=view,
                finding_id=r[18],
                dealer=r[15],
                gaming_day=_iso(r[16]),
                by=review.signers if review is not None else (),
                note=review.note if review is not None else "",
                at=review.at if review is not None else "",
                hand_href=(
                    hand_href(r[3], r[4], r[5])
                    if (with_pages and r[19] and r[5] is not None)
                    else None
                ),
            )
        )
    return tuple(out)


_GROUP_KEYS = {
    "table_id": f"SELECT table_id AS key FROM {SHOES} UNION SELECT table_id FROM {FINDINGS}",
    "dealer": f"SELECT dealer AS key FROM {ROUNDS} UNION SELECT dealer FROM {FINDINGS}",
    "gaming_day": f"SELECT gaming_day AS key FROM {SHOES} UNION SELECT gaming_day FROM {FINDINGS}",
}


_SEV_COUNTS = ", ".join(f"count(*) FILTER (WHERE severity = '{s}') AS s_{s}" for s in SEVERITIES)


def groups(src: Sources, key: str, keys: Iterable[str] | None = None) -> tuple[GroupRow, ...]:
    """The figures of every gaming day, table or dealer (``key``: ``gaming_day``,
    ``table_id`` or ``dealer``), by key; ``keys`` adds groups with nothing in them."""
    rows = src.all(
        f"""
        WITH k AS ({_GROUP_KEYS[key]}),
             r AS (SELECT {key} AS key, count(*) AS rounds FROM {ROUNDS} GROUP BY 1),
             f AS (
               SELECT {key} AS key, count(*) AS n,
                      count(*) FILTER (WHERE round IS NOT NULL) AS rn,
                      count(*) FILTER (WHERE round IS NOT NULL AND severity = 'critical') AS rc,
                      count(*) FILTER (WHERE severity = 'critical') AS c,
                      {_SEV_COUNTS}
               FROM {FINDINGS} GROUP BY 1),
             fl AS (SELECT {key} AS key, count(*) AS flagged FROM {FLAGGED} GROUP BY 1)
        SELECT DISTINCT CAST(k.key AS VARCHAR), coalesce(r.rounds, 0), coalesce(f.n, 0),
               coalesce(f.rn, 0), coalesce(f.rc, 0), coalesce(f.c, 0), coalesce(fl.flagged, 0),
               {", ".join(f"coalesce(f.s_{s}, 0)" for s in SEVERITIES)}
        FROM k LEFT JOIN r ON k.key IS NOT DISTINCT FROM r.key
               LEFT JOIN f ON k.key IS NOT DISTINCT FROM f.key
               LEFT JOIN fl ON k.key IS NOT DISTINCT FROM fl.key
        ORDER BY 1 NULLS LAST
        """
    )
    money: dict[str | None, list[tuple[str | None, Decimal, Decimal, Decimal]]] = {}
    for k, cur, over, under, net in src.all(
        f"""SELECT CAST({key} AS VARCHAR), currency,
                   coalesce(sum(impact) FILTER (WHERE impact > 0), 0),
                   coalesce(-sum(impact) FILTER (WHERE impact < 0), 0),
                   sum(impact)
            FROM {FINDINGS} WHERE impact IS NOT NULL GROUP BY ALL ORDER BY 2 NULLS LAST"""
    ):
        money.setdefault(k, []).append((cur, over, under, net))
    largest_bar = max((r[2] for r in rows), default=0)
    largest_money: dict[str | None, Decimal] = {}
    for entries in money.values():
        for cur, over, under, _ in entries:
            largest_money[cur] = max(largest_money.get(cur, Decimal(0)), over, under)
    seen = {r[0] for r in rows}
    extra = [(k, 0, 0, 0, 0, 0, 0, *(0 for _ in SEVERITIES)) for k in keys or () if k not in seen]
    out = []
    for r in sorted([*rows, *extra], key=lambda r: (r[0] is None, r[0] or "")):
        k, rounds, n, rn, rc, c, flagged = r[:7]
        sev = r[7:]
        out.append(
            GroupRow(
                key=k if k is not None else "?",
                rounds=int(rounds),
                findings=int(n),
                round_findings=int(rn),
                critical=int(c),
                flagged_rounds=int(flagged),
                per_1000=_per_1000(int(rn), int(rounds)),
                critical_per_1000=_per_1000(int(rc), int(rounds)),
                segments=tuple(
                    Segment(str(s), int(v), _pct(int(v), largest_bar))
                    for s, v in zip(SEVERITIES, sev, strict=True)
                    if v
                ),
                money=tuple(
                    GroupMoney(
                        currency=cur,
                        overpaid=_money(over),
                        underpaid=_money(under),
                        net=_money(net),
                        over_pct=_pct(over, largest_money[cur]),
                        under_pct=_pct(under, largest_money[cur]),
                    )
                    for cur, over, under, net in money.get(k, ())
                ),
            )
        )
    return tuple(out)


def chart(
    title: str, rows: Sequence[GroupRow], anchor: str | None, limit: int | None = None
) -> Chart:
    """A chart of ``rows``: all of them in order (the time series, ``limit`` None), or
    the ``limit`` with the most findings, then the most money moved."""
    chosen = list(rows)
    if limit is not None:
        chosen = sorted(
            (r for r in rows if r.findings),
            key=lambda r: (
                -r.findings,
                -sum(Decimal(m.overpaid) + Decimal(m.underpaid) for m in r.money),
                r.key,
            ),
        )[:limit]
    currencies = sorted(
        {m.currency for r in rows for m in r.money}, key=lambda c: (c is None, c or "")
    )
    more = len(rows) - len(chosen)
    return Chart(
        title=title,
        rows=tuple(chosen),
        more=more,
        more_href=f"#{anchor}" if more and anchor else None,
        currencies=tuple(currencies),
    )


def shoe_integrity(src: Sources, with_pages: bool = False) -> tuple[ShoeIntegrityRow, ...]:
    """Shoes with integrity findings, every finding's message, dealers as attributed."""
    rows = src.all(
        f"""
        SELECT f.table_id, f.shoe, s.gaming_day,
               list(DISTINCT f.dealer ORDER BY f.dealer) FILTER (WHERE f.dealer IS NOT NULL),
               list(DISTINCT f.code ORDER BY f.code), count(*),
               list(f.message ORDER BY f.round NULLS FIRST, f.message),
               list(DISTINCT f.round ORDER BY f.round) FILTER (WHERE f.round IS NOT NULL),
               bool_or(s.replayed)
        FROM {FINDINGS} f JOIN {SHOES} s USING (table_id, shoe)
        WHERE list_contains($codes, f.code)
        GROUP BY f.table_id, f.shoe, s.gaming_day ORDER BY 1, 2
        """,
        codes=[str(c) for c in INTEGRITY_CODES],
    )
    return tuple(
        ShoeIntegrityRow(
            table=r[0],
            shoe=r[1],
            gaming_day=r[2].isoformat(),
            dealers=tuple(r[3] or ()),
            codes=tuple(r[4]),
            findings=int(r[5]),
            messages=tuple(r[6]),
            rounds=tuple(
                RoundLink(int(n), 0, hand_href(r[0], r[1], n) if (with_pages and r[8]) else None)
                for n in (r[7] or ())
            ),
        )
        for r in rows
    )


def data_quality(src: Sources) -> DataQuality:
    """Counts of the log findings, and every quarantined line."""
    counts = dict(
        src.all(f"SELECT code, count(*) FROM {FINDINGS} WHERE code LIKE 'LOG_%' GROUP BY 1")
    )
    n, lines = src.quarantine(None)
    return DataQuality(
        quarantined=n,
        quarantine=tuple(QuarantineRow(source=s, reason=r) for s, r in lines),
        malformed=counts.get(Code.LOG_MALFORMED, 0),
        seq_gaps=counts.get(Code.LOG_SEQ_GAP, 0),
        id_conflicts=counts.get(Code.LOG_ID_CONFLICT, 0),
        unknown_profiles=counts.get(Code.LOG_UNKNOWN_PROFILE, 0),
        unknown_types=counts.get(Code.LOG_UNKNOWN_TYPE, 0),
        incomplete=counts.get(Code.LOG_INCOMPLETE, 0),
    )


def coverage(src: Sources, days: Sequence[dt.date]) -> Coverage:
    """Days with no audited round, and shoes not (or no longer) audited."""
    with_rounds = {d for (d,) in src.all(f"SELECT DISTINCT gaming_day FROM {ROUNDS}")}
    pending = tuple(
        PendingShoe(table=t, shoe=s, gaming_day=d.isoformat(), state=st, error=why)
        for t, s, d, st, why in src.all(
            f"""SELECT table_id, shoe, gaming_day, audit_state, failure FROM {SHOES}
                WHERE audit_state <> 'audited' ORDER BY gaming_day, table_id, shoe"""
        )
    )
    return Coverage(
        days_without_rounds=tuple(d.isoformat() for d in days if d not in with_rounds),
        pending=pending,
        not_audited=sum(1 for p in pending if p.state == "not_audited"),
        stale=sum(1 for p in pending if p.state == "stale"),
        failed=tuple(p for p in pending if p.state == "failed"),
    )


def open_shoes(src: Sources) -> tuple[OpenShoeRow, ...]:
    """Shoes not closed at the end of the data."""
    return tuple(
        OpenShoeRow(
            table=r[0],
            shoe=r[1],
            profile=r[2],
            dealer=r[3],
            gaming_day=r[4].isoformat(),
            rounds=int(r[5]),
            last_ts=r[6],
        )
        for r in src.all(
            f"""SELECT table_id, shoe, profile, dealer, gaming_day, rounds, last_ts
                FROM {SHOES} WHERE NOT closed ORDER BY table_id, shoe"""
        )
    )


def reproducibility(src: Sources, profiles: ProfileRegistry) -> Reproducibility:
    """Tool and engine versions, the profiles' digests and the input files' SHA-256."""
    from audit.engine import ENGINE_VERSION

    used = [p for (p,) in src.all(f"SELECT DISTINCT profile FROM {SHOES} ORDER BY 1") if p]
    return Reproducibility(
        tool_version=__version__,
        engine_version=ENGINE_VERSION,
        input_files=tuple(InputFileRow(*r) for r in src.input_files()),
        profiles=tuple(
            ProfileView(p.id, p.title, p.seed, p.digest)
            for p in (profiles.get(pid) for pid in used if pid in profiles)
        ),
        engine_versions=tuple(src.engine_versions()),
    )


def build_flagged_page(
    store: Store,
    gaming_days: Sequence[dt.date | str],
    *,
    registry: ProfileRegistry | None = None,
    with_pages: bool = False,
    report_href: str = "index.html",
    reviews: Mapping[str, Review] | None = None,
    src: Sources | None = None,
) -> FlaggedPage:
    """The full list of flagged rounds and of findings outside rounds (``flagged.html``);
    ``reviews`` and ``src`` as for :func:`build_report_context`."""
    days = sorted({d if isinstance(d, dt.date) else dt.date.fromisoformat(d) for d in gaming_days})
    profiles = registry or load_registry()
    with _sources(store, days, profiles, reviews, src) as src:
        rounds, _ = flagged_rounds(src, profiles, None, with_pages)
        outside, _ = outside_findings(src, profiles, None)
    return FlaggedPage(
        title=f"Every flagged round, gaming day{'s' if len(days) > 1 else ''} {_period(days)}",
        report_title=f"Compliance report, gaming day{'s' if len(days) > 1 else ''} {_period(days)}",
        report_href=report_href,
        rounds=rounds,
        outside=outside,
    )


# --------------------------------------------------------------------------- writing


def render_report(
    ctx: ReportContext,
    out_dir: Path,
    fmt: ReportFormat = "html",
    templates_dir: Path | None = None,
    *,
    flagged: FlaggedPage | None = None,
    pages: Callable[[Staging], Iterable[str]] | None = None,
    seal: Callable[[Staging], None] | None = None,
) -> Path:
    """Write the report folder ``out_dir`` whole and swap it in; return the report's path.

    The folder holds ``index.html`` (or ``report.md``), the full list of flagged
    rounds (``flagged.html`` or ``flagged.md``, from ``flagged``; without it, from
    the context's first screen, which then must hold every flagged round), every
    hand page of ``ctx.hand_pages``, and the hand pages ``pages(staging)`` writes
    (it returns the hrefs it wrote). A flagged round whose page was not written
    loses its link. Files are UTF-8 with ``\\n`` line ends, so the same context
    gives byte-identical files; see :mod:`audit.reports.folder` for the swap.
    ``seal(staging)``, last, may add files about the others (``SHA256SUMS``).
    """
    check_format(fmt)
    swaps: list[Swap] = []
    with report_folder(Path(out_dir), swaps) as stage:
        written = set(pages(stage)) if pages is not None else set()
        name = write_report_files(
            stage, ctx, fmt, templates_dir, flagged=flagged, written=written, seal=seal
        ).name
    return swaps[0].out / name


def write_report_files(
    stage: Staging,
    ctx: ReportContext,
    fmt: ReportFormat,
    templates_dir: Path | None = None,
    *,
    flagged: FlaggedPage | None = None,
    written: Iterable[str] = (),
    seal: Callable[[Staging], None] | None = None,
) -> Path:
    """:func:`render_report`'s files, into a folder being staged: the hand pages of
    ``ctx.hand_pages``, the report and its list of flagged rounds, linked to the hand
    pages ``written`` (hrefs) and to those; ``seal(stage)`` last. Returns the report's
    path in the staging folder."""
    check_format(fmt)
    done = set(written)
    for page in ctx.hand_pages:
        stage.write(
            page.href,
            render("hand/hand.html.j2", "html", page.context, templates_dir=templates_dir),
        )
        done.add(page.href)
    ctx = _keep_links(ctx, done)
    if ctx.books is not None:
        ctx = _with_books_pages(stage, ctx, fmt, templates_dir)
    full = flagged or FlaggedPage(
        title=ctx.title.replace("Compliance report", "Every flagged round"),
        report_title=ctx.title,
        report_href="index.html",
        rounds=ctx.flagged,
        outside=ctx.outside,
    )
    full = dataclasses.replace(
        full,
        rounds=tuple(_unlink(r, done) for r in full.rounds),
        report_href="index.html" if fmt == "html" else "report.md",
    )
    if fmt == "html":
        index = stage.write(
            "index.html",
            render("compliance/index.html.j2", "html", ctx, templates_dir=templates_dir),
        )
        stage.write(
            FLAGGED_PAGE,
            render("compliance/flagged.html.j2", "html", full, templates_dir=templates_dir),
        )
    else:
        index = stage.write(
            "report.md",
            render("compliance/report.md.j2", "md", ctx, templates_dir=templates_dir),
        )
        stage.write(
            "flagged.md",
            render("compliance/flagged.md.j2", "md", full, templates_dir=templates_dir),
        )
    if seal is not None:
        seal(stage)
    return index


def _with_books_pages(
    stage: Staging, ctx: ReportContext, fmt: ReportFormat, templates_dir: Path | None
) -> ReportContext:
    """Write the flagged periods' pages (HTML; a Markdown report lists the same tables
    and names each period instead of linking), and rank the ``ACCT_`` findings among the
    flagged rounds on the first screen."""
    from audit.reports.books import first_rows

    books = ctx.books
    if fmt == "html":
        for page in books.pages:
            stage.write(
                page.href,
                render("compliance/period.html.j2", "html", page, templates_dir=templates_dir),
            )
    books = dataclasses.replace(books, first=first_rows(ctx.flagged, books.findings))
    return dataclasses.replace(ctx, books=books)


def _unlink(r: FlaggedRound, written: set[str]) -> FlaggedRound:
    return (
        r
        if r.hand_href is None or r.hand_href in written
        else dataclasses.replace(r, hand_href=None)
    )


def _keep_links(ctx: ReportContext, written: set[str]) -> ReportContext:
    """The context with links only to hand pages that were written."""
    integ = tuple(
        dataclasses.replace(
            s,
            rounds=tuple(
                rl if rl.href is None or rl.href in written else dataclasses.replace(rl, href=None)
                for rl in s.rounds
            ),
        )
        for s in ctx.shoe_integrity
    )
    flagged = tuple(_unlink(r, written) for r in ctx.flagged)
    gone = tuple(
        d
        if d.hand_href is None or d.hand_href in written
        else dataclasses.replace(d, hand_href=None)
        for d in ctx.dismissed
    )
    return dataclasses.replace(ctx, flagged=flagged, shoe_integrity=integ, dismissed=gone)


# --------------------------------------------------------------------------- helpers


def _money(v: Any) -> str:
    return money_str(Decimal(v) if v is not None else Decimal(0)) or "0"


def _pct(n: float | Decimal, largest: float | Decimal) -> float:
    return round(100.0 * float(n) / float(largest), 1) if largest else 0.0


def _iso(d: dt.date | None) -> str | None:
    return d.isoformat() if d is not None else None


def _local(text: str | None, offset_min: int | None) -> str | None:
    if text is None:
        return None
    if offset_min is None:
        return text
    sign = "+" if offset_min >= 0 else "-"
    h, m = divmod(abs(int(offset_min)), 60)
    return f"{text} {sign}{h:02d}:{m:02d}"


def _severity_of(code: str) -> str:
    try:
        return str(Code(code).severity)
    except ValueError:
        return str(Severity.INFO)


def _per_1000(n: int, rounds: int) -> str:
    if not rounds:
        return "-"
    return f"{Decimal(n) * 1000 / Decimal(rounds):.1f}"


def finding_view(r: Sequence[Any], profile: Any) -> FindingView:
    """A finding row (code ... source, as :mod:`audit.reports.sources` selects it) as a view."""
    rule = r[12]
    src = profile.sources.get(rule) if (profile is not None and rule) else None
    return FindingView(
        code=r[0],
        severity=r[1],
        message=r[2],
        table=r[3],
        shoe=r[4],
        round=r[5],
        box=r[6],
        hand=r[7],
        spot=r[8],
        expected=r[9],
        actual=r[10],
        impact=money_str(r[11]) if r[11] is not None else None,
        rule=rule,
        rule_source=src.source if src is not None else None,
        rule_house_default=src.house_default if src is not None else False,
        events=tuple(r[13] or ()),
        source=r[14],
    )
