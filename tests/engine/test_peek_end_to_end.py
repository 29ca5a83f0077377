"""TEL/1 v1.2's ``peek`` and ``reveal`` from a file to a finding (games.md §2): validated,
ingested into a real DuckDB file with the peek's announcement, handed to ``run``'s
workers on the lean decode path, replayed under a casino's own hole-card profile."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from audit.store import open_store
from tests.cli.helpers import cli
from tests.engine.builders import TEST_PROFILES, ShoeLog


def _night(tmp_path: Path) -> Path:
    log = ShoeLog("us-test-6d").start()
    # round 1: a peek under an ace finds none, play goes on
    r = log.round(1).bets({1: 10}).deal({1: "TS 9C"}, dealer="AD 7C").peek(blackjack=False)
    r.stand(1).reveal().settle(1, 10).close()
    # round 2: the dealer hits before the due peek: DEAL_PEEK_MISSING
    r = log.round(2).bets({1: 10}).deal({1: "TS 6C"}, dealer="TD 7H")
    r.hit(1, "2C").peek().stand(1).reveal().settle(1, 10).close()
    path = tmp_path / "logs" / "T07.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(e, default=str) + "\n" for e in log.events))
    return path


def test_peek_and_reveal_are_valid_lines_and_a_bad_announcement_is_not(tmp_path: Path) -> None:
    path = _night(tmp_path)
    assert cli("validate", str(path)).exit_code == 0
    bad = path.read_text().replace('"blackjack": false', '"blackjack": "no"', 1)
    (tmp_path / "bad.jsonl").write_text(bad)
    result = cli("validate", str(tmp_path / "bad.jsonl"))
    assert result.exit_code == 1 and "blackjack" in result.output


def test_run_replays_the_peek_from_the_database(tmp_path: Path) -> None:
    path = _night(tmp_path)
    profiles = tmp_path / "profiles"
    shutil.copytree(TEST_PROFILES, profiles)
    db = str(tmp_path / "audit.duckdb")
    assert cli("ingest", "--db", db, str(path)).exit_code == 0
    with open_store(Path(db), read_only=True) as store:
        rows = store.con.execute(
            "SELECT type, known_type, blackjack FROM events WHERE type IN ('peek', 'reveal') "
            "ORDER BY seq"
        ).fetchall()
    assert rows == [
        ("peek", True, False), ("reveal", True, None), ("peek", True, None), ("reveal", True, None)
    ]  # fmt: skip
    ran = cli("run", "--db", db, "--profiles", str(profiles))
    assert ran.exit_code == 0, ran.output
    found = cli("findings", "--db", db, "--format", "jsonl")
    lines = [json.loads(x) for x in found.stdout.splitlines()]
    assert [(f["code"], f["round"], f["rule"]) for f in lines] == [
        ("DEAL_PEEK_MISSING", 2, "peek_on_ten")
    ]
