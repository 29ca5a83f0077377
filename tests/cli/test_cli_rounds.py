"""``rounds`` and ``hand --at`` (issue 30 point 1): the round of a dispute from a table
and a time, a player or a dealer, on a small hand-written night (tests/cli/rounds_log.py)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.cli.helpers import cli
from tests.cli.rounds_log import DST_NIGHT, EVENING, night_events, write_night


@pytest.fixture(scope="module")
def night_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """T03's evening (gaming day 2026-11-28) and T05's DST night, ingested and audited."""
    folder = tmp_path_factory.mktemp("rounds")
    write_night(folder / "logs" / "T03.jsonl", night_events("T03", "T03-S1", EVENING))
    write_night(folder / "logs" / "T05.jsonl", night_events("T05", "T05-S1", DST_NIGHT))
    db = folder / "audit.duckdb"
    for args in (["ingest", "--db", str(db), str(folder / "logs")], ["run", "--db", str(db)]):
        result = cli(*args)
        assert result.exit_code == 0, result.output
    return db


def rounds(db: Path, *args: str) -> tuple[int, str, str]:
    result = cli("rounds", "--db", str(db), *args)
    return result.exit_code, result.stdout, result.stderr


HEAD = (
    "   table  shoe    round  opened                     closed          dealer  players  findings"
)


def test_at_a_round_in_play_lists_it_marked_with_its_neighbours(night_db: Path) -> None:
    code, out, err = rounds(
        night_db, "--table", "T03", "--at", "2026-11-28T21:35:30", "--format", "table"
    )
    assert (code, err) == (0, "")
    assert out == "\n".join(
        [
            "at 2026-11-28 21:35:30+01:00",
            HEAD,
            "   T03    T03-S1  1      2026-11-28 21:30:00+01:00  21:31:00+01:00  D001    ••••01   "
            "0",
            ">  T03    T03-S1  2      2026-11-28 21:35:00+01:00  21:36:00+01:00  D001    ••••02   "
            "0",
            "   T03    T03-S1  3      2026-11-28 21:40:00+01:00  21:41:00+01:00  D002    ••••01   "
            "1: critical PAY_WRONG_AMOUNT",
            "3 rounds",
            "",
        ]
    )


def test_at_between_rounds_says_none_was_in_play_and_lists_both_sides(night_db: Path) -> None:
    code, out, _ = rounds(
        night_db, "--table", "t03", "--at", "2026-11-28T21:38", "--format", "table"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == (
        "no round was in play at T03 at 2026-11-28 21:38:00+01:00: "
        "the rounds just before and after it follow"
    )
    assert [line.split()[2] for line in lines[3:5]] == ["2", "3"]
    assert not any(line.startswith(">") for line in lines)
    assert lines[-1] == "2 rounds"


def test_at_before_the_first_and_after_the_last_round(night_db: Path) -> None:
    code, out, _ = rounds(
        night_db, "--table", "T03", "--at", "2026-11-28T20:00", "--format", "jsonl"
    )
    assert code == 0
    (only,) = [json.loads(line) for line in out.splitlines()]
    assert (only["round"], only["position"]) == (1, "after")
    code, out, err = rounds(
        night_db, "--table", "T03", "--at", "2026-11-29T05:00", "--format", "jsonl"
    )
    assert code == 0
    (only,) = [json.loads(line) for line in out.splitlines()]
    assert (only["round"], only["position"], only["at"]) == (
        4,
        "before",
        "2026-11-29T05:00:00+01:00",
    )
    # on a pipe the rows stay data: what the rows do not say goes to stderr
    assert err == (
        "no round was in play at T03 at 2026-11-29 05:00:00+01:00: "
        "the round just before it follows (none after it)\n"
    )


def test_time_of_day_with_date_is_the_gaming_day_past_midnight(night_db: Path) -> None:
    code, out, _ = rounds(
        night_db, "--table", "T03", "--at", "02:30", "--date", "2026-11-28", "--format", "jsonl"
    )
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["round"], r["position"]) for r in rows] == [(3, "before"), (4, "in play")]
    assert rows[1]["opened"] == "2026-11-29T02:29:30+01:00"
    assert rows[1]["closed"] == "2026-11-29T02:30:30+01:00"
    # a day starting at 02:00 puts 02:30 on the gaming day's own date, before its rounds
    code, out, _ = rounds(
        night_db, "--table", "T03", "--at", "02:30", "--date", "2026-11-28", "--day-start", "02:00"
    )
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["round"], r["position"], r["at"]) for r in rows] == [
        (1, "after", "2026-11-28T02:30:00+01:00")
    ]


def test_a_local_time_that_happened_twice_is_answered_for_both_readings(night_db: Path) -> None:
    code, out, err = rounds(
        night_db, "--table", "T05", "--at", "02:20:30", "--date", "2026-10-24", "--format", "table"
    )
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (
        "02:20:30 happened twice at T05 (the clocks went from +02:00 to +01:00)"
    )
    assert "at 2026-10-25 02:20:30+02:00" in out.splitlines()
    assert "at 2026-10-25 02:20:30+01:00" in out.splitlines()
    marked = [line.split()[3] for line in out.splitlines() if line.startswith(">")]
    assert marked == ["1", "3"]
    # after the change, one reading only
    code, out, _ = rounds(
        night_db, "--table", "T05", "--at", "2026-10-25T03:10:30", "--format", "jsonl"
    )
    rows = [json.loads(line) for line in out.splitlines()]
    assert {r["at"] for r in rows} == {"2026-10-25T03:10:30+01:00"}
    assert [r["round"] for r in rows if r["position"] == "in play"] == [4]


def test_unknown_table_or_empty_day_is_one_line_exit_1(night_db: Path) -> None:
    code, out, err = rounds(night_db, "--table", "T09", "--at", "2026-11-28T21:40")
    assert (code, out) == (1, "")
    assert err == "Error: no table 'T09' in the database; tables: T03, T05\n"
    code, _, err = rounds(night_db, "--table", "T03", "--at", "2026-12-01T21:40")
    assert (code, err) == (1, "Error: table T03 has no audited round on gaming day 2026-12-01\n")


@pytest.mark.parametrize(
    "args",
    [
        ["--at", "21:40"],
        ["--table", "T03", "--at", "21:40"],
        ["--table", "T03", "--at", "2026-11-28T21:40", "--date", "2026-11-28"],
        ["--table", "T03", "--at", "yesterday"],
        ["--date", "2026-11-28", "--from", "2026-11-27"],
    ],
)
def test_usage_errors_exit_2(night_db: Path, args: list[str]) -> None:
    code, out, err = rounds(night_db, *args)
    assert (code, out) == (2, "")
    assert err.startswith("Error: ") and err.count("\n") == 1


def test_player_search_takes_the_full_id_and_shows_it_masked(night_db: Path) -> None:
    code, out, _ = rounds(night_db, "--player", "P-2002", "--format", "jsonl")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["table"], r["round"], r["players"]) for r in rows] == [
        ("T05", 3, ["••••02"]),
        ("T03", 2, ["••••02"]),
    ]
    assert "P-2002" not in out
    code, out, _ = rounds(night_db, "--player", "P-2002", "--show-players", "--format", "jsonl")
    assert [json.loads(line)["players"] for line in out.splitlines()] == [["P-2002"], ["P-2002"]]


def test_dealer_flagged_and_date_filters(night_db: Path) -> None:
    code, out, _ = rounds(night_db, "--dealer", "D002", "--format", "jsonl")
    assert [json.loads(line)["round"] for line in out.splitlines()] == [3, 4]
    code, out, _ = rounds(night_db, "--flagged", "--format", "jsonl")
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert (
        row["table"],
        row["round"],
        row["findings"],
        row["worst_code"],
        row["worst_severity"],
    ) == ("T03", 3, 1, "PAY_WRONG_AMOUNT", "critical")
    code, out, _ = rounds(night_db, "--date", "2026-10-24", "--format", "jsonl")
    assert {json.loads(line)["table"] for line in out.splitlines()} == {"T05"}
    code, out, err = rounds(night_db, "--dealer", "D404")
    assert (code, out, err) == (1, "", "Error: no round matches\n")


def test_csv_guards_cells_against_spreadsheet_formulas(night_db: Path) -> None:
    code, out, _ = rounds(
        night_db, "--table", "T03", "--date", "2026-11-28", "--show-players", "--format", "csv"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[3]["players"] == "'=HYPERLINK(1)"
    assert rows[0]["opened"] == "2026-11-28T21:30:00+01:00"
    code, out, _ = rounds(
        night_db,
        "--table",
        "T03",
        "--date",
        "2026-11-28",
        "--show-players",
        "--format",
        "csv",
        "--raw",
    )
    assert list(csv.DictReader(io.StringIO(out)))[3]["players"] == "=HYPERLINK(1)"


def test_a_banker_who_is_a_player_is_masked_in_the_dealer_column(tmp_path: Path) -> None:
    from tests.cli.rounds_log import PlannedRound

    night = [
        PlannedRound("2026-11-28T21:30:00+01:00", player="P-7777"),
        PlannedRound("2026-11-28T21:35:00+01:00", dealer_change="P-7777"),
    ]
    write_night(tmp_path / "logs" / "T04.jsonl", night_events("T04", "T04-S1", night))
    db = tmp_path / "a.duckdb"
    assert cli("ingest", "--db", str(db), str(tmp_path / "logs")).exit_code == 0
    assert cli("run", "--db", str(db)).exit_code == 0
    _, out, _ = rounds(db, "--format", "jsonl")
    assert [json.loads(line)["dealer"] for line in out.splitlines()] == ["D001", "••••77"]
    assert "P-7777" not in out


def test_hand_at_opens_the_round_in_play(night_db: Path) -> None:
    result = cli("hand", "--db", str(night_db), "t03", "--at", "2026-11-28T21:40:30")
    assert result.exit_code == 0, result.stderr
    by_id = cli("hand", "--db", str(night_db), "T03", "T03-S1", "3")
    assert result.stdout == by_id.stdout
    assert "round 3" in result.stdout.splitlines()[0]


def test_hand_at_with_no_round_in_play_names_the_neighbours(night_db: Path) -> None:
    result = cli("hand", "--db", str(night_db), "T03", "--at", "2026-11-28T21:38")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "Error: no round was in play at T03 at 2026-11-28 21:38:00 "
        "(before: T03-S1 round 2 2026-11-28 21:35:00+01:00 to 21:36:00; "
        "after: T03-S1 round 3 2026-11-28 21:40:00+01:00 to 21:41:00)\n"
    )


def test_hand_at_a_time_that_happened_twice_with_two_rounds_is_named(night_db: Path) -> None:
    result = cli("hand", "--db", str(night_db), "T05", "--at", "02:20:30", "--date", "2026-10-24")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: 2 rounds were in play at T05 at 2026-10-25 02:20:30: "
        "T05-S1 round 1 opened 2026-10-25 02:20:00+02:00; "
        "T05-S1 round 3 opened 2026-10-25 02:20:00+01:00\n"
    )
    # with the offset given, the moment is one
    result = cli("hand", "--db", str(night_db), "T05", "--at", "2026-10-25T02:20:30+01:00")
    assert result.exit_code == 0, result.stderr
    assert "round 3" in result.stdout.splitlines()[0]


def test_hand_needs_shoe_and_round_or_at(night_db: Path) -> None:
    result = cli("hand", "--db", str(night_db), "T03")
    assert result.exit_code == 2
    assert result.stderr == "Error: hand takes TABLE SHOE ROUND, or TABLE --at TIME\n"
