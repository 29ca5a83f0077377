"""Accounting errors ``simulate --books`` injects (accounting.md "The simulator").

Each raises exactly its ``ACCT_`` code at its period (table, gaming day,
shift) and nothing else, following "How many findings":

| code | injected as | impact |
|---|---|---|
| ``ACCT_WIN_MISMATCH`` | chips taken from the tray mid-session, no slip | their value |
| ``ACCT_DROP_MISMATCH`` | cash taken from the box before the count | the amount |
| ``ACCT_OPENER_MISMATCH`` | the opener swaps chips of equal value | 0 |
| ``ACCT_INVENTORY_DISCREPANCY``, ``_REPORTABLE`` | chips taken from the locked tray | value |
| ``ACCT_SLIP_SEQUENCE`` | two fills issued in swapped serial order | null |
| ``ACCT_SLIP_DUPLICATE`` | a second fill carries the first's serial, both copies | null |
| ``ACCT_SLIP_VOID`` | a fill voided at the cage before delivery, one signer | null |
| ``ACCT_SLIP_SIGNATURES`` | a fill's table copy signed by one person | null |
| ``ACCT_SLIP_UNMATCHED`` | a delivered fill the table does not record | null |
| ``ACCT_NO_INVENTORY`` | a closer left out (the next opener follows) | null |
| ``ACCT_NO_DROP_COUNT`` | a period's count left out, before the last gaming day | null |
| ``ACCT_ADJUSTMENT_REPORTABLE`` | an adjustment over ``adjustment_report`` | null |

The codes are strings here: the simulator names what the auditor must find
and needs nothing of it.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from audit.findings import money_str
from audit.simulate.tray import Tray

if TYPE_CHECKING:
    from audit.simulate.books import BooksConfig

__all__ = [
    "BOOKS_CODES",
    "LOCKED_TRAY_CODES",
    "SLIP_CODES",
    "BooksInjected",
    "BooksPlan",
    "chips_worth",
    "choose_code",
]

LOCKED_TRAY_CODES: tuple[str, ...] = (
    "ACCT_OPENER_MISMATCH",
    "ACCT_INVENTORY_DISCREPANCY",
    "ACCT_INVENTORY_REPORTABLE",
)
"""Injected between a closer and the next opener: a period whose opener follows a closer."""
SLIP_CODES: tuple[str, ...] = (
    "ACCT_SLIP_SEQUENCE",
    "ACCT_SLIP_DUPLICATE",
    "ACCT_SLIP_VOID",
    "ACCT_SLIP_SIGNATURES",
    "ACCT_SLIP_UNMATCHED",
)
BOOKS_CODES: tuple[str, ...] = (
    "ACCT_WIN_MISMATCH",
    "ACCT_DROP_MISMATCH",
    *LOCKED_TRAY_CODES,
    *SLIP_CODES,
    "ACCT_NO_INVENTORY",
    "ACCT_NO_DROP_COUNT",
    "ACCT_ADJUSTMENT_REPORTABLE",
)
"""Every accounting error ``--books-error`` may name, by the finding it must raise."""


@dataclass
class BooksPlan:
    """The error a period carries, and whether it has been injected yet."""

    code: str
    after_rounds: int
    """Mid-session errors wait this many rounds of the session (or its closer)."""
    done: bool = False


@dataclass(frozen=True, slots=True)
class BooksInjected:
    """One line of ``injected.ndjson`` for an accounting error (cli.md v1.2): the finding
    to raise and its period; ``shoe``, ``round``, ``box`` and ``hand`` null."""

    code: str
    table: str
    gaming_day: dt.date
    shift: str
    impact: Decimal | None
    note: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "table": self.table,
            "shoe": None,
            "round": None,
            "box": None,
            "hand": None,
            "gaming_day": self.gaming_day.isoformat(),
            "shift": self.shift,
            "impact": money_str(self.impact),
            "note": self.note,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BooksInjected:
        impact = d.get("impact")
        return cls(
            d["code"],
            d["table"],
            dt.date.fromisoformat(d["gaming_day"]),
            d["shift"],
            None if impact is None else Decimal(str(impact)),
            d["note"],
        )


def choose_code(
    rng: random.Random, config: BooksConfig, *, compared: bool, before_last_day: bool
) -> BooksPlan | None:
    """Whether a new period carries an error (``config.error_rate``), and which of the
    enabled codes that can raise its finding there: an opener is compared only with a
    closer, a missing count is judged only once a later day's count is stored."""
    if not config.codes or rng.random() >= config.error_rate:
        return None
    codes = [
        c
        for c in BOOKS_CODES
        if c in config.codes
        and (compared or c not in LOCKED_TRAY_CODES)
        and (before_last_day or c != "ACCT_NO_DROP_COUNT")
    ]
    if not codes:
        return None
    return BooksPlan(rng.choice(codes), rng.randint(1, 4))


def chips_worth(tray: Tray, values: list[Decimal], rng: random.Random) -> dict[Decimal, int]:
    """Chips the tray holds worth one of ``values`` (tried in a random order, then in
    turn), largest chip first."""
    order = list(values)
    rng.shuffle(order)
    for value in order:
        left = value
        out: dict[Decimal, int] = {}
        for d in sorted(tray.denominations, reverse=True):
            n = min(int(left // d), tray.chips.get(d, 0))
            if n:
                out[d] = n
                left -= d * n
        if not left:
            return out
    raise AssertionError(f"the tray cannot make any of {values}")
