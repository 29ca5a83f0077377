"""Worker processes stop with their parent (issue 14, point 13).

After ``kill -9`` of ``run`` its replay workers went on for 40-60 s, each
finishing the batch it held (and holding memory and a core). A worker now
asks the kernel to kill it when its parent dies (Linux ``PR_SET_PDEATHSIG``),
and, where that is not available, watches its parent from a thread and exits
as soon as it is gone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading

_PR_SET_PDEATHSIG = 1
POLL_SECONDS = 0.5


def stop_with_parent() -> None:
    """Make this (worker) process end when the process that started it ends.

    The parent is the one ``multiprocessing`` recorded at the start (a parent
    killed before this runs has already been replaced by ``init``).
    """
    started_by = multiprocessing.parent_process()
    parent = started_by.pid if started_by is not None and started_by.pid else os.getppid()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the thread does it
            pass
    # The death signal follows the parent *thread* that forked us, and the parent
    # may already be gone: the watcher covers both.
    threading.Thread(target=_watch, args=(parent,), name="lifeline", daemon=True).start()
    if os.getppid() != parent:  # pragma: no cover - the parent died before prctl
        os._exit(1)


def _watch(parent: int) -> None:
    stop = threading.Event()
    while not stop.wait(POLL_SECONDS):
        if os.getppid() != parent:
            os._exit(1)
