"""The :class:`Store`: every query the rest of shoe-audit runs on the database."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from decimal import Decimal
from os import PathLike, fspath
from pathlib import Path
from typing import Any

from audit.errors import StoreError
from audit.events.models import AnyEvent
from audit.findings import Code, Finding, Severity
from audit.store import intent
from audit.store.failures import plain_failures
from audit.store.ledger import retire_ledger_file
from audit.store.rows import EVENT_COLUMNS, build_event
from audit.store.schema import APP_ID, DDL, FINDING_ID_SQL, MIGRATIONS, SCHEMA_VERSION
from audit.store.types import ShoeAuditResult, ShoeInfo, ShoeKey

DEFAULT_DAY_START = "06:00"

EVENTS_DIGEST_SQL = "count(*) || ':' || sum(hash(id, seq)::HUGEINT)"
"""A shoe's ``events_digest`` over its events' ``id`` and ``seq`` (an aggregate): a new,
removed or re-sequenced event changes it. Workers reading a Parquet export recompute it."""

_FINDING_SELECT = """
    code, table_id, shoe, round, box, hand, spot, expected, actual, impact, rule,
    events, source, message, id"""

QUARANTINE_ID_SQL = FINDING_ID_SQL.format(
    code="q.code",
    table_id="q.table_id",
    shoe="q.shoe",
    round="NULL",
    box="NULL",
    hand="NULL",
    spot="NULL",
    source="q.path || ':' || q.line_no",
    occurrence="q.line_no",
)
"""The stable id of a quarantined line's finding, over ``quarantine q``."""


def day_start_minutes(day_start: str) -> int:
    """``"06:00"`` -> 360; raises ValueError for anything but ``HH:MM``."""
    try:
        hh, mm = day_start.split(":")
        h, m = int(hh), int(mm)
    except ValueError:
        raise ValueError(f"day start must be HH:MM, got {day_start!r}") from None
    if not (0 <= h <= 23 and 0 <= m <= 59 and len(hh) == 2 and len(mm) == 2):
        raise ValueError(f"day start must be HH:MM between 00:00 and 23:59, got {day_start!r}")
    return h * 60 + m


FINDING_DEALER_SQL = """coalesce(
    (SELECT r.dealer FROM rounds r
     WHERE r.table_id = allf.table_id AND r.shoe = allf.shoe AND r.round = allf.round),
    (SELECT s.dealer FROM shoes s WHERE s.table_id = allf.table_id AND s.shoe = allf.shoe))"""
"""A finding's dealer, as the report credits it: the dealer in charge when its round
opened (``run`` records it per round), else the one who opened its shoe (a shoe-level
finding, or a round not replayed yet)."""


@dataclass(frozen=True, slots=True)
class FindingFacts:
    """What a finding's listing adds to it (cli.md v1.2: ``gaming_day``, ``dealer``,
    ``opened``): its gaming day, its dealer (:data:`FINDING_DEALER_SQL`) and its round's
    ``round_open`` time as the log wrote it, offset included (None without a round)."""

    gaming_day: dt.date | None
    dealer: str | None
    opened: str | None


def _finding(
    row: tuple[Any, ...], *, gaming_day: dt.date | None = None, shift: str | None = None
) -> Finding:
    (
        code,
        table,
        shoe,
        rnd,
        box,
        hand,
        spot,
        expected,
        actual,
        impact,
        rule,
        events,
        src,
        msg,
        fid,
    ) = row
    return Finding(
        code=Code(code),
        message=msg,
        table=table,
        shoe=shoe,
        round=rnd,
        box=box,
        hand=hand,
        spot=spot,
        expected=expected,
        actual=actual,
        impact=impact if impact is None else _shortest(impact),
        rule=rule,
        events=tuple(events or ()),
        source=src,
        id=fid,
        gaming_day=gaming_day,
        shift=shift,
    )


def _shortest(d: Decimal) -> Decimal:
    return Decimal(int(d)) if d == d.to_integral_value() else d.normalize()


