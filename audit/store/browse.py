"""The queries of the investigator web app (issue 12): a page of findings, a shoe's timeline.

Everything runs in DuckDB SQL on a connection opened for one request. The
findings list pages a year of data: filters and the sort happen in SQL, and
only the rows of the page asked for leave the database; the dealer (who dealt
the round, as ``run`` stored it in ``rounds``) is joined only where a filter
asks for it, or for the page's own rows.

Review states come from the review trail (a SQLite file the database cannot
read): the caller passes them in, and they go into a temporary table
(``web_reviews``) for the filter.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.events.models import AnyEvent
from audit.findings import Finding, Severity, money_str
from audit.store.rows import EVENT_COLUMNS, build_event
from audit.store.store import (
    DEFAULT_DAY_START,
    QUARANTINE_ID_SQL,
    Store,
    _finding,
    day_start_minutes,
)
from audit.store.types import ShoeKey
from audit.store.where import Where

PAGE_SIZE = 50
UNREVIEWED = "unreviewed"

SORTS: dict[str, tuple[str, ...]] = {
    "impact": ("abs_impact DESC", "sev_rank DESC"),
    "severity": ("sev_rank DESC", "abs_impact DESC"),
    "time": ("gaming_day DESC NULLS LAST",),
}
"""The orders the list offers (money impact, either way, first by default); every one
ends with the place and the id, so pages never overlap."""
_TIEBREAK = (
    "gaming_day NULLS FIRST",
    "table_id NULLS FIRST",
    "shoe NULLS FIRST",
    "round NULLS FIRST",
    "box NULLS FIRST",
    "id",
)

_SEV_RANK = "CASE severity " + " ".join(f"WHEN '{s}' THEN {s.rank}" for s in Severity) + " END"


@dataclass(frozen=True, slots=True)
class FindingFilter:
    """What the findings list shows; None or empty: no filter."""

    first_day: dt.date | None = None
    last_day: dt.date | None = None
    table: str | None = None
    dealer: str | None = None
    codes: tuple[str, ...] = ()
    severities: tuple[str, ...] = ()
    review: str | None = None
    """A review state, or ``unreviewed``."""


@dataclass(frozen=True, slots=True)
class FindingRow:
    """A finding of the list, with what the list shows beside it."""

    finding: Finding
    gaming_day: dt.date | None
    dealer: str | None


@dataclass(frozen=True, slots=True)
class FindingsPage:
    rows: tuple[FindingRow, ...]
    total: int
    page: int
    pages: int


def _all_findings_sql(start: int) -> str:
    """Every finding as ``findings`` lists it (quarantine, ingest and replay findings)."""
    return f"""
    SELECT q.code, CASE q.code WHEN 'LOG_ID_CONFLICT' THEN 'critical' ELSE 'major' END
             AS severity,
           q.table_id, q.shoe, NULL::BIGINT AS round, NULL::BIGINT AS box,
           NULL::BIGINT AS hand, NULL::BIGINT AS spot, NULL AS expected, NULL AS actual,
           NULL::DECIMAL(18,4) AS impact, NULL AS rule,
           CASE WHEN q.id IS NULL THEN []::VARCHAR[] ELSE [q.id] END AS events,
           q.path || ':' || q.line_no AS source,
           q.path || ':' || q.line_no || ': ' || q.reason AS message,
           {QUARANTINE_ID_SQL} AS id,
           COALESCE(s.gaming_day, CAST(q.ts_local - to_minutes({start}) AS DATE)) AS gaming_day
    FROM quarantine q LEFT JOIN shoes s USING (table_id, shoe)
    UNION ALL
    SELECT code, severity, table_id, shoe, round, box, hand, spot, expected, actual, impact,
           rule, events, source, message, id, gaming_day FROM log_findings
    UNION ALL
    SELECT code, severity, table_id, shoe, round, box, hand, spot, expected, actual, impact,
           rule, events, source, message, id, gaming_day FROM findings
    """


_SELECT = """code, table_id, shoe, round, box, hand, spot, expected, actual, impact, rule,
    events, source, message, id"""


def _load_reviews(store: Store, reviews: Mapping[str, str]) -> None:
    items = sorted(reviews.items())
    store.con.execute(
        "CREATE OR REPLACE TEMP TABLE web_reviews AS "
        "SELECT unnest(?::VARCHAR[]) AS id, unnest(?::VARCHAR[]) AS state",
        [[i for i, _ in items], [s for _, s in items]],
    )


def _dealer_join(alias: str) -> str:
    """Who dealt a finding's round (``rounds.dealer``), else who opened its shoe."""
    return f"""LEFT JOIN rounds r ON r.table_id = {alias}.table_id AND r.shoe = {alias}.shoe
                  AND r.round = {alias}.round
               LEFT JOIN shoes sh ON sh.table_id = {alias}.table_id AND sh.shoe = {alias}.shoe"""


