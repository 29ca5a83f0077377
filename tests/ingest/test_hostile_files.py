"""Hostile sizes and files (issue 14, points 7-11).

Blank lines cost nothing and a batch's memory is bounded whatever the lines
hold; a file of garbage is rejected line by line without a per-line database
round trip; only regular files are read (a FIFO or a link to ``/dev/zero`` is
named and skipped instead of hanging the ingest); unreadable files and folders
are named and recorded; symlinked sub-folders are followed, each real folder
once.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from audit.findings import Code
from audit.ingest import ingest_paths, validate_paths
from audit.ingest import reader as reader_module
from audit.ingest.reader import Batch, find_logs
from audit.store import Store
from tests.ingest.helpers import dumps, ev, shoe_events, write_events, write_lines

REPO = Path(__file__).resolve().parents[2]


def _kept(store: Store, paths: list[Path]) -> tuple[Any, list[Batch]]:
    """Ingest, noting every batch the reader handed on."""
    seen: list[Batch] = []
    summary = ingest_paths(store, paths, on_batch=lambda _p, b: seen.append(b))
    return summary, seen


# --------------------------------------------------------------------------- 7: blank lines


def test_ten_mebibytes_of_newlines_cost_nothing(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n" * (10 << 20))
    summary, batches = _kept(store, [path])
    assert (summary.lines, summary.events, summary.rejected) == (10 << 20, 0, 0)
    assert sum(b.kept for b in batches) <= 1  # no line reaches DuckDB (at most the last)
    assert summary.errors == []
    report = validate_paths([path])
    assert report.ok and report.lines == 10 << 20


def test_gzipped_newlines_and_whitespace_lines_cost_nothing(store: Store, tmp_path: Path) -> None:
    """20 MiB of blank lines, some of spaces, tabs and CRs, gzipped to a few KB."""
    path = tmp_path / "blank.jsonl.gz"
    data = (b"\n" * (8 << 20)) + (b" \t \r\n" * (2 << 20)) + (b"\r\n" * (2 << 20))
    path.write_bytes(gzip.compress(data, mtime=0))
    assert path.stat().st_size < 100_000
    summary, batches = _kept(store, [path])
    lines = data.count(b"\n")
    assert (summary.lines, summary.events, summary.rejected) == (lines, 0, 0)
    assert sum(b.kept for b in batches) <= 3


@pytest.mark.slow
def test_a_hundred_mebibytes_of_gzipped_newlines(store: Store, tmp_path: Path) -> None:
    """The issue's case: 100 MiB of newlines gzipped to ~100 KB (5.8 GB and 300 s before)."""
    path = tmp_path / "blank.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n" * (100 << 20), mtime=0))
    summary, batches = _kept(store, [path])
    assert (summary.lines, summary.rejected) == (100 << 20, 0)
    assert sum(b.kept for b in batches) <= 1
    assert validate_paths([path]).ok


def test_lines_after_a_long_blank_run_keep_their_numbers(store: Store, tmp_path: Path) -> None:
    good = [dumps(e) for e in shoe_events(table="T07", shoe="S1")]
    lines: list[str | bytes] = [good[0], *([""] * 5000), "  ", good[1], *([" \t"] * 300), "{}"]
    path = write_lines(tmp_path / "T07.jsonl", lines)
    summary, batches = _kept(store, [path])
    assert (summary.new, summary.rejected) == (2, 1)
    (finding,) = store.all_findings(codes=[Code.LOG_MALFORMED])
    assert finding.source == f"{path}:{len(lines)}"
    line_nos = dict(store.con.execute("SELECT id, line_no FROM events").fetchall())
    assert line_nos == {"T07-1": 1, "T07-2": 5003}
    assert sum(b.kept for b in batches) < 20  # the long runs never reached DuckDB