class Store:
    """An open audit database (one DuckDB file). Use :func:`open_store`."""

    def __init__(
        self,
        con: Any,
        path: str,
        *,
        memory: str | None = None,
        memory_chosen: bool = False,
        announced: bool = False,
    ) -> None:
        self.con = con
        self.path = path
        self._announced = announced
        """It holds the intent to write (:mod:`audit.store.intent`), given back at close."""
        self.memory = memory
        """DuckDB's memory limit as it was set when the store was opened (None: not set)."""
        self.memory_chosen = memory_chosen
        """Whether it was chosen (``SHOE_AUDIT_MEMORY``, or by the caller)."""
        self._after_commit: list[Callable[[], None]] = []

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run ``action`` once the current transaction has committed (not if it rolls back).

        The ledger uses it to mark its records committed (:mod:`audit.store.ledger`).
        """
        self._after_commit.append(action)

    # ------------------------------------------------------------------ plumbing

    @contextmanager
    def memory_limit(self, limit: str) -> Iterator[None]:
        """DuckDB's memory limit is ``limit`` inside the block, unless one was chosen."""
        if self.memory_chosen or self.memory is None:
            yield
            return
        self.con.execute("SET memory_limit = ?", [limit])
        try:
            yield
        finally:
            self.con.execute("SET memory_limit = ?", [self.memory])

    def memory_bounds(self, work: str, cache: str) -> tuple[str, str] | None:
        """(``work``, ``cache``): the limits a command raises to for its heavy queries and
        lowers to between them, to keep DuckDB's cache small; None when the limit was
        chosen (``SHOE_AUDIT_MEMORY``, which then holds throughout) or none is set."""
        if self.memory_chosen or self.memory is None:
            return None
        return work, cache

    @contextmanager
    def memory_given_back(self) -> Iterator[None]:
        """DuckDB's allocator gives the memory its queries freed back to the system inside
        the block (its background threads), then as it did before.

        Without them a freed block stays with the allocator (resident) until a later
        allocation happens to purge it: after the report's statistics some 200 MiB of
        the 100,000-round night stayed so, on top of which the evidence check and the
        hand pages' feed read (issue 33, :data:`REPORT_MEMORY_LIMIT`)."""
        with self._setting("allocator_background_threads", True):
            yield

    @contextmanager
    def checkpoints_past(self, threshold: str) -> Iterator[None]:
        """DuckDB checkpoints once its write-ahead log passes ``threshold`` inside the block
        (``checkpoint_threshold``), then as it did before.

        Every commit is durable either way (the log is synced at each one); a higher
        threshold only folds the log into the database file less often. An interrupted
        block leaves its committed writes in the log, which DuckDB replays on open."""
        with self._setting("checkpoint_threshold", threshold):
            yield

    @contextmanager
    def _setting(self, name: str, value: Any) -> Iterator[None]:
        """DuckDB's setting ``name`` is ``value`` inside the block, then as it was."""
        (was,) = self.con.execute(f"SELECT current_setting('{name}')").fetchall()[0]
        self.con.execute(f"SET {name} = ?", [value])
        try:
            yield
        finally:
            self.con.execute(f"SET {name} = ?", [was])

    @contextmanager
    def held_to(self, limit: str) -> Iterator[None]:
        """:meth:`memory_limit`, and the block's writes checkpointed before it is lifted.

        Left to close, the checkpoint of a large write runs at the limit the store was
        opened with (a million-round ``run``'s took DuckDB to 1.15 GB). If DuckDB cannot
        checkpoint here (out of memory under the limit, say), close does it.
        """
        import duckdb

        with self.memory_limit(limit):
            yield
            with suppress(duckdb.Error):
                self.con.execute("CHECKPOINT")

    def close(self) -> None:
        try:
            self.con.close()
        finally:
            if self._announced:
                self._announced = False
                intent.release(self.path)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """``BEGIN`` ... ``COMMIT``, or ``ROLLBACK`` on any exception.

        A full disk comes out as one :class:`StoreError` naming it, Ctrl-C as
        ``KeyboardInterrupt`` (see :mod:`audit.store.failures`).
        """
        with plain_failures(self.path, f"the database {self.path!r}"):
            self.con.execute("BEGIN TRANSACTION")
            self._after_commit = []
            try:
                yield self.con
            except BaseException:
                self._after_commit = []
                # A failed ROLLBACK (the failure already aborted the transaction)
                # must not hide the failure itself.
                with suppress(Exception):
                    self.con.execute("ROLLBACK")
                raise
            actions, self._after_commit = self._after_commit, []
            self.con.execute("COMMIT")
        for action in actions:
            # The data is committed: a follow-up that fails (a full disk) must not
            # report the command as failed; the ledger treats a missing marker as
            # an unfinished write and the next check says so.
            with suppress(OSError):
                action()

    def meta(self, key: str) -> str | None:
        rows = self.con.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchall()
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self.con.execute(
            "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [key, value],
        )

    # ------------------------------------------------------------------ shoes

    def refresh_shoes(self, keys_sql: str | None = None) -> None:
        """Recompute the ``shoes`` rows of the shoes ``keys_sql`` selects (all when None).

        ``keys_sql`` is a query returning ``table_id, shoe``. Only the files that
        hold those shoes (``file_shoes``) are read: their ids let DuckDB skip the
        rest of ``events`` by its zone maps, so a night's ingest does not scan
        the whole history once per file group. A shoe's gaming
        day is the day of its ``shoe_open`` in table-local time, less the day
        start (cli.md "Gaming day"); a shoe whose ``shoe_open`` is missing
        takes the time of its first event.
        """
        start = day_start_minutes(self.meta("day_start") or DEFAULT_DAY_START)
        where = (
            f"""WHERE (table_id, shoe) IN ({keys_sql}) AND file_id IN (
                  SELECT file_id FROM file_shoes WHERE (table_id, shoe) IN ({keys_sql}))"""
            if keys_sql
            else "WHERE shoe IS NOT NULL"  # table-level events belong to no shoe
        )
        if keys_sql:
            self.con.execute(f"DELETE FROM shoes WHERE (table_id, shoe) IN ({keys_sql})")
        else:
            self.con.execute("DELETE FROM shoes")
        self.con.execute(
            f"""
            INSERT INTO shoes
            SELECT table_id, shoe, profile, decks, dealer, opened_at, opened_local,
                   CAST(opened_local - to_minutes({start}) AS DATE),
                   first_seq, last_seq, n, digest
            FROM (
              SELECT table_id, shoe,
                arg_min(profile, seq) FILTER (WHERE type = 'shoe_open') AS profile,
                arg_min(decks, seq) FILTER (WHERE type = 'shoe_open') AS decks,
                arg_min(dealer, seq) FILTER (WHERE type = 'shoe_open') AS dealer,
                COALESCE(arg_min(ts, seq) FILTER (WHERE type = 'shoe_open'), arg_min(ts, seq))
                  AS opened_at,
                COALESCE(arg_min(ts_local, seq) FILTER (WHERE type = 'shoe_open'),
                         arg_min(ts_local, seq)) AS opened_local,
                min(seq) AS first_seq, max(seq) AS last_seq, count(*) AS n,
                {EVENTS_DIGEST_SQL} AS digest
              FROM events {where}
              GROUP BY table_id, shoe
            )
            """
        )

    def shoe_info(self, keys: Iterable[ShoeKey] | None = None) -> dict[ShoeKey, ShoeInfo]:
        """The ``shoes`` rows for ``keys`` (all shoes when ``None``)."""
        sql = """SELECT table_id, shoe, profile, decks, dealer, opened_at, gaming_day,
                        first_seq, last_seq, events, events_digest FROM shoes"""
        params: list[Any] = []
        if keys is not None:
            wanted = sorted(set(keys))
            if not wanted:
                return {}
            sql += " WHERE (table_id, shoe) IN (SELECT unnest(?), unnest(?))"
            params = [[k.table for k in wanted], [k.shoe for k in wanted]]
        out = {}
        for row in self.con.execute(sql + " ORDER BY table_id, shoe", params).fetchall():
            key = ShoeKey(row[0], row[1])
            out[key] = ShoeInfo(key, *row[2:])
        return out

    def shoes_to_audit(
        self,
        engine_version: str,
        profile_digests: dict[str, str],
        all: bool = False,
        table: str | None = None,
        gaming_day: dt.date | None = None,
    ) -> list[ShoeKey]:
        """Shoes not yet audited, whose last replay failed, or whose events, engine or
        profile changed.

        A shoe whose profile is not in ``profile_digests`` (unknown to the
        auditor, or no ``shoe_open`` stored) is listed until it is audited with
        ``profile_digest`` None, so the batch can report it.
        """
        digests = sorted(profile_digests.items())
        self.con.execute("CREATE OR REPLACE TEMP TABLE _digests (profile VARCHAR, digest VARCHAR)")
        if digests:
            self.con.executemany("INSERT INTO _digests VALUES (?, ?)", digests)
        conds = ["true"]
        params: list[Any] = []
        _where_equal(conds, params, {"s.table_id": table, "s.gaming_day": gaming_day})
        if not all:
            conds.append(
                """(a.table_id IS NULL OR a.engine_version IS DISTINCT FROM ?
                    OR a.events_digest IS DISTINCT FROM s.events_digest
                    OR a.profile_id IS DISTINCT FROM s.profile
                    OR a.profile_digest IS DISTINCT FROM d.digest
                    OR f.table_id IS NOT NULL)"""
            )
            params.append(engine_version)
        rows = self.con.execute(
            f"""SELECT s.table_id, s.shoe FROM shoes s
                LEFT JOIN shoe_audits a USING (table_id, shoe)
                LEFT JOIN _digests d ON d.profile = s.profile
                LEFT JOIN shoe_failures f USING (table_id, shoe)
                WHERE {" AND ".join(conds)}
                ORDER BY s.table_id, s.shoe""",
            params,
        ).fetchall()
        # One string per table, shared by its shoes' keys: run holds every key of the
        # selection (~14 MiB of copies of 50 table ids at 1,000,000 rounds, issue 33).
        tables: dict[str, str] = {}
        return [ShoeKey(tables.setdefault(t, t), s) for t, s in rows]

    # ------------------------------------------------------------------ events

    def input_paths(self) -> dict[int, str]:
        """The path each input file was ingested from, by ``file_id`` (an event's source)."""
        rows = self.con.execute("SELECT file_id, path FROM input_files").fetchall()
        return {int(i): str(p) for i, p in rows}

    def load_shoe_rows(self, keys: Iterable[ShoeKey]) -> dict[ShoeKey, list[dict[str, Any]]]:
        """Every stored event of each shoe as a plain row, in ``seq`` order.

        Rows are cheap to send to worker processes; :func:`audit.store.rows.build_event`
        turns one into its TEL/1 model.
        """
        wanted = sorted(set(keys))
        out: dict[ShoeKey, list[dict[str, Any]]] = {k: [] for k in wanted}
        if not wanted:
            return out
        cols = [c for c in EVENT_COLUMNS if c not in ("ts", "raw")]
        select = ", ".join(f'e."{c}"' for c in cols)
        if len(wanted) == 1:
            # one shoe (a hand page): plain equalities, which the scan filters as it reads
            # (a join against the key list reads every event of the database first)
            where = "WHERE e.table_id = ? AND e.shoe = ?"
            params: list[Any] = [wanted[0].table, wanted[0].shoe]
        else:
            where = """SEMI JOIN (SELECT unnest(?) AS table_id, unnest(?) AS shoe) k
                  ON e.table_id = k.table_id AND e.shoe = k.shoe"""
            params = [[k.table for k in wanted], [k.shoe for k in wanted]]
        table = self.con.sql(
            f"""SELECT {select}, CASE WHEN e.has_extra THEN e.raw END AS raw
                FROM events e {where}
                ORDER BY e.table_id, e.shoe, e.seq, e.id""",
            params=params,
        ).to_arrow_table()
        current: ShoeKey | None = None
        bucket: list[dict[str, Any]] = []
        for row in table.to_pylist():
            key = ShoeKey(row["table_id"], row["shoe"])
            if key != current:
                bucket = out[key]
                current = key
            bucket.append(row)
        return out

    def load_shoe_events(self, keys: Iterable[ShoeKey]) -> dict[ShoeKey, list[AnyEvent]]:
        """Every stored event of each shoe, in ``seq`` order, as TEL/1 models.

        Unknown types come back as :class:`UnknownEvent` (the engine skips
        them but reports each as ``LOG_UNKNOWN_TYPE``, with its round).
        """
        return {k: [build_event(r) for r in rows] for k, rows in self.load_shoe_rows(keys).items()}

    # ------------------------------------------------------------------ findings

    def replace_findings(self, results: Sequence[ShoeAuditResult]) -> None:
        """Record shoe audits without outcome rows (what an older runner wrote), each shoe's
        earlier results replaced in the same transaction, as ``run`` does
        (:func:`audit.store.batches.write_results`), ids assigned as ``run`` does."""
        from dataclasses import replace

        from audit.findings import assign_ids
        from audit.store.batches import AuditRecord, outcome_tables, write_results

        if not results:
            return
        info = self.shoe_info([r.key for r in results])
        audits = [
            AuditRecord(
                key=r.key,
                engine_version=r.engine_version,
                profile_id=r.profile_id,
                profile_digest=r.profile_digest,
                events_digest=r.events_digest
                if r.events_digest is not None
                else (info[r.key].events_digest if r.key in info else ""),
                rounds=r.rounds,
                wagers=r.wagers,
                handle_cents=int(r.handle * 100),
                findings=[
                    replace(f, id=i)
                    for f, i in zip(r.findings, assign_ids(r.findings), strict=True)
                ],
            )
            for r in results
        ]
        rounds, wagers = outcome_tables([], [])
        write_results(self, audits, rounds, wagers)

    def all_findings(
        self,
        *,
        codes: Iterable[Code | str] | None = None,
        severities: Iterable[Severity | str] | None = None,
        min_severity: Severity | str | None = None,
        table: str | None = None,
        shoe: str | None = None,
        gaming_day: dt.date | None = None,
        gaming_days: tuple[dt.date, dt.date] | None = None,
        ids: Iterable[str] | None = None,
        id_prefix: str | None = None,
        dealer: str | None = None,
        player: str | None = None,
    ) -> list[Finding]:
        """Ingest findings (``LOG_*``) and replay findings, filtered, in a fixed order.

        Quarantined lines become ``LOG_MALFORMED``/``LOG_ID_CONFLICT`` with
        ``source`` ``"file:line"``; their gaming day is their shoe's, else
        the one their own ``ts`` falls in. ``gaming_days`` is an inclusive
        (first, last) range. Order: gaming day, table, shoe, round, ingest
        findings before replay findings, then as the engine reported them.
        ``ids`` keeps only the findings with those stable ids (the review trail's),
        ``id_prefix`` those whose id starts so (a reviewer's shortened id).
        ``dealer`` keeps the findings whose dealer (:data:`FINDING_DEALER_SQL`) is that
        one, ``player`` those of a box that player bet on in that round (a bet names its
        player).
        """
        return [
            f
            for f, _ in self.findings_with_facts(
                codes=codes,
                severities=severities,
                min_severity=min_severity,
                table=table,
                shoe=shoe,
                gaming_day=gaming_day,
                gaming_days=gaming_days,
                ids=ids,
                id_prefix=id_prefix,
                dealer=dealer,
                player=player,
            )
        ]

    def findings_with_facts(
        self,
        *,
        codes: Iterable[Code | str] | None = None,
        severities: Iterable[Severity | str] | None = None,
        min_severity: Severity | str | None = None,
        table: str | None = None,
        shoe: str | None = None,
        gaming_day: dt.date | None = None,
        gaming_days: tuple[dt.date, dt.date] | None = None,
        ids: Iterable[str] | None = None,
        id_prefix: str | None = None,
        dealer: str | None = None,
        player: str | None = None,
    ) -> list[tuple[Finding, FindingFacts]]:
        """:meth:`all_findings` (same filters), each with its gaming day, its dealer and its
        round's ``opened`` time as the log wrote it (cli.md v1.2's added keys)."""
        start = day_start_minutes(self.meta("day_start") or DEFAULT_DAY_START)
        conds = ["true"]
        params: list[Any] = []
        if codes is not None:
            wanted = sorted({str(Code(c)) for c in codes})
            conds.append("code IN (SELECT unnest(?))")
            params.append(wanted)
        sev: set[str] | None = None
        if severities is not None:
            sev = {str(Severity(s)) for s in severities}
        if min_severity is not None:
            floor = Severity(min_severity).rank
            at_least = {str(s) for s in Severity if s.rank >= floor}
            sev = at_least if sev is None else sev & at_least
        if sev is not None:
            conds.append("severity IN (SELECT unnest(?))")
            params.append(sorted(sev))
        _where_equal(conds, params, {"table_id": table, "shoe": shoe, "gaming_day": gaming_day})
        if gaming_days is not None:
            conds.append("gaming_day BETWEEN ? AND ?")
            params.extend(gaming_days)
        if ids is not None:
            conds.append("id IN (SELECT unnest(?::VARCHAR[]))")
            params.append(sorted(set(ids)))
        if id_prefix is not None:
            conds.append("starts_with(id, ?)")
            params.append(id_prefix)
        if dealer is not None:
            conds.append(f"{FINDING_DEALER_SQL} = ?")
            params.append(dealer)
        if player is not None:
            conds.append(
                """EXISTS (SELECT 1 FROM events b WHERE b.type = 'bet' AND b.player = ?
                   AND b.table_id = allf.table_id AND b.shoe = allf.shoe
                   AND b.round = allf.round AND b.box = allf.box)"""
            )
            params.append(player)
        sql = f"""
        WITH q AS (
          SELECT q.code, CASE q.code WHEN 'LOG_ID_CONFLICT' THEN 'critical' ELSE 'major' END
                   AS severity,
                 q.table_id, q.shoe, NULL::BIGINT AS round, NULL::BIGINT AS box,
                 NULL::BIGINT AS hand, NULL::BIGINT AS spot, NULL AS expected, NULL AS actual,
                 NULL::DECIMAL(38,4) AS impact, NULL AS rule,
                 CASE WHEN q.id IS NULL THEN []::VARCHAR[] ELSE [q.id] END AS events,
                 q.path || ':' || q.line_no AS source,
                 q.path || ':' || q.line_no || ': ' || q.reason AS message,
                 {QUARANTINE_ID_SQL} AS id,
                 COALESCE(s.gaming_day, CAST(q.ts_local - to_minutes({start}) AS DATE))
                   AS gaming_day,
                 0 AS origin_rank, q.line_no AS ordinal, NULL::VARCHAR AS shift
          FROM quarantine q LEFT JOIN shoes s USING (table_id, shoe)
        ), allf AS (
          SELECT * FROM q
          UNION ALL
          SELECT code, severity, {_FINDING_SELECT.replace("code,", "", 1)}, gaming_day, 0, ordinal,
                 NULL
          FROM log_findings
          UNION ALL
          SELECT code, severity, {_FINDING_SELECT.replace("code,", "", 1)}, gaming_day, 1, ordinal,
                 NULL
          FROM findings
          UNION ALL  -- LOG_TAMPERED, from the last integrity check (audit.store.integrity)
          SELECT code, severity, {_FINDING_SELECT.replace("code,", "", 1)}, gaming_day, 0, ordinal,
                 NULL
          FROM integrity_findings
          UNION ALL  -- ACCT_, from run's last reconciliation (audit.store.books_detail)
          SELECT code, severity, table_id, NULL, NULL, NULL, NULL, NULL,
                 json_extract_string(finding, '$.expected'),
                 json_extract_string(finding, '$.actual'), impact,
                 json_extract_string(finding, '$.rule'),
                 CAST(json_extract(finding, '$.events') AS VARCHAR[]),
                 json_extract_string(finding, '$.source'),
                 json_extract_string(finding, '$.message'), id, gaming_day, 2, 0, shift
          FROM books_findings
        )
        SELECT {_FINDING_SELECT}, shift, gaming_day, {FINDING_DEALER_SQL},
               (SELECT arg_min(json_extract_string(o.raw, '$.ts'), o.seq) FROM events o
                WHERE o.type = 'round_open' AND o.table_id = allf.table_id
                  AND o.shoe = allf.shoe AND o.round = allf.round)
        FROM allf
        WHERE {" AND ".join(conds)}
        ORDER BY gaming_day NULLS FIRST, table_id NULLS FIRST, shoe NULLS FIRST,
                 round NULLS FIRST, origin_rank, ordinal, code, source, message
        """
        return [
            (
                # an ACCT_ finding's period is part of it (its id); others keep v1's shape
                _finding(r[:-4], gaming_day=r[-3], shift=r[-4])
                if Code(r[0]).is_books
                else _finding(r[:-4]),
                FindingFacts(gaming_day=r[-3], dealer=r[-2], opened=r[-1]),
            )
            for r in self.con.execute(sql, params).fetchall()
        ]


