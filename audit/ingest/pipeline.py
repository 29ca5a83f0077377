"""Ingest and validate: the two entry points of :mod:`audit.ingest`.

Per batch of lines (see :mod:`audit.ingest.reader`; the lines of small files
are pooled into one batch, each keeping its file's id and line number; reading
and step 1 run a pass ahead in a thread, :mod:`audit.ingest.ahead`):

1. DuckDB splits the blocks into numbered lines and runs the bulk validator
   (:mod:`audit.ingest.bulk`) over them;
2. the lines it did not accept go through :func:`audit.events.parse.parse_line`,
   which either accepts them after all (a few odd but valid forms) or gives
   the precise reason they are malformed;
3. accepted events are merged into ``events`` by ``id``: new ids are
   inserted, an equal copy is a duplicate, a different one is quarantined as
   ``LOG_ID_CONFLICT`` (the first copy stays).

A file is stored in one transaction (small files share one, see
:func:`_groups`): an interrupted ingest leaves no part of a file behind and
running it again completes it. Before the commit, the ``shoes`` rows of the
shoes it touched and the ``LOG_SEQ_GAP`` findings of their tables are
recomputed, in the same transaction.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import NoLogsError
from audit.ingest import reader as _reader
from audit.ingest.ahead import Again, Item, LinePool, Pass, Read, ReadAhead
from audit.ingest.bulkstep import (
    Block,
    FileResult,
    Prepared,
    Quarantined,
    Session,
    quarantine_rejects,
)
from audit.ingest.reader import (
    Batch,
    FileError,
    Found,
    LogReader,
    Reject,
    find_logs,
)
from audit.ingest.storing import (
    TOUCHED,
    again_body,
    digest_added,
    finish_files,
    gaming_days_of_files,
    merge,
    note_unread,
    refresh_derived,
    stored_again,
    stored_rows,
)
from audit.ingest.summary import FileSummary, IngestSummary, ValidationReport
from audit.store import Store, ledger
from audit.store.books import note_day_cuts
from audit.store.failures import plain_failures
from audit.store.store import INGEST_CACHE_LIMIT, INGEST_MEMORY_LIMIT, day_start_minutes

if TYPE_CHECKING:
    from audit.books.house import House

StrPath = str | PathLike[str]

BatchHook = Callable[[Path, Batch], None]
"""Called for each batch as it is read, before it is stored (tests use it to
interrupt an ingest)."""


@dataclass(slots=True)
class _OpenFile:
    """A file being ingested: its id, what became of its lines, then its reader."""

    path: Path
    file_id: int
    result: FileResult
    place: int
    """Its place among the group's paths (the ledger records them in that order)."""
    reader: LogReader | None = None


def _quarantine_long(long_lines: list[tuple[int, Reject]], results: dict[int, FileResult]) -> None:
    """The too-long lines the split found, into their files' quarantine."""
    for file_id, reject in long_lines:
        quarantine_rejects([reject], results[file_id])


def _store_pass(session: Session, prepared: Prepared, files: dict[int, _OpenFile]) -> None:
    """One pass of blocks of one or more files into ``events``, then the merge of the rest."""
    results = {f: o.result for f, o in files.items()}
    _quarantine_long(session.store_prepared(prepared), results)
    session.recheck(results)
    merge(session, results, {f: str(o.path) for f, o in files.items()})
    digest_added(session, prepared.blocks, results)


