"""Findings: one breach of a rule, tied to the events that prove it.

The codes are the contract with downstream users (``shared/spec/rules.md``,
"The catalogue (v1)"); a finding is a frozen record. Its JSON form is fixed by
``shared/spec/cli.md`` ("A finding as --format jsonl writes it").
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    """How bad a breach is: money moved wrongly, rules broken, procedure, information."""

    CRITICAL = "critical"
    MAJOR = "major"
    MINOR = "minor"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Higher is worse: info 0, minor 1, major 2, critical 3."""
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {
    Severity.INFO: 0,
    Severity.MINOR: 1,
    Severity.MAJOR: 2,
    Severity.CRITICAL: 3,
}


class Code(StrEnum):
    """The finding catalogue, v1.2 (rules.md; v1.1 adds ``LOG_TAMPERED``, v1.2 the
    books' ``ACCT_`` codes of accounting.md)."""

    LOG_MALFORMED = "LOG_MALFORMED"
    LOG_SEQ_GAP = "LOG_SEQ_GAP"
    LOG_ID_CONFLICT = "LOG_ID_CONFLICT"
    LOG_UNKNOWN_PROFILE = "LOG_UNKNOWN_PROFILE"
    LOG_INCOMPLETE = "LOG_INCOMPLETE"
    LOG_UNKNOWN_TYPE = "LOG_UNKNOWN_TYPE"
    LOG_TAMPERED = "LOG_TAMPERED"
    SHOE_NO_SHUFFLE = "SHOE_NO_SHUFFLE"
    SHOE_NO_CUT = "SHOE_NO_CUT"
    SHOE_NO_INSPECTION = "SHOE_NO_INSPECTION"
    SHOE_DECKS = "SHOE_DECKS"
    SHOE_BURN_COUNT = "SHOE_BURN_COUNT"
    SHOE_CUT_CARD_DEPTH = "SHOE_CUT_CARD_DEPTH"
    SHOE_CARD_EXCESS = "SHOE_CARD_EXCESS"
    SHOE_POSITION_GAP = "SHOE_POSITION_GAP"
    SHOE_ORDER_MISMATCH = "SHOE_ORDER_MISMATCH"
    SHOE_ROUND_AFTER_CUT_CARD = "SHOE_ROUND_AFTER_CUT_CARD"
    SHOE_RECONCILIATION = "SHOE_RECONCILIATION"
    BET_AFTER_NO_MORE_BETS = "BET_AFTER_NO_MORE_BETS"
    BET_LIMIT = "BET_LIMIT"
    BET_SPOTS = "BET_SPOTS"
    DEAL_ORDER = "DEAL_ORDER"
    DEAL_OUT_OF_TURN = "DEAL_OUT_OF_TURN"
    PLAY_HIT_ON_BLACKJACK = "PLAY_HIT_ON_BLACKJACK"
    PLAY_HIT_ON_21 = "PLAY_HIT_ON_21"
    PLAY_HIT_AFTER_BUST = "PLAY_HIT_AFTER_BUST"
    PLAY_MANDATORY_HIT = "PLAY_MANDATORY_HIT"
    PLAY_ILLEGAL_DOUBLE = "PLAY_ILLEGAL_DOUBLE"
    PLAY_SURRENDER = "PLAY_SURRENDER"
    PLAY_DOUBLE_CARDS = "PLAY_DOUBLE_CARDS"
    PLAY_ILLEGAL_SPLIT = "PLAY_ILLEGAL_SPLIT"
    PLAY_SPLIT_ACES_CARDS = "PLAY_SPLIT_ACES_CARDS"
    PLAY_UNCONSENTED = "PLAY_UNCONSENTED"
    PLAY_ILLEGAL_INSURANCE = "PLAY_ILLEGAL_INSURANCE"
    PLAY_ILLEGAL_EVEN_MONEY = "PLAY_ILLEGAL_EVEN_MONEY"
    PLAY_EXPOSED_CARD = "PLAY_EXPOSED_CARD"
    DEALER_DREW_ON_STAND = "DEALER_DREW_ON_STAND"
    DEALER_STOOD_ON_DRAW = "DEALER_STOOD_ON_DRAW"
    DEALER_BANKER_ROTATION = "DEALER_BANKER_ROTATION"
    PAY_SPLIT_BLACKJACK_AS_NATURAL = "PAY_SPLIT_BLACKJACK_AS_NATURAL"
    PAY_BLACKJACK_SHORT = "PAY_BLACKJACK_SHORT"
    PAY_WRONG_OUTCOME = "PAY_WRONG_OUTCOME"
    PAY_WRONG_AMOUNT = "PAY_WRONG_AMOUNT"
    PAY_INSURANCE = "PAY_INSURANCE"
    PAY_BONUS = "PAY_BONUS"
    PAY_MISSING = "PAY_MISSING"
    PAY_DUPLICATE = "PAY_DUPLICATE"
    PAY_UNKNOWN_WAGER = "PAY_UNKNOWN_WAGER"
    PAY_ORDER = "PAY_ORDER"
    PAY_TIMING = "PAY_TIMING"
    # TEL/1 v1.2's books (accounting.md "The catalogue: codes added with TEL/1 v1.2's books")
    ACCT_WIN_MISMATCH = "ACCT_WIN_MISMATCH"
    ACCT_DROP_MISMATCH = "ACCT_DROP_MISMATCH"
    ACCT_OPENER_MISMATCH = "ACCT_OPENER_MISMATCH"
    ACCT_INVENTORY_DISCREPANCY = "ACCT_INVENTORY_DISCREPANCY"
    ACCT_INVENTORY_REPORTABLE = "ACCT_INVENTORY_REPORTABLE"
    ACCT_SLIP_SEQUENCE = "ACCT_SLIP_SEQUENCE"
    ACCT_SLIP_DUPLICATE = "ACCT_SLIP_DUPLICATE"
    ACCT_SLIP_VOID = "ACCT_SLIP_VOID"
    ACCT_SLIP_SIGNATURES = "ACCT_SLIP_SIGNATURES"
    ACCT_SLIP_UNMATCHED = "ACCT_SLIP_UNMATCHED"
    ACCT_NO_INVENTORY = "ACCT_NO_INVENTORY"
    ACCT_NO_DROP_COUNT = "ACCT_NO_DROP_COUNT"
    ACCT_ADJUSTMENT_REPORTABLE = "ACCT_ADJUSTMENT_REPORTABLE"

    # v1.2, the hole card and the peek (games.md §4)
    DEAL_PEEK_MISSING = "DEAL_PEEK_MISSING"
    DEAL_PEEK_NEEDLESS = "DEAL_PEEK_NEEDLESS"
    DEAL_HOLE_CARD_SHOWN = "DEAL_HOLE_CARD_SHOWN"
    PLAY_AFTER_DEALER_BLACKJACK = "PLAY_AFTER_DEALER_BLACKJACK"
    # v1.2, side bets (games.md §4)
    BET_SIDE_NOT_OFFERED = "BET_SIDE_NOT_OFFERED"
    PAY_SIDE_BET = "PAY_SIDE_BET"

    @property
    def severity(self) -> Severity:
        """The catalogue's severity for this code."""
        return SEVERITY[self]

    @property
    def is_books(self) -> bool:
        """An ``ACCT_`` code: a breach of a table's books (accounting.md), identified by
        its period and the catalogue's key rather than by a shoe and round."""
        return self.value.startswith("ACCT_")


