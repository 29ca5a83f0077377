"""Issue 10.14/10.15/10.17: every error is one line with cli.md's exit code; no stray files.

cli.md: 2 is a usage error (typer's or ours, one line), 1 a runtime failure,
130 Ctrl-C; the commands that read the database never create one.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from audit.errors import AuditError
from tests.cli.helpers import SAMPLE, cli

HELP_HINT = "(see 'shoe-audit {cmd} --help')"


def one_line_error(stderr: str) -> str:
    """The message of a one-line ``Error: ...`` (fails when it is more than one line)."""
    assert stderr.endswith("\n") and stderr.count("\n") == 1, repr(stderr)
    assert stderr.startswith("Error: "), repr(stderr)
    assert "Traceback" not in stderr and "╭" not in stderr and "│" not in stderr
    return stderr[len("Error: ") : -1]


# --------------------------------------------------------------------------- usage errors: 2


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("6am", "day start must be HH:MM, got '6am'"),
        ("6", "day start must be HH:MM, got '6'"),
        ("25:00", "day start must be HH:MM between 00:00 and 23:59, got '25:00'"),
    ],
)
@pytest.mark.parametrize("command", ["ingest", "nightly"])
def test_a_bad_day_start_is_one_line_and_exit_2(
    tmp_path: Path, command: str, value: str, why: str
) -> None:
    db = tmp_path / "a.duckdb"
    result = cli(command, "--db", str(db), "--day-start", value, str(SAMPLE))
    assert result.exit_code == 2
    assert one_line_error(result.stderr) == (
        f"Invalid value for '--day-start': {why} " + HELP_HINT.format(cmd=command)
    )
    assert not db.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["findings", "--format", "json"],
            "Invalid value for '--format': 'json' is not one of 'table', 'jsonl', 'csv'. "
            "(see 'shoe-audit findings --help')",
        ),
        (
            ["findings", "--date", "28/11/2026"],
            "Invalid value for '--date': a gaming day is YYYY-MM-DD, got '28/11/2026' "
            "(see 'shoe-audit findings --help')",
        ),
        (
            ["run", "--bogus"],
            "No such option: --bogus (Possible options: --house) (see 'shoe-audit run --help')",
        ),
        (
            ["run", "--workers", "0"],
            "Invalid value for '--workers': Input should be greater than or equal to 1 "
            "(see 'shoe-audit run --help')",
        ),
        (["nosuchcommand"], "No such command 'nosuchcommand'. (see 'shoe-audit --help')"),
    ],
)
def test_typer_usage_errors_are_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    assert one_line_error(result.stderr) == message
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "--from", "2026-11-01"], "--from and --to go together"),
        (
            ["report", "--date", "2026-11-28", "--to", "2026-11-29"],
            "give either --date or --from/--to, not both",
        ),
        (
            ["findings", "--code", "PAY_WRONG_AMOUN"],
            "unknown finding code 'PAY_WRONG_AMOUN'; did you mean PAY_WRONG_AMOUNT, "
            "PAY_WRONG_OUTCOME? (see `shoe-audit findings --help`)",
        ),
    ],
)
def test_our_own_usage_errors_are_one_line_and_exit_2(
    sample_db: Path, args: list[str], message: str
) -> None:
    result = cli(*args, "--db", str(sample_db))
    assert result.exit_code == 2
    assert one_line_error(result.stderr) == message


# --------------------------------------------------------------------------- runtime errors: 1


@pytest.mark.parametrize(
    "args",
    [
        ["report", "--out", "{out}"],
        ["hand", "T01", "T01-20261128-01", "1", "--out", "{out}/r1.txt"],
        ["schema", "--out", "{out}"],
        ["simulate", "--tables", "1", "--shoes", "1", "--out", "{out}"],
    ],
)
def test_an_unusable_out_is_one_line_and_exit_1(
    sample_db: Path, tmp_path: Path, args: list[str]
) -> None:
    """An --out the file system refuses is a runtime failure (1); an --out whose value is
    not allowed (a file where a folder is needed) a usage error (2, issue 29 point 11b)."""
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n")
    db = [] if args[0] in {"schema", "simulate"} else ["--db", str(sample_db)]
    unwritable = {"report": "cannot write the report into '/proc/x': "}.get(
        args[0], "cannot use '/proc/x': "
    )
    result = cli(*[a.format(out="/proc/x") for a in args], *db)
    assert result.exit_code == 1, result.output
    assert one_line_error(result.stderr).startswith(unwritable)
    result = cli(*[a.format(out=str(a_file)) for a in args], *db)
    assert result.exit_code == 2, result.output
    shown = "--out " + repr(args[args.index("--out") + 1].format(out=str(a_file)))
    assert one_line_error(result.stderr).startswith(
        f"{shown}: {str(a_file)!r} is a file, where a folder is needed"
        if args[0] == "hand"
        else f"{shown} is a file, where a folder is needed"
    )
    assert a_file.read_text() == "not a folder\n"


def test_hand_out_leaves_no_half_file(sample_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "r1.txt"
    result = cli("hand", "T01", "T01-20261128-01", "1", "--db", str(sample_db), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"wrote {out}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r1.txt"]  # no temporary file left


def test_a_template_syntax_error_is_one_line(sample_db: Path, tmp_path: Path) -> None:
    (tmp_path / "hand").mkdir()
    (tmp_path / "hand" / "hand.txt.j2").write_text("fine\n{% if %}\n", encoding="utf-8")
    result = cli(
        "hand", "T01", "T01-20261128-01", "1", "--db", str(sample_db), "--templates", str(tmp_path)
    )
    assert result.exit_code == 1
    assert one_line_error(result.stderr) == (
        f"template {tmp_path}/hand/hand.txt.j2:2: Expected an expression, got 'end of statement "
        "block'"
    )


def test_an_unexpected_exception_is_one_line_and_debug_shows_it(
    sample_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import audit.store.status

    def broken(*args: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(audit.store.status, "database_status", broken)
    result = cli("status", "--db", str(sample_db))
    assert result.exit_code == 1
    assert one_line_error(result.stderr) == (
        "unexpected ZeroDivisionError: a bug (run with --debug for the traceback)"
    )
    for args in (["--debug", "status"], ["status", "--debug"]):  # before or after the command
        result = cli(*args, "--db", str(sample_db))
        assert isinstance(result.exception, ZeroDivisionError), result.output


def test_ctrl_c_is_one_line_and_exit_130(sample_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import audit.batch

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(audit.batch, "run_audit", interrupted)
    result = cli("run", "--db", str(sample_db))
    assert result.exit_code == 130
    assert one_line_error(result.stderr) == (
        "interrupted; the database is left as of the last finished transaction"
    )


# --------------------------------------------------------------------------- no database made


READING = [
    "run", "findings", "hand T01 T01-20261128-01 1", "report", "status", "stats", "serve", "verify"
]  # fmt: skip


@pytest.mark.parametrize("command", READING)
def test_reading_commands_never_create_a_database(tmp_path: Path, command: str) -> None:
    db = tmp_path / "typo.duckdb"
    result = cli(*command.split(), "--db", str(db))
    assert result.exit_code == 1
    assert one_line_error(result.stderr) == (
        f"no database at {str(db)!r}: run `shoe-audit ingest` first, or give --db"
    )
    assert list(tmp_path.iterdir()) == []


def test_every_reading_command_of_cli_md_is_checked() -> None:
    """stats, verify and serve join READING (cli.md) as soon as they exist."""
    from tests.cli.test_cli_basics import command_names

    reading = {"run", "findings", "hand", "report", "status", "stats", "verify", "serve"}
    assert reading & set(command_names()) == {c.split()[0] for c in READING}


def test_a_failed_ingest_leaves_no_new_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("ingest", "/nonexistent")
    assert result.exit_code == 1
    assert one_line_error(result.stderr) == "no such file or folder: '/nonexistent'"
    assert os.listdir(tmp_path) == []


def test_an_ingest_interrupted_into_a_new_database_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import audit.ingest

    real = audit.ingest.ingest_paths

    def interrupted(*args: object, **kwargs: object) -> None:
        real(*args, **kwargs)  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(audit.ingest, "ingest_paths", interrupted)
    db = tmp_path / "new.duckdb"
    result = cli("ingest", "--db", str(db), str(SAMPLE))
    assert result.exit_code == 130
    assert list(tmp_path.iterdir()) == []


def test_a_failed_ingest_keeps_an_existing_database(tmp_path: Path) -> None:
    db = tmp_path / "audit.duckdb"
    assert cli("ingest", "--db", str(db), str(SAMPLE)).exit_code == 0
    result = cli("ingest", "--db", str(db), "/nonexistent")
    assert result.exit_code == 1
    assert db.exists()


def test_the_boundary_keeps_audit_errors_as_they_are() -> None:
    from audit.cli.common import explain

    assert explain(AuditError("no round 9")) == (1, "no round 9")


def _children(pid: int) -> list[str]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return path.read_text().split() if path.exists() else []


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["as the workers start", "while the workers replay"])
def test_ctrl_c_during_a_real_run_is_one_line_from_the_parent_only(
    tmp_path: Path, moment: str
) -> None:
    """SIGINT to the whole process group (as a terminal sends it), workers included."""
    import signal
    import subprocess
    import sys
    import time

    logs, db = tmp_path / "night", tmp_path / "a.duckdb"
    # 4,000 shoes: the run must still be replaying 1.5 s after its pool starts (160 shoes
    # took 1.3 s in all once the shoes' metadata was read before the pool, not in it).
    assert cli("simulate", "--tables", "20", "--shoes", "200", "--out", str(logs)).exit_code == 0
    assert cli("ingest", "--db", str(db), str(logs)).exit_code == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "audit", "run", "--db", str(db), "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not _children(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)  # the first child: the pool is starting its workers
    if moment == "while the workers replay":
        time.sleep(1.5)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    # one line; a run stopped part-way names the shoes it did not re-audit on the same line
    assert (
        err.startswith(
            "Error: interrupted; the database is left as of the last finished transaction"
        )
        and err.endswith("\n")
        and err.count("\n") == 1
    ), err
    status = cli("status", "--db", str(db), "--json")
    assert status.exit_code == 0  # the database opens, consistent