RUN_MEMORY_LIMIT = "256MB"
"""DuckDB's memory during ``run`` when none was chosen: its work is sorted scans of parts of
about a million events (:func:`audit.store.batches.scan_parts`), one small write a batch,
and a checkpoint at the end. On 1,000,000 rounds: peak RSS 757 MiB and 195.3 s, against
1,279 MiB (the checkpoint at close, outside the limit) and 180.7-185.4 s at 512MB (one
run each, ``audit_bench``'s run stage). Ingest has its own, :data:`INGEST_MEMORY_LIMIT`."""

RUN_CHECKPOINT_THRESHOLD = "128MB"
"""How much write-ahead log ``run`` lets DuckDB gather before it checkpoints (its default is
16MB; :meth:`Store.checkpoints_past`). Each batch's results are a commit of a few MB, so at
16MB every sixth commit also checkpointed, rewriting the tables' last row groups: on the
100,000-round month the commits took 3.0 s of the parent's 13.5 (29 of them, one of 751 ms),
at 128MB 1.7 s and a last checkpoint of 0.14 s; on the 1,000,000-round month 35.5 s against
20.3 s (issue 33, session 9). ``run``'s last checkpoint, inside its memory limit, folds in
what is left (:meth:`Store.held_to`)."""

INGEST_MEMORY_LIMIT = "256MB"
"""DuckDB's memory during ``ingest`` when none was chosen (issue 33). Each batch's work is
bounded (:data:`audit.ingest.reader.BATCH_BYTES` of lines), but DuckDB keeps every block it
has read cached up to its limit, and each batch's probe for ids stored before reads the
``id`` of every stored event: at 1GB the cache grew with the database, and ingest's peak
RSS with it (775 MiB at 100,000 rounds, 1,350 MiB at 1,000,000). Held to this, the cache
stays the size of a batch's work whatever the database holds. (An earlier measure, 77
against 63 s at 500MB, was not borne out: at 100,000 rounds, the same load, 54.4 CPU-s
at 256MB against 52.7 at 1GB, 644 against 706 MiB.)"""

