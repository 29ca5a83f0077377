"""A whole night at scale: simulate, ingest, run, report, with each stage timed.

Makes a simulated night of --rounds rounds over --tables tables (all four
profiles, --error-rate injected errors), then times each stage of the nightly
job on it and, for the report, the median of --repeat renders. Prints rounds
per second for `run` and seconds for the report (with its hand pages).

    .venv/bin/python benchmarks/nightly_bench.py --rounds 100000 --tables 20
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from audit.batch import run_audit
from audit.batch.nightly import write_report
from audit.ingest import ingest_paths
from audit.profiles import load_registry
from audit.simulate import simulate
from audit.store import open_store

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=100_000)
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--error-rate", type=float, default=0.002)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()

    registry = load_registry()
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp) / "logs"
        t = time.perf_counter()
        sim = simulate(
            logs,
            tables=args.tables,
            shoes=1,
            rounds=max(1, args.rounds // args.tables),
            profiles=PROFILES,
            seed=args.seed,
            error_rate=args.error_rate,
            registry=registry,
            # plain tables only: the corpus every earlier figure was measured on (issue 28)
            rich_share=0.0,
        )
        print(f"simulate  {time.perf_counter() - t:8.1f} s  {sim}")
        day_dirs = sorted(p for p in logs.iterdir() if p.is_dir())
        with open_store(Path(tmp) / "night.duckdb") as store:
            t = time.perf_counter()
            ing = ingest_paths(store, day_dirs)
            secs = time.perf_counter() - t
            print(f"ingest    {secs:8.1f} s  {ing.new:,} events ({ing.new / secs:,.0f} events/s)")
            t = time.perf_counter()
            run = run_audit(store, registry, workers=args.workers)
            secs = time.perf_counter() - t
            print(
                f"run       {secs:8.1f} s  {run.rounds:,} rounds "
                f"({run.rounds / secs:,.0f} rounds/s), {run.findings:,} findings"
            )
            days = sorted({i.gaming_day for i in store.shoe_info().values() if i.gaming_day})
            times = []
            for i in range(args.repeat):
                t = time.perf_counter()
                path = write_report(store, days, Path(tmp) / f"report{i}", "html", None, registry)
                times.append(time.perf_counter() - t)
            pages = len(list((path.parent / "hands").rglob("*.html")))
            print(
                f"report    {statistics.median(times):8.2f} s  median of {args.repeat}"
                f" (min {min(times):.2f}), {len(days)} gaming days, {pages} hand pages,"
                f" index {path.stat().st_size:,} bytes"
            )


if __name__ == "__main__":
    main()
