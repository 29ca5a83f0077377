"""Issue 29, points 1, 11b and 11c: where ``--out`` may point.

A symbolic link as ``--out`` is refused before anything is written, and its target
is never written into nor emptied (point 1); a refused ``--out`` is a usage error,
exit 2, an unwritable one a runtime error, exit 1 (11b); a staging folder left by a
killed report is removed by the next report once its process is gone (11c).
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from audit.reports.folder import MARKER
from tests.cli.helpers import cli
from tests.cli.test_cli_errors import one_line_error

WORKED = Path(__file__).resolve().parents[1] / "data" / "worked_example.jsonl"
DAY = ("--date", "2026-11-28")


@pytest.fixture(scope="module")
def worked_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The event-log.md worked example, ingested and audited (one flagged round)."""
    folder = tmp_path_factory.mktemp("worked")
    db = folder / "audit.duckdb"
    assert cli("ingest", "--db", str(db), str(WORKED)).exit_code == 0
    assert cli("run", "--db", str(db), "--workers", "1").exit_code == 0
    return db


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (not following links) with its bytes."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.fixture
def archive(worked_db: Path, tmp_path: Path) -> Path:
    """An archived report of an earlier night, with someone's own notes beside it."""
    folder = tmp_path / "archive" / "2026-11-28"
    result = cli("report", "--db", str(worked_db), "--out", str(folder), *DAY)
    assert result.exit_code == 0, result.output
    (folder / "notes.txt").write_text("the pit boss's own notes\n")
    return folder


# --------------------------------------------------------------------------- point 1


@pytest.mark.parametrize("command", ["report", "nightly"])
def test_a_symlinked_out_is_refused_and_its_target_keeps_every_file(
    worked_db: Path, archive: Path, tmp_path: Path, command: str
) -> None:
    """The reproduction: ``--out latest`` with ``latest -> archive/2026-11-28`` emptied
    the archive (exit 1, "Not a directory"). Now: exit 2, one line, nothing touched."""
    before = tree(archive)
    assert "notes.txt" in before and "index.html" in before and MARKER in before
    latest = tmp_path / "latest"
    latest.symlink_to(archive, target_is_directory=True)
    listing = sorted(os.listdir(tmp_path))
    args = ["report", *DAY] if command == "report" else ["nightly", str(WORKED)]
    db = worked_db if command == "report" else tmp_path / "fresh.duckdb"
    result = cli(*args, "--db", str(db), "--out", str(latest))
    assert result.exit_code == 2, result.output
    message = one_line_error(result.stderr)
    assert message.startswith(f"--out {str(latest)!r} is a symbolic link (to {str(archive)!r})")
    assert tree(archive) == before
    assert latest.is_symlink() and os.readlink(latest) == str(archive)
    assert sorted(os.listdir(tmp_path)) == listing  # no staging folder, no new database
    assert sorted(os.listdir(archive.parent)) == ["2026-11-28"]


@pytest.mark.parametrize("target", ["empty", "dangling"])
def test_a_link_to_an_empty_folder_or_to_nothing_is_refused_too(
    worked_db: Path, tmp_path: Path, target: str
) -> None:
    pointed = tmp_path / "pointed"
    if target == "empty":
        pointed.mkdir()
    latest = tmp_path / "latest"
    latest.symlink_to(pointed, target_is_directory=True)
    result = cli("report", *DAY, "--db", str(worked_db), "--out", str(latest))
    assert result.exit_code == 2, result.output
    assert "is a symbolic link" in one_line_error(result.stderr)
    assert latest.is_symlink() and os.readlink(latest) == str(pointed)
    assert (list(pointed.iterdir()) == []) if target == "empty" else not pointed.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["latest", *(["pointed"] if target == "empty" else [])]
    )


def test_a_link_above_out_is_followed_and_the_report_swapped_in_beside_the_archive(
    worked_db: Path, archive: Path, tmp_path: Path
) -> None:
    """``--out link/sub``: the link only says where the folder lives; the archive beside
    the new report is untouched, and a second report replaces the first whole."""
    before = tree(archive)
    link = tmp_path / "reports"
    link.symlink_to(archive.parent, target_is_directory=True)
    for _ in range(2):
        result = cli("report", *DAY, "--db", str(worked_db), "--out", str(link / "today"))
        assert result.exit_code == 0, result.output
        assert result.stdout == f"report: {link / 'today' / 'index.html'}\n"
    assert tree(archive) == before
    assert sorted(os.listdir(archive.parent)) == ["2026-11-28", "today"]
    assert (archive.parent / "today" / "index.html").is_file()


