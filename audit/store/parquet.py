"""The events as Parquet, for workers that read their own shoes (issue 13 point 2; cli.md `export`).

``shoe-audit export --parquet DIR`` writes every stored event into a Hive
layout, one folder per gaming day and table (a shoe's events in its shoe's
gaming day; a table's books, TEL/1 v1.2, in their own: :func:`_book_day_sql`)
(``DIR/gaming_day=2026-11-28/table=T07/data_0.parquet``; DuckDB percent-encodes
a table id that is not safe in a path), each row the ``events`` row as stored.
DuckDB stays the store of record: the export is a copy that ``run --cluster
ADDRESS --source DIR`` hands out by file name, so the coordinator ships no
events; each worker reads its partitions itself (:func:`read_source_batch`).

What makes that safe is the table ``parquet_files`` (schema 5): one record per
file with its SHA-256 and size, and, per partition, the digest of its shoes'
``events_digest`` when it was written. The coordinator refuses a partition
whose shoes changed since (a stale export); a worker hashes the bytes it is
about to parse and refuses a file that is not the recorded one, then checks
each shoe's ``events_digest`` again over what it read.

Writing is incremental and leaves no half-written file: the partitions whose
shoes changed are written into a staging folder inside ``DIR``, hashed,
renamed into place file by file, then recorded in one transaction; files of
partitions that are gone are removed last. A marker file (:data:`MARKER`)
lists every file of the export, so only our own files are ever replaced or
deleted, and a folder that is not empty and has no marker is refused.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import SourceError, UsageError
from audit.store.batches import BATCH_SQL, run_keys
from audit.store.books import BOOK_TYPES
from audit.store.store import DEFAULT_DAY_START, EVENTS_DIGEST_SQL, day_start_minutes
from audit.store.types import ShoeKey
from audit.targets import check_target, file_inside

if TYPE_CHECKING:
    import pyarrow as pa

    from audit.store.store import Store

MARKER = ".shoe-audit-export"
"""JSON at the top of an export folder: ``{"tool": "shoe-audit", "export": id, "files": [...]}``."""
EXPORT_ID_META = "parquet_export_id"
"""The ``meta`` key naming the export the ``parquet_files`` records describe."""

Part = tuple[dt.date, str]
"""A partition: the shoe's gaming day and the table."""


@dataclass(frozen=True, slots=True)
class PartFile:
    """One Parquet file of an export, as recorded: where it is under the folder, and its hash."""

    path: str
    """Relative to the export folder, ``/``-separated."""
    sha256: str
    size_bytes: int


@dataclass(frozen=True, slots=True)
class Partition:
    """A recorded partition: its files and the digest of its shoes when they were written."""

    files: tuple[PartFile, ...]
    shoes_digest: str


@dataclass(slots=True)
class ExportSummary:
    """What one ``export --parquet`` did."""

    out: Path
    partitions: int = 0
    written: int = 0
    unchanged: int = 0
    removed: int = 0
    files: int = 0
    events: int = 0
    """Events in the partitions written this time."""
    bytes: int = 0
    """Size of the whole export."""


_SHOE_DIGESTS = """
SELECT gaming_day, table_id,
       sha256(string_agg(shoe || chr(31) || events_digest, chr(30) ORDER BY shoe)) AS digest,
       sum(events) AS events
FROM shoes GROUP BY gaming_day, table_id
"""


def _book_day_sql(start_minutes: int) -> str:
    """A book event's gaming day (accounting.md "Command line"): a count's or an adjustment's
    own ``gaming_day``; any other's, its table-local time less the store's day start, as the
    day cuts compute it (:mod:`audit.store.store`)."""
    return f"""COALESCE(CASE WHEN e.type IN ('drop_count', 'adjustment') THEN e.gaming_day END,
                CAST(e.ts_local - to_minutes({start_minutes}) AS DATE))"""


_BOOK_TYPES_SQL = ", ".join(f"'{t}'" for t in BOOK_TYPES)
_BOOK_EVENTS = f"e.shoe IS NULL AND e.type IN ({_BOOK_TYPES_SQL})"
"""A table's books (TEL/1 v1.2): the events of the book types that belong to no shoe."""

