"""TEL/1 (Table Event Log, version 1) as pydantic models.

The wire format is fixed by ``shared/spec/event-log.md``. These models are the
definition the rest of the project follows: the bulk validator of the ingest
path must agree with them line for line (a property test checks it), the JSON
Schema in ``schemas/`` is generated from them, and they give the precise
message for a rejected line.

Types are strict: a string is not a number, a float is not an integer, and
money is exact (a JSON number with at most two decimals, read as ``Decimal``).
Unknown fields are kept. An unknown ``type`` is not malformed: it parses as
:class:`UnknownEvent` (stored, not replayed, reported ``LOG_UNKNOWN_TYPE``).

TEL/1 v1.2 (``shared/spec/accounting.md``) adds the table's books: seven
table-level types (:data:`TABLE_EVENT_TYPES`) that belong to a table, not a
shoe (``shoe`` and ``round`` on them are kept like unknown fields, never
read), and the optional ``stream`` on every event, the writer's sequence
(default: the table's own). ``shoe`` is required on shoe and round events
only; an unknown type needs only ``id``, ``seq``, ``ts``, ``table``, ``type``.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    WithJsonSchema,
    model_validator,
)

from audit.events.cards import normalise_card

TEL_VERSION = 1

INT_MAX = 2**53 - 1
"""The largest integer TEL/1 v1.1 allows (event-log.md "Integers"): every JSON
reader holds it exactly."""
AMOUNT_MAX = Decimal("999999999999.99")
"""The largest amount, in absolute value (event-log.md "Money", TEL/1 v1.1)."""

# --------------------------------------------------------------------------- scalar types


def _money(v: Any) -> Decimal:
    # JSON numbers arrive as int or, with parse_float=Decimal, as Decimal: never
    # as binary float. A float here means the caller parsed without Decimal.
    if isinstance(v, bool) or not isinstance(v, (int, Decimal)):
        raise ValueError(f"money must be a JSON number, got {v!r}")
    d = Decimal(v)
    if not d.is_finite():
        raise ValueError(f"money must be finite, got {v!r}")
    _, digits, exp = d.as_tuple()
    # More than 2 decimals unless the extra ones are zeros (10.500 is 10.50), in
    # any notation (1e-400 is not 0); no quantize, which fails on numbers beyond
    # the context's precision.
    if isinstance(exp, int) and exp < -2 and any(digits[exp + 2 :]):
        raise ValueError(f"money has at most 2 decimals, got {v}")
    # copy_abs, not abs(): abs() rounds to the context and overflows on 1e999999999.
    if d.copy_abs() > AMOUNT_MAX:
        raise ValueError(f"out of range: an amount is at most 999,999,999,999.99, got {v}")
    return d


def _non_negative(d: Decimal) -> Decimal:
    if d < 0:
        raise ValueError(f"a stake is never negative, got {d}")
    return d


_MONEY_SCHEMA = {
    "type": "number",
    "multipleOf": 0.01,
    "minimum": -float(AMOUNT_MAX),
    "maximum": float(AMOUNT_MAX),
}
Money = Annotated[Decimal, BeforeValidator(_money), WithJsonSchema(_MONEY_SCHEMA)]
Stake = Annotated[
    Decimal,
    BeforeValidator(_money),
    AfterValidator(_non_negative),
    WithJsonSchema({**_MONEY_SCHEMA, "minimum": 0}),
]


def _card(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"a card is a string such as 'AS' or 'TD', got {v!r}")
    return normalise_card(v)


Card = Annotated[
    str,
    BeforeValidator(_card),
    WithJsonSchema(
        {"type": "string", "pattern": "^(10|[Aa2-9TtJjQqKk])[SsHhDdCc]$", "examples": ["AS", "TD"]}
    ),
]

# RFC 3339: date, 'T' (or space), time, optional fraction, and a mandatory offset.
_RFC3339 = re.compile(  # ASCII digits ([0-9], not \d, which takes any script's digits)
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})$"
)


def _timestamp(v: Any) -> dt.datetime:
    if not isinstance(v, str):
        raise ValueError(f"ts is an RFC 3339 string with an offset, got {v!r}")
    if not _RFC3339.match(v):
        raise ValueError(
            f"ts must be RFC 3339 with an offset (e.g. 2026-11-28T20:00:00+01:00), got {v!r}"
        )
    try:
        ts = dt.datetime.fromisoformat(v.upper().replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError(f"ts is not a valid date and time: {v!r}") from exc
    try:
        ts.astimezone(dt.UTC)
    except OverflowError:
        raise ValueError(f"ts falls outside the years 1-9999 in UTC: {v!r}") from None
    return ts


Timestamp = Annotated[
    dt.datetime,
    BeforeValidator(_timestamp),
    WithJsonSchema({"type": "string", "format": "date-time"}),
]
Box = Annotated[StrictInt, Field(ge=1, le=7)]
Natural = Annotated[StrictInt, Field(ge=0, le=INT_MAX)]
Positive = Annotated[StrictInt, Field(ge=1, le=INT_MAX)]
Hand = Natural
Spot = Natural
Count = Natural
Position = Positive
Id = Annotated[StrictStr, Field(min_length=1, max_length=128)]
NonEmpty = Annotated[StrictStr, Field(min_length=1)]

# TEL/1 v1.2 (games.md §2): a side-bet id names a wager beside the main stake.
SIDE_BET_ID_PATTERN = "^[a-z0-9][a-z0-9_]{0,31}$"
"""games.md §2: 1-32 characters from a-z, 0-9 and _, not starting with _."""
RESERVED_KINDS = ("main", "insurance", "bonus")
"""The ``settle`` kinds that are no side bet (games.md §2: reserved)."""
_SIDE_BET_ID = re.compile(r"[a-z0-9][a-z0-9_]{0,31}")


def is_side_bet_id(v: object) -> bool:
    """Whether ``v`` has the form of a side-bet id, reserved words aside (games.md §2)."""
    return isinstance(v, str) and _SIDE_BET_ID.fullmatch(v) is not None


def _wager_kind(v: Any) -> str:
    # a settle's kind: main, insurance, bonus, or a side-bet id (each has the id's form)
    if not is_side_bet_id(v):
        raise ValueError(
            "kind is main, insurance, bonus or a side-bet id (1-32 characters from a-z, 0-9 "
            f"and _, not starting with _), got {v!r}"
        )
    return str(v)


def _stake_kind(v: Any) -> str:
    # a bet's kind: main, or a side-bet id; insurance and bonus are no stake of a bet
    if not is_side_bet_id(v) or v in ("insurance", "bonus"):
        raise ValueError(
            "a bet's kind is main or a side-bet id (1-32 characters from a-z, 0-9 and _, not "
            f"starting with _; not insurance or bonus), got {v!r}"
        )
    return str(v)


_KIND_SCHEMA = {"type": "string", "pattern": SIDE_BET_ID_PATTERN}
WagerKind = Annotated[
    str,
    BeforeValidator(_wager_kind),
    WithJsonSchema({**_KIND_SCHEMA, "examples": ["main", "insurance", "bonus", "21plus3"]}),
]
"""A ``settle``'s kind (TEL/1 v1.2): ``main``, ``insurance``, ``bonus`` or a side-bet id."""
StakeKind = Annotated[
    str,
    BeforeValidator(_stake_kind),
    WithJsonSchema(
        {**_KIND_SCHEMA, "not": {"enum": ["insurance", "bonus"]}, "examples": ["21plus3"]}
    ),
]
"""A ``bet``'s kind (TEL/1 v1.2): ``main`` or a side-bet id."""

