"""The events of many shoes as compact Arrow batches for ``run``, and its results written back.

``run`` reads every event of the shoes it audits once, in sorted scans of
parts of about a million events (:func:`scan_parts`), and hands whole shoes to
worker processes as Arrow tables (cheap to send: no
Python object per value crosses a process). The columns are the engine's
:class:`~audit.engine.event.RoundEvent`, built straight from the typed
columns (money in cents), plus ``shoe_event``: for the few events that are not
round events, their full row (the worker builds their TEL/1 model).

:func:`decode_batch` is the worker's half (pyarrow and Python only, no
DuckDB); :func:`write_results` the writer's, one transaction per batch.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from audit.engine.event import ROUND_TYPES, RoundEvent
from audit.events.models import AnyEvent
from audit.findings import Finding
from audit.store.evidence import AUDIT_ROW, FINDING_ROW, entries_of
from audit.store.ledger import chain_audits
from audit.store.rows import EVENT_COLUMNS, build_event, utc_offset
from audit.store.types import ShoeKey

if TYPE_CHECKING:
    import pyarrow as pa

    from audit.store.store import Store

ShoeEvents = list[RoundEvent | AnyEvent]

_ROUND_TYPES_SQL = ", ".join(f"'{t}'" for t in sorted(ROUND_TYPES))

_LEAN: dict[str, str] = {
    "type": "e.type",
    "id": "e.id",
    "seq": "e.seq",
    "round": "e.round",
    "ts_us": "epoch_us(e.ts)",
    "box": "e.box",
    "hand": "e.hand",
    "spot": "e.spot",
    "card": "e.card",
    "to": 'e."to"',
    "face_up": "COALESCE(e.face_up, true)",
    "pos": "e.pos",
    "amount": "CAST(e.amount * 100 AS BIGINT)",
    "word": "COALESCE(e.action, e.kind, e.reason)",
    "player": "e.player",
    "spots": "e.spots",
    "accepted": "e.accepted",
    "blackjack": "e.blackjack",
}
"""How each :class:`RoundEvent` field is read from ``events``, in its order."""
assert tuple(_LEAN) == RoundEvent._fields, "the batch columns must follow RoundEvent"

_FULL = [c for c in EVENT_COLUMNS if c not in ("ts", "raw")]

_IS_SHOE_EVENT = f"(e.type NOT IN ({_ROUND_TYPES_SQL}) OR NOT e.known_type)"


def _shoe_event(raw: str = "x.raw") -> str:
    return f"""struct_pack(
         {", ".join(f'"{c}" := e."{c}"' for c in _FULL)},
         raw := {raw})"""


_RAW_IF_EXTRA = "CASE WHEN e.has_extra THEN e.raw END"
_EXTRA_RAW = (
    "LEFT JOIN (SELECT rowid AS _row, raw FROM events WHERE has_extra) x ON x._row = e.rowid"
)
"""The line as read, for the rows with fields beyond the schema (most logs: none). As
``CASE WHEN e.has_extra THEN e.raw END`` the scan read the text of every line it
passed: half the time of a full-row scan. The ``has_extra`` filter is pushed into a
scan of its own, which the column's statistics skip where no row has one."""
_RUN_SHOES = "FROM events e SEMI JOIN _run_keys k ON e.table_id = k.table_id AND e.shoe = k.shoe"
_PAGE_SHOES = (
    "FROM events e JOIN _run_keys k ON e.table_id = k.table_id AND e.shoe = k.shoe"
    " AND e.seq <= k.upto_seq"
)
"""A page scan joins its keys (one row a shoe, so no event is repeated) rather than
semi-joining them: the test for a paged round reads the key's ``rounds`` after the
join. As ``IN (SELECT ... FROM`` a table of rounds) it was a mark join over every
row of the files scanned, before the keys cut them down: 10 of the 7.5 s of a
1,000,000-round night's first part."""
_ORDER = "ORDER BY e.table_id, e.shoe, e.seq, e.id"

BATCH_SQL = f"""
SELECT e.table_id AS _table, e.shoe AS _shoe,
       {", ".join(f"{expr} AS {name}" for name, expr in _LEAN.items())},
       CASE WHEN {_IS_SHOE_EVENT} THEN {_shoe_event(_RAW_IF_EXTRA)} END AS shoe_event
{_RUN_SHOES}
{_ORDER}
"""
"""The events of the shoes in ``_run_keys`` as one table (a Parquet source's worker reads this:
its ``events`` are an Arrow table, which has no ``rowid`` to join ``raw`` by, and whose
``raw`` is read from the file only where some row needs it)."""


_WHERE = "WHERE true"
"""Where a part's scan adds its range of files (:func:`_stream_part`)."""


def _lean_sql(in_full: str) -> str:
    return f"""
SELECT e.table_id AS _table, e.shoe AS _shoe,
       {", ".join(f"{expr} AS {name}" for name, expr in _LEAN.items())},
       {in_full} AS _full
{_RUN_SHOES}
{_WHERE}
{_ORDER}
"""


def _full_sql(in_full: str, struct: str) -> str:
    return f"""
SELECT {struct} AS shoe_event
{_RUN_SHOES}
{_WHERE} AND {in_full}
{_ORDER}
"""


LEAN_SQL = _lean_sql(_IS_SHOE_EVENT)
"""``BATCH_SQL`` without the shoe events: what ``run``'s sorted scan carries (the struct of
forty columns, null on all but about one row in seventy, made the sort ~3x heavier)."""

