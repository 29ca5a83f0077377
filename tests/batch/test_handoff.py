"""Issue 33: run hands each batch's events to a local worker as a file, not through its pipe.

Pickled into the pipe, a batch of 100,000 events was copied twice in the parent, holding
the GIL its scans and writes need (audit/batch/handoff.py). What must hold: the worker
reads exactly the table that was sent (its schema's metadata too: the shoe events travel
there), nothing is left behind however the run ends, and a killed run's folder is
removed by the next one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from audit.batch import handoff, run_audit
from audit.batch.faults import FAULT_ENV
from audit.batch.handoff import PREFIX, Handoff, SharedTable
from audit.profiles import load_registry
from audit.store import Store

Ingested = Callable[[int], Store]


def test_a_table_sent_is_read_back_whole_with_its_metadata_and_its_file_removed(
    tmp_path: Path,
) -> None:
    table = pa.table(
        {"id": ["e1", "e2", None], "amount": pa.array([150, None, -25], pa.int64())}
    ).replace_schema_metadata({"shoe_events": b"\x00\xffbytes"})
    box = Handoff(tmp_path)
    shared = box.send(table)
    assert Path(shared.path).parent == box.folder and Path(shared.path).exists()
    got = SharedTable(shared.path).read()  # as a worker has it: the name only
    assert got.equals(table) and got.schema.metadata == table.schema.metadata
    assert not Path(shared.path).exists()
    box.discard(shared)  # its reader removed it: nothing to do, no error
    box.close()
    assert not box.folder.exists()


def test_a_slice_sent_is_written_with_its_own_rows_only(tmp_path: Path) -> None:
    """run's batches are slices of a part's scan, in its chunks (no copy into chunks of
    their own, as a pickle needs): the file holds the slice's rows, not the scan's."""
    big = pa.table({"id": [f"event-{i:08d}" for i in range(200_000)], "n": range(200_000)})
    two_chunks = pa.concat_tables([big.slice(10, 500), big.slice(150_000, 700)])
    box = Handoff(tmp_path)
    shared = box.send(two_chunks)
    assert Path(shared.path).stat().st_size < 64 * 1024  # the scan's 200,000 rows: ~5 MB
    assert SharedTable(shared.path).read().equals(two_chunks)
    box.close()


def _dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    return int(child.stdout)


def test_a_folder_left_by_a_killed_run_is_removed_by_the_next_and_a_live_ones_kept(
    tmp_path: Path,
) -> None:
    pid = _dead_pid()
    dead = tmp_path / f"{PREFIX}{pid}-abc"
    fresh = tmp_path / f"{PREFIX}{pid}-fresh"  # maybe a live run of another container
    live = tmp_path / f"{PREFIX}{os.getpid()}-def"
    odd = [tmp_path / f"{PREFIX}{n}-x" for n in ("99999999999999999999", "\u00b2", "")]
    other = tmp_path / "shoe-audit-runs-of-someone-else"
    for folder in (dead, fresh, live, other, *odd):
        folder.mkdir()
        (folder / "1.arrow").write_bytes(b"x")
    an_hour_ago = time.time() - handoff.STALE_AFTER - 1
    for folder in (dead, live, other, *odd):
        os.utime(folder, (an_hour_ago, an_hour_ago))
    box = Handoff(tmp_path)
    assert not dead.exists()
    for kept in (fresh, live, other, *odd):
        assert (kept / "1.arrow").exists(), kept
    box.close()


@pytest.fixture
def base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Where run's handoff folders go in this test, and the files sent through them."""
    where = tmp_path / "handoff"
    where.mkdir()
    monkeypatch.setattr(handoff, "_base", lambda: where)
    yield where


def _outcomes(store: Store) -> list[list[tuple[object, ...]]]:
    return [
        store.con.execute(f"SELECT * EXCLUDE (audited_at) FROM {t} ORDER BY ALL").fetchall()
        if t == "shoe_audits"
        else store.con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
        for t in ("findings", "rounds", "wagers", "shoe_audits")
    ]