def _ingest_group(
    store: Store, session: Session, items: Iterable[Item], hook: BatchHook | None, now: dt.datetime
) -> list[FileSummary]:
    """A group's files into ``events`` and ``input_files``, inside the caller's transaction.

    ``items`` are what :class:`ReadAhead` read and validated of them, in their order.
    """
    con = store.con
    files: dict[int, _OpenFile] = {}  # by file_id
    ids: dict[int, int] = {}  # the reading thread's number of a file -> its file_id
    summaries: list[FileSummary] = []
    bodies: dict[int, dict[str, Any]] = {}  # ledger records, by the file's place in the group

    def opened(path: Path, number: int) -> _OpenFile:
        if number not in ids:
            file_id = ids[number] = con.execute("SELECT nextval('file_ids')").fetchall()[0][0]
            result = FileResult(FileSummary(str(path)))
            files[file_id] = _OpenFile(path, file_id, result, len(summaries))
        return files[ids[number]]

    for item in items:
        if isinstance(item, Again):
            again = stored_again(store, item.path, item.row, now)
            bodies[len(summaries)] = again_body(store, again, item.path, now)
            summaries.append(again)
        elif isinstance(item, Read):
            if hook is not None:
                hook(item.path, item.batch)
            quarantine_rejects(item.batch.rejects, opened(item.path, item.number).result)
        elif isinstance(item, Pass):
            _store_pass(session, item.prepared.renumbered(ids), files)
            del item  # not held while the next pass is made
        elif item.error is not None and not item.reader.opened:  # nothing of it was read
            unread = FileSummary(str(item.path), error=str(item.error))
            bodies[len(summaries)] = note_unread(store, [unread], now)[0]
            summaries.append(unread)
        else:
            f = opened(item.path, item.number)
            f.reader = item.reader
            if item.error is not None:
                f.result.summary.error = str(item.error)
                f.result.quarantined.append(
                    Quarantined(item.reader.lines + 1, "LOG_MALFORMED", str(item.error), "")
                )
            summaries.append(f.result.summary)
    read = [(f.path, f.reader, f.file_id, f.result) for f in files.values() if f.reader]
    if read:
        done = finish_files(store, read, now)
        bodies.update({files[r[2]].place: body for r, body in zip(read, done, strict=True)})
    ledger.append(store, [bodies[p] for p in sorted(bodies)])
    return summaries


GROUP_FILES = 64
"""Most files in one transaction (see :func:`_groups`)."""


def _groups(files: list[Path]) -> Iterator[list[Path]]:
    """Consecutive files that are committed together.

    A transaction costs a commit and a refresh of the derived tables (tens of
    ms each), which dominate for small files (a night holds one log per table
    or more). Small files are therefore grouped, up to about one batch of
    lines (a gzip counted at 8x its size) or GROUP_FILES files; a big file
    has a transaction of its own. An interrupted ingest still leaves no part
    of a file behind: it loses its whole group, and a re-run completes it.
    """
    group: list[Path] = []
    size = 0
    for path in files:
        try:
            n = path.stat().st_size * (8 if path.name.endswith(".gz") else 1)
        except OSError:
            n = 0
        if group and (size + n > _reader.BATCH_BYTES or len(group) >= GROUP_FILES):
            yield group
            group, size = [], 0
        group.append(path)
        size += n
    if group:
        yield group


def ingest_paths(
    store: Store,
    paths: Iterable[StrPath],
    day_start: str = "06:00",
    *,
    on_batch: BatchHook | None = None,
    house: House | None = None,
) -> IngestSummary:
    """Read TEL/1 files and folders into ``store``; idempotent.

    Gaming days are cut with ``day_start`` (the command's ``--day-start``, else the house
    file's), and each stored day notes the start it was cut with (``day_cuts``, which
    ``status`` prints). ``house`` (the house file) names the streams other than tables'
    that are judged for ``LOG_SEQ_GAP`` (``complete_streams``, accounting.md).

    Raises :class:`audit.errors.NoLogsError` when a path does not exist, a
    folder holds no ``*.jsonl``/``*.jsonl.gz``, or no file could be read at
    all. A file that cannot be read (or a gzip damaged part-way) is reported
    in its :class:`FileSummary` ``error`` and the others are ingested.

    DuckDB's memory is :data:`audit.store.store.INGEST_MEMORY_LIMIT` while it runs, and
    :data:`~audit.store.store.INGEST_CACHE_LIMIT` while a pass is stored (its cache
    evicted), unless one was chosen (``SHOE_AUDIT_MEMORY``).
    """
    day_start_minutes(day_start)  # fail early on a bad value
    with store.held_to(INGEST_MEMORY_LIMIT):
        return _ingest_paths(store, paths, day_start, on_batch, house)


