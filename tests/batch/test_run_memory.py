"""``run``'s parent stays small at any size of night (issue 9: peak RSS < 1 GB, flat).

Two things held the parent's memory in proportion to the night: DuckDB's one
sorted scan (up to its 1 GB limit) and every shoe's metadata held from the
start. The scan now runs under a lower limit (it spills past it) and the
metadata is read a table at a time. And when DuckDB does run out of memory,
the user reads that, in one line, not "Current transaction is aborted".
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from audit.batch.runner import RUN_MEMORY_LIMIT, ShoeMeta, TableMeta, run_audit
from audit.errors import StoreError
from audit.profiles import load_registry
from audit.store import Store, open_store


def _limit(store: Store) -> str:
    return str(store.con.execute("SELECT current_setting('memory_limit')").fetchone()[0])


def test_run_lowers_duckdbs_memory_limit_meanwhile_and_restores_it(
    ingested: Callable[[int], Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    real = TableMeta.of

    def spy(self: TableMeta, key: object) -> ShoeMeta:
        seen.append(_limit(self._store))
        return real(self, key)  # type: ignore[arg-type]

    monkeypatch.setattr(TableMeta, "of", spy)
    with ingested(1) as store:
        before = _limit(store)
        assert run_audit(store, load_registry(), workers=1).shoes > 0
        assert _limit(store) == before
    con = duckdb.connect()
    con.execute("SET memory_limit = ?", [RUN_MEMORY_LIMIT])
    lean = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    assert lean != before and seen and set(seen) == {lean}, (seen, before)


def test_a_memory_limit_the_user_chose_is_kept(tmp_path: Path) -> None:
    with open_store(tmp_path / "a.duckdb", memory_limit="2GB") as store:
        chosen = _limit(store)
        with store.lean_memory("100MB"):
            assert _limit(store) == chosen
    with open_store(tmp_path / "b.duckdb") as store:
        default = _limit(store)
        with store.lean_memory("100MB"):
            assert _limit(store) != default
        assert _limit(store) == default


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
