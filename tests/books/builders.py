"""A table's books written by hand, as the store would pass them to the reconciliation."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from audit.books.house import House
from audit.books.model import (
    Adjustment,
    BuyIn,
    Chip,
    Chips,
    DropCount,
    HandsMoney,
    Inventory,
    Place,
    Signer,
    SlipCopy,
    SlipVoid,
)
from audit.books.reconcile import Books, Horizon, reconcile

CET = dt.timezone(dt.timedelta(hours=1))
TABLE_SIGNERS = (Signer("D042", "dealer"), Signer("S-118", "supervisor"))
CAGE_SIGNERS = (Signer("C-311", "cashier"), Signer("G-090", "security"))
COUNT_SIGNERS = (Signer("K-12", "count"), Signer("K-19", "count"))


def chips(**by_denomination: int) -> Chips:
    """``chips(d5=200, d25=100)``: a chip list (``d2_5`` for 2.5)."""
    return Chips(
        tuple(Chip(Decimal(k[1:].replace("_", ".")), n) for k, n in by_denomination.items())
    )


def at(day: str, hhmm: str) -> dt.datetime:
    """A table-local time: ``at("2026-11-28", "19:55")``."""
    return dt.datetime.fromisoformat(f"{day}T{hhmm}:00").replace(tzinfo=CET)


@dataclass
class Night:
    """Records of one or more tables, each with an id and a ``seq`` per stream."""

    house: House = field(default_factory=House)
    inventories: list[Inventory] = field(default_factory=list)
    slips: list[SlipCopy] = field(default_factory=list)
    voids: list[SlipVoid] = field(default_factory=list)
    buy_ins: list[BuyIn] = field(default_factory=list)
    counts: list[DropCount] = field(default_factory=list)
    adjustments: list[Adjustment] = field(default_factory=list)
    hands: list[HandsMoney] = field(default_factory=list)
    seqs: dict[str, int] = field(default_factory=dict)

    def place(self, stream: str, ts: dt.datetime, id: str | None = None) -> Place:
        """A place in ``stream``: ids numbered in call order, ``seq`` rising with ``ts``
        (records may be written in any order, as a writer's clock orders them)."""
        n = self.seqs.get(stream, 0) + 1
        self.seqs[stream] = n
        return Place(id or f"{stream}-{n}", stream, int(ts.timestamp()) * 1000 + n, ts)

    def opener(self, table: str, ts: dt.datetime, c: Chips, **kw: Any) -> Inventory:
        return self._inv(table, ts, "opener", c, **kw)

    def closer(self, table: str, ts: dt.datetime, c: Chips, **kw: Any) -> Inventory:
        return self._inv(table, ts, "closer", c, **kw)

    def _inv(
        self,
        table: str,
        ts: dt.datetime,
        kind: Any,
        c: Chips,
        signers: tuple[Signer, ...] = TABLE_SIGNERS,
        stream: str | None = None,
        id: str | None = None,
    ) -> Inventory:
        inv = Inventory(self.place(stream or table, ts, id), table, kind, c, signers)
        self.inventories.append(inv)
        return inv

    def buy_in(self, table: str, ts: dt.datetime, amount: int | str, method: Any = "cash") -> BuyIn:
        b = BuyIn(self.place(table, ts), table, Decimal(amount), method)
        self.buy_ins.append(b)
        return b

    def hand(
        self, table: str, ts: dt.datetime, result: int | str, handle: int | str = 0, rounds: int = 1
    ) -> HandsMoney:
        """Settlements of the table (R's share: the house's result), in its own stream."""
        h = HandsMoney(self.place(table, ts), table, Decimal(result), rounds, Decimal(handle))
        self.hands.append(h)
        return h

    def copy(
        self,
        table: str,
        ts: dt.datetime,
        serial: int,
        c: Chips,
        *,
        side: Any = "table",
        type: Any = "fill",
        series: str | None = None,
        signers: tuple[Signer, ...] | None = None,
        id: str | None = None,
    ) -> SlipCopy:
        stream = "CAGE" if side == "cage" else table
        default = CAGE_SIGNERS if side == "cage" else TABLE_SIGNERS
        s = SlipCopy(
            self.place(stream, ts, id),
            table,
            type,
            side,
            series or type,
            serial,
            c,
            default if signers is None else signers,
        )
        self.slips.append(s)
        return s

    def slip(
        self, table: str, ts: dt.datetime, serial: int, c: Chips, type: Any = "fill"
    ) -> tuple[SlipCopy, SlipCopy]:
        """Both copies, the cage's three minutes before the table's."""
        cage = self.copy(table, ts - dt.timedelta(minutes=3), serial, c, side="cage", type=type)
        return cage, self.copy(table, ts, serial, c, type=type)

    def void(
        self,
        table: str,
        ts: dt.datetime,
        serial: int,
        *,
        side: Any = "table",
        of: Any = "fill",
        reason: str = "keyed in error",
        signers: tuple[Signer, ...] | None = None,
    ) -> SlipVoid:
        stream = "CAGE" if side == "cage" else table
        default = CAGE_SIGNERS if side == "cage" else TABLE_SIGNERS
        v = SlipVoid(
            self.place(stream, ts),
            table,
            of,
            side,
            of,
            serial,
            reason,
            default if signers is None else signers,
        )
        self.voids.append(v)
        return v

    def count(
        self,
        table: str,
        ts: dt.datetime,
        day: str,
        cash: int | str,
        *,
        shift: str | None = None,
        markers: int | str = 0,
        other: int | str = 0,
        tips: int | str | None = None,
        id: str | None = None,
    ) -> DropCount:
        c = DropCount(
            self.place("COUNT", ts, id),
            table,
            dt.date.fromisoformat(day),
            shift,
            Decimal(cash),
            Decimal(markers),
            Decimal(other),
            None if tips is None else Decimal(tips),
            COUNT_SIGNERS,
        )
        self.counts.append(c)
        return c

    def adjust(
        self, table: str, day: str, line: str, amount: int | str, shift: str | None = None
    ) -> Adjustment:
        a = Adjustment(
            f"ADJ-{len(self.adjustments) + 1}",
            "log",
            table,
            dt.date.fromisoformat(day),
            shift,
            line,
            Decimal(amount),
            "count sheet corrected",
            "accounting",
        )
        self.adjustments.append(a)
        return a

    def reconcile(self, horizon: Horizon = Horizon(), **house: Any) -> Books:
        h = replace(self.house, **house) if house else self.house
        return reconcile(
            house=h,
            inventories=self.inventories,
            slips=self.slips,
            voids=self.voids,
            buy_ins=self.buy_ins,
            counts=self.counts,
            adjustments=self.adjustments,
            hands=self.hands,
            horizon=horizon,
        )


def codes(books: Books) -> list[str]:
    return sorted(str(f.code) for f in books.findings)


def T07_session(n: Night, day: str = "2026-11-28") -> None:
    """accounting.md's worked example: opener 5,500, a fill of 1,000 (both copies),
    a buy-in of 500, R = 350, closer 6,350, a count of 500 cash the next morning."""
    next_day = (dt.date.fromisoformat(day) + dt.timedelta(days=1)).isoformat()
    n.opener("T07", at(day, "19:55"), chips(d5=200, d25=100, d100=20), id="T07-1")
    n.buy_in("T07", at(day, "19:58"), 500)
    n.hand("T07", at(day, "20:10"), 200, handle=3000, rounds=40)
    n.copy("T07", at(day, "21:28"), 88412, chips(d25=40), side="cage", id="CAGE-77121")
    n.copy("T07", at(day, "21:31"), 88412, chips(d25=40), id="T07-1407")
    n.hand("T07", at(day, "23:10"), 150, handle=2000, rounds=30)
    n.closer("T07", at(next_day, "05:55"), chips(d5=180, d25=138, d100=20), id="T07-2812")
    n.count("T07", at(next_day, "09:40"), day, 500, id="CR-20261129-07")
