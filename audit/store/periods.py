"""The stored periods: one row per table, gaming day and shift, as ``run`` reconciled it.

``run`` writes each period's figures and status (:class:`audit.books.model.Period`) with
:func:`store_periods`, in one transaction, replacing the periods of the tables and gaming
days it re-reconciled. What a period's ``not_audited`` status needs is kept beside its
figures (accounting.md "When a period is judged"): a digest of the inputs it was judged on
(given by the reconciliation), the SHA-256 of the house file, and a digest of the
adjustments applied to it; a reader that finds any of them changed reads the period as
``not_audited`` (:func:`load_periods`). The ``ACCT_`` codes raised on the period are kept
with it too, so that the Master Game Report counts them and ``books --fail-on-variance``
judges them without reading the findings again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from audit.books.model import Adjustment, Figures, Period
from audit.store.bulk import delete_table_days, insert_columns, money_text

PeriodKey = tuple[str, dt.date, str]
"""A period's table, gaming day and shift."""

PERIODS_DDL = """
CREATE TABLE periods (
    table_id VARCHAR NOT NULL,
    gaming_day DATE NOT NULL,
    shift VARCHAR NOT NULL,
    pit VARCHAR,
    currency VARCHAR,
    status VARCHAR NOT NULL,
    sessions INTEGER NOT NULL,
    rounds BIGINT NOT NULL,
    opener DECIMAL(38,2),
    closer DECIMAL(38,2),
    fills DECIMAL(38,2) NOT NULL,
    credits DECIMAL(38,2) NOT NULL,
    buy_ins_cash DECIMAL(38,2) NOT NULL,
    buy_ins_markers DECIMAL(38,2) NOT NULL,
    buy_ins_other DECIMAL(38,2) NOT NULL,
    handle DECIMAL(38,2) NOT NULL,
    hands_result DECIMAL(38,2) NOT NULL,
    drop_cash DECIMAL(38,2),
    drop_markers DECIMAL(38,2),
    drop_other DECIMAL(38,2),
    tips DECIMAL(38,2),
    tray_win DECIMAL(38,2),
    win DECIMAL(38,2),
    acct_codes VARCHAR[] NOT NULL,
    inputs_digest VARCHAR NOT NULL,
    adjustments_digest VARCHAR NOT NULL,
    house_sha256 VARCHAR,
    reconciled_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (table_id, gaming_day, shift)
);
"""
"""Schema 9: the periods ``run`` reconciled (accounting.md "A period's figures")."""

_MONEY = (
    "opener",
    "closer",
    "fills",
    "credits",
    "buy_ins_cash",
    "buy_ins_markers",
    "buy_ins_other",
    "handle",
    "hands_result",
    "drop_cash",
    "drop_markers",
    "drop_other",
    "tips",
    "tray_win",
    "win",
)
_COLUMNS = (
    "table_id",
    "gaming_day",
    "shift",
    "pit",
    "currency",
    "status",
    "sessions",
    "rounds",
    *_MONEY,
    "acct_codes",
    "inputs_digest",
    "adjustments_digest",
    "house_sha256",
    "reconciled_at",
)


@dataclass(frozen=True, slots=True)
class StoredPeriod:
    """A period as stored: its :class:`Period` (figures and status, as read), the ``ACCT_``
    codes raised on it, and what its status was judged on."""

    period: Period
    acct_codes: tuple[str, ...]
    inputs_digest: str
    adjustments_digest: str
    house_sha256: str | None
    reconciled_at: dt.datetime

    @property
    def key(self) -> PeriodKey:
        return (self.period.table, self.period.gaming_day, self.period.shift)


