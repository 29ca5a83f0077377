"""Player masking holds everywhere (issue 30, point 8).

The sample night has players at every table, and at T04 (ventuno) a rotating home
banker: a player dealing his turn, whose id (``P-2586``...) stands in dealer columns.
Every output is rendered with players masked and with ``--show-players``; no raw
player id may appear in the first, and they must in the second (else the test proves
nothing).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.store import open_store
from audit.web.app import ServeConfig, create_app
from tests.cli.helpers import cli
from tests.reports.htmlcheck import Page
from tests.web.client import Client, running

PLAYER_ID = re.compile(r"P-\d{4}")
BANKER = "P-2586"
"""T04's banker in round 1 of shoe 34 (the PAY_DUPLICATE): he bets in other shoes."""
HANDS = (("T04", "T04-20261128-34", "1"), ("T02", "T02-20261128-06", "15"))


def raw_ids(text: str) -> set[str]:
    return set(PLAYER_ID.findall(text))


def test_the_sample_has_bankers_who_are_players(sample_db: Path) -> None:
    with open_store(sample_db, read_only=True) as s:
        bettor = s.con.execute(
            "SELECT count(*) FROM events WHERE type = 'bet' AND player = ?", [BANKER]
        ).fetchone()
        dealt = s.con.execute(
            "SELECT count(*) FROM events WHERE type = 'shoe_open' AND dealer = ?", [BANKER]
        ).fetchone()
    assert bettor is not None and bettor[0] > 0
    assert dealt is not None and dealt[0] > 0


def outputs(db: Path, tmp: Path, *show: str) -> dict[str, str]:
    """Every CLI output that can name a player, as text (a report: all its files)."""
    got: dict[str, str] = {}
    for fmt in ("jsonl", "csv", "table"):
        res = cli("findings", "--db", str(db), "--format", fmt, *show, env={"COLUMNS": "80"})
        assert res.exit_code == 0, res.output
        got[f"findings {fmt}"] = res.stdout
    for table, shoe, rnd in HANDS:
        for fmt in ("text", "html", "json"):
            res = cli("hand", table, shoe, rnd, "--db", str(db), "--format", fmt, *show)
            assert res.exit_code == 0, res.output
            got[f"hand {table} {fmt}"] = res.stdout
    res = cli("stats", "--db", str(db), "--format", "jsonl", *show)
    assert res.exit_code == 0, res.output
    got["stats"] = res.stdout
    for fmt in ("html", "md"):
        out = tmp / f"report-{fmt}-{len(show)}"
        res = cli("report", "--db", str(db), "--out", str(out), "--format", fmt, *show)
        assert res.exit_code == 0, res.output
        for path in sorted(out.rglob("*")):
            if path.is_file() and path.suffix in {".html", ".md"}:
                got[f"report {fmt} {path.relative_to(out)}"] = path.read_text(encoding="utf-8")
    return got


def test_no_output_names_a_player_unless_show_players(sample_db: Path, tmp_path: Path) -> None:
    masked = outputs(sample_db, tmp_path)
    named = {where: sorted(raw_ids(text)) for where, text in masked.items() if raw_ids(text)}
    assert named == {}
    assert any("••••86" in text for text in masked.values())  # the banker, masked
    shown = outputs(sample_db, tmp_path, "--show-players")
    assert BANKER in shown["findings jsonl"] and BANKER in shown["report html index.html"]
    assert BANKER in shown["hand T04 html"] and raw_ids(shown["hand T02 json"])
    assert BANKER in shown["stats"]


def test_the_banker_is_masked_in_the_dealer_key(sample_db: Path) -> None:
    res = cli("findings", "--db", str(sample_db), "--format", "jsonl", "--table", "T04")
    dealers = [json.loads(line)["dealer"] for line in res.stdout.splitlines()]
    assert dealers == ["••••86", "••••86", "••••26", "••••26"]
    res = cli("hand", "T04", "T04-20261128-34", "1", "--db", str(sample_db), "--format", "json")
    assert json.loads(res.stdout)["story"]["dealer"] == "••••86"


@pytest.fixture
def web(sample_db: Path, tmp_path: Path) -> Iterator[Client]:
    db = tmp_path / "audit.duckdb"
    shutil.copy(sample_db, db)
    with running(create_app(ServeConfig(db=db))) as port:
        yield Client(port)


def test_no_web_page_names_a_player_before_signing_in(web: Client, sample_db: Path) -> None:
    with open_store(sample_db, read_only=True) as s:
        found = s.all_findings(table="T04")
    f = found[0]
    paths = [
        "/findings",
        "/findings?table=T04",
        f"/findings/{f.id}",
        f"/shoes/{f.table}/{f.shoe}",
        f"/hands/{f.table}/{f.shoe}/{f.round}",
        "/reports/2026-11-28",
        "/reports/2026-11-28/flagged",
    ]
    for path in paths:
        r = web.get(path)
        assert r.status == 200, (path, r.status)
        Page(r.text)  # parses
        assert raw_ids(r.text) == set(), path
    assert "••••86" in web.get(f"/hands/{f.table}/{f.shoe}/{f.round}").text
