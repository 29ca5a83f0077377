"""Shared fixtures: a CLI runner and paths into the repo."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.store import Store, open_store

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh audit database in the test's own folder."""
    s = open_store(tmp_path / "audit.duckdb")
    try:
        yield s
    finally:
        s.close()
