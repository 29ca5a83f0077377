"""Where a stage's memory goes (issue 33): ``ingest``, ``run`` or ``report``, sampled.

Every 50 ms the process's resident memory is read from ``/proc``; at each new peak
(8 MiB above the last) it notes the main thread's frames in ``audit/``, DuckDB's own
accounting (``duckdb_memory()``, from a second cursor), pyarrow's allocated bytes and,
with ``--tracemalloc``, the Python objects' total. Prints the peaks, then one JSON line
(seconds, CPU seconds, peak RSS of this process and of its largest child).

    .venv/bin/python benchmarks/mem_probe.py ingest benchmarks/out/night-100000-20-3-0/logs \
        /tmp/a.duckdb
    .venv/bin/python benchmarks/mem_probe.py run /tmp/a.duckdb
    .venv/bin/python benchmarks/mem_probe.py report /tmp/report /tmp/a.duckdb

Run it from the checkout whose code is to be measured (the stage imports ``audit`` from
the current folder). ``run`` changes the database: give it a copy (and its ``.ledger``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import threading
import time
import traceback
import tracemalloc
from typing import Any


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class _Sampler(threading.Thread):
    def __init__(self, traced: bool) -> None:
        super().__init__(daemon=True)
        self.traced = traced
        self.cursor: Any = None
        self.peaks: list[tuple[float, int, str]] = []
        self.stop = False
        self.t0 = time.perf_counter()

    def run(self) -> None:
        peak = 0
        main = threading.main_thread().ident
        while not self.stop:
            now = _rss()
            if now > peak + (8 << 20):
                peak = now
                self.peaks.append((time.perf_counter() - self.t0, now, self._where(main)))
            time.sleep(0.05)

    def _where(self, main: int | None) -> str:
        frame = sys._current_frames().get(main or 0)
        stack = [
            f"{os.path.relpath(f.filename)}:{f.lineno}:{f.name}"
            for f in (traceback.extract_stack(frame) if frame else [])
            if "/audit/" in f.filename
        ][-3:]
        parts = []
        if self.traced:
            parts.append(f"python={tracemalloc.get_traced_memory()[0] >> 20}")
        pa = sys.modules.get("pyarrow")
        if hasattr(pa, "total_allocated_bytes"):
            parts.append(f"arrow={pa.total_allocated_bytes() >> 20}")  # type: ignore[union-attr]
        if self.cursor is not None:
            try:
                (duck,) = self.cursor.execute(
                    "SELECT sum(memory_usage_bytes) >> 20 FROM duckdb_memory()"
                ).fetchone()
                parts.append(f"duckdb={duck}")
            except Exception:  # a sample missed, not a failure
                pass
        return " ".join(parts) + "  " + " <- ".join(reversed(stack))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stage", choices=["ingest", "run", "report"])
    ap.add_argument("paths", nargs="+", help="ingest: LOGS DB; run: DB; report: OUT DB")
    ap.add_argument("--tracemalloc", action="store_true", help="also the Python objects' total")
    ap.add_argument("--days", type=int, default=0, help="report: the first N gaming days only")
    args = ap.parse_args()
    sys.path.insert(0, os.getcwd())
    if args.tracemalloc:
        tracemalloc.start()
    from audit.store import open_store

    sampler = _Sampler(args.tracemalloc)
    sampler.start()
    extra: dict[str, Any] = {}
    with open_store(args.paths[-1], read_only=args.stage == "report") as store:
        sampler.cursor = store.con.cursor()
        if args.stage == "report":
            from audit.batch.nightly import write_report
            from audit.profiles import load_registry
            from audit.store.stats_frames import audited_days

            days = audited_days(store)[: args.days or None]
            write_report(store, days, args.paths[0], "html", None, load_registry())
            extra["days"] = len(days)
        elif args.stage == "ingest":
            from audit.ingest import ingest_paths

            extra["events"] = ingest_paths(store, [args.paths[0]]).new
        else:
            from audit.batch import run_audit
            from audit.profiles import load_registry

            s = run_audit(store, load_registry())
            extra.update(rounds=s.rounds, shoes=s.shoes, findings=s.findings)
    sampler.stop = True
    for at, rss, where in sampler.peaks:
        print(f"{at:7.1f} s  {rss >> 20:5d} MiB  {where}")
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        json.dumps(
            {
                "secs": round(time.perf_counter() - sampler.t0, 1),
                "cpu": round(me.ru_utime + me.ru_stime, 1),
                "peak_mib": me.ru_maxrss >> 10,
                "largest_child_mib": kids.ru_maxrss >> 10,
                **extra,
            }
        )
    )


if __name__ == "__main__":
    main()
