"""Finding a round for a dispute (issue 30): by table and time, by player, by dealer.

A dispute starts from what a player or a pit boss knows: "table T03, around 21:40
last night", a player card, a dealer. These queries answer it from what ``run``
stored (``rounds``, ``wagers``, ``findings``) and the round's own events (its
``round_open`` and last event give the opened and closed times, in the table's
local time with the offset its log wrote).

Times are table-local: each table at the offsets of its own ``ts``. A local time
at a table whose events show two offsets around it (a DST change) may happen
twice or not at all: :func:`readings` gives every instant it can mean.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from audit.findings import Severity
from audit.store.store import DEFAULT_DAY_START, Store, day_start_minutes
from audit.store.where import Where

__all__ = [
    "AFTER",
    "BEFORE",
    "IN_PLAY",
    "Reading",
    "RoundFilter",
    "RoundRow",
    "gaming_day_of",
    "has_rounds",
    "readings",
    "round_rows",
    "rounds_around",
    "store_day_start",
]

IN_PLAY = "in play"
BEFORE = "before"
AFTER = "after"

_WINDOW = dt.timedelta(hours=36)
"""A bound on the rounds ``rounds --at`` reads besides their table and gaming day: the
opening times of a gaming day's rounds lie within a day and some of any moment of it
(DuckDB skips the row groups outside it)."""

_SEV_RANK = "CASE f.severity " + " ".join(f"WHEN '{s}' THEN {s.rank}" for s in Severity) + " END"


@dataclass(frozen=True, slots=True)
class RoundRow:
    """One round as ``rounds`` lists it."""

    table: str
    shoe: str
    round: int
    gaming_day: dt.date | None
    opened: dt.datetime | None
    """The ``round_open``'s time, aware, at the offset the table's log wrote."""
    closed: dt.datetime | None
    """The time of the round's last event (its ``round_close``), likewise."""
    dealer: str | None
    dealer_is_player: bool
    """The dealer's id is also a player's at this table that day (a home game's banker):
    masked like any player id."""
    players: tuple[str, ...]
    findings: int
    worst_code: str | None
    worst_severity: str | None
    position: str | None = None
    """With ``--at``: :data:`IN_PLAY`, :data:`BEFORE` or :data:`AFTER`."""


@dataclass(frozen=True, slots=True)
class RoundFilter:
    """What ``rounds`` searches for; None: no filter."""

    table: str | None = None
    first_day: dt.date | None = None
    last_day: dt.date | None = None
    player: str | None = None
    dealer: str | None = None
    flagged: bool = False


@dataclass(frozen=True, slots=True)
class Reading:
    """One instant a table-local time can mean."""

    at: dt.datetime
    """Aware, at the table's offset of this reading."""
    note: str | None = None
    """Set when the local time happened twice or not at all (a DST change)."""


def store_day_start(store: Store) -> str:
    """The gaming day's start the database was ingested with (``HH:MM``)."""
    return store.meta("day_start") or DEFAULT_DAY_START


def gaming_day_of(local: dt.datetime, day_start: str) -> dt.date:
    """The gaming day a table-local (naive) time belongs to (cli.md, "Gaming day")."""
    return (local - dt.timedelta(minutes=day_start_minutes(day_start))).date()


_SELECT = f"""
    SELECT {{extra}} r.table_id, r.shoe, r.round, r.gaming_day, r.dealer,
           eo.ts_local, eo.utc_offset_min, ec.ts_local, ec.utc_offset_min,
           coalesce((SELECT list(DISTINCT w.player ORDER BY w.player) FROM wagers w
                     WHERE w.table_id = r.table_id AND w.shoe = r.shoe
                       AND w.round = r.round AND w.player IS NOT NULL), []),
           r.findings,
           (SELECT f.code FROM findings f
            WHERE f.table_id = r.table_id AND f.shoe = r.shoe AND f.round = r.round
            ORDER BY {_SEV_RANK} DESC, f.code LIMIT 1),
           (SELECT f.severity FROM findings f
            WHERE f.table_id = r.table_id AND f.shoe = r.shoe AND f.round = r.round
            ORDER BY {_SEV_RANK} DESC, f.code LIMIT 1),
           r.dealer IS NOT NULL AND EXISTS (
               SELECT 1 FROM wagers w WHERE w.table_id = r.table_id
                 AND w.gaming_day IS NOT DISTINCT FROM r.gaming_day AND w.player = r.dealer)
    FROM chosen r
    LEFT JOIN events eo ON eo.table_id = r.table_id AND eo.shoe = r.shoe AND eo.seq = r.first_seq
    LEFT JOIN events ec ON ec.table_id = r.table_id AND ec.shoe = r.shoe AND ec.seq = r.last_seq
"""
"""The columns of a :class:`RoundRow` for the rounds of a CTE ``chosen`` (the players,
the worst finding and the banker check read only the chosen rounds)."""


