"""A fault hook for testing that one shoe costs only itself (issue 28, point 2).

``SHOE_AUDIT_FAULT`` names shoes whose replay should fail, as a comma-separated
list of ``ACTION:TABLE/SHOE``:

* ``raise:T01/T01-20261128-02``: the shoe's replay raises ``RuntimeError``, as an
  internal error of the auditor would;
* ``kill:T02/T02-20261128-01``: the worker process replaying the shoe is killed
  (``SIGKILL``), as the kernel's out-of-memory killer or a crash in compiled code
  would. In the ``run`` process itself (``workers=1``) it raises instead: killing
  the command would test nothing.

and two that are no shoe's:

* ``die-at-start``: every local worker process (not a Dask cluster's) kills itself
  (``SIGKILL``) as it starts, as one that cannot run at all would (a broken install, a
  script without the ``if __name__ == "__main__"`` guard that spawned processes need):
  ``run`` must stop with one line, not replay every shoe alone in a worker that dies
  each time;
* ``hold-start:SECONDS``: ``run`` sleeps that long inside the window in which it starts
  its worker processes (local processes, or a ``local:N`` Dask cluster), with Ctrl-C
  held back (:mod:`audit.batch.interrupts`): a test's Ctrl-C lands in the window, and
  must stop the run once the window closes (issue 29, point 9).

The hook lives in the batch runner, outside the engine, which stays pure. It is read
once a batch in the process that replays it (workers inherit the environment, a Dask
``local:N`` cluster's too); unset, it costs one dictionary lookup a batch.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Iterator
from contextlib import suppress

from audit.store.types import ShoeKey

FAULT_ENV = "SHOE_AUDIT_FAULT"


def _items() -> Iterator[tuple[str, str]]:
    """Each ``ACTION:ARGUMENT`` of :data:`FAULT_ENV` (the argument empty when none)."""
    for item in os.environ.get(FAULT_ENV, "").split(","):
        action, _, argument = item.strip().partition(":")
        yield action, argument


def planned_faults() -> dict[str, str]:
    """``TABLE/SHOE`` -> action, from :data:`FAULT_ENV` (empty when unset)."""
    return {where: action for action, where in _items() if action in ("raise", "kill") and where}


def inject_fault(faults: dict[str, str], key: ShoeKey) -> None:
    """Fail the replay of ``key`` as :data:`FAULT_ENV` asks (nothing when it names it not)."""
    action = faults.get(f"{key.table}/{key.shoe}")
    if action is None:
        return
    if action == "kill" and multiprocessing.parent_process() is not None:
        os.kill(os.getpid(), signal.SIGKILL)
    raise RuntimeError(f"a fault injected by {FAULT_ENV} ({action})")


def die_at_start() -> None:
    """Kill this worker process as it starts when :data:`FAULT_ENV` holds ``die-at-start``."""
    if any(action == "die-at-start" for action, _ in _items()):
        os.kill(os.getpid(), signal.SIGKILL)


def hold_start() -> None:
    """Sleep as ``hold-start:SECONDS`` in :data:`FAULT_ENV` asks (at once when it does not)."""
    for action, seconds in _items():
        if action == "hold-start":
            with suppress(ValueError):
                time.sleep(max(0.0, float(seconds)))
            return
