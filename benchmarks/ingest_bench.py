"""Ingest benchmark: our ``ingest_paths`` against DuckDB's own ``read_json``.

Writes a synthetic TEL/1 file (a realistic mix: shoes opened, shuffled, cut
and burned, then rounds of bets, cards, decisions and settlements), then times
reading the same file (median of ``--runs`` runs each):

* the baseline: ``CREATE TABLE t AS SELECT * FROM read_json(file)`` into a
  fresh DuckDB file, i.e. parsing and storing with no validation at all;
* ``audit.ingest.ingest_paths`` into a fresh audit database.

It prints events, seconds for both, their ratio (the target is <= 2.0 at 1M
events) and the peak RSS of each child process, so memory can be compared
across sizes (``--events 250000`` against ``--events 1000000``).

With ``--files N`` the same events are cut into N files of consecutive lines
in one folder (a night's logs come as many files): the baseline reads them
with one ``read_json`` glob, the ingest the folder, which shows the cost of
each file (its transaction, its query plans, its derived tables).

    .venv/bin/python benchmarks/ingest_bench.py --events 1000000 --runs 3
    .venv/bin/python benchmarks/ingest_bench.py --events 500000 --files 100
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO

RANKS = "A23456789TJQK"
SUITS = "SHDC"
START = dt.datetime(2026, 11, 28, 14, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))


def _card(rng: random.Random) -> str:
    return rng.choice(RANKS) + rng.choice(SUITS)


class _TableWriter:
    """Writes one table's events with consecutive ``seq`` and a clock."""

    def __init__(self, out: TextIO, table: str) -> None:
        self.out = out
        self.table = table
        self.seq = 0
        self.emitted = 0
        self._encode = json.JSONEncoder(separators=(",", ":")).encode

    def emit(self, obj: dict[str, object], shoe: str, rnd: int | None = None) -> None:
        self.seq += 1
        when = START + dt.timedelta(seconds=self.seq * 7)
        ev: dict[str, object] = {
            "id": f"{self.table}-{self.seq}",
            "seq": self.seq,
            "ts": when.isoformat(),
            "table": self.table,
            "shoe": shoe,
        }
        if rnd is not None:
            ev["round"] = rnd
        ev.update(obj)
        self.out.write(self._encode(ev))
        self.out.write("\n")
        self.emitted += 1


def _round(w: _TableWriter, rng: random.Random, shoe: str, rnd: int, pos: int) -> int:
    """One round of 1-5 boxes; returns the next shoe position."""
    w.emit({"type": "round_open"}, shoe, rnd)
    boxes = sorted(rng.sample(range(1, 8), rng.randint(1, 5)))
    for b in boxes:
        amount = rng.choice([10, 20, 25, 50, 100, 12.5])
        w.emit({"type": "bet", "box": b, "spot": 0, "amount": amount}, shoe, rnd)
    w.emit({"type": "no_more_bets"}, shoe, rnd)
    for first in (True, False):
        for b in boxes:
            card = {"type": "card", "card": _card(rng), "to": "box", "box": b}
            w.emit({**card, "pos": pos}, shoe, rnd)
            pos += 1
        if first:
            w.emit({"type": "card", "card": _card(rng), "to": "dealer", "pos": pos}, shoe, rnd)
            pos += 1
    for b in boxes:
        if rng.random() < 0.4:
            w.emit({"type": "action", "box": b, "hand": 0, "action": "hit"}, shoe, rnd)
            card = {"type": "card", "card": _card(rng), "to": "box", "box": b, "hand": 0}
            w.emit({**card, "pos": pos}, shoe, rnd)
            pos += 1
        w.emit({"type": "action", "box": b, "hand": 0, "action": "stand"}, shoe, rnd)
    for _ in range(rng.randint(1, 3)):
        w.emit({"type": "card", "card": _card(rng), "to": "dealer", "pos": pos}, shoe, rnd)
        pos += 1
    for b in reversed(boxes):
        amount = rng.choice([-10, -20, 0, 20, 50, 37.5, -12.5])
        settle = {"type": "settle", "box": b, "hand": 0, "spot": 0, "kind": "main"}
        w.emit({**settle, "amount": amount}, shoe, rnd)
    w.emit({"type": "round_close"}, shoe, rnd)
    return pos


def write_synthetic(path: Path, n_events: int, seed: int = 7, tables: int = 12) -> int:
    """Write about ``n_events`` TEL/1 lines to ``path``; returns the number written.

    Tables are dealt one after the other (``seq`` per table), each shoe
    opened, shuffled, cut and burned, then dealt in rounds until the table's
    share of events is spent (the last round is completed, so the count may
    exceed ``n_events`` by a few).
    """
    rng = random.Random(seed)
    written = 0
    with path.open("w", encoding="utf-8") as out:
        for t in range(1, tables + 1):
            w = _TableWriter(out, f"T{t:02d}")
            budget = n_events // tables if t < tables else n_events - written
            shoe_no = 0
            while w.emitted < budget:
                shoe_no += 1
                shoe = f"{w.table}-20261128-{shoe_no:02d}"
                dealer = f"D{rng.randint(1, 99):03d}"
                w.emit(
                    {"type": "shoe_open", "profile": "it-casino-6d", "decks": 6, "dealer": dealer,
                     "currency": "EUR", "min_bet": 10, "max_bet": 1000},
                    shoe,
                )  # fmt: skip
                w.emit({"type": "shuffle", "method": "wash"}, shoe)
                w.emit({"type": "shuffle", "method": "riffle"}, shoe)
                w.emit({"type": "cut", "by": "box", "box": rng.randint(1, 7)}, shoe)
                w.emit({"type": "cut_card", "position": 234}, shoe)
                burn = [_card(rng) for _ in range(5)]
                w.emit({"type": "burn", "cards": burn, "face_down": True}, shoe)
                pos, rnd = 6, 0
                while w.emitted < budget and pos < 234:
                    rnd += 1
                    pos = _round(w, rng, shoe, rnd, pos)
                if w.emitted < budget:
                    w.emit({"type": "shoe_close", "reason": "cut_card", "remaining": 78}, shoe)
            written += w.emitted
    return written


