"""Ingest and validate: the two entry points of :mod:`audit.ingest`.

Per batch of lines (see :mod:`audit.ingest.reader`; the lines of small files
are pooled into one batch, each keeping its file's id and line number):

1. DuckDB splits the blocks into numbered lines and runs the bulk validator
   (:mod:`audit.ingest.bulk`) over them;
2. the lines it did not accept go through :func:`audit.events.parse.parse_line`,
   which either accepts them after all (a few odd but valid forms) or gives
   the precise reason they are malformed;
3. accepted events are merged into ``events`` by ``id``: new ids are
   inserted, an equal copy is a duplicate, a different one is quarantined as
   ``LOG_ID_CONFLICT`` (the first copy stays).

A file is stored in one transaction (small files share one, see
:func:`_groups`): an interrupted ingest leaves no part of a file behind and
running it again completes it. Before the commit, the ``shoes`` rows of the
shoes it touched and the ``LOG_SEQ_GAP`` findings of their tables are
recomputed, in the same transaction.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from os import PathLike
from pathlib import Path
from typing import Any, ClassVar

from audit.errors import MalformedEventError, NoLogsError
from audit.events.parse import MAX_LINE_BYTES, loads, parse_line
from audit.ingest import bulk
from audit.ingest import reader as _reader
from audit.ingest.reader import (
    RAW_KEEP,
    Batch,
    FileError,
    LogReader,
    Reject,
    file_sha256,
    find_logs,
)
from audit.ingest.summary import FileSummary, IngestSummary, ValidationReport
from audit.store import Store
from audit.store.fields import COLUMN_TYPES
from audit.store.rows import EVENT_COLUMNS, event_row
from audit.store.store import day_start_minutes

StrPath = str | PathLike[str]

BatchHook = Callable[[Path, Batch], None]
"""Called for each batch as it is read, before it is stored (tests use it to
interrupt an ingest)."""

_Block = tuple[int, int, bytes]
"""A block of whole lines: the id of its file, the number of its first line, the bytes."""


def _blocks_of(batch: Batch, file_id: int) -> list[_Block]:
    return [
        (file_id, first, block)
        for first, block in zip(batch.block_first_lines, batch.blocks, strict=True)
    ]


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


_LINES_PER_ARROW_BATCH = 16_384
"""The numbered lines go to the bulk query in Arrow batches this small, so
DuckDB's two threads share its work evenly."""

_SPLIT_SQL = f"""
SELECT line_no, file_id, line,
  CASE WHEN strlen(line) > {MAX_LINE_BYTES} THEN 'long'
       WHEN ltrim(line, e' \\t\\r') = '' THEN 'blank' END AS skip,
  r[1] AS ty, r[2] AS rid
FROM (
  SELECT line_no, file_id, line,
    CASE WHEN strlen(line) <= {MAX_LINE_BYTES}
         THEN TRY(json_extract_string(line, ['$.type', '$.id'])) END AS r
  FROM (
    SELECT first_line + generate_subscripts(l, 1) - 1 AS line_no, file_id, unnest(l) AS line
    FROM (SELECT first_line, file_id, string_split(text, chr(10)) AS l FROM _blocks)))
ORDER BY list_position({bulk.TYPE_LIST}, ty), file_id, line_no
"""
"""A batch's blocks as numbered lines, sorted by type: the bulk query's ``CASE``
on the type then meets one or two types per vector instead of all of them,
which takes ~40% off its time."""


