"""The report's view of the audit database: the one place that knows its tables.

:class:`Sources` reads the store's tables (:mod:`audit.store.schema`) for a
set of gaming days into temporary tables, which every aggregate query of the
report reads (never a Python loop over rows):

``report_shoes``, one row per shoe of the period: ``table_id, shoe, profile,
dealer`` (the dealer who opened the shoe), ``gaming_day, currency``
(``shoe_open.currency``, NULL when not given), ``closed`` (a ``shoe_close``
was logged), ``last_ts`` (the ``ts`` of its last event as the log wrote it),
``rounds, wagers, handle`` (as the engine counted them, ``shoe_audits``),
``engine_version``, ``replayed`` (audited under a known profile), and
``audit_state``: ``audited``, ``not_audited`` (no audit yet), ``stale``
(its events, the engine or its profile changed since its audit) or ``failed``
(its last replay failed: ``failure`` says why; it keeps its earlier audit's
results, if any).

``report_rounds``, one row per round of a replayed shoe (the columns of the
store's ``rounds`` table that the report needs): ``table_id, shoe, round,
gaming_day, profile_id, dealer, first_seq, last_seq, currency``. **Who dealt it**
(issue 10, point 5): a round belongs to the dealer in charge when it opened,
the ``dealer`` of the latest ``shoe_open`` or ``dealer_change`` before the
round's first event in ``seq`` order, within the same table and shoe. This one attribution is used
everywhere in the report.

``report_findings``, every finding of the period, exactly what ``shoe-audit
findings`` lists for those gaming days (replay findings, ingest findings and
quarantined lines): ``code, severity, sev_rank, table_id, shoe, round, box,
hand, spot, expected, actual, impact, rule, events, source, message,
gaming_day, dealer, currency``. ``dealer`` is its round's dealer
(``report_rounds``); a finding without a round (shoe-level, or raised while
reading a file) goes to the dealer who opened its shoe.

``report_findings`` leaves out the findings a review dismissed (issue 12: they
leave the counts and money totals); those are in ``report_dismissed``, with the
same columns. Both carry ``id`` (the stable id) and ``review`` (the review state,
:class:`audit.review.ReviewState`, NULL when never reviewed), from the review states
given to :class:`Sources` (table ``report_reviews``).

``report_flagged``, one row per round with at least one (counted) finding:
``table_id, shoe, round, gaming_day, dealer, currency, first_seq,
opened_local, utc_offset_min`` (the ``ts`` of its first event as logged: local time
and UTC offset), ``findings, worst_rank, worst_severity, codes``
(sorted, distinct), ``overpaid`` (the sum of positive impacts), ``underpaid``
(the sum of negative impacts, as a positive amount), ``net`` and ``moved``
(overpaid + underpaid: the money moved wrongly, whichever way), ``reviews`` (the
distinct review states of its findings, sorted).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from audit.findings import Code, Severity
from audit.store.store import QUARANTINE_ID_SQL

SHOES = "report_shoes"
ROUNDS = "report_rounds"
FINDINGS = "report_findings"
FILES = "report_files"
FLAGGED = "report_flagged"
REVIEWS = "report_reviews"
DISMISSED = "report_dismissed"

_FINDING_COLUMNS = """code, severity, table_id, shoe, round, box, hand, spot, expected, actual,
    impact, rule, events, source, message, gaming_day, ordinal, id"""

# A quarantined line is a finding of its own code's severity (LOG_MALFORMED, LOG_ID_CONFLICT).
_QUARANTINE_SEVERITY = (
    "CASE q.code "
    + " ".join(f"WHEN '{c}' THEN '{c.severity}'" for c in Code if c.startswith("LOG_"))
    + " END"
)
_SEV_RANK = "CASE severity " + " ".join(f"WHEN '{s}' THEN {s.rank}" for s in Severity) + " END"

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
     open_ AS (
       SELECT s.table_id, s.shoe, s.last_seq FROM s LEFT JOIN e USING (table_id, shoe)
       WHERE NOT coalesce(e.closed, false)),
     -- only a shoe left open shows the ts of its last event (as the log wrote it: read
     -- from the line, the widest column, so only for those: for every shoe of a night
     -- of 294,000 it was 2 of the report's first 3.6 s)
     last AS (
       SELECT e.table_id, e.shoe, min(json_extract_string(e.raw, '$.ts')) AS last_ts
       FROM events e JOIN open_ s
         ON e.table_id = s.table_id AND e.shoe = s.shoe AND e.seq = s.last_seq
       GROUP BY e.table_id, e.shoe),
     d AS (SELECT unnest($profiles) AS profile, unnest($digests) AS digest)
SELECT s.table_id, s.shoe, s.profile, s.dealer, s.gaming_day, e.currency,
       coalesce(e.closed, false) AS closed, last.last_ts,
       coalesce(a.rounds, 0) AS rounds, coalesce(a.wagers, 0) AS wagers,
       coalesce(a.handle, 0) AS handle, a.engine_version,
       a.profile_digest IS NOT NULL AS replayed,
       f.error AS failure,
       CASE WHEN f.table_id IS NOT NULL THEN 'failed'
            WHEN a.table_id IS NULL THEN 'not_audited'
            WHEN a.events_digest IS DISTINCT FROM s.events_digest
              OR a.engine_version IS DISTINCT FROM $engine
              OR a.profile_id IS DISTINCT FROM s.profile
              OR a.profile_digest IS DISTINCT FROM d.digest THEN 'stale'
            ELSE 'audited' END AS audit_state
FROM s LEFT JOIN e USING (table_id, shoe) LEFT JOIN last USING (table_id, shoe)
LEFT JOIN shoe_audits a USING (table_id, shoe)
LEFT JOIN shoe_failures f USING (table_id, shoe)
LEFT JOIN d ON d.profile = s.profile
"""