# --------------------------------------------------------------------------- envelope


def _version(v: Any) -> Any:
    # Literal[1] alone also takes true and 1.0 (both == 1 in Python); TEL/1
    # wants the integer (event-log.md: "nor a float for an integer").
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"v is the integer 1, got {v!r}")
    return v


Version = Annotated[Literal[1], BeforeValidator(_version)]


class TableEnvelope(BaseModel):
    """Fields every event carries (TEL/1 v1.2: ``shoe`` only on shoe and round events)."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True)

    v: Version = 1
    id: Id
    seq: Positive
    ts: Timestamp
    table: NonEmpty
    type: StrictStr
    stream: Id | None = None
    """The writer's sequence (accounting.md): ``seq`` rises per stream; absent, the table's."""

    @property
    def stream_id(self) -> str:
        """The stream ``seq`` counts in: ``stream``, else the table's own."""
        return self.stream or self.table


class Envelope(TableEnvelope):
    """Fields every shoe and round event carries: the envelope and its ``shoe``."""

    shoe: NonEmpty


class RoundEnvelope(Envelope):
    """Round events also carry the round number within the shoe."""

    round: Positive


# --------------------------------------------------------------------------- shoe events


class SideLimit(BaseModel):
    """One side bet's table limits per spot (TEL/1 v1.2, games.md §2): each optional.

    Its keys are exactly these two: a limit the auditor cannot read is not no limit.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    min_bet: Stake | None = None
    max_bet: Stake | None = None


def _side_limit_ids(limits: dict[str, SideLimit] | None) -> dict[str, SideLimit] | None:
    for kind in limits or {}:
        if not is_side_bet_id(kind) or kind in RESERVED_KINDS:
            raise ValueError(f"side_limits names {kind!r}, which is no side-bet id")
    return limits


SideLimits = Annotated[dict[str, SideLimit] | None, AfterValidator(_side_limit_ids)]
"""``shoe_open.side_limits``: side-bet id -> its limits; a side bet not listed has none."""


class ShoeOpen(Envelope):
    type: Literal["shoe_open"]
    profile: NonEmpty
    decks: Positive
    dealer: NonEmpty
    currency: Annotated[StrictStr, Field(pattern=r"^[A-Z]{3}$")] | None = None
    min_bet: Stake | None = None
    max_bet: Stake | None = None
    side_limits: SideLimits = None
    """TEL/1 v1.2 (games.md §2): each side bet's limits at this table."""


