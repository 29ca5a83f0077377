"""The books in the compliance report (accounting.md "In the compliance report"): the
``ACCT_`` findings among what to look at first, the periods' tile, the Master Game Report
section by pit, and a page per flagged period.

Pure formatting: the periods (as ``run`` stored them, with their records), the ``ACCT_``
findings, the MGR rows (:func:`audit.books.mgr.mgr_rows`) and the adjustment log come in;
every verdict is the reconciliation's. :func:`books_section` builds the section,
:func:`period_page` one period's page; ``serve`` renders the same objects.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from audit.books.house import House
from audit.books.model import ZERO, Chips, Inventory, Period, SlipCopy
from audit.findings import Code, Finding, money_str
from audit.reports.paths import safe_name

_SEVERITY_RANK = {"critical": 0, "major": 1, "minor": 2, "info": 3}
DISCREPANCY_CODES = frozenset({Code.ACCT_INVENTORY_DISCREPANCY, Code.ACCT_INVENTORY_REPORTABLE})
STAT_TESTS = ("hold_drop", "payout_30d")
"""The statistics over time whose flags the periods' tile shows (accounting.md)."""


def period_href(table: str, gaming_day: dt.date | str, shift: str) -> str:
    """The relative link (and path in the report folder) of a period's page."""
    return f"periods/{safe_name(table)}/{safe_name(f'{gaming_day}-{shift}')}.html"


PERIOD_TO_REPORT = "../../"
"""From a period page back to the report folder."""


@dataclass(frozen=True, slots=True)
class AcctRow:
    """An ``ACCT_`` finding on the first screen, linked to its period's page."""

    id: str | None
    code: str
    severity: str
    table: str | None
    gaming_day: str | None
    shift: str | None
    impact: str | None
    message: str
    period_href: str | None
    review: str | None = None


@dataclass(frozen=True, slots=True)
class FirstRow:
    """One line of "Look at these first": a flagged round or an ``ACCT_`` finding."""

    kind: str
    """``round`` or ``books``."""
    item: Any


@dataclass(frozen=True, slots=True)
class PeriodsTile:
    """Periods by status, of them those differing (with an ``ACCT_`` finding), and the
    ``hold_drop`` / ``payout_30d`` flags of the statistics (whatever exist)."""

    reconciled: int
    differing: int
    pending: int
    incomplete: int
    not_audited: int
    flags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PitBlock:
    """The MGR rows of one pit (``pit`` None: tables in no pit), each gaming day's periods
    then the tables' and the pit's totals, with each period's page link."""

    pit: str | None
    rows: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """An opener that differs from the previous closer by more than ``discrepancy_report``."""

    table: str | None
    gaming_day: str | None
    shift: str | None
    expected: str | None
    actual: str | None
    impact: str | None
    regulator: bool
    period_href: str | None


@dataclass(frozen=True, slots=True)
class BooksSection:
    """The report's books: the first screen's rows, the tile, the MGR by pit, the casino's
    totals, the adjustment log, the discrepancies, the house file's SHA-256, and the pages
    of the flagged periods."""

    house_sha256: str | None
    house_path: str | None
    tile: PeriodsTile
    findings: tuple[AcctRow, ...]
    pits: tuple[PitBlock, ...]
    casino: tuple[dict[str, Any], ...]
    adjustments: tuple[dict[str, Any], ...]
    adjustment_report: str
    discrepancies: tuple[Discrepancy, ...]
    discrepancy_report: str
    discrepancy_regulator: str
    pages: tuple[PeriodPage, ...] = ()
    first: tuple[FirstRow, ...] = ()


# --------------------------------------------------------------------------- the period page


@dataclass(frozen=True, slots=True)
class DenominationRow:
    """One denomination of a session's inventories: the previous closer, the opener and
    the closer (None: no such inventory), and whether the opener differs from the
    previous closer."""

    denomination: str
    previous: int | None
    opener: int
    closer: int | None
    differs: bool


