"""The books at scale (issue 31, point 7): the reconciliation's share of ``ingest + run``.

Makes (and caches under ``benchmarks/out/``) a clean ``simulate --books`` night of
``--rounds`` rounds in all over ``--tables`` casino tables and two gaming days,
its house file (``house.toml`` beside the logs) cutting each gaming day into three
shifts (day 06:00, swing 14:00, grave 22:00) with ``cage_day_close = "count"``
(the simulator's cage exports each day before the count, as ``sim_recall.py
--books`` judges it). Then ``--repeat`` times, each command a fresh process
through the real command line: ``ingest --json`` into a fresh database, ``run
--json`` of a fresh copy of it. Prints the medians of ingest, run, and of the
reconciliation ``run`` ends with (``run --json``'s ``books_seconds``), split into
its parts (``books_split``: the stored records and the hands' money read by SQL,
the pure reconciliation, the store's writes), and the ratio the issue sets:

    reconciliation / (ingest + run) < 10%

    .venv/bin/python benchmarks/books_bench.py                     # 100,000 rounds
    .venv/bin/python benchmarks/books_bench.py --rounds 1000000 --repeat 1

``--profile`` also runs one reconciliation of the last copy under cProfile
(the top functions by cumulative time) and prints DuckDB's EXPLAIN ANALYZE of
the hands' SQL.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out"
# the casino profiles (the home game keeps no books)
PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory"]
SHIFTS = (
    'shifts = { value = [{ name = "day" }, { name = "swing", start = "14:00" }, '
    '{ name = "grave", start = "22:00" }], source = "books_bench: three 8-hour shifts" }'
)


def house_text() -> str:
    """The packaged house file with three shifts and the cage's day closed by the count."""
    from audit.books.house import PACKAGED_HOUSE

    lines = []
    for line in PACKAGED_HOUSE.read_text(encoding="utf-8").splitlines():
        if line.startswith("shifts ="):
            line = SHIFTS
        elif line.startswith("cage_day_close ="):
            line = line.replace('value = "next_day"', 'value = "count"')
        lines.append(line)
    return "\n".join(lines) + "\n"


def night(rounds: int, tables: int, seed: int, workers: int) -> Path:
    """A cached books night: ``benchmarks/out/books-<rounds>-<tables>-<seed>`` (``logs/``
    and ``house.toml``)."""
    from audit.books.house import load_house_file
    from audit.simulate import simulate

    folder = OUT / f"books-{rounds}-{tables}-{seed}"
    done = folder / ".complete"
    if done.exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    house = folder / "house.toml"
    house.write_text(house_text(), encoding="utf-8")
    days = 2  # the least --books allows: a slip or a count is judged once a later day exists
    print(f"simulating {rounds:,} rounds with books into {folder} (cached)...", flush=True)
    t = time.perf_counter()
    simulate(
        folder / "logs",
        tables=tables,
        shoes=1,
        rounds=max(1, rounds // (tables * days)),
        profiles=PROFILES,
        seed=seed,
        workers=workers,
        rich_share=0.0,
        days=days,
        books=True,
        house=load_house_file(house),
    )
    print(f"simulated in {time.perf_counter() - t:.0f} s", flush=True)
    done.touch()
    return folder


def _cli(argv: list[str], db: Path, house: Path) -> dict[str, Any]:
    """One command in a fresh process: its ``--json`` summary, wall seconds and peak RSS."""
    env = {**os.environ, "SHOE_AUDIT_HOUSE": str(house)}
    cmd = [sys.executable, "-m", "audit", *argv, "--db", str(db), "--json"]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    out, err = proc.communicate()
    secs = time.perf_counter() - t
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed (exit {proc.returncode}):\n{err[-4000:]}")
    return {"secs": secs, **json.loads(out.strip().splitlines()[-1])}


_PROFILE = r"""
import cProfile, pstats, sys
from audit.batch.reconcile_books import reconcile_books
from audit.books.house import load_house_file
from audit.store import open_store
from audit.store.books import explain_hands
db, house = sys.argv[1], sys.argv[2]
h = load_house_file(__import__("pathlib").Path(house))
with open_store(db) as store:
    print(explain_hands(store, h))
    prof = cProfile.Profile()
    prof.enable()
    reconcile_books(store, h, [])
    prof.disable()
pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=100_000, help="in all, over both days")
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2, help="the simulator's processes")
    ap.add_argument("--simulate-only", action="store_true", help="make the cached night, stop")
    ap.add_argument("--profile", action="store_true", help="cProfile and EXPLAIN ANALYZE")
    args = ap.parse_args()

    folder = night(args.rounds, args.tables, args.seed, args.workers)
    if args.simulate_only:
        return
    logs, house = folder / "logs", folder / "house.toml"
    ingests: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for i in range(args.repeat):
            db = work / f"ingest{i}.duckdb"
            ingests.append(_cli(["ingest", str(logs)], db, house))
            copy = work / "run.duckdb"
            for suffix in ("", ".ledger"):  # without its ledger run would report it deleted
                Path(f"{copy}{suffix}").unlink(missing_ok=True)
                shutil.copyfile(f"{db}{suffix}", f"{copy}{suffix}")
            runs.append(_cli(["run"], copy, house))
            for suffix in ("", ".ledger"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
        if args.profile:
            subprocess.run([sys.executable, "-c", _PROFILE, str(copy), str(house)], check=True)

    def med(rows: list[dict[str, Any]], key: str) -> float:
        return statistics.median(float(r[key]) for r in rows)

    ingest, run = med(ingests, "secs"), med(runs, "secs")
    books = med(runs, "books_seconds")
    last = runs[-1]
    split = {
        k: statistics.median(float(r["books_split"][k]) for r in runs) for k in last["books_split"]
    }
    periods = sum(last["books_periods"].values())
    print(
        f"books night: {last['rounds']:,} rounds, {args.tables} tables, 3 shifts, "
        f"{periods:,} periods {last['books_periods']}, "
        f"{sum(last['books_findings'].values())} ACCT_ findings"
    )
    print(f"ingest               {ingest:8.2f} s")
    print(f"run                  {run:8.2f} s   (the reconciliation included)")
    print(f"ingest + run         {ingest + run:8.2f} s")
    print(
        f"reconciliation       {books:8.2f} s   {books / (ingest + run):6.2%} of ingest + run"
        "   (target < 10%)"
    )
    for part, secs in split.items():
        print(f"  {part:18} {secs:8.2f} s")
    print(f"(medians of {args.repeat}; each command a fresh process)")


if __name__ == "__main__":
    main()