_PARTITION_DIGESTS = """
WITH s AS ({shoes}),
b AS (
  SELECT {day} AS gaming_day, e.table_id,
         count(*) || ':' || sum(hash(e.id, e.seq, e.raw)::HUGEINT) AS digest, count(*) AS events
  FROM events e WHERE {books} GROUP BY ALL
)
SELECT gaming_day, table_id,
       CASE WHEN b.digest IS NULL THEN s.digest
            ELSE sha256(COALESCE(s.digest, '') || chr(29) || 'books' || chr(31) || b.digest) END,
       COALESCE(s.events, 0) + COALESCE(b.events, 0)
FROM s FULL JOIN b USING (gaming_day, table_id)
"""
"""A partition's digest: its shoes' (exactly as before v1.2, so the export of a log without
books is unchanged), and, where it has book events, theirs folded in: count, ids, ``seq``
and the lines as read, so a book event added, removed or replaced makes the partition stale."""

_EXPORT_SQL = """
COPY (
  SELECT * FROM (
    SELECT s.gaming_day, e.table_id AS "table", e.* RENAME (gaming_day AS event_gaming_day)
    FROM events e JOIN shoes s USING (table_id, shoe)
    SEMI JOIN _export_parts p ON p.gaming_day = s.gaming_day AND p.table_id = e.table_id
    UNION ALL
    SELECT b.* FROM (
      SELECT {day} AS gaming_day, e.table_id AS "table",
             e.* RENAME (gaming_day AS event_gaming_day)
      FROM events e WHERE {books}
    ) b SEMI JOIN _export_parts p ON p.gaming_day = b.gaming_day AND p.table_id = b."table"
  ) e
  ORDER BY e.table_id, e.shoe NULLS LAST, e.seq, e.id
) TO '{folder}' (FORMAT PARQUET, PARTITION_BY (gaming_day, "table"), COMPRESSION zstd)
"""
"""Partition columns are not written into the files (DuckDB's default): the folders carry
them, and ``table_id`` is in every row anyway. The shoes' events, in their shoe's partition,
then the table's books (TEL/1 v1.2, no shoe) in the partition of their own gaming day
(:func:`_book_day_sql`): the export is the replay's input and the books' copy. An event's
own ``gaming_day`` column (a count's or an adjustment's) is written as ``event_gaming_day``,
apart from the partition's."""


def partition_digests(store: Store) -> dict[Part, tuple[str, int]]:
    """Each partition's digest of its shoes' ``events_digest`` and its book events now, and
    its events."""
    sql = _PARTITION_DIGESTS.format(
        shoes=_SHOE_DIGESTS, day=_book_day_sql(_day_start(store)), books=_BOOK_EVENTS
    )
    rows = store.con.execute(sql).fetchall()
    return {(day, table): (digest, int(n)) for day, table, digest, n in rows}


def _day_start(store: Store) -> int:
    """The day start, in minutes, the store's gaming days were cut with."""
    return day_start_minutes(store.meta("day_start") or DEFAULT_DAY_START)


def recorded_partitions(store: Store) -> dict[Part, Partition]:
    """The partitions of the last export, as ``parquet_files`` records them."""
    rows = store.con.execute(
        """SELECT gaming_day, table_id, shoes_digest, path, sha256, size_bytes
           FROM parquet_files ORDER BY gaming_day, table_id, path"""
    ).fetchall()
    files: dict[Part, list[PartFile]] = {}
    digests: dict[Part, str] = {}
    for day, table, digest, path, sha, size in rows:
        files.setdefault((day, table), []).append(PartFile(path, sha, size))
        digests[(day, table)] = digest
    return {p: Partition(tuple(fs), digests[p]) for p, fs in files.items()}


def read_marker(folder: Path) -> dict[str, Any] | None:
    """The marker of an export folder, or None when it has none (or it is not ours)."""
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("tool") == "shoe-audit" else None


