"""How fast ``serve`` answers on a 1,000,000-round night with 10,000 findings (issue 12).

Building a real 1M-round database (simulate, ingest, run) takes long, so the night is
**fabricated by SQL from a smaller real one**: a simulated 20-table night is simulated,
ingested and audited for real (``--base-rounds``), then its shoes are copied under new
shoe ids (``<shoe>~<k>``) until the night has ``--rounds`` rounds: every table the
pages read is copied (``events``, ``shoes``, ``shoe_audits``, ``rounds``, ``wagers``,
``findings``, the findings' stable ids recomputed with the store's own SQL), and the
findings are cut to ``--findings``. So the list and the hand page read tables of the
full size (the events too), and a hand page replays a real shoe through the engine.

Measured through a real uvicorn server and HTTP (``serve`` as it runs: the database
opened per request, read-only), median of ``--repeat`` requests after one warm-up:

  open+close  opening and closing the database alone (the price of holding no
              connection between requests): the baseline
  /login      a page that reads no database (the web stack alone)
  list        the findings list's first page (the night's gaming day, sorted by money)
  list (all)  the first page with no filter
  hand        the hand page of a flagged round (a replay of its shoe with the step trace);
              the first one of a table after the database changed also reads the table's
              cross-shoe outline (kept until the next change), and is timed apart

Targets: the list's first page under 200 ms, a hand page under 300 ms. Usage:

    .venv/bin/python benchmarks/web_bench.py --rounds 1000000 --findings 10000
"""

from __future__ import annotations

import argparse
import http.client
import math
import shutil
import statistics
import time
from pathlib import Path

from audit.batch import run_audit
from audit.ingest import ingest_paths
from audit.profiles import load_registry
from audit.simulate import simulate
from audit.store import open_store
from audit.store.schema import FINDING_ID_SQL
from audit.web.app import ServeConfig, create_app
from audit.web.server import in_background

OUT = Path(__file__).resolve().parent / "out" / "web"
PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]


def base_night(rounds: int, error_rate: float) -> Path:
    """A real simulated 20-table night, audited (cached in benchmarks/out/web/)."""
    db = OUT / f"base-{rounds}-{error_rate}.duckdb"
    if db.exists():
        return db
    OUT.mkdir(parents=True, exist_ok=True)
    logs = OUT / f"logs-{rounds}"
    shutil.rmtree(logs, ignore_errors=True)
    t = time.perf_counter()
    simulate(
        logs,
        tables=20,
        # shoes average some 15-20 rounds over the four profiles (ventuno deals one)
        shoes=max(1, math.ceil(rounds / 20 / 14)),
        profiles=PROFILES,
        seed=12,
        error_rate=error_rate,
        # plain tables only: the corpus every earlier figure was measured on (issue 28)
        rich_share=0.0,
    )
    tmp = db.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    with open_store(tmp) as store:
        ingest_paths(store, [logs])
        run_audit(store, load_registry())
    tmp.rename(db)
    print(f"built the base night in {time.perf_counter() - t:.0f} s")
    return db


_ID = FINDING_ID_SQL.format(
    code="code",
    table_id="table_id",
    shoe="shoe",
    round="round",
    box="box",
    hand="hand",
    spot="spot",
    source="source",
    occurrence="ordinal",
)


_SEQS = ", first_seq + k * 10000000 AS first_seq, last_seq + k * 10000000 AS last_seq"
"""A copy's events come after the original's in ``seq`` (each table's order stays whole)."""


