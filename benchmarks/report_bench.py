"""`report` of an audited night: seconds and peak memory (issue 33, point 2).

Makes (and caches under ``benchmarks/out/``, beside ``audit_bench.py``'s nights)
a simulated night of ``--rounds`` rounds with errors at ``--error-rate`` of
rounds, ingests and audits it once into ``audited.duckdb`` in the night's
folder (cached too: on the 2-core machine a 1,000,000-round night takes 10-20
minutes to simulate, ingest and run), then renders its report, hand pages
included, ``--repeat`` times, each in a fresh process, as the CLI does
(``report --date D ...`` for every audited day). Prints the medians and two
peaks of resident memory:

  largest   the largest single process (the report's own, or one page worker)
  together  the report's process and its workers at once

both sampled every 50 ms (a child's ``ru_maxrss`` is no use here: a page worker
is forked from the report's process before it execs, and inherits its peak).
``--days N`` reports the night's first N gaming days only: the growth per round
between two spans of the same database says what a larger night will take.

    .venv/bin/python benchmarks/report_bench.py --rounds 1000000 --repeat 1
    .venv/bin/python benchmarks/report_bench.py --rounds 100000 --out /tmp/r100k
    .venv/bin/python benchmarks/report_bench.py --rounds 100000 --days 10 --repeat 1

``--out DIR`` keeps the last report (to compare two versions byte for byte);
``--prepare`` only makes the audited database. ``--hand-batch N`` holds the statistics'
batches of dealer hands to N (a batch grows with the night up to ``HAND_BATCH``, 65,536
hands, some 90,000 rounds: two spans below that do not show what a larger night takes).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from audit_bench import _mib, _night, _stage

_REPORT = r"""
import json, sys, time
src, db, ndays, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
t = time.perf_counter()
if batch:
    import audit.store.stats_aggregates
    audit.store.stats_aggregates.HAND_BATCH = batch
from audit.batch.nightly import write_report
from audit.profiles import load_registry
from audit.store import open_store
from audit.store.stats_frames import audited_days
with open_store(db, read_only=True) as store:
    days = audited_days(store)
    path = write_report(
        store, days[:ndays] if ndays else days, src, "html", None, load_registry(),
        generated_at="2026-12-01T00:00:00+00:00",
    )
pages = len(list((path.parent / "hands").rglob("*.html")))
secs = time.perf_counter() - t
import duckdb
with duckdb.connect(db, read_only=True) as con:
    picked = days[:ndays] if ndays else days
    (rounds,) = con.execute(
        "SELECT count(*) FROM rounds WHERE list_contains(?, gaming_day)", [picked]
    ).fetchone()
print(json.dumps({"secs": secs, "pages": pages, "rounds": rounds}))
"""


def audited(rounds: int, tables: int, seed: int, error_rate: float) -> Path:
    """The cached night's database, ingested and audited once."""
    folder = _night(rounds, tables, seed, error_rate)
    db = folder / "audited.duckdb"
    done = folder / ".audited"
    if done.exists():
        return db
    for old in folder.glob("audited.*"):
        old.unlink()
    print(f"ingesting and auditing {folder} (cached for later runs)...", flush=True)
    ingest = _stage("ingest", folder / "logs", db)
    run = _stage("run", "", db)
    print(f"  ingest {ingest['secs']:.1f} s, run {run['secs']:.1f} s", flush=True)
    done.touch()
    return db


def report(db: Path, out: Path, days: int = 0, hand_batch: int = 0) -> dict[str, float]:
    """One report in a fresh process: its seconds, CPU seconds (the report's process and
    its page workers), rounds, pages and both peaks."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = subprocess.Popen(
        [sys.executable, "-c", _REPORT, str(out), str(db), str(days), str(hand_batch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    proc = psutil.Process(child.pid)
    together = largest = 0
    while child.poll() is None:
        try:
            sizes = [_rss(p) for p in [proc, *proc.children(recursive=True)]]
        except psutil.NoSuchProcess:
            sizes = []
        together, largest = max(together, sum(sizes)), max([largest, *sizes])
        time.sleep(0.05)
    stdout, stderr = child.communicate()
    if child.returncode != 0:
        sys.exit(f"report failed (exit {child.returncode}):\n{stderr[-4000:]}")
    res = dict(json.loads(stdout.strip().splitlines()[-1]))
    res["together"], res["largest"] = together, largest
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    res["cpu"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return res


def _rss(p: psutil.Process) -> int:
    try:
        return int(p.memory_info().rss)
    except psutil.NoSuchProcess:
        return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=100_000)
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--error-rate", type=float, default=0.01)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--days", type=int, default=0, help="only the first N gaming days")
    ap.add_argument("--out", type=Path, help="keep the last report here")
    ap.add_argument(
        "--hand-batch",
        type=int,
        default=0,
        help="the statistics' batch of dealer hands (default: HAND_BATCH); smaller, so that"
        " two spans of a 100,000-round night both fill it when measuring the growth",
    )
    ap.add_argument("--prepare", action="store_true", help="only make the audited database")
    args = ap.parse_args()

    db = audited(args.rounds, args.tables, args.seed, args.error_rate)
    if args.prepare:
        print(db)
        return
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            out = Path(tmp) / f"report{i}"
            runs.append(report(db, out, args.days, args.hand_batch))
            if args.out is not None and i == args.repeat - 1:
                shutil.rmtree(args.out, ignore_errors=True)
                shutil.copytree(out, args.out)
    secs = statistics.median(r["secs"] for r in runs)
    cpu = statistics.median(r["cpu"] for r in runs)
    print(
        f"report of {int(runs[0]['rounds']):,} rounds ({args.tables} tables, errors at"
        f" {args.error_rate:.0%} of rounds): {secs:.2f} s ({cpu:.1f} CPU-s, workers"
        f" included), {int(runs[0]['pages']):,} hand pages"
    )
    print(
        f"peak RSS: largest process {_mib(max(r['largest'] for r in runs))},"
        f" report and workers together {_mib(max(r['together'] for r in runs))}"
    )
    print(f"(median of {args.repeat}; each a fresh process)")


if __name__ == "__main__":
    main()
