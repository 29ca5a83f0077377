"""Issue 14.16-14.18: values from a log or a user are printed as text, never as markup,
never with their control characters; CSV cells cannot start a spreadsheet formula."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from audit.cli.output import neutralise_cell, safe_line, safe_text
from tests.cli.helpers import cli

WORKED = Path(__file__).resolve().parents[1] / "data" / "worked_example.jsonl"
WIDE = {"COLUMNS": "250"}


def hostile_log(folder: Path, table: str, shoe: str, id_prefix: str = "") -> Path:
    """The worked example with its table, shoe and event ids replaced."""
    lines = []
    for line in WORKED.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        event.update(table=table, shoe=shoe, id=id_prefix + event["id"])
        lines.append(json.dumps(event))
    path = folder / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


MARKUP_TABLE = "[link=http://evil.example]T07[/link]"
MARKUP_SHOE = "S[/]1"
ANSI_TABLE = "T\x1b[31mRED\x1b]0;pwned\x07"


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    db = folder / "audit.duckdb"
    assert (
        cli(
            "ingest", "--db", str(db), str(hostile_log(folder, MARKUP_TABLE, MARKUP_SHOE))
        ).exit_code
        == 0
    )
    assert cli("run", "--db", str(db), "--workers", "1").exit_code == 0
    return db


def test_markup_in_ids_is_printed_as_text_in_the_findings_table(hostile_db: Path) -> None:
    result = cli("findings", "--db", str(hostile_db), "--format", "table", env=WIDE)
    assert result.exit_code == 0, result.output
    assert MARKUP_TABLE in result.stdout and MARKUP_SHOE in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["hand", MARKUP_TABLE, MARKUP_SHOE, "1"],
        ["hand", MARKUP_TABLE, "[/]", "1"],
        ["hand", "[/]", "x", "1"],
        ["report", "--out", "{tmp}/[/]"],
        ["profiles", "[/]"],
        ["ingest", "{tmp}/[link=x]missing[/link]"],
    ],
)
def test_markup_in_arguments_never_crashes(
    hostile_db: Path, tmp_path: Path, args: list[str]
) -> None:
    db = [] if args[0] == "profiles" else ["--db", str(hostile_db)]
    result = cli(*[a.format(tmp=tmp_path) for a in args], *db)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "MarkupError" not in result.output
    if result.exit_code:
        assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    if args[0] in {"hand", "profiles", "ingest"} and args[1] == "[/]":
        assert "'[/]'" in result.stderr


def test_ansi_escapes_never_reach_the_terminal(tmp_path: Path) -> None:
    db = tmp_path / "audit.duckdb"
    log = hostile_log(tmp_path, ANSI_TABLE, "S\x9b31m1")
    named = log.rename(tmp_path / "T\x1b[2Jx.jsonl")  # a hostile file name too
    results = [cli("ingest", "--db", str(db), str(named)), cli("run", "--db", str(db))]
    results += [
        cli("findings", "--db", str(db), "--format", fmt, env=WIDE) for fmt in ("table", "csv")
    ]
    results += [
        cli("findings", "--db", str(db), "--format", "jsonl"),
        cli("status", "--db", str(db)),
        cli("hand", ANSI_TABLE, "S\x9b31m1", "1", "--db", str(db)),
        cli("hand", ANSI_TABLE, "nope", "1", "--db", str(db)),
    ]
    for result in results:
        assert result.exit_code in (0, 1), result.output
        for stream in (result.stdout, result.stderr):
            assert "\x1b" not in stream and "\x9b" not in stream and "\x07" not in stream
    assert "T\\x1b[2Jx.jsonl" in results[0].stderr
    assert "T\\x1b[31mRED\\x1b]0;pwned\\x07" in results[2].stdout
    assert r"T\u001b[31mRED\u001b]0;pwned\u0007" in results[4].stdout  # jsonl: JSON escapes
    assert "T\\x1b[31mRED" in results[-1].stderr


def test_safe_line_and_text() -> None:
    assert safe_line("a\x1b[31mb\nc\x9bd\u202ee") == "a\\x1b[31mb\\x0ac\\x9bd\\u202ee"
    assert safe_text("a\tb\nc\x1b") == "a\tb\nc\\x1b"
    assert safe_line("più [/] «x»") == "più [/] «x»"


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://evil")', '\'=HYPERLINK("http://evil")'),
        ("+cmd", "'+cmd"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("-50", "-50"),
        ("-37.5", "-37.5"),
        ("+15", "+15"),
        ("T07", "T07"),
        ("", ""),
    ],
)
def test_neutralise_cell(cell: str, written: str) -> None:
    assert neutralise_cell(cell) == written


def test_findings_csv_neutralises_formulas_and_raw_keeps_them(tmp_path: Path) -> None:
    db = tmp_path / "audit.duckdb"
    log = hostile_log(tmp_path, "=cmd|' /C calc'!A0", "@SUM(1+1)", id_prefix="+")
    assert cli("ingest", "--db", str(db), str(log)).exit_code == 0
    assert cli("run", "--db", str(db), "--workers", "1").exit_code == 0
    rows = {}
    for mode in ("safe", "raw"):
        extra = ["--raw"] if mode == "raw" else []
        result = cli("findings", "--db", str(db), "--format", "csv", *extra)
        assert result.exit_code == 0, result.output
        (rows[mode],) = list(csv.DictReader(io.StringIO(result.stdout)))
    safe, raw = rows["safe"], rows["raw"]
    assert (safe["table"], safe["shoe"]) == ("'=cmd|' /C calc'!A0", "'@SUM(1+1)")
    assert safe["events"].startswith("'+T07-")
    assert (safe["expected"], safe["actual"], safe["impact"]) == ("-50", "75", "125")
    assert (raw["table"], raw["shoe"]) == ("=cmd|' /C calc'!A0", "@SUM(1+1)")
    assert raw["events"].startswith("+T07-")