@dataclass(frozen=True, slots=True)
class SessionView:
    """A session's inventories side by side, by denomination."""

    opener_id: str
    opener_at: str
    opener_signers: str
    closer_id: str | None
    closer_at: str | None
    closer_signers: str | None
    previous_id: str | None
    rows: tuple[DenominationRow, ...]
    previous_value: str | None
    opener_value: str
    closer_value: str | None


@dataclass(frozen=True, slots=True)
class SlipView:
    """A slip with both copies and its voids."""

    key: str
    type: str
    table_copy: str | None
    table_value: str | None
    table_signers: str | None
    cage_copy: str | None
    cage_value: str | None
    cage_signers: str | None
    voids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class IdentityLine:
    """One line of the identity worked out: a label, the sum it is, and its value."""

    label: str
    formula: str
    value: str | None
    note: str = ""


@dataclass(frozen=True, slots=True)
class RoundRef:
    """A round of the period, linked to its hand page where one was written."""

    shoe: str
    round: int
    opened: str | None
    href: str | None
    findings: int


@dataclass(frozen=True, slots=True)
class PeriodPage:
    """One flagged period's page (accounting.md "In the compliance report")."""

    href: str
    title: str
    table: str
    gaming_day: str
    shift: str
    pit: str | None
    status: str
    currency: str | None
    sessions: tuple[SessionView, ...]
    slips: tuple[SlipView, ...]
    buy_ins: tuple[dict[str, Any], ...]
    counts: tuple[dict[str, Any], ...]
    rounds: tuple[RoundRef, ...]
    identity: tuple[IdentityLine, ...]
    differences: tuple[str, ...]
    adjustments: tuple[dict[str, Any], ...]
    findings: tuple[AcctRow, ...]
    report_href: str = PERIOD_TO_REPORT + "index.html"
    records_stored: bool = True
    hand_prefix: str = PERIOD_TO_REPORT
    """Put before a round's ``href`` (a hand page's path in the report folder)."""


def _m(v: Decimal | None) -> str | None:
    return money_str(v)


def _signers(signers: Iterable[Any]) -> str:
    return ", ".join(f"{s.id} ({s.role})" for s in signers) or "none"


def _local(ts: dt.datetime) -> str:
    return ts.strftime("%Y-%m-%d %H:%M:%S")


def _denominations(*lists: Chips | None) -> list[Decimal]:
    return sorted({c.denomination for cs in lists if cs is not None for c in cs.chips})


def _session_view(
    opener: Inventory, closer: Inventory | None, previous: Inventory | None
) -> SessionView:
    prev_chips = previous.chips if previous is not None else None
    rows = []
    for d in _denominations(opener.chips, closer.chips if closer else None, prev_chips):
        before = prev_chips.count_of(d) if prev_chips is not None else None
        now = opener.chips.count_of(d)
        rows.append(
            DenominationRow(
                denomination=money_str(d) or "0",
                previous=before,
                opener=now,
                closer=closer.chips.count_of(d) if closer is not None else None,
                differs=before is not None and before != now,
            )
        )
    return SessionView(
        opener_id=opener.at.id,
        opener_at=_local(opener.at.ts),
        opener_signers=_signers(opener.signers),
        closer_id=closer.at.id if closer else None,
        closer_at=_local(closer.at.ts) if closer else None,
        closer_signers=_signers(closer.signers) if closer else None,
        previous_id=previous.at.id if previous is not None else None,
        rows=tuple(rows),
        previous_value=_m(prev_chips.value) if prev_chips is not None else None,
        opener_value=_m(opener.chips.value) or "0",
        closer_value=_m(closer.chips.value) if closer else None,
    )


