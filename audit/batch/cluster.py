"""``run --cluster ADDRESS``: the batches replayed on a Dask cluster (issue 13; cli.md ``run``).

``ADDRESS`` is ``tcp://host:port`` (or ``tls://``) of a running Dask scheduler,
or ``local:N`` for a ``LocalCluster`` of N worker processes started for the
run and stopped after it. Each batch is one task, ``fn(job, registry)``, the
very function a local run calls (:func:`audit.batch.runner.audit_batch`, or
:func:`audit.batch.source.audit_source_batch` with ``--source``), so a worker
runs the same pure engine and the findings are the same, byte for byte.

Why the task's data are its arguments and never ``scatter``-ed: Dask
recomputes a task lost with its worker only from what the scheduler holds,
which is the task's arguments. A batch of events (a few MB of Arrow) is
therefore embedded in its task, and Dask's warning about large graphs is
raised to fit; with ``--source`` the arguments are only file names, hashes
and shoe metadata.

Only a few tasks are in flight at once (two per worker thread), so memory
stays flat on the coordinator and the scheduler however long the run; results
are written as they arrive, one transaction per batch, by the caller.

Dask is an optional extra (``pip install 'shoe-audit[cluster]'``): this module
imports it only when a cluster is opened, and without it says what to install.
"""

from __future__ import annotations

import importlib
import logging
import re
import uuid
from collections.abc import Generator, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import count
from types import ModuleType
from typing import Any

from audit import __version__
from audit.batch.faults import hold_start
from audit.batch.interrupts import sigint_deferred
from audit.batch.runner import BatchFn, BatchResult, J, LostBatch
from audit.engine import ENGINE_VERSION
from audit.errors import AuditError
from audit.profiles import ProfileRegistry

INSTALL_HINT = "--cluster needs Dask, which is not installed: pip install 'shoe-audit[cluster]'"

_LOCAL = re.compile(r"local:(\d+)")
_REMOTE = re.compile(r"(tcp|tls)://[^\s/:]+:\d+")

LARGE_GRAPH = "1GiB"
"""Dask warns of a task graph over 10 MB and advises ``scatter``; ours embed their batch on
purpose (see the module doc), so the warning is raised above any batch we send."""


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    """A parsed ``--cluster``: a scheduler's address, or a local cluster's worker count."""

    address: str | None = None
    local_workers: int = 0


def parse_cluster(text: str) -> ClusterSpec:
    """``tcp://host:port``, ``tls://host:port`` or ``local:N`` (N >= 1); ValueError otherwise."""
    if m := _LOCAL.fullmatch(text):
        n = int(m.group(1))
        if n < 1:
            raise ValueError(f"local:N needs at least one worker, got {text!r}")
        return ClusterSpec(local_workers=n)
    if _REMOTE.fullmatch(text):
        return ClusterSpec(address=text)
    raise ValueError(f"expected tcp://host:port of a Dask scheduler or local:N, got {text!r}")


def require_distributed() -> ModuleType:
    """``distributed``, or :class:`AuditError` saying what to install."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise AuditError(INSTALL_HINT) from None


def _versions() -> tuple[str, str]:
    """Run on each worker: which shoe-audit and engine it has."""
    return __version__, ENGINE_VERSION


def cluster_task(
    fn: BatchFn[J], job: J, registry: ProfileRegistry, engine_version: str
) -> BatchResult:
    """One batch on a worker; refused by a worker whose engine is not the coordinator's.

    Checked in the task itself, so a worker that joins mid-run is held to it too.
    """
    if engine_version != ENGINE_VERSION:
        raise AuditError(
            f"a Dask worker runs shoe-audit's engine {ENGINE_VERSION}, the coordinator "
            f"{engine_version}: install the same shoe-audit on every worker"
        )
    return fn(job, registry)


class DaskExecutor:
    """Batches as Dask tasks on a connected client (:class:`audit.batch.runner.BatchExecutor`)."""

    def __init__(
        self,
        client: Any,
        label: str,
        *,
        one_at_a_time: bool = False,
        ids: Iterator[str] | None = None,
    ) -> None:
        self.client = client
        self.label = label
        self.one_at_a_time = one_at_a_time
        # Task keys unique to this run (a scheduler may serve several) and shared with its
        # isolating executor: a key the scheduler already holds as failed (a lost batch's)
        # would fail its new task at once, naming an innocent shoe.
        run = uuid.uuid4().hex[:12]
        self._ids = ids if ids is not None else (f"{run}-{n}" for n in count())

    def isolating(self) -> DaskExecutor:
        """One task in flight at a time: a lost batch's shoes, each alone on the cluster."""
        return DaskExecutor(self.client, self.label, one_at_a_time=True, ids=self._ids)

    def slots(self) -> int:
        """Tasks to keep in flight: two per worker thread, so none waits for the next batch."""
        if self.one_at_a_time:
            return 1
        try:
            threads = int(sum(self.client.nthreads().values()))
        except OSError:
            threads = 0
        return max(2, 2 * threads)

    def map(
        self, fn: BatchFn[J], jobs: Iterable[J], registry: ProfileRegistry
    ) -> Generator[BatchResult | LostBatch, None, None]:
        distributed = require_distributed()
        todo: Iterator[J] = iter(jobs)
        pending = distributed.as_completed()
        futures: set[Any] = set()
        jobs_of: dict[str, J] = {}

        def submit_up_to(n: int) -> None:
            while len(futures) < n:
                job = next(todo, None)
                if job is None:
                    return
                fut = self.client.submit(
                    cluster_task,
                    fn,
                    job,
                    registry,
                    ENGINE_VERSION,
                    key=f"shoe-audit-batch-{next(self._ids)}",
                    pure=False,
                )
                futures.add(fut)
                pending.add(fut)
                jobs_of[fut.key] = job

        try:
            submit_up_to(self.slots())
            for fut in pending:
                futures.discard(fut)
                result = self._result(fut, jobs_of.pop(fut.key))
                fut.release()
                submit_up_to(self.slots())
                yield result
        finally:
            if futures:
                self.client.cancel(list(futures))

    def _result(self, fut: Any, job: Any) -> BatchResult | LostBatch:
        """A task's result; a batch that kept killing its workers as a :class:`LostBatch`
        (``run`` replays it shoe by shoe), the scheduler lost as one line."""
        distributed = require_distributed()
        try:
            result: BatchResult = fut.result()
        except AuditError:
            raise
        except distributed.KilledWorker as exc:
            return LostBatch(job, f"KilledWorker: {exc}")
        except (OSError, distributed.TimeoutError) as exc:
            raise AuditError(f"lost the Dask scheduler at {self.label}: {exc}") from None
        return result