SHOE_EVENTS_SQL = _full_sql(_IS_SHOE_EVENT, _shoe_event("CAST(NULL AS VARCHAR)"))
"""The shoe events of ``LEAN_SQL``'s ``_full`` rows, in the same order (a second, small scan),
for a part whose files hold no line with fields beyond the schema (``raw`` is null).

No join fetches ``raw`` here (issue 33): ``_EXTRA_RAW``'s left join was planned as a hash
join built on the events' side (the ``has_extra`` rows being none, or few), a table of
every shoe event of the part with its forty columns (67 MiB for a part of ventuno's
one-round shoes, and some 20 MiB of partitions whatever the part's size), which, with
the lean scan's sort beside it, took ``run`` out of its 256MB."""

SHOE_EVENTS_EXTRA_SQL = _full_sql(_IS_SHOE_EVENT, _shoe_event(_RAW_IF_EXTRA))
"""``SHOE_EVENTS_SQL`` for a part whose files hold lines with fields beyond the schema: the
line as read for those rows. It reads the ``raw`` text of every line of the part's files
that the scan keeps (slower, only where such lines exist), and needs no hash table."""

HAS_EXTRA_SQL = "SELECT count(*) FROM events WHERE has_extra AND file_id BETWEEN ? AND ?"
"""Whether a part's files hold a line with fields beyond the schema (the column's zone maps
answer most of it)."""

_IN_PAGED_ROUND = "COALESCE(list_contains(k.rounds, e.round), false)"
_PAGE_FACT = f"(NOT {_IS_SHOE_EVENT} AND {_IN_PAGED_ROUND})"
_PAGE_EVENT = f"""struct_pack(
         {", ".join(f'"{c}" := e."{c}"' for c in _FULL)},
         raw := x.raw,
         file_id := e.file_id, line_no := e.line_no)"""

PAGE_ROWS_SQL = f"""
CREATE OR REPLACE TEMP TABLE _page_rows AS
SELECT e.rowid AS rid, row_number() OVER ({_ORDER}) AS ord, {_IS_SHOE_EVENT} AS _full,
       {_PAGE_FACT} AS _fact
{_PAGE_SHOES}
{_WHERE}
"""
"""The rows a hand-page scan reads (each shoe of ``_run_keys`` up to the last event its
pages need, ``upto_seq``), in the engine's order (``ord``); which of them come in full
(``_full``: the shoe events); and which round events come with the facts a page shows
beside the engine's step (``_fact``: those of the rounds in ``_run_keys.rounds``, with
their local time and source, :data:`PAGE_FACTS`).

The page scans then fetch their columns by ``rowid``: the paged shoes are some 3% of a
night's, in every file, so a scan joining the keys read every column of every row of
the files (40 columns for the full rows) to keep one row in thirteen; reading only the
keys' columns first took a fifth off the page feed's DuckDB time (7.8 to 6.2 CPU-s of
a 1,000,000-round night)."""

_PAGE_ROWS = "FROM _page_rows r JOIN events e ON e.rowid = r.rid"
_FACT_COLUMNS = ("ts_local", "utc_offset_min", "file_id", "line_no")
"""What a hand page shows of a paged round's event beyond its :class:`RoundEvent`: its
local time as logged (``ts`` is the instant) and where it was read."""

PAGE_LEAN_SQL = f"""
SELECT e.table_id AS _table, e.shoe AS _shoe,
       {", ".join(f"{expr} AS {name}" for name, expr in _LEAN.items())},
       r._full AS _full, r._fact AS _fact,
       {", ".join(f"CASE WHEN r._fact THEN e.{c} END AS {c}" for c in _FACT_COLUMNS)}
{_PAGE_ROWS}
ORDER BY r.ord
"""
"""``LEAN_SQL`` for hand pages: the rows of ``_page_rows``, each as ``run`` has it, and the
facts of the ``_fact`` rows. Those were full TEL/1 rows once: decoding them as models
was half of a page worker's decoding, and their forty-column scan a fifth of the feed
(8.2 to 3.7 and 11.5 to 9.4 CPU-s at 1,000,000 rounds), for four columns a page reads."""

PAGE_EVENTS_SQL = f"""
SELECT {_PAGE_EVENT} AS shoe_event
{_PAGE_ROWS}
{_EXTRA_RAW}
WHERE r._full
ORDER BY r.ord
"""
"""The full rows of ``PAGE_LEAN_SQL``'s ``_full`` rows, with where each was read."""


PART_EVENTS = 1_000_000
"""About how many events one sorted scan of :func:`stream_shoe_batches` reads.

One scan of a million-round night sorted 31M rows before its first batch came
out: the workers waited, and DuckDB spilled the sort to disk under the run's
memory limit. Parts of whole shoes, each read from the files that hold them
(the zone maps of ``file_id`` skip the rest), sort in memory one after the
other while the workers replay the last.
"""


def stream_shoe_batches(
    store: Store,
    keys: Sequence[ShoeKey],
    batch_events: int,
    *,
    pages: Mapping[ShoeKey, Paged] | None = None,
    part_events: int = PART_EVENTS,
) -> Iterator[pa.Table]:
    """The events of ``keys`` in ``seq`` order, as Arrow tables of whole shoes.

    Each table holds about ``batch_events`` events and never splits a shoe.
    The shoes are read in parts of about ``part_events`` events (one sorted
    scan each, :func:`scan_parts`), in the order their events were stored;
    within a part, by table and shoe. Reading uses cursors of its own, so
    the caller may write between batches. With ``pages``, each shoe stops at
    its ``upto_seq``; its shoe events come with the file and line each was
    read from, and the events of its paged rounds with those and their local
    time (:data:`PAGE_FACTS`; :func:`decode_page_batch` reads them).
    """
    for _, batches in stream_shoe_parts(
        store, keys, batch_events, pages=pages, part_events=part_events
    ):
        yield from batches


