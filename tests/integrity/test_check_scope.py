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
    (logs / "injected.jsonl").unlink(missing_ok=True)
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
