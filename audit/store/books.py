"""The table's books as stored: TEL/1 v1.2's table-level events read back as the records
the reconciliation reads (:mod:`audit.books.model`), and the day cuts ``status`` names.

``shared/spec/accounting.md``. The hands' money comes from the stored ``settle`` and
``round_open`` events (R, and where each round counts) and the stored rounds' handle
(``run``'s ``rounds`` table: never by replaying again), summed in SQL per round and per
stretch between two of the table's inventories, so that a round dealt across a shift
change is split where the inventories lie and a night of a million rounds comes back as
one row per round, not one per settlement.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from audit.books.model import (
    Adjustment as AdjustmentRecord,
)
from audit.books.model import (
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
from audit.store.rows import utc_offset

if TYPE_CHECKING:
    from audit.books.house import House
    from audit.store.store import Store

BOOK_TYPES = ("inventory", "fill", "credit", "slip_void", "buy_in", "drop_count", "adjustment")
"""TEL/1 v1.2's table-level types, as stored in ``events.type``."""

_STREAM = "COALESCE(e.stream, e.table_id)"


@dataclass
class Books:
    """A table set's book records, each list in the order the events were written
    (stream, then ``seq``)."""

    inventories: list[Inventory] = field(default_factory=list)
    slips: list[SlipCopy] = field(default_factory=list)
    voids: list[SlipVoid] = field(default_factory=list)
    buy_ins: list[BuyIn] = field(default_factory=list)
    counts: list[DropCount] = field(default_factory=list)
    adjustments: list[AdjustmentRecord] = field(default_factory=list)
    hands: list[HandsMoney] = field(default_factory=list)

    def empty(self) -> bool:
        """No book record at all (the hands alone keep no books)."""
        return not (
            self.inventories
            or self.slips
            or self.voids
            or self.buy_ins
            or self.counts
            or self.adjustments
        )

    def digest(self, table: str) -> str:
        """A digest of everything stored of ``table`` its periods are judged on (its
        records and the hands' sums): when it changes, they read ``not_audited``."""
        return self.digests([table])[table]

    def digests(self, tables: Iterable[str] = ()) -> dict[str, str]:
        """:meth:`digest` of every table with a record, and of ``tables``, in one pass
        over the records (a night of a million rounds holds millions of buy-ins: one pass
        per period would take hours)."""
        hashes: dict[str, Any] = {table: hashlib.sha256() for table in tables}

        def of(table: str) -> Any:
            h = hashes.get(table)
            if h is None:
                h = hashes[table] = hashlib.sha256()
            return h

        for group in (
            self.inventories,
            self.slips,
            self.voids,
            self.buy_ins,
            self.counts,
            self.adjustments,
        ):
            for rec in group:
                if rec.table is not None:
                    of(rec.table).update(repr(rec).encode())
        for m in self.hands:
            of(m.table).update(f"{m.at.id}|{m.result}|{m.rounds}|{m.handle}".encode())
        return {table: h.hexdigest()[:32] for table, h in hashes.items()}


def _money(d: Decimal | None) -> Decimal | None:
    if d is None:
        return None
    return Decimal(int(d)) if d == d.to_integral_value() else d.normalize()


def _place(row: dict[str, Any]) -> Place:
    ts = row["ts_local"].replace(tzinfo=utc_offset(row["utc_offset_min"]))
    source = f"{row['path']}:{row['line_no']}" if row.get("path") is not None else None
    return Place(row["id"], row["stream_id"], row["seq"], ts, source)


def _chips(items: list[dict[str, Any]] | None) -> Chips:
    return Chips(
        tuple(Chip(_money(c["denomination"]) or Decimal(0), int(c["count"])) for c in items or ())
    )


def _signers(items: list[dict[str, Any]] | None) -> tuple[Signer, ...]:
    return tuple(Signer(s["id"], s["role"]) for s in items or ())


def _table_filter(tables: Sequence[str] | None, alias: str = "e") -> tuple[str, list[Any]]:
    if tables is None:
        return "", []
    return f" AND {alias}.table_id IN (SELECT unnest($tables::VARCHAR[]))", [list(tables)]


