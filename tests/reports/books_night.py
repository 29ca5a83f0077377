"""A real audited night with books for the report's and serve's tests: the sample night's
rounds (ingested and replayed), and books written by hand around them, reconciled with
:func:`audit.books.reconcile.reconcile` and stored with the store's functions (``run``
does not reconcile yet).

T01 (pit P1): two sessions on 2026-11-28; the second opener is 150 short of the closer
before it (ACCT_INVENTORY_REPORTABLE: a copy to the regulator) and the box counted 100
less than the buy-ins recorded (ACCT_DROP_MISMATCH, impact 100). T02 (pit P1): books
that agree with its hands. A fill the next gaming day closes the cage's day.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
from decimal import Decimal
from pathlib import Path

from audit.books.house import load_house
from audit.books.model import Chip, Chips, HandsMoney, Place
from audit.books.reconcile import Books
from audit.store import open_store
from audit.store.books_detail import store_books_detail
from audit.store.periods import store_periods
from tests.books.builders import Night, chips

DAY = dt.date(2026, 11, 28)
CET = dt.timezone(dt.timedelta(hours=1))
HOUSE_TOML = """\
pits = { value = { P1 = ["T01", "T02"] }, source = "the floor plan" }
"""


def tray(value: Decimal) -> Chips:
    """``value`` in chips, largest first (the tray's float holds half chips for 3:2)."""
    out = []
    for d in (Decimal(100), Decimal(25), Decimal(5), Decimal(1), Decimal("0.5")):
        n = int(value // d)
        if n:
            out.append(Chip(d, n))
            value -= d * n
    assert value == 0
    return Chips(tuple(out))


def _rounds(con: object, table: str) -> list[HandsMoney]:
    rows = con.execute(  # type: ignore[attr-defined]
        """SELECT r.shoe, r.round, r.opened_at, r.settled, r.handle, e.id, e.seq
           FROM rounds r JOIN events e ON e.table_id = r.table_id AND e.shoe = r.shoe
                AND e.round = r.round AND e.seq = r.first_seq
           WHERE r.table_id = ? ORDER BY r.opened_at""",
        [table],
    ).fetchall()
    return [
        HandsMoney(
            Place(eid, f"{table}/hands", int(seq), opened.astimezone(CET)),
            table,
            -Decimal(settled),
            1,
            Decimal(handle),
            (shoe, int(rnd)),
        )
        for shoe, rnd, opened, settled, handle, eid, seq in rows
    ]


def house_file(folder: Path) -> Path:
    path = folder / "house.toml"
    path.write_text(HOUSE_TOML, encoding="utf-8")
    return path


def books_night(sample_db: Path, folder: Path) -> tuple[Path, Books]:
    """A copy of the audited sample night in ``folder`` with T01's and T02's books stored
    (periods, records and ACCT_ findings); returns the database and the books."""
    for p in sample_db.parent.iterdir():
        if p.is_file():
            shutil.copy(p, folder / p.name)
    db = folder / "audit.duckdb"
    house = load_house(house_file(folder))
    night = Night(house=house)
    sec = dt.timedelta(seconds=1)
    with open_store(db) as store:
        t1 = _rounds(store.con, "T01")
        t2 = _rounds(store.con, "T02")
    # T01: two sessions split between two rounds; 150 gone from the tray in between.
    k = len(t1) // 2
    first, second = t1[:k], t1[k:]
    o1 = Decimal(20000)
    night.opener("T01", t1[0].at.ts - 20 * 60 * sec, tray(o1))
    night.buy_in("T01", t1[0].at.ts - 10 * 60 * sec, 3000)
    night.slip("T01", t1[1].at.ts + sec, 88412, chips(d25=40))
    night.hands.extend(first)
    k1 = o1 + 1000 + sum((h.result for h in first), Decimal(0)) - 3000
    night.closer("T01", second[0].at.ts - 2 * sec, tray(k1))
    o2 = k1 - 150
    night.opener("T01", second[0].at.ts - sec, tray(o2))
    night.buy_in("T01", second[0].at.ts + sec, 2000, method="marker")
    night.hands.extend(second)
    k2 = o2 + sum((h.result for h in second), Decimal(0)) - 2000
    night.closer("T01", second[-1].at.ts + 30 * 60 * sec, tray(k2))
    night.count(
        "T01", dt.datetime(2026, 11, 29, 9, 40, tzinfo=CET), "2026-11-28", 2900, markers=2000
    )
    # T02: books that agree with its hands.
    night.opener("T02", t2[0].at.ts - 20 * 60 * sec, tray(Decimal(15000)))
    night.buy_in("T02", t2[0].at.ts - 5 * 60 * sec, 1500)
    night.hands.extend(t2)
    k = Decimal(15000) + sum((h.result for h in t2), Decimal(0)) - 1500
    night.closer("T02", t2[-1].at.ts + 30 * 60 * sec, tray(k))
    night.count("T02", dt.datetime(2026, 11, 29, 9, 45, tzinfo=CET), "2026-11-28", 1500)
    # The next gaming day: the cage writes again (its day 28 is whole), and a count of 29.
    nxt = dt.datetime(2026, 11, 29, 20, 0, tzinfo=CET)
    night.opener("T02", nxt, tray(k))
    night.slip("T02", nxt + 600 * sec, 88413, chips(d25=20))
    night.count("T02", dt.datetime(2026, 11, 30, 9, 45, tzinfo=CET), "2026-11-29", 0)
    books = night.reconcile()
    digests = {(p.table, p.gaming_day, p.shift): "fixture" for p in books.periods}
    codes: dict[tuple[str, dt.date, str], list[str]] = {}
    for f in books.findings:
        if f.table and f.gaming_day and f.shift:
            codes.setdefault((f.table, f.gaming_day, f.shift), []).append(str(f.code))
    with open_store(db) as store, store.transaction():
        store_periods(
            store.con, books.periods, digests=digests, findings=codes, house_sha256=house.sha256
        )
        store_books_detail(store.con, books.periods, books.findings)
    return db, books


def with_currency(books: Books, currency: str) -> Books:
    return dataclasses.replace(
        books, periods=[dataclasses.replace(p, currency=currency) for p in books.periods]
    )
