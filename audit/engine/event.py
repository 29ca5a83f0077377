"""The engine's own record of a round event: a plain tuple, cheap to build from the store.

The TEL/1 models (:mod:`audit.events.models`) are the definition of the wire
format. A replay reads round events (the 14 types with a ``round``) many
millions of times a night, so it takes them as :class:`RoundEvent`, a
``NamedTuple`` holding exactly the fields the rules read, built straight from
the store's typed columns (:meth:`audit.store.Store.iter_shoe_batches`) or
from a model (:func:`round_event`). Shoe events (``shoe_open``, ``burn``, ...)
are few and reach the engine as their models. A test checks that every field
of every round-event model is either here or deliberately not read.

Money is in integer **cents** here (``amount``): TEL/1 money has at most two
decimals, so ``cents`` is exact, and the engine compares stakes and payouts
without building a ``Decimal`` per event. :func:`money` turns cents (or an
exact fraction of cents, for a payout of 3:2 on an odd stake) back into the
``Decimal`` every record and finding carries.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from fractions import Fraction
from typing import NamedTuple

from audit.events import models as m
from audit.events.models import AnyEvent

__all__ = [
    "ROUND_TYPES",
    "Cents",
    "RoundEvent",
    "cents",
    "money",
    "round_event",
]

Cents = int | Fraction
"""An amount in cents: an ``int``, or a ``Fraction`` for a payout finer than a cent."""


class RoundEvent(NamedTuple):
    """One round event, as the rules read it.

    ``word`` is the event's one keyword: the ``action`` of an ``action`` or
    ``objection``, the ``kind`` of a ``settle``, the ``reason`` of a ``void``; of a ``bet``
    its ``kind`` (TEL/1 v1.2, games.md §2: a side-bet id), None for the main stake.
    ``amount`` is in cents. ``hand`` is 0 where TEL/1 gives it a default and
    None where the type has none (``bet``, ``insurance``, ...). ``ts_us`` is
    ``ts`` as microseconds since the Unix epoch (UTC): when a round opened.
    ``blackjack``: what a ``peek`` announced (v1.2), for the record.
    """

    type: str
    id: str
    seq: int
    round: int
    ts_us: int = 0
    box: int | None = None
    hand: int | None = None
    spot: int | None = None
    card: str | None = None
    to: str | None = None
    face_up: bool = True
    pos: int | None = None
    amount: int | None = None
    word: str | None = None
    player: str | None = None
    spots: tuple[int, ...] | None = None
    accepted: bool | None = None
    blackjack: bool | None = None


ROUND_TYPES = frozenset(m.ROUND_EVENT_TYPES)
"""The types that travel as :class:`RoundEvent`."""

_HUNDRED = Decimal(100)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MICROSECOND = dt.timedelta(microseconds=1)


def cents(amount: Decimal) -> int:
    """Exact cents of a TEL/1 amount (at most two decimals, validated at ingest)."""
    return int(amount * 100)


def money(value: Cents | None) -> Decimal | None:
    """Cents (or an exact fraction of cents) as the ``Decimal`` records carry: ``1250`` -> 12.5.

    The shortest form, as the finding format writes money (``"10"``, ``"37.5"``).
    """
    if value is None:
        return None
    if type(value) is int:
        whole, cent = divmod(value, 100)
        if cent == 0:
            return Decimal(whole)
        if cent % 10 == 0:
            return Decimal(value // 10).scaleb(-1)
        return Decimal(value).scaleb(-2)
    d = Decimal(value.numerator) / Decimal(value.denominator) / _HUNDRED
    return Decimal(int(d)) if d == d.to_integral_value() else d.normalize()


def round_event(e: AnyEvent) -> RoundEvent | AnyEvent:
    """A model as the engine takes it: round events as :class:`RoundEvent`, others unchanged."""
    if e.type not in ROUND_TYPES or isinstance(e, m.UnknownEvent):
        return e
    get = e.__dict__.get
    amount = get("amount")
    spots = get("spots")
    word = get("action") or get("kind") or get("reason")
    return RoundEvent(
        type=e.type,
        id=e.id,
        seq=e.seq,
        round=e.__dict__["round"],
        ts_us=(e.ts - _EPOCH) // _MICROSECOND,
        box=get("box"),
        hand=get("hand"),
        spot=get("spot"),
        card=get("card"),
        to=get("to"),
        face_up=get("face_up", True),
        pos=get("pos"),
        amount=None if amount is None else cents(amount),
        word=word,
        player=get("player"),
        spots=None if spots is None else tuple(spots),
        accepted=get("accepted"),
        blackjack=get("blackjack"),
    )