def adjustments_digest(adjustments: Iterable[Adjustment]) -> str:
    """A digest of the adjustments applied to a period (their ids, sources and amounts):
    one added, from the log or the trail, changes it, and the period is ``not_audited``."""
    parts = sorted(f"{a.source}|{a.id}|{a.line}|{a.amount}" for a in adjustments)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def store_periods(
    con: Any,
    periods: Sequence[Period],
    *,
    digests: Mapping[PeriodKey, str],
    findings: Mapping[PeriodKey, Sequence[str]] | None = None,
    house_sha256: str | None = None,
    replacing: Iterable[tuple[str, dt.date]] = (),
    at: dt.datetime | None = None,
) -> int:
    """Store ``periods`` (a ``run``'s reconciliation), replacing every stored period of the
    tables and gaming days they cover and of ``replacing`` (a table and day re-reconciled
    that has no period left); returns the rows written. Call it inside the caller's
    transaction (:meth:`audit.store.Store.transaction`), with the findings it raised, so
    that the books and their findings are replaced together or not at all.

    ``digests``: each period's digest of the inputs it was judged on (every period needs
    one: a period without it could never read as ``not_audited``); ``findings``: the codes
    of the ``ACCT_`` findings raised on each period; ``house_sha256``: the house file's.
    """
    findings = findings or {}
    stamp = at or dt.datetime.now(dt.UTC)
    scope = {(p.table, p.gaming_day) for p in periods} | set(replacing)
    columns: dict[str, list[Any]] = {c: [] for c in _COLUMNS[:-1]}
    for p in periods:
        key = (p.table, p.gaming_day, p.shift)
        if key not in digests:
            raise ValueError(f"period {p.table} {p.gaming_day} {p.shift}: no inputs digest")
        f = p.figures
        values = (
            p.table,
            p.gaming_day,
            p.shift,
            p.pit,
            p.currency,
            p.status,
            f.sessions,
            f.rounds,
            *(money_text(getattr(f, m)) for m in _MONEY),
            sorted(str(c) for c in findings.get(key, ())),
            digests[key],
            adjustments_digest(p.adjustments),
            house_sha256,
        )
        for column, value in zip(columns.values(), values, strict=True):
            column.append(value)
    delete_table_days(con, "periods", sorted(scope))
    rows = len(columns["table_id"])
    if rows:
        casts = {m: f"CAST({m} AS DECIMAL(38,2))" for m in _MONEY}
        insert_columns(
            con,
            "periods",
            columns,
            select={
                **casts,
                "acct_codes": "CAST(acct_codes AS VARCHAR[])",
                "reconciled_at": "$stamp",
            },
            params={"stamp": stamp},
        )
    return rows


def load_periods(
    con: Any,
    *,
    first: dt.date | None = None,
    last: dt.date | None = None,
    tables: Sequence[str] | None = None,
    house_sha256: str | None = None,
    adjustments: Sequence[Adjustment] | None = None,
    digests: Mapping[PeriodKey, str] | None = None,
    ingests: bool = True,
) -> list[StoredPeriod]:
    """The stored periods of the gaming days ``first`` to ``last`` (each end optional) and
    ``tables`` (all when None), by day, table and shift.

    A period reads as ``not_audited`` (accounting.md) when what it was judged on changed:
    ``house_sha256`` (the house file read now) differs from the one it was reconciled
    with; ``adjustments`` (every adjustment known now, of any period) apply to it otherwise
    than those it was reconciled with; ``digests`` (its inputs' digests now, where the
    caller computed them) differ from its own; with ``ingests``, an event ingested since
    ``run`` reconciled it may change its judgement (:func:`touched_since_run`).
    """
    conds: list[str] = []
    params: list[Any] = []
    if first is not None:
        conds.append("gaming_day >= ?")
        params.append(first)
    if last is not None:
        conds.append("gaming_day <= ?")
        params.append(last)
    if tables is not None:
        conds.append("table_id IN (SELECT unnest(?))")
        params.append(list(tables))
    where = f"WHERE {' AND '.join(conds)}" if conds else ""
    got = con.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM periods {where} ORDER BY gaming_day, table_id, shift",
        params,
    ).fetchall()
    by_period: dict[PeriodKey, list[Adjustment]] = {}
    for a in adjustments or ():
        if a.shift is not None:
            by_period.setdefault((a.table, a.gaming_day, a.shift), []).append(a)
    out = []
    rows = [_stored(row) for row in got]
    touched = touched_since_run(con, rows) if ingests else set()
    for stored in rows:
        p = stored.period
        key = stored.key
        applied = by_period.get(key, [])
        p.adjustments = list(applied)
        changed = house_sha256 is not None and stored.house_sha256 != house_sha256
        if adjustments is not None:
            changed |= adjustments_digest(applied) != stored.adjustments_digest
        changed |= digests is not None and key in digests and digests[key] != stored.inputs_digest
        changed |= key in touched
        if changed:
            p.status = "not_audited"
        out.append(stored)
    return out


# The events ingested after a reconciliation (their file first ingested after it), by
# table and type, with the earliest gaming day each may belong to: a count's or an
# adjustment's own, else the day before its ts's table-local date (a gaming day starts
# on its date or the day before, whatever the day start), so no day is missed.
_NEW_EVENTS_SQL = """
SELECT e.table_id, e.type,
       min(CASE WHEN e.type IN ('drop_count', 'adjustment') AND e.gaming_day IS NOT NULL
                THEN e.gaming_day ELSE CAST(e.ts_local AS DATE) - 1 END) AS first_day
FROM events e
WHERE e.file_id IN (SELECT file_id FROM input_files WHERE first_ingested_at > ?)
GROUP BY e.table_id, e.type
"""

_SLIP_TYPES = ("fill", "credit", "slip_void")
_BOOK_TYPES = (*_SLIP_TYPES, "inventory", "buy_in", "drop_count", "adjustment")


