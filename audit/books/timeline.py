"""A table's timeline: gaming day and shift of a time, where an event lies against the
table's inventories, and the sessions those inventories make (accounting.md
"Gaming day, shift, session, period", "Sessions").

Pure: records in, positions and sessions out.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from audit.books.house import House
from audit.books.model import Inventory, Place, Session


class PeriodKey(NamedTuple):
    """A period: a table, a gaming day and a shift (the house file's shift name)."""

    table: str
    gaming_day: dt.date
    shift: str


class Lie(NamedTuple):
    """Where a record lies at its table: its period, its session (an index into the
    table's sessions; ``None``: outside every session) and its gap in the timeline."""

    period: PeriodKey
    session: int | None
    position: int


def gaming_day_of(ts: dt.datetime, house: House) -> dt.date:
    """The gaming day of an aware time, in its own (table-local) offset: cli.md's day,
    starting at the house file's ``day_start``."""
    # an aware time minus a duration keeps its offset: .date() is the local date
    return (ts - _start(house.day_start)).date()


_STARTS: dict[dt.time, dt.timedelta] = {}


def _start(day_start: dt.time) -> dt.timedelta:
    d = _STARTS.get(day_start)
    if d is None:
        d = _STARTS[day_start] = dt.timedelta(hours=day_start.hour, minutes=day_start.minute)
    return d


def period_at(table: str, ts: dt.datetime, house: House) -> PeriodKey:
    """The period a time falls in at ``table``: its gaming day and the shift of its
    table-local wall clock (:meth:`House.shift_at`)."""
    return PeriodKey(table, gaming_day_of(ts, house), house.shift_at(ts))


class Timeline:
    """One table's inventories in order, and where any event lies against them.

    Two events of one stream are ordered by ``seq``; of two streams, by ``ts``, a
    tie lying inside: at a closer's ``ts`` in the session it closes, at an
    opener's in the one it opens, at a shift change (a closer and an opener at one
    ``ts``) in the later. :meth:`position` is the number of inventories an event
    lies after: gap ``g`` is between inventory ``g - 1`` and inventory ``g``. The
    search is binary, so it assumes a stream's ``seq`` and ``ts`` agree in order
    (a writer's clock running backwards is judged by ``seq`` within its stream).
    """

    def __init__(self, inventories: Sequence[Inventory]) -> None:
        streams = {i.at.stream for i in inventories}
        if len(streams) <= 1:
            self.inventories = sorted(inventories, key=lambda i: i.at.seq)
        else:
            self.inventories = sorted(inventories, key=lambda i: (i.at.ts, i.at.stream, i.at.seq))
        self._one_stream = next(iter(streams)) if len(streams) == 1 else None
        self._seqs = [i.at.seq for i in self.inventories]
        self._opener_ts = {i.at.ts for i in self.inventories if i.kind == "opener"}

    def _after(self, inv: Inventory, at: Place) -> bool:
        if inv.at.stream == at.stream:
            return at.seq > inv.at.seq
        if at.ts != inv.at.ts:
            return at.ts > inv.at.ts
        return inv.kind == "opener" or inv.at.ts in self._opener_ts

    def position(self, at: Place) -> int:
        """How many of the table's inventories the event at ``at`` lies after."""
        if self._one_stream is not None and at.stream == self._one_stream:
            return bisect_right(self._seqs, at.seq)
        lo, hi = 0, len(self.inventories)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._after(self.inventories[mid], at):
                lo = mid + 1
            else:
                hi = mid
        return lo


@dataclass(slots=True)
class Sessions:
    """What a table's inventories make: its sessions, which session each gap lies in
    (``None``: outside every session), the inventory each session's opener is
    compared with, and the recounts replaced."""

    sessions: list[Session] = field(default_factory=list)
    gap_session: list[int | None] = field(default_factory=list)
    previous_closer: dict[int, Inventory] = field(default_factory=dict)
    """Session index -> the table's previous inventory, when that is a closer."""
    closer_position: dict[int, int] = field(default_factory=dict)
    """Session index -> its closer's index in the timeline (recounts: the last)."""
    inventory_session: dict[str, int] = field(default_factory=dict)
    """Inventory id -> the session it opens or closes (recounts replaced included)."""
    left_open: set[int] = field(default_factory=set)
    """Sessions left without a closer by a later opener."""
    recounts: list[Inventory] = field(default_factory=list)


def build_sessions(timeline: Timeline, occupied: Collection[int]) -> Sessions:
    """The sessions of one table (accounting.md "Sessions").

    A session runs from an opener to the table's next closer; a second opener (or
    closer) with nothing of the table placed between (``occupied`` holds the gaps
    where something lies) is a recount and replaces the first (NJ
    13:69D-1.21(e)(1)); an opener while a session is open leaves that one without
    a closer; a closer while none is open ends nothing.
    """
    invs = timeline.inventories
    out = Sessions(gap_session=[None] * (len(invs) + 1))
    open_idx: int | None = None
    closed_by_last: int | None = None
    for k, inv in enumerate(invs):
        prev = invs[k - 1] if k else None
        recount = prev is not None and prev.kind == inv.kind and k not in occupied
        if inv.kind == "opener":
            if recount and open_idx is not None:
                s = out.sessions[open_idx]
                out.recounts.append(s.opener)
                s.opener = inv
            else:
                if open_idx is not None:
                    out.left_open.add(open_idx)
                out.sessions.append(Session(table=inv.table, opener=inv, closer=None))
                open_idx = len(out.sessions) - 1
                if prev is not None and prev.kind == "closer":
                    out.previous_closer[open_idx] = prev
            closed_by_last = None
        else:
            if recount and closed_by_last is not None:
                s = out.sessions[closed_by_last]
                assert s.closer is not None
                out.recounts.append(s.closer)
                s.closer = inv
                out.closer_position[closed_by_last] = k
            elif open_idx is not None:
                out.sessions[open_idx].closer = inv
                out.closer_position[open_idx] = k
                closed_by_last = open_idx
                open_idx = None
            else:
                closed_by_last = None
        out.gap_session[k + 1] = open_idx
    for i, s in enumerate(out.sessions):
        out.inventory_session[s.opener.at.id] = i
        if s.closer is not None:
            out.inventory_session[s.closer.at.id] = i
    for r in reversed(out.recounts):
        # a recount replaced lies beside the inventory that replaced it
        k = invs.index(r)
        near = invs[k + 1].at.id
        if near in out.inventory_session:
            out.inventory_session[r.at.id] = out.inventory_session[near]
    return out
