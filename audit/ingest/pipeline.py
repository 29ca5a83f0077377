"""Ingest and validate: the two entry points of :mod:`audit.ingest`.

Per batch of lines (see :mod:`audit.ingest.reader`):

1. DuckDB splits the blocks into numbered lines and runs the bulk validator
   (:mod:`audit.ingest.bulk`) over them;
2. the lines it did not accept go through :func:`audit.events.parse.parse_line`,
   which either accepts them after all (a few odd but valid forms) or gives
   the precise reason they are malformed;
3. accepted events are merged into ``events`` by ``id``: new ids are
   inserted, an equal copy is a duplicate, a different one is quarantined as
   ``LOG_ID_CONFLICT`` (the first copy stays).

One file is one transaction: an interrupted ingest leaves nothing of that file
behind and running it again completes it. After each file the ``shoes`` rows
of the shoes it touched and the ``LOG_SEQ_GAP`` findings of its tables are
recomputed, in the same transaction.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from os import PathLike
from pathlib import Path
from typing import Any

from audit.errors import MalformedEventError, NoLogsError
from audit.events.parse import MAX_LINE_BYTES, loads, parse_line
from audit.ingest import bulk
from audit.ingest.reader import RAW_KEEP, Batch, FileError, LogReader, Reject, find_logs
from audit.ingest.summary import FileSummary, IngestSummary, ValidationReport
from audit.store import Store
from audit.store.fields import COLUMN_TYPES
from audit.store.rows import EVENT_COLUMNS, event_row
from audit.store.store import day_start_minutes

StrPath = str | PathLike[str]

BatchHook = Callable[[Path, Batch], None]
"""Called before each batch is stored (tests use it to interrupt an ingest)."""

_EVENT_SQL_TYPES: dict[str, str] = {
    "id": "VARCHAR",
    "table_id": "VARCHAR",
    "shoe": "VARCHAR",
    "round": "BIGINT",
    "seq": "BIGINT",
    "ts": "TIMESTAMPTZ",
    "ts_local": "TIMESTAMP",
    "utc_offset_min": "INTEGER",
    "type": "VARCHAR",
    "known_type": "BOOLEAN",
    **COLUMN_TYPES,
    "has_extra": "BOOLEAN",
    "raw": "VARCHAR",
}


def _q(name: str) -> str:
    return f'"{name}"'


_EV_COLS = ", ".join(_q(c) for c in EVENT_COLUMNS)


@dataclass(slots=True)
class _Quarantined:
    line_no: int
    code: str
    reason: str
    raw: str
    id: str | None = None
    table_id: str | None = None
    shoe: str | None = None
    ts_local: dt.datetime | None = None


@dataclass(slots=True)
class _FileResult:
    summary: FileSummary
    quarantined: list[_Quarantined] = field(default_factory=list)
    unknown: list[tuple[int, str]] = field(default_factory=list)


def _readable(raw: str) -> dict[str, Any]:
    """id/table/shoe/local time of a rejected line, where it has them."""
    try:
        obj = loads(raw)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(obj, dict):
        return {}
    out: dict[str, Any] = {}
    for key, col in (("id", "id"), ("table", "table_id"), ("shoe", "shoe")):
        value = obj.get(key)
        if isinstance(value, str) and value and value.encode("utf-8", "replace").decode() == value:
            out[col] = value
    ts = obj.get("ts")
    if isinstance(ts, str):
        try:
            local = dt.datetime.fromisoformat(ts.upper().replace("Z", "+00:00"))
            out["ts_local"] = local.replace(tzinfo=None)
        except ValueError:
            pass
    return out


class _Session:
    """One DuckDB connection doing the per-batch work (the store's, or a scratch one).

    The bulk query is planned once (``PREPARE``) and run per batch: planning
    the 23-branch query costs about as much as running it on 100k lines.
    """

    def __init__(self, con: Any) -> None:
        import pyarrow as pa

        self.con = con
        self.pa = pa
        cols = ", ".join(f"{_q(c)} {t}" for c, t in _EVENT_SQL_TYPES.items())
        con.execute(f"CREATE OR REPLACE TEMP TABLE _batch (line_no BIGINT, valid BOOLEAN, {cols})")
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _all_lines "
            "(line_no BIGINT, line VARCHAR, skip VARCHAR, ty VARCHAR)"
        )
        out_cols = ", ".join(
            _q(c) for c in bulk.OUTPUT_COLUMNS if c in _EVENT_SQL_TYPES or c in ("line_no", "valid")
        )
        source = "(SELECT line_no, line, ty FROM _all_lines WHERE skip IS NULL)"
        con.execute(
            f"PREPARE _bulk AS INSERT INTO _batch BY NAME SELECT {out_cols} "
            f"FROM ({bulk.select_sql(source)})"
        )

    def _blocks_table(self, batch: Batch) -> Any:
        pa = self.pa
        texts = []
        for block in batch.blocks:
            buf = pa.py_buffer(block)
            offsets = pa.array([0, len(block)], pa.int64()).buffers()[1]
            texts.append(pa.LargeStringArray.from_buffers(1, offsets, buf))
        text = pa.concat_arrays(texts) if texts else pa.array([], pa.large_string())
        return pa.table({"first_line": pa.array(batch.block_first_lines, pa.int64()), "text": text})

    def validate(self, batch: Batch) -> list[Reject]:
        """Fill ``_batch`` with the batch's lines; return the too-long ones."""
        con = self.con
        con.execute("DELETE FROM _all_lines")
        con.register("_blocks", self._blocks_table(batch))
        try:
            con.execute(
                f"""INSERT INTO _all_lines
                    SELECT line_no, line,
                      CASE WHEN strlen(line) > {MAX_LINE_BYTES} THEN 'long'
                           WHEN ltrim(line, e' \\t\\r') = '' THEN 'blank' END,
                      CASE WHEN strlen(line) <= {MAX_LINE_BYTES}
                           THEN TRY(json_extract_string(line, '$.type')) END
                    FROM (
                      SELECT first_line + generate_subscripts(l, 1) - 1 AS line_no,
                             unnest(l) AS line
                      FROM (SELECT first_line, string_split(text, chr(10)) AS l FROM _blocks))"""
            )
        finally:
            con.unregister("_blocks")
        too_long = con.execute(
            f"""SELECT line_no, strlen(line), substr(line, 1, {RAW_KEEP}) FROM _all_lines
                WHERE skip = 'long' ORDER BY line_no"""
        ).fetchall()
        con.execute("DELETE FROM _batch")
        con.execute("EXECUTE _bulk")
        return [
            Reject(n, f"line too long ({size:,} bytes; the limit is 1 MB)", raw)
            for n, size, raw in too_long
        ]

    def recheck(self, result: _FileResult) -> None:
        """Ask parse_line about every line the bulk validator did not accept."""
        con = self.con
        rows = con.execute(
            "SELECT line_no, raw FROM _batch WHERE NOT valid ORDER BY line_no"
        ).fetchall()
        if not rows:
            return
        con.execute("DELETE FROM _batch WHERE NOT valid")
        rescued = []
        for line_no, raw in rows:
            try:
                event = parse_line(raw)
                row = event_row(event, raw)
                _check_storable(row)
                rescued.append((line_no, row))
            except MalformedEventError as exc:
                result.quarantined.append(
                    _Quarantined(
                        line_no, "LOG_MALFORMED", exc.reason, raw[:RAW_KEEP], **_readable(raw)
                    )
                )
        if rescued:
            self._insert_rescued(rescued, result)

    def _insert_rescued(
        self, rescued: list[tuple[int, dict[str, Any]]], result: _FileResult
    ) -> None:
        pa = self.pa
        cols: dict[str, list[Any]] = {"line_no": [n for n, _ in rescued]}
        cols["valid"] = [True] * len(rescued)
        for c in _EVENT_SQL_TYPES:
            cols[c] = [r[c] for _, r in rescued]
        try:
            table = pa.table(cols)
        except (pa.ArrowException, OverflowError) as exc:  # e.g. money beyond DECIMAL(18,2)
            for n, r in rescued:
                result.quarantined.append(
                    _Quarantined(
                        n, "LOG_MALFORMED", f"cannot be stored: {exc}", r["raw"][:RAW_KEEP]
                    )
                )
            return
        self.con.register("_rescued", table)
        try:
            self.con.execute(
                "INSERT INTO _batch BY NAME SELECT line_no, valid, "
                + ", ".join(f"CAST({_q(c)} AS {t}) AS {_q(c)}" for c, t in _EVENT_SQL_TYPES.items())
                + " FROM _rescued"
            )
        finally:
            self.con.unregister("_rescued")


_MONEY_LIMIT = Decimal(10) ** 16


def _check_storable(row: dict[str, Any]) -> None:
    """Refuse values the models accept but the database cannot hold.

    The models take any integer and any amount; the columns are BIGINT and
    DECIMAL(18,2), and text must be valid Unicode (no lone surrogates).
    """
    for col, value in row.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise MalformedEventError(
                f"{col} {value} is out of range (the store keeps 64-bit ints)"
            )
        if isinstance(value, Decimal) and abs(value) >= _MONEY_LIMIT:
            raise MalformedEventError(f"{col} {value} is out of range (money below 10^16)")
        if isinstance(value, list):
            for item in value:
                if isinstance(item, int) and not -(2**63) <= item < 2**63:
                    raise MalformedEventError(f"{col} item {item} is out of range")
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise MalformedEventError(
                    f"{col} is not valid Unicode (a lone surrogate)"
                ) from None


def _quarantine_rejects(rejects: Iterable[Reject], result: _FileResult) -> None:
    for r in rejects:
        result.quarantined.append(_Quarantined(r.line_no, "LOG_MALFORMED", r.reason, r.raw))


def _merge(session: _Session, store: Store, file_id: int, path: str, result: _FileResult) -> None:
    """Insert the batch's new events; count duplicates; quarantine id conflicts."""
    con = session.con
    s = result.summary
    s.events += con.execute("SELECT count(*) FROM _batch").fetchall()[0][0]
    # Ids already stored, and ids repeated within this batch (first copy wins).
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _hits AS
           SELECT b.line_no, b.id, b.raw, e.raw AS first_raw, e.file_id AS first_file,
                  e.line_no AS first_line
           FROM _batch b JOIN events e ON e.id = b.id"""
    )
    con.execute(
        """INSERT INTO _hits
           SELECT line_no, id, raw, first_raw, NULL, first_line FROM (
             SELECT line_no, id, raw,
                    first_value(raw) OVER w AS first_raw, first_value(line_no) OVER w AS first_line,
                    row_number() OVER w AS rn
             FROM _batch
             WHERE id IN (SELECT id FROM _batch GROUP BY id HAVING count(*) > 1)
               AND id NOT IN (SELECT id FROM _hits)
             WINDOW w AS (PARTITION BY id ORDER BY line_no))
           WHERE rn > 1"""
    )
    hits = con.execute(
        """SELECT h.line_no, h.id, h.raw, h.first_raw, h.first_line, f.path
           FROM _hits h LEFT JOIN input_files f ON f.file_id = h.first_file
           WHERE NOT CASE WHEN h.raw = h.first_raw THEN true
                          ELSE json(h.raw) = json(h.first_raw) END
           ORDER BY h.line_no"""
    ).fetchall()
    n_hits = con.execute("SELECT count(*) FROM _hits").fetchall()[0][0]
    conflicts = 0
    for line_no, eid, raw, first_raw, first_line, first_path in hits:
        if loads(raw) == loads(first_raw):
            continue
        conflicts += 1
        where = f"{first_path or path}:{first_line}"
        result.quarantined.append(
            _Quarantined(
                line_no,
                "LOG_ID_CONFLICT",
                f"id {eid!r} was first seen at {where} with different content; "
                "the first copy is kept",
                raw[:RAW_KEEP],
                **_readable(raw),
            )
        )
    s.duplicates += n_hits - conflicts
    s.events -= conflicts
    inserted = con.execute(
        f"""INSERT INTO events
            SELECT {_EV_COLS}, ? AS file_id, line_no FROM _batch
            WHERE line_no NOT IN (SELECT line_no FROM _hits)""",
        [file_id],
    ).fetchall()[0][0]
    s.new += inserted
    unknown = con.execute(
        """SELECT line_no, type FROM _batch WHERE NOT known_type ORDER BY line_no"""
    ).fetchall()
    result.unknown.extend(unknown)


def _finish_file(
    store: Store, path: Path, reader: LogReader, file_id: int, result: _FileResult, now: dt.datetime
) -> int:
    """Record the file, its quarantine rows and derived tables; return its final file_id."""
    con = store.con
    s = result.summary
    s.lines = reader.lines
    existing = con.execute(
        "SELECT file_id FROM input_files WHERE path = ? AND sha256 = ?", [str(path), reader.sha256]
    ).fetchall()
    if existing:
        # The same bytes at the same path again: keep one row, re-point anything new.
        old = existing[0][0]
        con.execute("UPDATE events SET file_id = ? WHERE file_id = ?", [old, file_id])
        con.execute(
            """UPDATE input_files SET last_ingested_at = ?, lines = ?, events = ?,
                      new_events = ?, duplicates = ?, rejected = ? WHERE file_id = ?""",
            [now, s.lines, s.events, s.new, s.duplicates, s.rejected, old],
        )
        file_id = old
    else:
        con.execute(
            "INSERT INTO input_files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                file_id,
                str(path),
                reader.sha256,
                reader.size,
                s.lines,
                s.events,
                s.new,
                s.duplicates,
                s.rejected,
                now,
                now,
            ],
        )
    if result.quarantined:
        rows = [
            (
                file_id,
                str(path),
                q.line_no,
                q.code,
                q.reason,
                q.raw,
                q.id,
                q.table_id,
                q.shoe,
                q.ts_local,
            )
            for q in result.quarantined
        ]
        con.execute(
            """CREATE OR REPLACE TEMP TABLE _q (file_id BIGINT, path VARCHAR, line_no BIGINT,
               code VARCHAR, reason VARCHAR, raw VARCHAR, id VARCHAR, table_id VARCHAR,
               shoe VARCHAR, ts_local TIMESTAMP)"""
        )
        con.executemany("INSERT INTO _q VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        con.execute(
            """INSERT INTO quarantine SELECT * FROM _q
               WHERE (file_id, line_no, code) NOT IN
                     (SELECT file_id, line_no, code FROM quarantine WHERE file_id = ?)""",
            [file_id],
        )
    return file_id


def _refresh_derived(store: Store, file_id: int) -> list[dt.date]:
    """Shoes, seq gaps and unknown-type findings for what this file added."""
    con = store.con
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _touched AS
           SELECT DISTINCT table_id, shoe FROM events WHERE file_id = ?""",
        [file_id],
    )
    if con.execute("SELECT count(*) FROM _touched").fetchall()[0][0] == 0:
        return []
    store.refresh_shoes("SELECT table_id, shoe FROM _touched")
    # LOG_SEQ_GAP: recomputed for whole tables, since new events may fill a gap.
    con.execute(
        """DELETE FROM log_findings WHERE code = 'LOG_SEQ_GAP'
           AND table_id IN (SELECT table_id FROM _touched)"""
    )
    con.execute(
        """INSERT INTO log_findings BY NAME
           SELECT 'LOG_SEQ_GAP' AS code, 'major' AS severity, g.table_id,
                  CASE WHEN g.shoe = g.next_shoe THEN g.next_shoe END AS shoe,
                  CASE WHEN g.shoe = g.next_shoe AND g.round = g.next_round THEN g.round END
                    AS round,
                  [g.id, g.next_id] AS events,
                  'table ' || g.table_id || ': seq ' || g.seq || ' → ' || g.next_seq || ', '
                    || (g.next_seq - g.seq - 1) || ' event'
                    || CASE WHEN g.next_seq - g.seq - 1 = 1 THEN '' ELSE 's' END || ' missing'
                    AS message,
                  s.gaming_day, g.seq AS ordinal
           FROM (
             SELECT table_id, shoe, round, id, seq,
                    lead(seq) OVER w AS next_seq, lead(id) OVER w AS next_id,
                    lead(shoe) OVER w AS next_shoe, lead(round) OVER w AS next_round
             FROM events WHERE table_id IN (SELECT table_id FROM _touched)
             WINDOW w AS (PARTITION BY table_id ORDER BY seq, id)
           ) g
           LEFT JOIN shoes s ON s.table_id = g.table_id AND s.shoe = g.next_shoe
           WHERE g.next_seq > g.seq + 1"""
    )
    con.execute(
        """INSERT INTO log_findings BY NAME
           SELECT 'LOG_UNKNOWN_TYPE' AS code, 'minor' AS severity, e.table_id, e.shoe,
                  [e.id] AS events,
                  'table ' || e.table_id || ' shoe ' || e.shoe || ': event ' || e.id
                    || ' has unknown type ' || '''' || e.type || ''''
                    || ' (stored, not replayed)' AS message,
                  s.gaming_day, e.seq AS ordinal
           FROM events e LEFT JOIN shoes s USING (table_id, shoe)
           WHERE e.file_id = ? AND NOT e.known_type""",
        [file_id],
    )
    days = con.execute(
        """SELECT DISTINCT gaming_day FROM shoes
           WHERE (table_id, shoe) IN (SELECT table_id, shoe FROM _touched)
             AND gaming_day IS NOT NULL ORDER BY 1"""
    ).fetchall()
    return [d for (d,) in days]