class Inspection(Envelope):
    type: Literal["inspection"]
    decks: Positive
    ok: StrictBool


ShuffleMethod = Literal["wash", "riffle", "strip", "box", "machine", "other"]


class Shuffle(Envelope):
    type: Literal["shuffle"]
    method: ShuffleMethod
    order: list[Card] | None = None


class Cut(Envelope):
    type: Literal["cut"]
    by: Literal["box", "dealer"]
    box: Box | None = None
    position: Count | None = None

    @model_validator(mode="after")
    def _box_when_by_box(self) -> Cut:
        if self.by == "box" and self.box is None:
            raise ValueError("a cut 'by': 'box' names the 'box' that cut")
        return self


class CutCard(Envelope):
    type: Literal["cut_card"]
    position: Count


class Burn(Envelope):
    type: Literal["burn"]
    cards: list[Card] = Field(default_factory=list)
    count: Count | None = None
    face_down: StrictBool = True
    pos: Position | None = None

    @model_validator(mode="after")
    def _count_matches_cards(self) -> Burn:
        if self.cards and self.count is not None and self.count != len(self.cards):
            raise ValueError(
                f"burn 'count' {self.count} differs from the {len(self.cards)} cards listed"
            )
        return self

    @property
    def n_cards(self) -> int:
        """How many cards this burn discarded."""
        return len(self.cards) if self.cards else (self.count or 0)


class DealerChange(Envelope):
    type: Literal["dealer_change"]
    dealer: NonEmpty


class ShoeClose(Envelope):
    type: Literal["shoe_close"]
    remaining: Count | None = None
    reason: Literal["cut_card", "reshuffle", "end_of_session", "integrity", "other"]


# --------------------------------------------------------------------------- round events


class RoundOpen(RoundEnvelope):
    type: Literal["round_open"]