def stream_shoe_parts(
    store: Store,
    keys: Sequence[ShoeKey],
    batch_events: int,
    *,
    pages: Mapping[ShoeKey, Paged] | None = None,
    part_events: int = PART_EVENTS,
    whole: bool = True,
) -> Iterator[tuple[ScanPart, Iterator[pa.Table]]]:
    """:func:`stream_shoe_batches`, a part at a time: each part, then its batches.

    ``run`` reads what its workers need of a part's shoes in one query, before
    the part's first batch (a query a batch was 8% of the parent's time).
    ``whole=False``: a batch's columns may stay in the chunks the scan gave (slices
    of them), for a batch that is not pickled (:func:`_compact`).
    """
    if not keys:
        return
    for part in scan_parts(store, keys, part_events, pages):
        yield part, _stream_part(store, part, batch_events, pages, whole)


class ScanPart(NamedTuple):
    """Shoes that one sorted scan reads (by table and shoe, as it reads them), and the
    ``file_id`` range that holds all their events."""

    keys: list[ShoeKey]
    first_file: int
    last_file: int


def scan_parts(
    store: Store,
    keys: Sequence[ShoeKey],
    part_events: int,
    pages: Mapping[ShoeKey, Paged] | None = None,
) -> list[ScanPart]:
    """``keys`` (those with events) cut into parts of about ``part_events`` events, in the
    order of the first file that holds each shoe.

    The range of files is read from ``events`` itself (one aggregate over the
    shoes' rows), not from ``file_shoes``: a scan must see every row a shoe has.
    """
    # The parts hold the caller's own key objects, and the rows are read a slice at a
    # time: a key object and a row of every shoe of the night, made here and kept,
    # were ~50 MB and ~90 MB more at 1,000,000 rounds (issue 33).
    own = {k: k for k in keys}
    parts: list[ScanPart] = []
    part: list[ShoeKey] = []
    lo = hi = n = 0
    cur = store.con.cursor()
    try:
        run_keys(cur, keys, pages)
        shoes = _PAGE_SHOES if pages is not None else _RUN_SHOES
        cur.execute(
            f"""SELECT e.table_id, e.shoe, min(e.file_id), max(e.file_id), count(*)
                {shoes} GROUP BY e.table_id, e.shoe ORDER BY 3, 1, 2"""
        )
        while rows := cur.fetchmany(_SCAN_ROWS):
            for table, shoe, first, last, count in rows:
                if part and n + count > part_events:
                    parts.append(ScanPart(sorted(part), lo, hi))
                    part, n = [], 0
                if not part:
                    lo, hi = first, last
                key = ShoeKey(table, shoe)
                part.append(own.get(key, key))
                lo, hi, n = min(lo, first), max(hi, last), n + count
    finally:
        cur.close()
    if part:
        parts.append(ScanPart(sorted(part), lo, hi))
    return parts


_SCAN_ROWS = 10_000
"""Rows of :func:`scan_parts`'s query read at a time."""


def _stream_part(
    store: Store,
    part: ScanPart,
    batch_events: int,
    pages: Mapping[ShoeKey, Paged] | None,
    whole: bool = True,
) -> Iterator[pa.Table]:
    import pyarrow as pa
    import pyarrow.compute as pc

    lean_sql, full_sql = (
        (LEAN_SQL, SHOE_EVENTS_SQL) if pages is None else (PAGE_LEAN_SQL, PAGE_EVENTS_SQL)
    )
    files = f"WHERE e.file_id BETWEEN {int(part.first_file)} AND {int(part.last_file)}"
    cur = store.con.cursor()
    try:
        if pages is None:  # a page scan's range of files is in PAGE_ROWS_SQL
            extra = cur.execute(HAS_EXTRA_SQL, [part.first_file, part.last_file]).fetchall()
            if extra[0][0]:
                full_sql = SHOE_EVENTS_EXTRA_SQL
            lean_sql, full_sql = (sql.replace(_WHERE, files) for sql in (lean_sql, full_sql))
        run_keys(cur, part.keys, pages)
        rows = None
        if pages is not None:
            cur.execute(PAGE_ROWS_SQL.replace(_WHERE, files))
            rows = cur.sql("SELECT rid, ord, _full FROM _page_rows").arrow().read_all()
        extras = _ShoeEventStream(store, part.keys, full_sql, pages, rows)
        reader = cur.sql(lean_sql).to_arrow_reader(batch_size=batch_events)
        carry: pa.Table | None = None
        for rb in reader:
            if rb.num_rows == 0:
                continue
            table = pa.Table.from_batches([rb])
            if carry is not None:
                table = pa.concat_tables([carry, table])
            last_t, last_s = table["_table"][-1], table["_shoe"][-1]
            last = pc.and_(pc.equal(table["_table"], last_t), pc.equal(table["_shoe"], last_s))
            start = pc.index(last, True).as_py()
            if start > 0 and table.num_rows >= batch_events:
                yield _compact(table.slice(0, start), extras, whole)
                carry = table.slice(start)
            else:
                carry = table
        if carry is not None and carry.num_rows:
            yield _compact(carry, extras, whole)
    finally:
        cur.close()


class Paged(NamedTuple):
    """The hand pages of one shoe a scan reads for: their rounds, and the last ``seq``
    their replay needs (the scan stops there)."""

    rounds: Collection[int]
    upto_seq: int


def run_keys(
    cur: Any, keys: Sequence[ShoeKey], pages: Mapping[ShoeKey, Paged] | None = None
) -> None:
    """Fill the connection's temp table ``_run_keys`` (the shoes a scan reads) with ``keys``,
    and with ``pages`` each one's ``upto_seq`` and ``rounds`` (the rounds hand pages show)."""
    cur.execute(
        "CREATE OR REPLACE TEMP TABLE _run_keys"
        " (table_id VARCHAR, shoe VARCHAR, upto_seq BIGINT, rounds BIGINT[])"
    )
    if pages is None:
        upto: list[int | None] = [None] * len(keys)
        rounds: list[list[int] | None] = [None] * len(keys)
    else:
        upto = [pages[k].upto_seq for k in keys]
        rounds = [sorted(pages[k].rounds) for k in keys]
    cur.execute(
        "INSERT INTO _run_keys SELECT unnest(?), unnest(?), unnest(?), unnest(?)",
        [[k.table for k in keys], [k.shoe for k in keys], upto, rounds],
    )


