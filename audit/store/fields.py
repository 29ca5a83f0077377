"""The TEL/1 fields as the bulk validator and the ``events`` table see them.

One :class:`Field` per field of each event model in
:mod:`audit.events.models`. The models stay the definition: a test checks this
table against their ``model_fields`` (names, required, defaults), and a
property test checks that the SQL built from it accepts exactly what
:func:`audit.events.parse.parse_line` accepts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal[
    "int",
    "str",
    "nonempty",
    "name",
    "currency",
    "bool",
    "enum",
    "card",
    "cards",
    "spots",
    "money",
    "stake",
    "positive",
    "nonzero",
    "day",
    "chips",
    "signers",
    "wager",
    "stake_kind",
    "side_limits",
]
"""How a field is checked. TEL/1 v1.2 adds ``name`` (a string of ``lo`` to ``hi``
characters), ``positive`` and ``nonzero`` money (``stake`` is money of 0 or more),
``day`` (a gaming day, ``YYYY-MM-DD``), and the lists of objects ``chips`` and
``signers``, which the bulk validator leaves to the models (they are few: a
table's inventories, slips, voids and counts). Side bets (games.md §2) add ``wager``
(a ``settle``'s kind: ``main``, ``insurance``, ``bonus`` or a side-bet id),
``stake_kind`` (a ``bet``'s: ``main`` or a side-bet id) and ``side_limits`` (an object of
``shoe_open``, left to the models like the lists of objects: one line a shoe)."""
Presence = Literal["required", "optional", "default"]
"""``required``: present and not null; ``optional``: ``X | None = None`` (null or
missing is None); ``default``: may be missing (then the default) but not null."""

INT_MAX = 2**53 - 1
"""The largest TEL/1 integer (event-log.md "Integers", v1.1); as ``models.INT_MAX``."""


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    kind: Kind
    presence: Presence = "required"
    lo: int = 0
    hi: int = INT_MAX
    values: tuple[str, ...] = ()
    default: object = None


def _int(name: str, lo: int, presence: Presence = "required", hi: int = INT_MAX) -> Field:
    return Field(name, "int", presence, lo=lo, hi=hi)


def _box(presence: Presence = "required") -> Field:
    return _int("box", 1, presence, hi=7)


def _enum(name: str, *values: str) -> Field:
    return Field(name, "enum", values=values)


def _default_enum(name: str, default: str, *values: str) -> Field:
    return Field(name, "enum", "default", values=values, default=default)


_SIDE = _default_enum("side", "table", "table", "cage")
_CHIPS = Field("chips", "chips")
_SIGNERS = Field("signers", "signers")
_SLIP = _int("slip", 1)


ROUND = _int("round", 1)

TYPES: dict[str, tuple[Field, ...]] = {
    "shoe_open": (
        Field("profile", "nonempty"),
        _int("decks", 1),
        Field("dealer", "nonempty"),
        Field("currency", "currency", "optional"),
        Field("min_bet", "stake", "optional"),
        Field("max_bet", "stake", "optional"),
        Field("side_limits", "side_limits", "optional"),  # v1.2 (games.md §2)
    ),
    "inspection": (_int("decks", 1), Field("ok", "bool")),
    "shuffle": (
        _enum("method", "wash", "riffle", "strip", "box", "machine", "other"),
        Field("order", "cards", "optional"),
    ),
    "cut": (
        _enum("by", "box", "dealer"),
        _box("optional"),
        _int("position", 0, "optional"),
    ),
    "cut_card": (_int("position", 0),),
    "burn": (
        Field("cards", "cards", "default", default=()),
        _int("count", 0, "optional"),
        Field("face_down", "bool", "default", default=True),
        _int("pos", 1, "optional"),
    ),
    "dealer_change": (Field("dealer", "nonempty"),),
    "shoe_close": (
        _int("remaining", 0, "optional"),
        _enum("reason", "cut_card", "reshuffle", "end_of_session", "integrity", "other"),
    ),
    "round_open": (),
    "bet": (
        _box(),
        _int("spot", 0),
        Field("amount", "stake"),
        Field("player", "nonempty", "optional"),
        # v1.2 (games.md §2): missing is the main stake, stored NULL as a v1.1 line always was
        Field("kind", "stake_kind", "default", default=None),
    ),
    "no_more_bets": (),
    "card": (
        Field("card", "card"),
        _enum("to", "box", "dealer"),
        _box("optional"),
        Field("hand", "int", "default", lo=0, default=0),
        Field("face_up", "bool", "default", default=True),
        _int("pos", 1, "optional"),
    ),
    "action": (
        _box(),
        _int("hand", 0),
        _enum("action", "hit", "stand", "double", "split", "surrender"),
        Field("spots", "spots", "optional"),
        Field("amount", "stake", "optional"),
    ),
    "objection": (
        _box(),
        Field("hand", "int", "default", lo=0, default=0),
        _int("spot", 0),
        _enum("action", "double", "split"),
    ),
    "insurance": (_box(), _int("spot", 0), Field("amount", "stake")),
    "even_money": (_box(), _int("spot", 0)),
    "exposed_card": (Field("card", "card"),),
    "offer": (
        Field("card", "card"),
        _enum("to", "box", "dealer"),
        _box("optional"),
        Field("accepted", "bool"),
    ),
    "cut_card_out": (),
    "settle": (
        _box(),
        _int("hand", 0),
        _int("spot", 0),
        Field("kind", "wager"),  # v1.2: main, insurance, bonus or a side-bet id
        Field("amount", "money"),
    ),
    "void": (Field("reason", "str"),),
    "round_close": (),
    # TEL/1 v1.2's table-level types (accounting.md): no shoe, no round.
    "inventory": (
        _enum("kind", "opener", "closer"),
        _CHIPS,
        _SIGNERS,
        _int("slip", 1, "optional"),
    ),
    "fill": (
        _SIDE,
        Field("series", "name", "default", lo=1, hi=64, default="fill"),
        _SLIP,
        _CHIPS,
        _SIGNERS,
        Field("requested_by", "str", "optional"),
    ),
    "credit": (
        _SIDE,
        Field("series", "name", "default", lo=1, hi=64, default="credit"),
        _SLIP,
        _CHIPS,
        _SIGNERS,
        Field("requested_by", "str", "optional"),
    ),
    "slip_void": (
        _SIDE,
        # missing: the voided slip's type (``of``); stored as written, NULL when missing
        Field("series", "name", "default", lo=1, hi=64, default=None),
        _SLIP,
        _enum("of", "fill", "credit"),
        Field("reason", "str"),
        _SIGNERS,
    ),
    "buy_in": (
        Field("amount", "positive"),
        _enum("method", "cash", "marker", "other"),
        _int("box", 1, "optional"),
        Field("player", "str", "optional"),
        Field("ref", "str", "optional"),
    ),
    "drop_count": (
        Field("gaming_day", "day"),
        Field("shift", "nonempty", "optional"),
        Field("cash", "stake"),
        Field("markers", "stake", "default", default=0),
        Field("other", "stake", "default", default=0),
        Field("tips", "stake", "optional"),
        _SIGNERS,
        Field("drop_box", "str", "optional"),
    ),
    "adjustment": (
        Field("gaming_day", "day"),
        Field("shift", "nonempty", "optional"),
        _enum(
            "line",
            "opener",
            "closer",
            "fills",
            "credits",
            "drop_cash",
            "drop_markers",
            "drop_other",
            "tips",
        ),
        Field("amount", "nonzero"),
        Field("reason", "nonempty"),
        Field("by", "nonempty"),
        Field("reverses", "str", "optional"),
        Field("ref", "str", "optional"),
    ),
    # v1.2: the hole card (games.md §2)
    "peek": (Field("blackjack", "bool", "optional"),),
    "reveal": (),
}
"""Per known type, its own fields (the envelope and ``round`` come on top)."""

SHOE_TYPES = frozenset(
    (
        "shoe_open",
        "inspection",
        "shuffle",
        "cut",
        "cut_card",
        "burn",
        "dealer_change",
        "shoe_close",
    )
)
TABLE_TYPES = frozenset(
    ("inventory", "fill", "credit", "slip_void", "buy_in", "drop_count", "adjustment")
)
"""TEL/1 v1.2's table-level types: no ``shoe`` (kept like an unknown field when present)."""
ROUND_TYPES = frozenset(TYPES) - SHOE_TYPES - TABLE_TYPES

ENVELOPE = ("v", "id", "seq", "ts", "table", "shoe", "type", "stream")
"""Every envelope key; ``shoe`` is one only on shoe and round events and unknown types."""

CHIPS_SQL_TYPE = "STRUCT(denomination DECIMAL(18,2), count BIGINT)[]"
"""A chip list as stored: a LIST of STRUCT, so SQL sums a tray's value without parsing JSON."""
SIGNERS_SQL_TYPE = "STRUCT(id VARCHAR, role VARCHAR)[]"
"""Signers as stored, in the order written (an id given twice is kept: the reader counts
it once)."""
SIDE_LIMITS_SQL_TYPE = "STRUCT(kind VARCHAR, min_bet DECIMAL(18,2), max_bet DECIMAL(18,2))[]"
"""``shoe_open.side_limits`` as stored: one entry per side bet, in the order written."""

GAMES_FIELDS: frozenset[tuple[str, str]] = frozenset(
    {("bet", "kind"), ("shoe_open", "side_limits")}
)
"""Fields games.md §2 (TEL/1 v1.2's side bets) adds to types v1.1 had. Their columns come
after every other, so the columns of v1.1 keep their order (the ledger hashes them in it):
``bet``'s ``kind`` shares the column of ``settle``'s, and ``side_limits`` comes last, as
schema 11 adds it."""

_SQL_TYPES: dict[str, str] = {
    "int": "BIGINT",
    "str": "VARCHAR",
    "nonempty": "VARCHAR",
    "currency": "VARCHAR",
    "bool": "BOOLEAN",
    "enum": "VARCHAR",
    "card": "VARCHAR",
    "cards": "VARCHAR[]",
    "spots": "BIGINT[]",
    "money": "DECIMAL(18,2)",
    "stake": "DECIMAL(18,2)",
    "positive": "DECIMAL(18,2)",
    "nonzero": "DECIMAL(18,2)",
    "name": "VARCHAR",
    "day": "DATE",
    "chips": CHIPS_SQL_TYPE,
    "signers": SIGNERS_SQL_TYPE,
    "wager": "VARCHAR",
    "stake_kind": "VARCHAR",
    "side_limits": SIDE_LIMITS_SQL_TYPE,
}

# The typed columns of ``events``, in table order, with their DuckDB type.
# Several types share a column when the field means the same thing
# (``amount`` of bet/insurance/action/settle; ``reason`` of shoe_close/void).
COLUMN_TYPES: dict[str, str] = {}
for _later in (False, True):
    for _etype, _fields in TYPES.items():
        for _f in _fields:
            if ((_etype, _f.name) in GAMES_FIELDS) == _later:
                _sql = COLUMN_TYPES.setdefault(_f.name, _SQL_TYPES[_f.kind])
                assert _sql == _SQL_TYPES[_f.kind], f"column {_f.name} has two types"
_V10_NAMES = {f.name for t, fs in TYPES.items() for f in fs if (t, f.name) not in GAMES_FIELDS}
GAMES_COLUMNS: tuple[str, ...] = tuple(n for n in COLUMN_TYPES if n not in _V10_NAMES)
"""The columns schema 11 adds to ``events`` (``side_limits``): last, in a new database too."""
TYPED_COLUMNS: tuple[str, ...] = tuple(COLUMN_TYPES)


def fields_of(etype: str) -> tuple[Field, ...]:
    """The type's own fields, plus ``round`` for round events."""
    own = TYPES[etype]
    return (ROUND, *own) if etype in ROUND_TYPES else own


def known_keys(etype: str | None) -> frozenset[str]:
    """Every key the model of ``etype`` defines (others are kept as extras)."""
    base = set(ENVELOPE)
    if etype in TABLE_TYPES:
        base.discard("shoe")  # kept, not read (accounting.md)
    if etype in TYPES:
        base.update(f.name for f in fields_of(etype))
    return frozenset(base)