# Until the store keeps a `rounds` table (schema 3), the rounds come from the events.
_ROUNDS_FROM_EVENTS = f"""
CREATE OR REPLACE TEMP TABLE {ROUNDS} AS
WITH ev AS (
       SELECT e.table_id, e.shoe, e.round, e.seq, e.type, e.dealer, e.ts_local,
              e.utc_offset_min
       FROM events e JOIN {SHOES} s USING (table_id, shoe)
       WHERE s.replayed),
     r AS (
       SELECT table_id, shoe, round, min(seq) AS first_seq, max(seq) AS last_seq
       FROM ev WHERE round IS NOT NULL
       GROUP BY table_id, shoe, round),
     d AS (SELECT table_id, shoe, seq, dealer FROM ev
           WHERE type IN ('shoe_open', 'dealer_change'))
SELECT r.table_id, r.shoe, r.round, s.gaming_day, s.profile AS profile_id, d.dealer,
       r.first_seq, r.last_seq, s.currency
FROM r ASOF LEFT JOIN d
  ON r.table_id = d.table_id AND r.shoe = d.shoe AND r.first_seq > d.seq
JOIN {SHOES} s ON s.table_id = r.table_id AND s.shoe = r.shoe
"""

# Once it does: the engine's own attribution. (The local time of each round's first event,
# joined from the events here, was half of the report's first 2 s at 1,000,000 rounds; only
# the flagged rounds show it, and report_flagged joins it for those.)
_ROUNDS_STORED = f"""
CREATE OR REPLACE TEMP TABLE {ROUNDS} AS
SELECT r.table_id, r.shoe, r.round, r.gaming_day, r.profile_id, r.dealer,
       r.first_seq, r.last_seq, s.currency
FROM rounds r JOIN {SHOES} s USING (table_id, shoe)
WHERE s.replayed
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
              q.line_no AS ordinal, {QUARANTINE_ID_SQL} AS id
       FROM quarantine q LEFT JOIN shoes s USING (table_id, shoe)),
     f AS (
       SELECT {_FINDING_COLUMNS} FROM q
       UNION ALL SELECT {_FINDING_COLUMNS} FROM log_findings
       UNION ALL SELECT {_FINDING_COLUMNS} FROM findings)
SELECT f.* EXCLUDE (ordinal), {_SEV_RANK} AS sev_rank,
       coalesce(r.dealer, s.dealer) AS dealer, s.currency, rv.state AS review
FROM f
LEFT JOIN {ROUNDS} r USING (table_id, shoe, round)
LEFT JOIN {SHOES} s USING (table_id, shoe)
LEFT JOIN {REVIEWS} rv ON rv.id = f.id
WHERE list_contains($days, f.gaming_day)
"""