class _Session:
    """One DuckDB connection doing the per-batch work (the store's, or a scratch one).

    With a store (``direct``), the lines whose id is new to the database and
    to the batch go straight from the bulk query into ``events``; only the
    others (an id seen before, or a line the bulk validator did not accept)
    come back to Python as the batch's ``rest``.

    Per-batch data lives in Arrow tables that a query sees under a name
    (``relation.query(name, sql)``), never in temp tables or registered views:
    a file is stored in one transaction, and DuckDB keeps every version of a
    temp table or view that a transaction replaced until it ends, so memory
    would grow with the file. The bulk query is a temp view, parsed once.
    """

    def __init__(self, con: Any, *, direct: bool) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        self.con = con
        self.pa = pa
        self.pc = pc
        self.direct = direct
        self.rest: Any = None
        """The batch's lines that need Python (an Arrow table of bulk rows)."""
        kept = ("line_no", "file_id", "valid")
        out_cols = ", ".join(
            _q(c) for c in bulk.OUTPUT_COLUMNS if c in _EVENT_SQL_TYPES or c in kept
        )
        self.empty_lines = pa.table(
            {"line_no": pa.array([], pa.int64()), "file_id": pa.array([], pa.int64()),
             "line": pa.array([], pa.string()),
             "skip": pa.array([], pa.string()), "ty": pa.array([], pa.string()),
             "rid": pa.array([], pa.string()), "dup": pa.array([], pa.bool_())}
        )  # fmt: skip
        self.out_cols = out_cols
        self._views: set[str] = set()
        # The Arrow schema of the views' rows, in their column order.
        types = {"line_no": "BIGINT", "file_id": "BIGINT", "valid": "BOOLEAN", **_EVENT_SQL_TYPES}
        casts = ", ".join(f"NULL::{types[c]} AS {_q(c)}" for c in bulk.OUTPUT_COLUMNS if c in types)
        self.schema = con.sql(f"SELECT {casts}").to_arrow_table().schema

    _VIEWS: ClassVar[dict[str, str]] = {
        "_v_all": "skip IS NULL",
        "_v_fresh": "skip IS NULL AND NOT dup",
        "_v_dup": "skip IS NULL AND dup",
    }

    def _view(self, name: str) -> str:
        """The bulk query over some of ``_all_lines`` as a temp view (made once, when needed).

        The lines come sorted by type (see ``_SPLIT_SQL``) in small Arrow
        batches, which DuckDB scans in parallel without a copy.
        """
        if name not in self._views:
            cond = self._VIEWS[name]
            self._query(
                self.empty_lines,
                "_all_lines",
                f"CREATE OR REPLACE TEMP VIEW {name} AS "
                f"WITH _src AS NOT MATERIALIZED "
                f"(SELECT line_no, file_id, line, ty FROM _all_lines WHERE {cond}) "
                f"SELECT {self.out_cols} FROM ({bulk.select_sql('_src')})",
            )
            self._views.add(name)
        return name

    def _query(self, table: Any, name: str, sql: str) -> list[tuple[Any, ...]]:
        """Run ``sql`` with the Arrow ``table`` visible as ``name``; all rows."""
        rows: list[tuple[Any, ...]] = self.con.from_arrow(table).query(name, sql).fetchall()
        return rows

    def _arrow(self, table: Any, name: str, sql: str) -> Any:
        """Run ``sql`` with the Arrow ``table`` visible as ``name``; an Arrow table."""
        return self.con.from_arrow(table).query(name, sql).to_arrow_table()

    def _blocks_table(self, blocks: list[_Block]) -> Any:
        """The blocks, one per Arrow record batch (so DuckDB splits them in parallel)."""
        pa = self.pa
        schema = pa.schema(
            [("file_id", pa.int64()), ("first_line", pa.int64()), ("text", pa.large_string())]
        )
        parts = []
        for file_id, first, block in blocks:
            offsets = pa.array([0, len(block)], pa.int64()).buffers()[1]
            text = pa.LargeStringArray.from_buffers(1, offsets, pa.py_buffer(block))
            columns = [pa.array([file_id], pa.int64()), pa.array([first], pa.int64()), text]
            parts.append(pa.record_batch(columns, schema=schema))
        return pa.Table.from_batches(parts, schema=schema)

    def _split(self, blocks: list[_Block]) -> tuple[Any, list[tuple[int, Reject]]]:
        """The blocks' numbered lines (an Arrow table), and the too-long ones by file."""
        lines = (
            self.con.from_arrow(self._blocks_table(blocks))
            .query("_blocks", _SPLIT_SQL)
            .to_arrow_table(batch_size=_LINES_PER_ARROW_BATCH)
        )
        if not self.pc.any(self.pc.equal(lines.column("skip"), "long")).as_py():
            return lines, []
        too_long = self._query(
            lines,
            "_all_lines",
            f"""SELECT file_id, line_no, strlen(line), substr(line, 1, {RAW_KEEP})
                FROM _all_lines WHERE skip = 'long' ORDER BY file_id, line_no""",
        )
        rejects = [
            (f, Reject(n, f"line too long ({size:,} bytes; the limit is 1 MB)", raw))
            for f, n, size, raw in too_long
        ]
        return lines, rejects

    def validate(self, blocks: list[_Block]) -> list[tuple[int, Reject]]:
        """Every line of the blocks through the bulk query into ``rest``; the too-long ones."""
        lines, rejects = self._split(blocks)
        lines = lines.append_column("dup", self.pa.nulls(lines.num_rows, self.pa.bool_()))
        self.rest = self._arrow(lines, "_all_lines", f"SELECT * FROM {self._view('_v_all')}")
        return rejects

    def store(self, blocks: list[_Block]) -> list[tuple[int, Reject]]:
        """New events straight into ``events``; the other lines into ``rest``.

        ``blocks`` may come from several files (each line keeps its file's
        id). Returns the too-long lines, by file. Lines the bulk validator did
        not accept come back with ``valid`` false, for :meth:`recheck`.
        """
        pa, pc = self.pa, self.pc
        lines, rejects = self._split(blocks)
        # Ids that need care: seen before, or more than once in this batch.
        dup_ids = self._arrow(
            lines,
            "_all_lines",
            """SELECT rid FROM _all_lines WHERE skip IS NULL AND rid IS NOT NULL
               GROUP BY rid HAVING count(*) > 1
               UNION
               SELECT e.id FROM events e SEMI JOIN _all_lines a ON a.rid = e.id""",
        ).column("rid")
        dup = pc.fill_null(pc.is_in(lines.column("rid"), value_set=dup_ids.combine_chunks()), False)
        lines = lines.append_column("dup", dup)
        inserted = self._query(
            lines,
            "_all_lines",
            f"INSERT INTO events BY NAME SELECT {_EV_COLS}, file_id, line_no "
            f"FROM {self._view('_v_fresh')} WHERE valid",
        )[0][0]
        parts = []
        if len(dup_ids):
            parts.append(self._arrow(lines, "_all_lines", f"SELECT * FROM {self._view('_v_dup')}"))
        # What the bulk query did not accept: its raw line, for parse_line (none
        # when every fresh line went in, the usual case: no need to look).
        fresh = pc.sum(pc.and_(pc.is_null(lines.column("skip")), pc.invert(dup))).as_py() or 0
        unaccepted = (
            []
            if inserted == fresh
            else self._query(
                lines,
                "_all_lines",
                """SELECT a.line_no, a.file_id, a.line FROM _all_lines a
               WHERE a.skip IS NULL AND NOT a.dup
                 AND NOT EXISTS (SELECT 1 FROM events e
                                 WHERE e.file_id = a.file_id AND e.line_no = a.line_no)""",
            )
        )
        if unaccepted:
            parts.append(
                pa.Table.from_pylist(
                    [
                        {"line_no": n, "file_id": f, "valid": False, "raw": line}
                        for n, f, line in unaccepted
                    ],
                    schema=self.schema,
                )
            )
        self.rest = pa.concat_tables(parts) if parts else self.schema.empty_table()
        return rejects

    def recheck(self, results: dict[int, _FileResult]) -> None:
        """Ask parse_line about every line of ``rest`` the bulk validator did not accept."""
        pa = self.pa
        rest = self.rest
        if rest is None or rest.num_rows == 0:
            return
        valid = rest.column("valid").to_pylist()
        if all(valid):
            return
        bad = [i for i, v in enumerate(valid) if not v]
        line_nos = rest.column("line_no").take(bad).to_pylist()
        file_ids = rest.column("file_id").take(bad).to_pylist()
        raws = rest.column("raw").take(bad).to_pylist()
        rescued = []
        for line_no, file_id, raw in zip(line_nos, file_ids, raws, strict=True):
            try:
                event = parse_line(raw)
                row = event_row(event, raw)
                _check_storable(row)
                rescued.append({"line_no": line_no, "file_id": file_id, "valid": True, **row})
            except MalformedEventError as exc:
                results[file_id].quarantined.append(
                    _Quarantined(
                        line_no, "LOG_MALFORMED", exc.reason, raw[:RAW_KEEP], **_readable(raw)
                    )
                )
        kept = rest.filter(pa.array(valid))
        if rescued:
            kept = pa.concat_tables([kept, pa.Table.from_pylist(rescued, schema=self.schema)])
        self.rest = kept


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


