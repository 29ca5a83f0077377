"""Bugs the fuzz tests found that are not fixed yet, as strict xfails (issue 14, point 19).

Each test fails today and is marked ``xfail(strict=True)``: once the bug is
fixed it passes, the strict mark turns that into a failure, and whoever fixed
it removes the mark (and moves the input into the regression corpus,
``tests/data/regressions/``).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from audit.engine import ShoeContext, replay_shoe
from audit.events.parse import parse_line
from audit.profiles import load_registry

PENDING = Path(__file__).resolve().parents[1] / "data" / "regressions" / "pending"


def _under_minimum(spots: int) -> list[Any]:
    """The pending input's first ``spots`` stakes of 10 (the table minimum is 100)."""
    lines = (PENDING / "bet-limit-10000-spots.jsonl").read_text(encoding="utf-8").splitlines()
    events = [parse_line(x) for x in lines]  # shoe_open, round_open, 10,000 bets, no_more_bets
    assert [e.type for e in events[:2]] == ["shoe_open", "round_open"]
    assert all(e.type == "bet" and e.amount == Decimal(10) for e in events[2:-1])
    return [*events[: 2 + spots], events[-1]]


@pytest.mark.xfail(
    strict=True,
    reason="BET_LIMIT of each spot cites every bet of its box: O(spots^2) event ids "
    "(10,000 spots: 10^8 ids, 7.8 GB, 4 minutes); audit/engine/round.py keeps bet "
    "events per box only",
)
def test_bet_limit_cites_the_bets_of_its_own_spot() -> None:
    """10,000 spots under the minimum on one box (found by the engine fuzz test).

    Each of the 500 spots here (enough to show the square, cheap enough for the
    default suite) gets its own BET_LIMIT; citing its own bet events, the
    findings cite about one id per spot, not 500 each.
    """
    registry = load_registry()
    events = _under_minimum(500)
    replay = replay_shoe(events, registry.get("it-casino-6d"), ShoeContext())
    limits = [f for f in replay.findings if f.code == "BET_LIMIT"]
    assert len(limits) == 500
    assert sum(len(f.events) for f in replay.findings) <= 3 * 500
