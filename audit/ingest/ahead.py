"""Reading ahead: the next files read, split and validated while the last are stored.

Of an ingest's work, what needs the database (the duplicate check, the insert,
the merge, the files' records, the derived tables, the commit) runs on the
store's connection, one transaction after another; what needs only the files
(reading and hashing them, splitting the lines, the bulk validator's query
over them, see :meth:`audit.ingest.bulkstep.Session.prepare`) does not. A
:class:`ReadAhead` does the second kind in a thread of its own, on a
connection of its own to the same database (which runs its queries beside
the store's), a pass ahead at most (:data:`PASSES_OUT`): while a pass is
stored, the next files are read and split into lines; while a group's files are
recorded, its derived tables refreshed and committed, the next pass is
validated. DuckDB and the reading give up the GIL, so the two overlap on two
cores.

The thread hands the main one :data:`Item` s in the order of the files, as
the single-threaded ingest met them: a file :class:`Again` (its bytes stored
before, only hashed), each :class:`Read` batch of a file, a :class:`Pass`
(a pool of blocks through the validator; it follows the batches it holds),
a file :class:`Done`, the :class:`GroupEnd`. The main thread gives each file
its ``file_id`` as it meets it; the thread numbers files itself
(:meth:`~audit.ingest.bulkstep.Prepared.renumbered`). Nothing it does is
stored: the main thread calls the ``on_batch`` hook on each :class:`Read`
before the pass holding that batch is stored, so an interruption still loses
whole groups only. :meth:`ReadAhead.close` stops the thread (its query
interrupted) when the ingest ends early.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.ingest import reader as _reader
from audit.ingest.bulkstep import Block, Prepared, Session, blocks_of
from audit.ingest.reader import Batch, FileError, LogReader
from audit.ingest.storing import same_bytes
from audit.store.store import set_memory_limit


@dataclass(slots=True)
class Again:
    """A file whose very bytes were stored before from its path (its ``input_files`` row)."""

    path: Path
    row: tuple[Any, ...]


@dataclass(slots=True)
class Read:
    """A batch of file number ``number`` read (its blocks go to a later :class:`Pass`)."""

    path: Path
    number: int
    batch: Batch


@dataclass(slots=True)
class Done:
    """File number ``number`` read to its end, or to ``error``."""

    path: Path
    number: int
    reader: LogReader
    error: FileError | None


@dataclass(slots=True)
class Pass:
    """Blocks of the files read so far, through the validator (files by number)."""

    prepared: Prepared


@dataclass(slots=True)
class GroupEnd:
    """The last item of a transaction's group of files."""


@dataclass(slots=True)
class _Failed:
    error: BaseException


Item = Again | Read | Done | Pass


class _Stopped(Exception):
    """The main thread asked the reading thread to stop."""


