"""The report's view of the audit database: the one place that knows its tables.

:class:`Sources` reads the store's tables (:mod:`audit.store.schema`) for a
set of gaming days into three temporary tables, which every aggregate query
of the report reads (never a Python loop over rows):

``report_shoes``, one row per shoe of the period: ``table_id, shoe, profile,
dealer`` (the dealer who opened the shoe), ``gaming_day, currency``
(``shoe_open.currency``), ``closed`` (a ``shoe_close`` was logged),
``last_ts`` (the ``ts`` of its last event as the log wrote it), ``rounds,
wagers, handle`` (as the engine counted them, ``shoe_audits``), ``replayed``
(audited under a known profile).

``report_rounds``, one row per round of a replayed shoe: ``table_id, shoe,
round, dealer``. A round belongs to the dealer in charge when it opened: the
``dealer`` of the latest ``shoe_open`` or ``dealer_change`` before the round's
``round_open`` in ``seq`` order, within the same table and shoe (a round whose
``round_open`` is missing opens with its first event).

``report_findings``, every finding of the period, exactly what ``shoe-audit
findings`` lists for those gaming days (replay findings, ingest findings and
quarantined lines): ``code, severity, table_id, shoe, round, box, hand, spot,
expected, actual, impact, rule, events, source, message, gaming_day, dealer``.
``dealer`` is its round's dealer (``report_rounds``); a finding without a
round (shoe-level, or raised while reading a file) goes to the shoe's opening
dealer.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from audit.findings import Code

SHOES = "report_shoes"
ROUNDS = "report_rounds"
FINDINGS = "report_findings"

_FINDING_COLUMNS = """code, severity, table_id, shoe, round, box, hand, spot, expected, actual,
    impact, rule, events, source, message, gaming_day, ordinal"""

# A quarantined line is a finding of its own code's severity (LOG_MALFORMED, LOG_ID_CONFLICT).
_QUARANTINE_SEVERITY = (
    "CASE q.code "
    + " ".join(f"WHEN '{c}' THEN '{c.severity}'" for c in Code if c.startswith("LOG_"))
    + " END"
)

_SHOES_SQL = f"""
CREATE OR REPLACE TEMP TABLE {SHOES} AS
WITH s AS (SELECT * FROM shoes WHERE list_contains($days, gaming_day)),
     e AS (
       SELECT table_id, shoe,
              arg_min(currency, seq) FILTER (WHERE type = 'shoe_open') AS currency,
              bool_or(type = 'shoe_close') AS closed
       FROM events
       WHERE type IN ('shoe_open', 'shoe_close')
         AND (table_id, shoe) IN (SELECT table_id, shoe FROM s)
       GROUP BY table_id, shoe),
     last AS (
       SELECT e.table_id, e.shoe, min(json_extract_string(e.raw, '$.ts')) AS last_ts
       FROM events e JOIN s
         ON e.table_id = s.table_id AND e.shoe = s.shoe AND e.seq = s.last_seq
       GROUP BY e.table_id, e.shoe)
SELECT s.table_id, s.shoe, s.profile, s.dealer, s.gaming_day, e.currency,
       coalesce(e.closed, false) AS closed, last.last_ts,
       coalesce(a.rounds, 0) AS rounds, coalesce(a.wagers, 0) AS wagers,
       coalesce(a.handle, 0) AS handle, a.engine_version,
       a.profile_digest IS NOT NULL AS replayed
FROM s LEFT JOIN e USING (table_id, shoe) LEFT JOIN last USING (table_id, shoe)
LEFT JOIN shoe_audits a USING (table_id, shoe)
"""

_ROUNDS_SQL = f"""
CREATE OR REPLACE TEMP TABLE {ROUNDS} AS
WITH ev AS (
       SELECT e.table_id, e.shoe, e.round, e.seq, e.type, e.dealer
       FROM events e JOIN {SHOES} s USING (table_id, shoe)
       WHERE s.replayed),
     r AS (
       SELECT table_id, shoe, round,
              coalesce(min(seq) FILTER (WHERE type = 'round_open'), min(seq)) AS opened_seq
       FROM ev WHERE round IS NOT NULL
       GROUP BY table_id, shoe, round),
     d AS (SELECT table_id, shoe, seq, dealer FROM ev
           WHERE type IN ('shoe_open', 'dealer_change'))
SELECT r.table_id, r.shoe, r.round, d.dealer
FROM r ASOF LEFT JOIN d
  ON r.table_id = d.table_id AND r.shoe = d.shoe AND r.opened_seq > d.seq