def _merge(session: _Session, results: dict[int, _FileResult], paths: dict[int, str]) -> None:
    """Merge the batch's ``rest`` into ``events``: new ids in, duplicates counted,
    conflicting copies quarantined (the first copy wins: earlier files first,
    then earlier lines)."""
    pc = session.pc
    rest = session.rest
    if rest is None or rest.num_rows == 0:
        return
    # Ids already stored, and ids repeated within the batch (first copy wins).
    hits = session._arrow(
        rest,
        "_rest",
        """WITH stored AS (
             SELECT b.line_no, b.file_id, b.id, b.raw, e.raw AS first_raw,
                    e.file_id AS first_file, e.line_no AS first_line
             FROM _rest b JOIN events e ON e.id = b.id
           ), repeated AS (
             SELECT line_no, file_id, id, raw, first_raw, first_file, first_line
             FROM (
               SELECT line_no, file_id, id, raw, first_value(raw) OVER w AS first_raw,
                      first_value(file_id) OVER w AS first_file,
                      first_value(line_no) OVER w AS first_line, row_number() OVER w AS rn
               FROM _rest WHERE id NOT IN (SELECT id FROM stored)
               WINDOW w AS (PARTITION BY id ORDER BY file_id, line_no))
             WHERE rn > 1
           )
           SELECT * FROM stored UNION ALL SELECT * FROM repeated""",
    )
    differing = session._query(
        hits,
        "_hits",
        """SELECT h.line_no, h.file_id, h.id, h.raw, h.first_raw, h.first_file, h.first_line,
                  f.path
           FROM _hits h LEFT JOIN input_files f ON f.file_id = h.first_file
           WHERE NOT CASE WHEN h.raw = h.first_raw THEN true
                          ELSE json(h.raw) = json(h.first_raw) END
           ORDER BY h.file_id, h.line_no""",
    )
    conflicts: dict[int, int] = {}
    for line_no, file_id, eid, raw, first_raw, first_file, first_line, first_path in differing:
        if loads(raw) == loads(first_raw):
            continue
        conflicts[file_id] = conflicts.get(file_id, 0) + 1
        where = f"{first_path or paths[first_file]}:{first_line}"
        results[file_id].quarantined.append(
            _Quarantined(
                line_no,
                "LOG_ID_CONFLICT",
                f"id {eid!r} was first seen at {where} with different content; "
                "the first copy is kept",
                raw[:RAW_KEEP],
                **_readable(raw),
            )
        )
    for file_id, n in Counter(hits.column("file_id").to_pylist()).items():
        results[file_id].summary.duplicates += n - conflicts.get(file_id, 0)
    if hits.num_rows:

        def keys(t: Any) -> Any:  # (file, line) as one int64
            return pc.add(pc.multiply(t.column("file_id"), 1 << 40), t.column("line_no"))

        rest = rest.filter(pc.invert(pc.is_in(keys(rest), value_set=keys(hits))))
    if rest.num_rows:
        session._query(
            rest,
            "_rest",
            f"INSERT INTO events SELECT {_EV_COLS}, file_id, line_no FROM _rest",
        )


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


