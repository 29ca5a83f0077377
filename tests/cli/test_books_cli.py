"""``shoe-audit books`` on a real audited night with stored periods (accounting.md "Command
line", "The Master Game Report"): real invocations, exact columns, exit codes."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from audit.books.mgr import ADJUSTMENT_COLUMNS, MGR_COLUMNS
from tests.cli.books_db import books_db
from tests.cli.helpers import cli

MGR_HEADER = (
    "level,gaming_day,shift,pit,table,currency,status,sessions,rounds,opener,fills,credits,"
    "closer,buy_ins_cash,buy_ins_markers,buy_ins_other,buy_ins,drop_cash,drop_markers,"
    "drop_other,drop,tips,win,hold,handle,hands_result,hands_hold,variance,drop_variance,"
    "tray_variance,adjustments,win_adjusted,drop_adjusted,hold_adjusted,win_mtd,drop_mtd,"
    "hold_mtd,win_ytd,drop_ytd,hold_ytd,findings"
)
ADJUSTMENTS_HEADER = (
    "id,source,event,table,gaming_day,shift,line,amount,effect,reason,by,os_user,recorded_at,"
    "ref,reverses,reportable"
)


@pytest.fixture
def db(sample_db: Path, tmp_path: Path) -> Path:
    return books_db(sample_db, tmp_path)


def rows(db: Path, *args: str) -> list[dict[str, Any]]:
    r = cli("books", "--db", str(db), "--format", "jsonl", *args)
    assert r.exit_code == 0, r.output
    return [json.loads(x) for x in r.stdout.splitlines()]


def test_the_csv_header_is_the_reports_exact_column_names(db: Path) -> None:
    r = cli("books", "--db", str(db), "--format", "csv")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == MGR_HEADER == ",".join(MGR_COLUMNS)
    got = list(csv.DictReader(io.StringIO(r.stdout)))
    t03 = next(x for x in got if x["level"] == "shift" and x["table"] == "T03")
    assert (t03["win"], t03["drop"], t03["hold"]) == ("", "", "")  # null: an empty cell
    r = cli("books", "--db", str(db), "--format", "csv", "--adjustments")
    assert r.stdout.splitlines() == [ADJUSTMENTS_HEADER] == [",".join(ADJUSTMENT_COLUMNS)]


def test_the_default_is_the_latest_gaming_day_with_books_in_jsonl_when_piped(db: Path) -> None:
    r = cli("books", "--db", str(db))
    assert r.exit_code == 0, r.output
    got = [json.loads(x) for x in r.stdout.splitlines()]
    assert {x["gaming_day"] for x in got} == {"2026-11-28"}
    assert [(x["level"], x["table"]) for x in got] == [
        ("shift", "T01"),
        ("shift", "T02"),
        ("shift", "T03"),
        ("table", "T01"),
        ("table", "T02"),
        ("table", "T03"),
        ("pit", None),
        ("pit", None),
        ("casino", None),
    ]
    assert [x["pit"] for x in got if x["level"] == "pit"] == ["P1", None]
    p1 = got[6]
    assert (p1["win"], p1["drop"], p1["hold"], p1["drop_variance"]) == (
        "600",
        "900",
        "66.67",
        "-100",
    )
    casino = got[-1]
    assert casino["status"] == "pending" and casino["findings"] == 1
    t01 = got[0]
    assert (t01["win_ytd"], t01["drop_ytd"], t01["hold_ytd"]) == ("450", "1500", "30.00")


def test_level_table_and_pit_select_rows(db: Path) -> None:
    assert [x["level"] for x in rows(db, "--level", "pit", "--level", "casino")] == [
        "pit",
        "pit",
        "casino",
    ]
    got = rows(db, "--table", "t02")  # a table named with case ignored
    assert [(x["level"], x["table"]) for x in got] == [("shift", "T02"), ("table", "T02")]
    got = rows(db, "--pit", "P1")
    assert [(x["level"], x["table"]) for x in got] == [
        ("shift", "T01"),
        ("shift", "T02"),
        ("table", "T01"),
        ("table", "T02"),
        ("pit", None),
    ]
    r = cli("books", "--db", str(db), "--table", "T99")
    assert r.exit_code == 1 and "no table 'T99'" in r.stderr


def test_a_range_reaches_back_for_month_to_date(db: Path) -> None:
    got = rows(db, "--from", "2026-11-27", "--to", "2026-11-28", "--level", "shift")
    t01 = [x for x in got if x["table"] == "T01"]
    assert [(x["gaming_day"], x["win_mtd"]) for x in t01] == [
        ("2026-11-27", "100"),
        ("2026-11-28", "450"),
    ]


def test_fail_on_variance_exits_3_for_a_selected_period_with_a_drop_mismatch(db: Path) -> None:
    r = cli("books", "--db", str(db), "--fail-on-variance", "--format", "jsonl")
    assert r.exit_code == 3, r.output
    assert r.stdout.strip()  # the report is printed all the same
    assert "T02 2026-11-28 day" in r.stderr
    r = cli("books", "--db", str(db), "--fail-on-variance", "--table", "T01")
    assert r.exit_code == 0, r.output


def test_no_database_is_exit_1_and_none_is_created(tmp_path: Path) -> None:
    missing = tmp_path / "none.duckdb"
    r = cli("books", "--db", str(missing))
    assert r.exit_code == 1
    assert r.stderr.startswith("Error: no database at") and len(r.stderr.splitlines()) == 1
    assert not missing.exists()


def test_days_without_books_or_rounds_are_exit_1(db: Path) -> None:
    r = cli("books", "--db", str(db), "--date", "2026-12-05")
    assert r.exit_code == 1
    assert r.stderr == "Error: no books and no rounds in gaming day 2026-12-05\n"


def test_a_day_with_rounds_but_no_books_is_an_empty_report(sample_db: Path) -> None:
    r = cli("books", "--db", str(sample_db), "--format", "csv")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == [MGR_HEADER]
    assert "no table kept books in gaming day 2026-11-28" in r.stderr


def test_usage_errors_are_exit_2(db: Path) -> None:
    assert cli("books", "--db", str(db), "--level", "room").exit_code == 2
    assert cli("books", "--db", str(db), "--from", "2026-11-28").exit_code == 2
    assert cli("books", "--db", str(db), "--date", "28/11/2026").exit_code == 2


def test_a_bad_house_file_is_one_line_and_exit_1(db: Path, tmp_path: Path) -> None:
    bad = tmp_path / "house.toml"
    bad.write_text('day_start = { value = "25:00", source = "x" }\n')
    r = cli("books", "--db", str(db), "--house", str(bad))
    assert r.exit_code == 1 and len(r.stderr.splitlines()) == 1
    assert "day_start" in r.stderr


def test_another_house_file_than_the_reconciled_ones_reads_as_not_audited(
    db: Path, tmp_path: Path
) -> None:
    other = tmp_path / "house.toml"
    other.write_text('adjustment_report = { value = "500", source = "the casino" }\n')
    got = rows(db, "--house", str(other), "--level", "shift")
    assert {x["status"] for x in got} == {"not_audited"}


def test_the_terminal_table_is_grouped_by_pit(db: Path) -> None:
    r = cli("books", "--db", str(db), "--format", "table")
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert out.index("gaming day 2026-11-28 · pit P1") < out.index("pit (none)")
    assert out.index("pit (none)") < out.index("gaming day 2026-11-28 · casino")
    assert "3 periods" in out


def test_csv_cells_are_neutralised_unless_raw(db: Path, tmp_path: Path) -> None:
    # a table id that a spreadsheet would evaluate, stored as the books name it
    import datetime as dt

    from audit.books.house import load_house
    from audit.books.model import Period
    from audit.store import open_store
    from audit.store.periods import store_periods
    from tests.cli.books_db import figures

    p = Period("=HYPERLINK(1)", dt.date(2026, 11, 28), "day", None, "reconciled", figures())
    with open_store(db) as store, store.transaction():
        store_periods(
            store.con,
            [p],
            digests={(p.table, p.gaming_day, p.shift): "d"},
            house_sha256=load_house().sha256,
        )
    r = cli("books", "--db", str(db), "--format", "csv", "--level", "shift")
    assert "'=HYPERLINK(1)" in r.stdout
    assert ",-100," in cli("books", "--db", str(db), "--format", "csv").stdout  # numbers kept
    raw = cli("books", "--db", str(db), "--format", "csv", "--level", "shift", "--raw")
    assert "\n=HYPERLINK(1)" not in raw.stdout and ",=HYPERLINK(1)," in raw.stdout
