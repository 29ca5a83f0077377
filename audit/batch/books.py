"""What ``books`` and ``adjust`` call: the Master Game Report of the stored periods, and an
adjustment recorded against them (accounting.md "Command line")."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from audit.books.house import House
from audit.books.mgr import LEVELS, adjustment_log, mgr_rows, period_shift, variance_periods
from audit.books.model import Adjustment
from audit.errors import AuditError, InputError, NotFoundError, UsageError
from audit.review import ReviewTrail
from audit.store import Store
from audit.store.periods import PeriodKey, StoredPeriod


@dataclass(slots=True)
class BooksView:
    """What ``books`` prints: the MGR rows (or the adjustment log's), and the periods with a
    variance among those selected (``--fail-on-variance``)."""

    first: dt.date
    last: dt.date
    rows: list[dict[str, Any]] = field(default_factory=list)
    adjustments: list[dict[str, Any]] = field(default_factory=list)
    variances: list[PeriodKey] = field(default_factory=list)
    periods: int = 0
    """Periods selected (0: no table kept books those days)."""


def _year_start(day: dt.date) -> dt.date:
    return day.replace(month=1, day=1)


def _resolve_tables(store: Store, given: Sequence[str]) -> list[str]:
    """Each ``--table``: itself, or the one stored table (books or shoes) it names with case
    ignored; :class:`NotFoundError` (exit 1) for one the database does not know."""
    from audit.store.lookup import table_ids

    known = sorted(
        {str(r[0]) for r in store.con.execute("SELECT DISTINCT table_id FROM periods").fetchall()}
        | set(table_ids(store))
    )
    out = []
    for t in given:
        matches = [k for k in known if k == t] or [k for k in known if k.casefold() == t.casefold()]
        if len(matches) != 1:
            listed = ", ".join(known) or "none"
            raise NotFoundError(f"no table {t!r} in the database; tables: {listed}")
        out.append(matches[0])
    return out


def with_log(store: Store, trail: Sequence[Adjustment]) -> list[Adjustment]:
    """The log's adjustments (``adjustment`` events) and then ``trail``'s: every adjustment
    ``run`` applied, so that a period it reconciled reads as it was judged, not as
    ``not_audited``, and the adjustment log lists both sources (accounting.md
    "Adjustments")."""
    from audit.store.books import log_adjustments

    return [*log_adjustments(store), *(a for a in trail if a.source != "log")]


def _with_shift(adjustments: Sequence[Adjustment], house: House) -> list[Adjustment]:
    """Each adjustment naming its period's shift (the only one, at a house with one)."""
    return [
        a if a.shift is not None else dataclasses.replace(a, shift=period_shift(a, house))
        for a in adjustments
    ]


def books_view(
    store: Store,
    house: House,
    *,
    days: Sequence[dt.date] | None,
    tables: Sequence[str] = (),
    pit: str | None = None,
    levels: Sequence[str] = LEVELS,
    adjustments: Sequence[Adjustment] = (),
) -> BooksView:
    """The Master Game Report of the gaming days ``days`` (default: the latest with books),
    with the trail's ``adjustments`` and the log's (read here, :func:`with_log`).

    ``tables`` and ``pit`` select subjects: a ``--table`` keeps its periods' and its own
    totals, a ``--pit`` its tables' and its own; the casino's totals only when neither
    is given (a total never silently shrinks to a selection). Raises :class:`AuditError`
    (exit 1) when the selected days hold no books and no rounds.
    """
    from audit.store.periods import latest_books_day, load_periods, rounds_in_days

    con = store.con
    if days:
        first, last = days[0], days[-1]
    else:
        latest = latest_books_day(con)
        if latest is None:
            from audit.batch.nightly import latest_gaming_day

            try:
                latest = latest_gaming_day(store)
            except AuditError:
                raise AuditError(
                    "the database holds no books and no rounds: run `shoe-audit ingest` and "
                    "`shoe-audit run` first"
                ) from None
        first = last = latest
    wanted = _resolve_tables(store, tables) if tables else None
    adjustments = with_log(store, adjustments)
    resolved = _with_shift(adjustments, house)
    stored = load_periods(
        con,
        first=_year_start(first),
        last=last,
        tables=wanted,
        house_sha256=house.sha256,
        adjustments=resolved,
    )
    if pit is not None:
        stored = [s for s in stored if s.period.pit == pit]
    selected = [s for s in stored if first <= s.period.gaming_day <= last]
    span = f"{first}" if first == last else f"{first} to {last}"
    if not selected and not rounds_in_days(con, first, last):
        raise AuditError(f"no books and no rounds in gaming day {span}")
    view = BooksView(first, last, periods=len(selected))
    view.rows = _select(
        mgr_rows(
            [s.period for s in stored],
            house,
            adjustments=resolved,
            findings={s.key: len(s.acct_codes) for s in stored},
            first=first,
            last=last,
            levels=levels,
        ),
        wanted,
        pit,
    )
    view.variances = variance_periods({s.key: s.acct_codes for s in selected})
    view.adjustments = [
        row
        for row in adjustment_log(adjustments, house)
        if first.isoformat() <= row["gaming_day"] <= last.isoformat()
        and (wanted is None or row["table"] in wanted)
        and (pit is None or house.pit_of(row["table"]) == pit or _pit_of(stored, row) == pit)
    ]
    return view


BOOKS_STATUSES = ("reconciled", "pending", "incomplete", "not_audited")
"""A period's statuses (accounting.md "When a period is judged"), as ``status`` lists them."""


def periods_by_status(store: Store, house: House, trail: Sequence[Adjustment]) -> dict[str, int]:
    """``status``' books: every stored period counted by its status as read now (the house
    file ``house``, the log's and ``trail``'s adjustments, what was ingested since ``run``),
    each status listed, 0 included."""
    from audit.store.periods import load_periods

    stored = load_periods(
        store.con,
        house_sha256=house.sha256,
        adjustments=_with_shift(with_log(store, trail), house),
    )
    out = dict.fromkeys(BOOKS_STATUSES, 0)
    for s in stored:
        out[s.period.status] = out.get(s.period.status, 0) + 1
    return out


def _pit_of(stored: Sequence[StoredPeriod], row: dict[str, Any]) -> str | None:
    return next((s.period.pit for s in stored if s.period.table == row["table"]), None)


def _select(
    rows: list[dict[str, Any]], tables: Sequence[str] | None, pit: str | None
) -> list[dict[str, Any]]:
    if tables is None and pit is None:
        return rows
    out = []
    for r in rows:
        if r["level"] == "casino" or (tables is not None and r["level"] == "pit"):
            continue
        out.append(r)
    return out


# --------------------------------------------------------------------------- adjust


@dataclass(frozen=True, slots=True)
class AdjustRequest:
    """``adjust``'s arguments, checked (:func:`check_request`)."""

    table: str
    gaming_day: dt.date
    shift: str | None
    line: str | None
    amount: Decimal | None
    reason: str
    ref: str | None
    reverses: str | None


def parse_amount(text: str) -> Decimal:
    """``--amount``: a signed amount, not 0, at most 2 decimals (:class:`UsageError`)."""
    from decimal import InvalidOperation

    from audit.review.adjustments import check_amount

    try:
        amount = Decimal(text.strip())
    except InvalidOperation:
        raise UsageError(f"--amount takes a signed amount such as -25.50, got {text!r}") from None
    try:
        check_amount(amount)
    except InputError as exc:
        raise UsageError(f"--amount: {exc}") from None
    return amount


def check_request(req: AdjustRequest, house: House) -> str:
    """The usage checks of ``adjust`` (exit 2); returns the period's shift."""
    from audit.books.model import ADJUSTMENT_LINES

    if req.reverses is not None:
        if req.line is not None or req.amount is not None:
            raise UsageError(
                "--reverses takes the line and minus the amount of the adjustment it "
                "reverses: leave out --line and --amount"
            )
    else:
        if req.line is None or req.amount is None:
            raise UsageError("give --line and --amount (or --reverses ID)")
        if req.line not in ADJUSTMENT_LINES:
            raise UsageError(
                f"unknown line {req.line!r}; the lines are {', '.join(ADJUSTMENT_LINES)}"
            )
    if not req.reason.strip():
        raise UsageError("--reason TEXT is required: say why")
    names = house.shift_names()
    if req.shift is None:
        if len(names) != 1:
            raise UsageError(
                f"--shift is required at a house with several shifts ({', '.join(names)})"
            )
        return names[0]
    if req.shift not in names:
        raise UsageError(f"unknown shift {req.shift!r}; the house file's: {', '.join(names)}")
    return req.shift


def prepare_adjustment(db: Path, store: Store, req: AdjustRequest, shift: str) -> Any:
    """The adjustment ``req`` asks for (an :class:`audit.review.adjustments.NewAdjustment`),
    before the password is asked for. Exit 1 (:class:`AuditError`) when no period of that
    table, day and shift is stored, or ``--reverses`` names no trail adjustment of it."""
    from audit.review import adjustments
    from audit.store.periods import has_period

    if not has_period(store.con, req.table, req.gaming_day, shift):
        raise AuditError(
            f"no books for {req.table} gaming day {req.gaming_day} shift {shift}: no period "
            "is stored (`shoe-audit run` reconciles the books; `shoe-audit books` lists them)"
        )
    trail = ReviewTrail.beside(db)
    line, amount = req.line, req.amount
    if req.reverses is not None:
        old = adjustments.find(trail, req.reverses)
        if (old.table_id, old.gaming_day, old.shift) != (
            req.table,
            req.gaming_day.isoformat(),
            shift,
        ):
            raise AuditError(
                f"adjustment {old.id} is of {old.table_id} gaming day {old.gaming_day} shift "
                f"{old.shift}, not of {req.table} {req.gaming_day} {shift}"
            )
        line, amount = old.line, -Decimal(old.amount)
    assert line is not None and amount is not None
    return adjustments.NewAdjustment(
        table=req.table,
        gaming_day=req.gaming_day,
        shift=shift,
        line=line,
        amount=amount,
        reason=req.reason,
        ref=req.ref,
        reverses=req.reverses,
    )


def require_manager(role: str, name: str) -> None:
    """Adjustments are recorded by a manager account only (accounting.md "Adjustments")."""
    if role != "manager":
        raise AuditError(
            f"the account {name!r} is a {role}: adjustments are recorded by a manager "
            "account only (`shoe-audit users add NAME --role manager`)"
        )


# --------------------------------------------------------------------------- the report's


def report_books(
    store: Store,
    house: House,
    days: Sequence[dt.date],
    *,
    adjustments: Sequence[Adjustment] = (),
    reviews: Mapping[str, str] | None = None,
    hand_link: Callable[[str, str, int], str | None] = lambda t, s, r: None,
    statistics: Any = None,
    link: Callable[[str, Any, str], str] | None = None,
    every: bool = False,
) -> Any:
    """The compliance report's books section of ``days``
    (:class:`audit.reports.books.BooksSection`), or None when no table kept books those
    days (the report then shows no Master Game Report, and is otherwise unchanged).

    Reads the stored periods (back to the 1st of January, for MTD and YTD), their records
    and ``ACCT_`` findings (:mod:`audit.store.books_detail`), with the trail's
    ``adjustments`` and the log's (:func:`with_log`); a flagged period gets its page, its
    rounds linked by ``hand_link(table, shoe, round)``. ``link`` makes a period page's
    link (default: the report folder's); with ``every``, each period of the days gets a
    page (``serve``)."""
    from audit.books.mgr import adjustment_log, mgr_rows
    from audit.reports.books import books_section, period_href, period_page, stat_flags
    from audit.store.books_detail import load_books_findings, load_records, period_rounds
    from audit.store.periods import load_periods

    first, last = days[0], days[-1]
    resolved = _with_shift(with_log(store, adjustments), house)
    stored = load_periods(
        store.con,
        first=_year_start(first),
        last=last,
        house_sha256=house.sha256,
        adjustments=resolved,
    )
    selected = [s.period for s in stored if first <= s.period.gaming_day <= last]
    if not selected:
        return None
    findings = load_books_findings(store.con, first, last)
    flagged = {(f.table, f.gaming_day, f.shift) for f in findings}
    to_page = [p for p in selected if every or (p.table, p.gaming_day, p.shift) in flagged]
    link = link or period_href
    # Each flagged period's records, and its table's previous period's (its last closer).
    earlier: dict[str, list[Any]] = {}
    for s in stored:
        earlier.setdefault(s.period.table, []).append(s.period)
    previous = {}
    for p in to_page:
        at = (p.gaming_day, _shift_rank(house, p.shift))
        before = sorted(
            (q for q in earlier[p.table] if (q.gaming_day, _shift_rank(house, q.shift)) < at),
            key=lambda q: (q.gaming_day, _shift_rank(house, q.shift)),
        )
        if before:
            previous[(p.table, p.gaming_day, p.shift)] = before[-1]
    load_records(store.con, [*to_page, *previous.values()])
    log = adjustment_log(resolved, house)
    pages = []
    for p in to_page:
        key = (p.table, p.gaming_day, p.shift)
        prior = previous.get(key)
        last_inv = None
        if prior is not None and prior.sessions:
            s = prior.sessions[-1]
            last_inv = s.closer or s.opener
        windows = [(s.opener.at.ts, s.closer.at.ts if s.closer else None) for s in p.sessions]
        pages.append(
            period_page(
                p,
                previous=last_inv,
                findings=[f for f in findings if (f.table, f.gaming_day, f.shift) == key],
                adjustments=[
                    a
                    for a in log
                    if (a["table"], a["gaming_day"], a["shift"])
                    == (p.table, p.gaming_day.isoformat(), p.shift)
                ],
                rounds=period_rounds(store.con, p.table, p.gaming_day, windows),
                hand_link=hand_link,
                reviews=reviews,
                records_stored=bool(p.sessions or p.slips or p.buy_ins or p.counts),
                link=link,
            )
        )
    codes = {s.key: len(s.acct_codes) for s in stored}
    rows = mgr_rows([s.period for s in stored], house, adjustments=resolved, findings=codes,
                    first=first, last=last)  # fmt: skip
    return books_section(
        house=house,
        house_path=house.path,
        periods=selected,
        findings=findings,
        rows=rows,
        adjustments=[a for a in log if first.isoformat() <= a["gaming_day"] <= last.isoformat()],
        pages=pages,
        flags=stat_flags(statistics),
        reviews=reviews,
        link=link,
        every=every,
    )


def _shift_rank(house: House, shift: str) -> int:
    names = house.shift_names()
    return names.index(shift) if shift in names else len(names)