def _cut(src: Path, folder: Path, files: int, lines: int) -> Path:
    """``src`` cut into ``files`` files of consecutive lines in ``folder``."""
    folder.mkdir()
    per = -(-lines // files)
    with src.open("rb") as f:
        for i in range(files):
            with (folder / f"part{i:04d}.jsonl").open("wb") as out:
                for _ in range(per):
                    line = f.readline()
                    if not line:
                        break
                    out.write(line)
    return folder


_CHILD = r"""
import json, os, resource, sys, time
mode, src, db = sys.argv[1], sys.argv[2], sys.argv[3]
t = time.perf_counter()
if mode == "baseline":
    import duckdb
    con = duckdb.connect(db)
    pattern = f"{src}/*.jsonl" if os.path.isdir(src) else src
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_json('{pattern}')")
    n = con.execute("SELECT count(*) FROM t").fetchall()[0][0]
    con.close()
elif mode == "validate":
    from audit.ingest import validate_paths
    report = validate_paths([src])
    n = sum(f.events for f in report.files)
elif mode == "ingest":
    from audit.ingest import ingest_paths
    from audit.store import open_store
    store = open_store(db)
    summary = ingest_paths(store, [src])
    n = summary.new
    store.close()
else:  # load: every shoe of an ingested database back as models
    from audit.store import open_store
    store = open_store(db)
    keys = list(store.shoe_info())
    t = time.perf_counter()
    n = sum(len(v) for v in store.load_shoe_events(keys).values())
    store.close()
secs = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"secs": secs, "rows": n, "rss": rss}))
"""


def _run(mode: str, src: Path, workdir: Path) -> dict[str, float]:
    db = workdir / f"{'ingest' if mode == 'load' else mode}.duckdb"  # validate writes none
    for p in (db, Path(f"{db}.wal"), Path(f"{db}.ledger")):
        if p.exists() and mode != "load":
            p.unlink()
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, mode, str(src), str(db)],
        check=True,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000, help="events in the file")
    ap.add_argument("--runs", type=int, default=3, help="runs of each (the median is reported)")
    ap.add_argument("--workdir", type=Path, default=None, help="where the file and databases go")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--files", type=int, default=1, help="cut the events into this many files")
    ap.add_argument(
        "--validate", action="store_true", help="also time `validate` (the checks, nothing stored)"
    )
    ap.add_argument(
        "--memory-check",
        action="store_true",
        help="also ingest the first quarter of the file and compare peak RSS",
    )
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        work = Path(tmp)
        src = work / "events.jsonl"
        t = time.perf_counter()
        n = write_synthetic(src, args.events, seed=args.seed)
        size = src.stat().st_size / 1e6
        print(f"wrote {n:,} events ({size:.0f} MB) in {time.perf_counter() - t:.1f}s")
        whole = src
        if args.files > 1:
            src = _cut(whole, work / "logs", args.files, n)
            print(f"cut into {args.files} files of ~{n // args.files:,} events in {src}")
        base: list[dict[str, float]] = []
        ours: list[dict[str, float]] = []
        for _ in range(args.runs):  # interleaved, so machine noise hits both alike
            base.append(_run("baseline", src, work))
            ours.append(_run("ingest", src, work))
        b = statistics.median(r["secs"] for r in base)
        o = statistics.median(r["secs"] for r in ours)
        print(f"events:               {n:,}")
        runs_b = ", ".join(f"{r['secs']:.2f}" for r in base)
        runs_o = ", ".join(f"{r['secs']:.2f}" for r in ours)
        print(f"duckdb read_json:     {b:.2f} s  (runs: {runs_b})")
        print(f"shoe-audit ingest:    {o:.2f} s  (runs: {runs_o})")
        print(f"ratio:                {o / b:.2f}  (target <= 2.0)")
        if args.validate:
            v = statistics.median(_run("validate", src, work)["secs"] for _ in range(args.runs))
            print(
                f"shoe-audit validate:  {v:.2f} s  (ratio {v / b:.2f}: read, split and check, "
                "nothing stored)"
            )
        print(f"peak RSS read_json:   {max(r['rss'] for r in base) / 2**20:.0f} MiB")
        print(f"peak RSS ingest:      {max(r['rss'] for r in ours) / 2**20:.0f} MiB")
        assert all(r["rows"] == n for r in ours), "ingest did not store every event"
        load = _run("load", src, work)
        print(
            f"load_shoe_events:     {load['rows']:,.0f} events in {load['secs']:.2f} s "
            f"({load['rows'] / load['secs']:,.0f} events/s)"
        )
        if args.memory_check:
            quarter = work / "quarter.jsonl"
            with whole.open("rb") as f, quarter.open("wb") as out:
                for i, line in enumerate(f):
                    if i >= n // 4:
                        break
                    out.write(line)
            small = _run("ingest", quarter, work)
            print(
                f"peak RSS ingest of {small['rows']:,.0f} events: {small['rss'] / 2**20:.0f} MiB, "
                f"of {n:,} events: {max(r['rss'] for r in ours) / 2**20:.0f} MiB "
                "(DuckDB memory_limit: SHOE_AUDIT_MEMORY, default 1GB)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