_REVIEWS_SQL = f"""
CREATE OR REPLACE TEMP TABLE {REVIEWS} AS
SELECT unnest($ids::VARCHAR[]) AS id, unnest($states::VARCHAR[]) AS state
"""

# Dismissed findings leave the counts (issue 12): moved aside before any aggregate runs.
_DISMISSED_SQL = f"""
CREATE OR REPLACE TEMP TABLE {DISMISSED} AS
SELECT * FROM {FINDINGS} WHERE review = 'dismissed';
DELETE FROM {FINDINGS} WHERE review = 'dismissed';
"""

_FLAGGED_SQL = f"""
CREATE OR REPLACE TEMP TABLE {FLAGGED} AS
WITH f AS (
       SELECT table_id, shoe, round, count(*) AS findings, max(sev_rank) AS worst_rank,
              list(DISTINCT code ORDER BY code) AS codes,
              coalesce(sum(impact) FILTER (WHERE impact > 0), 0) AS overpaid,
              coalesce(-sum(impact) FILTER (WHERE impact < 0), 0) AS underpaid,
              coalesce(sum(impact), 0) AS net,
              list(DISTINCT review ORDER BY review) FILTER (WHERE review IS NOT NULL) AS reviews
       FROM {FINDINGS} WHERE round IS NOT NULL
       GROUP BY table_id, shoe, round)
SELECT f.table_id, f.shoe, f.round, r.gaming_day, r.dealer, r.currency, r.first_seq,
       e.ts_local AS opened_local, e.utc_offset_min, f.findings, f.worst_rank,
       CASE f.worst_rank {" ".join(f"WHEN {s.rank} THEN '{s}'" for s in Severity)} END
         AS worst_severity,
       f.codes, f.overpaid, f.underpaid, f.net, f.overpaid + f.underpaid AS moved,
       r.round IS NOT NULL AS replayed, coalesce(f.reviews, []) AS reviews
FROM f LEFT JOIN {ROUNDS} r USING (table_id, shoe, round)
LEFT JOIN events e ON e.table_id = r.table_id AND e.shoe = r.shoe AND e.seq = r.first_seq
-- a seq logged twice in a shoe: its first event in the engine's order (seq, id), once
QUALIFY row_number() OVER (PARTITION BY f.table_id, f.shoe, f.round ORDER BY e.id) = 1
"""

FLAGGED_ORDER = (
    "moved DESC, worst_rank DESC, findings DESC, table_id NULLS FIRST, shoe NULLS FIRST, round"
)
"""The order of the flagged rounds (issue 10, point 1): money moved wrongly, then severity."""