@contextmanager
def open_cluster(address: str) -> Iterator[DaskExecutor]:
    """Connect to the scheduler at ``address`` (or start ``local:N``), for one run.

    Raises :class:`AuditError` in one line when Dask is not installed, no
    scheduler answers, or a worker cannot run this shoe-audit.
    """
    spec = parse_cluster(address)
    distributed = require_distributed()
    import dask

    cluster = None
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": LARGE_GRAPH}):
        try:
            if spec.local_workers:
                # Ctrl-C while the cluster starts its processes is held back, then raised
                # once it is up (and closed below): never dropped, and no worker prints a
                # traceback of its own (they start with SIGINT blocked and keep it so:
                # the cluster is closed by this process). Issue 29, point 9.
                with sigint_deferred():
                    cluster = distributed.LocalCluster(
                        n_workers=spec.local_workers,
                        threads_per_worker=1,  # the replay is pure Python: one thread a process
                        processes=True,
                        # Its HTTP server on a free port of this machine only: with None
                        # it still took :8787, so two runs at once warned and one failed.
                        dashboard_address="127.0.0.1:0",
                        # A failing batch is reported once, by the coordinator, in one line;
                        # the workers' own log lines would repeat it with a traceback.
                        silence_logs=logging.CRITICAL,
                    )
                    hold_start()  # SHOE_AUDIT_FAULT=hold-start:SECONDS (tests)
                client = distributed.Client(cluster)
            else:
                client = distributed.Client(spec.address)
        except OSError as exc:
            if cluster is not None:
                cluster.close()
            raise AuditError(
                f"no Dask scheduler answers at {address} ({exc}); start one "
                "(`dask scheduler`, `dask worker ADDRESS`) or use --cluster local:N"
            ) from None
        except BaseException:  # Ctrl-C: the cluster's processes end with the run
            if cluster is not None:
                cluster.close()
            raise
        try:
            _check_workers(client, address)
            yield DaskExecutor(client, address)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def _check_workers(client: Any, address: str) -> None:
    """There is a worker, and every worker connected now has this shoe-audit and engine.

    A worker that joins later is checked by each task it runs (:func:`cluster_task`).
    """
    import dask

    wait = dask.config.get("distributed.comm.timeouts.connect")
    try:
        client.wait_for_workers(1, timeout=wait)
    except TimeoutError:
        raise AuditError(f"the Dask scheduler at {address} has no worker (waited {wait})") from None
    try:
        found = client.run(_versions)
    except Exception as exc:  # a worker without shoe-audit cannot even unpickle the call
        raise AuditError(
            f"the Dask workers at {address} cannot run shoe-audit "
            f"({type(exc).__name__}: {exc}): install it on every worker"
        ) from None
    mine = (__version__, ENGINE_VERSION)
    for worker, versions in sorted(found.items()):
        if tuple(versions) != mine:
            raise AuditError(
                f"Dask worker {worker} has shoe-audit {versions[0]} (engine {versions[1]}), "
                f"this one {mine[0]} (engine {mine[1]}): install the same version everywhere"
            )
