"""The catalogue is covered: every code the replay raises has a breaching test here."""

from __future__ import annotations

import json
from pathlib import Path

from audit.findings import Code
from tests.engine.builders import ShoeLog, where

INGEST_CODES = {Code.LOG_MALFORMED, Code.LOG_SEQ_GAP, Code.LOG_ID_CONFLICT, Code.LOG_TAMPERED}
"""Raised by the ingest layer (and the integrity checks), not by the engine (rules.md);
the books' ``ACCT_`` codes are the reconciliation's, covered in tests/books."""


def test_every_engine_code_has_a_test() -> None:
    here = Path(__file__).parent
    text = "\n".join(p.read_text() for p in here.glob("test_*.py") if p.name != Path(__file__).name)
    missing = [
        c.value
        for c in Code
        if c not in INGEST_CODES and not c.is_books and f'"{c.value}"' not in text
    ]
    assert missing == []


def test_precedence_double_cards_before_hit_after_bust_000() -> None:
    """rules.md "How many findings": one event, one finding, PLAY_DOUBLE_CARDS first."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "5S 5D"}, dealer="9H").double(1, "TC").hit(1, "QC").settle(1, -20)
    r.close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_DOUBLE_CARDS", 1, 1, 0)]


def test_precedence_blackjack_before_out_of_turn_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 8C"}, dealer="9H").stand(2).hit(1, "5C").dealer("8D")
    r.settle(2, 10).settle(1, 15).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_HIT_ON_BLACKJACK", 1, 1, 0)]


def test_replay_is_json_friendly_for_the_dispute_report() -> None:
    log = ShoeLog("it-casino-6d").start(positions=True)
    r = log.round(1).bet(1, 10).bet(1, 5, spot=1, player="P-9").no_more_bets()
    r.deal({1: "8S 8D"}, dealer="AH").insurance(1, 5).split(1).hit(1, "3C").double(1, "TC")
    r.hit(1, "AC", hand=1).dealer("9C").settle(1, -5, kind="insurance").settle(1, 75, hand=1)
    r.close()
    replay = log.replay()
    doc = json.loads(json.dumps(replay.to_dict()))
    rnd = doc["rounds"][0]
    assert [s["event_id"] for s in rnd["steps"]] == [e["id"] for e in log.events if "round" in e]
    card_steps = [s for s in rnd["steps"] if s["type"] == "card"]
    assert all(s["pos"] is not None and s["cards"] for s in card_steps)
    assert {(w["box"], w["hand"], w["spot"], w["kind"]) for w in rnd["wagers"]} == {
        (1, 0, 0, "main"),
        (1, 0, 1, "main"),
        (1, 1, 0, "main"),
        (1, 1, 1, "main"),
        (1, 0, 0, "insurance"),
    }
    assert {f["code"] for f in rnd["findings"]} >= {"PAY_WRONG_OUTCOME", "PAY_MISSING"}
    assert any(s["codes"] for s in rnd["steps"])
