"""Issue 29, point 11a: stdout's reader going away (``findings | head -1``) is no failure.

Each command runs as a real process whose stdout is a pipe closed before it writes
anything: it prints nothing (no "Error: cannot use: Broken pipe", no "Exception
ignored" at exit) and exits 0. A command that fails for another reason keeps its
exit code, and one whose work goes on (``nightly --fail-on``) keeps its verdict.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import REPO

WORKED = REPO / "tests" / "data" / "worked_example.jsonl"


def closed_reader(*args: str) -> tuple[int, str]:
    """Run ``shoe-audit ARGS`` with a stdout pipe whose reading end is closed at once;
    return its exit code and stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "audit", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the command has imported anything
    with proc.stderr:
        stderr = proc.stderr.read()
    return proc.wait(timeout=120), stderr


DB_COMMANDS = [
    ["findings"],
    ["findings", "--format", "csv"],
    ["findings", "--format", "table"],
    ["stats"],
    ["stats", "--format", "table"],
    ["status"],
    ["status", "--json"],
    ["hand", "T01", "T01-20261128-02", "14"],
    ["hand", "T01", "T01-20261128-02", "14", "--format", "json"],
]
PLAIN_COMMANDS = [
    ["theory", "it-casino-6d"],
    ["theory", "it-casino-6d", "--format", "json"],
    ["profiles"],
    ["profiles", "it-casino-6d"],
    ["--help"],
    ["findings", "--help"],
]


FORMATS_TOO = {
    ("findings", "--format", "csv"),
    ("stats", "--format", "table"),
    ("status", "--json"),
    ("hand", "T01", "T01-20261128-02", "14", "--format", "json"),
    ("theory", "it-casino-6d", "--format", "json"),
    ("profiles", "it-casino-6d"),
    ("findings", "--help"),
}
"""Another format or form of a command the default suite runs: ``slow`` (issue 33: each is
a process of its own, and every one goes through the same error boundary; the table
format stays in the default suite, the one that writes through rich)."""


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(a, marks=[pytest.mark.slow] if tuple(a) in FORMATS_TOO else [])
        for a in DB_COMMANDS + PLAIN_COMMANDS
    ],
    ids=" ".join,
)
def test_a_reader_gone_away_is_silent_and_exit_0(sample_db: Path, args: list[str]) -> None:
    db = ["--db", str(sample_db)] if args in DB_COMMANDS else []
    code, stderr = closed_reader(*args, *db)
    assert (code, stderr) == (0, "")


def test_a_failure_with_its_reader_gone_keeps_its_exit_code_and_says_why(tmp_path: Path) -> None:
    code, stderr = closed_reader("findings", "--db", str(tmp_path / "none.duckdb"))
    assert code == 1
    assert stderr.startswith("Error: no database at ") and stderr.count("\n") == 1


def test_nightly_keeps_its_verdict_when_its_reader_goes_away(tmp_path: Path) -> None:
    db, out = tmp_path / "audit.duckdb", tmp_path / "report"
    code, stderr = closed_reader(
        "nightly", str(WORKED), "--db", str(db), "--out", str(out), "--fail-on", "major"
    )
    assert code == 3, stderr
    assert stderr.splitlines()[-1].startswith(
        f"Error: 1 findings of severity major or worse not dismissed on review; report: {out}"
    )
    assert (out / "index.html").is_file()


def test_every_command_keeps_one_form_in_the_default_suite() -> None:
    """The forms moved to ``slow`` leave each command at least one in the default suite."""
    assert {tuple(a) for a in DB_COMMANDS + PLAIN_COMMANDS} > FORMATS_TOO
    default = [a for a in DB_COMMANDS + PLAIN_COMMANDS if tuple(a) not in FORMATS_TOO]
    assert {a[0] for a in default} == {a[0] for a in DB_COMMANDS + PLAIN_COMMANDS}
