"""The small ones of issue 30, point 9: verdicts on stdout, help that reads as help (no
``VALUE``, ``--note`` required, commands in the order a user meets them), counts in
English, ten spelled one way on the hand page, and the files beside a database ignored
by git and cleaned by make."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from audit.reports import render_hand
from audit.wording import counted
from tests.cli.helpers import REPO, SAMPLE, cli
from tests.reports.engine_records import example_events, example_replay
from tests.reports.htmlcheck import Page


def _commands() -> list[str]:
    help_text = cli("--help").stdout
    block = help_text.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [
        line.split()[0] for line in block.splitlines() if line.startswith("  ") and line[2] != " "
    ]


# --------------------------------------------------------------------------- help


def test_no_command_help_shows_a_value_metavar() -> None:
    names = _commands()
    assert len(names) >= 18
    for name in names:
        result = cli(name, "--help")
        assert result.exit_code == 0, (name, result.output)
        assert not re.search(r"\bVALUE\b", result.stdout), (name, result.stdout)


@pytest.mark.parametrize(
    ("command", "line"),
    [
        ("stats", "--date YYYY-MM-DD"),
        ("stats", "--from YYYY-MM-DD"),
        ("stats", "--to YYYY-MM-DD"),
        ("stats", "--alpha NUMBER"),
        ("serve", "--host HOST"),
        ("serve", "--port PORT"),
        ("serve", "--templates DIR"),
        ("theory", "--decks N"),
        ("simulate", "--bias TEXT"),
        ("review", "--by ACCOUNT"),
    ],
)
def test_metavars_say_what_the_value_looks_like(command: str, line: str) -> None:
    assert re.search(rf"^\s+{re.escape(line)}\s", cli(command, "--help").stdout, re.M)


def test_review_note_is_shown_as_required() -> None:
    text = cli("review", "--help").stdout
    note = next(x for x in text.splitlines() if x.strip().startswith("--note"))
    assert note.split()[:2] == ["--note", "TEXT"] and "[required]" in note
    assert "[default: ]" not in text


def test_commands_are_listed_in_the_order_a_user_meets_them() -> None:
    names = _commands()
    # `rounds` finds the round `hand` replays: it sits between findings and hand
    assert names[:7] == ["ingest", "run", "findings", "rounds", "hand", "report", "nightly"]
    assert names.index("review") < names.index("stats") < names.index("schema")


# --------------------------------------------------------------------------- verdicts


def test_validate_prints_its_verdict_on_stdout(tmp_path: Path) -> None:
    one = tmp_path / "T01.jsonl"
    shutil.copy(SAMPLE / "T01.jsonl", one)
    result = cli("validate", str(one))
    assert result.exit_code == 0, result.output
    verdict = result.stdout.strip().splitlines()[-1]
    assert verdict.startswith("ok: 1 file, ") and "0 invalid lines, 0 warnings" in verdict
    assert "ok:" not in result.stderr
    quiet = cli("--quiet", "validate", str(one))
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_verify_prints_its_verdict_on_stdout(sample_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "audit.duckdb"
    shutil.copy(sample_db, db)
    shutil.copy(sample_db.with_name(sample_db.name + ".ledger"), db.with_name(db.name + ".ledger"))
    result = cli("verify", "--db", str(db), str(SAMPLE / "T01.jsonl"))
    assert result.exit_code == 0, result.output
    verdict = result.stdout.strip().splitlines()[-1]
    assert verdict.startswith("intact: ") and ", 1 file compared;" in verdict, verdict
    assert "intact" not in result.stderr


# --------------------------------------------------------------------------- words


@pytest.mark.parametrize(
    ("n", "word", "many", "text"),
    [
        (0, "file", None, "0 files"),
        (1, "file", None, "1 file"),
        (2, "difference", None, "2 differences"),
        (1_234, "event", None, "1,234 events"),
        (1, "match", "matches", "1 match"),
        (3, "match", "matches", "3 matches"),
    ],
)
def test_counts_read_as_english(n: int, word: str, many: str | None, text: str) -> None:
    assert counted(n, word, many) == text


def test_the_card_picture_spells_ten_as_the_sentence_beside_it() -> None:
    """The step's card column drew ``10`` beside "TS to box 1 hand 0"."""
    page = Page(render_hand(example_replay(), 1, "html", events=example_events()))
    rows = page.tables["step-table"][1:]
    tens = [r for r in rows if "TS to box 1" in r[8]]
    assert tens, rows
    assert "T♠" in tens[0][4] and "10" not in tens[0][4]  # the picture's corner
    text = render_hand(example_replay(), 1, "text", events=example_events())
    assert re.search(r"\bTS\s+box 1 hand 0 .* TS to box 1 hand 0", text)
    assert "10S" not in text


# --------------------------------------------------------------------------- files


@pytest.mark.parametrize(
    "path",
    [
        "audit.duckdb.ledger",
        "audit.duckdb.ledger.retired-20261129T060000Z",
        "audit.duckdb.retired-20261129T060000Z",
        "audit.reviews.sqlite",
        "audit.reviews.sqlite-journal",
        "audit.reviews.ledger",
        "audit.reviews.ledger.retired-20261129T060000Z",
        "audit.duckdb.writing",
        "audit-export/day=2026-11-28/part.parquet",
    ],
)
def test_git_ignores_what_lives_beside_a_database(path: str) -> None:
    if shutil.which("git") is None:
        pytest.skip("no git")
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", "-q", path], cwd=REPO, check=False
    )
    assert result.returncode == 0, f"{path} is not ignored"


def _recipe(target: str) -> list[str]:
    """The ``rm`` lines of ``make -n TARGET`` (nothing run: the venv is not built)."""
    if shutil.which("make") is None:
        pytest.skip("no make")
    out = subprocess.run(
        ["make", "-n", "-s", target, "VENV=.venv-not-made"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [x for x in out.splitlines() if x.startswith("rm ")]


FAMILY = [
    "audit-nightly.duckdb",
    "audit-nightly.duckdb.wal",
    "audit-nightly.duckdb.ledger",
    "audit-nightly.duckdb.ledger.retired-20261129T060000Z",
    "audit-nightly.duckdb.writing",
    "audit-nightly.reviews.sqlite",
    "audit-nightly.reviews.ledger",
]


def test_make_nightly_removes_the_database_with_its_ledger_and_trail(tmp_path: Path) -> None:
    """A re-run of ``make nightly`` left a ``*.retired-*`` ledger per run: it removed the
    database and kept its ledger, which the next run then retired."""
    for name in [*FAMILY, "audit.duckdb", "audit.duckdb.ledger"]:
        (tmp_path / name).write_text("x")
    for line in _recipe("nightly"):
        subprocess.run(line, shell=True, cwd=tmp_path, check=True)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["audit.duckdb", "audit.duckdb.ledger"]  # another database kept whole


def test_make_clean_removes_them_too(tmp_path: Path) -> None:
    for name in [*FAMILY, "audit.duckdb", "audit.duckdb.ledger"]:
        (tmp_path / name).write_text("x")
    (tmp_path / "audit-export").mkdir()
    for line in _recipe("clean"):
        subprocess.run(line, shell=True, cwd=tmp_path, check=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.duckdb", "audit.duckdb.ledger"]
