"""The cheap check of some shoes (issue 14, point 15) names those shoes and no other,
whether it filters its scans by their keys or, for half the database's shoes or more,
reads every shoe and keeps theirs (``audit.integrity.check._read_scope``)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.integrity.check import check_shoes
from audit.simulate import simulate
from audit.store import ShoeKey, open_store


@pytest.fixture(scope="module")
def tampered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[ShoeKey]]:
    """An audited night of four shoes; the first has an edited payout and audit row."""
    base = tmp_path_factory.mktemp("scope")
    logs = base / "logs"
    simulate(logs, tables=4, shoes=1, rounds=6, profiles=["it-casino-6d"], seed=5)
    (logs / "injected.ndjson").unlink(missing_ok=True)
    db = base / "audit.duckdb"
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", "--db", str(db), str(logs)]).exit_code == 0
    assert runner.invoke(app, ["run", "--db", str(db), "--workers", "1"]).exit_code == 0
    con = duckdb.connect(str(db))
    try:
        keys = [
            ShoeKey(t, s)
            for t, s in con.execute("SELECT table_id, shoe FROM shoes ORDER BY 1, 2").fetchall()
        ]
        first = keys[0]
        con.execute(
            """UPDATE events SET amount = amount + 1000 WHERE id = (
                 SELECT min(id) FROM events WHERE type = 'settle' AND amount > 0
                   AND table_id = ? AND shoe = ?)""",
            [first.table, first.shoe],
        )
        con.execute(
            "UPDATE shoe_audits SET rounds = rounds - 1 WHERE table_id = ? AND shoe = ?",
            [first.table, first.shoe],
        )
    finally:
        con.close()
    return db, keys


def _named(db: Path, keys: list[ShoeKey] | None) -> list[tuple[str, str | None, str | None]]:
    with open_store(str(db)) as store:
        return sorted((d.where, d.table, d.shoe) for d in check_shoes(store, keys))


def test_the_night_has_four_shoes(tampered: tuple[Path, list[ShoeKey]]) -> None:
    assert len(tampered[1]) == 4


@pytest.mark.parametrize("chosen", [[0], [0, 1, 2], [0, 1, 2, 3]], ids=["1-of-4", "3-of-4", "all"])
def test_a_tampered_shoe_among_those_checked_is_named(
    tampered: tuple[Path, list[ShoeKey]], chosen: list[int]
) -> None:
    db, keys = tampered
    first = keys[0]
    want = [("events", first.table, first.shoe), ("shoe_audits", first.table, first.shoe)]
    assert _named(db, [keys[i] for i in chosen]) == want
    assert _named(db, None) == want


@pytest.mark.parametrize("chosen", [[1], [1, 2, 3]], ids=["1-of-4", "3-of-4"])
def test_a_tampered_shoe_outside_those_checked_is_not(
    tampered: tuple[Path, list[ShoeKey]], chosen: list[int]
) -> None:
    db, keys = tampered
    assert _named(db, [keys[i] for i in chosen]) == []


def test_each_way_a_shoes_events_can_differ_from_their_ingest_is_named_in_order(
    tmp_path: Path,
) -> None:
    """The cheap check's four differences of events (compared in one join,
    ``ingest_differences``): a typed column edited, an event removed, events inserted
    (one by copying an ingested one, one that no ingest added), and all of a shoe's
    events removed, which comes last; the others in shoe order."""
    logs = tmp_path / "logs"
    simulate(logs, tables=4, shoes=1, rounds=6, profiles=["it-casino-6d"], seed=5)
    (logs / "injected.ndjson").unlink(missing_ok=True)
    db = tmp_path / "audit.duckdb"
    assert CliRunner().invoke(app, ["ingest", "--db", str(db), str(logs)]).exit_code == 0
    con = duckdb.connect(str(db))
    try:
        keys = [
            ShoeKey(t, s)
            for t, s in con.execute("SELECT table_id, shoe FROM shoes ORDER BY 1, 2").fetchall()
        ]
        was = {
            t: (i, n)
            for t, i, n in con.execute(
                "SELECT table_id, min(ingest_id), count(*) FROM events GROUP BY 1"
            ).fetchall()
        }
        one = "(SELECT min(id) FROM events WHERE type = 'settle' AND table_id = ?)"
        con.execute(f"UPDATE events SET amount = amount + 1000 WHERE id = {one}", [keys[0].table])
        con.execute(f"DELETE FROM events WHERE id = {one}", [keys[1].table])
        for change in ("seq + 100000 AS seq", "NULL AS ingest_id"):
            con.execute(
                f"""INSERT INTO events SELECT * REPLACE (id || '-forged-{len(change)}' AS id,
                      {change}) FROM events WHERE id = {one}""",
                [keys[2].table],
            )
        con.execute("DELETE FROM events WHERE table_id = ?", [keys[3].table])
    finally:
        con.close()
    with open_store(str(db)) as store:
        found = check_shoes(store, None, audits=False)
        some = check_shoes(store, keys[1:3], audits=False)
    t0, t1, t2, t3 = (k.table for k in keys)
    (i0, _), (i1, n1), (i2, n2), (i3, n3) = (was[t] for t in (t0, t1, t2, t3))
    assert [(d.table, d.message.split(": ")[0]) for d in found] == [
        (t0, f"typed columns of events of ingest {i0} changed since it "
             "(run `shoe-audit verify` to name them)"),
        (t1, f"1 event removed after ingest {i1} ({n1} recorded, {n1 - 1} stored)"),
        (t2, "1 event no ingest added (ingest_id None)"),  # no ingest sorts first
        (t2, f"1 event inserted after ingest {i2} ({n2} recorded, {n2 + 1} stored)"),
        (t3, f"all {n3} events ingest {i3} added were removed"),
    ]  # fmt: skip
    assert len(found[2].events) == 1 and "-forged-" in found[2].events[0]
    assert [d.table for d in some] == [t1, t2, t2]
