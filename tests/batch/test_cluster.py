"""`run --cluster` on a real Dask `LocalCluster` of worker processes (issue 13, point 4).

The findings JSONL (sorted) of a cluster run must be byte-identical to a
local run's, over all four profiles with injected errors, whether the events
travel with the tasks or the workers read them from a Parquet export; a
worker killed mid-run must cost nothing but time; a scheduler that is not
there is one line and exit 1. Dask is an optional extra: without it these
tests are skipped, and `--cluster` says what to install (tested in
test_cluster_cli.py, which needs no Dask).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audit.batch import run_audit
from audit.cli import app
from audit.profiles import load_registry
from audit.store import Store, open_store

distributed = pytest.importorskip(
    "distributed", reason="Dask is not installed (pip install 'shoe-audit[cluster]')"
)

pytestmark = pytest.mark.slow  # each test starts worker processes or a cluster run

Ingested = Callable[[int], Store]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Two worker processes (with their nannies, which restart a killed one), one thread each."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
    ) as c:
        yield c


def findings_jsonl(runner: CliRunner, db: Path) -> bytes:
    out = runner.invoke(app, ["findings", "--db", str(db), "--format", "jsonl"])
    assert out.exit_code == 0, out.output
    lines = sorted(out.stdout_bytes.splitlines(keepends=True))
    assert lines, "the test night must have findings"
    return b"".join(lines)


def outcomes(store: Store) -> list[tuple[Any, ...]]:
    """Every stored round and wager, in a fixed order (what the report's figures come from)."""
    rounds = store.con.execute("SELECT * FROM rounds ORDER BY ALL").fetchall()
    wagers = store.con.execute("SELECT * FROM wagers ORDER BY ALL").fetchall()
    return rounds + wagers


def test_run_cluster_local_2_gives_byte_identical_findings(
    ingested: Ingested, tmp_path: Path, runner: CliRunner
) -> None:
    ingested(2).close()
    db = tmp_path / "audit.duckdb"
    local = runner.invoke(app, ["run", "--db", str(db), "--workers", "1"])
    assert local.exit_code == 0, local.output
    expected = findings_jsonl(runner, db)
    with open_store(db) as store:
        expected_outcomes = outcomes(store)
    on_cluster = runner.invoke(app, ["run", "--db", str(db), "--all", "--cluster", "local:2"])
    assert on_cluster.exit_code == 0, on_cluster.output
    assert (
        on_cluster.stdout.splitlines()[0].split(" in ")[0]
        == (local.stdout.splitlines()[0].split(" in ")[0])
    )  # "audited N shoes, M rounds"
    assert findings_jsonl(runner, db) == expected
    with open_store(db) as store:
        assert outcomes(store) == expected_outcomes


def test_workers_reading_the_export_give_byte_identical_findings(
    ingested: Ingested, tmp_path: Path, runner: CliRunner, cluster: Any
) -> None:
    ingested(2).close()
    db = tmp_path / "audit.duckdb"
    assert runner.invoke(app, ["run", "--db", str(db), "--workers", "1"]).exit_code == 0
    expected = findings_jsonl(runner, db)
    out = tmp_path / "export"
    assert runner.invoke(app, ["export", "--parquet", str(out), "--db", str(db)]).exit_code == 0
    address = cluster.scheduler_address
    args = ["run", "--db", str(db), "--all", "--cluster", address, "--source", str(out)]
    sourced = runner.invoke(app, args)
    assert sourced.exit_code == 0, sourced.output
    assert findings_jsonl(runner, db) == expected

    # An edited file is refused by the worker that was to read it, in one line, exit 1.
    victim = next(out.rglob("*.parquet"))
    victim.write_bytes(victim.read_bytes() + b"\0")
    refused = runner.invoke(app, args)
    assert refused.exit_code == 1
    assert refused.stderr.count("\n") == 1 and "the export recorded" in refused.stderr
    assert str(victim) in refused.stderr.replace("\n", "")


def test_a_worker_killed_mid_run_has_its_batch_retried(
    ingested: Ingested, runner: CliRunner, cluster: Any
) -> None:
    from audit.batch.cluster import open_cluster

    registry = load_registry()
    with ingested(2) as store:
        run_audit(store, registry, workers=1)
        expected = sorted(f.to_json() for f in store.all_findings())
        killed: list[int] = []
        with open_cluster(cluster.scheduler_address) as executor:
            client = executor.client
            before = client.run(os.getpid)

            lost: list[str] = []
            written = threading.Event()

            def kill_a_busy_worker() -> None:
                """Once a batch is written, SIGKILL a worker while it holds batches."""
                written.wait(120)
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and not killed:
                    busy = [(w, keys) for w, keys in client.processing().items() if keys]
                    if busy:
                        worker, keys = busy[0]
                        lost.extend(keys)
                        killed.append(before[worker])
                        os.kill(killed[0], signal.SIGKILL)
                    time.sleep(0.002)

            # The killer runs beside the run, so the coordinator goes on submitting batches.
            killer = threading.Thread(target=kill_a_busy_worker, daemon=True)
            killer.start()
            summary = run_audit(
                store,
                registry,
                all_shoes=True,
                executor=executor,
                batch_events=300,  # many small batches: the kill lands mid-run
                progress=lambda done, total: written.set() if done else None,
            )
            killer.join(5)
            client.wait_for_workers(2, timeout=60)
            after = client.run(os.getpid)
        assert lost, "a batch was in flight on the killed worker"
        assert killed and killed[0] not in after.values()  # it died, and the nanny replaced it
        assert summary.shoes == len(store.shoe_info())
        assert sorted(f.to_json() for f in store.all_findings()) == expected
        audits = store.con.execute(
            "SELECT count(*), count(DISTINCT (table_id, shoe)) FROM shoe_audits"
        )
        n, distinct = audits.fetchone() or (0, 0)
        assert n == distinct == summary.shoes  # a retried batch is written once


def test_an_interrupted_cluster_run_leaves_whole_shoes_and_a_rerun_completes(
    ingested: Ingested, cluster: Any
) -> None:
    """Ctrl-C after the first batch of a first run is written: the shoes written stay whole,
    the rest are not audited, no task of the run is left on the cluster, and a plain re-run
    completes the job. (A re-audit stopped so keeps every earlier result: test_failures.py.)"""
    from audit.batch.cluster import open_cluster

    registry = load_registry()
    with ingested(2) as store:
        shoes = len(store.shoe_info())
        seen: list[tuple[int, int]] = []

        def interrupt_after_the_first_batch(done: int, total: int) -> None:
            seen.append((done, total))
            if done:
                raise KeyboardInterrupt

        with open_cluster(cluster.scheduler_address) as executor:
            with pytest.raises(KeyboardInterrupt):
                run_audit(
                    store,
                    registry,
                    executor=executor,
                    batch_events=300,
                    progress=interrupt_after_the_first_batch,
                )
            deadline = time.monotonic() + 30
            while executor.client.run_on_scheduler(_tasks_left) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert executor.client.run_on_scheduler(_tasks_left) == 0
            written = seen[-1][0]
            assert seen[0] == (0, shoes) and 0 < written < shoes
            audits = store.con.execute("SELECT count(*) FROM shoe_audits").fetchone()
            assert audits == (written,)
            # every finding left belongs to a shoe that is audited, and is one of the full run's
            orphans = store.con.execute(
                "SELECT count(*) FROM findings f ANTI JOIN shoe_audits a "
                "ON f.table_id = a.table_id AND f.shoe = a.shoe"
            ).fetchone()
            assert orphans == (0,)
            partial = set(f.to_json() for f in store.all_findings())

            progress: list[tuple[int, int]] = []
            resumed = run_audit(
                store,
                registry,
                executor=executor,
                progress=lambda done, total: progress.append((done, total)),
            )
        assert resumed.shoes == shoes - written  # the written shoes were kept, not redone
        left = shoes - written
        assert progress[0] == (0, left) and progress[-1] == (left, left)
        assert [d for d, _ in progress] == sorted(d for d, _ in progress)  # as for a local run
        resumed_findings = sorted(f.to_json() for f in store.all_findings())
        run_audit(store, registry, workers=1, all_shoes=True)
        expected = sorted(f.to_json() for f in store.all_findings())
        assert resumed_findings == expected and partial <= set(expected)


def _tasks_left(dask_scheduler: Any) -> int:
    """On the scheduler: the tasks it still holds (a cancelled run leaves none)."""
    return len(dask_scheduler.tasks)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_scheduler_that_is_not_there_is_one_line_and_exit_1(
    ingested: Ingested, tmp_path: Path
) -> None:
    ingested(1).close()
    address = f"tcp://127.0.0.1:{free_port()}"
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}
    db = str(tmp_path / "audit.duckdb")
    done = subprocess.run(
        [sys.executable, "-m", "audit", "run", "--db", db, "--cluster", address],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"Error: no Dask scheduler answers at {address}")
    with open_store(tmp_path / "audit.duckdb") as store:  # nothing was cleared
        assert store.con.execute("SELECT count(*) FROM shoe_audits").fetchone() == (0,)