# --------------------------------------------------------------------------- point 11b


def _out_args(command: str, out: Path, db: Path) -> list[str]:
    return {
        "report": ["report", *DAY, "--db", str(db), "--out", str(out)],
        "nightly": ["nightly", str(WORKED), "--db", str(db.parent / "n.duckdb"), "--out", str(out)],
        "hand": ["hand", "T07", "T07-20261128-01", "1", "--db", str(db), "--out", str(out)],
        "schema": ["schema", "--out", str(out)],
        "simulate": ["simulate", "--tables", "1", "--shoes", "1", "--out", str(out)],
        "export": ["export", "--db", str(db), "--parquet", str(out)],
    }[command]


FOLDER_COMMANDS = ["report", "nightly", "schema", "simulate", "export"]


def refused_outs(tmp_path: Path, command: str) -> dict[str, Path]:
    """Each kind of --out a command must refuse, made under ``tmp_path``."""
    tmp_path.mkdir(parents=True)
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n")
    a_folder = tmp_path / "a-folder"
    a_folder.mkdir()
    link = tmp_path / "a-link"
    link.symlink_to(a_folder, target_is_directory=True)
    outs = {
        "a symbolic link": link,
        "a dangling link": tmp_path / "to-nothing",
        "under a file": a_file / "sub",
    }
    (tmp_path / "to-nothing").symlink_to(tmp_path / "nothing")
    if command == "hand":
        outs["a folder"] = a_folder
    else:
        outs["a file"] = a_file
    if command in ("report", "nightly", "export"):
        foreign = tmp_path / "foreign"
        foreign.mkdir()
        (foreign / "thesis.tex").write_text("precious\n")
        outs["a foreign folder"] = foreign
    return outs


@pytest.mark.parametrize("command", [*FOLDER_COMMANDS, "hand"])
def test_a_refused_out_is_a_usage_error_and_touches_nothing(
    worked_db: Path, tmp_path: Path, command: str
) -> None:
    kinds = list(refused_outs(tmp_path / "kinds", command))
    for i, why in enumerate(kinds):
        root = tmp_path / str(i)
        out = refused_outs(root, command)[why]
        before = {str(p): p.read_bytes() for p in root.rglob("*") if p.is_file()}
        listing = sorted(str(p) for p in root.rglob("*"))
        result = cli(*_out_args(command, out, worked_db))
        assert result.exit_code == 2, (why, result.output)
        assert one_line_error(result.stderr), why
        assert sorted(str(p) for p in root.rglob("*")) == listing, why
        assert {str(p): p.read_bytes() for p in root.rglob("*") if p.is_file()} == before, why
    assert not (worked_db.parent / "n.duckdb").exists()  # nightly refused before its ingest


@pytest.mark.parametrize("command", [*FOLDER_COMMANDS, "hand"])
def test_an_unwritable_out_is_a_runtime_error(
    worked_db: Path, tmp_path: Path, command: str
) -> None:
    """``/proc`` refuses new files even to root (the tests run as root, so ``chmod`` would
    not): the file system says no, exit 1."""
    out = Path("/proc/shoe-audit-out") / ("r1.html" if command == "hand" else "")
    result = cli(*_out_args(command, out, worked_db))
    assert result.exit_code == 1, result.output
    last = result.stderr.splitlines()[-1]  # nightly has ingested first: its summary line
    assert last.startswith("Error: ") and "shoe-audit-out" in last, result.stderr


# --------------------------------------------------------------------------- point 11c


def _host() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def test_a_staging_folder_of_a_dead_report_is_removed_and_a_live_ones_kept(
    worked_db: Path, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    dead = int(done.stdout)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stale = tmp_path / f".rep.new-{_host()}-{dead}-0badc0de"
        running = tmp_path / f".rep.new-{_host()}-{live.pid}-0000beef"
        elsewhere = tmp_path / f".rep.new-00000000-{dead}-00000001"
        other = tmp_path / ".rep.new-1234abcd"  # not a name a report gives: not ours to judge
        for folder in (stale, running, elsewhere, other):
            (folder / "hands").mkdir(parents=True)
            (folder / "hands" / "r1.html").write_text("half a report")
        result = cli("report", *DAY, "--db", str(worked_db), "--out", str(tmp_path / "rep"))
        assert result.exit_code == 0, result.output
        assert not stale.exists()
        assert running.is_dir() and elsewhere.is_dir() and other.is_dir()
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            ["rep", running.name, elsewhere.name, other.name]
        )
    finally:
        live.kill()
        live.wait()
