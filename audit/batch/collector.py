"""Python's cyclic garbage collector in the worker processes.

A page worker makes some hundred thousand short-lived objects a batch (events,
steps, Jinja's strings), nearly none of them in a cycle; at the default
thresholds the collector ran every 700 allocations and walked every object
still alive, the modules and profiles loaded at the start included: 10% of a
page worker's time at 1,000,000 rounds (py-spy).
"""

from __future__ import annotations

import gc

WORKER_THRESHOLD = (50_000, 20, 20)
"""Allocations (less deallocations) before a young collection, and the ratios of the
two older generations: a worker still collects its cycles, 70 times less often."""


def quiet_collector() -> None:
    """Move what this worker loaded so far out of the collector's sight, and collect
    less often (:data:`WORKER_THRESHOLD`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*WORKER_THRESHOLD)
