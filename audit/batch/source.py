"""``run --source DIR``: batches that name the Parquet files of their shoes (issue 13, point 2).

The coordinator ships no events: each :class:`SourceJob` carries the shoes'
metadata and the export files (path and recorded SHA-256) their partitions
are in, and the worker reads them itself (:func:`audit_source_batch`). Being
plain task arguments, a job is sent again when the worker that held it dies.

Before anything is cleared, :func:`plan_source_jobs` refuses an export that
does not describe the shoes as the database has them now (a partition
written before its shoes changed, or never written), so a stale export cannot
be audited in place of the store of record.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from audit.batch.runner import BatchJob, BatchResult, ShoeMeta, audit_batch
from audit.errors import SourceError
from audit.profiles import ProfileRegistry
from audit.store import ShoeKey, Store
from audit.store.parquet import (
    EXPORT_ID_META,
    Part,
    PartFile,
    partition_digests,
    read_marker,
    read_source_batch,
    recorded_partitions,
)
from audit.store.types import ShoeInfo


@dataclass(frozen=True, slots=True)
class SourceJob:
    """A batch of whole shoes for a worker that reads their events from an export."""

    root: str
    """The export folder as the workers see it (a path, or a URL fsspec knows)."""
    files: tuple[PartFile, ...]
    shoes: tuple[ShoeMeta, ...]


def audit_source_batch(job: SourceJob, registry: ProfileRegistry) -> BatchResult:
    """Read a batch's shoes from the export (each file's SHA-256 checked), then replay them."""
    events = read_source_batch(job.root, job.files, [(m.key, m.events_digest) for m in job.shoes])
    return audit_batch(BatchJob(events, job.shoes), registry)


def source_root(source: str | os.PathLike[str]) -> str:
    """``source`` as the workers will be told it: a URL as given, a local folder made absolute."""
    text = os.fspath(source)
    return text if "://" in text else str(Path(text).absolute())


def plan_source_jobs(
    store: Store,
    source: str | os.PathLike[str],
    keys: Sequence[ShoeKey],
    metas_of: Callable[[Sequence[ShoeKey]], list[ShoeMeta]],
    infos: dict[ShoeKey, ShoeInfo],
    batch_events: int,
) -> list[SourceJob]:
    """The batches of ``keys`` (about ``batch_events`` events each, whole shoes) over the export.

    Shoes go in partition order, so a partition's files are read by as few
    batches as possible; ``metas_of`` gives a batch's :class:`ShoeMeta` at once.
    Raises :class:`SourceError` when the export is not the one this database
    recorded, or is older than the shoes.
    """
    root = source_root(source)
    if "://" not in root:
        folder = Path(root)
        if not folder.is_dir():
            raise SourceError(f"--source {root!r} is not a folder: run `shoe-audit export` first")
        marker = read_marker(folder)
        if marker is None or marker.get("export") != store.meta(EXPORT_ID_META):
            raise SourceError(
                f"--source {root!r} is not the Parquet export this database recorded last: "
                f"run `shoe-audit export --parquet {root}`"
            )
    recorded = recorded_partitions(store)
    current = partition_digests(store)

    def part_of(k: ShoeKey) -> Part:
        day = infos[k].gaming_day
        if day is None:  # the store gives every shoe a gaming day; a partition needs one
            raise SourceError(f"shoe {k.table}/{k.shoe} has no gaming day to find its partition")
        return (day, k.table)

    def is_current(p: Part) -> bool:
        return p in recorded and p in current and recorded[p].shoes_digest == current[p][0]

    stale = sorted({p for p in map(part_of, keys) if not is_current(p)})
    if stale:
        day, table = stale[0]
        raise SourceError(
            f"the Parquet export in {root} is older than the database for {len(stale):,} "
            f"partitions (first: gaming day {day}, table {table!r}): run "
            f"`shoe-audit export --parquet {root}` again"
        )
    jobs: list[SourceJob] = []
    batch: list[ShoeKey] = []
    events = 0

    def flush() -> None:
        parts = dict.fromkeys(part_of(k) for k in batch)
        files = tuple(f for p in parts for f in recorded[p].files)
        jobs.append(SourceJob(root, files, tuple(metas_of(batch))))

    for k in sorted(keys, key=lambda k: (k.table, part_of(k)[0], k.shoe)):
        if batch and events + infos[k].events > batch_events:
            flush()
            batch, events = [], 0
        batch.append(k)
        events += infos[k].events
    if batch:
        flush()
    return jobs