def load_books(
    store: Store,
    tables: Sequence[str] | None = None,
    house: House | None = None,
    *,
    hands: bool = True,
) -> Books:
    """Every book record of ``tables`` (all tables when None) and their hands' money
    (not with ``hands=False``: the caller reads it with :func:`load_hands_money`).

    Reads the stored events only (and ``run``'s ``rounds`` for the handle): a round
    not yet audited counts its settlements and round open, with handle 0.
    """
    books = Books()
    where, params = _table_filter(tables)
    named = {"tables": params[0]} if params else {}
    books.buy_ins = _buy_ins(store, where, named)
    rows = store.con.sql(
        f"""SELECT e.id, e.table_id, {_STREAM} AS stream_id, e.seq, e.ts_local,
                   e.utc_offset_min, e.type, e.kind, e.chips, e.signers, e.slip, e.side,
                   e.series, e."of", e.reason, e.requested_by, e.amount, e."method", e.box,
                   e.player, e."ref", e.gaming_day, e.shift, e.cash, e.markers, e."other",
                   e.tips, e.drop_box, e."line", e."by", e.reverses, f.path, e.line_no
            FROM events e LEFT JOIN input_files f USING (file_id)
            WHERE e.type IN (SELECT unnest($types::VARCHAR[])){where}
            ORDER BY stream_id, e.seq, e.id""",
        params={"types": [t for t in BOOK_TYPES if t != "buy_in"], **named},
    ).to_arrow_table()
    for row in rows.to_pylist():
        _add(books, row)
    if hands and (not books.empty() or (house is not None and house.books_required)):
        books.hands = load_hands_money(store, tables, house)  # no books: no tray to judge
    return books


def _buy_ins(store: Store, where: str, named: dict[str, Any]) -> list[BuyIn]:
    """The buy-ins, read apart: a night's book records are mostly buy-ins (about one
    and a half a round), so they are read with their own columns only, column-wise."""
    cols = store.con.sql(
        f"""SELECT e.id, e.table_id, {_STREAM} AS stream_id, e.seq, e.ts_local,
                   e.utc_offset_min, e.amount, e."method", e.box, e.player, e."ref",
                   f.path, e.line_no
            FROM events e LEFT JOIN input_files f USING (file_id)
            WHERE e.type = 'buy_in'{where}
            ORDER BY stream_id, e.seq, e.id""",
        params=named or None,
    ).to_arrow_table()
    zones: dict[int, dt.tzinfo] = {}
    out: list[BuyIn] = []
    for ev, table, stream, seq, ts, offset, amount, method, box, player, ref, path, no in zip(
        *(cols.column(i).to_pylist() for i in range(cols.num_columns)), strict=True
    ):
        zone = zones.get(offset)
        if zone is None:
            zone = zones[offset] = utc_offset(offset)
        source = f"{path}:{no}" if path is not None else None
        at = Place(ev, stream, seq, ts.replace(tzinfo=zone), source)
        out.append(BuyIn(at, table, _money(amount) or Decimal(0), method, box, player, ref))
    return out


def _add(books: Books, r: dict[str, Any]) -> None:
    at, table, kind = _place(r), r["table_id"], r["type"]
    if kind == "inventory":
        books.inventories.append(
            Inventory(at, table, r["kind"], _chips(r["chips"]), _signers(r["signers"]), r["slip"])
        )
    elif kind in ("fill", "credit"):
        books.slips.append(
            SlipCopy(
                at,
                table,
                kind,
                r["side"],
                r["series"],
                r["slip"],
                _chips(r["chips"]),
                _signers(r["signers"]),
                r["requested_by"],
            )
        )
    elif kind == "slip_void":
        books.voids.append(
            SlipVoid(
                at,
                table,
                r["of"],
                r["side"],
                r["series"] or r["of"],  # a void's series defaults to the voided slip's type
                r["slip"],
                r["reason"],
                _signers(r["signers"]),
            )
        )
    elif kind == "buy_in":
        books.buy_ins.append(
            BuyIn(
                at,
                table,
                _money(r["amount"]) or Decimal(0),
                r["method"],
                r["box"],
                r["player"],
                r["ref"],
            )
        )
    elif kind == "drop_count":
        books.counts.append(
            DropCount(
                at,
                table,
                r["gaming_day"],
                r["shift"],
                _money(r["cash"]) or Decimal(0),
                _money(r["markers"]) or Decimal(0),
                _money(r["other"]) or Decimal(0),
                _money(r["tips"]),
                _signers(r["signers"]),
                r["drop_box"],
            )
        )
    else:
        books.adjustments.append(
            AdjustmentRecord(
                r["id"],
                "log",
                table,
                r["gaming_day"],
                r["shift"],
                r["line"],
                _money(r["amount"]) or Decimal(0),
                r["reason"],
                r["by"],
                r["reverses"],
                r["ref"],
                at=at,
            )
        )


