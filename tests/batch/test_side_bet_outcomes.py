"""A side bet's verdict is stored beside its due (games.md §1; issue 32, point 6's pages).

games.md §2's T12 round (the US game, a 21+3 bet beside box 2's stake), ingested into a
real DuckDB file and audited by the CLI under the engine tests' profile folder: the one
finding the text explains, and the ``wagers`` row of the 21+3 bet carrying the line its
cards won and the ratio it pays, as the engine judged them, so a hand page formats them.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from tests.cli.helpers import cli

T12 = Path(__file__).resolve().parents[1] / "data" / "games" / "t12_side_bet.jsonl"
PROFILES = Path(__file__).resolve().parents[1] / "engine" / "profiles"


def test_the_spec_round_t12_is_audited_with_its_side_bets_verdict_games_2(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "audit.duckdb")
    assert cli("ingest", str(T12), "--db", db).exit_code == 0
    ran = cli("run", "--db", db, "--profiles", str(PROFILES))
    assert ran.exit_code == 0, ran.output
    found = cli("findings", "--db", db, "--format", "jsonl")
    [f] = [json.loads(x) for x in found.stdout.splitlines()]
    assert (f["code"], f["box"], f["expected"], f["actual"]) == (
        "PAY_WRONG_OUTCOME", 5, "0", "15.02",
    )  # fmt: skip
    con = duckdb.connect(db, read_only=True)
    try:
        rows = con.execute(
            "SELECT box, kind, CAST(due AS VARCHAR), CAST(settled AS VARCHAR), verdict, line, "
            "ratio FROM wagers ORDER BY box, kind"
        ).fetchall()
    finally:
        con.close()
    assert rows == [
        (2, "21plus3", "45.0000", "45.00", "ok", "straight_flush", "9/1"),
        (2, "insurance", "25.0000", "25.00", "ok", None, None),
        (2, "main", "-25.0000", "-25.00", "ok", None, None),
        (5, "main", "0.0000", "15.02", "PAY_WRONG_OUTCOME", None, None),
    ]