def _ingest_paths(
    store: Store,
    paths: Iterable[StrPath],
    day_start: str,
    on_batch: BatchHook | None,
    house: House | None,
) -> IngestSummary:
    """:func:`ingest_paths`, inside its memory limit."""
    found = find_logs(paths)
    files = found.files
    from audit.integrity.continuity import before_writing

    before_writing(store)  # issue 29: the ledger file continues the chain; the trail's head
    recut = store.meta("day_start") != day_start
    if recut:
        with store.transaction():
            store.set_meta("day_start", day_start)
            store.refresh_shoes()
    complete = house.complete_streams if house is not None else ()
    session = Session(store.con)
    summary = IngestSummary()
    summary.files += [FileSummary(str(d), error=why) for d, why in found.unlisted]
    days: set[dt.date] = set()
    now = dt.datetime.now(dt.UTC)
    groups = list(_groups(files))
    limits = store.memory_bounds(INGEST_MEMORY_LIMIT, INGEST_CACHE_LIMIT)
    ahead = ReadAhead(store.con, groups, stored_rows(store, files), limits)
    try:
        for _ in groups:
            with store.transaction() as con:
                con.execute(TOUCHED)
                summary.files += _ingest_group(store, session, ahead.group(), on_batch, now)
                days.update(refresh_derived(store, complete))
                ahead.evict_cache()
    finally:
        ahead.close()
    if found.unlisted:
        with store.transaction():
            ledger.append(store, note_unread(store, summary.files[: len(found.unlisted)], now))
    summary.gaming_days = sorted(days)
    with store.transaction():
        note_day_cuts(store, days, day_start, house, now, everything=recut)
    summary.file_days = gaming_days_of_files(
        store, [f.file_id for f in summary.files if f.file_id is not None]
    )
    if all(f.error and f.lines == 0 for f in summary.files):
        raise NoLogsError(
            "nothing could be read: " + "; ".join(f"{f.path}: {f.error}" for f in summary.files)
        )
    return summary


def validate_paths(paths: Iterable[StrPath]) -> ValidationReport:
    """Check TEL/1 files without storing anything.

    Every invalid line is reported as ``file:line: why``; an unknown ``type``
    is a warning. Id conflicts are not checked (they need the database).
    Small files are checked together, as ingest does.
    """
    import duckdb

    found = find_logs(paths)
    with plain_failures(Path.cwd(), "DuckDB's spill files"):
        return _validate(found, duckdb.connect(":memory:"))


def _validate(found: Found, con: Any) -> ValidationReport:
    """validate_paths on an in-memory connection, which it closes."""
    files = found.files
    report = ValidationReport()
    for folder, why in found.unlisted:
        report.files.append(FileSummary(str(folder), error=why))
        report.errors.append(f"{folder}: {why}")
    try:
        con.execute("SET TimeZone = 'UTC'")
        session = Session(con)
        results: dict[int, FileResult] = {}
        pool = LinePool(lambda blocks: _validate_blocks(session, blocks, results))
        for index, path in enumerate(files):
            result = results[index] = FileResult(FileSummary(str(path)))
            reader = LogReader(path)
            try:
                for batch in reader.batches():
                    quarantine_rejects(batch.rejects, result)
                    pool.add(batch, index)
            except FileError as exc:
                result.summary.error = str(exc)
                report.errors.append(f"{path}: {exc}")
            result.summary.lines = reader.lines
        pool.flush()
    finally:
        con.close()
    for index, path in enumerate(files):
        result = results[index]
        result.summary.rejected = len(result.quarantined)
        result.summary.unknown_types = len(result.unknown)
        report.files.append(result.summary)
        for q in sorted(result.quarantined, key=lambda q: q.line_no):
            report.invalid.append(f"{path}:{q.line_no}: {q.reason}")
        for line_no, etype in sorted(result.unknown):
            report.warnings.append(f"{path}:{line_no}: unknown type {etype!r} (kept, not replayed)")
    if all(f.error and f.lines == 0 for f in report.files):
        raise NoLogsError("nothing could be read: " + "; ".join(report.errors))
    return report


def _validate_blocks(session: Session, blocks: list[Block], results: dict[int, FileResult]) -> None:
    """One bulk pass over blocks of one or more files; what it found, by file."""
    _quarantine_long(session.validate(blocks), results)
    session.recheck(results)
    rest = session.rest
    for index, line_no, etype, known in zip(
        rest.column("file_id").to_pylist(),
        rest.column("line_no").to_pylist(),
        rest.column("type").to_pylist(),
        rest.column("known_type").to_pylist(),
        strict=True,
    ):
        results[index].summary.events += 1
        if not known:
            results[index].unknown.append((line_no, etype))