_C, _J, _N = Severity.CRITICAL, Severity.MAJOR, Severity.MINOR
SEVERITY: dict[Code, Severity] = {
    Code.LOG_MALFORMED: _J,
    Code.LOG_SEQ_GAP: _J,
    Code.LOG_ID_CONFLICT: _C,
    Code.LOG_UNKNOWN_PROFILE: _J,
    Code.LOG_INCOMPLETE: _J,
    Code.LOG_UNKNOWN_TYPE: _N,
    Code.LOG_TAMPERED: _C,
    Code.SHOE_NO_SHUFFLE: _J,
    Code.SHOE_NO_CUT: _N,
    Code.SHOE_NO_INSPECTION: _N,
    Code.SHOE_DECKS: _J,
    Code.SHOE_BURN_COUNT: _J,
    Code.SHOE_CUT_CARD_DEPTH: _N,
    Code.SHOE_CARD_EXCESS: _C,
    Code.SHOE_POSITION_GAP: _C,
    Code.SHOE_ORDER_MISMATCH: _C,
    Code.SHOE_ROUND_AFTER_CUT_CARD: _J,
    Code.SHOE_RECONCILIATION: _C,
    Code.BET_AFTER_NO_MORE_BETS: _C,
    Code.BET_LIMIT: _N,
    Code.BET_SPOTS: _N,
    Code.DEAL_ORDER: _J,
    Code.DEAL_OUT_OF_TURN: _J,
    Code.PLAY_HIT_ON_BLACKJACK: _J,
    Code.PLAY_HIT_ON_21: _J,
    Code.PLAY_HIT_AFTER_BUST: _J,
    Code.PLAY_MANDATORY_HIT: _J,
    Code.PLAY_ILLEGAL_DOUBLE: _J,
    Code.PLAY_SURRENDER: _J,
    Code.PLAY_DOUBLE_CARDS: _J,
    Code.PLAY_ILLEGAL_SPLIT: _J,
    Code.PLAY_SPLIT_ACES_CARDS: _J,
    Code.PLAY_UNCONSENTED: _J,
    Code.PLAY_ILLEGAL_INSURANCE: _J,
    Code.PLAY_ILLEGAL_EVEN_MONEY: _J,
    Code.PLAY_EXPOSED_CARD: _J,
    Code.DEALER_DREW_ON_STAND: _J,
    Code.DEALER_STOOD_ON_DRAW: _J,
    Code.DEALER_BANKER_ROTATION: _N,
    Code.PAY_SPLIT_BLACKJACK_AS_NATURAL: _C,
    Code.PAY_BLACKJACK_SHORT: _C,
    Code.PAY_WRONG_OUTCOME: _C,
    Code.PAY_WRONG_AMOUNT: _C,
    Code.PAY_INSURANCE: _C,
    Code.PAY_BONUS: _C,
    Code.PAY_MISSING: _C,
    Code.PAY_DUPLICATE: _C,
    Code.PAY_UNKNOWN_WAGER: _C,
    Code.PAY_ORDER: _N,
    Code.PAY_TIMING: _N,
    Code.ACCT_WIN_MISMATCH: _C,
    Code.ACCT_DROP_MISMATCH: _C,
    Code.ACCT_OPENER_MISMATCH: _N,
    Code.ACCT_INVENTORY_DISCREPANCY: _J,
    Code.ACCT_INVENTORY_REPORTABLE: _C,
    Code.ACCT_SLIP_SEQUENCE: _J,
    Code.ACCT_SLIP_DUPLICATE: _C,
    Code.ACCT_SLIP_VOID: _J,
    Code.ACCT_SLIP_SIGNATURES: _N,
    Code.ACCT_SLIP_UNMATCHED: _C,
    Code.ACCT_NO_INVENTORY: _J,
    Code.ACCT_NO_DROP_COUNT: _J,
    Code.ACCT_ADJUSTMENT_REPORTABLE: Severity.INFO,
    # v1.2, the hole card and the peek (games.md §4)
    Code.DEAL_PEEK_MISSING: _J,
    Code.DEAL_PEEK_NEEDLESS: _N,
    Code.DEAL_HOLE_CARD_SHOWN: _J,
    Code.PLAY_AFTER_DEALER_BLACKJACK: _J,
    # v1.2, side bets (games.md §4)
    Code.BET_SIDE_NOT_OFFERED: _J,
    Code.PAY_SIDE_BET: _C,
}


