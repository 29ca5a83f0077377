"""The books' records as the reconciliation reads them, and the periods it makes.

Plain frozen records, no I/O: :mod:`audit.store` builds the inputs from the
stored events (TEL/1 v1.2's table-level types, ``shared/spec/accounting.md``
"TEL/1 v1.2: streams and the new events"), the reconciliation
(:mod:`audit.books.reconcile`) turns them into :class:`Period` s and findings,
and the Master Game Report, ``books``, the report and ``serve`` only format
what a period carries. Money is :class:`~decimal.Decimal`, exact.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

ZERO = Decimal(0)

InventoryKind = Literal["opener", "closer"]
SlipType = Literal["fill", "credit"]
Side = Literal["table", "cage"]
Method = Literal["cash", "marker", "other"]
AdjustmentLine = Literal[
    "opener", "closer", "fills", "credits", "drop_cash", "drop_markers", "drop_other", "tips"
]
PeriodStatus = Literal["not_audited", "incomplete", "pending", "reconciled"]

ADJUSTMENT_LINES: tuple[str, ...] = (
    "opener",
    "closer",
    "fills",
    "credits",
    "drop_cash",
    "drop_markers",
    "drop_other",
    "tips",
)
WIN_EFFECT: dict[str, int] = {
    "closer": 1,
    "credits": 1,
    "drop_cash": 1,
    "drop_markers": 1,
    "drop_other": 1,
    "opener": -1,
    "fills": -1,
    "tips": 0,
}
"""accounting.md "Adjustments": the win moves by +amount, -amount or 0."""


@dataclass(frozen=True, slots=True)
class Chip:
    """A denomination and how many chips of it (a chip list's entry)."""

    denomination: Decimal
    count: int


@dataclass(frozen=True, slots=True)
class Chips:
    """A chip list: what a tray holds, or a slip moves, by denomination."""

    chips: tuple[Chip, ...] = ()

    @property
    def value(self) -> Decimal:
        return sum((c.denomination * c.count for c in self.chips), ZERO)

    def count_of(self, denomination: Decimal) -> int:
        """How many chips of ``denomination`` (0 when not listed)."""
        return sum(c.count for c in self.chips if c.denomination == denomination)


@dataclass(frozen=True, slots=True)
class Signer:
    id: str
    role: str


@dataclass(frozen=True, slots=True)
class Place:
    """Where an event lies: its id, stream and seq, its time (aware), and the
    file:line it was read from (a finding's ``source``)."""

    id: str
    stream: str
    seq: int
    ts: dt.datetime
    source: str | None = None


@dataclass(frozen=True, slots=True)
class Inventory:
    """An ``inventory`` event: a tray counted at opening (opener) or closing (closer)."""

    at: Place
    table: str
    kind: InventoryKind
    chips: Chips
    signers: tuple[Signer, ...]
    slip: int | None = None


@dataclass(frozen=True, slots=True)
class SlipCopy:
    """A ``fill`` or ``credit`` event: one side's copy of a slip."""

    at: Place
    table: str
    type: SlipType
    side: Side
    series: str
    slip: int
    chips: Chips
    signers: tuple[Signer, ...]
    requested_by: str | None = None


@dataclass(frozen=True, slots=True)
class SlipVoid:
    """A ``slip_void`` event: a slip voided on one side."""

    at: Place
    table: str
    of: SlipType
    side: Side
    series: str
    slip: int
    reason: str
    signers: tuple[Signer, ...]


@dataclass(frozen=True, slots=True)
class BuyIn:
    """A ``buy_in`` event: chips given from the tray for cash, a marker or another instrument."""

    at: Place
    table: str
    amount: Decimal
    method: Method
    box: int | None = None
    player: str | None = None
    ref: str | None = None


@dataclass(frozen=True, slots=True)
class DropCount:
    """A ``drop_count`` event: a drop box counted for a gaming day (and shift)."""

    at: Place
    table: str
    gaming_day: dt.date
    shift: str | None
    cash: Decimal
    markers: Decimal = ZERO
    other: Decimal = ZERO
    tips: Decimal | None = None
    signers: tuple[Signer, ...] = ()
    drop_box: str | None = None

    @property
    def total(self) -> Decimal:
        return self.cash + self.markers + self.other


@dataclass(frozen=True, slots=True)
class Adjustment:
    """An adjustment: an ``adjustment`` event from the log (``source`` "log"), or one a
    manager recorded in the review trail (``source`` "trail")."""

    id: str
    source: Literal["log", "trail"]
    table: str
    gaming_day: dt.date
    shift: str | None
    line: str
    amount: Decimal
    reason: str
    by: str
    reverses: str | None = None
    ref: str | None = None
    at: Place | None = None
    """The log event's place (``None`` for the trail's)."""
    os_user: str | None = None
    recorded_at: dt.datetime | None = None

    @property
    def effect(self) -> Decimal:
        """The adjustment's effect on the win (accounting.md "Adjustments")."""
        return self.amount * WIN_EFFECT[self.line]


@dataclass(frozen=True, slots=True)
class HandsMoney:
    """The hands' money at one place of a table's timeline: the settlements, round
    opens and handle that lie there. The store may sum several settlements (or
    whole rounds) into one item when no inventory of the table lies between them;
    a round's ``rounds``/``handle`` count where its ``round_open`` lies."""

    at: Place
    table: str
    result: Decimal
    """R's share: minus the sum of the settlements' amounts (house view)."""
    rounds: int = 0
    handle: Decimal = ZERO
    first_round: tuple[str, int] | None = None
    """(shoe, round) of the first round counted here, for the period page's links."""


@dataclass(slots=True)
class Figures:
    """A period's (or a session's) figures, accounting.md "A period's figures"; ``None``
    where the page says a figure is null."""

    sessions: int = 0
    opener: Decimal | None = None
    closer: Decimal | None = None
    fills: Decimal = ZERO
    credits: Decimal = ZERO
    buy_ins_cash: Decimal = ZERO
    buy_ins_markers: Decimal = ZERO
    buy_ins_other: Decimal = ZERO
    rounds: int = 0
    handle: Decimal = ZERO
    hands_result: Decimal = ZERO
    drop_cash: Decimal | None = None
    drop_markers: Decimal | None = None
    drop_other: Decimal | None = None
    tips: Decimal | None = None
    tray_win: Decimal | None = None
    win: Decimal | None = None

    @property
    def buy_ins(self) -> Decimal:
        return self.buy_ins_cash + self.buy_ins_markers + self.buy_ins_other

    @property
    def drop(self) -> Decimal | None:
        if self.drop_cash is None:
            return None
        return self.drop_cash + (self.drop_markers or ZERO) + (self.drop_other or ZERO)


@dataclass(slots=True)
class Session:
    """An opener to the table's next closer (``closer`` ``None``: none stored yet)."""

    table: str
    opener: Inventory
    closer: Inventory | None
    figures: Figures = field(default_factory=Figures)


@dataclass(slots=True)
class Period:
    """A table, gaming day and shift: its sessions, figures, status and the records
    behind them (for the period page)."""

    table: str
    gaming_day: dt.date
    shift: str
    pit: str | None
    status: PeriodStatus
    figures: Figures
    sessions: list[Session] = field(default_factory=list)
    slips: list[SlipCopy] = field(default_factory=list)
    voids: list[SlipVoid] = field(default_factory=list)
    buy_ins: list[BuyIn] = field(default_factory=list)
    counts: list[DropCount] = field(default_factory=list)
    adjustments: list[Adjustment] = field(default_factory=list)
    currency: str | None = None


@dataclass(frozen=True, slots=True)
class HandsFinding:
    """A stored finding of a table's hands that can explain its tray (a ``PAY_`` finding,
    or a ``LOG_SEQ_GAP`` in its stream): the ``ACCT_WIN_MISMATCH`` of the session it falls
    in names it (accounting.md "How many findings": the ``PAY_`` finding for the wager, the
    ``ACCT_`` one, naming it, for the money)."""

    id: str
    code: str
    table: str
    shoe: str | None
    round: int | None
    ts: dt.datetime
    """Its round's ``round_open`` time, else its first event's (aware)."""

    def place(self) -> str:
        """Where it is, as a reader finds it: ``T01 shoe S round 12``."""
        where = self.table
        if self.shoe is not None:
            where += f" shoe {self.shoe}"
        if self.round is not None:
            where += f" round {self.round}"
        return where