def test_a_batch_holds_at_most_batch_lines_lines(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory is bounded by the batch whatever the lines: tiny lines are counted, not just
    bytes (10 MiB of two-byte lines used to be five million lines in one batch)."""
    monkeypatch.setattr(reader_module, "BATCH_LINES", 1_000)
    path = write_lines(tmp_path / "T07.jsonl", ["{}"] * 10_500)
    summary, batches = _kept(store, [path])
    assert summary.rejected == 10_500
    assert batches and all(b.kept <= 1_000 for b in batches)
    assert sum(b.kept for b in batches) == 10_500
    rows = store.con.execute("SELECT min(line_no), max(line_no), count(*) FROM quarantine")
    assert rows.fetchall() == [(1, 10_500, 10_500)]


# --------------------------------------------------------------------------- 8: garbage


def test_a_hundred_thousand_lines_of_braces_are_each_rejected(store: Store, tmp_path: Path) -> None:
    """100k lines of ``{}`` took 48 s (one database round trip a line): each is still
    quarantined with its own line number, and the reason is worked out once."""
    path = write_lines(tmp_path / "garbage.jsonl", ["{}"] * 100_000)
    summary = ingest_paths(store, [path])
    assert (summary.events, summary.rejected) == (0, 100_000)
    rows = store.con.execute(
        "SELECT count(*), count(DISTINCT line_no), count(DISTINCT reason) FROM quarantine"
    ).fetchall()
    assert rows == [(100_000, 100_000, 1)]
    (reason,) = store.con.execute("SELECT any_value(reason) FROM quarantine").fetchall()[0]
    assert reason.startswith("missing required field 'id'")


# --------------------------------------------------------------------------- 9: not regular files


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def test_a_fifo_is_named_and_skipped(store: Store, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_events(logs / "T07.jsonl", shoe_events(table="T07", shoe="S1"))
    fifo = _fifo(logs / "T08.jsonl")
    summary = ingest_paths(store, [logs])
    assert summary.new == len(shoe_events())
    assert summary.errors == [f"{fifo}: not a regular file (a FIFO); skipped"]
    report = validate_paths([logs])
    assert report.errors == [f"{fifo}: not a regular file (a FIFO); skipped"]


def test_a_link_to_dev_zero_is_named_and_skipped(store: Store, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_events(logs / "T07.jsonl", shoe_events(table="T07", shoe="S1"))
    (logs / "zero.jsonl").symlink_to("/dev/zero")
    summary = ingest_paths(store, [logs])
    assert summary.errors == [
        f"{logs / 'zero.jsonl'}: not a regular file (a character device); skipped"
    ]
    assert summary.new == len(shoe_events())


def test_ingest_of_a_fifo_does_not_hang_and_exits_5(tmp_path: Path) -> None:
    """Through the real CLI, in a process of its own: a hang fails the test, not the suite."""
    logs = tmp_path / "logs"
    write_events(logs / "T07.jsonl", shoe_events(table="T07", shoe="S1"))
    fifo = _fifo(logs / "T08.jsonl")
    (logs / "zero.jsonl").symlink_to("/dev/zero")
    db = tmp_path / "audit.duckdb"
    done = subprocess.run(
        [sys.executable, "-m", "audit", "ingest", "--db", str(db), str(logs)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 5, done.stderr
    assert f"could not read {fifo}: not a regular file (a FIFO); skipped" in done.stderr
    assert "a character device" in done.stderr
    assert "Traceback" not in done.stderr
    validated = subprocess.run(
        [sys.executable, "-m", "audit", "validate", str(logs)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert validated.returncode == 1
    assert f"{fifo}: not a regular file (a FIFO); skipped" in validated.stdout


# --------------------------------------------------------------------------- 10: unreadable


def _unreadable(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Tests run as root, so chmod 000 does not stop reading: fail ``os.open`` instead."""
    real_open = os.open

    def fake_open(path: Any, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(name):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(reader_module.os, "open", fake_open)


def test_an_unreadable_file_is_recorded_with_the_ingest(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    write_events(logs / "T07.jsonl", shoe_events(table="T07", shoe="S1"))
    bad = write_events(logs / "T08.jsonl", shoe_events(table="T08", shoe="S2"))
    _unreadable(monkeypatch, "T08.jsonl")
    summary = ingest_paths(store, [logs])
    assert summary.errors == [f"{bad}: cannot read: Permission denied"]
    rows = store.con.execute("SELECT path, reason FROM unread_inputs").fetchall()
    assert rows == [(str(bad), "cannot read: Permission denied")]
    monkeypatch.undo()
    again = ingest_paths(store, [logs])
    assert again.errors == []
    assert store.con.execute("SELECT count(*) FROM unread_inputs").fetchall() == [(0,)]


def test_an_unlistable_folder_is_named(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    write_events(logs / "T07.jsonl", shoe_events(table="T07", shoe="S1"))
    write_events(logs / "locked" / "T08.jsonl", shoe_events(table="T08", shoe="S2"))
    real_scandir = os.scandir

    def fake_scandir(path: Any) -> Any:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(reader_module.os, "scandir", fake_scandir)
    summary = ingest_paths(store, [logs])
    assert summary.errors == [f"{logs / 'locked'}: cannot list folder: Permission denied"]
    assert summary.new == len(shoe_events())
    rows = store.con.execute("SELECT path FROM unread_inputs").fetchall()
    assert rows == [(str(logs / "locked"),)]


# --------------------------------------------------------------------------- 11: symlinks


def test_symlinked_sub_folders_are_followed_once(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    elsewhere = tmp_path / "elsewhere"
    write_events(logs / "a" / "T01.jsonl", [ev(1, "shuffle", table="T01", method="wash")])
    write_events(elsewhere / "T02.jsonl", [ev(1, "shuffle", table="T02", method="wash")])
    (logs / "b_link_to_a").symlink_to(logs / "a")  # a second way to a folder already read
    (logs / "c_elsewhere").symlink_to(elsewhere)  # the only way to this one
    (logs / "a" / "loop").symlink_to(logs)  # a loop
    found = find_logs([logs])
    assert found.files == [logs / "a" / "T01.jsonl", logs / "c_elsewhere" / "T02.jsonl"]
    assert found.unlisted == []


def test_ingest_reads_a_symlinked_sub_folder(store: Store, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    write_events(tmp_path / "night" / "T02.jsonl", shoe_events(table="T02", shoe="S2"))
    (logs / "night").symlink_to(tmp_path / "night")
    assert ingest_paths(store, [logs]).new == len(shoe_events())