_TOUCHED = """
CREATE OR REPLACE TEMP TABLE _touched (table_id VARCHAR, shoe VARCHAR);
CREATE OR REPLACE TEMP TABLE _touched_seq (table_id VARCHAR, lo BIGINT, hi BIGINT);
"""
"""What a transaction's new events touched: their shoes, and per table their seq range."""


def _touch(store: Store, file_id: int) -> None:
    """Note the shoes and seq range of a file's new events, for :func:`_refresh_derived`."""
    store.con.execute(
        """INSERT INTO _touched SELECT DISTINCT table_id, shoe FROM events WHERE file_id = ?
           EXCEPT SELECT table_id, shoe FROM _touched""",
        [file_id],
    )
    store.con.execute(
        """INSERT INTO _touched_seq
           SELECT table_id, min(seq), max(seq) FROM events WHERE file_id = ? GROUP BY table_id""",
        [file_id],
    )


def _refresh_derived(store: Store) -> list[dt.date]:
    """Shoes and seq gaps for the shoes in ``_touched``; their gaming days."""
    con = store.con
    if con.execute("SELECT count(*) FROM _touched").fetchall()[0][0] == 0:
        return []
    store.refresh_shoes("SELECT table_id, shoe FROM _touched")
    # LOG_SEQ_GAP: new events may fill a gap or open one, but only between the
    # stored events just below and just above them; gaps elsewhere in a
    # table's history stand, so a night's ingest does not re-sort the history.
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _seq_window AS
           SELECT n.table_id,
             COALESCE((SELECT max(e.seq) FROM events e
                       WHERE e.table_id = n.table_id AND e.seq < n.lo), n.lo) AS lo,
             COALESCE((SELECT min(e.seq) FROM events e
                       WHERE e.table_id = n.table_id AND e.seq > n.hi), n.hi) AS hi
           FROM (SELECT table_id, min(lo) AS lo, max(hi) AS hi FROM _touched_seq GROUP BY 1) n"""
    )
    con.execute(
        """DELETE FROM log_findings f WHERE code = 'LOG_SEQ_GAP' AND EXISTS (
             SELECT 1 FROM _seq_window w
             WHERE w.table_id = f.table_id AND f.ordinal >= w.lo AND f.ordinal < w.hi)"""
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
             FROM events e SEMI JOIN _seq_window sw
               ON sw.table_id = e.table_id AND e.seq BETWEEN sw.lo AND sw.hi
             WINDOW w AS (PARTITION BY table_id ORDER BY seq, id)
           ) g
           LEFT JOIN shoes s ON s.table_id = g.table_id AND s.shoe = g.next_shoe
           WHERE g.next_seq > g.seq + 1"""
    )
    # LOG_UNKNOWN_TYPE is the replay's to raise (it knows the round); ingest keeps
    # the event with known_type false, and validate prints it as a warning.
    days = con.execute(
        """SELECT DISTINCT gaming_day FROM shoes
           WHERE (table_id, shoe) IN (SELECT table_id, shoe FROM _touched)
             AND gaming_day IS NOT NULL ORDER BY 1"""
    ).fetchall()
    return [d for (d,) in days]


