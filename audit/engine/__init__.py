"""The reference rules engine: replay one shoe under its rule profile.

Pure: TEL/1 events and a :class:`~audit.profiles.Profile` in, a
:class:`ShoeReplay` (findings, rounds step by step) out. No I/O, no clock, no
randomness, no globals; it imports neither DuckDB, polars nor jinja.

Entry point: :func:`replay_shoe`. Hand arithmetic for the simulator:
:mod:`audit.engine.hands`.
"""

from audit.engine.hands import HandState, best_total, is_natural
from audit.engine.replay import replay_shoe
from audit.engine.result import (
    DealerRecord,
    HandRecord,
    RoundReplay,
    ShoeContext,
    ShoeReplay,
    Step,
    WagerRecord,
)

ENGINE_VERSION = "1.0.1"
"""Bumped whenever a rule changes: shoes audited with another version are re-audited."""

__all__ = [
    "ENGINE_VERSION",
    "DealerRecord",
    "HandRecord",
    "HandState",
    "RoundReplay",
    "ShoeContext",
    "ShoeReplay",
    "Step",
    "WagerRecord",
    "best_total",
    "is_natural",
    "replay_shoe",
]
