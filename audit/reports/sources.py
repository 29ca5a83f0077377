"""The report's view of the audit database: the one place that knows its tables.

:class:`Sources` turns the store's tables into a few normalised subqueries
(``shoes``, ``findings``) restricted to the report's gaming days, which the
report's aggregate SQL reads. Columns the store may not have (yet) are
detected once, and the subqueries fall back to what can be derived from the
``events`` table, so the report keeps working while the schema grows.

Normalised columns:

``shoes``: ``table_id, shoe, profile, dealer, gaming_day, currency, closed,
rounds, wagers, handle, last_ts``.

``findings``: ``code, severity, table_id, shoe, round, box, hand, spot,
expected, actual, impact (DECIMAL), rule, events (VARCHAR[]), source, message,
gaming_day`` (replay findings and ingest findings together).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from audit.errors import NotFoundError
from audit.events.models import AnyEvent, ShoeOpen
from audit.events.parse import loads, parse_object
from audit.profiles import ProfileRegistry
from audit.reports.context import HandContext

if TYPE_CHECKING:
    from audit.engine import ShoeReplay


def connection_of(store: Any) -> Any:
    """The DuckDB connection of a :class:`audit.store.Store`, or the connection itself."""
    return getattr(store, "con", store)


class Sources:
    """Normalised subqueries over the store for a set of gaming days."""

    def __init__(self, con: Any, days: Sequence[dt.date]) -> None:
        self.con = con
        self.days = list(days)
        self.columns = self._columns()
        self.shoes = self._shoes_sql()
        self.findings = self._findings_sql()

    # ------------------------------------------------------------------ running queries

    def all(self, sql: str, **params: Any) -> list[tuple[Any, ...]]:
        """Every row of ``sql``; ``$days`` is bound to the report's gaming days."""
        bound = {"days": self.days, **params}
        used = {k: v for k, v in bound.items() if f"${k}" in sql}
        return list(self.con.execute(sql, used).fetchall())

    def one(self, sql: str, **params: Any) -> tuple[Any, ...]:
        rows = self.all(sql, **params)
        return rows[0]

    # ------------------------------------------------------------------ schema

    def _columns(self) -> dict[str, set[str]]:
        rows = self.con.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema()"
        ).fetchall()
        cols: dict[str, set[str]] = {}
        for t, c in rows:
            cols.setdefault(t, set()).add(c)
        return cols

    def has(self, table: str, *columns: str) -> bool:
        return table in self.columns and all(c in self.columns[table] for c in columns)

    def _col(self, table: str, *candidates: str, default: str = "NULL") -> str:
        for c in candidates:
            if self.has(table, c):
                return f'"{c}"'
        return default

    def _shoes_sql(self) -> str:
        t = self._col("shoes", "table_id", "table")
        ev_t = self._col("events", "table_id", "table")
        closed = (
            'coalesce(s."closed", false)'
            if self.has("shoes", "closed")
            else (
                f"EXISTS (SELECT 1 FROM events e WHERE e.{ev_t} = s.{t} AND e.shoe = s.shoe "
                "AND e.type = 'shoe_close')"
                if self.has("events", "type", "shoe")
                else "true"
            )
        )
        audits = self.has("shoe_audits", "shoe")
        a_t = self._col("shoe_audits", "table_id", "table")
        rounds = "a.rounds" if self.has("shoe_audits", "rounds") else "NULL"
        wagers = "a.wagers" if self.has("shoe_audits", "wagers") else "NULL"
        handle = "a.handle" if self.has("shoe_audits", "handle") else "NULL"
        currency = 's."currency"' if self.has("shoes", "currency") else "NULL"
        last_ts = (
            "CAST(s.last_ts AS VARCHAR)"
            if self.has("shoes", "last_ts")
            else (
                f"(SELECT CAST(max(e.ts) AS VARCHAR) FROM events e WHERE e.{ev_t} = s.{t} "
                "AND e.shoe = s.shoe)"
                if self.has("events", "ts", "shoe")
                else "NULL"
            )
        )
        join = f"LEFT JOIN shoe_audits a ON a.{a_t} = s.{t} AND a.shoe = s.shoe" if audits else ""
        if not audits:
            rounds = wagers = handle = "NULL"
        return f"""
            SELECT s.{t} AS table_id, s.shoe AS shoe, s.profile AS profile, s.dealer AS dealer,
                   CAST(s.gaming_day AS DATE) AS gaming_day, {currency} AS currency,
                   {closed} AS closed, coalesce({rounds}, 0) AS rounds,
                   coalesce({wagers}, 0) AS wagers,
                   CAST(coalesce({handle}, 0) AS DECIMAL(18, 2)) AS handle,
                   {last_ts} AS last_ts
            FROM shoes s {join}
            WHERE list_contains($days, CAST(s.gaming_day AS DATE))
        """

    def _one_findings_sql(self, table: str) -> str:
        t = self._col(table, "table_id", "table")
        s_t = self._col("shoes", "table_id", "table")
        day = (
            "CAST(f.gaming_day AS DATE)"
            if self.has(table, "gaming_day")
            else f"(SELECT CAST(min(s.gaming_day) AS DATE) FROM shoes s "
            f"WHERE s.{s_t} = f.{t} AND s.shoe = f.shoe)"
        )
        events = "f.events" if self.has(table, "events") else "[]::VARCHAR[]"
        source = "f.source" if self.has(table, "source") else "NULL"
        return f"""
            SELECT f.code AS code, f.severity AS severity, f.{t} AS table_id, f.shoe AS shoe,
                   f."round" AS "round", f.box AS box, f.hand AS hand, f.spot AS spot,
                   CAST(f.expected AS VARCHAR) AS expected, CAST(f.actual AS VARCHAR) AS actual,
                   CAST(f.impact AS DECIMAL(18, 2)) AS impact, f.rule AS rule,
                   CAST({events} AS VARCHAR[]) AS events, {source} AS source,
                   f.message AS message, {day} AS gaming_day
            FROM {table} f
        """

    def _findings_sql(self) -> str:
        parts = [
            self._one_findings_sql(t) for t in ("findings", "log_findings") if t in self.columns
        ]
        if not parts:
            raise NotFoundError("the database has no findings table: run `shoe-audit run` first")
        union = " UNION ALL ".join(parts)
        return f"SELECT * FROM ({union}) u WHERE list_contains($days, u.gaming_day)"

    # ------------------------------------------------------------------ other tables

    def quarantine(self, limit: int) -> tuple[int, list[tuple[str, str]]]:
        """Quarantined lines of the period's files: the count and the first ``limit``."""
        if "quarantine" not in self.columns:
            return 0, []
        path = self._col("quarantine", "path", "file")
        line = self._col("quarantine", "line", "line_no", "lineno")
        reason = self._col("quarantine", "reason", "error", "message")
        where = self._period_files_filter(f"q.{path}")
        n = self.one(f"SELECT count(*) FROM quarantine q WHERE {where}")[0]
        rows = self.all(
            f"""
            SELECT CAST(q.{path} AS VARCHAR) || ':' || CAST(q.{line} AS VARCHAR),
                   CAST(q.{reason} AS VARCHAR)
            FROM quarantine q WHERE {where}
            ORDER BY q.{path}, q.{line} LIMIT {int(limit)}
            """
        )
        return int(n), [(str(a), str(b)) for a, b in rows]

    def _period_files_filter(self, path_expr: str) -> str:
        # the files that hold events of the period's shoes; every file when that is unknown
        ev_file = self._col("events", "path", "file", "source_file")
        if ev_file == "NULL" or not self.has("events", "shoe"):
            return "true"
        ev_t = self._col("events", "table_id", "table")
        return (
            f"{path_expr} IN (SELECT DISTINCT e.{ev_file} FROM events e JOIN ({self.shoes}) s "
            f"ON e.{ev_t} = s.table_id AND e.shoe = s.shoe) OR {path_expr} NOT IN "
            f"(SELECT DISTINCT e2.{ev_file} FROM events e2 WHERE e2.{ev_file} IS NOT NULL)"
        )

    def input_files(self) -> list[tuple[str, str, int, int | None]]:
        """The period's input files: path, SHA-256, size, events (by path)."""
        if "input_files" not in self.columns:
            return []
        path = self._col("input_files", "path")
        sha = self._col("input_files", "sha256")
        size = self._col("input_files", "size", "size_bytes", "bytes")
        n = self._col("input_files", "events", "n_events", "lines")
        where = self._period_files_filter(f"i.{path}")
        rows = self.all(
            f"SELECT CAST(i.{path} AS VARCHAR), CAST(i.{sha} AS VARCHAR), "
            f"coalesce(i.{size}, 0), i.{n} FROM input_files i WHERE {where} ORDER BY 1"
        )
        return [(r[0], r[1], int(r[2]), None if r[3] is None else int(r[3])) for r in rows]

    def engine_versions(self) -> list[tuple[str]]:
        if not self.has("shoe_audits", "engine_version"):
            return []
        a_t = self._col("shoe_audits", "table_id", "table")
        return [
            (str(v),)
            for (v,) in self.all(
                f"SELECT DISTINCT a.engine_version FROM shoe_audits a JOIN ({self.shoes}) s "
                f"ON a.{a_t} = s.table_id AND a.shoe = s.shoe ORDER BY 1"
            )
        ]

    def first_shoe_of_day(self, table: str, shoe: str) -> bool:
        """Whether this shoe is its table's first of its gaming day (card inspection, 001)."""
        if not self.has("shoes", "opened_at"):
            return True
        t = self._col("shoes", "table_id", "table")
        rows = self.all(
            f"""
            SELECT s.shoe FROM shoes s
            JOIN shoes me ON me.{t} = s.{t} AND me.gaming_day = s.gaming_day
            WHERE me.{t} = $t AND me.shoe = $s
            ORDER BY s.opened_at NULLS LAST, s.shoe LIMIT 1
            """,
            t=table,
            s=shoe,
        )
        return not rows or rows[0][0] == shoe


