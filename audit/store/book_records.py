"""The stored books, read back as the reconciliation's records (accounting.md).

:func:`load_book_records` reads every TEL/1 v1.2 table-level event (inventories,
slip copies and voids, buy-ins, counts, the log's adjustments) as
:mod:`audit.books.model` records, and the hands' money summed per run of a
table's settlements and round opens that lies between the same two of its
inventories and in one gaming day and shift: one :class:`HandsMoney` per
(table, inventory gap, gaming day, shift), as :mod:`audit.books.reconcile` accepts
it, so a night of a million rounds is a few hundred items.

Where a hands event lies against the inventories (accounting.md "Sessions"): by
``seq`` against an inventory of its own stream; by ``ts`` against one of another
stream, a tie lying inside (at a closer's ``ts`` in the session it closes, at an
opener's in the one it opens, at a shift change, a closer and an opener at one
``ts``, in the later).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
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

TABLE_LEVEL = ("inventory", "fill", "credit", "slip_void", "buy_in", "drop_count", "adjustment")


@dataclass(slots=True)
class BookRecords:
    """Everything the reconciliation reads, as stored."""

    inventories: list[Inventory] = field(default_factory=list)
    slips: list[SlipCopy] = field(default_factory=list)
    voids: list[SlipVoid] = field(default_factory=list)
    buy_ins: list[BuyIn] = field(default_factory=list)
    counts: list[DropCount] = field(default_factory=list)
    adjustments: list[Adjustment] = field(default_factory=list)
    hands: list[HandsMoney] = field(default_factory=list)
    currencies: dict[str, str] = field(default_factory=dict)
    """Each table's currency, from its shoes' ``shoe_open`` (the latest that names one)."""

    def empty(self) -> bool:
        return not (
            self.inventories
            or self.slips
            or self.voids
            or self.buy_ins
            or self.counts
            or self.adjustments
        )

    def digest(self, table: str) -> str:
        """A digest of everything stored of ``table`` that its periods were judged on
        (its records' ids and the hands' sums): a change makes them ``not_audited``."""
        h = hashlib.sha256()
        for group in (
            self.inventories,
            self.slips,
            self.voids,
            self.buy_ins,
            self.counts,
            self.adjustments,
        ):
            for rec in group:
                if rec.table == table:
                    h.update(repr(rec).encode())
        for m in self.hands:
            if m.table == table:
                h.update(f"{m.at.id}|{m.result}|{m.rounds}|{m.handle}".encode())
        return h.hexdigest()[:32]


_PLACE = """e.id, COALESCE(e.stream, e.table_id) AS stream, e.seq, e.ts,
       f.path || ':' || e.line_no AS source, e.table_id, e.utc_offset_min"""


def _place(row: Sequence[Any]) -> Place:
    ts = _aware(row[3], row[6])
    return Place(id=row[0], stream=row[1], seq=int(row[2]), ts=ts, source=row[4])


def _aware(ts: dt.datetime, offset_min: int) -> dt.datetime:
    """The event's time in its own offset (the table's wall clock): gaming day and shift
    are cut on it."""
    tz = dt.timezone(dt.timedelta(minutes=int(offset_min)))
    return ts.astimezone(tz)


def _chips(v: Any) -> Chips:
    return Chips(tuple(Chip(Decimal(c["denomination"]), int(c["count"])) for c in v or ()))


def _signers(v: Any) -> tuple[Signer, ...]:
    return tuple(Signer(s["id"], s["role"]) for s in v or ())


def _money(v: Any) -> Decimal:
    return Decimal(v) if v is not None else Decimal(0)


def load_book_records(con: Any, house: House) -> BookRecords:
    """Every stored book record, and the hands' money of every table that has any
    (or of every table with hands, when the house file says ``books_required``)."""
    out = BookRecords()
    rows = con.execute(
        f"""SELECT {_PLACE}, e.type, e.kind, e.chips, e.signers, e.slip, e.side,
                   e.series, e.requested_by, e."of", e.reason, e.amount, e.method,
                   e.box, e.player, e.ref, e.gaming_day, e.shift, e.cash, e.markers,
                   e."other", e.tips, e.drop_box, e.line, e."by", e.reverses
            FROM events e JOIN input_files f USING (file_id)
            WHERE e.type IN (SELECT unnest(?))
            ORDER BY e.ts, COALESCE(e.stream, e.table_id), e.seq""",
        [list(TABLE_LEVEL)],
    ).fetchall()
    for r in rows:
        at = _place(r)
        table = r[5]
        (
            etype, kind, chips, signers, slip, side, series, requested_by, of, reason,
            amount, method, box, player, ref, gaming_day, shift, cash, markers, other,
            tips, drop_box, line, by, reverses,
        ) = r[7:]  # fmt: skip
        if etype == "inventory":
            out.inventories.append(
                Inventory(at, table, kind, _chips(chips), _signers(signers), slip)
            )
        elif etype in ("fill", "credit"):
            out.slips.append(
                SlipCopy(
                    at,
                    table,
                    etype,
                    side or "table",
                    series or etype,
                    int(slip),
                    _chips(chips),
                    _signers(signers),
                    requested_by,
                )
            )
        elif etype == "slip_void":
            out.voids.append(
                SlipVoid(
                    at,
                    table,
                    of,
                    side or "table",
                    series or of,
                    int(slip),
                    reason or "",
                    _signers(signers),
                )
            )
        elif etype == "buy_in":
            out.buy_ins.append(
                BuyIn(at, table, Decimal(amount), method, box, player, ref),
            )
        elif etype == "drop_count":
            out.counts.append(
                DropCount(
                    at,
                    table,
                    gaming_day,
                    shift,
                    _money(cash),
                    _money(markers),
                    _money(other),
                    None if tips is None else Decimal(tips),
                    _signers(signers),
                    drop_box,
                )
            )
        elif etype == "adjustment":
            out.adjustments.append(
                Adjustment(
                    id=at.id,
                    source="log",
                    table=table,
                    gaming_day=gaming_day,
                    shift=shift,
                    line=line,
                    amount=Decimal(amount),
                    reason=reason or "",
                    by=by or "",
                    reverses=reverses,
                    ref=ref,
                    at=at,
                )
            )
    if out.empty() and not house.books_required:
        return out
    out.hands = _hands_money(con, house)
    out.currencies = dict(
        con.execute(
            """SELECT table_id, arg_max(currency, ts) FROM events
               WHERE type = 'shoe_open' AND currency IS NOT NULL GROUP BY table_id"""
        ).fetchall()
    )
    return out


def _shift_sql(house: House) -> str:
    """The shift of a hands event, from its seconds since the gaming day's start."""
    if len(house.shifts) == 1:
        return f"'{_quote(house.shifts[0].name)}'"
    start = house.day_start.hour * 3600 + house.day_start.minute * 60
    cases = []
    for s in reversed(house.shifts[1:]):
        assert s.start is not None
        at = (s.start.hour * 3600 + s.start.minute * 60 - start) % 86400
        cases.append(f"WHEN since >= {at} THEN '{_quote(s.name)}'")
    return f"CASE {' '.join(cases)} ELSE '{_quote(house.shifts[0].name)}' END"