def money_str(amount: Decimal | int | None) -> str | None:
    """Money as the shortest exact decimal string: ``"10"``, ``"37.5"``, ``"-50"``."""
    if amount is None:
        return None
    d = Decimal(amount)
    if d == d.to_integral_value():
        return str(d.quantize(Decimal(1)))
    return format(d.normalize(), "f")


FINDING_KEYS = (
    "code",
    "severity",
    "table",
    "shoe",
    "round",
    "box",
    "hand",
    "spot",
    "expected",
    "actual",
    "impact",
    "rule",
    "events",
    "source",
    "message",
    "id",
    "gaming_day",
    "shift",
)
"""Every key of a finding's JSON form, in the order cli.md writes them (``id`` added;
``gaming_day`` and ``shift``, accounting.md "Findings": "two keys every finding gains")."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One breach of one rule, with the evidence (event ids) that proves it."""

    code: Code
    message: str
    table: str | None = None
    shoe: str | None = None
    round: int | None = None
    box: int | None = None
    hand: int | None = None
    spot: int | None = None
    expected: str | None = None
    actual: str | None = None
    impact: Decimal | None = None
    rule: str | None = None
    events: tuple[str, ...] = field(default_factory=tuple)
    source: str | None = None
    id: str | None = None
    """The stable id (:func:`finding_id`), once the finding is stored."""
    gaming_day: dt.date | None = None
    """For ``ACCT_`` codes its period's gaming day (or as the catalogue says), for others
    the shoe's ``shoe_open``'s; ``None`` where none applies (or not yet known)."""
    shift: str | None = None
    """The house file's shift, as ``gaming_day``."""
    key: str | None = None
    """For ``ACCT_`` codes, the catalogue's key column (an opener's id, a slip key, an
    adjustment's id; ``None`` where it says "none"): with the code, table, gaming day
    and shift, what identifies the breach (accounting.md "Findings")."""

    @property
    def severity(self) -> Severity:
        return self.code.severity

    def identity(self) -> tuple[object, ...]:
        """What identifies the breach (not its message or evidence): code and place.

        An ``ACCT_`` finding's place is its period and the catalogue's key
        (accounting.md: "made of its code, table, gaming day, shift and the
        catalogue's key"); every other code keeps v1's identity exactly, whatever its
        ``gaming_day`` and ``shift``, so the ids already stored and reviewed never move.
        """
        if self.code.is_books:
            return (
                str(self.code),
                self.table,
                None if self.gaming_day is None else self.gaming_day.isoformat(),
                self.shift,
                self.key,
            )
        return (
            str(self.code),
            self.table,
            self.shoe,
            self.round,
            self.box,
            self.hand,
            self.spot,
            self.source,
        )

    def to_dict(self) -> dict[str, Any]:
        """The finding as cli.md's JSONL writes it: every key, money as strings."""
        return {
            "code": str(self.code),
            "severity": str(self.severity),
            "table": self.table,
            "shoe": self.shoe,
            "round": self.round,
            "box": self.box,
            "hand": self.hand,
            "spot": self.spot,
            "expected": self.expected,
            "actual": self.actual,
            "impact": money_str(self.impact),
            "rule": self.rule,
            "events": list(self.events),
            "source": self.source,
            "message": self.message,
            "id": self.id,
            "gaming_day": None if self.gaming_day is None else self.gaming_day.isoformat(),
            "shift": self.shift,
        }

    def to_json(self) -> str:
        """One line of ``findings --format jsonl``."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))


def finding_id(identity: Sequence[object], occurrence: int) -> str:
    """A finding's stable id: 16 hex characters of the SHA-256 of what identifies it.

    ``identity`` is :meth:`Finding.identity` (code, table, shoe, round, box,
    hand, spot, source; for an ``ACCT_`` code: code, table, gaming day, shift and
    the catalogue's key, occurrence 0); ``occurrence`` tells apart breaches of one code at one
    place (the n-th in the shoe's replay order; for ingest findings their line
    or ``seq``). The message, the figures and the evidence are not part of it,
    so a breach keeps its id across re-runs, re-ingests and engine upgrades.
    The store computes the same id in SQL (:data:`audit.store.schema.FINDING_ID_SQL`).
    """
    parts = [*("" if p is None else str(p) for p in identity), str(occurrence)]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def assign_ids(findings: Sequence[Finding]) -> list[str]:
    """The stable ids of one shoe's replay findings, in order (occurrences counted per place)."""
    seen: dict[tuple[object, ...], int] = {}
    out = []
    for f in findings:
        key = f.identity()
        n = seen.get(key, 0)
        seen[key] = n + 1
        out.append(finding_id(key, n))
    return out