class ReadAhead:
    """Reads, splits and validates ``groups`` of files in a thread, a group ahead.

    ``known`` are the paths' :func:`~audit.ingest.storing.stored_rows`. ``con`` is the
    store's connection: the thread queries on a cursor of it (the same database, the
    same memory limit), in UTC as the store.

    ``limits`` (:meth:`~audit.store.Store.memory_bounds`): DuckDB's limit is raised to the
    first while a pass is split and validated, and lowered to the second before the main
    thread stores one, which evicts the table blocks DuckDB has cached (the probe for
    stored ids reads every one's ``id``), so the cache does not grow with the database.
    The limit is global: it is lowered only while no pass is being made (the main thread
    between statements, holding a pass), on a cursor of its own outside any transaction
    (a limit DuckDB cannot evict down to fails there alone, and stays raised).
    """

    def __init__(
        self,
        con: Any,
        groups: Sequence[Sequence[Path]],
        known: dict[str, Any],
        limits: tuple[str, str] | None = None,
    ) -> None:
        self._cursor = con.cursor()
        self._cursor.execute("SET TimeZone = 'UTC'")
        self._groups = groups
        self._known = known
        self._items: queue.Queue[Item | GroupEnd | _Failed] = queue.Queue(maxsize=_AHEAD_ITEMS)
        self._passes = threading.Semaphore(PASSES_OUT)
        self._stop = threading.Event()
        self._limits = limits
        self._limiter = con.cursor()
        self._limit_lock = threading.Lock()
        """Held while the limit is set, by either thread."""
        self._making = False
        """Whether the thread is making a pass (the limit raised)."""
        self._thread = threading.Thread(target=self._run, name="shoe-audit-read-ahead", daemon=True)
        self._thread.start()

    def group(self) -> Iterator[Item]:
        """The next group's items, up to its :class:`GroupEnd` (not yielded)."""
        while True:
            item = self._items.get()
            if isinstance(item, _Failed):
                raise item.error
            if isinstance(item, GroupEnd):
                return
            if isinstance(item, Pass):
                self.evict_cache()  # no pass is being made: it stays lowered while stored
            yield item
            if isinstance(item, Pass):  # stored: the thread may make another
                self._passes.release()
            del item  # a stored pass is not held while the next one is made

    def evict_cache(self) -> None:
        """Evict DuckDB's cached table blocks now, the limit lowered (the main thread between
        statements: before it stores a pass, and after a group's derived tables are
        refreshed, which read many). While a pass is being made the limit is raised again
        at once; a query of the thread's that needed more meanwhile spills, as every query
        of ingest's does at the lower limit."""
        if self._limits is None:
            return
        with self._limit_lock:
            set_memory_limit(self._limiter, self._limits[1])
            if self._making:
                set_memory_limit(self._limiter, self._limits[0])

    def close(self) -> None:
        """Stop the thread (at once when the ingest ended early) and wait for it."""
        self._stop.set()
        if self._thread.is_alive():
            self._cursor.interrupt()
        while self._thread.is_alive():
            # make room for an item the thread may be waiting to hand over
            with contextlib.suppress(queue.Empty):
                self._items.get(timeout=0.05)
        self._cursor.close()
        if self._limits is not None:
            set_memory_limit(self._limiter, self._limits[0])
        self._limiter.close()

    def _put(self, item: Item | GroupEnd | _Failed) -> None:
        while not self._stop.is_set():
            try:
                self._items.put(item, timeout=0.05)
                return
            except queue.Full:
                continue
        raise _Stopped

    def _run(self) -> None:
        try:
            session = Session(self._cursor)
            number = 0
            for group in self._groups:
                pool = LinePool(lambda blocks: self._put(Pass(self._prepare(session, blocks))))
                for path in group:
                    row = same_bytes(path, self._known.get(str(path), []))
                    if row is not None:
                        self._put(Again(path, row))
                        continue
                    self._read(path, number, pool)
                    number += 1
                pool.flush()
                self._put(GroupEnd())
        except _Stopped:
            return
        except BaseException as exc:  # handed to the main thread, which raises it
            if not self._stop.is_set():
                self._put(_Failed(exc))

    def _prepare(self, session: Session, blocks: list[Block]) -> Prepared:
        """A pass split, then (once the last pass is stored) checked: the split overlaps
        the insert of the last pass, on the core the insert leaves idle."""
        with self._made():
            split = session.probe_stored(session.split(blocks))
        while not self._passes.acquire(timeout=0.05):
            if self._stop.is_set():
                raise _Stopped
        with self._made():
            return session.checked(split)

    @contextlib.contextmanager
    def _made(self) -> Iterator[None]:
        """DuckDB's limit raised while a pass is made (see :meth:`evict_cache`)."""
        if self._limits is not None:
            with self._limit_lock:
                self._making = True
                set_memory_limit(self._cursor, self._limits[0])  # raising cannot fail
        try:
            yield
        finally:
            with self._limit_lock:
                self._making = False

    def _read(self, path: Path, number: int, pool: LinePool) -> None:
        reader = LogReader(path)
        try:
            for batch in reader.batches():
                self._put(Read(path, number, batch))
                pool.add(batch, number)
        except FileError as exc:
            self._put(Done(path, number, reader, exc))
            return
        self._put(Done(path, number, reader, None))


PASSES_OUT = 1
"""Passes checked and not yet stored, at most (one more may be split meanwhile). Passes
hold the memory (a batch's blocks, and its typed rows, about as much again): with one,
the next pass is validated while the last group's files are recorded, its derived
tables refreshed and committed, and the next files are read and split while a pass is
stored (the insert runs on one core; splitting beside it cost ~70 MiB of peak and saved
~1 s on the month). Two would also validate while a pass
is stored, for ~2 s less on the month (noisy) and ~300 MB more peak RSS, over the
1 GiB that issue 33 allows (the month: 1.15-1.39 GB against 0.87-0.92 GB)."""

_AHEAD_ITEMS = 4096
"""Items waiting in the queue at most: they are small (a batch's rejected lines, a file's
reader) but for the passes, which :data:`PASSES_OUT` bounds."""


class LinePool:
    """Blocks of lines from one or more files, handed on a batch's worth at a time.

    The batches of small files are pooled (each line keeps its file's number), so
    a file of a few thousand lines does not pay for a query plan of its own.
    """

    def __init__(self, flush: Callable[[list[Block]], None]) -> None:
        self._flush = flush
        self._blocks: list[Block] = []
        self._bytes = 0
        self._lines = 0

    def add(self, batch: Batch, number: int) -> None:
        size = sum(len(b) for b in batch.blocks)
        # A reader's batch is just under the limits: hand over what the pool holds
        # first, so that no pass holds more than one batch's worth.
        if self._blocks and (
            self._bytes + size > _reader.BATCH_BYTES
            or self._lines + batch.kept > _reader.BATCH_LINES
        ):
            self.flush()
        self._blocks += blocks_of(batch, number)
        self._bytes += size
        self._lines += batch.kept

    def flush(self) -> None:
        if self._blocks:
            self._flush(self._blocks)
        self._blocks, self._bytes, self._lines = [], 0, 0