class Bet(RoundEnvelope):
    type: Literal["bet"]
    box: Box
    spot: Spot
    amount: Stake
    player: NonEmpty | None = None
    kind: StakeKind = None  # type: ignore[assignment]  # missing: the main stake
    """TEL/1 v1.2 (games.md §2): the stake's wager, ``main`` or a side-bet id; missing is
    ``main`` (:attr:`wager`), kept as None so a v1.1 line stores as it always did."""

    @property
    def wager(self) -> str:
        """The wager this stake is for: ``kind``, else ``main``."""
        return self.kind or "main"


class NoMoreBets(RoundEnvelope):
    type: Literal["no_more_bets"]


class CardDealt(RoundEnvelope):
    type: Literal["card"]
    card: Card
    to: Literal["box", "dealer"]
    box: Box | None = None
    hand: Hand = 0
    face_up: StrictBool = True
    pos: Position | None = None

    @model_validator(mode="after")
    def _box_when_to_box(self) -> CardDealt:
        if self.to == "box" and self.box is None:
            raise ValueError("a card 'to': 'box' names the 'box'")
        return self


class Action(RoundEnvelope):
    type: Literal["action"]
    box: Box
    hand: Hand
    action: Literal["hit", "stand", "double", "split", "surrender"]
    spots: list[Spot] | None = None
    amount: Stake | None = None


class Objection(RoundEnvelope):
    type: Literal["objection"]
    box: Box
    hand: Hand = 0
    spot: Spot
    action: Literal["double", "split"]


class Insurance(RoundEnvelope):
    type: Literal["insurance"]
    box: Box
    spot: Spot
    amount: Stake


class EvenMoney(RoundEnvelope):
    type: Literal["even_money"]
    box: Box
    spot: Spot


class ExposedCard(RoundEnvelope):
    type: Literal["exposed_card"]
    card: Card


class Offer(RoundEnvelope):
    type: Literal["offer"]
    card: Card
    to: Literal["box", "dealer"]
    box: Box | None = None
    accepted: StrictBool

    @model_validator(mode="after")
    def _box_when_to_box(self) -> Offer:
        if self.to == "box" and self.box is None:
            raise ValueError("an offer 'to': 'box' names the 'box'")
        return self


class CutCardOut(RoundEnvelope):
    type: Literal["cut_card_out"]


class Settle(RoundEnvelope):
    type: Literal["settle"]
    box: Box
    hand: Hand
    spot: Spot
    kind: WagerKind
    """``main``, ``insurance``, ``bonus``; TEL/1 v1.2: or a side-bet id (games.md §2)."""
    amount: Money


class Void(RoundEnvelope):
    type: Literal["void"]
    reason: StrictStr


class RoundClose(RoundEnvelope):
    type: Literal["round_close"]


# --------------------------------------------------------------------------- v1.2: the hole card
# games.md §2: before v1.2 these were unknown types (stored, not replayed).


class Peek(RoundEnvelope):
    """The dealer checks his face-down hole card for a blackjack (games.md §2, §3)."""

    type: Literal["peek"]
    blackjack: StrictBool | None = None
    """What the dealer announced, kept for the record: the cards decide."""


class Reveal(RoundEnvelope):
    """The dealer turns his face-down hole card face up (games.md §2)."""

    type: Literal["reveal"]


# --------------------------------------------------------------------------- table events
# TEL/1 v1.2, accounting.md "TEL/1 v1.2: streams and the new events": the table's books.


def _positive_money(d: Decimal) -> Decimal:
    if d <= 0:
        raise ValueError(f"an amount over 0, got {d}")
    return d


def _non_negative_money(d: Decimal) -> Decimal:
    if d < 0:
        raise ValueError(f"an amount of 0 or more, got {d}")
    return d


def _non_zero_money(d: Decimal) -> Decimal:
    if d == 0:
        raise ValueError("an amount other than 0 (an adjustment of 0 corrects nothing)")
    return d


PositiveMoney = Annotated[
    Decimal,
    BeforeValidator(_money),
    AfterValidator(_positive_money),
    WithJsonSchema({**_MONEY_SCHEMA, "exclusiveMinimum": 0}),
]
NonNegativeMoney = Annotated[
    Decimal,
    BeforeValidator(_money),
    AfterValidator(_non_negative_money),
    WithJsonSchema({**_MONEY_SCHEMA, "minimum": 0}),
]
NonZeroMoney = Annotated[
    Decimal,
    BeforeValidator(_money),
    AfterValidator(_non_zero_money),
    WithJsonSchema({**_MONEY_SCHEMA, "not": {"const": 0}}),
]

