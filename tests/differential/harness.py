"""Replay every batch of a ``run`` twice, compiled here and from the sources in a second process.

:class:`Differential` is a :class:`audit.batch.runner.BatchExecutor`: handed to
:func:`audit.batch.run_audit`, it gets the batches exactly as ``run`` makes them
(:func:`audit.store.batches.stream_shoe_batches`, each shoe's metadata from
``RunMeta``), replays each with :func:`audit.batch.runner.audit_batch` in this
process (the compiled engine, which ``run`` then writes to the database), sends
the same Arrow batch to :class:`PureProcess` (the engine's ``.py`` sources) and
requires the same findings, audit records and outcome rows (rounds and wagers),
and no exception on either side.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from audit.batch.runner import BatchFn, BatchJob, BatchResult, ShoeMeta, audit_batch
from audit.engine import ShoeContext
from audit.profiles import ProfileRegistry
from audit.store import ShoeKey
from tests.differential.pure import read_frame, write_frame

REPO = Path(__file__).resolve().parents[2]


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def _table(data: bytes) -> pa.Table:
    return pa.ipc.open_stream(data).read_all()


def job_to_wire(job: BatchJob) -> bytes:
    """A batch as it would cross to a worker: the Arrow table as IPC bytes (its schema's
    metadata, which carries the shoe events, included), the metadata as plain values."""
    metas = [
        (
            m.key.table,
            m.key.shoe,
            m.profile_id,
            (
                m.context.first_shoe_of_gaming_day,
                m.context.banker,
                m.context.banker_rounds_before,
            ),
            m.events_digest,
        )
        for m in job.shoes
    ]
    return pickle.dumps((_ipc(job.events), metas))


def job_from_wire(frame: bytes) -> BatchJob:
    events, metas = pickle.loads(frame)
    shoes = tuple(
        ShoeMeta(ShoeKey(table, shoe), profile, ShoeContext(*context), digest)
        for table, shoe, profile, context, digest in metas
    )
    return BatchJob(_table(events), shoes)


Canonical = tuple[list[tuple[Any, ...]], list[list[str]], bytes, bytes]
"""A batch's result in plain values: each shoe's audit record (but its findings), each
shoe's findings as JSON lines (ids included), and the rounds and wagers as Arrow IPC."""


def canonical(result: BatchResult) -> Canonical:
    records = [
        (
            tuple(a.key),
            a.engine_version,
            a.profile_id,
            a.profile_digest,
            a.events_digest,
            a.rounds,
            a.wagers,
            a.handle_cents,
            None if a.prefix_ranks is None else list(a.prefix_ranks),
            a.context,
        )
        for a in result.audits
    ]
    findings = [[f.to_json() for f in a.findings] for a in result.audits]
    return records, findings, _ipc(result.rounds), _ipc(result.wagers)


class PureProcess:
    """One long-lived process replaying batches with the engine's ``.py`` sources."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tests.differential.pure"],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._in, self._out = self._proc.stdin, self._proc.stdout
        hello = read_frame(self._out)
        if hello is None:
            raise RuntimeError(f"the pure engine's process ended: {self._proc.wait()}")
        info = pickle.loads(hello)
        self.engine: dict[str, str] = info["engine"]
        self.audit_package: str = info["audit"]
        self.cpu_seconds = 0.0
        """CPU seconds the process has used (as of its last answer)."""

    def send(self, job: BatchJob) -> None:
        """Start replaying ``job`` there (its answer is :meth:`receive`'s)."""
        write_frame(self._in, job_to_wire(job))

    def receive(self) -> tuple[str, Any]:
        """``("ok", canonical result)`` or ``("error", traceback)`` of the job sent last."""
        frame = read_frame(self._out)
        if frame is None:
            raise RuntimeError(f"the pure engine's process died: exit {self._proc.wait()}")
        status, value, self.cpu_seconds = pickle.loads(frame)
        return status, value

    def close(self) -> None:
        self._in.close()  # its end of input: it exits
        self._proc.wait(timeout=60)
        self._out.close()


class Divergence(AssertionError):
    """The compiled engine and its sources disagree on a batch (or one of them raised)."""


def _first_row_difference(name: str, compiled: pa.Table, pure: pa.Table) -> str:
    if compiled.schema != pure.schema:
        return f"{name}: schemas differ:\ncompiled {compiled.schema}\npure     {pure.schema}"
    a, b = compiled.to_pylist(), pure.to_pylist()
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            diff = {k: (x[k], y.get(k)) for k in x if x[k] != y.get(k)}
            return f"{name} row {i} differs (compiled, pure): {diff}\n  compiled row: {x}"
    return f"{name}: {len(a)} rows compiled, {len(b)} pure"


def compare(job: BatchJob, compiled: Canonical | str, pure: tuple[str, Any]) -> str | None:
    """What differs between the two replays of ``job``, or None when nothing does."""
    shoes = ", ".join(f"{m.key.table}/{m.key.shoe}" for m in job.shoes)
    if isinstance(compiled, str) or pure[0] != "ok":
        lines = [f"an exception replaying shoes {shoes}"]
        if isinstance(compiled, str):
            lines.append(f"compiled engine raised:\n{compiled}")
        if pure[0] != "ok":
            lines.append(f"pure engine raised:\n{pure[1]}")
        return "\n".join(lines)
    c_records, c_findings, c_rounds, c_wagers = compiled
    p_records, p_findings, p_rounds, p_wagers = pure[1]
    for meta, cr, pr, cf, pf in zip(
        job.shoes, c_records, p_records, c_findings, p_findings, strict=True
    ):
        where = f"{meta.key.table}/{meta.key.shoe} (profile {meta.profile_id})"
        if cf != pf:
            only_c = [json.loads(x) for x in cf if x not in pf]
            only_p = [json.loads(x) for x in pf if x not in cf]
            return (
                f"findings differ for {where}:\n  compiled only: {only_c}\n  pure only: {only_p}"
                + ("" if only_c or only_p else f"\n  order: {cf}\n  vs {pf}")
            )
        if cr != pr:
            return f"audit records differ for {where}:\n  compiled {cr}\n  pure     {pr}"
    if len(c_records) != len(p_records):
        return f"{len(c_records)} shoes audited compiled, {len(p_records)} pure ({shoes})"
    for name, c, p in (("rounds", c_rounds, p_rounds), ("wagers", c_wagers, p_wagers)):
        ct, pt = _table(c), _table(p)
        if not ct.equals(pt, check_metadata=True):
            return _first_row_difference(name, ct, pt)
    return None


@dataclass
class Differential:
    """A ``run`` executor that replays each batch both ways and stops at the first divergence."""

    pure: PureProcess
    shoes: int = 0
    batches: int = 0

    def map(
        self, fn: BatchFn[Any], jobs: Iterable[Any], registry: ProfileRegistry
    ) -> Generator[BatchResult, None, None]:
        assert fn is audit_batch, "the differential replays run's own batches"
        for job in jobs:
            self.pure.send(job)  # it replays there while this process does
            try:
                result = fn(job, registry)
                compiled: Canonical | str = canonical(result)
            except Exception:
                import traceback

                compiled = traceback.format_exc()
            difference = compare(job, compiled, self.pure.receive())
            if difference is not None:
                raise Divergence(difference)
            self.shoes += len(job.shoes)
            self.batches += 1
            yield result
