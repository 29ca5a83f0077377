"""The worked example at the end of event-log.md, verbatim."""

from __future__ import annotations

import json
from decimal import Decimal

from audit.engine import replay_shoe
from audit.events.parse import parse_line
from audit.profiles import load_registry

EXAMPLE = r"""
{"id":"T07-1","seq":1,"ts":"2026-11-28T20:00:00+01:00","table":"T07","shoe":"T07-20261128-01","type":"shoe_open","profile":"it-casino-6d","decks":6,"dealer":"D042","currency":"EUR","min_bet":10,"max_bet":1000}
{"id":"T07-2","seq":2,"ts":"2026-11-28T20:00:05+01:00","table":"T07","shoe":"T07-20261128-01","type":"shuffle","method":"wash"}
{"id":"T07-3","seq":3,"ts":"2026-11-28T20:01:05+01:00","table":"T07","shoe":"T07-20261128-01","type":"shuffle","method":"riffle"}
{"id":"T07-4","seq":4,"ts":"2026-11-28T20:02:00+01:00","table":"T07","shoe":"T07-20261128-01","type":"cut","by":"box","box":3}
{"id":"T07-5","seq":5,"ts":"2026-11-28T20:02:10+01:00","table":"T07","shoe":"T07-20261128-01","type":"cut_card","position":234}
{"id":"T07-6","seq":6,"ts":"2026-11-28T20:02:30+01:00","table":"T07","shoe":"T07-20261128-01","type":"burn","cards":["7H","KD","2C","9S","QH"],"face_down":true}
{"id":"T07-7","seq":7,"ts":"2026-11-28T20:03:00+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"round_open"}
{"id":"T07-8","seq":8,"ts":"2026-11-28T20:03:10+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"bet","box":1,"spot":0,"amount":50,"player":"P-1881"}
{"id":"T07-9","seq":9,"ts":"2026-11-28T20:03:11+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"bet","box":4,"spot":0,"amount":20}
{"id":"T07-10","seq":10,"ts":"2026-11-28T20:03:20+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"no_more_bets"}
{"id":"T07-11","seq":11,"ts":"2026-11-28T20:03:21+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"card","card":"8S","to":"box","box":1,"pos":6}
{"id":"T07-12","seq":12,"ts":"2026-11-28T20:03:22+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"card","card":"AH","to":"box","box":4,"pos":7}
{"id":"T07-13","seq":13,"ts":"2026-11-28T20:03:23+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"card","card":"6D","to":"dealer","pos":8}
{"id":"T07-14","seq":14,"ts":"2026-11-28T20:03:24+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"card","card":"8C","to":"box","box":1,"pos":9}
{"id":"T07-15","seq":15,"ts":"2026-11-28T20:03:25+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"card","card":"KS","to":"box","box":4,"pos":10}
{"id":"T07-16","seq":16,"ts":"2026-11-28T20:03:40+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"action","box":1,"hand":0,"action":"split"}
{"id":"T07-17","seq":17,"ts":"2026-11-28T20:03:41+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"card","card":"3D","to":"box","box":1,"hand":0,"pos":11}
{"id":"T07-18","seq":18,"ts":"2026-11-28T20:03:50+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"action","box":1,"hand":0,"action":"double"}
{"id":"T07-19","seq":19,"ts":"2026-11-28T20:03:51+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"card","card":"TS","to":"box","box":1,"hand":0,"pos":12}
{"id":"T07-20","seq":20,"ts":"2026-11-28T20:04:00+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"card","card":"AC","to":"box","box":1,"hand":1,"pos":13}
{"id":"T07-21","seq":21,"ts":"2026-11-28T20:04:10+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"card","card":"TD","to":"dealer","pos":14}
{"id":"T07-22","seq":22,"ts":"2026-11-28T20:04:11+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"card","card":"5H","to":"dealer","pos":15}
{"id":"T07-23","seq":23,"ts":"2026-11-28T20:04:20+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"settle","box":4,"hand":0,"spot":0,"kind":"main","amount":30}
{"id":"T07-24","seq":24,"ts":"2026-11-28T20:04:21+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"settle","box":1,"hand":1,"spot":0,"kind":"main","amount":75}
{"id":"T07-25","seq":25,"ts":"2026-11-28T20:04:22+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"settle","box":1,"hand":0,"spot":0,"kind":"main","amount":0}
{"id":"T07-26","seq":26,"ts":"2026-11-28T20:04:30+01:00","table":"T07","shoe":"T07-20261128-01","round":1,"type":"round_close"}
"""


def _replay():
    events = [parse_line(line) for line in EXAMPLE.strip().splitlines()]
    return replay_shoe(events, load_registry(extra_dir=None).get("it-casino-6d"))


def test_worked_example_yields_exactly_one_wrong_outcome_000() -> None:
    """event-log.md: 8+A = 19 against the dealer's 21 was paid +75: PAY_WRONG_OUTCOME only."""
    replay = _replay()
    assert [f.to_dict() for f in replay.findings] == [
        {
            **replay.findings[0].to_dict(),
            "code": "PAY_WRONG_OUTCOME",
            "severity": "critical",
            "table": "T07",
            "shoe": "T07-20261128-01",
            "round": 1,
            "box": 1,
            "hand": 1,
            "spot": 0,
            "expected": "-50",
            "actual": "75",
            "impact": "125",
            "source": None,
        }
    ]
    assert "T07-24" in replay.findings[0].events


def test_worked_example_round_story_000() -> None:
    """The replay tells the round as the spec reads it: split, double, totals, wagers."""
    rnd = _replay().round_replay(1)
    assert rnd is not None and rnd.status == "closed"
    hands = {(h.box, h.hand): (h.cards, h.total, h.natural) for h in rnd.hands}
    assert hands == {
        (1, 0): (("8S", "3D", "TS"), 21, False),
        (1, 1): (("8C", "AC"), 19, False),
        (4, 0): (("AH", "KS"), 21, True),
    }
    assert rnd.dealer.cards == ("6D", "TD", "5H") and rnd.dealer.total == 21
    wagers = {(w.box, w.hand): (w.stake, w.expected, w.actual) for w in rnd.wagers}
    assert wagers == {
        (1, 0): (Decimal(100), Decimal(0), (Decimal(0),)),
        (1, 1): (Decimal(50), Decimal(-50), (Decimal(75),)),
        (4, 0): (Decimal(20), Decimal(30), (Decimal(30),)),
    }
    dealer_steps = [s.dealer_rule for s in rnd.steps if s.target == "dealer"]
    assert dealer_steps == [None, "draw", "draw"]
    json.dumps(rnd.to_dict())
