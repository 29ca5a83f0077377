"""How fast `shoe-audit run` audits rounds, against the bare engine in the same run.

Makes a simulated night (clean, all four profiles), ingests it into a fresh
DuckDB file, then measures (median of --repeat runs each):

  engine   the pure engine alone over events already in memory (the baseline)
  run -w1  the batch runner with one process (load from DuckDB, replay, write back)
  run -w2  the batch runner with two worker processes

and prints rounds per second and the ratios. Usage:

    .venv/bin/python benchmarks/run_bench.py --rounds 20000 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from audit.batch import run_audit, shoe_contexts
from audit.engine import replay_shoe
from audit.ingest import ingest_paths
from audit.profiles import load_registry
from audit.simulate import simulate
from audit.store import open_store

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]


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
        t = time.perf_counter()
        simulate(
            logs,
            tables=args.tables,
            shoes=1,
            rounds=max(1, args.rounds // args.tables),
            profiles=PROFILES,
            seed=args.seed,
            registry=registry,
            # plain tables only: the corpus every earlier figure was measured on (issue 28)
            rich_share=0.0,
        )
        print(f"simulated in {time.perf_counter() - t:.1f} s")
        db = Path(tmp) / "bench.duckdb"
        with open_store(db) as store:
            t = time.perf_counter()
            summary = ingest_paths(store, [logs])
            print(f"ingested {summary.new:,} events in {time.perf_counter() - t:.1f} s")
            keys = sorted(store.shoe_info())
            events = store.load_shoe_events(keys)
            infos = store.shoe_info(keys)
            contexts = shoe_contexts(store, keys)

            def engine_only() -> int:
                n = 0
                for k in keys:
                    pid = infos[k].profile
                    profile = registry.get(pid) if pid in registry else None  # type: ignore[arg-type]
                    n += len(replay_shoe(events[k], profile, contexts[k]).rounds)
                return n

            def run(workers: int) -> int:
                return run_audit(store, registry, all_shoes=True, workers=workers).rounds

            results: dict[str, tuple[int, float]] = {}
            for name, fn in (
                ("engine", engine_only),
                ("run -w1", lambda: run(1)),
                ("run -w2", lambda: run(2)),
            ):
                times = []
                rounds = 0
                for _ in range(args.repeat):
                    t = time.perf_counter()
                    rounds = fn()
                    times.append(time.perf_counter() - t)
                results[name] = (rounds, statistics.median(times))

    _, base_s = results["engine"]
    print(f"\n{'what':<10} {'rounds':>9} {'median s':>9} {'rounds/s':>10} {'vs engine':>10}")
    for name, (rounds, secs) in results.items():
        rate = rounds / secs
        print(f"{name:<10} {rounds:>9,} {secs:>9.2f} {rate:>10,.0f} {base_s / secs:>9.2f}x")


if __name__ == "__main__":
    main()