def _ingest_file(
    store: Store, session: _Session, path: Path, hook: BatchHook | None, now: dt.datetime
) -> tuple[FileSummary, list[dt.date]]:
    result = _FileResult(FileSummary(str(path)))
    reader = LogReader(path)
    with store.transaction() as con:
        file_id = con.execute("SELECT nextval('file_ids')").fetchall()[0][0]
        try:
            for batch in reader.batches():
                if hook is not None:
                    hook(path, batch)
                _quarantine_rejects(batch.rejects, result)
                _quarantine_rejects(session.validate(batch), result)
                session.recheck(result)
                _merge(session, store, file_id, str(path), result)
        except FileError as exc:
            if not reader.opened:
                raise
            result.summary.error = str(exc)
            result.quarantined.append(_Quarantined(reader.lines + 1, "LOG_MALFORMED", str(exc), ""))
        result.summary.rejected = len(result.quarantined)
        result.summary.unknown_types = len(result.unknown)
        days = _refresh_derived(store, file_id)  # before file_id may become an older one
        _finish_file(store, path, reader, file_id, result, now)
    return result.summary, days


def ingest_paths(
    store: Store,
    paths: Iterable[StrPath],
    day_start: str = "06:00",
    *,
    on_batch: BatchHook | None = None,
) -> IngestSummary:
    """Read TEL/1 files and folders into ``store``; idempotent.

    Raises :class:`audit.errors.NoLogsError` when a path does not exist, a
    folder holds no ``*.jsonl``/``*.jsonl.gz``, or no file could be read at
    all. A file that cannot be read (or a gzip damaged part-way) is reported
    in its :class:`FileSummary` ``error`` and the others are ingested.
    """
    day_start_minutes(day_start)  # fail early on a bad value
    files = find_logs(paths)
    if store.meta("day_start") != day_start:
        with store.transaction():
            store.set_meta("day_start", day_start)
            store.refresh_shoes()
    session = _Session(store.con)
    summary = IngestSummary()
    days: set[dt.date] = set()
    now = dt.datetime.now(dt.UTC)
    for path in files:
        try:
            fs, file_days = _ingest_file(store, session, path, on_batch, now)
        except FileError as exc:
            fs, file_days = FileSummary(str(path), error=str(exc)), []
        summary.files.append(fs)
        days.update(file_days)
    summary.gaming_days = sorted(days)
    if all(f.error and f.lines == 0 for f in summary.files):
        raise NoLogsError(
            "nothing could be read: " + "; ".join(f"{f.path}: {f.error}" for f in summary.files)
        )
    return summary


