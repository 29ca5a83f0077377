"""The bulk step: a batch of lines through DuckDB, in one pass.

:class:`Session` splits blocks of lines (of one file or several) into
numbered lines, sends them through the bulk validator
(:mod:`audit.ingest.bulk`), stores the new events, and keeps the lines that
need Python (:meth:`Session.recheck`) or a merge by id (see
:mod:`audit.ingest.storing`).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from audit.errors import MalformedEventError
from audit.events.parse import MAX_LINE_BYTES, decode_line, parse_object
from audit.ingest import bulk
from audit.ingest.reader import RAW_KEEP, Batch, Reject
from audit.ingest.summary import FileSummary
from audit.store.evidence import LineDigest
from audit.store.fields import COLUMN_TYPES
from audit.store.rows import EVENT_COLUMNS, event_row

Block = tuple[int, int, bytes]
"""A block of whole lines: the id of its file, the number of its first line, the bytes."""


def blocks_of(batch: Batch, file_id: int) -> list[Block]:
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
    "stream": "VARCHAR",
    **COLUMN_TYPES,
    "has_extra": "BOOLEAN",
    "raw": "VARCHAR",
}


def _q(name: str) -> str:
    return f'"{name}"'


EV_COLS = ", ".join(_q(c) for c in EVENT_COLUMNS)


@dataclass(slots=True)
class Quarantined:
    """A rejected line on its way to the ``quarantine`` table."""

    line_no: int
    code: str
    reason: str
    raw: str
    id: str | None = None
    table_id: str | None = None
    shoe: str | None = None
    ts_local: dt.datetime | None = None


@dataclass(slots=True)
class FileResult:
    """What became of one file's lines: its summary, its rejects, its unknown types."""

    summary: FileSummary
    quarantined: list[Quarantined] = field(default_factory=list)
    unknown: list[tuple[int, str]] = field(default_factory=list)
    shoes: set[tuple[str, str]] = field(default_factory=set)
    """(table, shoe) of its lines that were duplicates of stored events (its new
    events' shoes are in ``events``)."""
    lines: LineDigest = field(default_factory=LineDigest)
    """The digest of the lines it added, as they were read (the ledger's)."""


@dataclass(slots=True)
class Prepared:
    """A pass of blocks split into lines and through the bulk query, not yet stored."""

    blocks: list[Block]
    lines: Any
    """Every numbered line (Arrow): ``file_id``, ``line_no``, ``skip``, ``rid`` (its id)."""
    typed: Any
    """The bulk query's row of each line not skipped (Arrow, the text in ``raw``)."""
    too_long: list[tuple[int, Reject]]
    """The lines over the limit, by file."""
    probe: StoredProbe | None = None
    """What a probe of the stored events found of the pass's ids ahead of the store."""

    def renumbered(self, file_ids: Mapping[int, int]) -> Prepared:
        """The pass with each file's number replaced by ``file_ids[number]``: a pass read
        ahead numbers its files before the database gives them their ids."""
        import pyarrow as pa
        import pyarrow.compute as pc

        table = pa.array([file_ids.get(i, -1) for i in range(max(file_ids, default=0) + 1)])

        def mapped(t: Any) -> Any:
            at = t.schema.get_field_index("file_id")
            return t.set_column(at, "file_id", pc.take(table, t.column("file_id")))

        return Prepared(
            [(file_ids[f], first, block) for f, first, block in self.blocks],
            mapped(self.lines),
            mapped(self.typed),
            [(file_ids[f], reject) for f, reject in self.too_long],
            self.probe,
        )


@dataclass(slots=True)
class Split:
    """A pass of blocks split into numbered lines (:meth:`Session.split`), not yet checked."""

    blocks: list[Block]
    lines: Any
    """Every numbered line (Arrow): ``file_id``, ``line_no``, ``line``, ``skip``, ``ty``,
    ``rid``, sorted by type."""
    too_long: list[tuple[int, Reject]]
    probe: StoredProbe | None = None


@dataclass(frozen=True, slots=True)
class StoredProbe:
    """The ids of a pass found among the stored events, as one snapshot of the database
    saw them (:meth:`Session.probe_stored`), and the largest ``file_id`` of an event it
    saw. Ingest commits files in the order of their ids, so an event it did not see has
    a larger ``file_id``: the store looks for the pass's ids among those alone."""

    ids: Any
    """Arrow strings."""
    through_file_id: int


