"""Invariants of the replay (STYLE.md: chips conserved, replay deterministic, suits irrelevant).

Random legal shoes come from an oracle written apart from the engine
(:mod:`tests.engine.legal`): they must replay with no finding at all.
"""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine.builders import ShoeLog, where
from tests.engine.legal import legal_shoe

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def _findings(log: ShoeLog) -> list[dict[str, Any]]:
    return [f.to_dict() for f in log.replay().findings]


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_random_legal_rounds_yield_no_findings(profile: str, seed: int) -> None:
    log, _ = legal_shoe(profile, seed)
    assert _findings(log) == []


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=25, deadline=None)
@given(seed=SEEDS)
def test_chips_are_conserved(profile: str, seed: int) -> None:
    """What the house paid (sum of settlements) equals what the engine says was due."""
    log, house_paid = legal_shoe(profile, seed)
    replay = log.replay()
    due = sum((w.expected or Decimal(0) for r in replay.rounds for w in r.wagers), Decimal(0))
    actual = sum((a for r in replay.rounds for w in r.wagers for a in w.actual), Decimal(0))
    assert due == actual == house_paid


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, profile=st.sampled_from(PROFILES))
def test_replay_is_deterministic(seed: int, profile: str) -> None:
    log, _ = legal_shoe(profile, seed)
    _mutate_one_settlement(log, seed)
    assert log.replay().to_dict() == log.replay().to_dict()


def _mutate_one_settlement(log: ShoeLog, seed: int) -> None:
    settles = [e for e in log.events if e["type"] == "settle"]
    if settles:
        e = settles[seed % len(settles)]
        e["amount"] = e["amount"] + 5


def _permute_suits(log: ShoeLog, perm: dict[str, str]) -> ShoeLog:
    out = copy.deepcopy(log)

    def swap(card: str) -> str:
        return card[:-1] + perm[card[-1]]

    for e in out.events:
        if "card" in e:
            e["card"] = swap(e["card"])
        if e.get("cards"):
            e["cards"] = [swap(c) for c in e["cards"]]
        if e.get("order"):
            e["order"] = [swap(c) for c in e["order"]]
    return out


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, profile=st.sampled_from(PROFILES), suits=st.permutations("SHDC"))
def test_permuting_suits_changes_no_finding(seed: int, profile: str, suits: list[str]) -> None:
    log, _ = legal_shoe(profile, seed)
    _mutate_one_settlement(log, seed)
    perm = dict(zip("SHDC", suits, strict=True))
    before = [where(f) for f in log.replay().findings]
    after = [where(f) for f in _permute_suits(log, perm).replay().findings]
    assert before == after


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, profile=st.sampled_from(PROFILES))
def test_one_wrong_settlement_is_one_pay_finding(seed: int, profile: str) -> None:
    """rules.md "How many findings": one wrong wager, one finding, and no cascade."""
    log, _ = legal_shoe(profile, seed)
    settles = [e for e in log.events if e["type"] == "settle"]
    e = settles[seed % len(settles)]
    e["amount"] = e["amount"] + 5
    found = log.replay().findings
    assert len(found) == 1, [f.to_dict() for f in found]
    f = found[0]
    assert str(f.code).startswith("PAY_")
    assert (f.round, f.box, f.hand, f.spot) == (e["round"], e["box"], e["hand"], e["spot"])
    assert f.impact == Decimal(5)


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=400, deadline=None)
@given(seed=SEEDS)
def test_many_legal_shoes_yield_no_findings(profile: str, seed: int) -> None:
    log, _ = legal_shoe(profile, seed, rounds=8)
    assert _findings(log) == []


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, profile=st.sampled_from(PROFILES))
def test_trace_changes_no_verdict(seed: int, profile: str) -> None:
    """``run`` replays without the step trace, ``hand`` with it: the same findings and records."""
    from audit.engine import replay_shoe
    from tests.engine.builders import REGISTRY

    log, _ = legal_shoe(profile, seed)
    _mutate_one_settlement(log, seed)
    events, prof = log.parsed(), REGISTRY.get(profile)
    traced = replay_shoe(events, prof, trace=True).to_dict()
    lean = replay_shoe(events, prof, trace=False).to_dict()
    for r in traced["rounds"]:
        r["steps"] = []
    traced["shoe_steps"] = []
    assert traced == lean


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, profile=st.sampled_from(PROFILES), data=st.data())
def test_one_round_replayed_alone_steps_as_in_the_whole_shoe(
    seed: int, profile: str, data: st.DataObject
) -> None:
    """A page replays only its round in full (the rounds before only as the shoe remembers
    them): the round's steps, records and findings are exactly the full replay's."""
    from audit.engine import replay_shoe
    from tests.engine.builders import REGISTRY

    log, _ = legal_shoe(profile, seed, rounds=5)
    _mutate_one_settlement(log, seed)
    events, prof = log.parsed(), REGISTRY.get(profile)
    full = replay_shoe(events, prof)
    numbers = [r.round for r in full.rounds]
    wanted = data.draw(st.sets(st.sampled_from(numbers), min_size=1, max_size=2))
    part = replay_shoe(events, prof, rounds=wanted)
    assert [r.round for r in part.rounds] == sorted(wanted)
    for r in part.rounds:
        assert r.to_dict() == full.round_replay(r.round).to_dict()  # type: ignore[union-attr]
    keep = [f.to_dict() for f in full.findings if f.round in wanted or f.round is None]
    assert [f.to_dict() for f in part.findings] == keep
