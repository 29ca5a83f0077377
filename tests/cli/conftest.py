"""Fixtures of the CLI tests: the sample night ingested and audited once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import SAMPLE, cli


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample night, ingested and audited (read it; do not write to it)."""
    db = tmp_path_factory.mktemp("sample") / "audit.duckdb"
    for args in (["ingest", "--db", str(db), str(SAMPLE)], ["run", "--db", str(db)]):
        result = cli(*args)
        assert result.exit_code == 0, result.output
    return db
