"""Issue 10.19: progress bars know their total from the start; nothing on a pipe."""

from __future__ import annotations

import gzip
import os
import pty
import re
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audit.batch import run_audit
from audit.profiles import load_registry
from audit.store import Store
from tests.cli.helpers import SAMPLE, cli


def test_run_reports_its_total_before_the_first_shoe(store: Store) -> None:
    from audit.ingest import ingest_paths

    ingest_paths(store, [SAMPLE])
    calls: list[tuple[int, int]] = []
    run_audit(store, load_registry(), workers=1, progress=lambda d, t: calls.append((d, t)))
    assert calls[0] == (0, 96)
    assert {t for _, t in calls} == {96} and calls[-1] == (96, 96)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_ingest_progress_counts_file_bytes_gzip_included(store: Store, tmp_path: Path) -> None:
    from audit.cli.commands import _ByteProgress
    from audit.ingest import ingest_paths

    tmp_path = tmp_path / "logs"
    tmp_path.mkdir()
    shutil.copy(SAMPLE / "T01.jsonl", tmp_path / "T01.jsonl")
    with (SAMPLE / "T02.jsonl").open("rb") as src, gzip.open(tmp_path / "T02.jsonl.gz", "wb") as gz:
        shutil.copyfileobj(src, gz)
    total = sum(p.stat().st_size for p in tmp_path.iterdir())
    progress = _ByteProgress([tmp_path])
    assert progress.total == total  # known before a byte is read
    ticks: list[tuple[int, int]] = []
    progress.tick = lambda done, total: ticks.append((done, total))
    ingest_paths(store, [tmp_path], on_batch=progress)
    assert {t for _, t in ticks} == {total}
    assert ticks[-1] == (total, total)


def test_nothing_is_drawn_on_a_pipe(tmp_path: Path) -> None:
    db = str(tmp_path / "a.duckdb")
    result = cli("ingest", "--db", db, str(SAMPLE / "T01.jsonl"))
    assert "reading logs" not in result.stderr
    result = cli("run", "--db", db)
    assert result.stderr == "" and "auditing shoes" not in result.stdout


def _on_a_terminal(args: list[str]) -> str:
    """What ``shoe-audit ARGS`` draws on a terminal (stdout and stderr on one pty)."""
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "audit", *args], stdout=follower, stderr=follower, env=env
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed the pty
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(60) == 0
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
def test_the_bars_on_a_terminal_show_their_totals(tmp_path: Path) -> None:
    db = str(tmp_path / "a.duckdb")
    drawn = _on_a_terminal(["ingest", "--db", db, str(SAMPLE)])
    total = sum(p.stat().st_size for p in SAMPLE.glob("*.jsonl"))
    assert "reading logs" in drawn
    assert f"/{total / 1e6:.1f} MB" in drawn or f"/{total / 1e6:.0f} MB" in drawn, drawn
    drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", _on_a_terminal(["run", "--db", db]))
    frames = re.findall(r"(\d+|\?)/(\d+|\?) shoes", drawn)
    assert frames and all(t == "96" for _, t in frames), frames