def _stored_before(store: Store, path: Path, now: dt.datetime) -> FileSummary | None:
    """The summary of a file whose very bytes were stored from this path before.

    Storing them again would add nothing (every event a duplicate, every
    rejected line already in quarantine), so the file is only hashed, not
    read into the database: a nightly re-run over the same folder is quick.
    A file that could not be read to its end last time is read again.
    """
    con = store.con
    rows = con.execute(
        """SELECT f.file_id, f.sha256, f.lines, f.events, f.rejected FROM input_files f
           WHERE f.path = ? AND NOT EXISTS (
             SELECT 1 FROM quarantine q WHERE q.file_id = f.file_id AND q.raw = '')""",
        [str(path)],
    ).fetchall()
    if not rows:
        return None
    try:
        sha = file_sha256(path)
    except OSError:
        return None  # the reader will say what is wrong
    for file_id, stored_sha, lines, events, rejected in rows:
        if stored_sha == sha:
            con.execute(
                """UPDATE input_files SET last_ingested_at = ?, new_events = 0, duplicates = ?
                   WHERE file_id = ?""",
                [now, events, file_id],
            )
            unknown = con.execute(
                "SELECT count(*) FROM events WHERE file_id = ? AND NOT known_type", [file_id]
            ).fetchall()[0][0]
            return FileSummary(str(path), lines, events, 0, events, rejected, unknown_types=unknown)
    return None


