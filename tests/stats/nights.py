"""Simulated nights in a real database: simulated, ingested and ``run`` (which stores the
``rounds`` and ``wagers`` the statistics read)."""

from __future__ import annotations

from pathlib import Path

from audit.batch import run_audit
from audit.ingest import ingest_paths
from audit.profiles import load_registry
from audit.store import open_store


def audited_db(logs: Path, db: Path, *, workers: int = 1) -> Path:
    """Ingest ``logs`` into a fresh ``db`` and ``run`` it."""
    with open_store(db) as store:
        ingest_paths(store, [logs])
        run_audit(store, load_registry(), workers=workers)
    return db
