"""An audited night for the web and review tests, built once per session the way production
builds it (simulate + the hand-written hostile file, ingest, run); each test gets its own
copy, so the review file beside it starts empty."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reports.nights import build_night

DAY = "2026-11-28"


@pytest.fixture(scope="session")
def night_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_night(tmp_path_factory.mktemp("webnight"), tables=3, rounds=25)


@pytest.fixture
def db(night_db: Path, tmp_path: Path) -> Iterator[Path]:
    copy = tmp_path / "audit.duckdb"
    shutil.copy(night_db, copy)
    # The database's ledger file goes with it (issue 14): without it, run reports LOG_TAMPERED.
    ledger = night_db.with_name(night_db.name + ".ledger")
    if ledger.exists():
        shutil.copy(ledger, copy.with_name(copy.name + ".ledger"))
    yield copy