def _aware(local: dt.datetime | None, offset_min: int | None) -> dt.datetime | None:
    if local is None or offset_min is None:
        return None
    return local.replace(tzinfo=dt.timezone(dt.timedelta(minutes=int(offset_min))))


def _row(r: tuple[Any, ...], position: str | None = None) -> RoundRow:
    return RoundRow(
        table=r[0],
        shoe=r[1],
        round=int(r[2]),
        gaming_day=r[3],
        opened=_aware(r[5], r[6]),
        closed=_aware(r[7], r[8]),
        dealer=r[4],
        dealer_is_player=bool(r[13]),
        players=tuple(r[9] or ()),
        findings=int(r[10]),
        worst_code=r[11],
        worst_severity=r[12],
        position=position,
    )


def round_rows(store: Store, flt: RoundFilter) -> list[RoundRow]:
    """The rounds ``flt`` selects, in the order they were opened (table, shoe, round
    breaking ties)."""
    cond = Where()
    cond.given(flt.table, "table_id = ?")
    cond.given(flt.first_day, "gaming_day >= ?")
    cond.given(flt.last_day, "gaming_day <= ?")
    cond.given(flt.dealer, "dealer = ?")
    if flt.flagged:
        cond.add("findings > 0")
    cond.given(
        flt.player,
        "(table_id, shoe, round) IN (SELECT table_id, shoe, round FROM wagers WHERE player = ?)",
    )
    rows = store.con.execute(
        f"""WITH chosen AS (SELECT * FROM rounds WHERE {cond.sql})
            {_SELECT.format(extra="")}
            ORDER BY r.opened_at NULLS LAST, r.table_id, r.shoe, r.round""",
        cond.params,
    ).fetchall()
    return [_row(r) for r in rows]


def has_rounds(store: Store, table: str, gaming_day: dt.date) -> bool:
    """Whether ``run`` stored any round of ``table`` on ``gaming_day``."""
    row = store.con.execute(
        "SELECT count(*) FROM rounds WHERE table_id = ? AND gaming_day = ?",
        [table, gaming_day],
    ).fetchone()
    return bool(row and row[0])


def readings(store: Store, table: str, local: dt.datetime) -> list[Reading]:
    """Every instant the table-local time ``local`` (naive) can mean at ``table``.

    One, at the offset of the table's events around it. Where those events show two
    offsets (a DST change), the change is taken to fall on the first full hour (UTC)
    before the first event at the new offset, or at that event when the old offset was
    still written later: a local time the clocks passed twice gives two readings, one the
    clocks skipped gives both, each marked.
    """
    offsets = store.con.execute(
        """SELECT utc_offset_min, min(ts), max(ts) FROM events
           WHERE table_id = ? AND ts_local BETWEEN ? AND ?
           GROUP BY utc_offset_min ORDER BY min(ts)""",
        [table, local - _WINDOW, local + _WINDOW],
    ).fetchall()
    if not offsets:
        return []

    def at(offset_min: int) -> dt.datetime:
        return local.replace(tzinfo=dt.timezone(dt.timedelta(minutes=int(offset_min))))

    if len(offsets) == 1:
        return [Reading(at(offsets[0][0]))]
    (old, _, last_old), (new, first_new, _) = offsets[0], offsets[1]
    change = first_new.astimezone(dt.UTC).replace(minute=0, second=0, microsecond=0)
    if change <= last_old:
        change = first_new
    before, after = at(old), at(new)
    valid = [r for r, ok in ((before, before < change), (after, after >= change)) if ok]
    names = f"{_offset(before)} to {_offset(after)}"
    if len(valid) == 2:
        note = f"{local:%H:%M:%S} happened twice at {table} (the clocks went from {names})"
        return [Reading(before, note), Reading(after, note)]
    if not valid:
        note = f"{local:%H:%M:%S} did not exist at {table} (the clocks went from {names})"
        return [Reading(before, note), Reading(after, note)]
    return [Reading(valid[0])]


