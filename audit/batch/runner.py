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
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context

from audit.engine import ENGINE_VERSION, ShoeContext, ShoeReplay, replay_shoe
from audit.events.models import AnyEvent
from audit.findings import Code
from audit.profiles import Profile, ProfileRegistry
from audit.store import ShoeAuditResult, ShoeKey, Store

BATCH_SHOES = 64
"""Shoes per batch: large enough to amortise a transaction, small enough to stream."""


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
    """Everything one shoe's replay needs, picklable for a worker process."""

    key: ShoeKey
    events: list[AnyEvent]
    profile_id: str | None
    context: ShoeContext
    events_digest: str | None


def profile_for(registry: ProfileRegistry, profile_id: str | None) -> Profile | None:
    """The shoe's profile, or None when it names none the registry knows (LOG_UNKNOWN_PROFILE)."""
    return registry.get(profile_id) if profile_id is not None and profile_id in registry else None


def _replay_job(job: ShoeJob, registry: ProfileRegistry) -> ShoeAuditResult:
    profile = profile_for(registry, job.profile_id)
    replay = replay_shoe(job.events, profile, job.context)
    return ShoeAuditResult(
        key=job.key,
        engine_version=ENGINE_VERSION,
        profile_id=job.profile_id,
        profile_digest=profile.digest if profile else None,
        rounds=len(replay.rounds),
        findings=replay.findings,
        events_digest=job.events_digest,
    )


_WORKER_REGISTRY: ProfileRegistry | None = None


def _init_worker(registry: ProfileRegistry) -> None:
    global _WORKER_REGISTRY
    _WORKER_REGISTRY = registry


def _worker_batch(jobs: list[ShoeJob]) -> list[ShoeAuditResult]:
    assert _WORKER_REGISTRY is not None
    return [_replay_job(j, _WORKER_REGISTRY) for j in jobs]


def shoe_contexts(store: Store, keys: Sequence[ShoeKey]) -> dict[ShoeKey, ShoeContext]:
    """The cross-shoe :class:`ShoeContext` of each shoe in ``keys``."""
    from audit.batch.contexts import group_outline, outline_rows, table_contexts

    tables = sorted({k.table for k in keys})
    contexts: dict[ShoeKey, ShoeContext] = {}
    for table, outline in group_outline(outline_rows(store, tables)).items():
        contexts.update(table_contexts(table, outline))
    return contexts


def replay_stored_shoe(
    store: Store, registry: ProfileRegistry, key: ShoeKey
) -> tuple[ShoeReplay, list[AnyEvent]]:
    """Replay one stored shoe exactly as ``run`` does (for ``hand`` and reports)."""
    events = store.load_shoe_events([key]).get(key, [])
    info = store.shoe_info([key]).get(key)
    profile_id = info.profile if info else None
    profile = profile_for(registry, profile_id)
    context = shoe_contexts(store, [key]).get(key, ShoeContext())
    return replay_shoe(events, profile, context), events


def _batches(keys: Sequence[ShoeKey], size: int) -> Iterator[Sequence[ShoeKey]]:
    for i in range(0, len(keys), size):
        yield keys[i : i + size]


def run_audit(
    store: Store,
    registry: ProfileRegistry,
    *,
    all_shoes: bool = False,
    table: str | None = None,
    gaming_day: dt.date | None = None,
    workers: int | None = None,
    batch_shoes: int = BATCH_SHOES,
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
    if not keys:
        summary.seconds = time.perf_counter() - t0
        return summary
    infos = store.shoe_info(keys)
    contexts = shoe_contexts(store, keys)
    n_workers = workers or os.cpu_count() or 1
    n_workers = max(1, min(n_workers, len(keys) // 8 or 1))
    pool: Executor | None = None
    if n_workers > 1:
        pool = ProcessPoolExecutor(
            n_workers,
            mp_context=get_context("spawn"),
            initializer=_init_worker,
            initargs=(registry,),
        )
    try:
        done = 0
        for batch in _batches(keys, batch_shoes):
            events = store.load_shoe_events(batch)
            jobs = [
                ShoeJob(
                    key=k,
                    events=events.get(k, []),
                    profile_id=infos[k].profile if k in infos else None,
                    context=contexts.get(k, ShoeContext()),
                    events_digest=infos[k].events_digest if k in infos else None,
                )
                for k in batch
            ]
            if pool is None:
                results = [_replay_job(j, registry) for j in jobs]
            else:
                chunk = max(1, len(jobs) // n_workers + (len(jobs) % n_workers > 0))
                parts = [jobs[i : i + chunk] for i in range(0, len(jobs), chunk)]
                results = [r for part in pool.map(_worker_batch, parts) for r in part]
            store.replace_findings(results)
            for r in results:
                summary.shoes += 1
                summary.rounds += r.rounds
                summary.findings += len(r.findings)
                for f in r.findings:
                    summary.by_code[str(f.code)] = summary.by_code.get(str(f.code), 0) + 1
            done += len(batch)
            if progress is not None:
                progress(done, len(keys))
    finally:
        if pool is not None:
            pool.shutdown()
    summary.seconds = time.perf_counter() - t0
    summary.by_code = dict(sorted(summary.by_code.items(), key=lambda kv: Code(kv[0]).value))
    return summary
