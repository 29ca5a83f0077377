"""`run --cluster` on Dask against a local `run`, and where the time goes (issue 13, point 5).

Makes a simulated night (all four profiles), ingests it into a fresh DuckDB
file, exports it as Parquet, then measures (median of --repeat runs each,
every run a full `run --all` of the night into the same database):

  run -w1            the local run, one process (the baseline)
  run -w2            the local run, two worker processes
  dask local:1       a Dask LocalCluster of 1 worker process, events sent with the tasks
  dask local:2       the same with 2 worker processes
  dask local:2 src   2 workers reading their shoes from the Parquet export (--source)

The clusters are started once, before their runs (their start-up is printed
apart). Then it splits one run into its parts, for docs/scale.md:

  coordinator        per round: reading the events out of DuckDB (scan), writing each
                     batch's results (write), and what precedes the batches (setup),
                     all in the one coordinator process
  worker             per round: decoding and replaying a batch; with --source, reading
                     and checking its Parquet files (read)
  scheduler          per task: a Dask round trip of a task with no work, and of one
                     carrying a default-size batch of events (40,000)

and projects the rounds per second of 100 workers from them. Usage:

    .venv/bin/python benchmarks/cluster_bench.py --rounds 20000 --repeat 3
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import tempfile
import time
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.batch import run_audit
from audit.batch.cluster import open_cluster
from audit.batch.runner import BATCH_EVENTS, BatchFn, BatchJob, BatchResult, J, audit_batch
from audit.batch.source import SourceJob
from audit.ingest import ingest_paths
from audit.profiles import ProfileRegistry, load_registry
from audit.simulate import simulate
from audit.store import Store, open_store
from audit.store.parquet import export_parquet, read_source_batch

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]


@dataclass
class Timing:
    """Seconds spent in each part of one run, and what the batches weighed."""

    jobs: float = 0.0  # the coordinator making the next batch (scan of DuckDB, or planning)
    write: float = 0.0  # the coordinator writing a batch's results
    read: float = 0.0  # a worker reading and checking Parquet files (--source)
    replay: float = 0.0  # a worker decoding and replaying a batch
    other: float = 0.0  # the coordinator before the batches: selection, contexts, clear, plan
    batches: int = 0
    job_bytes: list[int] = field(default_factory=list)
    result_bytes: list[int] = field(default_factory=list)


class TimingExecutor:
    """Replays in this process, timing each part of the real run (a BatchExecutor)."""

    def __init__(self) -> None:
        self.t = Timing()

    def map(
        self, fn: BatchFn[J], jobs: Iterable[J], registry: ProfileRegistry
    ) -> Generator[BatchResult, None, None]:
        todo = iter(jobs)
        while True:
            t0 = time.perf_counter()
            job = next(todo, None)
            self.t.jobs += time.perf_counter() - t0
            if job is None:
                return
            self.t.job_bytes.append(len(pickle.dumps(job, protocol=5)))
            t0 = time.perf_counter()
            if isinstance(job, SourceJob):
                events = read_source_batch(
                    job.root, job.files, [(m.key, m.events_digest) for m in job.shoes]
                )
                self.t.read += time.perf_counter() - t0
                t0 = time.perf_counter()
                result = audit_batch(BatchJob(events, job.shoes), registry)
            else:
                result = fn(job, registry)
            self.t.replay += time.perf_counter() - t0
            self.t.result_bytes.append(len(pickle.dumps(result, protocol=5)))
            self.t.batches += 1
            t0 = time.perf_counter()
            yield result  # the caller writes the batch before asking for the next one
            self.t.write += time.perf_counter() - t0


def median_run(fn: Callable[[], int], repeat: int) -> tuple[int, float]:
    times, rounds = [], 0
    for _ in range(repeat):
        t = time.perf_counter()
        rounds = fn()
        times.append(time.perf_counter() - t)
    return rounds, statistics.median(times)


def scheduler_round_trips(address: str, n: int, payload: Any) -> float:
    """Median seconds of a Dask round trip of a task carrying ``payload`` (one at a time)."""
    with open_cluster(address) as executor:
        client = executor.client
        times = []
        for _ in range(n):
            t = time.perf_counter()
            client.submit(type, payload, pure=False).result()
            times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20_000, help="rounds in all (default 20000)")
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()

    registry = load_registry()
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp) / "logs"
        simulate(
            logs,
            tables=args.tables,
            shoes=1,
            rounds=max(1, args.rounds // args.tables),
            profiles=PROFILES,
            seed=args.seed,
            error_rate=0.02,
            registry=registry,
            # plain tables only: the corpus every earlier figure was measured on (issue 28)
            rich_share=0.0,
        )
        db = Path(tmp) / "bench.duckdb"
        export = Path(tmp) / "export"
        with open_store(db) as store:
            events = ingest_paths(store, [logs]).new
            t = time.perf_counter()
            ex = export_parquet(store, export)
            export_s = time.perf_counter() - t
            print(
                f"{events:,} events; export --parquet: {ex.files} files, "
                f"{ex.bytes / 1e6:.1f} MB in {export_s:.2f} s"
            )
            results = measure(store, registry, args.repeat, str(export))
            parts = split(store, registry, str(export))
            store.con.execute("CHECKPOINT")
            parts["db_bytes"] = db.stat().st_size
            parts["export_bytes"] = ex.bytes
    report(results, parts, args.rounds)


def measure(
    store: Store, registry: ProfileRegistry, repeat: int, export: str
) -> dict[str, tuple[int, float]]:
    def run(**kw: Any) -> int:
        return run_audit(store, registry, all_shoes=True, **kw).rounds

    results = {
        "run -w1": median_run(lambda: run(workers=1), repeat),
        "run -w2": median_run(lambda: run(workers=2), repeat),
    }
    for n in (1, 2):
        t = time.perf_counter()
        with open_cluster(f"local:{n}") as executor:
            print(f"LocalCluster of {n} started in {time.perf_counter() - t:.1f} s")
            results[f"dask local:{n}"] = median_run(lambda: run(executor=executor), repeat)
            if n == 2:
                results["dask local:2 src"] = median_run(
                    lambda: run(executor=executor, source=export), repeat
                )
    return results


def split(store: Store, registry: ProfileRegistry, export: str) -> dict[str, Any]:
    """One timed run of each kind (events from DuckDB, events from Parquet), and Dask's costs."""
    parts: dict[str, Any] = {}
    for name, source in (("db", None), ("src", export)):
        ex = TimingExecutor()
        t0 = time.perf_counter()
        summary = run_audit(store, registry, all_shoes=True, executor=ex, source=source)
        t = ex.t
        t.other = time.perf_counter() - t0 - (t.jobs + t.write + t.read + t.replay)
        parts[name] = (summary.rounds, summary.shoes, t)
    events = store.con.execute("SELECT count(*) FROM events").fetchone()
    parts["events"] = events[0] if events else 0
    from audit.store.batches import stream_shoe_batches

    keys = sorted(store.shoe_info())
    batch = next(iter(stream_shoe_batches(store, keys, BATCH_EVENTS)))
    parts["batch_rows"], parts["batch_bytes"] = batch.num_rows, len(pickle.dumps(batch, 5))
    parts["tiny_s"] = scheduler_round_trips("local:1", 200, 0)
    parts["big_s"] = scheduler_round_trips("local:1", 20, batch)
    return parts


