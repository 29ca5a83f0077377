"""Plain records the store hands out and takes in (no DuckDB import here)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import NamedTuple

from audit.findings import Finding


class ShoeKey(NamedTuple):
    """One shoe: shoe ids are unique per table (event-log.md).

    A named tuple, not a dataclass: hashing, comparing and sorting tens of
    thousands of keys (the report's evidence check sorts and looks up every
    shoe of a night) then run in C, not in a generated ``__lt__``.
    """

    table: str
    shoe: str


@dataclass(frozen=True, slots=True)
class ShoeInfo:
    """A row of the ``shoes`` table: what the store knows about one shoe."""

    key: ShoeKey
    profile: str | None
    decks: int | None
    dealer: str | None
    opened_at: dt.datetime | None
    gaming_day: dt.date | None
    first_seq: int
    last_seq: int
    events: int
    events_digest: str


@dataclass(frozen=True, slots=True)
class ShoeAuditResult:
    """What the batch runner hands to :meth:`Store.replace_findings` for one shoe.

    ``events_digest`` is the digest of the events that were replayed (from
    :meth:`Store.shoe_info`); ``None`` takes the shoe's current digest.
    ``profile_digest`` is ``None`` when the shoe names an unknown profile.
    """

    key: ShoeKey
    engine_version: str
    profile_id: str | None
    profile_digest: str | None
    rounds: int
    findings: Sequence[Finding] = field(default_factory=tuple)
    wagers: int = 0
    """Wagers with a stake (main and insurance) in the shoe's replayed rounds."""
    handle: Decimal = Decimal(0)
    """The sum of those wagers' stakes, doubles and splits included."""
    events_digest: str | None = None
    audited_at: dt.datetime | None = None
