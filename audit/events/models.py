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

# --------------------------------------------------------------------------- envelope


def _version(v: Any) -> Any:
    # Literal[1] alone also takes true and 1.0 (both == 1 in Python); TEL/1
    # wants the integer (event-log.md: "nor a float for an integer").
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"v is the integer 1, got {v!r}")
    return v


Version = Annotated[Literal[1], BeforeValidator(_version)]


class Envelope(BaseModel):
    """Fields every event carries."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True)

    v: Version = 1
    id: Id
    seq: Positive
    ts: Timestamp
    table: NonEmpty
    shoe: NonEmpty
    type: StrictStr


class RoundEnvelope(Envelope):
    """Round events also carry the round number within the shoe."""

    round: Positive


# --------------------------------------------------------------------------- shoe events


class ShoeOpen(Envelope):
    type: Literal["shoe_open"]
    profile: NonEmpty
    decks: Positive
    dealer: NonEmpty
    currency: Annotated[StrictStr, Field(pattern=r"^[A-Z]{3}$")] | None = None
    min_bet: Stake | None = None
    max_bet: Stake | None = None


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
    kind: Literal["main", "insurance", "bonus"]
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


class UnknownEvent(Envelope):
    """An event whose ``type`` TEL/1 does not define: kept, not replayed."""


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
EVENT_TYPES: dict[str, type[Envelope]] = {**SHOE_EVENT_TYPES, **ROUND_EVENT_TYPES}

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
"""Any TEL/1 event the rules replay."""

AnyEvent = Event | UnknownEvent
