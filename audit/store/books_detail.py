"""What a period's page shows, stored beside the period: the records behind its figures and
its ``ACCT_`` findings (accounting.md "In the compliance report").

The ``periods`` table (:mod:`audit.store.periods`) keeps a period's figures, which is all
the Master Game Report needs; a flagged period's page also shows each inventory, both
copies of each slip, the voids, buy-ins and counts, and the findings in full. ``run``
stores them with :func:`store_books_detail` in the transaction that stores the periods,
so that the report and ``serve`` format what the reconciliation decided and never
reconcile again. Both tables are replaced per table and gaming day, as the periods are.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

from audit.books.model import (
    BuyIn,
    Chip,
    Chips,
    DropCount,
    Inventory,
    Period,
    Place,
    Session,
    Signer,
    SlipCopy,
    SlipVoid,
)
from audit.findings import Code, Finding
from audit.store.bulk import delete_table_days, insert_columns

BOOKS_DETAIL_DDL = """
CREATE TABLE period_records (
    table_id VARCHAR NOT NULL,
    gaming_day DATE NOT NULL,
    shift VARCHAR NOT NULL,
    records VARCHAR NOT NULL,
    PRIMARY KEY (table_id, gaming_day, shift)
);
CREATE TABLE books_findings (
    id VARCHAR NOT NULL,
    code VARCHAR NOT NULL,
    severity VARCHAR NOT NULL,
    table_id VARCHAR,
    gaming_day DATE,
    shift VARCHAR,
    impact DECIMAL(38,2),
    finding VARCHAR NOT NULL
);
"""
"""Schema 9: each period's records (JSON) and every ``ACCT_`` finding (its JSON form, with
``key``), by the table and gaming day the reconciliation judged."""

PeriodKey = tuple[str, dt.date, str]


# --------------------------------------------------------------------------- records as JSON


_FIELDS: dict[type, tuple[str, ...]] = {}
"""Each record class's field names, looked up once: a night of a million rounds stores
millions of buy-ins, and ``dataclasses.fields`` per record was most of the store's time."""


def _plain(value: Any) -> Any:
    kind = type(value)
    if value is None or kind is str or kind is int or kind is bool:
        return value
    if kind is Decimal:
        return str(value)
    names = _FIELDS.get(kind)
    if names is not None:
        out = {}
        for name in names:
            v = getattr(value, name)
            k = type(v)  # a plain value as itself, without a call per field
            out[name] = v if v is None or k is str or k is int or k is bool else _plain(v)
        return out
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _place(d: dict[str, Any] | None) -> Place | None:
    if d is None:
        return None
    return Place(
        d["id"], d["stream"], int(d["seq"]), dt.datetime.fromisoformat(d["ts"]), d["source"]
    )


def _chips(d: dict[str, Any]) -> Chips:
    return Chips(tuple(Chip(Decimal(c["denomination"]), int(c["count"])) for c in d["chips"]))


def _signers(items: Iterable[dict[str, Any]]) -> tuple[Signer, ...]:
    return tuple(Signer(s["id"], s["role"]) for s in items)


def _money(v: str | None) -> Decimal | None:
    return None if v is None else Decimal(v)


def _inventory(d: dict[str, Any] | None) -> Inventory | None:
    if d is None:
        return None
    at = _place(d["at"])
    assert at is not None
    return Inventory(
        at, d["table"], d["kind"], _chips(d["chips"]), _signers(d["signers"]), d["slip"]
    )


def _slip(d: dict[str, Any]) -> SlipCopy:
    at = _place(d["at"])
    assert at is not None
    return SlipCopy(
        at,
        d["table"],
        d["type"],
        d["side"],
        d["series"],
        int(d["slip"]),
        _chips(d["chips"]),
        _signers(d["signers"]),
        d["requested_by"],
    )


def _void(d: dict[str, Any]) -> SlipVoid:
    at = _place(d["at"])
    assert at is not None
    return SlipVoid(
        at, d["table"], d["of"], d["side"], d["series"], int(d["slip"]), d["reason"],
        _signers(d["signers"]),
    )  # fmt: skip


def _buy_in(d: dict[str, Any]) -> BuyIn:
    at = _place(d["at"])
    assert at is not None
    return BuyIn(at, d["table"], Decimal(d["amount"]), d["method"], d["box"], d["player"], d["ref"])


def _count(d: dict[str, Any]) -> DropCount:
    at = _place(d["at"])
    assert at is not None
    return DropCount(
        at,
        d["table"],
        dt.date.fromisoformat(d["gaming_day"]),
        d["shift"],
        Decimal(d["cash"]),
        Decimal(d["markers"]),
        Decimal(d["other"]),
        _money(d["tips"]),
        _signers(d["signers"]),
        d["drop_box"],
    )


def records_json(period: Period) -> str:
    """The records behind ``period``'s figures, as stored: its sessions' inventories, slip
    copies, voids, buy-ins and counts (adjustments live in the log and the trail)."""
    return json.dumps(
        {
            "sessions": [
                {"opener": _plain(s.opener), "closer": _plain(s.closer)} for s in period.sessions
            ],
            "slips": _plain(period.slips),
            "voids": _plain(period.voids),
            "buy_ins": _plain(period.buy_ins),
            "counts": _plain(period.counts),
        },
        separators=(",", ":"),
        sort_keys=True,
    )


def attach_records(period: Period, text: str) -> None:
    """Put the stored records ``text`` (:func:`records_json`) back on ``period``."""
    d = json.loads(text)
    period.sessions = []
    for s in d["sessions"]:
        opener = _inventory(s["opener"])
        assert opener is not None
        period.sessions.append(Session(period.table, opener, _inventory(s["closer"])))
    period.slips = [_slip(x) for x in d["slips"]]
    period.voids = [_void(x) for x in d["voids"]]
    period.buy_ins = [_buy_in(x) for x in d["buy_ins"]]
    period.counts = [_count(x) for x in d["counts"]]


