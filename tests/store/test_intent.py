"""A writer announces itself in ``<db>.writing`` (issue 29, point 8; audit/store/intent.py).

Every open for writing takes the intent (one place: :func:`audit.store.open_store`) and
gives it back at close; a second writer waits for it up to ``SHOE_AUDIT_LOCK_WAIT``
seconds and then fails in one line naming the holder; a file left by a writer that was
killed is stale at once (the lock died with it); and ``serve`` answers without opening
the database while a live writer intends to write (503 "audit in progress" with
``Retry-After``, HEAD too, or the page it read last).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from audit.store import open_store
from audit.store.intent import DatabaseLocked, holder, intent_path
from tests.cli.helpers import cli

REPO = Path(__file__).resolve().parents[2]

TAKE = """
import sys, time
from audit.store import intent
intent.acquire(sys.argv[1], time.monotonic() + 10)
print("held", flush=True)
sys.stdin.read()
"""
"""Another process announces that it writes the database, and holds it so until stdin ends
(the DuckDB file itself stays free: only the announcement is tested)."""

OPEN_READ_ONLY = """
import sys, duckdb
c = duckdb.connect(sys.argv[1], read_only=True)
print("held", flush=True)
sys.stdin.read()
"""


@contextmanager
def another_process(script: str, db: Path) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(db)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        with suppress(BrokenPipeError):
            proc.stdin.close()
        proc.wait(10)
        proc.stdout.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "audit.duckdb"
    open_store(path).close()
    return path


def test_a_writer_announces_itself_while_open_and_leaves_nothing_behind(db: Path) -> None:
    with open_store(db) as store:
        line = json.loads(intent_path(db).read_text())
        assert line["pid"] == os.getpid() and line["since"] and line["command"]
        with open_store(db) as again:  # the same process opens it twice: one intent
            assert again.meta("app") == store.meta("app")
        assert intent_path(db).exists()
    assert not intent_path(db).exists()
    with open_store(db, read_only=True):
        assert not intent_path(db).exists()  # readers announce nothing


def test_a_second_writer_waits_then_fails_in_one_line_naming_the_first(db: Path) -> None:
    with another_process(TAKE, db) as proc:
        writer = holder(db)
        assert writer is not None and writer.pid == proc.pid
        t0 = time.monotonic()
        result = cli("run", "--db", str(db), env={"SHOE_AUDIT_LOCK_WAIT": "0.5"})
        waited = time.monotonic() - t0
    assert result.exit_code == 1
    assert 0.5 <= waited < 10
    line = result.stderr
    assert line.count("\n") == 1, line
    assert f"pid {proc.pid}, since " in line and "is writing it" in line, line
    assert "waited 0.5 s (SHOE_AUDIT_LOCK_WAIT)" in line, line


def test_the_writer_waits_for_it_to_finish(db: Path) -> None:
    with another_process(TAKE, db) as proc:
        assert proc.stdin is not None
        # the first writer is done in a second; the second waits for it
        stop = f"import time, os; time.sleep(1); os.kill({proc.pid}, 15)"
        closer = subprocess.Popen([sys.executable, "-c", stop])
        result = cli("run", "--db", str(db), env={"SHOE_AUDIT_LOCK_WAIT": "30"})
        closer.wait(10)
    assert result.exit_code == 0, result.stderr


def test_an_intent_left_by_a_killed_writer_is_stale_at_once(db: Path) -> None:
    with another_process(TAKE, db) as proc:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert intent_path(db).exists()  # kill -9 removes nothing
    assert holder(db) is None
    t0 = time.monotonic()
    with open_store(db) as store:
        assert store.meta("app") is not None
    assert time.monotonic() - t0 < 5
    assert not intent_path(db).exists()


def test_a_writer_kept_out_by_readers_names_them(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOE_AUDIT_LOCK_WAIT", "0.3")
    with another_process(OPEN_READ_ONLY, db) as proc:
        with pytest.raises(DatabaseLocked) as exc:
            open_store(db).close()
        text = str(exc.value)
        assert "it is locked by" in text and "waited 0.3 s" in text, text
        if Path("/proc/locks").exists():
            assert f"pid {proc.pid}" in text, text
    assert not intent_path(db).exists()  # the failed writer gave its intent back


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "inf"])
def test_a_lock_wait_that_is_no_number_of_seconds_is_a_usage_error(db: Path, value: str) -> None:
    result = cli("run", "--db", str(db), env={"SHOE_AUDIT_LOCK_WAIT": value})
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: SHOE_AUDIT_LOCK_WAIT must be a number of seconds (0 or more), got {value!r}\n"
    )
    assert not intent_path(db).exists()


def test_threads_of_one_process_share_the_intent(db: Path) -> None:
    import threading

    errors: list[BaseException] = []
    both_open = threading.Barrier(2, timeout=10)

    def write(n: int) -> None:
        try:
            with open_store(db) as store:
                both_open.wait()  # neither waits for the other: one intent, counted twice
                store.set_meta(f"touched-{n}", "yes")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert not errors
    assert not intent_path(db).exists()


def test_a_link_planted_as_the_intent_file_is_refused_and_its_target_untouched(
    db: Path, tmp_path: Path
) -> None:
    # Anyone who can write the database's folder could point <db>.writing at another
    # file (the ledger, the database, a user's notes): the writer truncated that file and
    # wrote its JSON line into it, then removed the link.
    victim = tmp_path / "notes.txt"
    victim.write_text("precious\n")
    intent_path(db).symlink_to(victim)
    result = cli("run", "--db", str(db), env={"SHOE_AUDIT_LOCK_WAIT": "0.2"})
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "not a regular file" in result.stderr, result.stderr
    assert victim.read_text() == "precious\n"
    assert intent_path(db).is_symlink()  # the user's link is not ours to remove
    assert holder(db) is None  # nor is it a writer to serve


def test_a_fifo_planted_as_the_intent_file_never_hangs_a_reader_or_a_writer(db: Path) -> None:
    # serve asks holder() before every request: opening a FIFO for reading blocked until
    # someone opened it for writing, so each request hung for good.
    os.mkfifo(intent_path(db))
    script = f"from audit.store.intent import holder; print(holder({str(db)!r}))"
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=20
    )
    assert done.returncode == 0 and done.stdout.strip() == "None", done.stderr
    result = cli("run", "--db", str(db), env={"SHOE_AUDIT_LOCK_WAIT": "0.2"})
    assert result.exit_code == 1 and "not a regular file" in result.stderr, result.stderr