@dataclass(slots=True)
class _OpenFile:
    """A file being ingested: its reader, its id, what became of its lines."""

    path: Path
    reader: LogReader
    file_id: int
    result: _FileResult


def _store_blocks(session: _Session, blocks: list[_Block], files: dict[int, _OpenFile]) -> None:
    """One bulk pass over blocks of one or more files, then the merge of the rest."""
    results = {f: o.result for f, o in files.items()}
    for file_id, reject in session.store(blocks):
        results[file_id].quarantined.append(
            _Quarantined(reject.line_no, "LOG_MALFORMED", reject.reason, reject.raw)
        )
    session.recheck(results)
    _merge(session, results, {f: str(o.path) for f, o in files.items()})


def _ingest_group(
    store: Store, session: _Session, paths: list[Path], hook: BatchHook | None, now: dt.datetime
) -> list[FileSummary]:
    """Files into ``events`` and ``input_files``, inside the caller's transaction.

    Lines are handed to the bulk step a batch at a time; the batches of small
    files are pooled (each line keeps its file's id), so a file of a few
    thousand lines does not pay for a query plan of its own.
    """
    con = store.con
    files: dict[int, _OpenFile] = {}
    summaries: list[FileSummary] = []
    pending: list[_Block] = []
    pending_bytes = 0
    for path in paths:
        again = _stored_before(store, path, now)
        if again is not None:
            summaries.append(again)
            continue
        file_id = con.execute("SELECT nextval('file_ids')").fetchall()[0][0]
        f = _OpenFile(path, LogReader(path), file_id, _FileResult(FileSummary(str(path))))
        try:
            for batch in f.reader.batches():
                if hook is not None:
                    hook(path, batch)
                files[file_id] = f
                _quarantine_rejects(batch.rejects, f.result)
                pending += _blocks_of(batch, file_id)
                pending_bytes += sum(len(b) for b in batch.blocks)
                if pending_bytes >= _reader.BATCH_BYTES:
                    _store_blocks(session, pending, files)
                    pending, pending_bytes = [], 0
        except FileError as exc:
            if not f.reader.opened:  # nothing of it was read
                summaries.append(FileSummary(str(path), error=str(exc)))
                continue
            f.result.summary.error = str(exc)
            f.result.quarantined.append(
                _Quarantined(f.reader.lines + 1, "LOG_MALFORMED", str(exc), "")
            )
        files[file_id] = f
        summaries.append(f.result.summary)
    if pending:
        _store_blocks(session, pending, files)
    for f in files.values():
        s = f.result.summary
        s.rejected = len(f.result.quarantined)
        s.new, s.unknown_types = con.execute(
            "SELECT count(*), count(*) FILTER (NOT known_type) FROM events WHERE file_id = ?",
            [f.file_id],
        ).fetchall()[0]
        s.events = s.new + s.duplicates
        _touch(store, f.file_id)  # before file_id may become an older one
        _finish_file(store, f.path, f.reader, f.file_id, f.result, now)
    return summaries


