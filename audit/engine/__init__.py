"""The reference rules engine: replay one shoe under its rule profile.

Pure: events and a :class:`~audit.profiles.Profile` in, a :class:`ShoeReplay`
(findings, rounds with their outcomes and judged wagers, and with ``trace`` the
steps) out. No I/O, no clock, no randomness, no globals; it imports neither
DuckDB, polars nor jinja.

Entry points: :func:`replay_shoe` (and :func:`replay_shoe_of` for round events
that come as lean :class:`RoundEvent` records, as ``run`` builds them). How a
round is replayed: :mod:`audit.engine.round` (the phases); the rules:
:mod:`audit.engine.play`, :mod:`audit.engine.bets`, :mod:`audit.engine.deal`,
:mod:`audit.engine.dealer`, :mod:`audit.engine.payout`,
:mod:`audit.engine.judge`, :mod:`audit.engine.shoe`.
"""

from audit.engine.event import RoundEvent, money, round_event
from audit.engine.hands import best_total, is_natural
from audit.engine.outcome import RoundRow, ShoeOutcome, WagerRow
from audit.engine.phase import Phase
from audit.engine.replay import audit_shoe, replay_shoe, replay_shoe_of
from audit.engine.result import (
    DealerRecord,
    HandRecord,
    RoundReplay,
    ShoeContext,
    ShoeReplay,
    Step,
    WagerRecord,
)

ENGINE_VERSION = "2.1.0"
"""Bumped whenever a rule changes: shoes audited with another version are re-audited."""

__all__ = [
    "ENGINE_VERSION",
    "DealerRecord",
    "HandRecord",
    "Phase",
    "RoundEvent",
    "RoundReplay",
    "RoundRow",
    "ShoeContext",
    "ShoeOutcome",
    "ShoeReplay",
    "Step",
    "WagerRecord",
    "WagerRow",
    "audit_shoe",
    "best_total",
    "is_natural",
    "money",
    "replay_shoe",
    "replay_shoe_of",
    "round_event",
]
