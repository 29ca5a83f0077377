"""``run``'s last step: reconcile the table's books with the audited hands (accounting.md).

After the shoes are replayed (so every round's handle is stored), the stored book
records and the hands' money (:func:`audit.store.books.load_books`)
go through the pure reconciliation (:func:`audit.books.reconcile.reconcile`), and
its periods and ``ACCT_`` findings replace the stored ones in one transaction: an
interrupted run leaves the previous reconciliation whole. The figures come from
the stored events and hands, never from replaying again; the whole store is
reconciled each time (a few hundred items a night once the hands are summed by the
store), so a period re-opened by a later cage copy, count or adjustment is judged
again whatever ``run --table/--date`` selected.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from audit.books.house import House
from audit.books.mgr import period_shift
from audit.books.model import Adjustment, HandsFinding, HandsMoney
from audit.books.reconcile import Books, reconcile
from audit.store import Store
from audit.store.books import Books as BookRecords
from audit.store.books import (
    clear_books,
    hands_money_of,
    has_book_events,
    has_stored_books,
    load_books,
    table_currencies,
)
from audit.store.hands_findings import hands_findings


@dataclass(slots=True)
class BooksSummary:
    """What the reconciliation found: periods by status and ``ACCT_`` findings by code."""

    periods: dict[str, int] = field(default_factory=dict)
    findings: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    split: dict[str, float] = field(default_factory=dict)
    """``seconds`` by part: ``records`` (the book events read), ``hands`` (the hands'
    money summed by the store's SQL), ``reconcile`` (the pure reconciliation and the
    periods' digests), ``store`` (the one transaction that replaces the stored books)."""


def trail_adjustments_of(db: str | Path) -> list[Adjustment]:
    """The adjustments managers recorded in the review trail beside ``db`` (none when it
    has no trail)."""
    from audit.review.adjustments import trail_adjustments
    from audit.review.trail import ReviewTrail, trail_path

    if not trail_path(db).exists():
        return []
    return trail_adjustments(ReviewTrail(trail_path(db)))


def reconcile_books(
    store: Store, house: House, trail: list[Adjustment], *, at: dt.datetime | None = None
) -> BooksSummary:
    """Reconcile every table's books, and store the periods and ``ACCT_`` findings."""
    import time

    from audit.store.books_detail import store_books_detail
    from audit.store.periods import store_periods

    summary = BooksSummary()
    t0 = last = time.perf_counter()

    def lap(part: str) -> None:
        nonlocal last
        now = time.perf_counter()
        summary.split[part] = now - last
        last = now

    with ThreadPoolExecutor(1) as pool:
        # the hands' SQL runs in DuckDB, off Python's lock, while Python reads the records
        hands = None
        if house.books_required or has_book_events(store):
            hands = pool.submit(_hands_money, store, house)
        records = load_books(store, house=house, hands=False)
        lap("records")
        if hands is not None:
            records.hands = hands.result()
    lap("hands")  # what the hands' SQL took beyond the records' reading
    if records.empty() and not house.books_required:
        if has_stored_books(store.con):
            with store.transaction() as con:
                clear_books(con)
        summary.seconds = time.perf_counter() - t0
        return summary
    tables = {i.table for i in records.inventories}
    books = _reconcile(records, house, trail, hands_findings(store, tables))
    by_table = records.digests({p.table for p in books.periods})
    digests = {(p.table, p.gaming_day, p.shift): by_table[p.table] for p in books.periods}
    acct: dict[tuple[str, dt.date, str], list[str]] = {}
    for f in books.findings:
        if f.table is not None and f.gaming_day is not None and f.shift is not None:
            acct.setdefault((f.table, f.gaming_day, f.shift), []).append(str(f.code))
    currencies = table_currencies(store)
    for p in books.periods:
        p.currency = currencies.get(p.table)
    stamp = at or dt.datetime.now(dt.UTC)
    lap("reconcile")
    with store.transaction() as con:
        clear_books(con)  # the whole store is reconciled: what it no longer yields goes
        store_periods(
            con, books.periods, digests=digests, findings=acct, house_sha256=house.sha256, at=stamp
        )
        store_books_detail(con, books.periods, books.findings)
    lap("store")
    for p in books.periods:
        summary.periods[p.status] = summary.periods.get(p.status, 0) + 1
    for f in books.findings:
        summary.findings[str(f.code)] = summary.findings.get(str(f.code), 0) + 1
    summary.seconds = time.perf_counter() - t0
    return summary


def _hands_money(store: Store, house: House) -> list[HandsMoney]:
    cursor = store.con.cursor()  # a thread's own cursor on the same database
    try:
        return hands_money_of(cursor, None, house)
    finally:
        cursor.close()


def _reconcile(
    records: BookRecords,
    house: House,
    trail: list[Adjustment],
    found: list[HandsFinding],
) -> Books:
    adjustments = [
        a if a.shift is not None else dataclasses.replace(a, shift=period_shift(a, house))
        for a in [*records.adjustments, *trail]
    ]
    return reconcile(
        house=house,
        inventories=records.inventories,
        slips=records.slips,
        voids=records.voids,
        buy_ins=records.buy_ins,
        counts=records.counts,
        adjustments=adjustments,
        hands=records.hands,
        hands_findings=found,
    )