def _slip_views(period: Period) -> tuple[SlipView, ...]:
    by_key: dict[tuple[str, str, int], dict[str, SlipCopy]] = {}
    for s in period.slips:
        by_key.setdefault((s.type, s.series, s.slip), {}).setdefault(s.side, s)
    out = []
    for (kind, series, serial), sides in sorted(by_key.items()):
        t, c = sides.get("table"), sides.get("cage")
        voids = tuple(
            f"{v.side} copy voided ({v.at.id}): {v.reason or 'no reason given'}; "
            f"signed by {_signers(v.signers)}"
            for v in period.voids
            if (v.of, v.series, v.slip) == (kind, series, serial)
        )
        out.append(
            SlipView(
                key=f"{series}/{serial}",
                type=kind,
                table_copy=t.at.id if t else None,
                table_value=_m(t.chips.value) if t else None,
                table_signers=_signers(t.signers) if t else None,
                cage_copy=c.at.id if c else None,
                cage_value=_m(c.chips.value) if c else None,
                cage_signers=_signers(c.signers) if c else None,
                voids=voids,
            )
        )
    return tuple(out)


def identity_lines(period: Period) -> tuple[tuple[IdentityLine, ...], tuple[str, ...]]:
    """accounting.md "The identity", worked out line by line for ``period`` (as counted),
    and each difference named as that section names it."""
    f = period.figures
    r, b, d = f.hands_result, f.buy_ins, f.drop
    lines = [
        IdentityLine("opener (O)", "as counted", _m(f.opener)),
        IdentityLine("fills (F)", "slips as they count", _m(f.fills)),
        IdentityLine("credits (C)", "slips as they count", _m(f.credits)),
        IdentityLine("closer (K)", "as counted", _m(f.closer)),
        IdentityLine("buy-ins recorded (B)", "at the table", _m(b)),
        IdentityLine("drop (D)", "counted from the box", _m(d)),
        IdentityLine("hands' result (R)", "−Σ settle.amount", _m(r)),
        IdentityLine("tray win (T)", "K − O + C − F + B", _m(f.tray_win)),
        IdentityLine("accounting win (W)", "K − O + C − F + D", _m(f.win)),
    ]
    named: list[str] = []
    tr = None if f.tray_win is None else f.tray_win - r
    db = None if d is None else d - b
    wr = None if f.win is None else f.win - r
    lines.append(IdentityLine("tray variance", "T − R", _m(tr)))
    lines.append(IdentityLine("drop variance", "D − B", _m(db)))
    lines.append(IdentityLine("variance", "W − R = (T − R) + (D − B)", _m(wr)))
    if f.tray_win is None:
        named.append(
            "The tray is not bounded (a session without its closer, or records outside every "
            "session): T and W are not known."
        )
    elif tr is not None and tr < ZERO:
        named.append(
            f"T < R by {_m(-tr)}: chips left the tray with no record (a payout or hand the log "
            "lacks, chips walking from the tray), a fill recorded that never arrived, a credit "
            "not recorded, or a miscounted inventory."
        )
    elif tr is not None and tr > ZERO:
        named.append(
            f"T > R by {_m(tr)}: chips entered the tray with no record (a collection the log "
            "lacks), a fill not recorded, a credit recorded that never left, or a miscounted "
            "inventory."
        )
    if d is None:
        named.append("No drop count is stored: D and W are not known.")
    elif db is not None and db < ZERO:
        named.append(
            f"D < B by {_m(-db)}: cash or markers missing from the box, or a buy-in recorded "
            "that never happened."
        )
    elif db is not None and db > ZERO:
        named.append(f"D > B by {_m(db)}: chips sold off the record.")
    if not named:
        named.append("W = R: the books agree with the hands.")
    return tuple(lines), tuple(named)


PeriodLink = Callable[[str, "dt.date | str", str], str]


def acct_row(
    f: Finding, reviews: Mapping[str, str] | None = None, link: PeriodLink = period_href
) -> AcctRow:
    """An ``ACCT_`` finding as the report lists it, linked to its period's page."""
    href = (
        link(f.table, f.gaming_day, f.shift)
        if f.table is not None and f.gaming_day is not None and f.shift is not None
        else None
    )
    return AcctRow(
        id=f.id,
        code=str(f.code),
        severity=str(f.severity),
        table=f.table,
        gaming_day=None if f.gaming_day is None else f.gaming_day.isoformat(),
        shift=f.shift,
        impact=money_str(f.impact),
        message=f.message,
        period_href=href,
        review=(reviews or {}).get(f.id or ""),
    )


