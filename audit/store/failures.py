"""What a failing DuckDB call really means, said in one line (issue 14, points 12 and 13).

Two failures reach the user as DuckDB's own words today, with a traceback:

* a full disk: ``IO Error: Could not write file ".../audit.duckdb.wal": No
  space left on device``, and after it every statement of the transaction says
  only "Current transaction is aborted". It becomes a :class:`StoreError`
  naming the disk (its mount point and the space left) and saying that nothing
  was half written: DuckDB's transaction keeps the file as of the last
  commit, and the same command completes the work once space is back;
* DuckDB out of memory (``Out of Memory Error: failed to pin block``, its
  ``memory_limit`` reached, then again "Current transaction is aborted"): a
  :class:`StoreError` saying so and how to give it more (``SHOE_AUDIT_MEMORY``);
* Ctrl-C while a query runs: DuckDB stops the query and raises
  ``RuntimeError: Query interrupted`` (or ``duckdb.InterruptException``)
  instead of Python's ``KeyboardInterrupt``. It becomes ``KeyboardInterrupt``,
  so the CLI prints its one line and exits 130, as ``run`` already does.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from audit.errors import StoreError

_DISK_FULL = ("no space left on device", "disk is full", "disk full")


def is_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is DuckDB's way of saying the query was interrupted (Ctrl-C)."""
    if type(exc).__name__ == "InterruptException":
        return True
    return isinstance(exc, RuntimeError) and "interrupted" in str(exc).lower()


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` comes from a write that found no space left."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc).lower()
    return any(mark in text for mark in _DISK_FULL)


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` is DuckDB reaching its ``memory_limit``."""
    return type(exc).__name__ == "OutOfMemoryException" or str(exc).startswith(
        "Out of Memory Error"
    )


def out_of_memory_error(exc: BaseException) -> StoreError:
    """The one-line error for DuckDB out of memory: what it said, and what to set."""
    said = " ".join(str(exc).split("Possible solutions")[0].split())
    return StoreError(
        f"DuckDB ran out of memory ({said}): nothing was half written; set SHOE_AUDIT_MEMORY "
        "higher (for example SHOE_AUDIT_MEMORY=2GB) and run the command again"
    )


def mount_point(path: str | os.PathLike[str]) -> Path:
    """The mount point of the file system holding ``path`` (its nearest existing folder)."""
    p = Path(os.path.abspath(path))
    while not p.exists() and p != p.parent:
        p = p.parent
    while not os.path.ismount(p) and p != p.parent:
        p = p.parent
    return p


def disk_full_error(path: str | os.PathLike[str], what: str) -> StoreError:
    """The one-line error for a full disk under ``path``."""
    # (No free space figure: the failed write has often been removed by then.)
    return StoreError(
        f"no space left on the disk mounted at {str(mount_point(path))!r} while writing {what}: "
        "nothing was half written (the database is as of its last finished transaction); "
        "free some space and run the command again"
    )


@contextmanager
def plain_failures(path: str | os.PathLike[str], what: str | None = None) -> Iterator[None]:
    """Raise a full disk or memory as :class:`StoreError`, an interrupted query as
    KeyboardInterrupt."""
    try:
        yield
    except (KeyboardInterrupt, StoreError):
        raise
    except Exception as exc:
        if is_interrupt(exc):
            raise KeyboardInterrupt from None
        if is_disk_full(exc):
            raise disk_full_error(path, what or str(path)) from None
        if is_out_of_memory(exc):
            raise out_of_memory_error(exc) from None
        raise
