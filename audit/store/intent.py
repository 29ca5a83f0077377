"""A writer's intent, announced beside the database: ``<db>.writing`` (issue 29, point 8).

DuckDB lets one process hold a file for writing, or any number hold it read-only,
never both; a reader blocks a writer. ``serve`` opens the database read-only for
each request, so with many requests overlapping some connection was always open and
``nightly`` waited in vain. Before a writer opens the database it now takes the
intent, and ``serve`` opens nothing while a live writer holds it (it answers from
what it has, or "audit in progress"): the requests in flight finish, the file is
free, the writer gets it.

The intent is an ``flock`` on ``<db>.writing``, holding one JSON line (pid,
command, start time, host) that names the writer to whoever has to wait. The lock
is the truth: the kernel drops it when its process ends however it ends, so a file
left behind by ``kill -9`` is stale at once and the next writer takes it over;
nobody reasons about pids that may have been reused. The intent is re-entrant
within a process (``nightly`` holds it across its ingest, run and report, each of
which opens the database), and one wait (:func:`lock_wait`, ``SHOE_AUDIT_LOCK_WAIT``)
covers both another writer's intent and DuckDB's own lock.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import json
import os
import socket
import stat
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from audit.errors import StoreError, UsageError

INTENT_SUFFIX = ".writing"
LOCK_WAIT_ENV = "SHOE_AUDIT_LOCK_WAIT"
DEFAULT_LOCK_WAIT_S = 30.0
"""How long a writer waits for the database: long enough for the requests ``serve``
has in flight when ``nightly`` starts (a report page of a big night takes seconds),
short enough that a second ``nightly`` behind a stuck one fails the same night."""

POLL_S = 0.05


class DatabaseLocked(StoreError):
    """The database is held by another process (a writer, or readers a writer waits for)."""


def intent_path(db: str | os.PathLike[str]) -> Path:
    """``<db>.writing``: where a writer announces itself."""
    p = Path(db)
    return p.with_name(p.name + INTENT_SUFFIX)


def lock_wait() -> float:
    """Seconds a writer waits for the database: ``SHOE_AUDIT_LOCK_WAIT``, default 30.

    A value that is not a number of seconds (0 or more) is a usage error.
    """
    text = os.environ.get(LOCK_WAIT_ENV, "").strip()
    if not text:
        return DEFAULT_LOCK_WAIT_S
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (0 <= value < 1e9):  # also refuses nan and inf
        raise UsageError(f"{LOCK_WAIT_ENV} must be a number of seconds (0 or more), got {text!r}")
    return value


@dataclass(frozen=True, slots=True)
class Writer:
    """Who holds the intent: what ``serve`` and a waiting writer name."""

    pid: int | None
    command: str
    since: dt.datetime | None
    host: str = ""

    def describe(self) -> str:
        """``shoe-audit nightly (pid 4242, since 04:00:12 UTC)``."""
        parts = [f"pid {self.pid}"] if self.pid else []
        if self.since is not None:
            parts.append(f"since {self.since.astimezone(dt.UTC):%H:%M:%S} UTC")
        if self.host and self.host != socket.gethostname():
            parts.append(f"on {self.host}")
        return f"{self.command} ({', '.join(parts)})" if parts else self.command


def _this_command() -> str:
    """``shoe-audit nightly``: the program and its command (no paths, no options)."""
    prog = Path(sys.argv[0]) if sys.argv and sys.argv[0] not in ("", "-c") else Path("python")
    if prog.name == "__main__.py":  # python -m PACKAGE
        prog = prog.parent
    if prog.name not in ("audit", "shoe-audit"):
        return prog.name or "python"
    command = next((a for a in sys.argv[1:] if a.isalpha() and a.islower()), None)
    return f"shoe-audit {command}" if command else "shoe-audit"


def _parse(text: str) -> Writer:
    try:
        got = json.loads(text)
        since = dt.datetime.fromisoformat(got["since"]) if got.get("since") else None
        pid = int(got["pid"]) if got.get("pid") is not None else None
        return Writer(pid, str(got.get("command") or "a writer"), since, str(got.get("host", "")))
    except (ValueError, TypeError, KeyError, AttributeError):
        return Writer(None, "a writer", None)  # still writing its line, or not ours


class _Held:
    """This process's hold on one database's intent: the locked file, and how many opens
    share it."""

    def __init__(self, fd: int, path: Path) -> None:
        self.fd = fd
        self.path = path
        self.count = 1


_HELD: dict[str, _Held] = {}
_HELD_LOCK = threading.Lock()


_NOT_FOLLOWED = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
"""How the intent file is opened: never through a symbolic link (a link planted there
made the writer truncate and overwrite its target), and never blocking (a FIFO planted
there hung every reader's open for good)."""


class NotRegular(OSError):
    """Something other than a regular file (a link, a FIFO) is where the intent goes."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"cannot announce a write: {str(path)!r} is not a regular file (a symbolic "
            "link, a FIFO?): it is not ours to follow or remove; remove it"
        )


def _key(db: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.fspath(db))


def holder(db: str | os.PathLike[str]) -> Writer | None:
    """The live writer that intends to write ``db`` (None: nobody does).

    A file whose lock nobody holds is stale (its writer ended): not a writer.
    In this process, a held intent is this process's own.
    """
    with _HELD_LOCK:
        if _key(db) in _HELD:
            return None  # this process's own
    path = intent_path(db)
    try:
        fd = os.open(path, _NOT_FOLLOWED | os.O_RDONLY)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None  # a link or a FIFO planted there announces no writer
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return None
            return _parse(os.pread(fd, 4096, 0).decode("utf-8", errors="replace"))
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _try_take(path: Path) -> int | None:
    """The locked intent file (its fd), or None while another process holds it."""
    try:
        fd = os.open(path, _NOT_FOLLOWED | os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symbolic link
            raise NotRegular(path) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotRegular(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return None
        raise
    # The previous holder may have removed the file between our open and our lock: a
    # lock on an unlinked file announces nothing, so take the file that is there now.
    try:
        same = os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        same = False
    if not same:
        os.close(fd)
        return _try_take(path)
    line = json.dumps(
        {
            "pid": os.getpid(),
            "command": _this_command(),
            "since": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "host": socket.gethostname(),
        }
    )
    os.ftruncate(fd, 0)
    os.pwrite(fd, (line + "\n").encode(), 0)
    return fd


def acquire(db: str | os.PathLike[str], deadline: float) -> None:
    """Take the intent to write ``db``, waiting until ``deadline`` (``time.monotonic``)
    while another process holds it; re-entrant within a process.

    Raises :class:`DatabaseLocked` naming the holder when the wait runs out, and
    :class:`StoreError` when the file cannot be made (a read-only folder).
    """
    key = _key(db)
    path = intent_path(key)
    while True:
        with _HELD_LOCK:
            held = _HELD.get(key)
            if held is not None:  # this process holds it (another thread may have just taken it)
                held.count += 1
                return
        try:
            fd = _try_take(path)
        except NotRegular as exc:
            raise StoreError(str(exc)) from None
        except OSError as exc:
            raise StoreError(
                f"cannot announce a write beside {os.fspath(db)!r}: {exc.strerror or exc}"
            ) from None
        if fd is not None:
            break
        if time.monotonic() >= deadline:
            raise DatabaseLocked(busy_message(db, holder(db), waited=True))
        time.sleep(POLL_S)
    with _HELD_LOCK:  # no other thread got it meanwhile: the flock excludes a second fd
        _HELD[key] = _Held(fd, path)


def release(db: str | os.PathLike[str]) -> None:
    """Give back one :func:`acquire`; the last one removes the file and drops the lock."""
    key = _key(db)
    with _HELD_LOCK:
        held = _HELD.get(key)
        if held is None:
            return
        held.count -= 1
        if held.count:
            return
        del _HELD[key]
    # Removed while still locked: a waiting writer that opened this file before will
    # find it gone once it gets the lock, and takes the new one (_try_take).
    with suppress(OSError):
        if os.stat(held.path).st_ino == os.fstat(held.fd).st_ino:
            held.path.unlink()
    os.close(held.fd)


@contextmanager
def writing(db: str | os.PathLike[str], wait: float | None = None) -> Iterator[None]:
    """Hold the intent to write ``db`` for the block (``nightly``: across its steps)."""
    acquire(db, time.monotonic() + (lock_wait() if wait is None else wait))
    try:
        yield
    finally:
        release(db)


def busy_message(db: str | os.PathLike[str], writer: Writer | None, *, waited: bool) -> str:
    """``cannot open database 'x': shoe-audit nightly (pid 42, since ...) is writing it``,
    with how long this process waited, or the processes DuckDB's lock names."""
    p = os.fspath(db)
    if writer is not None:
        who = f"{writer.describe()} is writing it"
    else:
        others = lock_holders(p)
        who = (
            "it is locked by " + "; ".join(others)
            if others
            else "it is locked by another process (is another shoe-audit running?)"
        )
    tail = f"; waited {lock_wait():g} s ({LOCK_WAIT_ENV})" if waited else ""
    return f"cannot open database {p!r}: {who}{tail}"


def lock_holders(db: str | os.PathLike[str]) -> list[str]:
    """The other processes holding DuckDB's lock on ``db``, as ``pid 42 (shoe-audit serve)``,
    from Linux's ``/proc/locks`` (empty elsewhere, or when it cannot tell)."""
    try:
        st = os.stat(db)
        table = Path("/proc/locks").read_text()
    except OSError:
        return []
    found: list[str] = []
    for line in table.splitlines():
        fields = line.split()
        # "1: POSIX  ADVISORY  WRITE 4242 08:01:1234567 0 EOF" ("->" marks a waiter)
        if len(fields) < 6 or "->" in fields:
            continue
        try:
            pid = int(fields[4])
            major, minor, inode = fields[5].split(":")
            dev = os.makedev(int(major, 16), int(minor, 16))
        except ValueError:
            continue
        if int(inode) != st.st_ino or dev != st.st_dev or pid == os.getpid():
            continue
        name = f"pid {pid}"
        with suppress(OSError):
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            shown = _command_of([a.decode(errors="replace") for a in argv if a])
            if shown:
                name += f" ({shown})"
        if name not in found:
            found.append(name)
    return found


def _command_of(argv: list[str]) -> str:
    """``shoe-audit serve`` from a process's argv (``python -m audit serve --db x``)."""
    if "audit" in argv and "-m" in argv:
        rest = argv[argv.index("-m") + 2 :]
    elif argv and Path(argv[0]).name == "shoe-audit":
        rest = argv[1:]
    elif len(argv) > 1 and Path(argv[1]).name == "shoe-audit":
        rest = argv[2:]
    else:
        return Path(argv[0]).name if argv else ""
    words = [a for a in rest if not a.startswith("-")]
    return "shoe-audit" + (f" {words[0]}" if words and "/" not in words[0] else "")
