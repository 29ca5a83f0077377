"""Ctrl-C while worker processes start: deferred, never dropped (issue 29, point 9).

A worker imports the program before its initializer can tell it to leave Ctrl-C to
the parent; a Ctrl-C in that time printed the worker's own traceback. ``run`` used
to ignore SIGINT in the parent while it started workers (so that they inherited
the ignoring), and a Ctrl-C in that window was lost: the run went on and exited 0.

Now the parent *blocks* SIGINT in the thread that starts the workers
(:func:`sigint_deferred`): a blocked signal stays pending instead of being lost,
and a new process inherits the blocked mask, so a worker cannot be interrupted
before :func:`worker_leaves_sigint_to_parent` ignores SIGINT and unblocks it (the
pending one is then discarded: the parent reports it). In the main thread a Ctrl-C
that the kernel hands to another thread (DuckDB's, which do not block it) is caught
by a handler that only records it. When the window closes, the mask and the handler
are put back and a recorded or pending Ctrl-C is raised again as it would have been
at once: ``KeyboardInterrupt``, the run stops as a stopped run does (exit 130).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing import resource_tracker
from typing import Any

_SIGINT = {signal.SIGINT}


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold back Ctrl-C while the block starts worker processes; deliver it afterwards.

    The workers started inside inherit SIGINT blocked (each unblocks it in
    :func:`worker_leaves_sigint_to_parent`). In the main thread a Ctrl-C that
    arrives meanwhile raises ``KeyboardInterrupt`` when the block ends; in another
    thread only the mask is set (Python runs signal handlers in the main thread).
    """
    main = threading.current_thread() is threading.main_thread()
    caught: list[int] = []
    previous: Any = None
    if main:

        def record(signum: int, frame: Any) -> None:
            caught.append(signum)

        previous = signal.signal(signal.SIGINT, record)
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGINT)
    try:
        # multiprocessing's resource tracker is started with the first spawned process,
        # and the thread that starts it is left with SIGINT *unblocked*: a Dask worker
        # started after it from the cluster's event-loop thread was interrupted as it
        # imported. Started here, and SIGINT blocked again, the mask holds.
        resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGINT)
        yield
    finally:
        # Unblocking delivers a pending Ctrl-C to ``record`` (pthread_sigmask runs the
        # handlers before it returns), then the command's own handler is back.
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        if main:
            restore = signal.default_int_handler if previous is None else previous
            signal.signal(signal.SIGINT, restore)
            if caught:
                signal.raise_signal(signal.SIGINT)


def worker_leaves_sigint_to_parent() -> None:
    """In a worker process: ignore Ctrl-C (the parent reports it, in one line), then take
    back the SIGINT the parent's :func:`sigint_deferred` blocked; one pending meanwhile is
    discarded with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGINT)