class _ShoeEventStream:
    """``SHOE_EVENTS_SQL``'s (or ``PAGE_EVENTS_SQL``'s) rows, taken in order as the lean
    scan's batches need them.

    Both scans are sorted alike and select the same rows as shoe events, so the
    k-th ``_full`` row of the lean scan is the k-th row here.

    The rows are read whole, and the query closed, before the lean scan starts
    (issue 33). Streamed beside it, the query kept all its working state in DuckDB
    until its last row was read: on a part of ventuno's one-round shoes (88,431
    shoe events in 1,000,000) a hash table of 67 MiB (the ``raw`` join, built on the
    events' side) and a sort of 65 MiB, which left the lean scan's sort too little
    of ``run``'s 256MB to finish (out of memory on a 300,000-round night). As Arrow
    the same rows are 34 MiB, outside DuckDB's limit, and a few MiB on most parts.
    """

    def __init__(
        self,
        store: Store,
        keys: Sequence[ShoeKey],
        sql: str,
        pages: Mapping[ShoeKey, Paged] | None,
        page_rows: pa.Table | None = None,
    ) -> None:
        cur = store.con.cursor()  # a connection of its own: the caller's holds _run_keys
        try:
            if page_rows is None:
                run_keys(cur, keys, pages)
            else:  # the page scan's rows, as the other connection chose them (PAGE_ROWS_SQL)
                cur.register("_page_rows", page_rows)
            rows = cur.sql(sql).arrow().read_all()
        finally:
            cur.close()
        self._rows = rows.column(0).combine_chunks()
        self._next = 0  # the first row not yet taken

    def take(self, n: int) -> pa.Array:
        """The next ``n`` shoe events."""
        if self._next + n > len(self._rows):
            raise RuntimeError("run's two scans of the events disagree")
        taken = self._rows.slice(self._next, n)
        self._next += n
        return taken


def _compact(table: pa.Table, extras: _ShoeEventStream, whole: bool = True) -> pa.Table:
    """``table`` in buffers of its own rows only, one chunk per column, its shoe events apart.

    A slice keeps its parent's buffers, and pickling sends them whole: a batch
    made of the last batch's carried shoe and the next read went to a worker at
    twice its size, the last small batch at the size of a full one. ``whole=False``
    leaves the columns in their chunks, slices of the scan's: for a batch that is not
    pickled (an Arrow IPC file holds a slice's rows only; ``run``'s local workers get
    their batches so, :mod:`audit.batch.handoff`), the copy was 0.4 s of the parent's
    12.7 on the month (issue 33, session 9). The shoe
    events (a struct of forty columns, for about one row in seventy) travel
    as :func:`shoe_events_apart` makes them: as a column they were 60% of the
    bytes sent to a worker.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    where = pc.indices_nonzero(table["_full"])
    facts = None
    if "_fact" in table.column_names:  # a page scan's: its paged rounds' facts, apart too
        rows = pc.indices_nonzero(table["_fact"])
        facts = pa.table(
            {"row": rows, **{c: table[c].take(rows) for c in _FACT_COLUMNS}}
        ).combine_chunks()
        table = table.drop_columns(["_fact", *_FACT_COLUMNS])
    lean = table.drop_columns(["_full"])
    if whole:
        lean = own_buffers(lean)
    events = extras.take(len(where))
    if not lean["id"].take(where).combine_chunks().equals(pc.struct_field(events, "id")):
        raise RuntimeError("run's two scans of the events disagree")
    return _with_shoe_events(lean, where, events, facts)


def own_buffers(table: pa.Table) -> pa.Table:
    """``table`` in buffers of its own rows only, one chunk per column, its schema (and
    metadata) kept: a slice holds its parent's buffers, and a pickle sends them whole (a
    100-row slice of a 200,000-row table pickled at the whole table's size)."""
    import pyarrow as pa

    columns = [
        pa.concat_arrays(c.chunks) if c.num_chunks else pa.array([], c.type) for c in table.columns
    ]
    return pa.table(columns, schema=table.schema)