_GAMING_DAY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def _gaming_day(v: Any) -> dt.date:
    if not isinstance(v, str) or not _GAMING_DAY.match(v):
        raise ValueError(f"a gaming day is a string YYYY-MM-DD, got {v!r}")
    try:
        return dt.date.fromisoformat(v)
    except ValueError:
        raise ValueError(f"not a date: {v!r}") from None


GamingDay = Annotated[
    dt.date,
    BeforeValidator(_gaming_day),
    WithJsonSchema({"type": "string", "format": "date", "pattern": _GAMING_DAY.pattern}),
]
Series = Annotated[StrictStr, Field(min_length=1, max_length=64)]
Role = Literal[
    "dealer",
    "supervisor",
    "cashier",
    "security",
    "runner",
    "count",
    "accounting",
    "controller",
    "other",
]
SlipType = Literal["fill", "credit"]
Side = Literal["table", "cage"]


class ChipCount(BaseModel):
    """One entry of a chip list: a denomination (money over 0) and how many chips of it.

    Its keys are exactly these two: a chip list is money, and a key the
    auditor does not know (a currency, a colour) cannot be read as nothing.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    denomination: PositiveMoney
    count: Count


def _chips_once(chips: list[ChipCount]) -> list[ChipCount]:
    seen: set[Decimal] = set()
    for c in chips:
        if c.denomination in seen:
            raise ValueError(
                f"denomination {c.denomination} listed twice (a chip list names each once)"
            )
        seen.add(c.denomination)
    return chips


ChipList = Annotated[list[ChipCount], AfterValidator(_chips_once)]
"""accounting.md "Shapes": a denomination listed twice makes the line invalid; one
not listed counts 0; the list's value is the sum of denomination times count."""


class Signer(BaseModel):
    """Who signed or attested: an id and a role (the same id twice counts once)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: Id
    role: Role


Signers = list[Signer]


def chips_value(chips: list[ChipCount]) -> Decimal:
    """A chip list's value: the sum of denomination times count."""
    return sum((c.denomination * c.count for c in chips), Decimal(0))


class Inventory(TableEnvelope):
    """A tray counted at opening (``opener``) or closing (``closer``), NJ 13:69D-1.21."""

    type: Literal["inventory"]
    kind: Literal["opener", "closer"]
    chips: ChipList
    signers: Signers
    slip: Positive | None = None


class Fill(TableEnvelope):
    """One side's copy of a fill slip: chips brought from the cage to the table."""

    type: Literal["fill"]
    side: Side = "table"
    series: Series = "fill"
    slip: Positive
    chips: ChipList
    signers: Signers
    requested_by: StrictStr | None = None


class Credit(TableEnvelope):
    """One side's copy of a credit slip: chips returned from the table to the cage."""

    type: Literal["credit"]
    side: Side = "table"
    series: Series = "credit"
    slip: Positive
    chips: ChipList
    signers: Signers
    requested_by: StrictStr | None = None


class SlipVoid(TableEnvelope):
    """A fill or credit slip voided on one side (Ohio 3772-11-31(F): with an explanation)."""

    type: Literal["slip_void"]
    side: Side = "table"
    series: Series = None  # type: ignore[assignment]  # missing: the voided slip's type
    slip: Positive
    of: SlipType
    reason: StrictStr
    signers: Signers

    @property
    def slip_series(self) -> str:
        """The series of the slip voided: ``series``, else its type (``of``)."""
        return self.series or self.of


class BuyIn(TableEnvelope):
    """Chips given from the tray for cash, a marker or another instrument."""

    type: Literal["buy_in"]
    amount: PositiveMoney
    method: Literal["cash", "marker", "other"]
    box: Positive | None = None
    player: StrictStr | None = None
    ref: StrictStr | None = None