def _write_marker(folder: Path, export_id: str, files: Sequence[str]) -> None:
    tmp = folder / f"{MARKER}.tmp"
    text = json.dumps({"tool": "shoe-audit", "export": export_id, "files": sorted(files)})
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, folder / MARKER)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def export_parquet(store: Store, out: Path, *, full: bool = False) -> ExportSummary:
    """Bring the Parquet export in ``out`` up to date with the database (see the module doc).

    Only partitions whose shoes changed since the last export into the same
    folder are written (all of them into a new folder, or with ``full``).
    Raises :class:`UsageError` when ``out`` is a file, a symbolic link, or a folder
    that is not empty and is not an export (:func:`audit.targets.check_target`).
    """
    out = out.absolute()
    check_target(out, "--parquet", "folder")
    marker = read_marker(out) if out.is_dir() else None
    if out.is_dir() and marker is None and any(out.iterdir()):
        raise UsageError(
            f"--parquet {str(out)!r} is not empty and is not a shoe-audit export: "
            "not ours to replace (choose an empty or new folder)"
        )
    current = partition_digests(store)
    recorded = recorded_partitions(store)
    last_id = store.meta(EXPORT_ID_META)
    if not full and last_id is not None and marker is not None and marker.get("export") == last_id:
        export_id = last_id  # the same folder as last time: write what changed
    else:
        export_id, recorded = secrets.token_hex(8), {}
    keep = {
        p: rec
        for p, rec in recorded.items()
        if p in current and rec.shoes_digest == current[p][0] and _present(out, rec.files)
    }
    to_write = sorted(p for p in current if p not in keep)
    summary = ExportSummary(out, partitions=len(current), written=len(to_write))
    summary.unchanged = len(keep)
    summary.removed = len([p for p in recorded if p not in current])
    old_files = set(marker.get("files", [])) if marker else set()

    out.mkdir(parents=True, exist_ok=True)
    staging = out / f".staging-{secrets.token_hex(4)}"
    staging.mkdir()
    try:
        new = _write_partitions(store, staging, to_write, current)
        summary.events = sum(current[p][1] for p in to_write)
        final = {f.path for rec in keep.values() for f in rec.files} | {f.path for _, f, _ in new}
        # The marker names every file that may be ours before any is moved in, so an
        # interrupted export leaves nothing that a later one would not clean up.
        _write_marker(out, export_id, sorted(old_files | final))
        for _, f, _ in new:
            target = out / f.path
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / f.path, target)
        _record(store, export_id, keep, new, current)
        for rel in sorted(old_files - final):
            gone = file_inside(out, rel)  # a marker is editable: never a name outside
            if gone is not None:
                gone.unlink(missing_ok=True)
                _prune(out, gone.parent)
        _write_marker(out, export_id, sorted(final))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    summary.files = len(final)
    summary.bytes = sum((out / rel).stat().st_size for rel in final)
    return summary


def _present(out: Path, files: Sequence[PartFile]) -> bool:
    """Whether every recorded file is there with its recorded size (hashing is the workers')."""
    for f in files:
        try:
            if (out / f.path).stat().st_size != f.size_bytes:
                return False
        except OSError:
            return False
    return True


def _write_partitions(
    store: Store, staging: Path, parts: Sequence[Part], current: dict[Part, tuple[str, int]]
) -> list[tuple[Part, PartFile, int]]:
    """Write ``parts`` under ``staging``; each new file with its partition and row count."""
    import pyarrow.parquet as pq

    if not parts:
        return []
    cur = store.con.cursor()
    try:
        cur.execute(
            "CREATE OR REPLACE TEMP TABLE _export_parts (gaming_day DATE, table_id VARCHAR)"
        )
        cur.execute(
            "INSERT INTO _export_parts SELECT unnest(?), unnest(?)",
            [[d for d, _ in parts], [t for _, t in parts]],
        )
        target = str(staging / "parts").replace("'", "''")
        sql = _EXPORT_SQL.format(
            folder=target, day=_book_day_sql(_day_start(store)), books=_BOOK_EVENTS
        )
        cur.execute(sql)
    finally:
        cur.close()
    out: list[tuple[Part, PartFile, int]] = []
    root = staging / "parts"
    for path in sorted(root.rglob("*.parquet")):
        rel = path.relative_to(root).as_posix()
        day = dt.date.fromisoformat(rel.split("/")[0].removeprefix("gaming_day="))
        tables = set(pq.read_table(path, columns=["table_id"]).column(0).unique().to_pylist())
        if len(tables) != 1:
            raise RuntimeError(f"{rel}: a partition file holds tables {sorted(tables)}")
        part = (day, tables.pop())
        if part not in current:
            raise RuntimeError(f"{rel}: written for a partition the database does not have")
        dest = staging / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, dest)
        meta = pq.read_metadata(dest)
        out.append((part, PartFile(rel, file_sha256(dest), dest.stat().st_size), meta.num_rows))
    return out


def _record(
    store: Store,
    export_id: str,
    keep: dict[Part, Partition],
    new: Sequence[tuple[Part, PartFile, int]],
    current: dict[Part, tuple[str, int]],
) -> None:
    """Replace the ``parquet_files`` records with this export's, in one transaction."""
    now = dt.datetime.now(dt.UTC)
    kept = [f.path for rec in keep.values() for f in rec.files]
    rows = [
        (f.path, day, table, f.sha256, f.size_bytes, n, current[(day, table)][0], export_id, now)
        for (day, table), f, n in new
    ]
    with store.transaction() as con:
        con.execute(
            "DELETE FROM parquet_files WHERE NOT list_contains(CAST(? AS VARCHAR[]), path)", [kept]
        )
        con.execute("UPDATE parquet_files SET export_id = ?", [export_id])
        if rows:
            con.executemany("INSERT INTO parquet_files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        con.execute(
            "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [EXPORT_ID_META, export_id],
        )