def one_batch_per_shoe(table: pa.Table) -> list[pa.Table]:
    """``run``'s batch cut into a batch for each of its shoes, each in buffers of its own
    with its own shoe events (their rows counted from its start): a lost batch's shoes,
    replayed one at a time, each decode and carry only themselves."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = shoe_events_apart(table)
    meta = table.schema.metadata or {}
    if PAGE_FACTS.encode() in meta:
        raise ValueError("a page batch is not cut by shoe")
    apart = pa.ipc.open_stream(meta[SHOE_EVENTS.encode()]).read_all()
    rows = apart["row"]
    lean = table.replace_schema_metadata(None)
    starts = shoe_starts(table)
    out = []
    for a, b in itertools.pairwise(starts):
        mine = apart.filter(pc.and_(pc.greater_equal(rows, a), pc.less(rows, b)))
        shifted = pc.subtract(mine["row"], pa.scalar(a, rows.type))
        out.append(_with_shoe_events(own_buffers(lean.slice(a, b - a)), shifted, mine["event"]))
    return out


SHOE_EVENTS = "shoe_events"
"""The schema metadata key of a batch whose ``shoe_event`` rows travel apart."""
PAGE_FACTS = "page_facts"
"""The schema metadata key of a page batch's facts of its paged rounds' events (row
index and :data:`_FACT_COLUMNS`), an Arrow IPC stream as the shoe events are."""


def shoe_events_apart(table: pa.Table) -> pa.Table:
    """The batch without its ``shoe_event`` column: only the rows that have one, kept aside.

    They go in the schema's metadata as an Arrow IPC stream (row index and
    event), so the batch is still one :class:`pyarrow.Table` wherever it is
    sent (a pipe, a Dask cluster); :func:`decode_batch` puts them back.
    """
    import pyarrow.compute as pc

    if "shoe_event" not in table.column_names:
        return table
    column = table["shoe_event"]
    where = pc.indices_nonzero(pc.is_valid(column))
    return _with_shoe_events(table.drop_columns(["shoe_event"]), where, column.take(where))


def _with_shoe_events(
    lean: pa.Table, rows: pa.Array, events: pa.Array, facts: pa.Table | None = None
) -> pa.Table:
    import pyarrow as pa

    meta = {SHOE_EVENTS: _ipc(pa.table({"row": rows, "event": events}))}
    if facts is not None:
        meta[PAGE_FACTS] = _ipc(facts)
    return lean.replace_schema_metadata(meta)


def _ipc(table: pa.Table) -> bytes:
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def _shoe_events(table: pa.Table) -> tuple[list[int], list[Any]]:
    """The rows of a batch that are not round events, and their full rows."""
    import pyarrow as pa

    meta = shoe_events_apart(table).schema.metadata or {}
    apart = pa.ipc.open_stream(meta[SHOE_EVENTS.encode()]).read_all()
    return apart["row"].to_pylist(), apart["event"].to_pylist()


def _page_facts(table: pa.Table) -> list[list[Any]]:
    """A page batch's facts (:data:`PAGE_FACTS`) as columns: row, then ``_FACT_COLUMNS``."""
    import pyarrow as pa

    raw = (table.schema.metadata or {}).get(PAGE_FACTS.encode())
    if raw is None:
        return [[] for _ in range(1 + len(_FACT_COLUMNS))]
    facts = pa.ipc.open_stream(raw).read_all()
    return [facts[c].to_pylist() for c in ("row", *_FACT_COLUMNS)]


def shoe_starts(table: pa.Table) -> list[int]:
    """Where each shoe of a batch begins, and its end (rows are sorted by shoe)."""
    import pyarrow.compute as pc

    n = table.num_rows
    if n == 0:
        return [0]
    t, s = table["_table"], table["_shoe"]
    changed = pc.or_(
        pc.not_equal(t.slice(1), t.slice(0, n - 1)),
        pc.not_equal(s.slice(1), s.slice(0, n - 1)),
    )
    return [0, *(i + 1 for i in pc.indices_nonzero(changed).to_pylist()), n]


def batch_keys(table: pa.Table) -> list[ShoeKey]:
    """The shoes of a batch, in order."""
    starts = shoe_starts(table)[:-1]
    first = table.select(["_table", "_shoe"]).take(starts).to_pylist()
    return [ShoeKey(r["_table"], r["_shoe"]) for r in first]


def decode_batch(table: pa.Table) -> list[tuple[ShoeKey, ShoeEvents]]:
    """A batch back as events, shoe by shoe (the worker's side: no DuckDB)."""
    keys, rows, starts, _ = _decode_rows(table)
    return [(k, rows[a:b]) for k, a, b in zip(keys, starts[:-1], starts[1:], strict=True)]


ReadAt = dict[str, tuple[int, int]]
"""Event id -> (``file_id``, line number) of where it was read: a page's sources."""


class PageShoeEvents(NamedTuple):
    """One shoe of a hand-page batch, decoded (:func:`decode_page_batch`)."""

    key: ShoeKey
    events: ShoeEvents
    """Lean (:class:`RoundEvent`) but for the shoe events, which come as their models."""
    read_at: ReadAt
    """Where each shoe event and each paged round's event was read."""
    logged_at: dict[str, dt.datetime]
    """Each paged round's event's ``ts`` as logged, with its UTC offset (a
    :class:`RoundEvent` has the instant only)."""


def decode_page_batch(table: pa.Table) -> list[PageShoeEvents]:
    """A hand-page batch (``stream_shoe_batches(..., pages=...)``) back as events, shoe by
    shoe, with where each shoe event and paged round's event was read, and the paged
    rounds' events' local times."""
    keys, rows, starts, read_at = _decode_rows(table)
    logged_at: list[dict[str, dt.datetime]] = [{} for _ in keys]
    shoe = 0
    for i, ts, offset, file_id, line_no in zip(*_page_facts(table), strict=True):
        while i >= starts[shoe + 1]:
            shoe += 1
        event_id = rows[i].id
        read_at[shoe][event_id] = (file_id, line_no)
        logged_at[shoe][event_id] = ts.replace(tzinfo=utc_offset(offset))
    return [
        PageShoeEvents(k, rows[a:b], at, logged)
        for k, a, b, at, logged in zip(
            keys, starts[:-1], starts[1:], read_at, logged_at, strict=True
        )
    ]


_round_event = partial(tuple.__new__, RoundEvent)
"""A row's values as a :class:`RoundEvent`: what ``RoundEvent._make`` does, without its
Python frame (a million calls a page batch stream)."""


_SPOTS = RoundEvent._fields.index("spots")


def _spots_tuples(spots: pa.ChunkedArray, column: list[Any]) -> list[Any]:
    """``spots`` as :class:`RoundEvent` declares it: a tuple (Arrow gives a list) or None.

    The compiled engine checks a field's declared type where it reads it: a list
    there raised ``TypeError`` for every explicit ``spots`` (issue 28). Nearly every
    row has none, so only the rows that do are rebuilt (found by Arrow, not a loop).
    """
    if spots.null_count == len(spots):
        return column
    import pyarrow.compute as pc

    for i in pc.indices_nonzero(pc.is_valid(spots)).to_pylist():
        column[i] = tuple(column[i])
    return column


