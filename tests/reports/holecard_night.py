"""A night of the US game (games.md §5; test profile ``us-test-6d-pages``) written by hand,
for the hand pages of the hole card, the peek, the reveal and surrenders: games.md §2's
example round (round 9) and rounds after it, each dealt in the profile's order (each box,
the up card, each box, the hole card face down), ingested and audited through the real CLI.

Round by round (table T12, shoe ``T12-20261205-02``):

- 9: games.md §2's example: box 2 insures 12.5 and its 21+3 (QH, KH, the up card AH: a
  straight flush) wins 9 to 1, 45; the peek under AH finds A,J (announced), a reveal; box
  5's natural pushes but is paid 15.02 (``PAY_WRONG_OUTCOME``).
- 10: the peek under TD finds none (announced: no); box 1 surrenders late (20: due -10);
  box 3 stands; the reveal after play shows T,7; the dealer stands.
- 11: the dealer shows 6, so no peek; box 4 surrenders in turn (10.01: due -5.01, rounded
  half away from zero); box 2 stands on 16; no reveal: the hole card 9 counts as turned when
  play is over, and the dealer draws TC (bust 25).
- 12: the dealer shows AC; box 1 surrenders before the peek where only late is allowed
  (``PLAY_SURRENDER``); the dealer announces a blackjack but the cards (A,5) make none;
  box 2 stands on 17; the reveal after play, the dealer draws 2 (soft 18).
- 13: the dealer shows AD and box 1 stands before any peek (``DEAL_PEEK_MISSING``); box 2
  surrenders, and the reveal shows A,K: the late surrender is forfeited, the whole 20
  (games.md §3).
- 14: the dealer shows AS; box 1 surrenders before any peek (``PLAY_SURRENDER``: early where
  only late is allowed), then the reveal takes the peek's place and shows A,Q: an early
  surrender stands, half the stake.
- 15: side bets (the profile offers ``21plus3`` at 21plus3-9 and ``perfect_pairs`` at
  perfect-pairs-25-12-6): box 1's perfect pair 8H 8H paid 125 (25 to 1); box 2's coloured
  pair 7C 7S (12 to 1, due 60) paid 30 (``PAY_SIDE_BET``); box 3's 21+3 of 60, over the
  table's 50 (``BET_LIMIT``), wins nothing (2D 9C 5S) and loses 60;
  box 4's ``lucky_ladies`` is not offered (``BET_SIDE_NOT_OFFERED``) and its 21+3 of 2 is
  never settled (``PAY_MISSING``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.helpers import cli

PROFILES = Path(__file__).with_name("data") / "profiles"
"""The profile folder the night is audited with (``--profiles``)."""
TABLE = "T12"
SHOE = "T12-20261205-02"
DAY = "2026-12-05"


class _Log:
    """Events in order: ids ``T12-<seq>``, the table clock one second a step."""

    def __init__(self, seq: int) -> None:
        self.seq = seq - 1
        self.pos = 0
        self.lines: list[dict[str, Any]] = []

    def ev(self, type: str, round: int | None = None, **fields: Any) -> None:
        self.seq += 1
        minute, second = divmod(self.seq - 290, 60)
        ev: dict[str, Any] = {
            "id": f"{TABLE}-{self.seq}",
            "seq": self.seq,
            "ts": f"2026-12-05T21:{10 + minute:02d}:{second:02d}-08:00",
            "table": TABLE,
            "shoe": SHOE,
        }
        if round is not None:
            ev["round"] = round
        ev["type"] = type
        ev.update(fields)
        self.lines.append(ev)

    def card(self, rnd: int, card: str, to: str, box: int | None = None, **kw: Any) -> None:
        self.pos += 1
        fields: dict[str, Any] = {"card": card, "to": to}
        if box is not None:
            fields["box"] = box
        self.ev("card", rnd, **fields, **kw, pos=self.pos)

    def deal(self, rnd: int, boxes: dict[int, str], up: str, hole: str) -> None:
        """The US deal: each box, the up card, each box, the hole card face down."""
        for box, cards in boxes.items():
            self.card(rnd, cards.split()[0], "box", box)
        self.card(rnd, up, "dealer")
        for box, cards in boxes.items():
            self.card(rnd, cards.split()[1], "box", box)
        self.card(rnd, hole, "dealer", face_up=False)


def night_events() -> list[dict[str, Any]]:
    """The night's events, in order (see the module's docstring)."""
    log = _Log(296)
    log.ev("shoe_open", profile="us-test-6d-pages", decks=6, dealer="D-0412", currency="USD",
           min_bet=5, max_bet=500, side_limits={"21plus3": {"max_bet": 50}})  # fmt: skip
    log.ev("shuffle", method="riffle")
    log.ev("cut", by="box", box=3)
    log.ev("cut_card", position=230)
    log.pos += 1
    log.ev("burn", cards=["7H"], face_down=True, pos=log.pos)

    # round 9: games.md §2's example
    log.ev("round_open", 9)
    log.ev("bet", 9, box=2, spot=0, amount=25)
    log.ev("bet", 9, box=2, spot=0, kind="21plus3", amount=5)
    log.ev("bet", 9, box=5, spot=0, amount=10.01)
    log.ev("no_more_bets", 9)
    log.deal(9, {2: "QH KH", 5: "AS KC"}, up="AH", hole="JD")
    log.ev("insurance", 9, box=2, spot=0, amount=12.5)
    log.ev("peek", 9, blackjack=True)
    log.ev("reveal", 9)
    log.ev("settle", 9, box=2, hand=0, spot=0, kind="21plus3", amount=45)
    log.ev("settle", 9, box=2, hand=0, spot=0, kind="insurance", amount=25)
    log.ev("settle", 9, box=2, hand=0, spot=0, kind="main", amount=-25)
    log.ev("settle", 9, box=5, hand=0, spot=0, kind="main", amount=15.02)
    log.ev("round_close", 9)

    # round 10: a peek under a ten finds none; a late surrender
    log.ev("round_open", 10)
    log.ev("bet", 10, box=1, spot=0, amount=20)
    log.ev("bet", 10, box=3, spot=0, amount=10)
    log.ev("no_more_bets", 10)
    log.deal(10, {1: "TS 6C", 3: "9H 9D"}, up="TD", hole="7C")
    log.ev("peek", 10, blackjack=False)
    log.ev("action", 10, box=1, hand=0, action="surrender")
    log.ev("action", 10, box=3, hand=0, action="stand")
    log.ev("reveal", 10)
    log.ev("settle", 10, box=1, hand=0, spot=0, kind="main", amount=-10)
    log.ev("settle", 10, box=3, hand=0, spot=0, kind="main", amount=10)
    log.ev("round_close", 10)

    # round 11: no peek under a 6; a surrender in turn; no reveal, the dealer draws
    log.ev("round_open", 11)
    log.ev("bet", 11, box=2, spot=0, amount=10.01)
    log.ev("bet", 11, box=4, spot=0, amount=10.01)
    log.ev("no_more_bets", 11)
    log.deal(11, {2: "5C 7D", 4: "TH 6S"}, up="6D", hole="9S")
    log.ev("action", 11, box=2, hand=0, action="hit")
    log.card(11, "4S", "box", 2, hand=0)
    log.ev("action", 11, box=2, hand=0, action="stand")
    log.ev("action", 11, box=4, hand=0, action="surrender")
    log.card(11, "TC", "dealer")
    log.ev("settle", 11, box=2, hand=0, spot=0, kind="main", amount=10.01)
    log.ev("settle", 11, box=4, hand=0, spot=0, kind="main", amount=-5.01)
    log.ev("round_close", 11)

    # round 12: an early surrender where only late is allowed; a wrong announcement
    log.ev("round_open", 12)
    log.ev("bet", 12, box=1, spot=0, amount=10)
    log.ev("bet", 12, box=2, spot=0, amount=10)
    log.ev("no_more_bets", 12)
    log.deal(12, {1: "TS 6H", 2: "8C 9C"}, up="AC", hole="5D")
    log.ev("action", 12, box=1, hand=0, action="surrender")
    log.ev("peek", 12, blackjack=True)
    log.ev("action", 12, box=2, hand=0, action="stand")
    log.ev("reveal", 12)
    log.card(12, "2H", "dealer")
    log.ev("settle", 12, box=1, hand=0, spot=0, kind="main", amount=-5)
    log.ev("settle", 12, box=2, hand=0, spot=0, kind="main", amount=-10)
    log.ev("round_close", 12)

    # round 13: no peek under an ace; a late surrender forfeited to the dealer's blackjack
    log.ev("round_open", 13)
    log.ev("bet", 13, box=1, spot=0, amount=10)
    log.ev("bet", 13, box=2, spot=0, amount=20)
    log.ev("no_more_bets", 13)
    log.deal(13, {1: "TH 8D", 2: "9S 7H"}, up="AD", hole="KS")
    log.ev("action", 13, box=1, hand=0, action="stand")
    log.ev("action", 13, box=2, hand=0, action="surrender")
    log.ev("reveal", 13)
    log.ev("settle", 13, box=1, hand=0, spot=0, kind="main", amount=-10)
    log.ev("settle", 13, box=2, hand=0, spot=0, kind="main", amount=-20)
    log.ev("round_close", 13)

    # round 14: a surrender before the reveal that takes the peek's place: early, it stands
    log.ev("round_open", 14)
    log.ev("bet", 14, box=1, spot=0, amount=20)
    log.ev("no_more_bets", 14)
    log.deal(14, {1: "9D 7C"}, up="AS", hole="QD")
    log.ev("action", 14, box=1, hand=0, action="surrender")
    log.ev("reveal", 14)
    log.ev("settle", 14, box=1, hand=0, spot=0, kind="main", amount=-10)
    log.ev("round_close", 14)

    # round 15: side bets beside their spots: a perfect pair paid right, a coloured pair
    # paid as mixed, a 21+3 over its limit that won nothing, a bet the profile does not
    # offer, a 21+3 never settled; the dealer busts
    log.ev("round_open", 15)
    for box in (1, 2, 3, 4):
        log.ev("bet", 15, box=box, spot=0, amount=10)
    log.ev("bet", 15, box=1, spot=0, kind="perfect_pairs", amount=5)
    log.ev("bet", 15, box=2, spot=0, kind="perfect_pairs", amount=5)
    log.ev("bet", 15, box=3, spot=0, kind="21plus3", amount=60)
    log.ev("bet", 15, box=4, spot=0, kind="lucky_ladies", amount=5)
    log.ev("bet", 15, box=4, spot=0, kind="21plus3", amount=2)
    log.ev("no_more_bets", 15)
    log.deal(15, {1: "8H 8H", 2: "7C 7S", 3: "2D 9C", 4: "TH 9H"}, up="5S", hole="9D")
    for box in (1, 2, 3, 4):
        log.ev("action", 15, box=box, hand=0, action="stand")
    log.ev("reveal", 15)
    log.card(15, "8C", "dealer")
    log.ev("settle", 15, box=1, hand=0, spot=0, kind="perfect_pairs", amount=125)
    log.ev("settle", 15, box=2, hand=0, spot=0, kind="perfect_pairs", amount=30)
    log.ev("settle", 15, box=3, hand=0, spot=0, kind="21plus3", amount=-60)
    log.ev("settle", 15, box=4, hand=0, spot=0, kind="lucky_ladies", amount=-5)
    for box in (1, 2, 3, 4):
        log.ev("settle", 15, box=box, hand=0, spot=0, kind="main", amount=10)
    log.ev("round_close", 15)
    return log.lines


def write_night(folder: Path) -> Path:
    """The night's log written to ``folder/logs/T12.jsonl``; returns the file."""
    path = folder / "logs" / f"{TABLE}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in night_events()), encoding="utf-8")
    return path


def audited_night(folder: Path) -> Path:
    """The night written, ingested and audited through the CLI; returns the database."""
    db = folder / "audit.duckdb"
    log = write_night(folder)
    for args in (
        ("ingest", "--db", str(db), str(log)),
        ("run", "--db", str(db), "--profiles", str(PROFILES)),
    ):
        result = cli(*args)
        assert result.exit_code == 0, result.output
    return db
