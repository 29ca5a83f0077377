"""The simulator against the engine: clean logs, no finding; each injected error, exactly its own.

When they disagree, rules.md decides who is wrong; an engine mistake is
written down in docs/engine-mismatches.md. Each check runs on plain tables and
on rich ones (``rich_share=1.0``: every optional field of TEL/1, void rounds,
``spots`` on doubles and splits, cards without ``pos``, ...).
"""

from __future__ import annotations

from typing import Any

import pytest

from audit.findings import Code
from audit.simulate import ALL_CLASSES, iter_shoes
from tests.simulate.harness import GAMES_REG, audit_run

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]
GAMES = ["us-strip-6d-s17", "us-6d-h17-6to5", "uk-6d-enhc", "au-6d-obbo"]
"""games.md §5's four, side bets included."""
HOLE = ["us-strip-6d-s17", "test-hole-obo-early"]
"""A hole card: peeked on aces and tens, or on aces only (OBO, early surrender)."""

APPLIES: dict[Code, list[str]] = {
    Code.PAY_INSURANCE: ["it-casino-6d"],
    # an objection that goes ahead (000), or a ``spots`` that leaves a staked spot out
    # (rich tables; every staked spot takes part under all three casino profiles, v1.2)
    Code.PLAY_UNCONSENTED: PROFILES[:3],
    Code.PAY_BONUS: ["it-casino-5d"],
    Code.PLAY_MANDATORY_HIT: ["it-casino-6d-mandatory"],
    Code.PLAY_ILLEGAL_DOUBLE: ["it-casino-6d", "it-casino-6d-mandatory"],
    Code.DEALER_BANKER_ROTATION: ["ventuno-family"],
    Code.PAY_SPLIT_BLACKJACK_AS_NATURAL: PROFILES[:3],
    Code.PLAY_SPLIT_ACES_CARDS: PROFILES[:3],
    Code.DEALER_DREW_ON_STAND: PROFILES[:3],
    Code.DEALER_STOOD_ON_DRAW: PROFILES[:3],
    Code.SHOE_POSITION_GAP: PROFILES[:3],
    Code.SHOE_BURN_COUNT: PROFILES[:3],
    Code.SHOE_ROUND_AFTER_CUT_CARD: PROFILES[:3],
    Code.PAY_WRONG_AMOUNT: PROFILES[:3],
    # games.md §7: each new code and widened "when" on the games that have it
    Code.DEAL_PEEK_MISSING: HOLE,
    Code.DEAL_PEEK_NEEDLESS: ["us-6d-h17-6to5", "test-hole-obo-early"],
    Code.DEAL_HOLE_CARD_SHOWN: HOLE,
    Code.PLAY_AFTER_DEALER_BLACKJACK: ["us-6d-h17-6to5", "test-hole-obo-early"],
    # before the peek (late only), after a hit, where none is allowed, an excluded up card
    Code.PLAY_SURRENDER: ["us-strip-6d-s17", "uk-6d-enhc", "test-bb1-22-halves"],
    # a forbidden pair (4s, 5s, tens); split aces resplit
    Code.PLAY_ILLEGAL_SPLIT: ["uk-6d-enhc", "test-bb1-22-halves"],
    Code.PLAY_ILLEGAL_INSURANCE: HOLE,
    Code.PLAY_ILLEGAL_EVEN_MONEY: ["us-6d-h17-6to5", "test-hole-obo-early"],
    # a natural paid before the peek, an OBO bust collected early, a side bet early
    Code.PAY_TIMING: [*HOLE, "au-6d-obbo"],
    Code.BET_SIDE_NOT_OFFERED: ["us-strip-6d-s17", "au-6d-obbo"],
    Code.BET_LIMIT: ["uk-6d-enhc", "us-6d-h17-6to5"],
    Code.PAY_SIDE_BET: GAMES,
}
"""Where each class can happen (default: every profile)."""

ROUNDS: dict[Code, int] = {
    Code.PAY_BONUS: 8000,
    Code.PAY_SPLIT_BLACKJACK_AS_NATURAL: 1500,
    Code.PLAY_ILLEGAL_EVEN_MONEY: 1500,
    Code.PLAY_ILLEGAL_SPLIT: 800,
}
"""Rare opportunities need longer runs (three sevens: about 1.5 per 1000 rounds of 001)."""