class DropCount(TableEnvelope):
    """A table's drop box counted for a gaming day (and shift), by kind."""

    type: Literal["drop_count"]
    gaming_day: GamingDay
    shift: NonEmpty | None = None
    cash: NonNegativeMoney
    markers: NonNegativeMoney = Decimal(0)
    other: NonNegativeMoney = Decimal(0)
    tips: NonNegativeMoney | None = None
    signers: Signers
    drop_box: StrictStr | None = None


AdjustmentLine = Literal[
    "opener", "closer", "fills", "credits", "drop_cash", "drop_markers", "drop_other", "tips"
]


class Adjustment(TableEnvelope):
    """The casino's accounting corrects one figure of a period (NJ 13:69D-1.34)."""

    type: Literal["adjustment"]
    gaming_day: GamingDay
    shift: NonEmpty | None = None
    line: AdjustmentLine
    amount: NonZeroMoney
    reason: NonEmpty
    by: NonEmpty
    reverses: StrictStr | None = None
    ref: StrictStr | None = None


class UnknownEvent(TableEnvelope):
    """An event whose ``type`` TEL/1 does not define: kept, not replayed.

    It needs only the envelope (TEL/1 v1.2: a later table-level type reaches
    this reader as ``LOG_UNKNOWN_TYPE``, not ``LOG_MALFORMED``); its ``shoe``,
    when present, is a non-empty string, as in v1.1 (``null`` is not one)."""

    shoe: NonEmpty = None  # type: ignore[assignment]  # missing: None; null: invalid


SHOE_EVENT_TYPES: dict[str, type[Envelope]] = {
    "shoe_open": ShoeOpen,
    "inspection": Inspection,
    "shuffle": Shuffle,
    "cut": Cut,
    "cut_card": CutCard,
    "burn": Burn,
    "dealer_change": DealerChange,
    "shoe_close": ShoeClose,
}
ROUND_EVENT_TYPES: dict[str, type[Envelope]] = {
    "round_open": RoundOpen,
    "bet": Bet,
    "no_more_bets": NoMoreBets,
    "card": CardDealt,
    "action": Action,
    "objection": Objection,
    "insurance": Insurance,
    "even_money": EvenMoney,
    "exposed_card": ExposedCard,
    "offer": Offer,
    "cut_card_out": CutCardOut,
    "settle": Settle,
    "void": Void,
    "round_close": RoundClose,
    # v1.2: the hole card (games.md §2)
    "peek": Peek,
    "reveal": Reveal,
}
TABLE_EVENT_TYPES: dict[str, type[TableEnvelope]] = {
    "inventory": Inventory,
    "fill": Fill,
    "credit": Credit,
    "slip_void": SlipVoid,
    "buy_in": BuyIn,
    "drop_count": DropCount,
    "adjustment": Adjustment,
}
"""TEL/1 v1.2's table-level types: they belong to a table, not a shoe, and are not replayed."""
EVENT_TYPES: dict[str, type[TableEnvelope]] = {
    **SHOE_EVENT_TYPES,
    **ROUND_EVENT_TYPES,
    **TABLE_EVENT_TYPES,
}

Event = (
    ShoeOpen
    | Inspection
    | Shuffle
    | Cut
    | CutCard
    | Burn
    | DealerChange
    | ShoeClose
    | RoundOpen
    | Bet
    | NoMoreBets
    | CardDealt
    | Action
    | Objection
    | Insurance
    | EvenMoney
    | ExposedCard
    | Offer
    | CutCardOut
    | Settle
    | Void
    | RoundClose
    | Peek
    | Reveal
)
"""Any TEL/1 event the rules replay: the shoe and round events."""

TableEvent = Inventory | Fill | Credit | SlipVoid | BuyIn | DropCount | Adjustment
"""A table-level event of the books (TEL/1 v1.2): read by the reconciliation, never replayed."""

AnyEvent = Event | UnknownEvent
"""What a shoe's replay reads: its events, of known types or not."""

LogEvent = Event | TableEvent | UnknownEvent
"""Any line of a TEL/1 file, as the models read it."""