INGEST_CACHE_LIMIT = "128MB"
"""DuckDB's memory while ``ingest`` stores a pass, when none was chosen (issue 33, session 7).

The probe for ids stored before reads the ``id`` of every stored event each pass, and the
derived tables' refresh reads much of ``events`` each group; DuckDB keeps what it read
cached up to its limit, so at :data:`INGEST_MEMORY_LIMIT` throughout the cache grew with
the database (the 20-table night's peak 917-939 MiB at 100,000 rounds, 1,058 MiB and more
at 1,000,000). Splitting and validating a pass needs ~200MB (at 160MB the month took
28.3 s against 23.0), storing one does not: so the limit is raised for the first and
lowered to this for the second, and dipped to it after each refresh, which evicts the
cache (:meth:`Store.memory_bounds`, :mod:`audit.ingest.ahead`). Peaks now 854-867 MiB and
995 MiB; the price, reading evicted blocks again, ~5% of ingest's time (22.9 -> 24.2 s,
medians of three, the 100,000-round night)."""


def set_memory_limit(con: Any, limit: str) -> bool:
    """``SET memory_limit`` on ``con``; whether it took.

    Lowering the limit evicts DuckDB's cached blocks down to it, and fails when more than
    ``limit`` is pinned: ``con`` must then be a cursor of its own in no transaction (a
    failed statement would abort a transaction), and the limit stays where it was.
    """
    import duckdb

    try:
        con.execute("SET memory_limit = ?", [limit])
    except duckdb.Error:
        return False
    return True