def _decode_rows(
    table: pa.Table,
) -> tuple[list[ShoeKey], list[Any], list[int], list[ReadAt]]:
    """A batch's shoes, its events in one list, where each shoe starts in it (and its end),
    and where each shoe's full rows were read (where a page scan carried it)."""
    if table.num_rows == 0:
        return [], [], [0], []
    starts = shoe_starts(table)
    lean = [table[name].to_pylist() for name in _LEAN]
    lean[_SPOTS] = _spots_tuples(table.column("spots"), lean[_SPOTS])
    rows: list[Any] = list(map(_round_event, zip(*lean, strict=True)))
    read_at: list[ReadAt] = [{} for _ in starts[:-1]]
    shoe = 0
    for i, full in zip(*_shoe_events(table), strict=True):
        rows[i] = build_event(full)
        if "line_no" in full:
            while i >= starts[shoe + 1]:
                shoe += 1
            read_at[shoe][full["id"]] = (full["file_id"], full["line_no"])
    return batch_keys(table), rows, starts, read_at


def _outcome_schemas() -> tuple[pa.Schema, pa.Schema]:
    import pyarrow as pa

    i64, i32, txt, flag = pa.int64(), pa.int32(), pa.string(), pa.bool_()
    rounds = pa.schema(
        [
            ("table_id", txt), ("shoe", txt), ("round", i64), ("status", txt), ("dealer", txt),
            ("opened_us", i64), ("first_seq", i64), ("last_seq", i64), ("boxes", i32),
            ("wagers", i32), ("handle", i64), ("due", i64), ("settled", i64),
            ("dealer_upcard", txt), ("dealer_cards", pa.list_(txt)), ("dealer_total", i32),
            ("dealer_natural", flag), ("dealer_bust", flag), ("dealer_completed", flag),
            ("ranks_before_round", pa.list_(i64)), ("unseen_before_round", i64),
            ("ranks_before_dealer", pa.list_(i64)), ("unseen_before_dealer", i64),
            ("findings", i32), ("worst_severity", txt), ("impact", i64),
        ]
    )  # fmt: skip
    wagers = pa.schema(
        [
            ("table_id", txt), ("shoe", txt), ("round", i64), ("box", i64), ("hand", i64),
            ("spot", i64), ("kind", txt), ("player", txt), ("stake", i64), ("base_stake", i64),
            ("due", i64), ("settled", i64), ("settles", i32), ("verdict", txt),
            ("outcome", txt), ("cards", pa.list_(txt)), ("total", i32), ("natural", flag),
            ("bust", flag), ("doubled", flag), ("from_split", flag), ("surrendered", flag),
            ("line", txt), ("ratio", txt),
        ]
    )  # fmt: skip
    return rounds, wagers


_MONEY = frozenset({"handle", "due", "settled", "impact", "stake", "base_stake"})
"""Money columns (cents, or hundredths of a cent): int64 unless a value passes it."""


def money_array(values: Sequence[Any]) -> pa.Array:
    """Amounts in cents (or hundredths) as int64, or as DECIMAL(38,0) when one passes int64.

    TEL/1 v1.1 bounds each amount by 10^12, not their sums: a round of 10,000
    boxes, or a due in hundredths of a cent, can pass 2^63 (issue 14, point 3).
    """
    import pyarrow as pa

    try:
        return pa.array(values, pa.int64())
    except OverflowError:
        return pa.array(values, pa.decimal128(38, 0))


def outcome_tables(
    rounds: Sequence[tuple[Any, ...]], wagers: Sequence[tuple[Any, ...]]
) -> tuple[pa.Table, pa.Table]:
    """The engine's outcome rows (:mod:`audit.engine.outcome`) as Arrow tables to insert."""
    import pyarrow as pa

    out = []
    for rows, schema in zip((rounds, wagers), _outcome_schemas(), strict=True):
        columns = list(zip(*rows, strict=True)) if rows else [()] * len(schema)
        out.append(
            pa.table(
                [
                    money_array(c) if f.name in _MONEY else pa.array(c, type=f.type)
                    for c, f in zip(columns, schema, strict=True)
                ],
                names=schema.names,
            )
        )
    return out[0], out[1]


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One shoe's audit: what it was audited with, and its findings (ids assigned)."""

    key: ShoeKey
    engine_version: str
    profile_id: str | None
    profile_digest: str | None
    events_digest: str
    rounds: int
    wagers: int
    handle_cents: int
    findings: Sequence[Finding]
    prefix_ranks: Sequence[int] | None = None
    """The ranks seen in the shoe's prefix (:class:`audit.engine.ShoeOutcome`); None: not
    computed (stored NULL: the statistics compute it from the events)."""
    context: tuple[bool, str | None, int] | None = None
    """The cross-shoe context the shoe was replayed with (``ShoeContext``'s fields:
    first shoe of its gaming day, banker, banker's rounds before): a page replays it so."""


def audited_contexts(
    con: Any, keys: Sequence[ShoeKey]
) -> dict[ShoeKey, tuple[bool, str | None, int]]:
    """The cross-shoe context each of ``keys`` was last audited with (:attr:`AuditRecord.context`),
    for the shoes whose ``shoe_audits`` row has one (schema 7 on)."""
    rows = con.execute(
        """SELECT table_id, shoe, context_first_shoe, context_banker, context_banker_rounds
           FROM shoe_audits
           WHERE context_first_shoe IS NOT NULL
             AND (table_id, shoe) IN (SELECT unnest(?), unnest(?))""",
        [[k.table for k in keys], [k.shoe for k in keys]],
    ).fetchall()
    return {ShoeKey(t, s): (bool(f), b, int(n)) for t, s, f, b, n in rows}


