"""Issue 33 (session 9's review): a batch that is a slice of its part's scan keeps the scan's
buffers, and pickling sends them whole. Local workers read their batches from files, which
hold a slice's rows only; the two rare paths that still pickle a batch (a file that cannot
be written, a lost batch replayed shoe by shoe) first give it buffers of its own. A lost
batch goes a shoe at a time, each with only its own events (session 10: one killed worker
made the month's run take over 11 minutes), written a few hundred shoes at a time."""

from __future__ import annotations

import decimal
import pickle
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pytest

from audit.batch import runner
from audit.batch.runner import BatchJob, BatchResult, LostBatch
from audit.store import Store
from audit.store.batches import batch_keys, decode_batch, outcome_tables, stream_shoe_parts


def _slice_of_a_scan() -> pa.Table:
    n = 200_000
    scan = pa.table(
        {"seq": pa.array(range(n)), "raw": pa.array([f"event {i:08d}" for i in range(n)])}
    )
    scan = scan.replace_schema_metadata({b"shoe_events": b"kept"})
    return scan.slice(1_000, 100)


def _pickled(obj: Any) -> int:
    return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def test_a_batch_that_cannot_be_written_is_pickled_with_its_own_rows_only() -> None:
    class Full:
        def send(self, table: pa.Table) -> Any:
            raise OSError(28, "No space left on device")

    events = _slice_of_a_scan()
    job = BatchJob(events, ())
    assert _pickled(job) > 1_000_000  # what went down the pipe before: the whole scan
    sent = runner._sent(Full(), job)  # type: ignore[arg-type]
    assert isinstance(sent, BatchJob)
    assert sent.events.equals(events) and sent.events.schema.metadata == events.schema.metadata
    assert _pickled(sent) < 20_000


def test_a_lost_batch_is_replayed_as_a_batch_for_each_shoe_with_its_own_events(
    ingested: Callable[[int], Store],
) -> None:
    """Each shoe of a lost batch goes alone, with only its own rows and shoe events: sent
    whole with the shoe's number, each of ~900 shoes decoded (and pickled) the whole batch."""
    seen: list[Any] = []

    class Capturing:
        def isolating(self) -> Capturing:
            return self

        def map(self, fn: Any, jobs: Any, registry: Any) -> Iterator[Any]:
            if fn is not runner._replays_nothing:  # not the check that workers can run
                seen.extend(jobs)
            yield from ()

    with ingested(1) as store:
        keys = sorted(store.shoe_info())
        _part, batches = next(iter(stream_shoe_parts(store, keys, 10**9, whole=False)))
        events = next(batches)
    shoes = tuple(SimpleNamespace(key=k) for k in batch_keys(events))
    assert len(shoes) > 3
    lost = LostBatch(BatchJob(events, shoes), "a child process terminated abruptly")  # type: ignore[arg-type]
    list(runner._replay_lost(Capturing(), runner.audit_batch, lost, None))  # type: ignore[arg-type]
    assert [job.shoes for job in seen] == [(m,) for m in shoes]
    whole = decode_batch(events)
    for job, shoe in zip(seen, whole, strict=True):
        assert decode_batch(job.events) == [shoe]  # its own events, shoe events included
        assert _pickled(job.events) < _pickled(events) / 3


def test_own_buffers_keeps_the_rows_the_schema_and_an_empty_column() -> None:
    from audit.store.batches import own_buffers

    events = _slice_of_a_scan()
    assert own_buffers(events).equals(events)
    assert own_buffers(events).schema.metadata == events.schema.metadata
    assert _pickled(own_buffers(events)) < 20_000
    empty = pa.table({"seq": pa.chunked_array([], pa.int64())})  # no chunk at all
    assert own_buffers(empty).num_rows == 0 and own_buffers(empty).schema == empty.schema


def _one_round(handle: pa.Array) -> pa.Table:
    """A round's outcome row (nulls but for its key and ``handle``)."""
    schema = outcome_tables([], [])[0].schema
    columns = {f.name: pa.nulls(1, f.type) for f in schema}
    columns.update(table_id=pa.array(["T1"]), shoe=pa.array(["S1"]), handle=handle)
    return pa.table(columns)


def test_a_lost_batchs_shoes_are_written_together_when_one_shoes_money_is_decimal() -> None:
    """A shoe whose sums pass int64 has decimal money columns (issue 14): merged with the
    others' integer ones, the column is decimal and every amount kept."""
    empty_wagers = outcome_tables([], [])[1]
    small = BatchResult([], _one_round(pa.array([250], pa.int64())), empty_wagers, [])
    big = pa.array([decimal.Decimal(10**20)], pa.decimal128(38, 0))
    large = BatchResult([], _one_round(big), empty_wagers, [])
    for parts in ([small, large], [large], [large, large], [small]):
        merged = runner._merged(parts)
        assert merged.rounds.num_rows == len(parts)
        assert [int(v) for v in merged.rounds["handle"].to_pylist()] == [
            int(v) for r in parts for v in r.rounds["handle"].to_pylist()
        ]


def test_a_lost_batchs_shoes_are_written_a_few_hundred_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Progress shows, and a Ctrl-C loses only the shoes since the last write."""

    class Replaying:
        def isolating(self) -> Replaying:
            return self

        def map(self, fn: Any, jobs: Any, registry: Any) -> Iterator[Any]:
            for _ in jobs:
                yield BatchResult([], *outcome_tables([], []), [])

    monkeypatch.setattr(runner, "_REPLAYED_PER_WRITE", 2)
    shoes = tuple(SimpleNamespace(key=k) for k in "abcde")
    lost = LostBatch(SimpleNamespace(shoes=shoes), "gone")  # a source's job: by shoe number
    writes = list(runner._replay_lost(Replaying(), runner.audit_batch, lost, None))  # type: ignore[arg-type]
    assert len(writes) == 3  # 2, 2 and the last 1