REPORT_MEMORY_LIMIT = "512MB"
"""DuckDB's memory during ``report`` when none was chosen (issue 33). The report reads every
event of its days (the evidence check's typed fingerprints, the hand pages' feed) and
DuckDB keeps each block it read cached up to its limit: at 1GB a 1,000,000-round night's
cache alone could take some 950 MiB of the 1.5 GiB the report may use. At 100,000 rounds
the report's DuckDB held 190-220 MiB at its peak; 256MB (``run``'s) fit that night too,
but the report's scans were never run at that size on a larger one (``run``'s ran out of
memory at 300,000 rounds), so the report keeps twice that."""

DEFAULT_MEMORY_LIMIT = "1GB"
"""DuckDB's own default is 80% of the RAM: an ingest of a large file would
keep that much of it cached. A fixed limit keeps memory flat whatever the size
of the input (DuckDB spills to disk beyond it)."""


def _where_equal(conds: list[str], params: list[Any], wanted: dict[str, Any]) -> None:
    """``column = ?`` for each filter the caller gave (None: no filter)."""
    for column, value in wanted.items():
        if value is not None:
            conds.append(f"{column} = ?")
            params.append(value)


def _connect(duckdb: Any, path: str, read_only: bool, deadline: float) -> Any:
    """DuckDB's connection; a writer retries a lock conflict until ``deadline``: readers
    (``serve``'s requests) that opened the file before the writer announced itself
    (:mod:`audit.store.intent`) finish within it."""
    import time

    while True:
        try:
            return duckdb.connect(path, read_only=read_only)
        except duckdb.Error as exc:
            if "lock" not in str(exc).lower() or read_only or time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