def _delete_results(con: Any, keys: Sequence[ShoeKey]) -> None:
    """Delete the replay results of ``keys`` (inside the caller's transaction)."""
    if not keys:
        return
    con.execute("CREATE OR REPLACE TEMP TABLE _clear (table_id VARCHAR, shoe VARCHAR)")
    con.execute(
        "INSERT INTO _clear SELECT unnest(?), unnest(?)",
        [[k.table for k in keys], [k.shoe for k in keys]],
    )
    for table, extra in (
        ("findings", "origin = 'replay' AND "),
        ("rounds", ""),
        ("wagers", ""),
        ("shoe_audits", ""),
    ):
        con.execute(
            f"DELETE FROM {table} WHERE {extra}(table_id, shoe) IN "
            "(SELECT table_id, shoe FROM _clear)"
        )


def audited_keys(store: Store, keys: Sequence[ShoeKey]) -> set[ShoeKey]:
    """The shoes of ``keys`` that hold an earlier audit's results (a ``shoe_audits`` row)."""
    if not keys:
        return set()
    rows = store.con.execute(
        """SELECT table_id, shoe FROM shoe_audits
           WHERE (table_id, shoe) IN (SELECT unnest(?), unnest(?))""",
        [[k.table for k in keys], [k.shoe for k in keys]],
    ).fetchall()
    found = {ShoeKey(t, s) for t, s in rows}
    # the caller's own key objects, not one more of each audited shoe (issue 33)
    return {k for k in keys if k in found}


@dataclass(frozen=True, slots=True)
class ShoeFailure:
    """A shoe whose replay failed: the error, in one line (cli.md ``run``, exit 6)."""

    key: ShoeKey
    error: str


def failed_shoes(con: Any) -> list[tuple[ShoeFailure, dt.datetime, dt.datetime | None]]:
    """Each shoe whose last replay failed, when, and when its kept earlier audit was made
    (None: it has none), by table and shoe."""
    rows = con.execute(
        """SELECT f.table_id, f.shoe, f.error, f.failed_at, a.audited_at
           FROM shoe_failures f LEFT JOIN shoe_audits a USING (table_id, shoe)
           ORDER BY f.table_id, f.shoe"""
    ).fetchall()
    return [(ShoeFailure(ShoeKey(t, s), e), at, kept) for t, s, e, at, kept in rows]


def _record_failures(
    con: Any, audited: Sequence[ShoeKey], failed: Sequence[ShoeFailure], at: dt.datetime
) -> None:
    """A shoe audited now is no longer failed; a shoe that failed now is recorded so."""
    keys = [*audited, *(f.key for f in failed)]
    if not keys:
        return
    # Most runs fail no shoe: the keys as parameters (two lists of strings) cost more than
    # the delete (9 ms a batch on the month, 16 ms at 1,000,000 rounds).
    if con.execute("SELECT EXISTS (SELECT 1 FROM shoe_failures)").fetchall()[0][0]:
        con.execute(
            "DELETE FROM shoe_failures WHERE (table_id, shoe) IN (SELECT unnest(?), unnest(?))",
            [[k.table for k in keys], [k.shoe for k in keys]],
        )
    if failed:
        from audit.engine import ENGINE_VERSION

        con.execute(
            """INSERT INTO shoe_failures
               SELECT unnest(?), unnest(?), unnest(?), ?, ?""",
            [
                [f.key.table for f in failed],
                [f.key.shoe for f in failed],
                [f.error for f in failed],
                at,
                ENGINE_VERSION,
            ],
        )


# Cents to money as DECIMAL(38,0) * 0.01: exact (in DuckDB a DECIMAL divided by 100 is a
# DOUBLE, which loses cents past 2^53), and wide enough for sums of TEL/1 v1.1 amounts.
_ROUND_INSERT = """
INSERT INTO rounds
SELECT r.table_id, r.shoe, r.round, s.gaming_day, s.profile, r.status, r.dealer,
       make_timestamptz(r.opened_us), r.first_seq, r.last_seq, r.boxes, r.wagers,
       CAST(r.handle AS DECIMAL(38,0)) * 0.01, CAST(r.due AS DECIMAL(38,0)) * 0.0001,
       CAST(r.settled AS DECIMAL(38,0)) * 0.01, r.dealer_upcard, r.dealer_cards, r.dealer_total,
       r.dealer_natural, r.dealer_bust, r.dealer_completed, r.ranks_before_round,
       r.unseen_before_round, r.ranks_before_dealer, r.unseen_before_dealer, r.findings,
       r.worst_severity, CAST(r.impact AS DECIMAL(38,0)) * 0.0001
FROM _new_rounds r LEFT JOIN shoes s USING (table_id, shoe)
"""

_WAGER_INSERT = """
INSERT INTO wagers
SELECT w.table_id, w.shoe, w.round, w.box, w.hand, w.spot, w.kind, s.gaming_day, w.player,
       CAST(w.stake AS DECIMAL(38,0)) * 0.01, CAST(w.base_stake AS DECIMAL(38,0)) * 0.01,
       CAST(w.due AS DECIMAL(38,0)) * 0.0001, CAST(w.settled AS DECIMAL(38,0)) * 0.01,
       w.settles, w.verdict, w.outcome, w.cards, w.total, w."natural", w.bust, w.doubled,
       w.from_split, w.surrendered, w.line, w.ratio
FROM _new_wagers w LEFT JOIN shoes s USING (table_id, shoe)
"""


