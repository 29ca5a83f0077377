"""`export --parquet` with a table's books (TEL/1 v1.2; accounting.md "Command line").

The book events (inventory, fill, credit, slip_void, buy_in, drop_count, adjustment)
belong to no shoe; they are exported too, each into the partition of its gaming day (a
count's or an adjustment's own ``gaming_day``, any other's its table-local time less the
day start) and table. A book event arriving later makes its partition stale, so the next
export rewrites it (and only it), and ``run --source`` still replays only the shoes.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from audit.batch import run_audit
from audit.batch.runner import LocalProcesses
from audit.ingest import ingest_paths
from audit.profiles import load_registry
from audit.simulate import simulate
from audit.store import Store, open_store
from audit.store.books import BOOK_TYPES
from audit.store.parquet import export_parquet, partition_digests, recorded_partitions

DAY1 = "2026-11-28"


@pytest.fixture(scope="module")
def books_night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``simulate --books`` night over two gaming days: its day folders of table, cage
    and count streams."""
    night = tmp_path_factory.mktemp("books") / "night"
    simulate(night, tables=2, shoes=2, profiles=["it-casino-6d"], seed=5, days=2, books=True)
    return night


def _files(night: Path) -> list[Path]:
    return sorted(p for p in night.rglob("*.jsonl"))


def _exported(out: Path) -> list[tuple[str, str, str, str | None, str]]:
    """Every exported row: (partition day, partition table, id, shoe, type)."""
    rows = []
    for f in sorted(out.rglob("*.parquet")):
        day, table = (x.split("=", 1)[1] for x in f.relative_to(out).parts[:2])
        data = pq.read_table(f, columns=["id", "shoe", "type"]).to_pylist()
        rows.extend((day, table, r["id"], r["shoe"], r["type"]) for r in data)
    return rows


def _findings(store: Store) -> Counter[str]:
    return Counter(f.to_json() for f in store.all_findings())


def test_book_events_are_exported_into_their_own_gaming_days_partition(
    tmp_path: Path, books_night: Path
) -> None:
    out = tmp_path / "export"
    with open_store(tmp_path / "a.duckdb") as store:
        ingest_paths(store, _files(books_night))
        summary = export_parquet(store, out)
        books = store.con.execute(
            """SELECT id, table_id, type, gaming_day, ts_local FROM events
               WHERE shoe IS NULL AND type IN (SELECT unnest(?))""",
            [list(BOOK_TYPES)],
        ).fetchall()
        total = store.con.execute("SELECT count(*) FROM events").fetchone()
        records = store.con.execute("SELECT path, rows FROM parquet_files").fetchall()
    assert {t for _, _, t, _, _ in books} >= {"inventory", "fill", "buy_in", "drop_count"}
    rows = _exported(out)
    assert total is not None and len(rows) == total[0] == summary.events  # every event, once
    assert sum(n for _, n in records) == len(rows)
    where = {i: (d, t) for d, t, i, s, _ in rows if s is None}
    for event_id, table, kind, own_day, ts_local in books:
        day = (
            own_day
            if kind in ("drop_count", "adjustment")
            else (ts_local - dt.timedelta(hours=6)).date()
        )
        assert where[event_id] == (day.isoformat(), table), (event_id, kind)
    # a count is made the next morning: its own gaming day, not its timestamp's
    counts = [(i, d) for i, _, k, d, ts in books if k == "drop_count" and ts.date() > d]
    assert counts and all(where[i][0] == d.isoformat() for i, d in counts)


def test_a_book_event_arriving_later_makes_its_partition_stale_and_only_it_is_rewritten(
    tmp_path: Path, books_night: Path
) -> None:
    count_day1 = books_night / DAY1 / "COUNT.jsonl"
    out = tmp_path / "export"
    with open_store(tmp_path / "a.duckdb") as store:
        ingest_paths(store, [f for f in _files(books_night) if f != count_day1])
        export_parquet(store, out)
        before = {p: r.shoes_digest for p, r in recorded_partitions(store).items()}
        assert ingest_paths(store, [count_day1]).new == 2  # the first day's two counts
        now = {p: d for p, (d, _) in partition_digests(store).items()}
        changed = {p for p in now if now[p] != before.get(p)}
        assert {(d.isoformat(), t) for d, t in changed} == {(DAY1, "T01"), (DAY1, "T02")}
        with pytest.raises(Exception, match="older than the database for 2 partitions"):
            run_audit(store, load_registry(), all_shoes=True, source=str(out))
        again = export_parquet(store, out)
        recorded = recorded_partitions(store)
    assert (again.written, again.unchanged) == (2, 2)
    assert {p: r.shoes_digest for p, r in recorded.items()} == now
    drops = [(d, t) for d, t, _, _, k in _exported(out) if k == "drop_count"]
    assert sorted(drops).count((DAY1, "T01")) == 1 and (DAY1, "T02") in drops


def test_run_from_a_books_export_replays_only_the_shoes(tmp_path: Path, books_night: Path) -> None:
    registry = load_registry()
    out = tmp_path / "export"
    with open_store(tmp_path / "a.duckdb") as store:
        ingest_paths(store, _files(books_night))
        local = run_audit(store, registry, workers=1)
        expected = _findings(store)
        export_parquet(store, out)
        assert any(s is None for *_, s, _ in _exported(out))  # the files do hold book events
        sourced = run_audit(
            store, registry, all_shoes=True, executor=LocalProcesses(1), source=str(out)
        )
        assert (sourced.shoes, sourced.rounds, sourced.findings) == (
            local.shoes,
            local.rounds,
            local.findings,
        )
        assert _findings(store) == expected


def test_a_log_without_books_keeps_the_partition_digests_it_had(
    ingested: Callable[[int], Store],
) -> None:
    """Without book events (a TEL/1 v1.1 log) a partition's digest is its shoes' alone, as
    before v1.2: an export made then is not stale now, nor rewritten."""
    with ingested(2) as store:
        ours = partition_digests(store)
        shoes_only = store.con.execute(
            """SELECT gaming_day, table_id,
                      sha256(string_agg(shoe || chr(31) || events_digest, chr(30) ORDER BY shoe))
               FROM shoes GROUP BY ALL"""
        ).fetchall()
    assert len(ours) == 8
    assert {p: d for p, (d, _) in ours.items()} == {(d, t): x for d, t, x in shoes_only}
