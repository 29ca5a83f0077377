"""``shoe-audit run``: replay every shoe that needs it, in batches, on every core.

The parent process reads the events of the selected shoes in sorted scans, a
part of about a million events at a time
(:func:`audit.store.batches.stream_shoe_batches`), and hands each batch of
whole shoes to a worker as an Arrow table, so its own share stays small: no event
becomes a Python object in the parent, and workers never open the database
(DuckDB lets no other process open a file one process has open for writing).
A worker builds the engine's lean events (:func:`audit.store.batches.decode_batch`),
replays each shoe (:func:`audit.engine.audit_shoe`) and sends back findings
and outcome rows as Arrow tables; the parent writes each batch in one
transaction, in order.

Where batches are replayed is a :class:`BatchExecutor`: local processes
(:class:`LocalProcesses`, the default) or a Dask cluster
(:mod:`audit.batch.cluster`, ``run --cluster``); with ``source`` (``run
--source DIR``) the batches name the Parquet files their shoes are in
(:mod:`audit.batch.source`) and each worker reads them itself.

Before the first batch, the selected shoes' earlier results are removed in one
transaction: an interrupted run leaves every shoe either audited (with all its
findings and outcomes) or not audited, and a re-run finishes the job without
duplicating anything. Each audited shoe records the engine version, its
profile's digest and its events' digest: a re-run skips what is current.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import gc
import itertools
import os
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from typing import TYPE_CHECKING, Any, Concatenate, NamedTuple, ParamSpec, Protocol, TypeVar

from audit.batch.faults import die_at_start, hold_start, inject_fault, planned_faults
from audit.batch.handoff import Handoff, SharedTable
from audit.batch.interrupts import sigint_deferred, worker_leaves_sigint_to_parent
from audit.batch.lifeline import stop_with_parent
from audit.engine import (
    ENGINE_VERSION,
    RoundRow,
    ShoeContext,
    ShoeReplay,
    WagerRow,
    audit_shoe,
    replay_shoe,
)
from audit.errors import AuditError
from audit.events.models import AnyEvent
from audit.findings import Code, assign_ids
from audit.integrity import Integrity, check_before
from audit.profiles import Profile, ProfileRegistry
from audit.store import ShoeKey, Store
from audit.store.batches import (
    AuditRecord,
    ShoeFailure,
    audited_keys,
    batch_keys,
    decode_batch,
    one_batch_per_shoe,
    outcome_tables,
    own_buffers,
    stream_shoe_parts,
    write_results,
)
from audit.store.store import RUN_CHECKPOINT_THRESHOLD, RUN_MEMORY_LIMIT

if TYPE_CHECKING:
    import pyarrow as pa

BATCH_EVENTS = 100_000
"""Events per batch (whole shoes): large enough to amortise a transaction and a
worker round trip, small enough to keep memory flat whatever the night's size.