def test_run_with_workers_sends_every_batch_as_a_file_and_stores_what_one_process_does(
    ingested: Ingested, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[str] = []
    send = Handoff.send

    def spy(self: Handoff, table: pa.Table) -> SharedTable:
        shared = send(self, table)
        sent.append(shared.path)
        return shared

    monkeypatch.setattr(Handoff, "send", spy)
    registry = load_registry()
    with ingested(1) as store:
        run_audit(store, registry, workers=1)  # in this process: nothing sent
        assert sent == []
        alone = _outcomes(store)
        summary = run_audit(store, registry, workers=2, all_shoes=True, batch_events=600)
        assert len(sent) > 5 and not summary.failed
        assert _outcomes(store) == alone
    assert list(base.iterdir()) == []  # every file read and removed, the folder gone


@pytest.mark.slow  # starts worker processes, twice after a kill
def test_a_worker_killed_under_a_batch_leaves_no_file_behind(
    ingested: Ingested, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = load_registry()
    with ingested(1) as store:
        shoe = sorted(store.shoe_info())[3]
        monkeypatch.setenv(FAULT_ENV, f"kill:{shoe.table}/{shoe.shoe}")
        summary = run_audit(store, registry, workers=2, batch_events=600)
        assert [f.key for f in summary.failed] == [shoe]
    assert list(base.iterdir()) == []


def test_a_batch_refused_by_a_pool_that_broke_goes_to_the_next_pool(
    ingested: Ingested, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that dies between two submits breaks the pool before the next job is
    submitted: that job never started, so it goes to a new pool, not lost (the handoff's
    few ms between submits made this likely enough to fail the kill test)."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from audit.batch import runner

    submits: list[int] = []

    class Refusing(ProcessPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
            submits.append(len(submits))
            if len(submits) == 3:  # the third job finds the pool broken
                raise BrokenProcessPool("a child process terminated abruptly")
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(runner, "ProcessPoolExecutor", Refusing)
    registry = load_registry()
    with ingested(1) as store:
        run_audit(store, registry, workers=1)
        alone = _outcomes(store)
        summary = run_audit(store, registry, workers=2, all_shoes=True, batch_events=600)
        assert not summary.failed and summary.shoes == len(store.shoe_info())
        assert _outcomes(store) == alone
    assert len(submits) > 5
    assert list(base.iterdir()) == []


def test_a_batch_that_cannot_be_written_goes_down_the_pipe_and_leaves_no_file(
    ingested: Ingested, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder that fills up during a run (/dev/shm is shared) costs speed, not the run."""
    import pyarrow.ipc

    new_file = pyarrow.ipc.new_file
    calls: list[int] = []

    def full_on_odd_calls(sink, schema):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) % 2:
            sink.write(b"ARROW1 partial")  # a write that got this far before the disk filled
            raise OSError(28, "No space left on device")
        return new_file(sink, schema)

    monkeypatch.setattr(pyarrow.ipc, "new_file", full_on_odd_calls)
    registry = load_registry()
    with ingested(1) as store:
        run_audit(store, registry, workers=1)
        alone = _outcomes(store)
        summary = run_audit(store, registry, workers=2, all_shoes=True, batch_events=600)
        assert not summary.failed and _outcomes(store) == alone
    assert len(calls) > 5
    assert list(base.iterdir()) == []


@pytest.mark.slow  # starts worker processes
def test_a_batch_whose_file_another_process_removed_is_sent_again_down_the_pipe(
    ingested: Ingested, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cleaner of ``/dev/shm`` (or of the temporary folder) may remove a batch's file
    before its worker reads it: the batch is sent again, by pipe, not lost or doubled."""
    removed: list[str] = []
    lost_firsts: set[str] = set()
    again_as_files: list[str] = []
    send = Handoff.send

    def swept(self: Handoff, table: pa.Table) -> SharedTable:
        shared = send(self, table)
        first = repr(table.slice(0, 1).to_pylist())
        if first in lost_firsts:
            again_as_files.append(first)  # a lost batch must come again by pipe
        elif len(removed) < 3:  # the first three batches' files vanish at once
            os.unlink(shared.path)
            removed.append(shared.path)
            lost_firsts.add(first)
        return shared

    registry = load_registry()
    with ingested(1) as store:
        run_audit(store, registry, workers=1)
        alone = _outcomes(store)
        monkeypatch.setattr(Handoff, "send", swept)
        summary = run_audit(store, registry, workers=2, all_shoes=True, batch_events=600)
        assert len(removed) == 3 and not summary.failed and again_as_files == []
        assert summary.shoes == len(store.shoe_info())
        assert _outcomes(store) == alone
    assert list(base.iterdir()) == []


def test_a_worker_that_cannot_read_its_batchs_file_says_so_for_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audit.batch import runner

    monkeypatch.setattr(runner, "_WORKER_REGISTRY", load_registry())
    job = runner._SharedJob(SharedTable(str(tmp_path / "gone.arrow")), ())
    with pytest.raises(runner.HandoffLost, match=r"gone\.arrow.*No such file or directory"):
        runner._worker_call(runner.audit_batch, job)
