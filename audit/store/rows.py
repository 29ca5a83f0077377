"""Events as rows of the ``events`` table, and back.

Stored events were validated on the way in, so they come back as models
through ``model_construct`` (no re-validation): the typed columns hold the
values the model had (defaults applied, cards upper case, money exact), and
only an event with unknown fields (``has_extra``) has its raw line parsed again
for those fields.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from functools import cache
from typing import Any

from audit.events.models import (
    EVENT_TYPES,
    AnyEvent,
    ChipCount,
    Envelope,
    LogEvent,
    SideLimit,
    Signer,
    TableEnvelope,
    UnknownEvent,
)
from audit.events.parse import loads
from audit.store.fields import ROUND_TYPES, TYPED_COLUMNS, TYPES, fields_of, known_keys

ENVELOPE_COLUMNS: tuple[str, ...] = (
    "id",
    "table_id",
    "shoe",
    "round",
    "seq",
    "ts",
    "ts_local",
    "utc_offset_min",
    "type",
    "known_type",
    "stream",
)
"""The envelope columns of ``events``, before the typed ones. ``stream`` is as written
(NULL when absent: the table's own stream); ``shoe`` is NULL on table-level events."""

EVENT_COLUMNS: tuple[str, ...] = (*ENVELOPE_COLUMNS, *TYPED_COLUMNS, "has_extra", "raw")
"""The columns of ``events`` that describe the event (not where it came from)."""

_ENVELOPE = ("id", "seq", "table", "shoe", "type")


def event_row(event: LogEvent, raw: str) -> dict[str, Any]:
    """The ``events`` row of a validated event (used for lines only Python accepts)."""
    etype = event.type
    known = etype in EVENT_TYPES
    ts = event.ts
    offset = ts.utcoffset() or dt.timedelta(0)
    row: dict[str, Any] = dict.fromkeys(EVENT_COLUMNS)
    # A table-level event has no shoe: one written on it is an unknown field (kept raw).
    shoe = event.shoe if isinstance(event, (Envelope, UnknownEvent)) else None
    row.update(
        id=event.id,
        table_id=event.table,
        shoe=shoe,
        round=getattr(event, "round", None) if etype in ROUND_TYPES else None,
        seq=event.seq,
        ts=ts.astimezone(dt.UTC),
        ts_local=ts.replace(tzinfo=None),
        utc_offset_min=int(offset.total_seconds() // 60),
        type=etype,
        known_type=known,
        stream=event.stream,
        has_extra=bool(event.model_extra),
        raw=raw,
    )
    if known:
        for f in fields_of(etype):
            if f.name != "round":
                value = getattr(event, f.name)
                if f.kind in _OBJECT_LISTS:
                    value = [item.model_dump() for item in value]
                elif f.kind == "side_limits" and value is not None:
                    value = [{"kind": k, **v.model_dump()} for k, v in value.items()]
                row[f.name] = list(value) if isinstance(value, (list, tuple)) else value
    return row


@cache
def utc_offset(minutes: int) -> dt.timezone:
    """The time zone of a stored ``utc_offset_min``: a model's ``ts`` is ``ts_local`` in it."""
    return dt.UTC if minutes == 0 else dt.timezone(dt.timedelta(minutes=minutes))


def _money(d: Decimal | None) -> Decimal | None:
    # The column is DECIMAL(18,2): give back the shortest form, as JSON wrote it
    # in the usual case (50 -> Decimal('50'), 37.50 -> Decimal('37.5')).
    if d is None:
        return None
    if d == d.to_integral_value():
        return Decimal(int(d))
    return d.normalize()


_MONEY = frozenset({"amount", "min_bet", "max_bet", "cash", "markers", "other", "tips"})
ZERO = Decimal(0)
_OBJECT_LISTS = frozenset({"chips", "signers"})
"""Kinds stored as a LIST of STRUCT: rows hold dicts, models hold their records."""


def _items(name: str, value: list[dict[str, Any]] | None) -> list[Any] | None:
    """A stored chip list or signers as the model's records (no re-validation)."""
    if value is None:
        return None
    if name == "chips":
        return [
            ChipCount.model_construct(
                denomination=_money(v["denomination"]) or ZERO, count=v["count"]
            )
            for v in value
        ]
    return [Signer.model_construct(**v) for v in value]


def _side_limits(value: list[dict[str, Any]] | None) -> dict[str, SideLimit] | None:
    """Stored ``side_limits`` as the model holds them (no re-validation)."""
    if value is None:
        return None
    return {
        v["kind"]: SideLimit.model_construct(
            min_bet=_money(v["min_bet"]), max_bet=_money(v["max_bet"])
        )
        for v in value
    }


@cache
def _plan(etype: str) -> tuple[type[TableEnvelope], tuple[str, ...], frozenset[str]]:
    if etype in EVENT_TYPES:
        names = tuple(f.name for f in fields_of(etype))
        return EVENT_TYPES[etype], names, known_keys(etype)
    return UnknownEvent, (), known_keys(None)


_TABLE_LEVEL = frozenset(t for t in TYPES if t in EVENT_TYPES and "shoe" not in known_keys(t))


def build_event(row: dict[str, Any]) -> AnyEvent:
    """The model of a stored event, without re-validation."""
    cls, names, known = _plan(row["type"])
    values: dict[str, Any] = {
        "v": 1,
        "id": row["id"],
        "seq": row["seq"],
        "ts": row["ts_local"].replace(tzinfo=utc_offset(row["utc_offset_min"])),
        "table": row["table_id"],
        "type": row["type"],
        # rows read before schema 9 (or by a query that leaves it out) have no stream
        "stream": row.get("stream"),
    }
    if row["type"] not in _TABLE_LEVEL:
        values["shoe"] = row["shoe"]
    for name in names:
        value = row[name]
        if name in _MONEY:
            value = _money(value)
        elif name in _OBJECT_LISTS:
            value = _items(name, value)
        elif name == "side_limits":
            value = _side_limits(value)
        values[name] = value
    extra: dict[str, Any] = {}
    if row["has_extra"]:
        obj = loads(row["raw"])
        extra = {key: value for key, value in obj.items() if key not in known}
    # What model_construct does, without its per-field default handling (every
    # field is given): several times faster, and the same model.
    event = cls.__new__(cls)
    object.__setattr__(event, "__dict__", values)
    object.__setattr__(event, "__pydantic_fields_set__", set(values))
    object.__setattr__(event, "__pydantic_extra__", extra)
    object.__setattr__(event, "__pydantic_private__", None)
    return event  # type: ignore[return-value]
