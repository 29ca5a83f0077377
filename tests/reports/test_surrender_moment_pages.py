"""A hand page names a surrender's moment as the engine reads it (games.md §3): where only
``late`` is allowed, a surrender made before a peek that then never comes in time was a
late surrender in turn (the missing peek the finding), forfeited to the blackjack the
reveal shows. One round of the US game (``us-test-6d-pages``), written, ingested and
audited through the real CLI; its page made by ``hand`` and parsed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.helpers import cli
from tests.reports.holecard_night import PROFILES
from tests.reports.htmlcheck import Page
from tests.reports.test_hole_card_pages import ByClass

TABLE, SHOE = "T14", "T14-20261205-01"


def _round() -> list[dict[str, Any]]:
    """Box 1 surrenders 16 first, no peek; box 2's stand shows the peek missing; the reveal
    shows A,K."""
    lines: list[dict[str, Any]] = []
    pos = 0

    def ev(type: str, rnd: int | None = None, **fields: Any) -> None:
        n = len(lines) + 1
        e: dict[str, Any] = {"id": f"{TABLE}-{n}", "seq": n, "table": TABLE, "shoe": SHOE}
        e["ts"] = f"2026-12-05T21:10:{n:02d}-08:00"
        if rnd is not None:
            e["round"] = rnd
        lines.append({**e, "type": type, **fields})

    def card(card: str, box: int | None = None, **kw: Any) -> None:
        nonlocal pos
        pos += 1
        where: dict[str, Any] = {"to": "dealer"} if box is None else {"to": "box", "box": box}
        ev("card", 1, card=card, **where, **kw, pos=pos)

    ev("shoe_open", profile="us-test-6d-pages", decks=6, dealer="D-0412", min_bet=5, max_bet=500)
    ev("shuffle", method="riffle")
    ev("cut", by="box", box=3)
    ev("cut_card", position=230)
    pos += 1
    ev("burn", cards=["7H"], face_down=True, pos=pos)
    ev("round_open", 1)
    ev("bet", 1, box=1, spot=0, amount=20)
    ev("bet", 1, box=2, spot=0, amount=20)
    ev("no_more_bets", 1)
    card("TS", 1)
    card("9H", 2)
    card("AD")
    card("6C", 1)
    card("9D", 2)
    card("KH", face_up=False)
    ev("action", 1, box=1, hand=0, action="surrender")
    ev("action", 1, box=2, hand=0, action="stand")
    ev("reveal", 1)
    ev("settle", 1, box=1, hand=0, spot=0, kind="main", amount=-20)
    ev("settle", 1, box=2, hand=0, spot=0, kind="main", amount=-20)
    ev("round_close", 1)
    return lines


def test_a_surrender_before_a_peek_that_never_came_is_late_on_its_page(tmp_path: Path) -> None:
    log = tmp_path / "logs" / f"{TABLE}.jsonl"
    log.parent.mkdir()
    log.write_text("".join(json.dumps(e) + "\n" for e in _round()), encoding="utf-8")
    db = str(tmp_path / "audit.duckdb")
    for args in (
        ("ingest", "--db", db, str(log)),
        ("run", "--db", db, "--profiles", str(PROFILES)),
    ):
        result = cli(*args)
        assert result.exit_code == 0, result.output
    result = cli(
        "hand", "--db", db, "--profiles", str(PROFILES), "--format", "html", TABLE, SHOE, "1"
    )
    assert result.exit_code == 0, result.output
    by = ByClass(result.stdout)
    assert by.texts("surrender") == [
        "late surrender , in turn: the peek came late or never spot 0: stake 20.00, "
        "due -20.00 (surrendered, forfeited to the dealer's blackjack)"
    ]
    hands = {r[0]: r for r in Page(result.stdout).body_rows("hand-table")}
    assert hands["box 1 hand 0"][4] == "surrendered (late)"
    found = cli("findings", "--db", db, "--format", "jsonl")
    codes = [json.loads(line)["code"] for line in found.stdout.splitlines()]
    assert codes == ["DEAL_PEEK_MISSING"]