def validate_paths(paths: Iterable[StrPath]) -> ValidationReport:
    """Check TEL/1 files without storing anything.

    Every invalid line is reported as ``file:line: why``; an unknown ``type``
    is a warning. Id conflicts are not checked (they need the database).
    """
    import duckdb

    files = find_logs(paths)
    report = ValidationReport()
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET TimeZone = 'UTC'")
        session = _Session(con)
        for path in files:
            result = _FileResult(FileSummary(str(path)))
            reader = LogReader(path)
            try:
                for batch in reader.batches():
                    _quarantine_rejects(batch.rejects, result)
                    _quarantine_rejects(session.validate(batch), result)
                    session.recheck(result)
                    result.summary.events += con.execute("SELECT count(*) FROM _batch").fetchall()[
                        0
                    ][0]
                    result.unknown.extend(
                        con.execute(
                            "SELECT line_no, type FROM _batch WHERE NOT known_type ORDER BY line_no"
                        ).fetchall()
                    )
            except FileError as exc:
                result.summary.error = str(exc)
                report.errors.append(f"{path}: {exc}")
            result.summary.lines = reader.lines
            result.summary.rejected = len(result.quarantined)
            result.summary.unknown_types = len(result.unknown)
            report.files.append(result.summary)
            for q in sorted(result.quarantined, key=lambda q: q.line_no):
                report.invalid.append(f"{path}:{q.line_no}: {q.reason}")
            for line_no, etype in result.unknown:
                report.warnings.append(
                    f"{path}:{line_no}: unknown type {etype!r} (kept, not replayed)"
                )
    finally:
        con.close()
    if all(f.error and f.lines == 0 for f in report.files):
        raise NoLogsError("nothing could be read: " + "; ".join(report.errors))
    return report