class Sources:
    """The period's shoes, rounds and findings, as temporary tables on ``con``.

    ``engine_version`` and ``profile_digests`` (profile id -> digest) are what a
    shoe audited now would be audited with: a shoe audited otherwise is
    ``stale``. ``reviews`` maps finding ids to their review state (issue 12: a
    ``dismissed`` finding leaves the counts). Use as a context manager: the
    temporary tables are dropped on exit.
    """

    def __init__(
        self,
        con: Any,
        days: Sequence[dt.date],
        *,
        engine_version: str = "",
        profile_digests: Mapping[str, str] | None = None,
        reviews: Mapping[str, str] | None = None,
    ) -> None:
        self.con = con
        self.days = list(days)
        self._files_made = False
        digests = sorted((profile_digests or {}).items())
        self.all(
            _SHOES_SQL,
            engine=engine_version,
            profiles=[p for p, _ in digests],
            digests=[d for _, d in digests],
        )
        self.stored_rounds = self._has_table("rounds")
        states = sorted((reviews or {}).items())
        self.all(_REVIEWS_SQL, ids=[i for i, _ in states], states=[s for _, s in states])
        for sql in (
            _ROUNDS_STORED if self.stored_rounds else _ROUNDS_FROM_EVENTS,
            _FINDINGS_SQL,
            _DISMISSED_SQL,
            _FLAGGED_SQL,
        ):
            self.all(sql)

    def _has_table(self, name: str) -> bool:
        rows = self.con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = ? AND NOT temporary", [name]
        ).fetchall()
        return bool(rows[0][0])

    def __enter__(self) -> Sources:
        return self

    def __exit__(self, *exc: object) -> None:
        for table in (FILES, FLAGGED, DISMISSED, FINDINGS, REVIEWS, ROUNDS, SHOES):
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
        """The ``file_id`` of every file that holds events of the period's shoes: a query of
        the temporary table ``report_files``, made by the first call (one scan of the
        events, not one for each of the three queries that ask)."""
        if not self._files_made:
            self.all(
                f"""CREATE OR REPLACE TEMP TABLE {FILES} AS
                    SELECT DISTINCT e.file_id FROM events e
                    WHERE (e.table_id, e.shoe) IN (SELECT table_id, shoe FROM {SHOES})"""
            )
            self._files_made = True
        return f"SELECT file_id FROM {FILES}"

    def quarantine(self, limit: int | None) -> tuple[int, list[tuple[str, str]]]:
        """Quarantined lines of the period's files: the count and the first ``limit`` (all
        when None).

        A line is the period's when its ``file:line`` finding is (its shoe's
        gaming day, else its own ``ts``), or when it has no gaming day (not
        readable JSON) and its file holds events of the period's shoes.
        """
        where = f"""(q.path || ':' || q.line_no) IN (SELECT source FROM {FINDINGS})
                    OR (q.ts_local IS NULL AND q.file_id IN ({self._period_files()}))"""
        n = self.one(f"SELECT count(*) FROM quarantine q WHERE {where}")[0]
        cap = "" if limit is None else f"LIMIT {int(limit)}"
        rows = self.all(
            f"""SELECT q.path || ':' || q.line_no, q.reason FROM quarantine q WHERE {where}
                ORDER BY q.path, q.line_no, q.code {cap}"""
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


def event_sources(
    con: Any, table: str, shoe: str, upto_seq: int | None = None
) -> dict[str, tuple[str, int]]:
    """Where each stored event of one shoe was read: event id -> (input file path, line).

    The path is the one ingest recorded (``input_files.path``); ``line_no``
    counts from 1 (issue 10, point 10).
    """
    rows = con.execute(
        """SELECT e.id, i.path, e.line_no FROM events e JOIN input_files i USING (file_id)
           WHERE e.table_id = ? AND e.shoe = ? AND (? IS NULL OR e.seq <= ?)""",
        [table, shoe, upto_seq, upto_seq],
    ).fetchall()
    return {str(i): (str(p), int(n)) for i, p, n in rows}


PAGE_PLAN_SQL = f"""
WITH r AS (
       SELECT r.table_id, r.shoe, r.round, r.last_seq,
              lead(r.first_seq) OVER w AS next_first,
              f.round IS NOT NULL AS flagged, coalesce(f.findings, 0) AS findings,
              f.worst_severity
       FROM {ROUNDS} r LEFT JOIN {FLAGGED} f USING (table_id, shoe, round)
       WINDOW w AS (PARTITION BY r.table_id, r.shoe ORDER BY r.first_seq))
SELECT table_id, shoe, round, flagged, findings, worst_severity,
       coalesce(next_first, last_seq) AS upto_seq
FROM r WHERE flagged ORDER BY table_id, shoe, round
"""
"""The hand pages a report writes: one per flagged round of a replayed shoe (cli.md);
a page names the rounds before and after it, linked where they are flagged too.
``upto_seq`` is the last event a replay needs for that page (the next round's
first event closes a round left without ``round_close``, as in a full replay)."""