def readable(raw: str) -> dict[str, Any]:
    """id/table/shoe/local time of a rejected line, where it has them.

    Only to locate the line: a key named twice gives its last value.
    """
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    return _located(obj)


def _located(obj: Any) -> dict[str, Any]:
    """id/table/shoe/local time of a decoded line, where it has them."""
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


class Session:
    """One DuckDB connection doing the per-batch work (the store's, or a scratch one).

    :meth:`prepare` splits a batch's blocks and runs the bulk query over them
    (nothing read from the database: ingest runs it a pass ahead, on a cursor of
    its own); :meth:`store_prepared` sends the lines whose id is new into
    ``events``; only the others (an id seen before, or a line the bulk validator
    did not accept) come back as the batch's ``rest``. :meth:`validate` stores
    nothing.

    Per-batch data lives in Arrow tables that a query sees under a name
    (``relation.query(name, sql)``), never in temp tables or registered views:
    a file is stored in one transaction, and DuckDB keeps every version of a
    temp table or view that a transaction replaced until it ends, so memory
    would grow with the file. The bulk query is a temp view, parsed once.
    """

    def __init__(self, con: Any) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        self.con = con
        self.pa = pa
        self.pc = pc
        self.rest: Any = None
        """The batch's lines that need Python (an Arrow table of bulk rows)."""
        self.skipped: Any = None
        """The batch's lines the split left out (blank, too long): ``file_id``, ``line_no``."""
        self.hits: Any = None
        """The lines :func:`audit.ingest.storing.merge` found stored before (``file_id``,
        ``line_no``, ...): not added."""
        kept = ("line_no", "file_id", "valid")
        out_cols = ", ".join(
            _q(c) for c in bulk.OUTPUT_COLUMNS if c in _EVENT_SQL_TYPES or c in kept
        )
        self.empty_lines = pa.table(
            {"line_no": pa.array([], pa.int64()), "file_id": pa.array([], pa.int64()),
             "line": pa.array([], pa.string()),
             "skip": pa.array([], pa.string()), "ty": pa.array([], pa.string()),
             "rid": pa.array([], pa.string())}
        )  # fmt: skip
        self.out_cols = out_cols
        self.columns = {c for c in bulk.OUTPUT_COLUMNS if c in _EVENT_SQL_TYPES or c in kept}
        self._views: set[str] = set()
        # The Arrow schema of the views' rows, in their column order.
        types = {"line_no": "BIGINT", "file_id": "BIGINT", "valid": "BOOLEAN", **_EVENT_SQL_TYPES}
        casts = ", ".join(f"NULL::{types[c]} AS {_q(c)}" for c in bulk.OUTPUT_COLUMNS if c in types)
        self.schema = con.sql(f"SELECT {casts}").to_arrow_table().schema

    _VIEWS: ClassVar[dict[str, str]] = {"_v_all": "skip IS NULL"}

    def _view(self, name: str) -> str:
        """The bulk query over some of ``_all_lines`` as a temp view (made once, when needed).

        The lines come sorted by type (see ``_SPLIT_SQL``) in small Arrow
        batches, which DuckDB scans in parallel without a copy.
        """
        if name not in self._views:
            cond = self._VIEWS[name]
            self.query(
                self.empty_lines,
                "_all_lines",
                f"CREATE OR REPLACE TEMP VIEW {name} AS "
                f"WITH _src AS NOT MATERIALIZED "
                f"(SELECT line_no, file_id, line, ty FROM _all_lines WHERE {cond}) "
                f"SELECT {self.out_cols} FROM ({bulk.select_sql('_src')})",
            )
            self._views.add(name)
        return name

    def query(self, table: Any, name: str, sql: str) -> list[tuple[Any, ...]]:
        """Run ``sql`` with the Arrow ``table`` visible as ``name``; all rows."""
        rows: list[tuple[Any, ...]] = self.con.from_arrow(table).query(name, sql).fetchall()
        return rows

    def arrow(self, table: Any, name: str, sql: str) -> Any:
        """Run ``sql`` with the Arrow ``table`` visible as ``name``; an Arrow table."""
        return self.con.from_arrow(table).query(name, sql).to_arrow_table()

    def _blocks_table(self, blocks: list[Block]) -> Any:
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

    def _split(self, blocks: list[Block]) -> tuple[Any, list[tuple[int, Reject]]]:
        """The blocks' numbered lines (an Arrow table), and the too-long ones by file."""
        lines = (
            self.con.from_arrow(self._blocks_table(blocks))
            .query("_blocks", _SPLIT_SQL)
            .to_arrow_table(batch_size=_LINES_PER_ARROW_BATCH)
        )
        if not self.pc.any(self.pc.equal(lines.column("skip"), "long")).as_py():
            return lines, []
        too_long = self.query(
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

    def validate(self, blocks: list[Block]) -> list[tuple[int, Reject]]:
        """Every line of the blocks through the bulk query into ``rest``; the too-long ones."""
        prepared = self.prepare(blocks)
        self.rest = self._whole(prepared.typed)
        return prepared.too_long

    def _whole(self, rows: Any) -> Any:
        """Rows of a prepared pass with every column of the bulk query (those the pass
        left out are nulls), ``valid`` false where the query said NULL."""
        pa, pc = self.pa, self.pc
        return pa.table(
            [
                pc.fill_null(rows.column(f.name), False)
                if f.name == "valid"
                else rows.column(f.name)
                if f.name in rows.column_names
                else pa.nulls(rows.num_rows, f.type)
                for f in self.schema
            ],
            schema=self.schema,
        )

    def prepare(self, blocks: list[Block]) -> Prepared:
        """The blocks split into lines and through the bulk query: nothing stored, nothing
        read from the database, so it can run ahead on a connection of its own while the
        last pass is stored (:mod:`audit.ingest.ahead`)."""
        return self.checked(self.split(blocks))

    def split(self, blocks: list[Block]) -> Split:
        """The first half of :meth:`prepare`: the blocks as numbered lines, sorted by type."""
        lines, too_long = self._split(blocks)
        return Split(blocks, lines, too_long)

    def probe_stored(self, split: Split) -> Split:
        """``split`` with :class:`StoredProbe` of its ids: the probe of every stored id, made
        ahead on the reading thread's connection (it reads every stored id; the store then
        reads only the events committed since, by their ``file_id``)."""
        con = self.con
        con.execute("BEGIN TRANSACTION")  # one snapshot for the ids and the bound
        try:
            (through,) = con.execute("SELECT COALESCE(max(file_id), 0) FROM events").fetchall()[0]
            ids = self.arrow(
                split.lines,
                "_all_lines",
                "SELECT e.id AS rid FROM events e SEMI JOIN _all_lines a ON a.rid = e.id",
            ).column("rid")
        finally:
            con.execute("ROLLBACK")  # it wrote nothing (and an interrupted one is aborted)
        return replace(split, probe=StoredProbe(ids, int(through)))

    def checked(self, split: Split) -> Prepared:
        """The second half of :meth:`prepare`: the split lines through the bulk query."""
        blocks, lines, too_long = split.blocks, split.lines, split.too_long
        # Only the columns the pass's types fill are computed and held (a pass waits
        # while the last is stored); the text is in typed's raw now, and of the lines
        # the store step needs little.
        types = self.pc.unique(lines.column("ty")).to_pylist()
        cols = ", ".join(_q(c) for c in bulk.columns_for(types) if c in self.columns)
        typed = self.arrow(lines, "_all_lines", f"SELECT {cols} FROM {self._view('_v_all')}")
        kept = lines.select(["file_id", "line_no", "skip", "rid"])
        return Prepared(blocks, kept, typed, too_long, split.probe)

    def store_prepared(self, prepared: Prepared) -> list[tuple[int, Reject]]:
        """New events of a pass through :meth:`prepare` (on any connection) straight into
        ``events``; the other lines into ``rest``.

        The pass may come from several files (each line keeps its file's id). Returns
        the too-long lines, by file. Lines the bulk validator did not accept come back
        with ``valid`` false, for :meth:`recheck`.
        """
        pc = self.pc
        lines, typed = prepared.lines, prepared.typed
        self.skipped = lines.filter(pc.is_valid(lines.column("skip"))).select(
            ["file_id", "line_no"]
        )
        # Ids that need care: seen before, or more than once in this pass. What a probe
        # ahead saw stored is not looked for again (its events are read only past it).
        probe = prepared.probe
        since = "" if probe is None else f"WHERE e.file_id > {probe.through_file_id}"
        dup_ids = self.arrow(
            lines,
            "_all_lines",
            f"""SELECT rid FROM _all_lines WHERE skip IS NULL AND rid IS NOT NULL
               GROUP BY rid HAVING count(*) > 1
               UNION
               SELECT e.id FROM events e SEMI JOIN _all_lines a ON a.rid = e.id {since}""",
        ).column("rid")
        if probe is not None and len(probe.ids):
            dup_ids = self.pa.chunked_array([*dup_ids.chunks, probe.ids.cast(dup_ids.type)])
        # A line the validator accepted has its id as the split read it (rid).
        valid = pc.fill_null(typed.column("valid"), False)
        dup = pc.fill_null(pc.is_in(typed.column("id"), value_set=dup_ids.combine_chunks()), False)
        fresh = pc.and_(valid, pc.invert(dup))
        cols = ", ".join(_q(c) for c in EVENT_COLUMNS if c in typed.column_names)
        self.query(
            typed.append_column("_fresh", fresh),
            "_typed",
            f"INSERT INTO events BY NAME SELECT {cols}, file_id, line_no, file_id AS ingest_id "
            "FROM _typed WHERE _fresh",
        )
        # The rest: the copies of ids that need care, and what the validator did not
        # accept (for parse_line, which gives the reason or accepts them after all).
        self.rest = self._whole(typed.filter(pc.invert(fresh)))
        return prepared.too_long

    def recheck(self, results: dict[int, FileResult]) -> None:
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
        # A file of garbage often repeats itself (100,000 lines of "{}"): each
        # distinct line is parsed once per batch.
        seen: dict[str, tuple[str | None, dict[str, Any]]] = {}
        for line_no, file_id, raw in zip(line_nos, file_ids, raws, strict=True):
            verdict = seen.get(raw)
            if verdict is None:
                verdict = _verdict(raw)
                if len(seen) < _SEEN_MAX:
                    seen[raw] = verdict
            reason, found = verdict
            if reason is None:
                rescued.append({"line_no": line_no, "file_id": file_id, "valid": True, **found})
            else:
                results[file_id].quarantined.append(
                    Quarantined(line_no, "LOG_MALFORMED", reason, raw[:RAW_KEEP], **found)
                )
        kept = rest.filter(pa.array(valid))
        if rescued:
            kept = pa.concat_tables([kept, pa.Table.from_pylist(rescued, schema=self.schema)])
        self.rest = kept


_SEEN_MAX = 100_000
"""Distinct lines whose verdict a batch remembers (bounded memory)."""


def _verdict(raw: str) -> tuple[str | None, dict[str, Any]]:
    """(None, its events row) for a line the models accept; else (why not, where it is).

    The line is decoded once, for the models and for locating it.
    """
    try:
        obj = decode_line(raw)
    except MalformedEventError as exc:
        return exc.reason, readable(raw) if raw.lstrip().startswith("{") else {}
    try:
        row = event_row(parse_object(obj), raw)
        _check_storable(row)
    except MalformedEventError as exc:
        return exc.reason, _located(obj)
    return None, row


def _check_storable(row: dict[str, Any]) -> None:
    """Refuse text the models accept but the database cannot hold.

    Numbers need no check here: TEL/1 v1.1 bounds them (integers at most
    2^53 - 1, amounts at most 999,999,999,999.99), and the models enforce it,
    so every accepted value fits BIGINT and DECIMAL(18,2). Text must be valid
    Unicode (no lone surrogates, which JSON escapes can spell).
    """
    for col, value in row.items():
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise MalformedEventError(
                    f"{col} is not valid Unicode (a lone surrogate)"
                ) from None


def quarantine_rejects(rejects: Iterable[Reject], result: FileResult) -> None:
    for r in rejects:
        result.quarantined.append(Quarantined(r.line_no, "LOG_MALFORMED", r.reason, r.raw))