def open_store(
    path: str | PathLike[str], *, read_only: bool = False, memory_limit: str | None = None
) -> Store:
    """Open (creating or migrating) the audit database at ``path``.

    ``memory_limit`` bounds DuckDB's memory (default ``SHOE_AUDIT_MEMORY`` or
    1GB).

    Raises :class:`audit.errors.StoreError` when the file is not a DuckDB
    database, is not a shoe-audit database, is newer than this program, or is
    locked by another process.
    """
    import duckdb

    p = fspath(path)
    if p != ":memory:" and Path(p).is_dir():
        raise StoreError(f"cannot open database {p!r}: it is a directory")
    announced = not read_only and p != ":memory:"
    deadline = time.monotonic() + (intent.lock_wait() if announced else 0.0)
    if announced:
        intent.acquire(p, deadline)  # serve stops opening the file (audit.store.intent)
    try:
        con = _open_connection(duckdb, p, read_only, deadline)
    except BaseException:
        if announced:
            intent.release(p)
        raise
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute("SET enable_progress_bar = false")
        chosen = memory_limit or os.environ.get("SHOE_AUDIT_MEMORY")
        memory = chosen or DEFAULT_MEMORY_LIMIT
        con.execute("SET memory_limit = ?", [memory])
        _migrate(con, p, read_only)
    except BaseException:
        con.close()
        if announced:
            intent.release(p)
        raise
    return Store(con, p, memory=memory, memory_chosen=bool(chosen), announced=announced)


