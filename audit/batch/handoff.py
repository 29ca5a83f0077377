"""A batch's events handed to a local worker as a file in memory, not through its pipe (issue 33).

``ProcessPoolExecutor`` pickles each job into the worker's pipe. A batch of 100,000
events is ~19 MB of Arrow: multiprocessing's pickler copied it for ~44 ms, holding the
GIL that the parent's scans and writes need, and the pipe copied it again (on the
100,000-round month, 28 batches: about 1.2 s of the parent's 12 CPU-s, in the thread
that feeds the pipe). The parent now writes the table once as an Arrow IPC file (~5 ms,
the GIL released) into a folder of its own, preferably under ``/dev/shm`` (memory), and
sends its name; the worker maps the file (no copy) and removes it once read.

The folder goes when the run's workers are done; a folder left by a run that was killed
is removed by a later one (its name holds the process id that made it; only once it has
been left alone for :data:`STALE_AFTER`, since a process id means nothing to another
container sharing the folder, and a live run writes to its folder every batch).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import pyarrow as pa

PREFIX = "shoe-audit-run-"
SHM = Path("/dev/shm")
SHM_FREE = 1 << 30
"""The free room ``/dev/shm`` must have to be used (a container's is often 64 MB)."""
STALE_AFTER = 3600.0
"""Seconds a dead run's folder must have been left alone before another run removes it."""


class SharedTable(NamedTuple):
    """An Arrow table written to ``path`` (an IPC file) for one reader, which removes it."""

    path: str

    def read(self) -> pa.Table:
        """The table, mapped from its file (no copy); the file is removed (the mapping stays)."""
        import pyarrow as pa

        table = pa.ipc.open_file(pa.memory_map(self.path)).read_all()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        return table


class Handoff:
    """The folder one ``run`` hands its batches' tables through (see the module)."""

    def __init__(self, base: Path | None = None) -> None:
        if base is None:
            base = _base()
            for where in {SHM, Path(tempfile.gettempdir())}:
                remove_stale(where)
        else:
            remove_stale(base)
        self.folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=base))
        self._n = 0

    def send(self, table: pa.Table) -> SharedTable:
        """``table`` written to a file of the folder."""
        import pyarrow as pa

        self._n += 1
        path = str(self.folder / f"{self._n}.arrow")
        try:
            with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)
        except BaseException:  # a full folder, say: no half-written file stays
            self.discard(SharedTable(path))
            raise
        return SharedTable(path)

    def discard(self, shared: SharedTable) -> None:
        """Remove ``shared``'s file if no reader did (its worker died, or was stopped)."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(shared.path)

    def close(self) -> None:
        """Remove the folder and whatever is left in it."""
        shutil.rmtree(self.folder, ignore_errors=True)


def _base() -> Path:
    """``/dev/shm`` when it is there with room, else the temporary folder."""
    with contextlib.suppress(OSError):
        st = os.statvfs(SHM)
        if st.f_bavail * st.f_frsize >= SHM_FREE and os.access(SHM, os.W_OK):
            return SHM
    return Path(tempfile.gettempdir())


def remove_stale(base: Path, now: float | None = None) -> None:
    """Remove the folders under ``base`` that runs no longer alive left (killed ones), once
    left alone for :data:`STALE_AFTER`; any other name is left as it is."""
    now = time.time() if now is None else now
    with contextlib.suppress(OSError):
        for folder in base.glob(f"{PREFIX}*"):
            pid = folder.name[len(PREFIX) :].split("-", 1)[0]
            if not (pid.isascii() and pid.isdigit() and len(pid) <= 9):
                continue
            with contextlib.suppress(OSError):
                idle = now - folder.stat().st_mtime
                if idle >= STALE_AFTER and not _alive(int(pid)):
                    shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process; not a pid here
        return True
    return True
