"""``findings`` for a dispute (issue 30, point 2): by days, dealer, player and review; a
table typed loosely; a table that fits 80 columns; the keys cli.md v1.2 adds."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from audit.review import ReviewTrail
from tests.accounts import add_accounts
from tests.cli.helpers import cli

# Each line as printed, without the padding Rich adds at its end.
TABLE_T02 = """\
id         severity · code             where · what happened
────────────────────────────────────────────────────────────────────────────────
1c64c86b   critical                    T02 · T02-20261128-01 · round 8 · box 1
           BET_AFTER_NO_MORE_BETS      opened 2026-11-28T20:23:43+01:00 · dealer
                                       D338
                                       box 1 spot 0: stake set to 40 after
                                       betting closed
b1e9d68d   major                       T02 · T02-20261128-01 · round 14
           SHOE_ROUND_AFTER_CUT_CARD   opened 2026-11-28T20:37:53+01:00 · dealer
                                       D338
                                       round 14 starts after the cut card came
                                       out in round 13, which was the last of
                                       the shoe
eb657657   critical                    T02 · T02-20261128-06 · round 14 · box 3
           PAY_MISSING                 · hand 0
                                       opened 2026-11-28T22:56:57+01:00 · dealer
                                       D338
                                       box 3 hand 0 spot 0 main: never settled;
                                       due -10 (19 v dealer 20: loss)
                                       impact 10
1295f8a4   critical                    T02 · T02-20261128-06 · round 15 · box 3
           PAY_WRONG_OUTCOME           · hand 0
                                       opened 2026-11-28T22:57:58+01:00 · dealer
                                       D338
                                       box 3 hand 0 spot 2 main (QD,JC v dealer
                                       JS,8S, stake 20): settled -20, due 20 (20
                                       v dealer 18: win)
                                       impact -40
ab5e8565   critical                    T02 · T02-20261128-06 · round 20 · box 4
           BET_AFTER_NO_MORE_BETS      opened 2026-11-28T23:03:32+01:00 · dealer
                                       D304
                                       box 4 spot 0: stake set to 70 after
                                       betting closed