GROUP_FILES = 64
"""Most files in one transaction (see :func:`_groups`)."""


def _groups(files: list[Path]) -> Iterator[list[Path]]:
    """Consecutive files that are committed together.

    A transaction costs a commit and a refresh of the derived tables (tens of
    ms each), which dominate for small files (a night holds one log per table
    or more). Small files are therefore grouped, up to about one batch of
    lines (a gzip counted at 8x its size) or GROUP_FILES files; a big file
    has a transaction of its own. An interrupted ingest still leaves no part
    of a file behind: it loses its whole group, and a re-run completes it.
    """
    group: list[Path] = []
    size = 0
    for path in files:
        try:
            n = path.stat().st_size * (8 if path.name.endswith(".gz") else 1)
        except OSError:
            n = 0
        if group and (size + n > _reader.BATCH_BYTES or len(group) >= GROUP_FILES):
            yield group
            group, size = [], 0
        group.append(path)
        size += n
    if group:
        yield group


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
    session = _Session(store.con, direct=True)
    summary = IngestSummary()
    days: set[dt.date] = set()
    now = dt.datetime.now(dt.UTC)
    for group in _groups(files):
        with store.transaction() as con:
            con.execute(_TOUCHED)
            summary.files += _ingest_group(store, session, group, on_batch, now)
            days.update(_refresh_derived(store))
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
    Small files are checked together, as ingest does.
    """
    import duckdb

    files = find_logs(paths)
    report = ValidationReport()
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET TimeZone = 'UTC'")
        session = _Session(con, direct=False)
        results: dict[int, _FileResult] = {}
        pending: list[_Block] = []
        pending_bytes = 0
        for index, path in enumerate(files):
            result = results[index] = _FileResult(FileSummary(str(path)))
            reader = LogReader(path)
            try:
                for batch in reader.batches():
                    _quarantine_rejects(batch.rejects, result)
                    pending += _blocks_of(batch, index)
                    pending_bytes += sum(len(b) for b in batch.blocks)
                    if pending_bytes >= _reader.BATCH_BYTES:
                        _validate_blocks(session, pending, results)
                        pending, pending_bytes = [], 0
            except FileError as exc:
                result.summary.error = str(exc)
                report.errors.append(f"{path}: {exc}")
            result.summary.lines = reader.lines
        if pending:
            _validate_blocks(session, pending, results)
    finally:
        con.close()
    for index, path in enumerate(files):
        result = results[index]
        result.summary.rejected = len(result.quarantined)
        result.summary.unknown_types = len(result.unknown)
        report.files.append(result.summary)
        for q in sorted(result.quarantined, key=lambda q: q.line_no):
            report.invalid.append(f"{path}:{q.line_no}: {q.reason}")
        for line_no, etype in sorted(result.unknown):
            report.warnings.append(f"{path}:{line_no}: unknown type {etype!r} (kept, not replayed)")
    if all(f.error and f.lines == 0 for f in report.files):
        raise NoLogsError("nothing could be read: " + "; ".join(report.errors))
    return report


def _validate_blocks(
    session: _Session, blocks: list[_Block], results: dict[int, _FileResult]
) -> None:
    """One bulk pass over blocks of one or more files; what it found, by file."""
    for index, reject in session.validate(blocks):
        results[index].quarantined.append(
            _Quarantined(reject.line_no, "LOG_MALFORMED", reject.reason, reject.raw)
        )
    session.recheck(results)
    rest = session.rest
    for index, line_no, etype, known in zip(
        rest.column("file_id").to_pylist(),
        rest.column("line_no").to_pylist(),
        rest.column("type").to_pylist(),
        rest.column("known_type").to_pylist(),
        strict=True,
    ):
        results[index].summary.events += 1
        if not known:
            results[index].unknown.append((line_no, etype))