def load_events(store: Any, table: str, shoe: str) -> list[AnyEvent]:
    """One shoe's events in ``seq`` order, through the store's API or its ``events`` table."""
    loader = getattr(store, "load_shoe_events", None)
    if loader is not None:
        from audit.store import ShoeKey

        key = ShoeKey(table, shoe)
        return list(loader([key]).get(key, []))
    con = connection_of(store)
    cols = {
        c
        for (c,) in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'events'"
        ).fetchall()
    }
    t = "table_id" if "table_id" in cols else '"table"'
    raw = "raw" if "raw" in cols else "json"
    rows = con.execute(
        f"SELECT CAST({raw} AS VARCHAR) FROM events WHERE {t} = ? AND shoe = ? ORDER BY seq",
        [table, shoe],
    ).fetchall()
    return [parse_object(loads(r[0])) for r in rows]


Replayer = Callable[[str, str], "tuple[ShoeReplay, Sequence[AnyEvent]]"]
"""Replays one stored shoe (table, shoe) and returns the replay and its events."""


def hand_contexts(
    store: Any,
    wanted: Sequence[tuple[str, str, int]],
    src: Sources,
    replayer: Replayer | None = None,
    registry: ProfileRegistry | None = None,
) -> list[HandContext]:
    """Replay each shoe named in ``wanted`` once and build the wanted rounds' contexts.

    ``replayer`` replays a stored shoe (the batch runner's, so that pages match
    ``run`` exactly); without it the shoe's events are read from the store and
    replayed here. A round the replay does not have is skipped.
    """
    from audit.engine import ShoeContext, replay_shoe
    from audit.profiles import load_registry
    from audit.reports.hand import build_hand_context

    registry = registry or load_registry()
    by_shoe: dict[tuple[str, str], list[int]] = {}
    for table, shoe, rnd in wanted:
        by_shoe.setdefault((table, shoe), []).append(rnd)
    out: list[HandContext] = []
    for (table, shoe), rounds in sorted(by_shoe.items()):
        if replayer is not None:
            replay, events = replayer(table, shoe)
            if replay.profile_id is None or replay.profile_id not in registry:
                continue
            profile = registry.get(replay.profile_id)
        else:
            events = load_events(store, table, shoe)
            opened = next((e for e in events if isinstance(e, ShoeOpen)), None)
            if opened is None or opened.profile not in registry:
                continue
            profile = registry.get(opened.profile)
            first = src.first_shoe_of_day(table, shoe)
            replay = replay_shoe(events, profile, ShoeContext(first_shoe_of_gaming_day=first))
        for rnd in sorted(set(rounds)):
            try:
                out.append(build_hand_context(replay, rnd, profile, events=events))
            except NotFoundError:
                continue
    return out