def _offset(t: dt.datetime) -> str:
    return t.isoformat()[-6:]


def rounds_around(store: Store, table: str, gaming_day: dt.date, at: dt.datetime) -> list[RoundRow]:
    """The rounds of ``table`` in play at the instant ``at`` (opened <= at <= closed), and
    the rounds just before and just after it on ``gaming_day``, in order, each with its
    position.

    Reads only the table's rounds of that gaming day (a filter on the table, the day and
    the time, not a scan of the night).
    """
    params = [table, gaming_day, at - _WINDOW, at + _WINDOW]
    rows = store.con.execute(
        f"""WITH near AS (
              SELECT r.*, ec.ts AS closed_at FROM rounds r
              LEFT JOIN events ec ON ec.table_id = r.table_id AND ec.shoe = r.shoe
                                 AND ec.seq = r.last_seq
              WHERE r.table_id = ? AND r.gaming_day = ? AND r.opened_at BETWEEN ? AND ?),
            placed AS (
              SELECT *, CASE WHEN opened_at <= $at AND coalesce(closed_at, opened_at) >= $at
                             THEN '{IN_PLAY}'
                             WHEN opened_at > $at THEN '{AFTER}' ELSE '{BEFORE}' END AS position
              FROM near),
            chosen AS (
              SELECT * FROM placed WHERE position = '{IN_PLAY}'
              UNION ALL (SELECT * FROM placed WHERE position = '{BEFORE}'
                         ORDER BY opened_at DESC, shoe DESC, round DESC LIMIT 1)
              UNION ALL (SELECT * FROM placed WHERE position = '{AFTER}'
                         ORDER BY opened_at, shoe, round LIMIT 1))
            {_SELECT.format(extra="r.position,")}
            ORDER BY r.opened_at, r.shoe, r.round""".replace("$at", "?::TIMESTAMPTZ"),
        [*params, at, at, at],
    ).fetchall()
    return [_row(r[1:], r[0]) for r in rows]


@dataclass(frozen=True, slots=True)
class TableDays:
    """A table and the gaming days it has rounds on (the web's table index)."""

    table: str
    days: tuple[dt.date, ...]
    rounds: int


def table_days(store: Store) -> list[TableDays]:
    """Every table with its gaming days and number of rounds, in table order."""
    rows = store.con.execute(
        """SELECT s.table_id, list(DISTINCT s.gaming_day ORDER BY s.gaming_day DESC)
                  FILTER (WHERE s.gaming_day IS NOT NULL),
                  (SELECT count(*) FROM rounds r WHERE r.table_id = s.table_id)
           FROM shoes s GROUP BY s.table_id ORDER BY s.table_id"""
    ).fetchall()
    return [TableDays(t, tuple(d or ()), int(n)) for t, d, n in rows]


@dataclass(frozen=True, slots=True)
class ShoeEntry:
    """A shoe of the web's shoe index."""

    table: str
    shoe: str
    gaming_day: dt.date | None
    opened: dt.datetime | None
    """Table-local, at the offset its log wrote."""
    rounds: int
    findings: int


def shoe_entries(store: Store, table: str | None = None) -> list[ShoeEntry]:
    """Every shoe (of ``table``), newest gaming day first, then by table and opening."""
    cond, params = ("WHERE s.table_id = ?", [table]) if table is not None else ("", [])
    rows = store.con.execute(
        f"""SELECT s.table_id, s.shoe, s.gaming_day, e.ts_local, e.utc_offset_min,
                   (SELECT count(*) FROM rounds r
                    WHERE r.table_id = s.table_id AND r.shoe = s.shoe),
                   (SELECT coalesce(sum(r.findings), 0) FROM rounds r
                    WHERE r.table_id = s.table_id AND r.shoe = s.shoe)
            FROM shoes s
            LEFT JOIN events e ON e.table_id = s.table_id AND e.shoe = s.shoe
                               AND e.seq = s.first_seq
            {cond}
            ORDER BY s.gaming_day DESC NULLS LAST, s.table_id, s.opened_at, s.shoe""",
        params,
    ).fetchall()
    return [ShoeEntry(t, s, d, _aware(lt, off), int(n), int(f)) for t, s, d, lt, off, n, f in rows]