def period_page(
    period: Period,
    *,
    previous: Inventory | None,
    findings: Sequence[Finding],
    adjustments: Sequence[dict[str, Any]],
    rounds: Sequence[tuple[str, int, str | None, int]],
    hand_link: Callable[[str, str, int], str | None],
    reviews: Mapping[str, str] | None = None,
    records_stored: bool = True,
    link: PeriodLink = period_href,
) -> PeriodPage:
    """The page of ``period`` (with its records): ``previous`` is the table's inventory
    before its first opener (the previous closer, where there is one); ``rounds`` (shoe,
    round, opened, findings) are its rounds, linked by ``hand_link(table, shoe, round)``
    (None: no page)."""
    sessions = []
    prev = previous
    for s in period.sessions:
        sessions.append(
            _session_view(s.opener, s.closer, prev if (prev and prev.kind == "closer") else None)
        )
        prev = s.closer or s.opener
    lines, named = identity_lines(period)
    day = period.gaming_day.isoformat()
    return PeriodPage(
        href=link(period.table, day, period.shift),
        title=f"Books of {period.table}, gaming day {day}, shift {period.shift}",
        table=period.table,
        gaming_day=day,
        shift=period.shift,
        pit=period.pit,
        status=period.status,
        currency=period.currency,
        sessions=tuple(sessions),
        slips=_slip_views(period),
        buy_ins=tuple(
            {
                "id": b.at.id,
                "at": _local(b.at.ts),
                "amount": _m(b.amount),
                "method": b.method,
                "box": b.box,
                "ref": b.ref,
            }
            for b in period.buy_ins
        ),
        counts=tuple(
            {
                "id": c.at.id,
                "at": _local(c.at.ts),
                "cash": _m(c.cash),
                "markers": _m(c.markers),
                "other": _m(c.other),
                "total": _m(c.total),
                "tips": _m(c.tips),
                "signers": _signers(c.signers),
                "drop_box": c.drop_box,
            }
            for c in period.counts
        ),
        rounds=tuple(
            RoundRef(shoe, rnd, opened, hand_link(period.table, shoe, rnd), n)
            for shoe, rnd, opened, n in rounds
        ),
        identity=lines,
        differences=named,
        adjustments=tuple(adjustments),
        findings=tuple(acct_row(f, reviews, link) for f in findings),
        records_stored=records_stored,
    )


# --------------------------------------------------------------------------- the section


def periods_tile(
    periods: Sequence[Period], flagged: set[tuple[str, dt.date, str]], flags: Iterable[str] = ()
) -> PeriodsTile:
    """The periods' tile: by status, of the reconciled those with an ``ACCT_`` finding."""
    by = {s: 0 for s in ("reconciled", "pending", "incomplete", "not_audited")}
    differing = 0
    for p in periods:
        by[p.status] = by.get(p.status, 0) + 1
        if p.status == "reconciled" and (p.table, p.gaming_day, p.shift) in flagged:
            differing += 1
    return PeriodsTile(
        reconciled=by["reconciled"],
        differing=differing,
        pending=by["pending"],
        incomplete=by["incomplete"],
        not_audited=by["not_audited"],
        flags=tuple(flags),
    )