def report(results: dict[str, tuple[int, float]], parts: dict[str, Any], asked: int) -> None:
    _, base = results["run -w1"]
    print(f"\n{'what':<18} {'rounds':>8} {'median s':>9} {'rounds/s':>9} {'vs run -w1':>11}")
    for name, (rounds, secs) in results.items():
        print(f"{name:<18} {rounds:>8,} {secs:>9.2f} {rounds / secs:>9,.0f} {base / secs:>10.2f}x")

    rounds, shoes, db = parts["db"]
    _, _, src = parts["src"]
    us = 1e6 / rounds
    print(
        f"\nwhere the time goes (one run, in one process; {rounds:,} rounds, {shoes} shoes, "
        f"{db.batches} batches of <= {BATCH_EVENTS:,} events):"
    )
    print(f"  coordinator scan   {db.jobs * us:8.1f} us/round  (events out of DuckDB into Arrow)")
    print(f"  coordinator write  {db.write * us:8.1f} us/round  (one transaction per batch)")
    print(
        f"  coordinator setup  {db.other * us:8.1f} us/round  (select, contexts, clear); "
        f"{src.other * us:.1f} with --source (and the plan)"
    )
    print(f"  worker replay      {db.replay * us:8.1f} us/round  (decode + engine)")
    print(f"  worker read        {src.read * us:8.1f} us/round  (--source: read, SHA-256, SQL)")
    kb = statistics.median(db.job_bytes) / 1e3
    kb_src = statistics.median(src.job_bytes) / 1e3
    kb_res = statistics.median(db.result_bytes) / 1e3
    print(
        f"  task arguments     {kb:8.1f} kB/batch (events), {kb_src:.1f} kB/batch (--source); "
        f"results {kb_res:.1f} kB/batch"
    )
    print(
        f"  Dask round trip    {parts['tiny_s'] * 1e3:8.2f} ms/task (no work); "
        f"{parts['big_s'] * 1e3:.2f} ms with a batch of {parts['batch_rows']:,} events "
        f"({parts['batch_bytes'] / 1e6:.1f} MB)"
    )

    size, events = parts["db_bytes"], parts["events"]
    print(
        f"  storage            {size / events:8.1f} B/event in DuckDB with the results "
        f"({size / 1e6:.1f} MB), {parts['export_bytes'] / events:.1f} B/event as Parquet"
    )

    per_batch = rounds / db.batches
    worker = rounds / db.replay
    coord_db = rounds / (db.jobs + db.write + db.other)
    coord_src = rounds / (src.jobs + src.write + src.other)
    sched = per_batch / parts["tiny_s"]
    print("\nprojected for 100 workers (each as fast as one core here):")
    print(f"  workers could replay       {100 * worker:>10,.0f} rounds/s")
    print(
        f"  the coordinator can write  {coord_db:>10,.0f} rounds/s with events in the tasks "
        f"(saturated by {coord_db / worker:.1f} workers)"
    )
    print(
        f"                             {coord_src:>10,.0f} rounds/s with --source "
        f"(saturated by {coord_src / worker:.1f} workers)"
    )
    print(
        f"  the scheduler, one task at a time, passes {sched:,.0f} rounds/s at "
        f"{per_batch:,.0f} rounds a batch"
    )
    if rounds < asked * 0.9:
        print(f"(the night has {rounds:,} rounds of the {asked:,} asked for)")


if __name__ == "__main__":
    main()