# The hands' money: each settle and round_open of a table, numbered by the table's
# inventories lying before it (accounting.md "The table's timeline": by seq in one
# stream, else by ts, an event at an opener's ts lying after it, at a lone closer's
# before it, at a shift change's after both), then summed per stretch between two
# inventories, gaming day and shift (audit.books.reconcile accepts such runs): a night
# of a million rounds is a few thousand items.
#
# The numbering is running counts over the inventories and hands events of a table in
# one sorted pass each (docs/decisions.md "The books at scale"), not a count of the
# table's inventories per hands event: that join grew as hands x inventories, three
# billion rows at a million rounds. For a hands event h, with inventories i:
#   by_seq    = #{i in h's stream, i.seq < h.seq}    (hands sort before an inventory
#                                                      at the same seq)
#   elsewhere = #{i of h's table, (i.ts, tie) < (h.ts, 1)}
#             - #{i in h's stream, (i.ts, tie) < (h.ts, 1)}
# where tie is 0 for an inventory a hands event at its ts lies after, 2 for one it lies
# before: stretch = by_seq + elsewhere, what the rule above says.
_HANDS_SQL = """
WITH inv0 AS (
  SELECT table_id, COALESCE(stream, table_id) AS stream_id, seq, ts, kind
  FROM events e WHERE type = 'inventory'{where}
), inv AS (
  -- at a tie an event lies after an opener, before a lone closer, and after a shift
  -- change (a closer and an opener at one ts): in the later session
  SELECT i.*, i.kind = 'opener' OR EXISTS (
    SELECT 1 FROM inv0 o WHERE o.table_id = i.table_id AND o.ts = i.ts AND o.kind = 'opener'
  ) AS tie_before
  FROM inv0 i
), marks AS (
  SELECT table_id, stream_id, seq, ts, 1 AS is_inv, CASE WHEN tie_before THEN 0 ELSE 2 END
           AS tie, NULL AS shoe, NULL AS round, NULL AS id, NULL AS ts_local,
         NULL AS utc_offset_min, NULL AS type, NULL AS amount
  FROM inv
  UNION ALL
  SELECT e.table_id, COALESCE(e.stream, e.table_id), e.seq, e.ts, 0, 1, e.shoe, e.round, e.id,
         e.ts_local, e.utc_offset_min, e.type,
         CASE WHEN e.type = 'settle' THEN e.amount ELSE 0 END
  FROM events e WHERE e.type IN ('settle', 'round_open'){where}
), counted AS (
  SELECT *,
    sum(is_inv) OVER (PARTITION BY table_id, stream_id ORDER BY seq, is_inv
                      ROWS UNBOUNDED PRECEDING)
    + sum(is_inv) OVER (PARTITION BY table_id ORDER BY ts, tie ROWS UNBOUNDED PRECEDING)
    - sum(is_inv) OVER (PARTITION BY table_id, stream_id ORDER BY ts, tie
                        ROWS UNBOUNDED PRECEDING) AS stretch
  FROM marks
), hands AS (
  SELECT table_id, shoe, round, id, stream_id, seq, ts, ts_local, utc_offset_min, type,
    amount, stretch,
    (epoch(ts_local) - {start_min} * 60
     - epoch(CAST(ts_local - to_minutes({start_min}) AS DATE)))::BIGINT AS since
  FROM counted WHERE is_inv = 0
), placed AS (
  SELECT h.*, CAST(h.ts_local - to_minutes({start_min}) AS DATE) AS gaming_day,
    {shift} AS shift
  FROM hands h
)
SELECT p.table_id, p.stretch, p.gaming_day, p.shift,
       arg_min(p.id, (p.ts, p.seq)) AS id, arg_min(p.stream_id, (p.ts, p.seq)) AS stream_id,
       arg_min(p.seq, (p.ts, p.seq)) AS seq, arg_min(p.ts_local, (p.ts, p.seq)) AS ts_local,
       arg_min(p.utc_offset_min, (p.ts, p.seq)) AS utc_offset_min,
       -sum(p.amount) AS result,
       count(*) FILTER (WHERE p.type = 'round_open') AS rounds,
       COALESCE(sum(r.handle) FILTER (WHERE p.type = 'round_open'), 0) AS handle,
       arg_min(p.shoe, (p.ts, p.seq)) FILTER (WHERE p.type = 'round_open') AS shoe,
       arg_min(p.round, (p.ts, p.seq)) FILTER (WHERE p.type = 'round_open') AS round
FROM placed p
LEFT JOIN rounds r ON p.type = 'round_open' AND r.table_id = p.table_id AND r.shoe = p.shoe
     AND r.round = p.round
GROUP BY p.table_id, p.stretch, p.gaming_day, p.shift
ORDER BY p.table_id, min(p.ts), p.stretch, p.gaming_day, p.shift
"""


