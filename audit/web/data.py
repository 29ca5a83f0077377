"""How ``serve`` reads the audit database without getting in the nightly job's way.

Issue 12, point 3. DuckDB lets one process open a file for writing and no other
process open it at all meanwhile; a reader holding the file blocks the writer
too. So ``serve`` holds no connection between requests: each page opens the
database read-only, reads what it shows, and closes it. While another process
(``nightly``) holds the file, a page retries for :attr:`Reader.retry_s`, then
shows the last data it read for that page, marked "audit in progress, data as
of HH:MM" (:class:`Stale`); a page never read before answers 503 with the same
words (:class:`Busy`).

Issue 29, point 8: with many requests in flight, some read-only connection was
always open and the writer never got the file. A writer now announces itself
before it opens the database (``<db>.writing``, :mod:`audit.store.intent`); while
a live writer does, a page does not open the database at all and answers at once
from what it has (or :class:`Busy`), so the requests in flight drain and the
writer gets in.

The last findings a page showed are remembered too, so a review can be
recorded while the database is busy (the review file is SQLite, not DuckDB).

What changes only when a writer changes the database (the list's filter choices,
each table's cross-shoe outline for a replay) is kept between requests, keyed by
the database file's version (:func:`audit.store.browse.database_version`, read
while the page holds the file), so it is never older than the data it goes with.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from audit.errors import AuditError, StoreError
from audit.findings import Finding
from audit.store import Store, open_store
from audit.store.intent import DatabaseLocked, Writer, holder

T = TypeVar("T")

RETRY_S = 1.5
RETRY_STEP_S = 0.1
CACHE_PAGES = 256
RETRY_AFTER_S = 30
"""``Retry-After`` of the 503 "audit in progress" page, which also reloads itself then."""
REMEMBERED_FINDINGS = 100_000


class Busy(AuditError):
    """The database is held by another process and this page was never read before."""

    def __init__(self, since: dt.datetime | None, writer: Writer | None = None) -> None:
        self.since = since
        self.writer = writer
        """The writer that announced itself (None: the file was locked, by whom unknown)."""
        super().__init__(busy_text(since))


def busy_text(since: dt.datetime | None) -> str:
    if since is None:
        return "audit in progress: the database is busy, try again in a few minutes"
    return f"audit in progress, data as of {since.astimezone().strftime('%H:%M')}"


@dataclass(frozen=True, slots=True)
class Read(Generic[T]):
    """What a page read: the data, and when (``stale``: it is older data, kept from then)."""

    data: T
    at: dt.datetime
    stale: bool = False

    @property
    def banner(self) -> str | None:
        return busy_text(self.at) if self.stale else None


def is_locked(exc: StoreError) -> bool:
    return isinstance(exc, DatabaseLocked)


class Reader:
    """Opens the database per read, retries while it is locked, keeps the last reads."""

    def __init__(self, db: Path, *, retry_s: float = RETRY_S) -> None:
        self.db = db
        self.retry_s = retry_s
        self._cache: OrderedDict[tuple[Any, ...], Read[Any]] = OrderedDict()
        self._findings: OrderedDict[str, Finding] = OrderedDict()
        self._memo: dict[str, tuple[tuple[int, ...], Any]] = {}
        self._lock = threading.Lock()
        self.last_read: dt.datetime | None = None

    def read(self, key: tuple[Any, ...], load: Callable[[Store], T]) -> Read[T]:
        """``load(store)`` on a fresh read-only connection; the cached read of ``key`` while
        the database is locked for longer than :attr:`retry_s` (raises :class:`Busy`
        when there is none)."""
        deadline = time.monotonic() + self.retry_s
        while True:
            writer = holder(self.db)
            if writer is not None:  # a writer waits for the file: do not take it
                return self._kept(key, writer)
            try:
                with open_store(self.db, read_only=True) as store:
                    data = load(store)
                break
            except StoreError as exc:
                if not is_locked(exc):
                    raise
                if time.monotonic() >= deadline:
                    return self._kept(key, None)
                time.sleep(RETRY_STEP_S)
        now = dt.datetime.now(dt.UTC)
        fresh = Read(data, now)
        with self._lock:
            self.last_read = now
            self._cache[key] = fresh
            self._cache.move_to_end(key)
            while len(self._cache) > CACHE_PAGES:
                self._cache.popitem(last=False)
        return fresh

    def _kept(self, key: tuple[Any, ...], writer: Writer | None) -> Read[Any]:
        """The last read of ``key``, marked stale; :class:`Busy` when there is none."""
        with self._lock:
            cached = self._cache.get(key)
        if cached is None:
            raise Busy(self.last_read, writer)
        return Read(cached.data, cached.at, stale=True)

    def memo(self, name: str, store: Store, compute: Callable[[Store], T]) -> T:
        """``compute(store)``, kept until the database changes (call it inside a read)."""
        from audit.store.browse import database_version

        version = database_version(self.db)
        with self._lock:
            hit = self._memo.get(name)
        if hit is not None and hit[0] == version:
            return hit[1]  # type: ignore[no-any-return]
        value = compute(store)
        with self._lock:
            self._memo[name] = (version, value)
        return value

    def remember(self, findings: Iterable[Finding]) -> None:
        """Keep the findings a page showed, for a review taken while the database is busy."""
        with self._lock:
            for f in findings:
                if f.id is not None:
                    self._findings[f.id] = f
                    self._findings.move_to_end(f.id)
            while len(self._findings) > REMEMBERED_FINDINGS:
                self._findings.popitem(last=False)

    def remembered(self, finding_id: str) -> Finding | None:
        with self._lock:
            return self._findings.get(finding_id)