def write_results(
    store: Store,
    audits: Sequence[AuditRecord],
    rounds: pa.Table,
    wagers: pa.Table,
    *,
    failed: Sequence[ShoeFailure] = (),
    replaced: Collection[ShoeKey] | None = None,
) -> None:
    """Store one batch of audited shoes in one transaction: findings, outcomes, audit records.

    The shoes' earlier results are replaced inside the same transaction (issue 28,
    point 7): a run stopped part-way, by Ctrl-C, a full disk or a refused source,
    leaves each shoe either re-audited or exactly as it was. ``replaced`` names the
    shoes that may hold earlier results (None: any of them; a first run's shoes hold
    none, and their delete would scan the outcome tables for nothing). ``failed``:
    the batch's shoes whose replay failed: recorded as such (``shoe_failures``), each
    keeping its earlier results; a shoe audited now is no longer failed. A shoe is
    audited exactly when its ``shoe_audits`` row is there. Every insert is one
    statement over an Arrow table (DuckDB's ``executemany`` costs about 20 ms a row).
    """
    import pyarrow as pa

    now = dt.datetime.now(dt.UTC)
    findings = pa.table(
        {
            "code": [str(f.code) for a in audits for f in a.findings],
            "severity": [str(f.severity) for a in audits for f in a.findings],
            "table_id": [f.table for a in audits for f in a.findings],
            "shoe": [f.shoe for a in audits for f in a.findings],
            "round": pa.array([f.round for a in audits for f in a.findings], pa.int64()),
            "box": pa.array([f.box for a in audits for f in a.findings], pa.int64()),
            "hand": pa.array([f.hand for a in audits for f in a.findings], pa.int64()),
            "spot": pa.array([f.spot for a in audits for f in a.findings], pa.int64()),
            "expected": pa.array([f.expected for a in audits for f in a.findings], pa.string()),
            "actual": pa.array([f.actual for a in audits for f in a.findings], pa.string()),
            "impact": pa.array(
                [None if f.impact is None else str(f.impact) for a in audits for f in a.findings],
                pa.string(),
            ),
            "rule": pa.array([f.rule for a in audits for f in a.findings], pa.string()),
            "events": pa.array(
                [list(f.events) for a in audits for f in a.findings], pa.list_(pa.string())
            ),
            "source": pa.array([f.source for a in audits for f in a.findings], pa.string()),
            "message": [f.message for a in audits for f in a.findings],
            "ordinal": pa.array([i for a in audits for i in range(len(a.findings))], pa.int64()),
            "id": pa.array([f.id for a in audits for f in a.findings], pa.string()),
        }
    )
    shoe_audits = pa.table(
        {
            "table_id": [a.key.table for a in audits],
            "shoe": [a.key.shoe for a in audits],
            "engine_version": [a.engine_version for a in audits],
            "profile_id": pa.array([a.profile_id for a in audits], pa.string()),
            "profile_digest": pa.array([a.profile_digest for a in audits], pa.string()),
            "events_digest": [a.events_digest for a in audits],
            "rounds": pa.array([a.rounds for a in audits], pa.int64()),
            "wagers": pa.array([a.wagers for a in audits], pa.int64()),
            "handle": money_array([a.handle_cents for a in audits]),
            "prefix_ranks": pa.array(
                [None if a.prefix_ranks is None else list(a.prefix_ranks) for a in audits],
                pa.list_(pa.int64()),
            ),
            "context_first_shoe": pa.array(
                [None if a.context is None else a.context[0] for a in audits], pa.bool_()
            ),
            "context_banker": pa.array(
                [None if a.context is None else a.context[1] for a in audits], pa.string()
            ),
            "context_banker_rounds": pa.array(
                [None if a.context is None else a.context[2] for a in audits], pa.int64()
            ),
        }
    )
    returned: dict[str, list[Any]] = {"_new_findings": [], "_new_audits": []}
    keys = [a.key for a in audits]
    with store.transaction() as con:
        _delete_results(con, [k for k in keys if replaced is None or k in replaced])
        _record_failures(con, keys, failed, now)
        for name, table, sql in (
            ("_new_findings", findings, _FINDING_INSERT),
            ("_new_rounds", rounds, _ROUND_INSERT),
            ("_new_wagers", wagers, _WAGER_INSERT),
            ("_new_audits", shoe_audits, _AUDIT_INSERT),
        ):
            if table.num_rows == 0:
                continue
            con.register(name, table)
            try:
                con.execute(sql, [now] if name == "_new_audits" else [])
                if name in returned:
                    returned[name] = con.fetchall()
            except BaseException:
                # The transaction is aborted: DuckDB's unregister would fail too, and
                # its "Current transaction is aborted" hide what really went wrong.
                with suppress(Exception):
                    con.unregister(name)
                raise
            con.unregister(name)
        if audits:
            # Tamper evidence (audit.store.ledger), of the rows as stored: the inserts
            # return them, so they are not read back (half the cost of the record).
            entries = entries_of(returned["_new_audits"], returned["_new_findings"])
            chain_audits(store, [a.key for a in audits], now, entries)


_FINDING_INSERT = f"""
INSERT INTO findings (code, severity, table_id, shoe, round, box, hand, spot, expected, actual,
                      impact, rule, events, source, message, gaming_day, ordinal, id, origin)
SELECT f.code, f.severity, f.table_id, f.shoe, f.round, f.box, f.hand, f.spot, f.expected,
       f.actual, CAST(f.impact AS DECIMAL(38,4)), f.rule, f.events, f.source, f.message,
       s.gaming_day, f.ordinal, f.id, 'replay'
FROM _new_findings f LEFT JOIN shoes s USING (table_id, shoe)
RETURNING {FINDING_ROW}
"""

_AUDIT_INSERT = f"""
INSERT INTO shoe_audits (table_id, shoe, engine_version, profile_id, profile_digest,
                         events_digest, audited_at, rounds, wagers, handle, prefix_ranks,
                         context_first_shoe, context_banker, context_banker_rounds)
SELECT table_id, shoe, engine_version, profile_id, profile_digest, events_digest, ?,
       rounds, wagers, CAST(handle AS DECIMAL(38,0)) * 0.01, prefix_ranks,
       context_first_shoe, context_banker, context_banker_rounds
FROM _new_audits
RETURNING {AUDIT_ROW}
"""
