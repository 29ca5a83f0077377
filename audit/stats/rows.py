"""One statistical test's result: the row ``shoe-audit stats`` prints (cli.md, ``stats``).

A flag is never a rule breach and never a ``findings`` row: it is a reason to
look. Each test states the smallest sample it judges (:class:`TestSpec`);
below it the row is still printed, with its figures, but takes no part in the
correction and never flags, so a quiet table on a quiet night cannot cry wolf.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["STAT_KEYS", "Scope", "StatRow", "TestSpec"]

STAT_KEYS = (
    "test",
    "scope",
    "subject",
    "n",
    "statistic",
    "p_value",
    "adjusted_p",
    "flag",
    "expected",
    "observed",
    "message",
)
"""cli.md's keys of a ``stats --format jsonl`` line, in order."""

Scope = str
"""``table``, ``dealer``, ``shoe``, ``player`` or ``day``."""

Value = float | dict[str, float] | None


@dataclass(frozen=True, slots=True)
class TestSpec:
    """What a test is: its name, what it counts, its scopes and smallest judged sample."""

    name: str
    unit: str
    """what ``n`` counts (``hands``, ``rounds``, ``cards``, ...)."""
    scopes: tuple[Scope, ...]
    min_n: int
    summary: str
    corrected: bool = True
    """Whether the row's p-value joins the correction; a test judged by a regulator's fixed
    threshold (``payout_30d``) has none, and flags by its own rule."""


@dataclass(frozen=True, slots=True)
class StatRow:
    """One test of one subject. ``expected``/``observed`` are a number, or one per
    category (per up card, per rank) for a test across categories."""

    test: str
    scope: Scope
    subject: str
    n: int
    statistic: float | None
    p_value: float | None
    expected: Value
    observed: Value
    message: str
    judged: bool
    adjusted_p: float | None = None
    flag: bool = False
    unjudged: str = ""
    """Why a row at or above its minimum sample is still not judged (stakes that never vary)."""
    detail: Mapping[str, Any] = field(default_factory=dict)
    """What the report draws beside the row (bands, per-category counts); not printed."""

    def corrected(self, adjusted_p: float, alpha: float) -> StatRow:
        return replace(self, adjusted_p=adjusted_p, flag=adjusted_p <= alpha)

    def to_dict(self) -> dict[str, Any]:
        """cli.md's keys, JSON values (a non-finite number as null)."""
        return {
            "test": self.test,
            "scope": self.scope,
            "subject": self.subject,
            "n": self.n,
            "statistic": _finite(self.statistic),
            "p_value": _finite(self.p_value),
            "adjusted_p": _finite(self.adjusted_p),
            "flag": self.flag,
            "expected": _value(self.expected),
            "observed": _value(self.observed),
            "message": self.message,
        }


def _finite(x: float | None) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return float(x)


def _value(v: Value) -> Value:
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}  # type: ignore[misc]
    return _finite(v)