def _hands_sql(house: House | None, tables: Sequence[str] | None) -> tuple[str, dict[str, Any]]:
    from audit.books.house import House

    house = house or House()
    start_min = house.day_start.hour * 60 + house.day_start.minute
    where, params = _table_filter(tables)
    named = {"tables": params[0]} if params else {}
    return _HANDS_SQL.format(where=where, start_min=start_min, shift=_shift_sql(house)), named


def explain_hands(store: Store, house: House | None = None) -> str:
    """DuckDB's ``EXPLAIN ANALYZE`` of the hands' money query over every table (for
    ``benchmarks/books_bench.py --profile``)."""
    sql, named = _hands_sql(house, None)
    rows = store.con.execute("EXPLAIN ANALYZE " + sql, named or None).fetchall()
    return "\n".join(str(r[-1]) for r in rows)


def load_hands_money(
    store: Store, tables: Sequence[str] | None = None, house: House | None = None
) -> list[HandsMoney]:
    """The hands' money of ``tables`` (all when None): one item per stretch of the
    table's timeline between two inventories, gaming day and shift (``house``'s day
    start and shifts; default the packaged ones), at the place of its first event.

    ``result`` is R's share (minus the settlements' amounts); ``rounds`` the rounds
    whose ``round_open`` lies there, with their handle as ``run`` stored it;
    ``first_round`` the first of them."""
    return hands_money_of(store.con, tables, house)


def hands_money_of(
    con: Any, tables: Sequence[str] | None = None, house: House | None = None
) -> list[HandsMoney]:
    """:func:`load_hands_money` on a DuckDB connection or cursor (``run`` reads it on a
    cursor of its own in a thread while it reads the book records: DuckDB runs the
    query without holding Python's lock)."""
    sql, named = _hands_sql(house, tables)
    table = con.sql(sql, params=named or None).to_arrow_table()
    out: list[HandsMoney] = []
    for r in table.to_pylist():
        ts = r["ts_local"].replace(tzinfo=utc_offset(r["utc_offset_min"]))
        out.append(
            HandsMoney(
                Place(r["id"], r["stream_id"], r["seq"], ts),
                r["table_id"],
                _money(r["result"]) or Decimal(0),
                int(r["rounds"]),
                _money(r["handle"]) or Decimal(0),
                None if r["shoe"] is None else (r["shoe"], int(r["round"])),
            )
        )
    return out


def _shift_sql(house: House) -> str:
    """The shift of a hands event from ``since``, its seconds since its gaming day's start."""
    first = house.shifts[0].name.replace("'", "''")
    if len(house.shifts) == 1:
        return f"'{first}'"
    start = house.day_start.hour * 3600 + house.day_start.minute * 60
    cases = []
    for sh in reversed(house.shifts[1:]):
        assert sh.start is not None
        at = (sh.start.hour * 3600 + sh.start.minute * 60 - start) % 86400
        cases.append(f"WHEN since >= {at} THEN '{sh.name.replace(chr(39), chr(39) * 2)}'")
    return f"CASE {' '.join(cases)} ELSE '{first}' END"


