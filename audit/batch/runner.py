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

import datetime as dt
import functools
import gc
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar

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
from audit.events.models import AnyEvent
from audit.findings import Code, assign_ids
from audit.integrity import Integrity, check_before
from audit.profiles import Profile, ProfileRegistry
from audit.store import ShoeKey, Store
from audit.store.batches import (
    AuditRecord,
    batch_keys,
    clear_results,
    decode_batch,
    outcome_tables,
    stream_shoe_parts,
    write_results,
)
from audit.store.store import RUN_MEMORY_LIMIT

if TYPE_CHECKING:
    import pyarrow as pa

BATCH_EVENTS = 40_000
"""Events per batch (whole shoes): large enough to amortise a transaction and a
worker round trip, small enough to keep memory flat whatever the night's size."""


@dataclass(slots=True)
class RunSummary:
    """What one ``run`` did."""

    shoes: int = 0
    rounds: int = 0
    findings: int = 0
    by_code: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    skipped_current: int = 0


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


def _audit_batch(job: BatchJob, registry: ProfileRegistry) -> BatchResult:
    audits: list[AuditRecord] = []
    rounds: list[RoundRow] = []
    wagers: list[WagerRow] = []
    decoded = decode_batch(job.events)
    if [k for k, _ in decoded] != [m.key for m in job.shoes]:
        raise RuntimeError("a batch's shoes and their metadata disagree")
    for (key, events), meta in zip(decoded, job.shoes, strict=True):
        profile = profile_for(registry, meta.profile_id)
        out = audit_shoe(key.table, key.shoe, events, profile, meta.context)
        findings = [
            replace(f, id=i) for f, i in zip(out.findings, assign_ids(out.findings), strict=True)
        ]
        staked: list[Any] = [w for w in out.wagers if w[_KIND] != "bonus"]
        audits.append(
            AuditRecord(
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
        )
        rounds.extend(out.rounds)
        wagers.extend(out.wagers)
    round_table, wager_table = outcome_tables(rounds, wagers)
    return BatchResult(audits, round_table, wager_table)


_KIND, _STAKE = WagerRow._fields.index("kind"), WagerRow._fields.index("stake")
"""Where a wager row (a plain tuple in :class:`WagerRow` order) holds its kind and stake."""

_WORKER_REGISTRY: ProfileRegistry | None = None


def _init_worker(registry: ProfileRegistry) -> None:
    global _WORKER_REGISTRY
    _WORKER_REGISTRY = registry
    stop_with_parent()  # after kill -9 of run, its workers stop too (audit.batch.lifeline)
    # Ctrl-C reaches the whole process group: only the parent handles it (one
    # line, exit 130), so a worker prints no traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore Ctrl-C while workers may be started, so that they start ignoring it.

    A worker imports the program before its initializer runs; a Ctrl-C in that
    time would print the worker's own traceback. An ignored SIGINT is inherited
    by the new process (and Python then installs no handler of its own).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _worker_call(fn: Callable[[Any, ProfileRegistry], BatchResult], job: Any) -> BatchResult:
    assert _WORKER_REGISTRY is not None, "worker started without its registry"
    return fn(job, _WORKER_REGISTRY)


J = TypeVar("J")
BatchFn = Callable[[J, ProfileRegistry], BatchResult]
"""What replays one batch: :func:`audit_batch`, or the reader of a Parquet source."""


class BatchExecutor(Protocol):
    """Where ``run`` replays its batches: local processes, or a Dask cluster (issue 13)."""

    def map(
        self, fn: BatchFn[J], jobs: Iterable[J], registry: ProfileRegistry
    ) -> Generator[BatchResult, None, None]:
        """``fn(job, registry)`` of every job, wherever it runs; one result per job, in any order.

        Reads ``jobs`` lazily, holding only a few in flight, so memory stays flat;
        closing the generator stops the work still in flight.
        """
        ...


@dataclass(frozen=True, slots=True)
class LocalProcesses:
    """``workers`` processes of this machine (spawned, each given the registry once); 1: here."""

    workers: int

    def map(
        self, fn: BatchFn[J], jobs: Iterable[J], registry: ProfileRegistry
    ) -> Generator[BatchResult, None, None]:
        if self.workers == 1:
            for job in jobs:
                yield fn(job, registry)
            return
        with ProcessPoolExecutor(
            self.workers,
            mp_context=get_context("spawn"),
            initializer=_init_worker,
            initargs=(registry,),
        ) as pool:
            pending: deque[Future[BatchResult]] = deque()
            try:
                for job in jobs:
                    with _sigint_ignored():  # a worker may be started here
                        pending.append(pool.submit(_worker_call, fn, job))
                    while len(pending) > 2 * self.workers:
                        yield pending.popleft().result()
                while pending:
                    yield pending.popleft().result()
            except (KeyboardInterrupt, GeneratorExit):
                # Ctrl-C here, or in the caller while it writes a batch (which closes this
                # generator): do not wait for the queued batches; what is written stays.
                pool.shutdown(wait=False, cancel_futures=True)
                raise


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
    """Hold DuckDB to :data:`audit.store.store.RUN_MEMORY_LIMIT` while ``fn`` runs, and
    checkpoint its writes before the limit is lifted."""

    def held(store: Store, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with store.memory_limit(RUN_MEMORY_LIMIT):
            out = fn(store, *args, **kwargs)
            # The run's writes folded into the file while the limit holds: left to
            # close, the checkpoint of a million-round run took DuckDB to 1.15 GB.
            # Every result is committed by now: if DuckDB cannot checkpoint here (out
            # of memory under the limit, say), close does it, as before.
            import duckdb

            with suppress(duckdb.Error):
                store.con.execute("CHECKPOINT")
            return out

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
) -> RunSummary:
    """Audit every shoe that is new, changed, or audited by another engine/profile version.

    ``all_shoes`` re-audits everything; ``table`` and ``gaming_day`` narrow the
    selection. ``workers`` processes replay in parallel (default: one per core;
    1 replays in this process). ``progress(done, total)`` is called with the
    number of shoes written after every batch (and with 0 before the first).
    ``executor`` replays the batches elsewhere (a Dask cluster; ``workers`` is
    then unused); ``source`` is the folder of a Parquet export whose files the
    workers read themselves (:mod:`audit.batch.source`), instead of the events
    this process reads from the database. DuckDB's memory is
    :data:`audit.store.store.RUN_MEMORY_LIMIT` for the run unless one was chosen.
    """
    t0 = time.perf_counter()
    digests = {p.id: p.digest for p in registry.all()}
    keys = store.shoes_to_audit(
        ENGINE_VERSION, digests, all=all_shoes, table=table, gaming_day=gaming_day
    )
    summary = RunSummary()
    note_tampered(summary, check_before(store, keys, record=True))  # tamper evidence (issue 14)
    if not keys:
        summary.seconds = time.perf_counter() - t0
        return summary
    if progress is not None:
        progress(0, len(keys))
    meta = RunMeta(store, keys)
    fn: BatchFn[Any] = audit_batch
    jobs: Iterable[Any]
    if source is not None:
        from audit.batch.source import audit_source_batch, plan_source_jobs

        # Planned (and the export checked) before any result is cleared: a stale export
        # is refused with the database as it was.
        fn = audit_source_batch
        infos = store.shoe_info(keys)
        jobs = plan_source_jobs(store, source, keys, meta.of_many, infos, batch_events)
    else:

        def batch_jobs() -> Iterator[BatchJob]:
            for part, batches in stream_shoe_parts(store, keys, batch_events):
                metas = {m.key: m for m in meta.of_many(part.keys)}
                for events in batches:
                    yield BatchJob(events, tuple(metas[k] for k in batch_keys(events)))

        jobs = batch_jobs()
    clear_results(store, keys)
    done = 0

    def record(result: BatchResult) -> None:
        nonlocal done
        write_results(store, result.audits, result.rounds, result.wagers)
        for a in result.audits:
            summary.shoes += 1
            summary.rounds += a.rounds
            summary.findings += len(a.findings)
            for f in a.findings:
                summary.by_code[str(f.code)] = summary.by_code.get(str(f.code), 0) + 1
        done += len(result.audits)
        if progress is not None:
            progress(done, len(keys))

    if executor is None:
        n_workers = workers or os.cpu_count() or 1
        executor = LocalProcesses(max(1, min(n_workers, len(keys) // 4 or 1)))
    with closing(executor.map(fn, jobs, registry)) as results:
        for result in results:
            record(result)
    summary.seconds = time.perf_counter() - t0
    summary.by_code = dict(sorted(summary.by_code.items(), key=lambda kv: Code(kv[0]).value))
    return summary