def _prune(root: Path, folder: Path) -> None:
    """Remove ``folder`` and its parents up to ``root`` while they are empty."""
    while folder != root and folder.is_relative_to(root):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


# --------------------------------------------------------------------------- the worker's side


def _read_bytes(root: str, rel: str) -> tuple[str, bytes]:
    """The bytes of ``rel`` under ``root``: a local folder, or a URL fsspec knows."""
    if "://" in root:
        import fsspec

        url = f"{root.rstrip('/')}/{rel}"
        try:
            with fsspec.open(url, "rb") as fh:
                return url, bytes(fh.read())
        except (OSError, ValueError) as exc:
            raise SourceError(f"{url}: cannot be read ({exc})") from None
    path = Path(root) / rel
    try:
        return str(path), path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def read_source_batch(
    root: str, files: Sequence[PartFile], shoes: Sequence[tuple[ShoeKey, str]]
) -> pa.Table:
    """The batch of ``shoes`` (key, ``events_digest``), read from an export's ``files``.

    Each file is hashed before it is parsed, and the very bytes hashed are the
    ones parsed, so a file edited after the export cannot slip in. The result
    has the columns of :func:`audit.store.batches.stream_shoe_batches` (the
    same SQL makes it, over the files instead of the ``events`` table), so the
    replay that follows is the one a local run does. Runs in a worker: an
    in-memory DuckDB, no database file.
    """
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not files:
        raise SourceError(f"a batch of {len(shoes)} shoes was given no file of the export {root}")
    tables = []
    for f in files:
        where, data = _read_bytes(root, f.path)
        digest = hashlib.sha256(data).hexdigest()
        if len(data) != f.size_bytes or digest != f.sha256:
            raise SourceError(
                f"{where}: SHA-256 {digest[:16]} ({len(data):,} bytes) is not the "
                f"{f.sha256[:16]} ({f.size_bytes:,} bytes) the export recorded: the file "
                "changed after `shoe-audit export`; export again"
            )
        tables.append(_events_table(pq.ParquetFile(pa.BufferReader(data))))
    con = duckdb.connect(config={"threads": 1})
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.register("events", pa.concat_tables(tables))
        run_keys(con, [k for k, _ in shoes])
        found = dict(
            ((t, s), d)
            for t, s, d in con.execute(
                f"""SELECT table_id, shoe, {EVENTS_DIGEST_SQL} FROM events
                    SEMI JOIN _run_keys USING (table_id, shoe) GROUP BY table_id, shoe"""
            ).fetchall()
        )
        for key, expected in shoes:
            if found.get((key.table, key.shoe)) != expected:
                what = "is not in" if (key.table, key.shoe) not in found else "differs in"
                raise SourceError(
                    f"shoe {key.table}/{key.shoe} {what} the export {root}: the database "
                    "changed after `shoe-audit export`; export again"
                )
        return con.sql(BATCH_SQL).to_arrow_table()
    finally:
        con.close()


def _events_table(pf: Any) -> pa.Table:
    """A file's shoes' rows, their ``raw`` lines decoded only when some event needs one.

    A partition also holds its table's books (TEL/1 v1.2 events of no shoe): they are
    never replayed, so they are dropped here, before anything reads them. The batch SQL
    reads ``raw`` only for an event with fields TEL/1 does not name (``has_extra``), and
    ``raw`` is the widest column: most files never decode it (their rows get it as nulls,
    which nothing reads).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    names = [n for n in pf.schema_arrow.names if n != "raw"]
    table = pf.read(columns=names)
    if "event_gaming_day" in names:  # the events' own column, apart from the partition's
        table = table.rename_columns(
            ["gaming_day" if n == "event_gaming_day" else n for n in table.column_names]
        )
    in_shoe = pc.is_valid(table["shoe"])
    whole = bool(pc.all(in_shoe).as_py())
    if not whole:
        table = table.filter(in_shoe)
    if pc.any(table["has_extra"]).as_py():
        raw = pf.read(columns=["raw"])["raw"]
        return table.append_column("raw", raw if whole else raw.filter(in_shoe))
    return table.append_column("raw", pa.nulls(table.num_rows, pf.schema_arrow.field("raw").type))
