"""A real audited night with books: the sample night, and periods stored beside its rounds
with :func:`audit.store.periods.store_periods` (``run`` does not reconcile yet)."""

from __future__ import annotations

import datetime as dt
import shutil
from decimal import Decimal as D
from pathlib import Path

from audit.books.house import load_house
from audit.books.model import Figures, Period
from audit.store import open_store
from audit.store.periods import store_periods

DAY = dt.date(2026, 11, 28)
PREVIOUS = dt.date(2026, 11, 27)


def figures(win: str | None = "350", drop: str | None = "500") -> Figures:
    """accounting.md's worked example: opener 5,500, fill 1,000, closer 6,350, 500 bought."""
    return Figures(
        sessions=1,
        opener=D("5500"),
        closer=D("6350"),
        fills=D("1000"),
        buy_ins_cash=D("500"),
        rounds=40,
        handle=D("5000"),
        hands_result=D("350"),
        drop_cash=None if drop is None else D(drop),
        tray_win=D("350"),
        win=None if win is None else D(win),
    )


def books_db(sample_db: Path, folder: Path) -> Path:
    """A copy of the sample night with books: T01 and T02 in pit P1, T03 in none; T02's
    drop is 100 short (ACCT_DROP_MISMATCH); T01 also kept books the day before."""
    db = folder / "audit.duckdb"
    for p in sample_db.parent.iterdir():
        if p.is_file():
            shutil.copy(p, folder / p.name)
    periods = [
        Period(
            "T01",
            PREVIOUS,
            "day",
            "P1",
            "reconciled",
            figures(win="100", drop="1000"),
            currency="EUR",
        ),
        Period("T01", DAY, "day", "P1", "reconciled", figures(), currency="EUR"),
        Period("T02", DAY, "day", "P1", "reconciled", figures("250", "400"), currency="EUR"),
        Period("T03", DAY, "day", None, "pending", figures(None, None), currency="EUR"),
    ]
    findings = {("T02", DAY, "day"): ["ACCT_DROP_MISMATCH"]}
    digests = {(p.table, p.gaming_day, p.shift): "digest" for p in periods}
    with open_store(db) as store, store.transaction():
        store_periods(
            store.con,
            periods,
            digests=digests,
            findings=findings,
            house_sha256=load_house().sha256,  # the packaged house, which books reads
        )
    return db