def _quote(name: str) -> str:
    return name.replace("'", "''")


def _hands_money(con: Any, house: House) -> list[HandsMoney]:
    """The hands' money, one item per (table, inventory gap, gaming day, shift)."""
    start_min = house.day_start.hour * 60 + house.day_start.minute
    shift = _shift_sql(house)
    rows = con.execute(
        f"""
        WITH inv AS (
          SELECT table_id, COALESCE(stream, table_id) AS stream, seq, ts, kind,
                 row_number() OVER (PARTITION BY table_id ORDER BY ts, seq) AS n
          FROM events WHERE type = 'inventory'
        ),
        inv_ts AS (  -- ties: an opener at ts lies before; a closer only at a shift change
          SELECT i.table_id, i.stream, i.ts, max(i.n) AS n_incl,
                 max(CASE WHEN i.kind = 'opener' OR EXISTS (
                        SELECT 1 FROM inv o WHERE o.table_id = i.table_id AND o.ts = i.ts
                          AND o.kind = 'opener') THEN i.n END) AS n_tie
          FROM inv i GROUP BY i.table_id, i.stream, i.ts
        ),
        h AS (
          SELECT e.table_id, COALESCE(e.stream, e.table_id) AS stream, e.seq, e.ts, e.id,
                 e.shoe, e.round, e.type, e.utc_offset_min, e.line_no, e.file_id,
                 CASE WHEN e.type = 'settle' THEN -e.amount ELSE 0 END AS result,
                 CAST(e.ts_local - to_minutes({start_min}) AS DATE) AS gaming_day,
                 (epoch(e.ts_local) - epoch(CAST(e.ts_local - to_minutes({start_min}) AS DATE))
                  - {start_min * 60})::BIGINT AS since
          FROM events e WHERE e.type IN ('settle', 'round_open')
            AND e.table_id IN (SELECT DISTINCT table_id FROM events
                               WHERE type IN (SELECT unnest(?)) OR ?)
        ),
        by_seq AS (
          SELECT h.id, i.n FROM h ASOF LEFT JOIN inv i
            ON h.table_id = i.table_id AND h.stream = i.stream AND h.seq > i.seq
        ),
        by_ts AS (  -- inventories of other streams: strictly earlier, or tied as above
          SELECT h.id, greatest(
                   (SELECT max(t.n_incl) FROM inv_ts t WHERE t.table_id = h.table_id
                      AND t.stream <> h.stream AND t.ts < h.ts),
                   (SELECT max(t.n_tie) FROM inv_ts t WHERE t.table_id = h.table_id
                      AND t.stream <> h.stream AND t.ts = h.ts)) AS n
          FROM h WHERE EXISTS (SELECT 1 FROM inv i WHERE i.table_id = h.table_id
                                 AND i.stream <> h.stream)
        ),
        placed AS (
          SELECT h.*, COALESCE(greatest(s.n, t.n), s.n, t.n, 0) AS gap, {shift} AS shift
          FROM h LEFT JOIN by_seq s USING (id) LEFT JOIN by_ts t USING (id)
        ),
        handles AS (
          SELECT table_id, shoe, round, handle FROM rounds
        )
        SELECT p.table_id, p.gap, p.gaming_day, p.shift,
               arg_min(p.id, (p.ts, p.seq)), arg_min(p.stream, (p.ts, p.seq)),
               arg_min(p.seq, (p.ts, p.seq)), arg_min(p.ts, (p.ts, p.seq)),
               arg_min(p.utc_offset_min, (p.ts, p.seq)),
               arg_min(f.path || ':' || p.line_no, (p.ts, p.seq)),
               sum(p.result),
               count(*) FILTER (WHERE p.type = 'round_open'),
               COALESCE(sum(r.handle) FILTER (WHERE p.type = 'round_open'), 0),
               arg_min(p.shoe, (p.ts, p.seq)) FILTER (WHERE p.type = 'round_open'),
               arg_min(p.round, (p.ts, p.seq)) FILTER (WHERE p.type = 'round_open')
        FROM placed p JOIN input_files f USING (file_id)
        LEFT JOIN handles r ON p.type = 'round_open' AND r.table_id = p.table_id
             AND r.shoe = p.shoe AND r.round = p.round
        GROUP BY p.table_id, p.gap, p.gaming_day, p.shift
        ORDER BY p.table_id, p.gap, p.gaming_day, p.shift
        """,
        [list(TABLE_LEVEL), house.books_required],
    ).fetchall()
    out = []
    for r in rows:
        table, _gap, _day, _shift, eid, stream, seq, ts, offset, source = r[:10]
        result, rounds, handle, shoe, rnd = r[10:]
        at = Place(eid, stream, int(seq), _aware(ts, offset), source)
        out.append(
            HandsMoney(
                at=at,
                table=table,
                result=Decimal(result),
                rounds=int(rounds),
                handle=Decimal(handle),
                first_round=None if shoe is None else (shoe, int(rnd)),
            )
        )
    return out


def has_stored_books(con: Any) -> bool:
    """Whether a reconciliation stored any period or ``ACCT_`` finding."""
    row = con.execute(
        "SELECT (SELECT count(*) FROM periods) + (SELECT count(*) FROM books_findings)"
    ).fetchone()
    return bool(row and row[0])


def clear_books(con: Any) -> None:
    """Remove the stored reconciliation (periods, their records, ``ACCT_`` findings), inside
    the caller's transaction, before the new one is stored."""
    con.execute("DELETE FROM periods")
    con.execute("DELETE FROM period_records")
    con.execute("DELETE FROM books_findings")
