"""DuckDB's memory limit as a store holds it, for the tests of each stage's limit
(ingest's, run's and the report's, issue 33)."""

from __future__ import annotations

import duckdb

from audit.store import Store


def held_limit(store: Store) -> str:
    """The memory limit the store's connection holds now, as DuckDB shows it."""
    return str(store.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])


def shown(limit: str) -> str:
    """How DuckDB shows the memory limit ``limit`` (``256MB`` is ``244.1 MiB``)."""
    with duckdb.connect() as con:
        con.execute("SET memory_limit = ?", [limit])
        return str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])