def _open_connection(duckdb: Any, p: str, read_only: bool, deadline: float) -> Any:
    """:func:`_connect`, its failure as one :class:`StoreError` naming who holds the file."""
    try:
        return _connect(duckdb, p, read_only, deadline)
    except duckdb.Error as exc:
        text = str(exc)
        if "lock" in text.lower():
            raise intent.DatabaseLocked(
                intent.busy_message(p, intent.holder(p), waited=not read_only)
            ) from None
        if "not a valid duckdb" in text.lower() or "database file" in text.lower():
            why = "it is not a DuckDB database file"
        else:
            why = text
        raise StoreError(f"cannot open database {p!r}: {why}") from None


def _migrate(con: Any, path: str, read_only: bool) -> None:
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    if not tables:
        if read_only:
            raise StoreError(f"database {path!r} is empty (nothing ingested yet)")
        retire_ledger_file(path)  # the ledger of a database that is gone is kept, aside
        con.execute("BEGIN TRANSACTION")
        con.execute(DDL)
        con.execute(
            "INSERT INTO meta VALUES ('app', ?), ('schema_version', ?)",
            [APP_ID, str(SCHEMA_VERSION)],
        )
        con.execute("COMMIT")
        return
    if "meta" not in tables:
        raise StoreError(f"database {path!r} is not a shoe-audit database (no meta table)")
    meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("app") != APP_ID:
        raise StoreError(f"database {path!r} is not a shoe-audit database")
    version = int(meta.get("schema_version", "0"))
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"database {path!r} has schema version {version}, newer than this shoe-audit "
            f"({SCHEMA_VERSION}): upgrade shoe-audit"
        )
    if version < SCHEMA_VERSION:
        if read_only:
            raise StoreError(f"database {path!r} needs a migration; open it read-write once")
        con.execute("BEGIN TRANSACTION")
        for v in range(version + 1, SCHEMA_VERSION + 1):
            con.execute(MIGRATIONS[v])
        con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION)])
        con.execute("COMMIT")