def findings_page(
    store: Store,
    flt: FindingFilter,
    *,
    sort: str = "impact",
    page: int = 1,
    per_page: int = PAGE_SIZE,
    reviews: Mapping[str, str] | None = None,
) -> FindingsPage:
    """One page of the findings ``flt`` selects, in the order ``sort`` names (:data:`SORTS`)."""
    start = day_start_minutes(store.meta("day_start") or DEFAULT_DAY_START)
    cond = Where()
    cond.given(flt.first_day, "f.gaming_day >= ?")
    cond.given(flt.last_day, "f.gaming_day <= ?")
    cond.given(flt.table, "f.table_id = ?")
    if flt.codes:
        cond.add("f.code IN (SELECT unnest(?::VARCHAR[]))", list(flt.codes))
    if flt.severities:
        cond.add("f.severity IN (SELECT unnest(?::VARCHAR[]))", list(flt.severities))
    joins = ""
    if flt.review is not None:
        _load_reviews(store, reviews or {})
        joins += " LEFT JOIN web_reviews w ON w.id = f.id"
        if flt.review == UNREVIEWED:
            cond.add("w.state IS NULL")
        else:
            cond.add("w.state = ?", flt.review)
    if flt.dealer is not None:
        joins += " " + _dealer_join("f")
        cond.add("coalesce(r.dealer, sh.dealer) = ?", flt.dealer)
    where, params = cond.sql, cond.params
    base = f"SELECT f.* FROM ({_all_findings_sql(start)}) f {joins} WHERE {where}"
    order = (*SORTS.get(sort, SORTS["impact"]), *_TIEBREAK)
    page = max(1, page)

    def read(page: int) -> list[tuple[Any, ...]]:
        # the page and the count of all matches in one pass over the findings
        return list(
            store.con.execute(
                f"""WITH chosen AS (
                      SELECT *, {_SEV_RANK} AS sev_rank, abs(coalesce(impact, 0)) AS abs_impact,
                             count(*) OVER () AS total
                      FROM ({base})
                      ORDER BY {", ".join(order)}
                      LIMIT {int(per_page)} OFFSET {int((page - 1) * per_page)})
                    SELECT {", ".join(f"p.{c.strip()}" for c in _SELECT.split(","))},
                           p.gaming_day, coalesce(r.dealer, sh.dealer), p.total
                    FROM chosen p {_dealer_join("p")}
                    ORDER BY {", ".join(f"p.{o}" for o in order)}""",
                params,
            ).fetchall()
        )

    rows = read(page)
    if rows:
        total = int(rows[0][17])
    else:  # no match, or a page past the last one: show the last page
        (total,) = store.con.execute(f"SELECT count(*) FROM ({base})", params).fetchone()
        last = max(1, -(-int(total) // per_page))
        if page > last:
            page = last
            rows = read(page)
    pages = max(1, -(-int(total) // per_page))
    out = tuple(FindingRow(_finding(r[:15]), r[15], r[16]) for r in rows)
    return FindingsPage(out, int(total), page, pages)


@dataclass(frozen=True, slots=True)
class FilterChoices:
    """What the list's filters offer (the database's days, tables and dealers)."""

    days: tuple[dt.date, ...]
    tables: tuple[str, ...]
    dealers: tuple[str, ...]
    codes: tuple[str, ...] = field(default_factory=tuple)


def filter_choices(store: Store) -> FilterChoices:
    """The gaming days, tables, dealers and finding codes the database has."""
    days = [
        d
        for (d,) in store.con.execute(
            "SELECT DISTINCT gaming_day FROM shoes WHERE gaming_day IS NOT NULL ORDER BY 1 DESC"
        ).fetchall()
    ]
    tables = [
        t for (t,) in store.con.execute("SELECT DISTINCT table_id FROM shoes ORDER BY 1").fetchall()
    ]
    dealers = [
        d
        for (d,) in store.con.execute(
            """SELECT DISTINCT dealer FROM (SELECT dealer FROM shoes UNION ALL
                                              SELECT DISTINCT dealer FROM rounds)
               WHERE dealer IS NOT NULL ORDER BY 1"""
        ).fetchall()
    ]
    codes = [
        c
        for (c,) in store.con.execute(
            """SELECT DISTINCT code FROM (SELECT code FROM findings UNION ALL
               SELECT code FROM log_findings UNION ALL SELECT code FROM quarantine) ORDER BY 1"""
        ).fetchall()
    ]
    return FilterChoices(tuple(days), tuple(tables), tuple(dealers), tuple(codes))


# --------------------------------------------------------------------------- a shoe


@dataclass(frozen=True, slots=True)
class TimelineRound:
    """One round of a shoe, as ``run`` stored it."""

    round: int
    status: str
    dealer: str | None
    opened_at: dt.datetime | None
    opened_local: dt.datetime | None
    """The table's local time of the round's first event, as the shoe's other events
    are shown (the server's own time zone may be another)."""
    boxes: int
    handle: Any
    dealer_cards: tuple[str, ...]
    dealer_total: int
    findings: int
    worst_severity: str | None
    impact: str | None
    """The round's net impact as a money string, or None."""


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    """A shoe-level event the timeline marks: shuffle, cut, cut card, dealer change, close."""

    seq: int
    ts_local: dt.datetime | None
    type: str
    round: int | None
    dealer: str | None
    position: int | None
    reason: str | None
    next_round: int | None
    """The first round after the event (where a dealer change or the cut card falls)."""


@dataclass(frozen=True, slots=True)
class Timeline:
    table: str
    shoe: str
    profile: str | None
    dealer: str | None
    gaming_day: dt.date | None
    opened_at: dt.datetime | None
    events: int
    rounds: tuple[TimelineRound, ...]
    marks: tuple[TimelineEvent, ...]
    findings: tuple[Finding, ...]


_MARK_TYPES = (
    "shoe_open",
    "shuffle",
    "cut",
    "cut_card",
    "cut_card_out",
    "dealer_change",
    "shoe_close",
)


def shoe_timeline(store: Store, table: str, shoe: str) -> Timeline | None:
    """The rounds, findings, dealer changes and cut card of one shoe (None: no such shoe)."""
    key = ShoeKey(table, shoe)
    info = store.shoe_info([key]).get(key)
    if info is None:
        return None
    rounds = store.con.execute(
        """SELECT r.round, r.status, r.dealer, r.opened_at, e.ts_local, r.boxes, r.handle,
                  r.dealer_cards, r.dealer_total, r.findings, r.worst_severity, r.impact
           FROM rounds r
           LEFT JOIN events e ON e.table_id = ? AND e.shoe = ? AND e.seq = r.first_seq
           WHERE r.table_id = ? AND r.shoe = ? ORDER BY r.round""",
        [table, shoe, table, shoe],
    ).fetchall()
    marks = store.con.execute(
        """WITH m AS (
              SELECT seq, ts_local, type, round, dealer, position, reason FROM events
              WHERE table_id = ? AND shoe = ? AND type IN (SELECT unnest(?::VARCHAR[])))
            SELECT m.*, (SELECT min(r.round) FROM rounds r
                         WHERE r.table_id = ? AND r.shoe = ? AND r.first_seq > m.seq)
            FROM m ORDER BY seq""",
        [table, shoe, list(_MARK_TYPES), table, shoe],
    ).fetchall()
    found = store.all_findings(table=table, shoe=shoe)
    return Timeline(
        table=table,
        shoe=shoe,
        profile=info.profile,
        dealer=info.dealer,
        gaming_day=info.gaming_day,
        opened_at=info.opened_at,
        events=info.events,
        rounds=tuple(
            TimelineRound(
                int(r[0]),
                r[1],
                r[2],
                r[3],
                r[4],
                int(r[5]),
                r[6],
                tuple(r[7] or ()),
                int(r[8]),
                int(r[9]),
                r[10],
                money_str(r[11]),
            )
            for r in rounds
        ),
        marks=tuple(TimelineEvent(*m) for m in marks),
        findings=tuple(found),
    )


def shoe_rounds(store: Store, table: str, shoe: str) -> list[tuple[int, int, str | None]]:
    """Every stored round of a shoe: ``(round, findings, worst severity)``, in order."""
    return [
        (int(r), int(n), w)
        for r, n, w in store.con.execute(
            """SELECT round, findings, worst_severity FROM rounds
               WHERE table_id = ? AND shoe = ? ORDER BY round""",
            [table, shoe],
        ).fetchall()
    ]


# --------------------------------------------------------------------------- a hand page


def shoe_events_with_sources(
    store: Store, table: str, shoe: str
) -> tuple[list[AnyEvent], dict[str, tuple[str, int]]]:
    """One shoe's events in ``seq`` order (as :meth:`Store.load_shoe_events` gives them) and
    where each was read (file path as ingested, line), in one read of the events table."""
    cols = [c for c in EVENT_COLUMNS if c not in ("ts", "raw")]
    select = ", ".join(f'e."{c}"' for c in cols)
    table_ = store.con.sql(
        f"""SELECT {select}, CASE WHEN e.has_extra THEN e.raw END AS raw,
                   i.path AS _path, e.line_no AS _line
            FROM events e LEFT JOIN input_files i USING (file_id)
            WHERE e.table_id = ? AND e.shoe = ?
            ORDER BY e.seq, e.id""",
        params=[table, shoe],
    ).to_arrow_table()
    events: list[AnyEvent] = []
    sources: dict[str, tuple[str, int]] = {}
    for row in table_.to_pylist():
        path, line = row.pop("_path"), row.pop("_line")
        events.append(build_event(row))
        if path is not None:
            sources[str(row["id"])] = (str(path), int(line))
    return events, sources


def database_version(path: str | Path) -> tuple[int, ...]:
    """What changes whenever a writer changes the database file (its WAL included): the
    key of data kept between requests (a page's filter choices, the tables' outlines)."""
    out: list[int] = []
    for p in (Path(path), Path(f"{path}.wal")):
        try:
            st = p.stat()
        except FileNotFoundError:
            out += [0, 0]
            continue
        out += [st.st_mtime_ns, st.st_size]
    return tuple(out)