def _finding_json(f: Finding) -> str:
    return json.dumps({**f.to_dict(), "key": f.key}, separators=(",", ":"), sort_keys=True)


def finding_of(text: str) -> Finding:
    """A stored ``ACCT_`` finding (its JSON form) as a :class:`Finding`."""
    d = json.loads(text)
    return Finding(
        code=Code(d["code"]),
        message=d["message"],
        table=d["table"],
        expected=d["expected"],
        actual=d["actual"],
        impact=_money(d["impact"]),
        rule=d["rule"],
        events=tuple(d["events"]),
        source=d["source"],
        id=d["id"],
        gaming_day=None if d["gaming_day"] is None else dt.date.fromisoformat(d["gaming_day"]),
        shift=d["shift"],
        key=d.get("key"),
    )


# --------------------------------------------------------------------------- storing, reading


def store_books_detail(
    con: Any,
    periods: Sequence[Period],
    findings: Sequence[Finding],
    *,
    replacing: Iterable[tuple[str, dt.date]] = (),
) -> None:
    """Store each period's records and the ``ACCT_`` ``findings`` (ids set) of a
    reconciliation, replacing those of the tables and gaming days it covers (and of
    ``replacing``). Call it inside the transaction of
    :func:`audit.store.periods.store_periods`, with the same periods."""
    scope = (
        {(p.table, p.gaming_day) for p in periods}
        | {(f.table, f.gaming_day) for f in findings if f.table and f.gaming_day}
        | set(replacing)
    )
    keys = sorted(scope)
    delete_table_days(con, "period_records", keys)
    delete_table_days(con, "books_findings", keys)
    ids = [f.id for f in findings if f.table is None or f.gaming_day is None]
    if ids:
        con.execute("DELETE FROM books_findings WHERE id IN (SELECT unnest(?))", [ids])
    if periods:
        insert_columns(
            con,
            "period_records",
            {
                "table_id": [p.table for p in periods],
                "gaming_day": [p.gaming_day for p in periods],
                "shift": [p.shift for p in periods],
                "records": [records_json(p) for p in periods],
            },
        )
    if findings:
        for f in findings:
            if f.id is None or not f.code.is_books:
                raise ValueError(f"not a stored ACCT_ finding: {f.code} {f.id!r}")
        con.executemany(
            "INSERT INTO books_findings VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    f.id,
                    str(f.code),
                    str(f.severity),
                    f.table,
                    f.gaming_day,
                    f.shift,
                    f.impact,
                    _finding_json(f),
                )
                for f in findings
            ],
        )


def load_records(con: Any, periods: Iterable[Period]) -> None:
    """Attach to each of ``periods`` (as :func:`audit.store.periods.load_periods` read them)
    the records stored beside it, where some are."""
    wanted = {(p.table, p.gaming_day, p.shift): p for p in periods}
    if not wanted:
        return
    days = sorted({k[1] for k in wanted})
    rows = con.execute(
        "SELECT table_id, gaming_day, shift, records FROM period_records "
        "WHERE gaming_day BETWEEN ? AND ?",
        [days[0], days[-1]],
    ).fetchall()
    for table, day, shift, text in rows:
        p = wanted.get((table, day, shift))
        if p is not None:
            attach_records(p, text)


def load_books_findings(con: Any, first: dt.date, last: dt.date) -> list[Finding]:
    """The ``ACCT_`` findings of the gaming days ``first`` to ``last``, by |impact| (null as
    0), then severity, table, day, shift and id: the report's ranking."""
    rows = con.execute(
        """SELECT finding FROM books_findings WHERE gaming_day BETWEEN ? AND ?
           ORDER BY abs(coalesce(impact, 0)) DESC,
                    CASE severity WHEN 'critical' THEN 0 WHEN 'major' THEN 1
                                  WHEN 'minor' THEN 2 ELSE 3 END,
                    table_id NULLS LAST, gaming_day, shift NULLS LAST, id""",
        [first, last],
    ).fetchall()
    return [finding_of(r[0]) for r in rows]


def period_rounds(
    con: Any,
    table: str,
    gaming_day: dt.date,
    windows: Sequence[tuple[dt.datetime, dt.datetime | None]],
) -> list[tuple[str, int, str | None, int]]:
    """The rounds of a period: those of ``table`` opened within one of its sessions'
    ``windows`` (opener to closer; an open end: none), or, with no window, those of its
    gaming day. Each as (shoe, round, opened table-local, findings), in order."""
    if windows:
        conds = " OR ".join(
            "(r.opened_at >= ? AND r.opened_at <= ?)" if end is not None else "(r.opened_at >= ?)"
            for _, end in windows
        )
        params: list[Any] = [table]
        for start, end in windows:
            params.extend([start] if end is None else [start, end])
        where = f"r.table_id = ? AND ({conds})"
    else:
        where, params = "r.table_id = ? AND r.gaming_day = ?", [table, gaming_day]
    rows = con.execute(
        f"""SELECT r.shoe, r.round, strftime(e.ts_local, '%Y-%m-%d %H:%M:%S'), r.findings
            FROM rounds r
            LEFT JOIN events e ON e.table_id = r.table_id AND e.shoe = r.shoe
                               AND e.round = r.round AND e.seq = r.first_seq
            WHERE {where}
            ORDER BY r.opened_at, r.shoe, r.round""",
        params,
    ).fetchall()
    return [(str(s), int(n), opened, int(f)) for s, n, opened, f in rows]