def fabricate(base: Path, rounds: int, findings: int) -> Path:
    """Copy the base night's shoes until it has ``rounds`` rounds; keep ``findings``."""
    db = OUT / f"night-{rounds}-{findings}.duckdb"
    if db.exists():
        return db
    t = time.perf_counter()
    tmp = db.with_suffix(".tmp")
    shutil.copy(base, tmp)
    with open_store(tmp) as store:
        con = store.con
        (have,) = con.execute("SELECT count(*) FROM rounds").fetchone()
        copies = math.ceil(rounds / have)
        con.execute(f"CREATE TEMP TABLE k AS SELECT range AS k FROM range(1, {copies})")
        new_shoe = "shoe || '~' || k"
        for table, extra in (
            ("events", ", id || '~' || k AS id, seq + k * 10000000 AS seq"),
            ("shoes", _SEQS),
            ("shoe_audits", ""),
            ("rounds", _SEQS),
            ("wagers", ""),
        ):
            con.execute(
                f"INSERT INTO {table} SELECT {table}.* REPLACE ({new_shoe} AS shoe{extra}) "
                f"FROM {table}, k"
            )
        con.execute(
            f"""INSERT INTO findings SELECT findings.* REPLACE ({new_shoe} AS shoe,
                   list_transform(events, lambda e: e || '~' || k) AS events) FROM findings, k"""
        )
        con.execute(f"UPDATE findings SET id = {_ID}")
        # exactly `rounds` rounds and `findings` findings: drop the surplus copies' rows
        con.execute(
            f"""DELETE FROM rounds WHERE (table_id, shoe, round) IN (
                  SELECT table_id, shoe, round FROM rounds ORDER BY shoe DESC, table_id, round
                  LIMIT (SELECT greatest(count(*) - {rounds}, 0) FROM rounds))"""
        )
        con.execute(
            f"""DELETE FROM findings WHERE id IN (
                  SELECT id FROM findings ORDER BY shoe DESC, id
                  LIMIT (SELECT greatest(count(*) - {findings}, 0) FROM findings))"""
        )
        con.execute("CHECKPOINT")
        n_rounds, n_findings, n_events = con.execute(
            "SELECT (SELECT count(*) FROM rounds), (SELECT count(*) FROM findings), "
            "(SELECT count(*) FROM events)"
        ).fetchone()
    tmp.rename(db)
    print(
        f"fabricated {n_rounds:,} rounds, {n_findings:,} findings, {n_events:,} events "
        f"({copies} copies of the base night) in {time.perf_counter() - t:.0f} s"
    )
    return db


def timed_get(port: int, path: str) -> float:
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    t = time.perf_counter()
    con.request("GET", path, headers={"Host": f"127.0.0.1:{port}"})
    resp = con.getresponse()
    body = resp.read()
    elapsed = time.perf_counter() - t
    con.close()
    if resp.status != 200:
        raise SystemExit(f"GET {path}: {resp.status}\n{body[-600:].decode(errors='replace')}")
    return elapsed


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:7.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1_000_000)
    ap.add_argument("--findings", type=int, default=10_000)
    ap.add_argument("--base-rounds", type=int, default=20_000)
    ap.add_argument(
        "--error-rate", type=float, default=0.03, help="enough findings to keep --findings"
    )
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()

    db = fabricate(base_night(args.base_rounds, args.error_rate), args.rounds, args.findings)
    with open_store(db, read_only=True) as s:
        (day,) = s.con.execute("SELECT max(gaming_day) FROM shoes").fetchone()
        table, shoe, rnd = s.con.execute(
            """SELECT table_id, shoe, round FROM rounds WHERE findings > 0 AND shoe LIKE '%~%'
               ORDER BY shoe, round LIMIT 1 OFFSET 100"""
        ).fetchone()
    from urllib.parse import quote

    hand = f"/hands/{quote(table, safe='')}/{quote(shoe, safe='')}/{rnd}"
    app = create_app(ServeConfig(db=db))

    def open_close() -> float:
        t = time.perf_counter()
        open_store(db, read_only=True).close()
        return time.perf_counter() - t

    with in_background(app) as port:
        cases = {
            "open+close": open_close,
            "/login": lambda: timed_get(port, "/login"),
            "list": lambda: timed_get(port, f"/findings?day={day}"),
            "list (all)": lambda: timed_get(port, "/findings"),
            "hand": lambda: timed_get(port, hand),
        }
        results: dict[str, list[float]] = {k: [] for k in cases}
        # the first hand page of a table after a nightly reads the table's cross-shoe
        # outline (kept until the database changes): timed once, apart
        cold = cases["hand"]()
        for fn in cases.values():
            fn()  # warm-up: the OS cache, the templates
        for _ in range(args.repeat):
            for name, fn in cases.items():
                results[name].append(fn())
    base = statistics.median(results["open+close"])
    print(f"night: {args.rounds:,} rounds, {args.findings:,} findings, gaming day {day}")
    for name, samples in results.items():
        print(
            f"{name:<11} {median_ms(samples)}   "
            f"({statistics.median(samples) / base:4.1f}x open+close)"
        )
    print(f"hand, the table's first after a change (once): {cold * 1000:.0f} ms")
    lst, hnd = statistics.median(results["list"]) * 1000, statistics.median(results["hand"]) * 1000
    print(
        f"targets: list first page {lst:.0f} ms (< 200: {'met' if lst < 200 else 'NOT met'}), "
        f"hand page {hnd:.0f} ms (< 300: {'met' if hnd < 300 else 'NOT met'}); hand = {hand}"
    )


if __name__ == "__main__":
    main()
