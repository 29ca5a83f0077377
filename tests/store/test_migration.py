"""A database written by an older shoe-audit is migrated in place, once, on open."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from audit.errors import StoreError
from audit.store import open_store
from audit.store.fields import GAMES_COLUMNS
from audit.store.schema import SCHEMA_VERSION, V12_EVENT_COLUMNS

V12_ONLY = (
    "ALTER TABLE wagers DROP COLUMN line; ALTER TABLE wagers DROP COLUMN ratio;\n"
    "UPDATE meta SET value = '11' WHERE key = 'schema_version';\n"
)
"""What schema 12 (a side bet's line and ratio beside its due) added, undone."""
V11_ONLY = (
    V12_ONLY
    + "".join(f'ALTER TABLE events DROP COLUMN "{c}";\n' for c in GAMES_COLUMNS)
    + "UPDATE meta SET value = '10' WHERE key = 'schema_version';\n"
)
"""What schemas 12 and 11 (TEL/1 v1.2's side bets, games.md §2) added, undone."""

V9_ONLY = (
    V11_ONLY
    + "".join(f'ALTER TABLE events DROP COLUMN "{c}";\n' for c in V12_EVENT_COLUMNS)
    + """
ALTER TABLE events ALTER COLUMN shoe SET NOT NULL;
ALTER TABLE log_findings DROP COLUMN stream;
DROP TABLE day_cuts; DROP TABLE stream_marks;
DROP TABLE periods; DROP TABLE period_records; DROP TABLE books_findings;
UPDATE meta SET value = '8' WHERE key = 'schema_version';
"""
)
"""What schemas 11 (side bets, games.md §2), 10 (TEL/1 v1.2's book events) and 9 (the
reconciled periods) added (issue 31), undone: a database as schema 8 left it."""

V4_ONLY = (
    V9_ONLY
    + """
DROP TABLE shoe_failures;
ALTER TABLE shoe_audits DROP COLUMN prefix_ranks;
ALTER TABLE shoe_audits DROP COLUMN context_first_shoe;
ALTER TABLE shoe_audits DROP COLUMN context_banker;
ALTER TABLE shoe_audits DROP COLUMN context_banker_rounds;
DROP TABLE parquet_files;
ALTER TABLE events DROP COLUMN ingest_id;
ALTER TABLE quarantine DROP COLUMN ingest_id;
DROP TABLE ledger; DROP TABLE file_shoes; DROP TABLE unread_inputs; DROP TABLE integrity_findings;
ALTER TABLE shoe_audits ALTER handle TYPE DECIMAL(18,2);
ALTER TABLE findings ALTER impact TYPE DECIMAL(18,4);
ALTER TABLE log_findings ALTER impact TYPE DECIMAL(18,4);
ALTER TABLE rounds ALTER handle TYPE DECIMAL(18,2);
ALTER TABLE rounds ALTER due TYPE DECIMAL(18,4);
ALTER TABLE rounds ALTER settled TYPE DECIMAL(18,2);
ALTER TABLE rounds ALTER impact TYPE DECIMAL(18,4);
ALTER TABLE wagers ALTER due TYPE DECIMAL(18,4);
ALTER TABLE wagers ALTER settled TYPE DECIMAL(18,2);
UPDATE meta SET value = '3' WHERE key = 'schema_version';
"""
)
"""What schemas 9 (the books), 8 (failed shoes), 7 (stored shoe prefixes), 5 (issue 13)
and 4 (issue 14) added, undone: a database as schema 3 left it."""


def make_v8(path: Path) -> None:
    open_store(path).close()
    con = duckdb.connect(str(path))
    con.execute(V9_ONLY)
    con.close()


def make_v3(path: Path) -> None:
    open_store(path).close()
    con = duckdb.connect(str(path))
    con.execute(V4_ONLY)
    con.close()


def make_v2(path: Path) -> None:
    make_v3(path)
    con = duckdb.connect(str(path))
    # undo version 3 (outcomes, finding ids)
    con.execute("DROP TABLE rounds")
    con.execute("DROP TABLE wagers")
    for table in ("findings", "log_findings"):
        con.execute(f"ALTER TABLE {table} DROP COLUMN id")
        con.execute(f"ALTER TABLE {table} ALTER impact TYPE DECIMAL(18,2)")
    con.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    con.close()


def make_v1(path: Path) -> None:
    make_v2(path)
    con = duckdb.connect(str(path))
    con.execute("ALTER TABLE shoe_audits DROP COLUMN wagers")
    con.execute("ALTER TABLE shoe_audits DROP COLUMN handle")
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.close()


def test_version_1_database_gains_wagers_and_handle(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    make_v1(db)
    with open_store(db) as store:
        cols = {
            c
            for (c,) in store.con.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_name = 'shoe_audits'"
            ).fetchall()
        }
        version = store.con.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'"
        ).fetchone()
    assert {"wagers", "handle"} <= cols
    assert version == (str(SCHEMA_VERSION),)
    with open_store(db) as store:
        tables = {
            t for (t,) in store.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        }
    assert {
        "rounds",
        "wagers",
        "parquet_files",
        "shoe_failures",
        "periods",
        "period_records",
        "books_findings",
    } <= tables


