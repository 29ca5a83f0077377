"""Simulated nights for the batch tests: two gaming days, all four profiles, injected errors."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from audit.ingest import ingest_paths
from audit.simulate import simulate
from audit.simulate.session import DEFAULT_START
from audit.store import Store, open_store

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]


@pytest.fixture(scope="session")
def two_nights(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two nights' log folders (4 tables each, one per profile, a fifth of rounds with an error).

    Each is the folder of TEL/1 files only (the simulator's manifest sits beside it).
    """
    root = tmp_path_factory.mktemp("two-nights")
    nights = []
    for day in range(2):
        out = root / f"night{day}"
        simulate(
            out,
            tables=4,
            shoes=1,
            rounds=40,
            profiles=PROFILES,
            seed=13 + day,
            error_rate=0.2,
            start=DEFAULT_START + dt.timedelta(days=day),
        )
        nights.extend(p for p in sorted(out.iterdir()) if p.is_dir())
    return nights


@pytest.fixture(scope="session")
def _ingested(two_nights: list[Path], tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Audit databases holding the first night, and both nights (ingested once per session)."""
    root = tmp_path_factory.mktemp("ingested")
    dbs = []
    for n in (1, 2):
        db = root / f"nights{n}.duckdb"
        with open_store(db) as store:
            assert ingest_paths(store, two_nights[:n]).rejected == 0
        dbs.append(db)
    return dbs


@pytest.fixture
def ingested(_ingested: list[Path], tmp_path: Path) -> Callable[[int], Store]:
    """``ingested(n)``: a fresh copy, in the test's folder, of the first n nights' database."""

    def copy(n: int) -> Store:
        db = tmp_path / "audit.duckdb"
        shutil.copyfile(_ingested[n - 1], db)
        # its ledger file goes with it (issue 14): without it, run reports LOG_TAMPERED
        ledger = _ingested[n - 1].with_name(_ingested[n - 1].name + ".ledger")
        if ledger.exists():
            shutil.copyfile(ledger, db.with_name(db.name + ".ledger"))
        return open_store(db)

    return copy