def _each_profile_once_by_default(
    variants: list[tuple[str, tuple[object, ...]]],
) -> list[Any]:  # pytest.param's ParameterSet is not public
    """Every (variant, profile) pair, ids as ``plain-PROFILE``; the default suite keeps each
    profile once, plain and rich in turn (so both kinds of table, and every profile, are
    in it), the other half is ``slow`` (issue 33: eight near-identical 300-round nights)."""
    return [
        pytest.param(
            profile,
            *values,
            id=f"{name}-{profile}",
            marks=[] if i % len(variants) == j else [pytest.mark.slow],
        )
        for j, (name, values) in enumerate(variants)
        for i, profile in enumerate(PROFILES + GAMES)
    ]


@pytest.mark.parametrize(
    ("profile", "seed", "rich_share"),
    _each_profile_once_by_default([("plain", (11, 0.0)), ("rich", (12, 1.0))]),
)
def test_clean_logs_raise_no_finding(profile: str, seed: int, rich_share: float) -> None:
    report, injected = audit_run(
        iter_shoes(
            tables=1, shoes=1, rounds=300, profiles=[profile], seed=seed, rich_share=rich_share
        )
    )
    assert injected == []
    assert [(f.code, f.shoe, f.round, f.message) for f in report.unexpected] == []


@pytest.mark.parametrize(
    ("profile", "rich_share"), _each_profile_once_by_default([("plain", (0.0,)), ("rich", (1.0,))])
)
def test_injected_errors_found_at_their_place_and_nothing_else(
    profile: str, rich_share: float
) -> None:
    report, injected = audit_run(
        iter_shoes(
            tables=1,
            shoes=1,
            rounds=300,
            profiles=[profile],
            seed=21,
            error_rate=0.3,
            rich_share=rich_share,
        )
    )
    assert len(injected) > 40
    assert [e.to_dict() for e in report.missed] == []
    assert [(f.code, f.shoe, f.round, f.message) for f in report.unexpected] == []


@pytest.mark.parametrize("code", ALL_CLASSES, ids=str)
def test_each_class_alone_is_found_exactly(code: Code) -> None:
    """Every class, injected on its own into every profile where it can happen, at
    plain tables and at rich ones."""
    profiles = APPLIES.get(code, PROFILES)
    kw = {
        "tables": len(profiles),
        "shoes": 1,
        "rounds": ROUNDS.get(code, 250) // 2,
        "profiles": profiles,
        "error_rate": 1.0,
        "error_codes": {code},
    }
    kw["registry"] = GAMES_REG
    plain, plain_injected = audit_run(iter_shoes(seed=5, rich_share=0.0, **kw), GAMES_REG)  # type: ignore[arg-type]
    rich, rich_injected = audit_run(iter_shoes(seed=6, rich_share=1.0, **kw), GAMES_REG)  # type: ignore[arg-type]
    injected = plain_injected + rich_injected
    assert injected, f"{code} was never injected"
    assert {e.code for e in injected} == {code}
    for report in (plain, rich):
        assert [e.to_dict() for e in report.missed] == []
        assert [(f.code, f.shoe, f.round, f.message) for f in report.unexpected] == []


@pytest.mark.slow
def test_hundred_thousand_rounds_clean_and_injected() -> None:
    """≥100,000 rounds: no finding on clean logs; every injected error found, nothing else
    (about half the tables rich: three of four in the clean night, two in the other)."""
    kw = {"tables": 4, "shoes": 1, "rounds": 25_000, "profiles": PROFILES, "rich_share": 0.5}
    clean, _ = audit_run(iter_shoes(seed=100, **kw))  # type: ignore[arg-type]
    assert [(f.code, f.shoe, f.round, f.message) for f in clean.unexpected][:20] == []
    report, injected = audit_run(iter_shoes(seed=101, error_rate=0.05, **kw))  # type: ignore[arg-type]
    assert len(injected) > 3000
    assert [e.to_dict() for e in report.missed][:20] == []
    assert [(f.code, f.shoe, f.round, f.message) for f in report.unexpected][:20] == []