def test_read_only_open_of_an_old_database_asks_for_a_migration(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    make_v1(db)
    with pytest.raises(StoreError, match="needs a migration"):
        open_store(db, read_only=True)


def test_a_version_6_database_gains_the_stored_prefixes_and_run_fills_them(
    tmp_path: Path,
) -> None:
    """Schema 7: ``shoe_audits.prefix_ranks``, NULL for the shoes audited before (the
    statistics compute those from the events) until ``run --all`` re-audits them."""
    from audit.batch import run_audit
    from audit.ingest import ingest_paths
    from audit.profiles import load_registry
    from audit.simulate import simulate

    simulate(tmp_path / "logs", tables=2, shoes=1, rounds=6, profiles=["it-casino-6d"], seed=5)
    db = tmp_path / "old.duckdb"
    with open_store(db) as store:
        ingest_paths(store, [tmp_path / "logs"])
        run_audit(store, load_registry(), workers=1)
    con = duckdb.connect(str(db))
    con.execute(V9_ONLY)
    for column in ("prefix_ranks", "context_first_shoe", "context_banker", "context_banker_rounds"):
        con.execute(f"ALTER TABLE shoe_audits DROP COLUMN {column}")
    con.execute("DROP TABLE shoe_failures")
    con.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    con.close()

    def prefixes(store: object) -> list[object]:
        rows = store.con.execute(  # type: ignore[attr-defined]
            "SELECT prefix_ranks FROM shoe_audits ORDER BY shoe"
        ).fetchall()
        return [r[0] for r in rows]

    with open_store(db) as store:
        before = prefixes(store)
        run_audit(store, load_registry(), all_shoes=True, workers=1)
        after = prefixes(store)
    assert before and before == [None] * len(before)
    assert len(after) == len(before) and all(len(p) == 10 and sum(p) > 0 for p in after)


BOOKS_LINES = """\
{"id":"T07-O","seq":1,"ts":"2026-11-28T19:55:00+01:00","table":"T07","type":"inventory","kind":"opener","chips":[{"denomination":5,"count":200}],"signers":[{"id":"D042","role":"dealer"},{"id":"S-118","role":"supervisor"}]}
{"id":"CAGE-1","seq":77121,"ts":"2026-11-28T21:28:40+01:00","stream":"CAGE","table":"T07","type":"fill","side":"cage","slip":88412,"chips":[{"denomination":25,"count":40}],"signers":[{"id":"C-311","role":"cashier"}]}
"""


def test_a_version_8_database_with_v11_events_verifies_unchanged_and_takes_the_books(
    tmp_path: Path,
) -> None:
    """Schema 9 (TEL/1 v1.2): a database of v1.1 events gains the books' columns, NULL on
    every stored event, whose typed fingerprints (the ledger's, recorded before) still
    hold: ``verify`` finds it intact; then v1.2 lines go in beside them."""
    from audit.ingest import ingest_paths
    from audit.integrity.verify import verify
    from audit.simulate import simulate

    simulate(tmp_path / "logs", tables=1, shoes=1, rounds=4, profiles=["it-casino-6d"], seed=3)
    db = tmp_path / "old.duckdb"
    with open_store(db) as store:
        ingest_paths(store, [tmp_path / "logs"])
    con = duckdb.connect(str(db))
    con.execute(V9_ONLY)
    con.close()
    with open_store(db) as store:
        assert store.meta("schema_version") == str(SCHEMA_VERSION)
        nulls = store.con.execute(
            "SELECT count(*) FROM events WHERE stream IS NULL AND chips IS NULL"
        ).fetchall()[0][0]
        assert nulls == store.con.execute("SELECT count(*) FROM events").fetchall()[0][0] > 0
        assert verify(store).differences == []
        books = tmp_path / "books.jsonl"
        books.write_text(BOOKS_LINES, encoding="utf-8")
        summary = ingest_paths(store, [books])
        assert summary.files[0].new == 2 and summary.files[0].rejected == 0
        assert verify(store).differences == []


def test_a_version_8_database_gains_the_peeks_column_and_its_evidence_holds(
    tmp_path: Path,
) -> None:
    """Schema 9 (TEL/1 v1.2, games.md §2): ``events.blackjack``, a peek's announcement. The
    ledger's typed fingerprint hashes a column added after ledger version 1 only where it
    holds a value, so the events stored before keep theirs: the next ``run`` finds nothing
    changed (no LOG_TAMPERED) and ``verify`` finds the evidence intact."""
    from audit.batch import run_audit
    from audit.ingest import ingest_paths
    from audit.profiles import load_registry
    from audit.simulate import simulate
    from audit.store.ledger import TYPED_SUM
    from tests.cli.helpers import cli

    logs = tmp_path / "logs"
    simulate(logs, tables=2, shoes=1, rounds=6, profiles=["it-casino-6d"], seed=5)
    db = tmp_path / "old.duckdb"
    with open_store(db) as store:
        ingest_paths(store, [logs])
        run_audit(store, load_registry(), workers=1)
    con = duckdb.connect(str(db))
    con.execute(V9_ONLY)  # schemas 9 and 10 undone: blackjack with the books' columns
    con.close()
    with open_store(db) as store:
        assert store.con.execute(
            "SELECT count(*) FROM events WHERE blackjack IS NOT NULL"
        ).fetchone() == (0,)
        # the fingerprint a version 8 database's ingest records hold (ledger version 1: the
        # 40 typed columns of then, hashed together), written out here as it was
        v8 = (
            'sum(hash("id", "table_id", "shoe", "round", "seq", "ts", "ts_local", '
            '"utc_offset_min", "type", "known_type", "profile", "decks", "dealer", "currency", '
            '"min_bet", "max_bet", "ok", "method", "order", "by", "box", "position", "cards", '
            '"count", "face_down", "pos", "remaining", "reason", "spot", "amount", "player", '
            '"card", "to", "hand", "face_up", "action", "spots", "accepted", "kind", '
            '"has_extra")::HUGEINT)'
        )
        assert store.con.execute(f"SELECT {v8} = {TYPED_SUM} FROM events").fetchone() == (True,)
    ran = cli("run", "--db", str(db))
    assert ran.exit_code == 0, ran.output
    found = cli("findings", "--db", str(db), "--code", "LOG_TAMPERED", "--format", "jsonl")
    assert found.exit_code == 0 and found.stdout == ""
    checked = cli("verify", "--db", str(db), str(logs))
    assert checked.exit_code == 0, checked.output


SIDE_BET_LINES = """\
{"id":"T12-1","seq":1,"ts":"2026-12-05T21:00:00-08:00","table":"T12","shoe":"T12-S","type":"shoe_open","profile":"it-casino-6d","decks":6,"dealer":"D7","min_bet":10,"max_bet":500,"side_limits":{"21plus3":{"min_bet":1,"max_bet":100},"buster":{}}}
{"id":"T12-2","seq":2,"ts":"2026-12-05T21:00:01-08:00","table":"T12","shoe":"T12-S","round":1,"type":"round_open"}
{"id":"T12-3","seq":3,"ts":"2026-12-05T21:00:02-08:00","table":"T12","shoe":"T12-S","round":1,"type":"bet","box":2,"spot":0,"kind":"21plus3","amount":5}
{"id":"T12-4","seq":4,"ts":"2026-12-05T21:00:03-08:00","table":"T12","shoe":"T12-S","round":1,"type":"settle","box":2,"hand":0,"spot":0,"kind":"21plus3","amount":45}
"""


def test_a_version_10_database_takes_side_bets_and_its_v11_events_verify_unchanged(
    tmp_path: Path,
) -> None:
    """Schema 11 (TEL/1 v1.2, games.md §2): ``events.side_limits``. Every stored v1.1 event
    reads as before (its new column NULL, its typed fingerprint unchanged: ``verify`` finds
    it intact); then a shoe's side-bet limits and a side bet's bet and settle go in, typed,
    and read back as the models gave them."""
    from audit.ingest import ingest_paths
    from audit.integrity.verify import verify
    from audit.simulate import simulate

    simulate(tmp_path / "logs", tables=1, shoes=1, rounds=4, profiles=["it-casino-6d"], seed=3)
    db = tmp_path / "old.duckdb"
    with open_store(db) as store:
        ingest_paths(store, [tmp_path / "logs"])
    con = duckdb.connect(str(db))
    con.execute(V11_ONLY)
    con.close()
    with open_store(db) as store:
        assert store.meta("schema_version") == str(SCHEMA_VERSION) == "12"
        assert store.con.execute(
            "SELECT count(*) FROM events WHERE side_limits IS NOT NULL OR "
            "(type = 'bet' AND kind IS NOT NULL)"
        ).fetchone() == (0,)
        assert verify(store).differences == []
        lines = tmp_path / "side.jsonl"
        lines.write_text(SIDE_BET_LINES, encoding="utf-8")
        summary = ingest_paths(store, [lines])
        assert summary.files[0].new == 4 and summary.files[0].rejected == 0
        assert verify(store).differences == []
        rows = dict(
            store.con.execute(
                "SELECT id, CASE WHEN type = 'shoe_open' THEN CAST(side_limits AS VARCHAR) "
                "ELSE kind END FROM events WHERE table_id = 'T12' AND type <> 'round_open'"
            ).fetchall()
        )
    assert rows == {
        "T12-1": "[{'kind': 21plus3, 'min_bet': 1.00, 'max_bet': 100.00}, "
        "{'kind': buster, 'min_bet': NULL, 'max_bet': NULL}]",
        "T12-3": "21plus3",
        "T12-4": "21plus3",
    }