def table_currencies(store: Store) -> dict[str, str]:
    """Each table's currency, from its shoes' ``shoe_open`` (the latest naming one)."""
    return dict(
        store.con.execute(
            """SELECT table_id, arg_max(currency, ts) FROM events
               WHERE type = 'shoe_open' AND currency IS NOT NULL GROUP BY table_id"""
        ).fetchall()
    )


def has_book_events(store: Store) -> bool:
    """Whether any book record is stored (a night without books reads no hands' money)."""
    ((found,),) = store.con.execute(
        "SELECT EXISTS (SELECT 1 FROM events WHERE type IN (SELECT unnest($1::VARCHAR[])))",
        [list(BOOK_TYPES)],
    ).fetchall()
    return bool(found)


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


# --------------------------------------------------------------------------- day cuts


def note_day_cuts(
    store: Store,
    days: Iterable[dt.date],
    day_start: str,
    house: House | None,
    now: dt.datetime,
    *,
    everything: bool = False,
) -> None:
    """Note the day start ``days`` were cut with at this ingest (``everything``: the day
    start changed, so every stored day was cut again), and the house file's SHA-256
    when its ``day_start`` is the one used (NULL: ``--day-start`` chose another)."""
    con = store.con
    sha = None
    if house is not None and f"{house.day_start:%H:%M}" == day_start:
        sha = house.sha256
    wanted = sorted(set(days))
    if everything:
        con.execute("DELETE FROM day_cuts")
        from audit.store.store import day_start_minutes

        start = day_start_minutes(day_start)
        wanted = [
            d
            for (d,) in con.execute(
                f"""SELECT gaming_day FROM shoes WHERE gaming_day IS NOT NULL
                    UNION SELECT CAST(ts_local - to_minutes({start}) AS DATE) FROM events
                    WHERE shoe IS NULL ORDER BY 1"""
            ).fetchall()
        ]
    if not wanted:
        return
    con.execute(
        """INSERT OR REPLACE INTO day_cuts
           SELECT unnest($1::DATE[]), $2, $3, $4""",
        [wanted, day_start, sha, now],
    )


@dataclass(frozen=True)
class DayCut:
    """A stored gaming day, the day start it was cut with, and the house file's SHA-256
    when that start came from it."""

    gaming_day: dt.date
    day_start: str
    house_sha256: str | None


def day_cuts(store: Store) -> list[DayCut]:
    """Every stored gaming day's cut, by day (days cut before schema 9 are not listed)."""
    return [
        DayCut(d, s, h)
        for d, s, h in store.con.execute(
            "SELECT gaming_day, day_start, house_sha256 FROM day_cuts ORDER BY 1"
        ).fetchall()
    ]


def log_adjustments(store: Store) -> list[AdjustmentRecord]:
    """The ``adjustment`` events of the log (source ``log``), in stream and ``seq`` order:
    the readers of the stored books (``books``, ``report``, ``serve``) apply them beside the
    trail's, as ``run`` did, without reading every other book record."""
    books = Books()
    names = ("id", "table_id", "stream_id", "seq", "ts_local", "utc_offset_min", "type",
             "amount", "ref", "gaming_day", "shift", "line", "reason", "by", "reverses",
             "path", "line_no")  # fmt: skip
    got = store.con.execute(
        f"""SELECT e.id, e.table_id, {_STREAM} AS stream_id, e.seq, e.ts_local,
                   e.utc_offset_min, e.type, e.amount, e."ref", e.gaming_day, e.shift,
                   e."line", e.reason, e."by", e.reverses, f.path, e.line_no
            FROM events e LEFT JOIN input_files f USING (file_id)
            WHERE e.type = 'adjustment'
            ORDER BY stream_id, e.seq, e.id"""
    ).fetchall()
    for row in got:
        _add(books, dict(zip(names, row, strict=True)))
    return books.adjustments
