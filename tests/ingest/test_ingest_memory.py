"""``ingest``'s memory (issue 33: under 1 GiB peak RSS and flat from 100,000 to 1,000,000
rounds).

DuckDB keeps every block it reads cached up to its limit, and a batch's probe for ids
stored before reads every stored event's ``id``: at ingest's old 1GB the cache grew with
the database. Ingest now holds DuckDB to ``INGEST_MEMORY_LIMIT`` unless one was chosen,
and stores exactly what it stored at 1GB. The figures live in benchmarks/README.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.ingest import ingest_paths
from audit.ingest.reader import Batch
from audit.store import open_store
from audit.store.store import INGEST_MEMORY_LIMIT
from tests.ingest.helpers import dumps, shoe_events, write_events, write_lines
from tests.memory_limits import held_limit, shown


def _night(folder: Path) -> Path:
    """Two tables' shoes, a duplicate, an id conflict and a malformed line."""
    folder.mkdir()
    t07 = shoe_events(rounds=3)
    write_events(folder / "T07.jsonl", t07)
    conflict = {**t07[5], "seq": 999}  # t07[5]'s id, another event: LOG_ID_CONFLICT
    t08 = [dumps(e) for e in shoe_events(table="T08", rounds=2)]
    write_lines(folder / "T08.jsonl", [*t08, dumps(t07[2]), dumps(conflict), '{"id": "broken"'])
    return folder


_CONTENT = [
    "SELECT * EXCLUDE (file_id, ingest_id) FROM events ORDER BY id",
    "SELECT * EXCLUDE (file_id) FROM quarantine ORDER BY ALL",
    "SELECT code, table_id, shoe, message FROM log_findings ORDER BY ALL",
    "SELECT * FROM shoes ORDER BY table_id, shoe",
]


@pytest.mark.parametrize("chosen", [None, "2GB"], ids=["default", "SHOE_AUDIT_MEMORY"])
def test_ingest_holds_duckdb_to_its_own_limit_unless_one_was_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chosen: str | None
) -> None:
    """Every batch is stored under INGEST_MEMORY_LIMIT (not the 1GB the store opens with),
    the limit is given back after, and the writes are checkpointed inside it."""
    if chosen is None:
        monkeypatch.delenv("SHOE_AUDIT_MEMORY", raising=False)
    else:
        monkeypatch.setenv("SHOE_AUDIT_MEMORY", chosen)
    logs = _night(tmp_path / "logs")
    db = tmp_path / "a.duckdb"
    with open_store(db) as store:
        before = held_limit(store)
        during: list[str] = []

        def seen(path: Path, batch: Batch) -> None:
            during.append(held_limit(store))

        summary = ingest_paths(store, [logs], on_batch=seen)
        assert summary.new > 0 and len(during) == 2
        assert set(during) == {shown(INGEST_MEMORY_LIMIT) if chosen is None else before}
        assert held_limit(store) == before
        wal = Path(f"{db}.wal")
        assert not wal.exists() or wal.stat().st_size == 0  # checkpointed by ingest
    assert before == shown(chosen or "1GB")


def test_ingest_under_its_limit_stores_what_it_stored_at_1gb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same events, quarantined lines, findings and shoes, row for row, whichever
    limit DuckDB ran under: the limit bounds its cache, never what is stored."""
    logs = _night(tmp_path / "logs")
    rows = []
    for name, chosen in (("held", None), ("1gb", "1GB")):
        if chosen is None:
            monkeypatch.delenv("SHOE_AUDIT_MEMORY", raising=False)
        else:
            monkeypatch.setenv("SHOE_AUDIT_MEMORY", chosen)
        with open_store(tmp_path / f"{name}.duckdb") as store:
            ingest_paths(store, [logs])
            rows.append([store.con.execute(sql).fetchall() for sql in _CONTENT])
    held, at_1gb = rows
    assert held == at_1gb
    assert held[0] and len(held[1]) == 2  # the events; the conflict and the broken line