def touched_since_run(con: Any, stored: Sequence[StoredPeriod]) -> set[PeriodKey]:
    """The periods among ``stored`` that an event ingested since ``run`` reconciled them
    may judge otherwise (accounting.md: ``not_audited`` "when its events, counts, cage
    copies ... changed since ``run`` judged it"), read from the ingest times alone:

    - an event of the period's table (a hand, a record of its books) of its gaming day or
      a later one, or of the day before (a later opener, an event of a later day closes a
      session; a late closer or count settles one);
    - a cage copy or void of any table of its gaming day or earlier (a series the cage
      issues to several tables; a cage record of a later day closes the cage's day);
    - any book record at all, while the period is ``pending`` or ``incomplete`` (a count
      of any table of a later day ends its wait for its own, ``ACCT_NO_DROP_COUNT``).

    Conservative by design: a period it names reads ``not_audited`` until ``run``
    reconciles again, which may find it unchanged.
    """
    if not stored:
        return set()
    since = min(s.reconciled_at for s in stored)
    new = con.execute(_NEW_EVENTS_SQL, [since]).fetchall()
    if not new:
        return set()
    out: set[PeriodKey] = set()
    for s in stored:
        p = s.period
        is_open = p.status in ("pending", "incomplete")
        for table, kind, first_day in new:
            own = table == p.table and first_day <= p.gaming_day + dt.timedelta(days=1)
            cage = kind in _SLIP_TYPES and first_day <= p.gaming_day
            if own or cage or (is_open and kind in _BOOK_TYPES):
                out.add(s.key)
                break
    return out


def _stored(row: Sequence[Any]) -> StoredPeriod:
    values = dict(zip(_COLUMNS, row, strict=True))
    figures = Figures(sessions=int(values["sessions"]), rounds=int(values["rounds"]))
    for name in _MONEY:
        setattr(figures, name, _money(values[name]))
    period = Period(
        table=str(values["table_id"]),
        gaming_day=values["gaming_day"],
        shift=str(values["shift"]),
        pit=values["pit"],
        status=values["status"],
        figures=figures,
        currency=values["currency"],
    )
    return StoredPeriod(
        period=period,
        acct_codes=tuple(values["acct_codes"] or ()),
        inputs_digest=str(values["inputs_digest"]),
        adjustments_digest=str(values["adjustments_digest"]),
        house_sha256=values["house_sha256"],
        reconciled_at=values["reconciled_at"],
    )


def _money(v: Any) -> Decimal | None:
    """A stored DECIMAL(38,2) as the exact amount it was (``Decimal('350.00')`` -> 350)."""
    if v is None:
        return None
    d = Decimal(v)
    return d.quantize(Decimal(1)) if d == d.to_integral_value() else d.normalize()


def latest_books_day(con: Any) -> dt.date | None:
    """The latest gaming day with a stored period (``books``' default), None when none."""
    row = con.execute("SELECT max(gaming_day) FROM periods").fetchone()
    return row[0] if row else None


def rounds_in_days(con: Any, first: dt.date, last: dt.date) -> int:
    """How many rounds are stored (events of a round, by their shoe's gaming day) in the
    gaming days ``first`` to ``last``: ``books`` says "nothing there" only when no period
    and no round is."""
    row = con.execute(
        """SELECT count(*) FROM (
             SELECT DISTINCT e.table_id, e.shoe, e.round FROM events e
             JOIN shoes s ON s.table_id = e.table_id AND s.shoe = e.shoe
             WHERE e.round IS NOT NULL AND s.gaming_day BETWEEN ? AND ?)""",
        [first, last],
    ).fetchone()
    return int(row[0]) if row else 0


def has_period(con: Any, table: str, gaming_day: dt.date, shift: str) -> bool:
    """Whether a period of ``table``, ``gaming_day`` and ``shift`` is stored (``adjust``
    records an adjustment only against the books)."""
    row = con.execute(
        "SELECT count(*) FROM periods WHERE table_id = ? AND gaming_day = ? AND shift = ?",
        [table, gaming_day, shift],
    ).fetchone()
    return bool(row and row[0])


def book_days_of_files(con: Any, file_ids: Sequence[int], day_start_min: int) -> list[dt.date]:
    """The gaming days the book records of the files ``file_ids`` belong to (cli.md: for
    ``nightly``, a ``drop_count``'s or ``adjustment``'s gaming day is its ``gaming_day``,
    another new event's its period's): the day of the record's ``ts``, cut at
    ``day_start_min`` minutes past midnight, which is its period's, as every shift's trays
    are counted at its change and the first shift starts with the gaming day (a session
    left open across the day start is the one exception: ``ACCT_NO_INVENTORY``)."""
    if not file_ids:
        return []
    rows = con.execute(
        f"""SELECT DISTINCT CASE WHEN type IN ('drop_count', 'adjustment')
                                 THEN gaming_day
                                 ELSE CAST(ts_local - to_minutes({int(day_start_min)}) AS DATE)
                            END AS d
            FROM events
            WHERE file_id IN (SELECT unnest(?)) AND shoe IS NULL
              AND type IN (SELECT unnest(?)) AND d IS NOT NULL
            ORDER BY 1""",
        [list(file_ids), list(_BOOK_TYPES)],
    ).fetchall()
    return [d for (d,) in rows]
