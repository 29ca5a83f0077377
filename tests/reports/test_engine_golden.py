"""Golden hand packets from real TEL/1 rounds replayed by the real engine."""

from __future__ import annotations

import json

import pytest

from audit.engine import ShoeContext, replay_shoe
from audit.profiles import load_registry
from audit.reports import build_hand_context, render_hand
from tests.reports.engine_records import example_events
from tests.reports.test_hand import _golden


@pytest.fixture(scope="module")
def replayed():  # type: ignore[no-untyped-def]
    events = example_events()
    profile = load_registry().get("it-casino-6d")
    return replay_shoe(events, profile, ShoeContext()), events


def test_worked_example_text_golden(replayed) -> None:  # type: ignore[no-untyped-def]
    replay, events = replayed
    out = render_hand(replay, 1, "text", events=events, ascii_only=True)
    assert out.isascii()
    _golden("engine_T07_r1.txt", out)


def test_worked_example_json_golden(replayed) -> None:  # type: ignore[no-untyped-def]
    replay, events = replayed
    out = render_hand(replay, 1, "json", events=events)
    data = json.loads(out)
    # event-log.md: exactly one finding, box 1 hand 1 paid 75 where -50 was due
    assert [(f["code"], f["expected"], f["actual"]) for f in data["findings"]] == [
        ("PAY_WRONG_OUTCOME", "-50", "75")
    ]
    _golden("engine_T07_r1.json", out)


def test_worked_example_every_card_with_position_and_total(replayed) -> None:  # type: ignore[no-untyped-def]
    replay, events = replayed
    ctx = build_hand_context(replay, 1, events=events)
    cards = [(s.card.code, s.pos, s.target, s.total.label) for s in ctx.steps if s.card and s.total]
    assert cards[:5] == [
        ("8S", 6, "box 1 hand 0", "hard 8"),
        ("AH", 7, "box 4 hand 0", "soft 11"),
        ("6D", 8, "dealer", "hard 6"),
        ("8C", 9, "box 1 hand 0", "hard 16"),
        ("KS", 10, "box 4 hand 0", "blackjack"),
    ]
    assert cards[-1] == ("5H", 15, "dealer", "hard 21")
