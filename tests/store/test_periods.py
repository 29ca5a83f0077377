"""The stored periods on a real DuckDB file: written in the caller's transaction, read back
exactly, replaced per table and gaming day, and read as ``not_audited`` when what they were
judged on changed (accounting.md "When a period is judged")."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D
from pathlib import Path

import duckdb
import pytest

from audit.books.model import Adjustment, Figures, Period
from audit.store import open_store
from audit.store.periods import has_period, latest_books_day, load_periods, store_periods
from tests.store.test_migration import V9_ONLY

DAY = dt.date(2026, 11, 28)


def period(table: str, day: dt.date = DAY, shift: str = "day", **figs: object) -> Period:
    f = Figures(
        sessions=1,
        opener=D("5500"),
        closer=D("6350"),
        fills=D("1000"),
        buy_ins_cash=D("500"),
        rounds=40,
        handle=D("5000.50"),
        hands_result=D("350"),
        drop_cash=D("500"),
        tray_win=D("350"),
        win=D("350"),
    )
    for k, v in figs.items():
        setattr(f, k, v)
    return Period(table, day, shift, "P1", "reconciled", f, currency="EUR")


def write(db: Path, periods: list[Period], **kw: object) -> None:
    digests = {(p.table, p.gaming_day, p.shift): f"d-{p.table}" for p in periods}
    with open_store(db) as store, store.transaction():
        store_periods(store.con, periods, digests=digests, **kw)  # type: ignore[arg-type]


def test_a_period_reads_back_as_it_was_stored(tmp_path: Path) -> None:
    db = tmp_path / "audit.duckdb"
    p = period("T01", closer=None, tray_win=None, win=None, tips=D("12.5"))
    write(db, [p], findings={("T01", DAY, "day"): ["ACCT_NO_INVENTORY"]}, house_sha256="abc")
    with open_store(db, read_only=True) as store:
        (got,) = load_periods(store.con)
        assert latest_books_day(store.con) == DAY
        assert has_period(store.con, "T01", DAY, "day")
        assert not has_period(store.con, "T01", DAY, "night")
    assert got.period.figures == p.figures
    assert str(got.period.figures.handle) == "5000.5"
    assert (got.period.pit, got.period.currency, got.period.status) == ("P1", "EUR", "reconciled")
    assert got.acct_codes == ("ACCT_NO_INVENTORY",)
    assert (got.inputs_digest, got.house_sha256) == ("d-T01", "abc")


def test_a_rerun_replaces_the_periods_of_the_tables_and_days_it_reconciled(tmp_path: Path) -> None:
    db = tmp_path / "audit.duckdb"
    write(db, [period("T01", shift="day"), period("T01", shift="night"), period("T02")])
    write(db, [period("T01", shift="day", win=D("1"))])  # T01's night period is gone
    write(db, [], replacing=[("T02", DAY)])  # T02 keeps no books that day any more
    with open_store(db, read_only=True) as store:
        got = load_periods(store.con)
    assert [(s.period.table, s.period.shift, s.period.figures.win) for s in got] == [
        ("T01", "day", 1)
    ]


def test_a_period_needs_its_inputs_digest(tmp_path: Path) -> None:
    db = tmp_path / "audit.duckdb"
    with open_store(db) as store, pytest.raises(ValueError, match="no inputs digest"):
        store_periods(store.con, [period("T01")], digests={})


def test_the_periods_are_written_in_the_callers_transaction(tmp_path: Path) -> None:
    db = tmp_path / "audit.duckdb"
    write(db, [period("T01")])
    with open_store(db) as store:
        with pytest.raises(RuntimeError), store.transaction():
            store_periods(
                store.con, [period("T01", win=D("9"))], digests={("T01", DAY, "day"): "x"}
            )
            raise RuntimeError("the run failed after")
        assert load_periods(store.con)[0].period.figures.win == 350


def test_a_period_is_not_audited_when_its_house_file_or_adjustments_changed(
    tmp_path: Path,
) -> None:
    db = tmp_path / "audit.duckdb"
    write(db, [period("T01")], house_sha256="abc")
    adj = Adjustment("ADJ-1", "trail", "T01", DAY, "day", "closer", D(5), "recount", "boss")
    with open_store(db, read_only=True) as store:
        con = store.con
        assert load_periods(con, house_sha256="abc", adjustments=[])[0].period.status == (
            "reconciled"
        )
        assert load_periods(con, house_sha256="def")[0].period.status == "not_audited"
        got = load_periods(con, house_sha256="abc", adjustments=[adj])[0].period
        assert got.status == "not_audited" and got.adjustments == [adj]
        assert load_periods(con, digests={("T01", DAY, "day"): "new"})[0].period.status == (
            "not_audited"
        )


def test_a_version_8_database_gains_the_periods_table(tmp_path: Path) -> None:
    db = tmp_path / "audit.duckdb"
    open_store(db).close()
    con = duckdb.connect(str(db))
    con.execute(V9_ONLY)  # schemas 9 and 10 undone: a database as schema 8 left it
    con.close()
    write(db, [period("T01")])
    with open_store(db, read_only=True) as store:
        assert len(load_periods(store.con)) == 1
