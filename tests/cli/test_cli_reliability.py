"""A bad day in the server room (issue 14, points 9, 10, 12, 13 and 14), through the real CLI.

cli.md: ``ingest`` exits 5 when some input files could not be read (named on
stderr) and 1 when nothing could be read; 130 when interrupted, with one
line. A full disk is one line naming the disk. ``nightly PATH...`` reports
every gaming day the given files hold and fails on their findings, whether
their events were new or already stored.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.ingest import reader as reader_module
from audit.ingest.pipeline import ingest_paths
from audit.store import open_store
from tests.ingest.helpers import shoe_events, write_events

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_logs" / "2026-11-28"


def invoke(runner: CliRunner, *args: str) -> Any:
    return runner.invoke(app, list(args))


def _unreadable(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    real_open = os.open

    def fake_open(path: Any, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(name):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(reader_module.os, "open", fake_open)


# --------------------------------------------------------------------------- exit 5 and 1


def test_ingest_exits_5_and_names_an_unreadable_file_which_the_report_shows(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    write_events(logs / "T07.jsonl", shoe_events(table="T07", shoe="S1", rounds=2))
    bad = write_events(logs / "T08.jsonl", shoe_events(table="T08", shoe="S2"))
    db = tmp_path / "audit.duckdb"
    _unreadable(monkeypatch, "T08.jsonl")
    result = invoke(runner, "ingest", "--db", str(db), str(logs))
    assert result.exit_code == 5, result.output
    assert f"could not read {bad}: cannot read: Permission denied" in result.output
    assert invoke(runner, "run", "--db", str(db), "--workers", "1").exit_code == 0
    out = tmp_path / "report"
    assert invoke(runner, "report", "--db", str(db), "--out", str(out)).exit_code == 0
    html = (out / "index.html").read_text()
    quality = html[html.index('id="data-quality"') : html.index('id="open-shoes"')]
    assert 'id="unread-inputs"' in quality
    assert str(bad) in quality and "cannot read: Permission denied" in quality


def test_ingest_exits_1_when_nothing_could_be_read(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_events(tmp_path / "T07.jsonl", shoe_events())
    _unreadable(monkeypatch, "T07.jsonl")
    result = invoke(runner, "ingest", "--db", str(tmp_path / "a.duckdb"), str(path))
    assert result.exit_code == 1, result.output
    assert "nothing could be read" in result.output
    assert "Traceback" not in result.output


# --------------------------------------------------------------------------- 12: disk full


def _mount_tmpfs(where: Path, size: str) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
    )
    return done.returncode == 0


def test_a_full_disk_is_one_line_naming_it_and_nothing_is_half_written(
    runner: CliRunner, tmp_path: Path
) -> None:
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "32m"):
        pytest.skip("needs to mount a small tmpfs (root)")
    try:
        filler = disk / "filler"
        filler.write_bytes(b"\0" * (30 << 20))
        db = disk / "audit.duckdb"
        result = invoke(runner, "ingest", "--db", str(db), str(SAMPLE))
        assert result.exit_code == 1, result.output
        lines = [x for x in result.output.splitlines() if x.startswith("Error:")]
        assert len(lines) == 1, result.output
        assert f"no space left on the disk mounted at '{disk}'" in lines[0]
        assert "nothing was half written" in lines[0]
        assert "Traceback" not in result.output and "aborted" not in result.output
        filler.unlink()
        result = invoke(runner, "ingest", "--db", str(db), str(SAMPLE))
        assert result.exit_code == 0, result.output
        with open_store(db, read_only=True) as store:
            n = store.con.execute("SELECT count(*) FROM events").fetchall()[0][0]
        assert n == sum(len(f.read_text().splitlines()) for f in SAMPLE.glob("*.jsonl"))
        assert invoke(runner, "verify", "--db", str(db), str(SAMPLE)).exit_code == 0
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


# --------------------------------------------------------------------------- 13: Ctrl-C, kill -9


def test_duckdbs_interrupt_becomes_keyboardinterrupt(tmp_path: Path) -> None:
    """Ctrl-C while DuckDB runs a query comes back as ``RuntimeError: Query interrupted``
    (what an ingest printed as a traceback): inside a store transaction it is
    ``KeyboardInterrupt``, which the CLI turns into one line and exit 130."""
    with open_store(tmp_path / "audit.duckdb") as store:
        threading.Timer(0.3, store.con.interrupt).start()
        with pytest.raises(KeyboardInterrupt), store.transaction() as con:
            con.execute("SELECT count(*) FROM range(1000000000000) t(x) WHERE x % 7 = 3")
        # and the database is as before, usable
        assert store.con.execute("SELECT count(*) FROM events").fetchall() == [(0,)]


def test_an_interrupted_ingest_is_one_line_and_exit_130(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*_: Any, **__: Any) -> None:
        raise RuntimeError("Query interrupted")  # what DuckDB raises on Ctrl-C

    monkeypatch.setattr("audit.ingest.pipeline._ingest_group", interrupted)
    logs = tmp_path / "logs"
    write_events(logs / "T07.jsonl", shoe_events())
    result = invoke(runner, "ingest", "--db", str(tmp_path / "audit.duckdb"), str(logs))
    assert result.exit_code == 130, result.output
    assert result.output.strip().splitlines() == [
        "Error: interrupted; the database is left as of the last finished transaction"
    ]


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("before_ready", [False, True], ids=["running", "starting"])
def test_a_worker_stops_when_its_parent_is_killed(tmp_path: Path, before_ready: bool) -> None:
    """The lifeline run's workers set up (audit.batch.lifeline): kill -9 of the parent,
    and the worker is gone within seconds (they went on for 40-60 s), even when the
    parent dies while the worker is still starting."""
    script = tmp_path / "parent.py"
    ready = tmp_path / "ready"
    script.write_text(
        "import multiprocessing as mp, sys, time, pathlib\n"
        "from audit.batch.lifeline import stop_with_parent\n"
        "def work(ready):\n"
        "    stop_with_parent()\n"
        "    pathlib.Path(ready).touch()\n"
        "    time.sleep(120)\n"
        "if __name__ == '__main__':\n"
        "    p = mp.get_context('spawn').Process(target=work, args=(sys.argv[1],))\n"
        "    p.start()\n"
        "    print(p.pid, flush=True)\n"
        "    time.sleep(120)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, str(script), str(ready)], stdout=subprocess.PIPE, text=True, cwd=REPO
    )
    try:
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
        parent.stdout.close()
        deadline = time.monotonic() + 60
        while not before_ready and not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _alive(worker)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 30
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(worker), "the worker outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()


@pytest.mark.slow
def test_kill_9_of_run_takes_its_workers_with_it(tmp_path: Path) -> None:
    from audit.simulate import simulate

    night = tmp_path / "night"
    simulate(night, tables=4, shoes=3, profiles=["it-casino-6d"], seed=3)
    db = tmp_path / "audit.duckdb"
    with open_store(db) as store:
        ingest_paths(store, [night])
    run = subprocess.Popen(
        [sys.executable, "-m", "audit", "run", "--db", str(db), "--workers", "2"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while time.monotonic() < deadline and len(workers) < 2:
            workers = [c for c in _children(run.pid) if _alive(c)]
            time.sleep(0.05)
        assert workers, "run started no workers"
        os.kill(run.pid, signal.SIGKILL)
        run.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers)
    finally:
        if run.poll() is None:
            run.kill()


@pytest.mark.slow
def test_ctrl_c_during_a_real_ingest(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO))
    from benchmarks.ingest_bench import write_synthetic

    src = tmp_path / "big.jsonl"
    write_synthetic(src, 400_000)
    db = tmp_path / "audit.duckdb"
    proc = subprocess.Popen(
        [sys.executable, "-m", "audit", "ingest", "--db", str(db), str(src)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Ctrl-C once the ingest has committed its first transaction (the day start): the
    # WAL is there, and the file's own transaction is under way. A fixed 4 s wait let
    # the whole ingest finish first on a fast machine, and the test skipped.
    wal = Path(f"{db}.wal")
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline and not wal.exists():
        time.sleep(0.01)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _out, errs = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the ingest finished before the signal")
    assert proc.returncode == 130, errs
    assert "Traceback" not in errs
    assert errs.strip().endswith("the database is left as of the last finished transaction")


# --------------------------------------------------------------------------- 14: nightly


def _critical_exit(runner: CliRunner, db: Path, out: Path, logs: Path) -> Any:
    return invoke(
        runner, "nightly", str(logs), "--db", str(db), "--out", str(out), "--fail-on", "critical"
    )


def test_nightly_after_a_crash_reports_and_fails_like_the_uninterrupted_one(
    runner: CliRunner, tmp_path: Path
) -> None:
    logs = tmp_path / "logs" / "2026-11-28"
    shutil.copytree(SAMPLE, logs)
    whole = _critical_exit(runner, tmp_path / "a.duckdb", tmp_path / "a", logs)
    assert whole.exit_code == 3, whole.output
    # The crash: the nightly died after its ingest; the re-run finds every event stored.
    crashed = tmp_path / "b.duckdb"
    with open_store(crashed) as store:
        ingest_paths(store, [logs])
    again = _critical_exit(runner, crashed, tmp_path / "b", logs)
    assert again.exit_code == 3, again.output
    for out in ("a", "b"):
        html = (tmp_path / out / "index.html").read_text()
        assert "gaming day 2026-11-28" in html
    # And a third run, everything already audited: the same verdict.
    assert _critical_exit(runner, crashed, tmp_path / "c", logs).exit_code == 3


def test_nightly_exits_5_when_an_input_file_could_not_be_read(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    write_events(logs / "T07.jsonl", shoe_events(table="T07", shoe="S1", rounds=2))
    write_events(logs / "T08.jsonl", shoe_events(table="T08", shoe="S2"))
    _unreadable(monkeypatch, "T08.jsonl")
    result = invoke(
        runner,
        "nightly",
        str(logs),
        "--db",
        str(tmp_path / "a.duckdb"),
        "--out",
        str(tmp_path / "r"),
    )
    assert result.exit_code == 5, result.output
    assert (tmp_path / "r" / "index.html").exists()