def first_rows(flagged_rounds: Sequence[Any], acct: Sequence[AcctRow]) -> tuple[FirstRow, ...]:
    """Flagged rounds and ``ACCT_`` findings in one ranking: by money (a round's money
    moved wrongly, a finding's |impact|, null as 0), then severity; each list keeps its
    own order among equals."""

    def money(row: FirstRow) -> Decimal:
        if row.kind == "round":
            return Decimal(row.item.moved)
        return abs(Decimal(row.item.impact)) if row.item.impact is not None else ZERO

    def severity(row: FirstRow) -> int:
        sev = row.item.worst_severity if row.kind == "round" else row.item.severity
        return _SEVERITY_RANK.get(str(sev), 4)

    rows = [FirstRow("round", r) for r in flagged_rounds] + [FirstRow("books", a) for a in acct]
    indexed = list(enumerate(rows))
    indexed.sort(key=lambda ir: (-money(ir[1]), severity(ir[1]), ir[1].kind != "round", ir[0]))
    return tuple(r for _, r in indexed)


def pit_blocks(
    rows: Sequence[dict[str, Any]], link: PeriodLink = period_href, every: bool = False
) -> tuple[tuple[PitBlock, ...], tuple[dict[str, Any], ...]]:
    """The MGR rows split by pit (each period row gaining ``href``, its page's link when
    it has findings, or ``every`` period's), and the casino's rows."""
    pits: dict[str | None, list[dict[str, Any]]] = {}
    casino = []
    for r in rows:
        if r["level"] == "casino":
            casino.append(r)
            continue
        row = dict(r)
        row["href"] = (
            link(r["table"], r["gaming_day"], r["shift"])
            if r["level"] == "shift" and (r["findings"] or every)
            else None
        )
        pits.setdefault(r["pit"], []).append(row)
    ordered = sorted(pits, key=lambda p: (p is None, p or ""))
    return tuple(PitBlock(p, tuple(pits[p])) for p in ordered), tuple(casino)


def books_section(
    *,
    house: House,
    house_path: str | None,
    periods: Sequence[Period],
    findings: Sequence[Finding],
    rows: Sequence[dict[str, Any]],
    adjustments: Sequence[dict[str, Any]],
    pages: Sequence[PeriodPage] = (),
    flags: Iterable[str] = (),
    reviews: Mapping[str, str] | None = None,
    link: PeriodLink = period_href,
    every: bool = False,
) -> BooksSection:
    """The report's books section of the selected days: ``periods`` (theirs only),
    ``findings`` (``ACCT_``, ranked), ``rows`` (:func:`audit.books.mgr.mgr_rows`),
    ``adjustments`` (:func:`audit.books.mgr.adjustment_log`) and the flagged periods'
    ``pages``."""
    flagged = {
        (f.table, f.gaming_day, f.shift)
        for f in findings
        if f.table is not None and f.gaming_day is not None and f.shift is not None
    }
    acct = tuple(acct_row(f, reviews, link) for f in findings)
    pits, casino = pit_blocks(rows, link, every)
    discrepancies = tuple(
        Discrepancy(
            table=f.table,
            gaming_day=None if f.gaming_day is None else f.gaming_day.isoformat(),
            shift=f.shift,
            expected=f.expected,
            actual=f.actual,
            impact=money_str(f.impact),
            regulator=f.code == Code.ACCT_INVENTORY_REPORTABLE,
            period_href=acct_row(f, link=link).period_href,
        )
        for f in findings
        if f.code in DISCREPANCY_CODES
    )
    return BooksSection(
        house_sha256=house.sha256,
        house_path=house_path,
        tile=periods_tile(periods, flagged, flags),
        findings=acct,
        pits=pits,
        casino=casino,
        adjustments=tuple(adjustments),
        adjustment_report=money_str(house.adjustment_report) or "0",
        discrepancies=discrepancies,
        discrepancy_report=money_str(house.discrepancy_report) or "0",
        discrepancy_regulator=money_str(house.discrepancy_regulator) or "0",
        pages=tuple(pages),
    )


def stat_flags(statistics: Any) -> tuple[str, ...]:
    """The ``hold_drop`` and ``payout_30d`` flags among the statistics section's flags
    (none until those tests exist: the tile shows what is there, nothing made up)."""
    return tuple(
        f"{f.test} {f.scope} {f.subject}"
        for f in getattr(statistics, "flags", ()) or ()
        if f.test in STAT_TESTS
    )