Each batch costs the parent a fixed ~0.5 s on the shared machine (its write's dozen
statements, a commit, the ledger record and its two fsyncs, the scan's slicing): on
a month of one-round shoes (issue 33: 28,530 shoes, 3M events) 76 batches of 40,000
spent 47 of run's 82 s writing. At 100,000 the parent's peak RSS is ~745 MiB (568 at
40,000, 937 at 160,000, five batches in flight), the same whatever the night's size."""


@dataclass(slots=True)
class RunSummary:
    """What one ``run`` did."""

    shoes: int = 0
    rounds: int = 0
    findings: int = 0
    by_code: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    skipped_current: int = 0
    failed: list[ShoeFailure] = field(default_factory=list)
    """The shoes whose replay failed (cli.md ``run``, exit 6): each kept its earlier results."""
    books: Any = None
    """The books' reconciliation after the replay
    (:class:`audit.batch.reconcile_books.BooksSummary`)."""


@dataclass(frozen=True, slots=True)
class ShoeMeta:
    """What a worker needs to know of one shoe besides its events."""

    key: ShoeKey
    profile_id: str | None
    context: ShoeContext
    events_digest: str


@dataclass(frozen=True, slots=True)
class BatchJob:
    """A batch of whole shoes for a worker: their events (Arrow) and their metadata, in order."""

    events: pa.Table
    shoes: tuple[ShoeMeta, ...]


@dataclass(frozen=True, slots=True)
class BatchResult:
    """A worker's answer: each shoe's audit record, and the outcome rows as Arrow tables."""

    audits: list[AuditRecord]
    rounds: pa.Table
    wagers: pa.Table
    failed: list[ShoeFailure] = field(default_factory=list)
    """The batch's shoes whose replay raised (not in ``audits``): each costs only itself."""


@dataclass(frozen=True, slots=True)
class LostBatch:
    """A batch whose worker died under it (out of memory, a crash in compiled code, a
    signal): :func:`run_audit` replays it again shoe by shoe to name the culprit."""

    job: Any
    error: str


def note_tampered(summary: RunSummary, integrity: Integrity) -> None:
    """Count the integrity check's ``LOG_TAMPERED`` findings in the run's summary."""
    if integrity.differences:
        summary.findings += len(integrity.differences)
        summary.by_code[str(Code.LOG_TAMPERED)] = len(integrity.differences)


def profile_for(registry: ProfileRegistry, profile_id: str | None) -> Profile | None:
    """The shoe's profile, or None when it names none the registry knows (LOG_UNKNOWN_PROFILE)."""
    return registry.get(profile_id) if profile_id is not None and profile_id in registry else None


def audit_batch(job: BatchJob, registry: ProfileRegistry) -> BatchResult:
    """Replay a batch of shoes exactly as ``run`` does, wherever it runs (pure: no database).

    The engine's findings get their stable ids (:func:`audit.findings.assign_ids`).
    """
    # The replay makes millions of short-lived objects and no reference cycles worth
    # collecting (a late split's Late and its hands are the only one): the cyclic GC's
    # passes over everything alive cost about a quarter of the time, so it waits.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _audit_batch(job, registry)
    finally:
        if collecting:
            gc.enable()


_ONLY_SHOE: ContextVar[int | None] = ContextVar("only_shoe", default=None)
"""Set while a lost batch is replayed shoe by shoe (:func:`audit_one_shoe`): the index
of the one shoe of the batch to replay."""


def _audit_batch(job: BatchJob, registry: ProfileRegistry) -> BatchResult:
    audits: list[AuditRecord] = []
    failed: list[ShoeFailure] = []
    outcomes: list[tuple[list[RoundRow], list[WagerRow]]] = []
    decoded = decode_batch(job.events)
    if [k for k, _ in decoded] != [m.key for m in job.shoes]:
        raise RuntimeError("a batch's shoes and their metadata disagree")
    faults = planned_faults()
    only = _ONLY_SHOE.get()
    for i, ((key, events), meta) in enumerate(zip(decoded, job.shoes, strict=True)):
        if only is not None and i != only:
            continue
        try:
            inject_fault(faults, key)
            audit, rounds, wagers = _audit_one(key, events, meta, registry)
        except Exception as exc:  # one shoe costs only itself (cli.md run, exit 6)
            failed.append(ShoeFailure(key, _one_line(exc)))
            continue
        audits.append(audit)
        outcomes.append((rounds, wagers))
    return _batch_result(audits, outcomes, failed)


def _audit_one(
    key: ShoeKey, events: Any, meta: ShoeMeta, registry: ProfileRegistry
) -> tuple[AuditRecord, list[RoundRow], list[WagerRow]]:
    """One shoe's audit record and outcome rows, as ``run`` stores them."""
    profile = profile_for(registry, meta.profile_id)
    out = audit_shoe(key.table, key.shoe, events, profile, meta.context)
    findings = [
        replace(f, id=i) for f, i in zip(out.findings, assign_ids(out.findings), strict=True)
    ]
    staked: list[Any] = [w for w in out.wagers if w[_KIND] != "bonus"]
    audit = AuditRecord(
        key=key,
        engine_version=ENGINE_VERSION,
        profile_id=meta.profile_id,
        profile_digest=profile.digest if profile else None,
        events_digest=meta.events_digest,
        rounds=len(out.rounds),
        wagers=len(staked),
        handle_cents=sum(w[_STAKE] for w in staked),
        findings=findings,
        prefix_ranks=out.prefix_ranks,
        context=(
            meta.context.first_shoe_of_gaming_day,
            meta.context.banker,
            meta.context.banker_rounds_before,
        ),
    )
    return audit, list(out.rounds), list(out.wagers)


def _batch_result(
    audits: list[AuditRecord],
    outcomes: list[tuple[list[RoundRow], list[WagerRow]]],
    failed: list[ShoeFailure],
) -> BatchResult:
    """The batch's outcome rows as Arrow tables; a shoe whose rows Arrow refuses fails alone."""
    try:
        tables = outcome_tables(
            [r for rounds, _ in outcomes for r in rounds],
            [w for _, wagers in outcomes for w in wagers],
        )
    except Exception:
        kept: list[int] = []
        for i, (rounds, wagers) in enumerate(outcomes):
            try:
                outcome_tables(rounds, wagers)
            except Exception as exc:
                failed.append(ShoeFailure(audits[i].key, _one_line(exc)))
            else:
                kept.append(i)
        audits = [audits[i] for i in kept]
        outcomes = [outcomes[i] for i in kept]
        tables = outcome_tables(
            [r for rounds, _ in outcomes for r in rounds],
            [w for _, wagers in outcomes for w in wagers],
        )
    return BatchResult(audits, tables[0], tables[1], failed)


def _one_line(exc: BaseException) -> str:
    """An error as ``run`` names it on stderr: its type and its first line."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


_KIND, _STAKE = WagerRow._fields.index("kind"), WagerRow._fields.index("stake")
"""Where a wager row (a plain tuple in :class:`WagerRow` order) holds its kind and stake."""

_WORKER_REGISTRY: ProfileRegistry | None = None


def _init_worker(registry: ProfileRegistry) -> None:
    global _WORKER_REGISTRY
    die_at_start()  # SHOE_AUDIT_FAULT=die-at-start (tests)
    _WORKER_REGISTRY = registry
    stop_with_parent()  # after kill -9 of run, its workers stop too (audit.batch.lifeline)
    # Ctrl-C reaches the whole process group: only the parent handles it (one
    # line, exit 130), so a worker prints no traceback of its own. The worker was
    # started with SIGINT blocked (sigint_deferred), so none got in before this.
    worker_leaves_sigint_to_parent()


def _worker_call(fn: Callable[[Any, ProfileRegistry], BatchResult], job: Any) -> BatchResult:
    assert _WORKER_REGISTRY is not None, "worker started without its registry"
    if isinstance(job, _SharedJob):
        try:
            events = job.events.read()
        except OSError as exc:
            raise HandoffLost(str(exc)) from None
        job = BatchJob(events, job.shoes)
    return fn(job, _WORKER_REGISTRY)


class HandoffLost(Exception):
    """A batch's file could not be read by its worker (another process removed it, say a
    cleaner of ``/dev/shm``): the batch is sent again, down the pipe."""


class _SharedJob(NamedTuple):
    """A :class:`BatchJob` on its way to a local worker, its events as a file
    (:mod:`audit.batch.handoff`)."""

    events: SharedTable
    shoes: tuple[ShoeMeta, ...]


def _sent(handoff: Handoff | None, job: Any, by_pipe: bool = False) -> Any:
    """What goes down the pipe for ``job``: a batch's events as a file (unless ``by_pipe``:
    its file was lost once), anything else as is."""
    if by_pipe and isinstance(job, BatchJob):
        return _pickled_whole(job)
    if handoff is None or not isinstance(job, BatchJob):
        return job
    try:
        return _SharedJob(handoff.send(job.events), job.shoes)
    except OSError:  # the folder is full (or gone): this batch goes down the pipe
        return _pickled_whole(job)


def _pickled_whole(job: BatchJob) -> BatchJob:
    """``job`` as a pickle should carry it: a local worker's batch may be a slice of its
    part's scan (:func:`audit.store.batches.stream_shoe_parts`, ``whole=False``), whose
    pickle would hold the whole scan."""
    return BatchJob(own_buffers(job.events), job.shoes)


J = TypeVar("J")
BatchFn = Callable[[J, ProfileRegistry], BatchResult]
"""What replays one batch: :func:`audit_batch`, or the reader of a Parquet source."""


class BatchExecutor(Protocol):
    """Where ``run`` replays its batches: local processes, or a Dask cluster (issue 13)."""

    def map(
        self, fn: BatchFn[J], jobs: Iterable[J], registry: ProfileRegistry
    ) -> Generator[BatchResult | LostBatch, None, None]:
        """``fn(job, registry)`` of every job, wherever it runs; one result per job, in any order.

        A job whose worker died under it (and, with local processes, every job that
        was in flight with it) comes back as a :class:`LostBatch`, and the work goes
        on with the others. Reads ``jobs`` lazily, holding only a few in flight, so
        memory stays flat; closing the generator stops the work still in flight.
        """
        ...

    def isolating(self) -> BatchExecutor:
        """The same place, one job at a time: a worker that dies then names its one job."""
        ...


_END: Any = object()


@dataclass(frozen=True, slots=True)
class LocalProcesses:
    """``workers`` processes of this machine (spawned, each given the registry once); 1: here.

    ``one_at_a_time``: a single worker process with one job in flight (replaying a
    lost batch shoe by shoe: a worker that dies then names its shoe)."""

    workers: int
    one_at_a_time: bool = False

    def isolating(self) -> LocalProcesses:
        return LocalProcesses(1, one_at_a_time=True)

    def map(
        self, fn: BatchFn[J], jobs: Iterable[J], registry: ProfileRegistry
    ) -> Generator[BatchResult | LostBatch, None, None]:
        if self.workers == 1 and not self.one_at_a_time:
            for job in jobs:
                yield fn(job, registry)
            return
        todo = iter(jobs)
        in_flight = 1 if self.one_at_a_time else 2 * self.workers + 1
        handoff = None
        if not self.one_at_a_time:
            with contextlib.suppress(OSError):  # no folder to be had: batches go by pipe
                handoff = Handoff()
        try:
            yield from self._map(fn, todo, registry, in_flight, handoff)
        finally:
            if handoff is not None:
                handoff.close()

    def _map(
        self,
        fn: BatchFn[J],
        todo: Iterator[J],
        registry: ProfileRegistry,
        in_flight: int,
        handoff: Handoff | None,
    ) -> Generator[BatchResult | LostBatch, None, None]:
        def done(sent: Any) -> None:
            if isinstance(sent, _SharedJob) and handoff is not None:
                handoff.discard(sent.events)  # a worker that read it removed it already

        by_pipe: set[int] = set()  # the jobs whose file a worker could not read (by id)
        while True:  # a new pool after one broke: the jobs left go on
            broke = False
            pool = ProcessPoolExecutor(
                self.workers,
                mp_context=get_context("spawn"),
                initializer=_init_worker,
                initargs=(registry,),
            )
            pending: deque[tuple[J, Any, Future[BatchResult]]] = deque()
            started = False
            try:
                refused = False
                while True:
                    while (
                        not refused
                        and len(pending) < in_flight
                        and (job := next(todo, _END)) is not _END
                    ):
                        sent = _sent(handoff, job, by_pipe=id(job) in by_pipe)
                        try:
                            # A worker may be started here: Ctrl-C is held back, not dropped.
                            with sigint_deferred():
                                future = pool.submit(_worker_call, fn, sent)
                                if not started:
                                    started = True
                                    hold_start()  # SHOE_AUDIT_FAULT=hold-start:SECONDS (tests)
                        except BrokenProcessPool:
                            # A worker died since the last job went: this one never started
                            # and goes to the next pool; those in flight are lost below.
                            done(sent)
                            todo = itertools.chain([job], todo)
                            refused = True
                            break
                        pending.append((job, sent, future))
                        by_pipe.discard(id(job))  # sent: a later job may take its id
                    if not pending:
                        broke = refused
                        break
                    job, sent, future = pending.popleft()
                    try:
                        result = future.result()
                    except BrokenProcessPool as exc:
                        # A worker died: this job and every one still in flight are lost
                        # (those that finished first keep their results).
                        broke = True
                        done(sent)
                        yield LostBatch(job, _one_line(exc))
                        again = []
                        for job, sent, future in pending:
                            done(sent)
                            if future.done() and future.exception() is None:
                                yield future.result()
                            elif future.done() and isinstance(future.exception(), HandoffLost):
                                by_pipe.add(id(job))  # its file was lost, not its worker
                                again.append(job)
                            else:
                                yield LostBatch(job, _one_line(exc))
                        todo = itertools.chain(again, todo)
                        pending.clear()
                        break
                    except HandoffLost:
                        # Its file was gone when the worker came to read it: the same batch
                        # again, next, down the pipe (no result is lost or doubled).
                        done(sent)
                        by_pipe.add(id(job))
                        todo = itertools.chain([job], todo)
                        continue
                    done(sent)
                    yield result
            except (KeyboardInterrupt, GeneratorExit):
                # Ctrl-C here, or in the caller while it writes a batch (which closes this
                # generator): do not wait for the queued batches; what is written stays.
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            pool.shutdown(wait=True)
            if not broke:
                return


def audit_one_shoe(fn: BatchFn[J], job: tuple[J, int], registry: ProfileRegistry) -> BatchResult:
    """``fn`` of a batch with only its shoe number ``job[1]`` replayed (a lost batch's shoes,
    one at a time: :func:`replay_batches`)."""
    batch, index = job
    token = _ONLY_SHOE.set(index)
    try:
        return fn(batch, registry)
    finally:
        _ONLY_SHOE.reset(token)


def replay_batches(
    executor: BatchExecutor, fn: BatchFn[J], jobs: Iterable[J], registry: ProfileRegistry
) -> Generator[BatchResult, None, None]:
    """Every job's result from ``executor``; a lost batch replayed again shoe by shoe, one at
    a time, so that only the shoe whose replay kills its worker is lost (named as failed).

    A worker that dies costs its batch only until then (cli.md ``run``, issue 28). Before
    the first lost batch is replayed, :func:`workers_can_run` makes sure a worker can run
    at all (once a run: one worker's death loses every batch then in flight)."""
    can_run = False
    with closing(executor.map(fn, jobs, registry)) as results:
        for out in results:
            if isinstance(out, LostBatch):
                if not can_run:
                    workers_can_run(executor, registry, out)
                    can_run = True
                yield from _replay_lost(executor, fn, out, registry)
            else:
                yield out


def _replay_lost(
    executor: BatchExecutor, fn: BatchFn[Any], lost: LostBatch, registry: ProfileRegistry
) -> Iterator[BatchResult]:
    """A lost batch's shoes one at a time: the one whose worker dies again is the culprit.

    A batch of events is cut into a batch for each shoe, which decodes and carries only its
    own events: sent whole with the shoe's number, each of a 100,000-event batch's ~900
    shoes decoded the whole batch again (and pickled it), minutes for one lost batch. A
    Parquet source's job is replayed with the shoe's number (:func:`audit_one_shoe`).
    """
    one: BatchFn[Any]
    singles: list[Any]
    keys = [m.key for m in lost.job.shoes]
    if isinstance(lost.job, BatchJob):
        pieces = one_batch_per_shoe(lost.job.events)
        singles = [BatchJob(t, (m,)) for t, m in zip(pieces, lost.job.shoes, strict=True)]
        one = fn
    else:
        singles = [(lost.job, i) for i in range(len(keys))]
        one = functools.partial(audit_one_shoe, fn)
    # The shoes' results are written a few hundred at a time: a write (a transaction, its
    # ledger record) for each shoe was most of the replay's time. A Ctrl-C meanwhile loses
    # only the shoes replayed since the last write (named as not re-audited, as any).
    replayed: list[BatchResult] = []
    with closing(executor.isolating().map(one, singles, registry)) as results:
        for single in results:
            if isinstance(single, LostBatch):
                job = single.job
                key = job.shoes[0].key if isinstance(job, BatchJob) else keys[job[1]]
                died = f"its worker process died while replaying it ({single.error})"
                replayed.append(_no_audit([ShoeFailure(key, died)]))
            else:
                replayed.append(single)
            if len(replayed) == _REPLAYED_PER_WRITE:
                yield _merged(replayed)
                replayed = []
    if replayed:
        yield _merged(replayed)


def _no_audit(failed: list[ShoeFailure]) -> BatchResult:
    """A result that audits no shoe: only ``failed`` ones, or none."""
    return BatchResult([], *outcome_tables([], []), failed)


def _replays_nothing(job: object, registry: ProfileRegistry) -> BatchResult:
    """The job of :func:`workers_can_run`: a worker that runs it can run jobs."""
    return _no_audit([])


def workers_can_run(executor: BatchExecutor, registry: ProfileRegistry, lost: LostBatch) -> None:
    """Raise :class:`AuditError` when a worker dies even under a job that replays nothing.

    A batch is lost when its worker dies; its shoes are then replayed one at a time to
    name the one that kills it. A worker that cannot run at all (a broken install, a
    script that spawns workers without the ``if __name__ == "__main__"`` guard) dies
    under every one of them: each shoe of the night would cost a process started in
    vain and be recorded as failed. One job that replays nothing, in a worker of its
    own, tells the two apart: the run stops in one line instead (cli.md: exit 1).
    """
    with closing(executor.isolating().map(_replays_nothing, [0], registry)) as results:
        for out in results:
            if isinstance(out, LostBatch):
                raise AuditError(
                    "the worker processes cannot run: a batch's worker died "
                    f"({lost.error}), and so did a fresh one given no shoe to replay; check "
                    "the install (`shoe-audit --version` in the same environment) or, from "
                    'a script, its `if __name__ == "__main__":` guard; `--workers 1` '
                    "replays in this process"
                )


_REPLAYED_PER_WRITE = 256
"""A lost batch's shoes replayed one at a time are written this many at a time."""


def _merged(results: list[BatchResult]) -> BatchResult:
    """One result holding every shoe of ``results``, in their order. A shoe's money column
    may be decimal where the others' are integers (:func:`audit.store.batches.money_array`):
    the merged column is then decimal."""
    import pyarrow as pa

    empty = _no_audit([])
    return BatchResult(
        [a for r in results for a in r.audits],
        pa.concat_tables(
            [empty.rounds, *(r.rounds for r in results)], promote_options="permissive"
        ),
        pa.concat_tables(
            [empty.wagers, *(r.wagers for r in results)], promote_options="permissive"
        ),
        [f for r in results for f in r.failed],
    )


class RunMeta:
    """Each shoe's :class:`ShoeMeta`, read a scan part at a time.

    The shoes come in parts, in the order their files were stored, many tables
    in each (:func:`audit.store.batches.scan_parts`): a cache of one table's
    rows, reloaded at each change of table, was reloaded ~600 times on a
    million-round night. Instead the cross-shoe contexts of every table are
    computed once, a table at a time from one ordered read of the outline, into
    a temp table beside ``shoes``; a part's metadata is then one query (one a
    batch was 8% of the parent's time). The parent holds one table's outline,
    or one part's metadata, at a time, never the night's.
    """

    def __init__(self, store: Store, keys: Sequence[ShoeKey]) -> None:
        from audit.batch.contexts import store_run_contexts

        self._store = store
        store_run_contexts(store, sorted({k.table for k in keys}))

    def of(self, key: ShoeKey) -> ShoeMeta:
        """What a worker needs of ``key`` besides its events."""
        return self.of_many([key])[0]

    def of_many(self, keys: Sequence[ShoeKey]) -> list[ShoeMeta]:
        """:meth:`of` each of ``keys``, in one query."""
        from audit.batch.contexts import run_meta_rows

        return [
            ShoeMeta(
                key=k,
                profile_id=profile,
                context=ShoeContext(*context) if context is not None else ShoeContext(),
                events_digest=digest or "",
            )
            for k, (profile, digest, context) in zip(
                keys, run_meta_rows(self._store, keys), strict=True
            )
        ]


def shoe_contexts(store: Store, keys: Sequence[ShoeKey]) -> dict[ShoeKey, ShoeContext]:
    """The cross-shoe :class:`ShoeContext` of each shoe in ``keys`` (and of the other shoes
    of their tables that had to be worked out with them).

    A shoe ``run`` audited is replayed with the context it was audited with (stored
    with its results: the page shows those verdicts); the others' are worked out from
    their tables' outline (:mod:`audit.batch.contexts`).
    """
    from audit.batch.contexts import group_outline, outline_rows, table_contexts
    from audit.store.batches import audited_contexts

    audited = audited_contexts(store.con, keys)
    tables = sorted({k.table for k in keys if k not in audited})
    contexts: dict[ShoeKey, ShoeContext] = {}
    for table, outline in group_outline(outline_rows(store, tables)).items():
        contexts.update(table_contexts(table, outline))
    contexts.update((k, ShoeContext(*fields)) for k, fields in audited.items())
    return contexts


def replay_stored_shoe(
    store: Store,
    registry: ProfileRegistry,
    key: ShoeKey,
    contexts: dict[ShoeKey, ShoeContext] | None = None,
) -> tuple[ShoeReplay, list[AnyEvent]]:
    """Replay one stored shoe with its step trace, as ``run`` judged it (for ``hand``).

    ``contexts`` is a cache of :func:`shoe_contexts` results: pass the same dict
    to replay many shoes and each table's outline is read once.
    """
    events = store.load_shoe_events([key]).get(key, [])
    info = store.shoe_info([key]).get(key)
    profile_id = info.profile if info else None
    profile = profile_for(registry, profile_id)
    if contexts is None:
        contexts = {}
    if key not in contexts:
        contexts.update(shoe_contexts(store, [key]))
    return replay_shoe(events, profile, contexts.get(key, ShoeContext())), events


P = ParamSpec("P")
R = TypeVar("R")


def _in_run_memory(fn: Callable[Concatenate[Store, P], R]) -> Callable[Concatenate[Store, P], R]:
    """Hold DuckDB to :data:`audit.store.store.RUN_MEMORY_LIMIT` while ``fn`` runs, with
    fewer checkpoints (:data:`~audit.store.store.RUN_CHECKPOINT_THRESHOLD`), and
    checkpoint its writes before the limit is lifted."""

    def held(store: Store, /, *args: P.args, **kwargs: P.kwargs) -> R:
        # Every result is committed when fn returns; the checkpoint follows, inside the limit.
        with store.checkpoints_past(RUN_CHECKPOINT_THRESHOLD), store.held_to(RUN_MEMORY_LIMIT):
            return fn(store, *args, **kwargs)

    functools.update_wrapper(held, fn)  # its name and docstring
    return held


@_in_run_memory
def run_audit(
    store: Store,
    registry: ProfileRegistry,
    *,
    all_shoes: bool = False,
    table: str | None = None,
    gaming_day: dt.date | None = None,
    workers: int | None = None,
    batch_events: int = BATCH_EVENTS,
    progress: Callable[[int, int], None] | None = None,
    executor: BatchExecutor | None = None,
    source: str | None = None,
    on_stop: Callable[[Sequence[ShoeKey], int], None] | None = None,
) -> RunSummary:
    """Audit every shoe that is new, changed, failed last time, or audited by another
    engine/profile version.

    ``all_shoes`` re-audits everything; ``table`` and ``gaming_day`` narrow the
    selection. ``workers`` processes replay in parallel (default: one per core;
    1 replays in this process). ``progress(done, total)`` is called with the
    number of shoes written after every batch (and with 0 before the first).
    ``executor`` replays the batches elsewhere (a Dask cluster; ``workers`` is
    then unused); ``source`` is the folder of a Parquet export whose files the
    workers read themselves (:mod:`audit.batch.source`), instead of the events
    this process reads from the database. DuckDB's memory is
    :data:`audit.store.store.RUN_MEMORY_LIMIT` for the run unless one was chosen.

    Each batch replaces its shoes' earlier results in the transaction that writes
    the new ones: a run stopped part-way (Ctrl-C, a full disk, a refused source)
    leaves every shoe re-audited or as it was, and ``on_stop(not_done, selected)``
    is told which were not re-audited before the exception goes on. A shoe whose
    replay fails costs only itself (:attr:`RunSummary.failed`).
    """
    from audit.integrity.continuity import before_writing

    before_writing(store)  # issue 29: the ledger file continues the chain; the trail's head
    t0 = time.perf_counter()
    digests = {p.id: p.digest for p in registry.all()}
    keys = store.shoes_to_audit(
        ENGINE_VERSION, digests, all=all_shoes, table=table, gaming_day=gaming_day
    )
    summary = RunSummary()
    integrity = check_before(store, keys, record=True, sweep=not all_shoes)  # issues 14, 28
    note_tampered(summary, integrity)
    if not all_shoes:
        # A shoe whose stored events changed since its ingest record (an UPDATE that left
        # `raw` alone) is audited again, as `run --all` would (issue 28, point 7).
        changed = set(integrity.tampered_shoes()) - set(keys)
        keys = sorted([*keys, *(k for k in changed if _selected(store, k, table, gaming_day))])
    if not keys:
        summary.seconds = time.perf_counter() - t0
        return summary
    if progress is not None:
        progress(0, len(keys))
    # The shoes not yet written: the selection's own key objects, a set that shrinks as
    # batches are written. A set of the written shoes held a new key object (the
    # worker's) for every shoe of the night: ~50 MB at 1,000,000 rounds (issue 33).
    pending: set[ShoeKey] = set(keys)
    try:
        _replay_and_write(
            store, registry, keys, summary, pending, workers, batch_events, progress,
            executor, source,
        )  # fmt: skip
    except BaseException:
        if on_stop is not None:
            on_stop([k for k in keys if k in pending], len(keys))
        raise
    summary.seconds = time.perf_counter() - t0
    summary.by_code = dict(sorted(summary.by_code.items(), key=lambda kv: Code(kv[0]).value))
    return summary


def _selected(store: Store, key: ShoeKey, table: str | None, gaming_day: dt.date | None) -> bool:
    """Whether ``run --table/--date`` selects ``key``."""
    if table is not None and key.table != table:
        return False
    if gaming_day is None:
        return True
    info = store.shoe_info([key]).get(key)
    return info is not None and info.gaming_day == gaming_day


def _replay_and_write(
    store: Store,
    registry: ProfileRegistry,
    keys: list[ShoeKey],
    summary: RunSummary,
    pending: set[ShoeKey],
    workers: int | None,
    batch_events: int,
    progress: Callable[[int, int], None] | None,
    executor: BatchExecutor | None,
    source: str | None,
) -> None:
    """Replay ``keys`` in batches and write each batch as it comes (:func:`run_audit`)."""
    meta = RunMeta(store, keys)
    if executor is None:
        n_workers = workers or os.cpu_count() or 1
        executor = LocalProcesses(max(1, min(n_workers, len(keys) // 4 or 1)))
    # Local workers read a batch from a file (audit.batch.handoff), which holds a slice's
    # rows only: the batch need not be copied into chunks of its own, as a pickle needs.
    whole = not isinstance(executor, LocalProcesses)
    fn: BatchFn[Any] = audit_batch
    jobs: Iterable[Any]
    if source is not None:
        from audit.batch.source import audit_source_batch, plan_source_jobs

        # Planned (and the export checked) before any result is written: a stale export
        # is refused with the database as it was.
        fn = audit_source_batch
        infos = store.shoe_info(keys)
        jobs = plan_source_jobs(store, source, keys, meta.of_many, infos, batch_events)
    else:

        def batch_jobs() -> Iterator[BatchJob]:
            for part, batches in stream_shoe_parts(store, keys, batch_events, whole=whole):
                metas = {m.key: m for m in meta.of_many(part.keys)}
                for events in batches:
                    yield BatchJob(events, tuple(metas[k] for k in batch_keys(events)))

        jobs = batch_jobs()
    replaced = audited_keys(store, keys)

    def record(result: BatchResult) -> None:
        write_results(
            store, result.audits, result.rounds, result.wagers,
            failed=result.failed, replaced=replaced,
        )  # fmt: skip
        for a in result.audits:
            summary.shoes += 1
            summary.rounds += a.rounds
            summary.findings += len(a.findings)
            for f in a.findings:
                summary.by_code[str(f.code)] = summary.by_code.get(str(f.code), 0) + 1
            pending.discard(a.key)
        summary.failed.extend(result.failed)
        pending.difference_update(f.key for f in result.failed)
        if progress is not None:
            progress(len(keys) - len(pending), len(keys))

    with closing(replay_batches(executor, fn, jobs, registry)) as results:
        for result in results:
            record(result)