5 findings
"""


def rows(db: Path, *args: str) -> list[dict[str, Any]]:
    res = cli("findings", "--db", str(db), "--format", "jsonl", *args)
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.stdout.splitlines()]


def short_ids(db: Path, *args: str) -> list[str]:
    return [r["id"][:8] for r in rows(db, *args)]


def test_the_table_fits_80_columns_with_short_ids_and_words_whole(sample_db: Path) -> None:
    res = cli("findings", "--db", str(sample_db), "--format", "table", "--table", "t02",
              env={"COLUMNS": "80"})  # fmt: skip
    assert res.exit_code == 0, res.output
    # Rich pads every line to the table's width: the text is compared without it.
    assert [line.rstrip() for line in res.stdout.splitlines()] == TABLE_T02.splitlines()
    assert max(len(line) for line in res.stdout.splitlines()) <= 80


def test_every_code_and_severity_stays_whole_at_80_columns(sample_db: Path) -> None:
    res = cli("findings", "--db", str(sample_db), "--format", "table", env={"COLUMNS": "80"})
    lines = res.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    words = {w for line in lines for w in line.split()}
    for r in rows(sample_db):
        assert {r["code"], r["severity"], r["id"][:8]} <= words


def test_a_repeated_single_valued_option_is_a_usage_error(sample_db: Path) -> None:
    db = str(sample_db)
    res = cli("findings", "--db", db, "--date", "2026-11-28", "--date", "2026-11-29")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        "Error: --date was given more than once; it takes one value "
        "(see 'shoe-audit findings --help')\n"
    )
    res = cli("findings", "--db", db, "--table", "T01", "--table=T02")
    assert res.exit_code == 2 and "--table was given more than once" in res.stderr
    # Every command, from the one place: status has nothing of its own for it.
    res = cli("status", "--db", db, "--db", db)
    assert res.exit_code == 2 and "--db was given more than once" in res.stderr
    # Repeatable options and flags stay so.
    assert cli("findings", "--db", db, "--code", "PAY_MISSING", "--code", "PAY_DUPLICATE",
               "--format", "jsonl").exit_code == 0  # fmt: skip
    assert cli("status", "--db", db, "--json", "--json").exit_code == 0


def test_a_table_typed_in_lower_case_is_found(sample_db: Path) -> None:
    assert short_ids(sample_db, "--table", "t04") == short_ids(sample_db, "--table", "T04")
    assert len(short_ids(sample_db, "--table", "t04")) == 4


def test_an_unknown_table_exits_1_naming_the_tables(sample_db: Path) -> None:
    res = cli("findings", "--db", str(sample_db), "--table", "T9")
    assert (res.exit_code, res.stdout) == (1, "")
    assert res.stderr == "Error: no table 'T9' in the database; tables: T01, T02, T03, T04\n"


def test_from_to_names_gaming_days(sample_db: Path) -> None:
    day = short_ids(sample_db, "--date", "2026-11-28")
    assert len(day) == 17
    assert short_ids(sample_db, "--from", "2026-11-27", "--to", "2026-11-28") == day
    # T04's shoes opened after midnight belong to gaming day 28 November.
    assert short_ids(sample_db, "--from", "2026-11-29", "--to", "2026-11-30") == []
    res = cli("findings", "--db", str(sample_db), "--date", "2026-11-28", "--from", "2026-11-28")
    assert (res.exit_code, res.stderr) == (
        2,
        "Error: give either --date or --from/--to, not both\n",
    )


def test_dealer_keeps_the_rounds_that_dealer_dealt(sample_db: Path) -> None:
    assert short_ids(sample_db, "--dealer", "D338") == [
        "1c64c86b", "b1e9d68d", "eb657657", "1295f8a4"
    ]  # fmt: skip
    assert short_ids(sample_db, "--dealer", "D304") == ["ab5e8565"]
    # A home-game banker is found by his full id, and shown masked.
    found = rows(sample_db, "--dealer", "P-2586")
    assert [r["id"][:8] for r in found] == ["d5e50a22", "2edfaa43"]
    assert {r["dealer"] for r in found} == {"••••86"}


def test_player_keeps_the_boxes_that_player_bet_on(sample_db: Path) -> None:
    # P-3758 bet on box 3 in rounds 14 and 15 of shoe 06 (with others in round 15).
    assert short_ids(sample_db, "--player", "P-3758") == ["eb657657", "1295f8a4"]
    assert short_ids(sample_db, "--player", "P-5093") == ["1295f8a4"]
    assert short_ids(sample_db, "--player", "P-1255") == ["d5e50a22"]
    assert short_ids(sample_db, "--player", "P-0000") == []


def test_jsonl_and_csv_gain_gaming_day_dealer_and_opened(sample_db: Path) -> None:
    (f,) = rows(sample_db, "--table", "T02", "--code", "PAY_WRONG_OUTCOME")
    assert (f["gaming_day"], f["dealer"], f["opened"]) == (
        "2026-11-28", "D338", "2026-11-28T22:57:58+01:00"
    )  # fmt: skip
    res = cli("findings", "--db", str(sample_db), "--format", "csv", "--table", "T04")
    table = list(csv.DictReader(io.StringIO(res.stdout)))
    assert [(r["gaming_day"], r["dealer"], r["opened"]) for r in table[:1]] == [
        ("2026-11-28", "••••86", "2026-11-28T22:21:23+01:00")
    ]
    shown = rows(sample_db, "--table", "T04", "--show-players")
    assert [r["dealer"] for r in shown] == ["P-2586", "P-2586", "P-5426", "P-5426"]


PASSWORD = "long enough password"


@pytest.fixture
def reviewed_db(sample_db: Path, tmp_path: Path) -> Path:
    """A copy of the sample night with one finding confirmed and one critical finding
    dismissed by one account (so: dismissal pending)."""
    db = tmp_path / "audit.duckdb"
    shutil.copy(sample_db, db)
    add_accounts(ReviewTrail.beside(db), "ana", password=PASSWORD)
    for fid, decision in (("943ae283", "--confirm"), ("5ff7cbb1", "--dismiss")):
        res = cli("review", fid, "--db", str(db), "--by", "ana", "--password-stdin", decision,
                  "--note", "checked", input=f"{PASSWORD}\n")  # fmt: skip
        assert res.exit_code == 0, res.output
    return db


def test_review_keeps_the_findings_whose_review_stands_so(reviewed_db: Path) -> None:
    assert short_ids(reviewed_db, "--review", "confirmed") == ["943ae283"]
    assert short_ids(reviewed_db, "--review", "dismissal-pending") == ["5ff7cbb1"]
    assert short_ids(reviewed_db, "--review", "dismissed") == []
    assert short_ids(reviewed_db, "--review", "needs-video") == []
    still_open = short_ids(reviewed_db, "--review", "open")
    assert len(still_open) == 15 and "943ae283" not in still_open
    both = short_ids(reviewed_db, "--review", "confirmed", "--review", "dismissal-pending")
    assert both == ["943ae283", "5ff7cbb1"]
    res = cli("findings", "--db", str(reviewed_db), "--review", "closed")
    assert res.exit_code == 2 and res.stderr.startswith("Error: Invalid value for '--review'")
