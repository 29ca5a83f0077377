"""``shoe-audit adjust`` (accounting.md "Adjustments", "Command line"): a manager account,
authenticated as ``review`` is, appends an adjustment to the review trail (never the
database); ``books`` shows it beside the books as counted; ``verify`` catches one tampered.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from audit.review import ReviewTrail
from audit.review.adjustments import stored, trail_adjustments
from tests.accounts import BOSS_PASSWORD, add_accounts
from tests.cli.books_db import books_db
from tests.cli.helpers import cli

ANA_PASSWORD = "ana's long password"


@pytest.fixture
def db(sample_db: Path, tmp_path: Path) -> Path:
    db = books_db(sample_db, tmp_path)
    add_accounts(ReviewTrail.beside(db), "ana", password=ANA_PASSWORD)  # boss: a manager
    return db


def adjust(db: Path, *args: str, password: str = BOSS_PASSWORD, by: str = "boss") -> Any:
    return cli(
        "adjust", "--db", str(db), *args, "--by", by, "--password-stdin", input=password + "\n"
    )


def shift_row(db: Path, table: str = "T01") -> dict[str, Any]:
    r = cli("books", "--db", str(db), "--format", "jsonl", "--table", table, "--level", "shift")
    assert r.exit_code == 0, r.output
    (row,) = [json.loads(x) for x in r.stdout.splitlines()]
    return row


def db_digest(db: Path) -> str:
    return hashlib.sha256(db.read_bytes()).hexdigest()


def test_a_manager_records_an_adjustment_and_books_shows_both_books(db: Path) -> None:
    before = db_digest(db)
    r = adjust(db, "T01", "2026-11-28", "--line", "closer", "--amount", "25", "--reason",
               "recount of the closer", "--ref", "TIS-88")  # fmt: skip
    assert r.exit_code == 0, r.output
    assert r.stdout == "ADJ-1\n"
    assert db_digest(db) == before  # never a database write
    (a,) = trail_adjustments(ReviewTrail.beside(db))
    assert (a.id, a.source, a.table, a.shift, a.line, str(a.amount), a.by, a.ref) == (
        "ADJ-1", "trail", "T01", "day", "closer", "25", "boss", "TIS-88",
    )  # fmt: skip
    row = shift_row(db)
    assert (row["win"], row["adjustments"], row["win_adjusted"]) == ("350", "25", "375")
    assert row["status"] == "not_audited"  # its adjustments changed since run judged it
    log = cli("books", "--db", str(db), "--adjustments", "--format", "jsonl")
    (entry,) = [json.loads(x) for x in log.stdout.splitlines()]
    assert (entry["id"], entry["source"], entry["effect"], entry["reportable"]) == (
        "ADJ-1", "trail", "25", False,
    )  # fmt: skip
    assert entry["recorded_at"].endswith("+00:00") and entry["by"] == "boss"


def test_a_correction_reverses_an_earlier_adjustment(db: Path) -> None:
    args = ("T01", "2026-11-28", "--line", "fills", "--amount", "2500", "--reason", "keyed")
    assert adjust(db, *args).stdout == "ADJ-1\n"
    r = adjust(db, "T01", "2026-11-28", "--reverses", "ADJ-1", "--reason", "keyed twice")
    assert r.exit_code == 0, r.output
    assert r.stdout == "ADJ-2\n"
    second = stored(ReviewTrail.beside(db))[1]
    assert (second.line, second.amount, second.reverses) == ("fills", "-2500", "ADJ-1")
    row = shift_row(db)
    assert (row["adjustments"], row["win_adjusted"]) == ("0", "350")
    log = cli("books", "--db", str(db), "--adjustments", "--format", "jsonl").stdout
    assert [json.loads(x)["reportable"] for x in log.splitlines()] == [True, True]
    again = adjust(db, "T01", "2026-11-28", "--reverses", "ADJ-1", "--reason", "again")
    assert again.exit_code == 1 and "reversed already, by ADJ-2" in again.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--line", "bankroll", "--amount", "5", "--reason", "x"), "unknown line 'bankroll'"),
        (("--line", "closer", "--amount", "0", "--reason", "x"), "is not 0"),
        (("--line", "closer", "--amount", "0.001", "--reason", "x"), "at most 2 decimals"),
        (("--line", "closer", "--amount", "ten", "--reason", "x"), "--amount takes"),
        (("--line", "closer", "--amount", "5", "--reason", "  "), "--reason TEXT is required"),
        (
            ("--line", "closer", "--amount", "5", "--reason", "x", "--shift", "night"),
            "unknown shift 'night'",
        ),
        (("--reverses", "ADJ-1", "--amount", "5", "--reason", "x"), "leave out --line"),
    ],
)
def test_usage_errors_are_exit_2_and_record_nothing(
    db: Path, args: tuple[str, ...], message: str
) -> None:
    r = adjust(db, "T01", "2026-11-28", *args)
    assert r.exit_code == 2, r.output
    assert message in r.stderr and len(r.stderr.splitlines()) == 1
    assert stored(ReviewTrail.beside(db)) == []


@pytest.mark.parametrize(
    ("by", "password", "message"),
    [
        ("boss", "not the password", "unknown account or wrong password"),
        ("nobody", BOSS_PASSWORD, "unknown account or wrong password"),
        ("ana", ANA_PASSWORD, "adjustments are recorded by a manager account only"),
    ],
)
def test_only_a_manager_with_its_password_records_one(
    db: Path, by: str, password: str, message: str
) -> None:
    args = ("T01", "2026-11-28", "--line", "closer", "--amount", "5", "--reason", "x")
    r = adjust(db, *args, by=by, password=password)
    assert r.exit_code == 1, r.output
    assert message in r.stderr and len(r.stderr.splitlines()) == 1
    assert stored(ReviewTrail.beside(db)) == []


def test_no_books_for_the_period_no_database_and_unknown_reverses_are_exit_1(
    db: Path, tmp_path: Path
) -> None:
    args = ("--line", "closer", "--amount", "5", "--reason", "x")
    r = adjust(db, "T04", "2026-11-28", *args)  # T04 keeps no books
    assert r.exit_code == 1 and "no books for T04 gaming day 2026-11-28 shift day" in r.stderr
    r = adjust(db, "T01", "2026-11-29", *args)
    assert r.exit_code == 1 and "no books for T01" in r.stderr
    missing = tmp_path / "none" / "audit.duckdb"
    r = adjust(missing, "T01", "2026-11-28", *args)
    assert r.exit_code == 1 and "no database at" in r.stderr and not missing.exists()
    r = adjust(db, "T01", "2026-11-28", "--reverses", "ADJ-9", "--reason", "x")
    assert r.exit_code == 1 and "no adjustment 'ADJ-9'" in r.stderr
    assert stored(ReviewTrail.beside(db)) == []


def test_the_adjustments_table_refuses_updates_and_deletes(db: Path) -> None:
    adjust(db, "T01", "2026-11-28", "--line", "closer", "--amount", "5", "--reason", "x")
    con = sqlite3.connect(db.with_name("audit.reviews.sqlite"))
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        con.execute("UPDATE adjustments SET amount = '500'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        con.execute("DELETE FROM adjustments")
    con.close()


def tamper(db: Path, *statements: str) -> None:
    con = sqlite3.connect(db.with_name("audit.reviews.sqlite"))
    con.execute("DROP TRIGGER IF EXISTS adjustments_never_updated")
    con.execute("DROP TRIGGER IF EXISTS adjustments_never_deleted")
    for s in statements:
        con.execute(s)
    con.commit()
    con.close()


def tampered(db: Path) -> tuple[int, list[str]]:
    r = cli("verify", "--db", str(db))
    return r.exit_code, [x for x in r.stdout.splitlines() if "adjustment" in x]


def two_adjustments(db: Path) -> None:
    for amount in ("5", "-7.5"):
        r = adjust(db, "T01", "2026-11-28", "--line", "drop_cash", "--amount", amount,
                   "--reason", "count sheet")  # fmt: skip
        assert r.exit_code == 0, r.output


def test_an_untouched_trail_with_adjustments_verifies_clean(db: Path) -> None:
    two_adjustments(db)
    r = cli("verify", "--db", str(db))
    assert r.exit_code == 0, r.output


def test_an_adjustments_amount_changed_behind_the_trails_back_is_caught(db: Path) -> None:
    two_adjustments(db)
    tamper(db, "UPDATE adjustments SET amount = '-0.5' WHERE seq = 2")
    code, lines = tampered(db)
    assert code == 4
    assert any("adjustment #2 (ADJ-2): amount changed after it was recorded" in x for x in lines)


def test_an_adjustment_removed_behind_the_trails_back_is_caught(db: Path) -> None:
    two_adjustments(db)
    tamper(db, "DELETE FROM adjustments WHERE seq = 2")
    code, lines = tampered(db)
    assert code == 4
    assert any("adjustment #2 (ADJ-2) removed after it was recorded" in x for x in lines)


def test_an_adjustment_edited_with_its_hash_recomputed_is_caught(db: Path) -> None:
    from audit.review.adjustments import adjustment_hash

    two_adjustments(db)
    first = stored(ReviewTrail.beside(db))[0]
    fields = {**first.fields(), "reason": "nothing to see"}
    h = adjustment_hash(first.prev_hash, 1, fields)
    tamper(db, f"UPDATE adjustments SET reason = 'nothing to see', hash = '{h}' WHERE seq = 1")
    code, lines = tampered(db)
    assert code == 4
    assert any("adjustment #1 (ADJ-1): reason changed after it was recorded" in x for x in lines)


def test_an_adjustment_inserted_behind_the_trails_back_is_caught(db: Path) -> None:
    two_adjustments(db)
    tamper(
        db,
        "INSERT INTO adjustments SELECT 3, 'ADJ-3', table_id, gaming_day, shift, line, "
        "'900', reason, by_name, account, os_user, via, recorded_at, ref, reverses, hash, "
        "'feed' FROM adjustments WHERE seq = 2",
    )
    code, lines = tampered(db)
    assert code == 4
    assert any("adjustment #3 (ADJ-3) is not in the trail's ledger file" in x for x in lines)
