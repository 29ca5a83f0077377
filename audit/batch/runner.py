"""``shoe-audit run``: replay every shoe that needs it, in batches, on every core.

A batch is a set of whole shoes pulled from the store; its findings are written
back in one transaction, so an interrupted run leaves every shoe either audited
(with all its findings) or not audited at all, and a re-run finishes the job
without duplicating anything. Each audited shoe records the engine version,
its profile's digest and its events' digest: a re-run skips what is current.
"""

from __future__ import annotations

import datetime as dt
import os
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from multiprocessing import get_context
from typing import Any

from audit.batch.lifeline import stop_with_parent
from audit.engine import ENGINE_VERSION, ShoeContext, ShoeReplay, replay_shoe
from audit.events.models import AnyEvent
from audit.findings import Code
from audit.integrity import Integrity, check_before
from audit.profiles import Profile, ProfileRegistry
from audit.store import ShoeAuditResult, ShoeKey, Store
from audit.store.rows import build_event

BATCH_EVENTS = 20_000
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
class ShoeJob:
    """Everything one shoe's replay needs, as plain rows: cheap to send to a worker."""

    key: ShoeKey
    names: list[str]
    rows: list[tuple[Any, ...]]
    profile_id: str | None
    context: ShoeContext
    events_digest: str | None


def note_tampered(summary: RunSummary, integrity: Integrity) -> None:
    """Count the integrity check's ``LOG_TAMPERED`` findings in the run's summary."""
    if integrity.differences:
        summary.findings += len(integrity.differences)
        summary.by_code[str(Code.LOG_TAMPERED)] = len(integrity.differences)


def profile_for(registry: ProfileRegistry, profile_id: str | None) -> Profile | None:
    """The shoe's profile, or None when it names none the registry knows (LOG_UNKNOWN_PROFILE)."""
    return registry.get(profile_id) if profile_id is not None and profile_id in registry else None


def replay_job(job: ShoeJob, registry: ProfileRegistry) -> ShoeAuditResult:
    """Build one shoe's events from its rows and replay them under its profile."""
    profile = profile_for(registry, job.profile_id)
    events = [build_event(dict(zip(job.names, r, strict=True))) for r in job.rows]
    replay = replay_shoe(events, profile, job.context)
    staked = [w for r in replay.rounds for w in r.wagers if w.kind != "bonus"]
    return ShoeAuditResult(
        key=job.key,
        engine_version=ENGINE_VERSION,
        profile_id=job.profile_id,
        profile_digest=profile.digest if profile else None,
        rounds=len(replay.rounds),
        findings=replay.findings,
        events_digest=job.events_digest,
        wagers=len(staked),
        handle=sum((w.stake for w in staked), Decimal(0)),
    )


_WORKER_REGISTRY: ProfileRegistry | None = None


def _init_worker(registry: ProfileRegistry) -> None:
    global _WORKER_REGISTRY
    _WORKER_REGISTRY = registry
    stop_with_parent()  # after kill -9 of run, its workers stop too (audit.batch.lifeline)


def _worker_batch(jobs: list[ShoeJob]) -> list[ShoeAuditResult]:
    assert _WORKER_REGISTRY is not None, "worker started without its registry"
    return [replay_job(j, _WORKER_REGISTRY) for j in jobs]


def shoe_contexts(store: Store, keys: Sequence[ShoeKey]) -> dict[ShoeKey, ShoeContext]:
    """The cross-shoe :class:`ShoeContext` of each shoe in ``keys``."""
    from audit.batch.contexts import group_outline, outline_rows, table_contexts

    tables = sorted({k.table for k in keys})
    contexts: dict[ShoeKey, ShoeContext] = {}
    for table, outline in group_outline(outline_rows(store, tables)).items():
        contexts.update(table_contexts(table, outline))
    return contexts


def replay_stored_shoe(
    store: Store,
    registry: ProfileRegistry,
    key: ShoeKey,
    contexts: dict[ShoeKey, ShoeContext] | None = None,
) -> tuple[ShoeReplay, list[AnyEvent]]:
    """Replay one stored shoe exactly as ``run`` does (for ``hand`` and reports).

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
) -> RunSummary:
    """Audit every shoe that is new, changed, or audited by another engine/profile version.

    ``all_shoes`` re-audits everything; ``table`` and ``gaming_day`` narrow the
    selection. ``workers`` processes replay in parallel (default: one per core;
    1 replays in this process). ``progress(done, total)`` is called after
    every batch.
    """
    import time

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
    infos = store.shoe_info(keys)
    contexts = shoe_contexts(store, keys)

    def jobs_of(names: list[str], rows: dict[ShoeKey, list[tuple[Any, ...]]]) -> list[ShoeJob]:
        return [
            ShoeJob(
                key=k,
                names=names,
                rows=shoe_rows,
                profile_id=infos[k].profile if k in infos else None,
                context=contexts.get(k, ShoeContext()),
                events_digest=infos[k].events_digest if k in infos else None,
            )
            for k, shoe_rows in rows.items()
        ]

    done = 0

    def record(results: list[ShoeAuditResult]) -> None:
        nonlocal done
        store.replace_findings(results)
        for r in results:
            summary.shoes += 1
            summary.rounds += r.rounds
            summary.findings += len(r.findings)
            for f in r.findings:
                summary.by_code[str(f.code)] = summary.by_code.get(str(f.code), 0) + 1
        done += len(results)
        if progress is not None:
            progress(done, len(keys))

    n_workers = workers or os.cpu_count() or 1
    n_workers = max(1, min(n_workers, len(keys) // 4 or 1))
    batches = store.iter_shoe_rows(keys, batch_events=batch_events)
    if n_workers == 1:
        for names, rows in batches:
            record([replay_job(j, registry) for j in jobs_of(names, rows)])
    else:
        # Workers build events and replay; this process streams the next batch out
        # of DuckDB and writes finished ones back, one transaction per batch, in order.
        with ProcessPoolExecutor(
            n_workers,
            mp_context=get_context("spawn"),
            initializer=_init_worker,
            initargs=(registry,),
        ) as pool:
            pending: deque[Future[list[ShoeAuditResult]]] = deque()
            for names, rows in batches:
                pending.append(pool.submit(_worker_batch, jobs_of(names, rows)))
                while len(pending) > 2 * n_workers:
                    record(pending.popleft().result())
            while pending:
                record(pending.popleft().result())
    summary.seconds = time.perf_counter() - t0
    summary.by_code = dict(sorted(summary.by_code.items(), key=lambda kv: Code(kv[0]).value))
    return summary
