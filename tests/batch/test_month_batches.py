"""Issue 33: run's batches are big enough that their fixed cost does not rule a month.

Each batch is one write transaction (its statements, a commit, a ledger record and
its fsyncs): on a month of small shoes, batches of 40,000 events spent most of run
writing. The figures are benchmarks/audit_bench.py's; this holds the batch size.
"""

from __future__ import annotations

from pathlib import Path

from audit.batch import run_audit
from audit.batch.runner import BATCH_EVENTS
from audit.ingest import ingest_paths
from audit.profiles import load_registry
from audit.simulate import simulate
from audit.store import open_store


def test_a_night_of_45000_events_is_one_batch_one_transaction_one_record(
    tmp_path: Path,
) -> None:
    simulate(tmp_path / "logs", tables=2, shoes=1, rounds=750, profiles=["it-casino-6d"], seed=4)
    with open_store(tmp_path / "audit.duckdb") as store:
        ingest_paths(store, [tmp_path / "logs"])
        events = store.con.execute("SELECT count(*) FROM events").fetchall()[0][0]
        assert 40_000 < events < BATCH_EVENTS  # two batches of the old size, one now
        records = "SELECT count(*) FROM ledger WHERE kind = 'audit'"
        before = store.con.execute(records).fetchall()[0][0]
        summary = run_audit(store, load_registry(), workers=1)
        assert store.con.execute(records).fetchall()[0][0] == before + 1
        assert summary.shoes == len(store.shoe_info()) and summary.rounds == 1500