"""

# Mirrors Store.all_findings (the `findings` command), restricted to the period.
_FINDINGS_SQL = f"""
CREATE OR REPLACE TEMP TABLE {FINDINGS} AS
WITH day_start AS (
       SELECT CAST(split_part(value, ':', 1) AS INTEGER) * 60
              + CAST(split_part(value, ':', 2) AS INTEGER) AS minutes
       FROM meta WHERE key = 'day_start'),
     q AS (
       SELECT q.code, {_QUARANTINE_SEVERITY} AS severity, q.table_id, q.shoe,
              NULL::BIGINT AS round, NULL::BIGINT AS box, NULL::BIGINT AS hand,
              NULL::BIGINT AS spot, NULL::VARCHAR AS expected, NULL::VARCHAR AS actual,
              NULL::DECIMAL(18,2) AS impact, NULL::VARCHAR AS rule,
              CASE WHEN q.id IS NULL THEN []::VARCHAR[] ELSE [q.id] END AS events,
              q.path || ':' || q.line_no AS source,
              q.path || ':' || q.line_no || ': ' || q.reason AS message,
              coalesce(s.gaming_day,
                       CAST(q.ts_local - to_minutes((SELECT minutes FROM day_start)) AS DATE))
                AS gaming_day,
              q.line_no AS ordinal
       FROM quarantine q LEFT JOIN shoes s USING (table_id, shoe)),
     f AS (
       SELECT {_FINDING_COLUMNS} FROM q
       UNION ALL SELECT {_FINDING_COLUMNS} FROM log_findings
       UNION ALL SELECT {_FINDING_COLUMNS} FROM findings)
SELECT f.* EXCLUDE (ordinal), coalesce(r.dealer, s.dealer) AS dealer
FROM f
LEFT JOIN {ROUNDS} r USING (table_id, shoe, round)
LEFT JOIN {SHOES} s USING (table_id, shoe)
WHERE list_contains($days, f.gaming_day)
"""


class Sources:
    """The period's shoes, rounds and findings, as temporary tables on ``con``.

    Use as a context manager: the temporary tables are dropped on exit.
    """

    def __init__(self, con: Any, days: Sequence[dt.date]) -> None:
        self.con = con
        self.days = list(days)
        for sql in (_SHOES_SQL, _ROUNDS_SQL, _FINDINGS_SQL):
            self.all(sql)

    def __enter__(self) -> Sources:
        return self

    def __exit__(self, *exc: object) -> None:
        for table in (FINDINGS, ROUNDS, SHOES):
            self.con.execute(f"DROP TABLE IF EXISTS {table}")

    # ------------------------------------------------------------------ running queries

    def all(self, sql: str, **params: Any) -> list[tuple[Any, ...]]:
        """Every row of ``sql``; ``$days`` is bound to the report's gaming days."""
        bound = {"days": self.days, **params}
        used = {k: v for k, v in bound.items() if f"${k}" in sql}
        return list(self.con.execute(sql, used).fetchall())

    def one(self, sql: str, **params: Any) -> tuple[Any, ...]:
        return self.all(sql, **params)[0]

    # ------------------------------------------------------------------ inputs

    def _period_files(self) -> str:
        """The ``file_id`` of every file that holds events of the period's shoes."""
        return f"""SELECT DISTINCT e.file_id FROM events e
                   WHERE (e.table_id, e.shoe) IN (SELECT table_id, shoe FROM {SHOES})"""

    def quarantine(self, limit: int) -> tuple[int, list[tuple[str, str]]]:
        """Quarantined lines of the period's files: the count and the first ``limit``.

        A line is the period's when its ``file:line`` finding is (its shoe's
        gaming day, else its own ``ts``), or when it has no gaming day (not
        readable JSON) and its file holds events of the period's shoes.
        """
        where = f"""(q.path || ':' || q.line_no) IN (SELECT source FROM {FINDINGS})
                    OR (q.ts_local IS NULL AND q.file_id IN ({self._period_files()}))"""
        n = self.one(f"SELECT count(*) FROM quarantine q WHERE {where}")[0]
        rows = self.all(
            f"""SELECT q.path || ':' || q.line_no, q.reason FROM quarantine q WHERE {where}
                ORDER BY q.path, q.line_no, q.code LIMIT {int(limit)}"""
        )
        return int(n), [(str(a), str(b)) for a, b in rows]

    def input_files(self) -> list[tuple[str, str, int, int]]:
        """The period's input files: path, SHA-256, size in bytes, events read (by path)."""
        rows = self.all(
            f"""SELECT i.path, i.sha256, i.size_bytes, i.events FROM input_files i
                WHERE i.file_id IN ({self._period_files()})
                   OR i.file_id IN (SELECT q.file_id FROM quarantine q
                                    WHERE (q.path || ':' || q.line_no)
                                          IN (SELECT source FROM {FINDINGS}))
                ORDER BY i.path, i.sha256"""
        )
        return [(str(p), str(h), int(size), int(n)) for p, h, size, n in rows]

    def engine_versions(self) -> list[str]:
        """The engine versions that audited the period's shoes."""
        return [
            str(v)
            for (v,) in self.all(
                f"SELECT DISTINCT engine_version FROM {SHOES} "
                "WHERE engine_version IS NOT NULL ORDER BY 1"
            )
        ]
