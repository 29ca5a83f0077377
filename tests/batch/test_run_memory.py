"""``run``'s parent memory (issue 9: peak RSS < 1 GB, flat).

Every shoe's metadata was held from the start, in proportion to the night: it
is now read a table at a time. And when DuckDB runs out of memory, the user
reads that, in one line, not "Current transaction is aborted".
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from audit.batch.runner import TableMeta
from audit.errors import StoreError
from audit.store import Store, open_store


def test_metadata_is_held_for_one_table_at_a_time(ingested: Callable[[int], Store]) -> None:
    with ingested(2) as store:
        keys = sorted(store.shoe_info())
        meta = TableMeta(store, keys)
        tables = sorted({k.table for k in keys})
        assert len(tables) > 1
        for k in keys:
            got = meta.of(k)
            assert got.key == k and got.profile_id is not None and got.events_digest
            assert {x.table for x in meta._infos} == {k.table}


def test_duckdb_out_of_memory_is_one_line_saying_so(tmp_path: Path) -> None:
    with (
        open_store(tmp_path / "a.duckdb", memory_limit="20MB") as store,
        pytest.raises(StoreError) as err,
        store.transaction() as con,
    ):
        # list() of 20 million numbers cannot spill: DuckDB runs out of memory
        con.execute("SELECT list(range) FROM range(20000000)").fetchall()
    message = str(err.value)
    assert "\n" not in message
    assert "DuckDB ran out of memory" in message and "SHOE_AUDIT_MEMORY" in message
    assert "transaction is aborted" not in message.lower()
