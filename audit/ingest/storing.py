"""Merging a batch's leftover lines by id, recording files, and the derived tables.

Everything here runs inside the ingest's transaction (see
:mod:`audit.ingest.pipeline`).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from audit.events.parse import loads
from audit.ingest.bulkstep import EV_COLS, Block, FileResult, Quarantined, Session, readable
from audit.ingest.reader import RAW_KEEP, FileError, LogReader, file_sha256
from audit.ingest.summary import FileSummary
from audit.store import Store
from audit.store.evidence import ingest_body, many_events_entries, quarantine_digests
from audit.store.schema import FINDING_ID_SQL
from audit.store.store import DEFAULT_DAY_START, day_start_minutes


def merge(session: Session, results: dict[int, FileResult], paths: dict[int, str]) -> None:
    """Merge the batch's ``rest`` into ``events``: new ids in, duplicates counted,
    conflicting copies quarantined (the first copy wins: earlier files first,
    then earlier lines)."""
    pc = session.pc
    rest = session.rest
    session.hits = None
    if rest is None or rest.num_rows == 0:
        return
    # Ids already stored, and ids repeated within the batch (first copy wins).
    hits = session.arrow(
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
    differing = session.query(
        hits,
        "_hits",
        """SELECT h.line_no, h.file_id, h.id, h.raw, h.first_raw, h.first_file, h.first_line,
                  f.path
           FROM _hits h LEFT JOIN input_files f ON f.file_id = h.first_file
           WHERE NOT CASE WHEN h.raw = h.first_raw THEN true
                          ELSE json(h.raw) = json(h.first_raw) END
           ORDER BY h.file_id, h.line_no""",
    )
    session.hits = hits
    conflicts: dict[int, int] = {}
    for line_no, file_id, eid, raw, first_raw, first_file, first_line, first_path in differing:
        if loads(raw) == loads(first_raw):
            continue
        conflicts[file_id] = conflicts.get(file_id, 0) + 1
        where = f"{first_path or paths[first_file]}:{first_line}"
        results[file_id].quarantined.append(
            Quarantined(
                line_no,
                "LOG_ID_CONFLICT",
                f"id {eid!r} was first seen at {where} with different content; "
                "the first copy is kept",
                raw[:RAW_KEEP],
                **readable(raw),
            )
        )
    for file_id, n in Counter(hits.column("file_id").to_pylist()).items():
        results[file_id].summary.duplicates += n - conflicts.get(file_id, 0)
    for file_id, table, shoe in session.query(
        rest, "_rest", "SELECT DISTINCT file_id, table_id, shoe FROM _rest WHERE shoe IS NOT NULL"
    ):
        results[file_id].shoes.add((table, shoe))
    if hits.num_rows:

        def keys(t: Any) -> Any:  # (file, line) as one int64
            return pc.add(pc.multiply(t.column("file_id"), 1 << 40), t.column("line_no"))

        rest = rest.filter(pc.invert(pc.is_in(keys(rest), value_set=keys(hits))))
    if rest.num_rows:
        session.query(
            rest,
            "_rest",
            f"INSERT INTO events BY NAME "
            f"SELECT {EV_COLS}, file_id, line_no, file_id AS ingest_id FROM _rest",
        )


def digest_added(session: Session, blocks: list[Block], results: dict[int, FileResult]) -> None:
    """Feed each file's :class:`LineDigest` the lines of ``blocks`` it added, in order.

    Run after the batch is stored. The lines not added are known without a
    query: those the split skipped (blank, too long), those the merge found
    stored before (``session.hits``), those quarantined. A block none of whose
    lines is among them (the usual case) is hashed whole, as read.
    """
    import bisect

    pa, pc = session.pa, session.pc
    skipped = {f: set() for f, _, _ in blocks}  # type: dict[int, set[int]]
    for table in (session.skipped, session.hits):
        if table is None or table.num_rows == 0:
            continue
        for f, n in zip(
            table.column("file_id").to_pylist(), table.column("line_no").to_pylist(), strict=True
        ):
            skipped.setdefault(f, set()).add(n)
    for f in skipped:
        skipped[f].update(q.line_no for q in results[f].quarantined)
    ordered = {f: sorted(v) for f, v in skipped.items()}
    for f, first, block in blocks:
        count = block.count(b"\n") + 1
        out = ordered[f]
        lo, hi = bisect.bisect_left(out, first), bisect.bisect_right(out, first + count - 1)
        if lo == hi:
            results[f].lines.update_block(block, count)
            continue
        if hi - lo == count:
            continue  # nothing of this block went in
        lines = pc.list_flatten(pc.split_pattern(pa.array([block], pa.large_binary()), b"\n"))
        gone = pa.array([n - first for n in out[lo:hi]], pa.int64())
        keep = pc.invert(pc.is_in(pa.array(range(count), pa.int64()), value_set=gone))
        results[f].lines.update(lines.filter(keep))


def finish_files(
    store: Store, files: list[tuple[Path, LogReader, int, FileResult]], now: dt.datetime
) -> list[dict[str, Any]]:
    """Record the files a transaction read: their counts, rows, quarantine and shoes, and
    the shoes and seq ranges their new events touched; return their ledger records.

    Each file is ``(path, reader, file_id, result)``: ``file_id`` is the id it was read
    under, which is also the ``ingest_id`` of the rows this ingest added; the same
    bytes stored before from the same path keep their old ``file_id``. What reads
    ``events`` is one query for all the files (``ingest_id IN ...``), not one a file:
    a group holds up to 64 files, and each query scans what the transaction added.
    """
    con = store.con
    ids = [file_id for _, _, file_id, _ in files]
    counted = {
        int(i): (int(n), int(u))
        for i, n, u in con.execute(
            """SELECT ingest_id, count(*), count(*) FILTER (NOT known_type) FROM events
               WHERE ingest_id IN (SELECT unnest(?)) GROUP BY ingest_id""",
            [ids],
        ).fetchall()
    }
    _touch(store, ids)  # before a file_id may become an older one
    entries = many_events_entries(con, ids)
    for _, _, file_id, result in files:
        s = result.summary
        s.rejected = len(result.quarantined)
        s.new, s.unknown_types = counted.get(file_id, (0, 0))
        s.events = s.new + s.duplicates
    kept = _record_files(store, files, now)
    quarantined = quarantine_digests(con, ids)
    bodies = []
    finals: list[tuple[int, int, set[tuple[str, str]]]] = []
    for (path, reader, file_id, result), final in zip(files, kept, strict=True):
        s = result.summary
        finals.append((final, file_id, result.shoes))
        bodies.append(
            ingest_body(
                con,
                ingest_id=file_id,
                file_id=final,
                path=str(path),
                sha256=reader.sha256,
                size=reader.size,
                counts=_counts(s),
                error=s.error,
                at=now,
                lines=result.lines.hexdigest(),
                shoes=entries[file_id],
                quarantine=quarantined[file_id],
            )
        )
    _note_shoes(store, finals)
    return bodies


def _record_files(
    store: Store, files: list[tuple[Path, LogReader, int, FileResult]], now: dt.datetime
) -> list[int]:
    """The files' ``input_files`` and quarantine rows; the ``file_id`` each keeps.

    One query each for the whole transaction's files (the lookup of the same
    bytes stored before, the new rows, the ``unread_inputs`` they clear): a
    query a file cost 5% of a million-round ingest of 5,174 small files.
    """
    con = store.con
    paths = [str(path) for path, _, _, _ in files]
    existing = {
        (p, sha): int(f)
        for p, sha, f in con.execute(
            """SELECT path, sha256, min(file_id) FROM input_files
               WHERE (path, sha256) IN (SELECT unnest(?), unnest(?)) GROUP BY ALL""",
            [paths, [reader.sha256 for _, reader, _, _ in files]],
        ).fetchall()
    }
    kept: list[int] = []
    new_rows: list[list[Any]] = []
    for path, reader, file_id, result in files:
        s = result.summary
        s.lines = reader.lines
        old = existing.get((str(path), reader.sha256))
        if old is not None:
            # The same bytes at the same path again: keep one row, re-point anything new.
            con.execute("UPDATE events SET file_id = ? WHERE file_id = ?", [old, file_id])
            con.execute(
                """UPDATE input_files SET last_ingested_at = ?, lines = ?, events = ?,
                          new_events = ?, duplicates = ?, rejected = ? WHERE file_id = ?""",
                [now, s.lines, s.events, s.new, s.duplicates, s.rejected, old],
            )
        else:
            counts = [s.lines, s.events, s.new, s.duplicates, s.rejected]
            new_rows.append([file_id, str(path), reader.sha256, reader.size, *counts, now, now])
        kept.append(old if old is not None else file_id)
        s.file_id = kept[-1]
    if new_rows:
        columns = [list(c) for c in zip(*new_rows, strict=True)]
        con.execute(
            f"INSERT INTO input_files SELECT {', '.join(['unnest(?)'] * len(columns))}", columns
        )
    for (path, _, file_id, result), final in zip(files, kept, strict=True):
        if result.quarantined:
            _insert_quarantine(store, final, file_id, str(path), result.quarantined)
    con.execute("DELETE FROM unread_inputs WHERE path IN (SELECT unnest(?))", [paths])
    return kept


def _counts(s: FileSummary) -> dict[str, int]:
    return {
        "lines": s.lines,
        "events": s.events,
        "new": s.new,
        "duplicates": s.duplicates,
        "rejected": s.rejected,
    }


def _note_shoes(store: Store, files: list[tuple[int, int, set[tuple[str, str]]]]) -> None:
    """The shoes of the files' lines (new and duplicate events) into ``file_shoes``, once.

    Each file is ``(file_id, ingest_id, shoes of its duplicate lines)``.
    """
    dups = [(f, t, sh) for f, _, shoes in files for t, sh in sorted(shoes)]
    store.con.execute(
        """INSERT INTO file_shoes
           SELECT DISTINCT file_id, table_id, shoe FROM (
             SELECT m.file_id, e.table_id, e.shoe
             FROM events e JOIN (SELECT unnest(?) AS ingest_id, unnest(?) AS file_id) m
               USING (ingest_id)
             WHERE e.shoe IS NOT NULL
             UNION SELECT unnest(?), unnest(?), unnest(?))
           EXCEPT SELECT file_id, table_id, shoe FROM file_shoes
             WHERE file_id IN (SELECT unnest(?))""",
        [
            [i for _, i, _ in files],
            [f for f, _, _ in files],
            [f for f, _, _ in dups],
            [t for _, t, _ in dups],
            [sh for _, _, sh in dups],
            [f for f, _, _ in files],
        ],
    )


def note_unread(
    store: Store, summaries: list[FileSummary], now: dt.datetime
) -> list[dict[str, Any]]:
    """Inputs nothing could be read from, into ``unread_inputs``; their ledger records."""
    bodies = []
    for s in summaries:
        if s.error is None or s.file_id is not None:
            continue
        store.con.execute(
            """INSERT INTO unread_inputs VALUES (?, ?, ?, ?) ON CONFLICT (path)
               DO UPDATE SET reason = excluded.reason, last_seen = excluded.last_seen""",
            [s.path, s.error, now, now],
        )
        bodies.append(
            ingest_body(
                store.con,
                ingest_id=None,
                file_id=None,
                path=s.path,
                sha256=None,
                size=None,
                counts=_counts(s),
                error=s.error,
                at=now,
            )
        )
    return bodies


def gaming_days_of_files(store: Store, file_ids: list[int]) -> list[dt.date]:
    """Gaming days of the shoes the files hold, and of their rejected lines (as
    :meth:`Store.all_findings` dates them)."""
    if not file_ids:
        return []
    start = day_start_minutes(store.meta("day_start") or DEFAULT_DAY_START)
    rows = store.con.execute(
        f"""SELECT DISTINCT s.gaming_day FROM file_shoes f JOIN shoes s USING (table_id, shoe)
            WHERE f.file_id IN (SELECT unnest($1)) AND s.gaming_day IS NOT NULL
            UNION
            SELECT DISTINCT COALESCE(s.gaming_day, CAST(q.ts_local - to_minutes({start}) AS DATE))
            FROM quarantine q LEFT JOIN shoes s USING (table_id, shoe)
            WHERE q.file_id IN (SELECT unnest($1))
              AND COALESCE(s.gaming_day, CAST(q.ts_local - to_minutes({start}) AS DATE))
                  IS NOT NULL
            ORDER BY 1""",
        [file_ids],
    ).fetchall()
    return [d for (d,) in rows]


def _insert_quarantine(
    store: Store, file_id: int, ingest_id: int, path: str, rows: list[Quarantined]
) -> None:
    """The file's rejected lines into ``quarantine`` (once each), as one Arrow table.

    (``executemany`` costs ~1 ms a row: a file of 100,000 bad lines took 100 s.)
    """
    import pyarrow as pa

    table = pa.table(
        {
            "file_id": pa.array([file_id] * len(rows), pa.int64()),
            "path": pa.array([path] * len(rows), pa.string()),
            "line_no": pa.array([q.line_no for q in rows], pa.int64()),
            "code": pa.array([q.code for q in rows], pa.string()),
            "reason": pa.array([q.reason for q in rows], pa.string()),
            "raw": pa.array([q.raw for q in rows], pa.string()),
            "id": pa.array([q.id for q in rows], pa.string()),
            "table_id": pa.array([q.table_id for q in rows], pa.string()),
            "shoe": pa.array([q.shoe for q in rows], pa.string()),
            "ts_local": pa.array([q.ts_local for q in rows], pa.timestamp("us")),
            "ingest_id": pa.array([ingest_id] * len(rows), pa.int64()),
        }
    )
    store.con.from_arrow(table).query(
        "_q",
        f"""INSERT INTO quarantine BY NAME SELECT * FROM _q
            WHERE (file_id, line_no, code) NOT IN
                  (SELECT file_id, line_no, code FROM quarantine WHERE file_id = {int(file_id)})""",
    )


STREAM_SQL = "COALESCE(stream, table_id)"
"""The stream an event's ``seq`` counts in (accounting.md): ``stream``, else its table's."""

TOUCHED = """
CREATE OR REPLACE TEMP TABLE _touched (table_id VARCHAR, shoe VARCHAR);
CREATE OR REPLACE TEMP TABLE _touched_seq (table_id VARCHAR, lo BIGINT, hi BIGINT);
CREATE OR REPLACE TEMP TABLE _touched_days (gaming_day DATE);
"""
"""What a transaction's new events touched: their shoes, per stream their seq range (the
column keeps its name, ``table_id``: a table's stream is named after it), and the gaming
days of the new events that belong to no shoe."""


def _touch(store: Store, file_ids: list[int]) -> None:
    """Note the shoes and seq ranges of the files' new events, for :func:`refresh_derived`."""
    store.con.execute(
        """INSERT INTO _touched SELECT DISTINCT table_id, shoe FROM events
           WHERE file_id IN (SELECT unnest(?)) AND shoe IS NOT NULL
           EXCEPT SELECT table_id, shoe FROM _touched""",
        [file_ids],
    )
    store.con.execute(
        f"""INSERT INTO _touched_seq
           SELECT {STREAM_SQL}, min(seq), max(seq) FROM events
           WHERE file_id IN (SELECT unnest(?))
           GROUP BY {STREAM_SQL}, file_id""",
        [file_ids],
    )
    # A table-level event (or one in another stream than its table's) lies in no shoe
    # whose first and last seq bound the search for a stream's neighbours: its seq is
    # noted apart (few rows: a table's books).
    start = day_start_minutes(store.meta("day_start") or DEFAULT_DAY_START)
    store.con.execute(
        f"""INSERT INTO stream_marks
           SELECT {STREAM_SQL}, seq FROM events
           WHERE file_id IN (SELECT unnest($1))
             AND (shoe IS NULL OR {STREAM_SQL} <> table_id)""",
        [file_ids],
    )
    store.con.execute(
        f"""INSERT INTO _touched_days
           SELECT DISTINCT CAST(ts_local - to_minutes({start}) AS DATE) FROM events
           WHERE file_id IN (SELECT unnest($1)) AND shoe IS NULL""",
        [file_ids],
    )


def refresh_derived(store: Store, complete_streams: Sequence[str] = ()) -> list[dt.date]:
    """Shoes and seq gaps for the shoes and streams touched; their gaming days.

    ``complete_streams`` are the streams other than tables' judged for gaps (the house
    file's, accounting.md): a cage's series also serves tables the auditor never sees.
    """
    con = store.con
    if (
        con.execute(
            "SELECT (SELECT count(*) FROM _touched) + (SELECT count(*) FROM _touched_seq)"
        ).fetchall()[0][0]
        == 0
    ):
        return []
    store.refresh_shoes("SELECT table_id, shoe FROM _touched")
    # LOG_SEQ_GAP: new events may fill a gap or open one, but only between the
    # stored events just below and just above them; gaps elsewhere in a
    # stream's history stand, so a night's ingest does not re-sort the history.
    band = _seq_window(con)
    if band is not None:
        _refresh_seq_gaps(con, band, complete_streams)
    # LOG_UNKNOWN_TYPE is the replay's to raise (it knows the round); ingest keeps
    # the event with known_type false, and validate prints it as a warning.
    days = con.execute(
        """SELECT DISTINCT gaming_day FROM shoes
           WHERE (table_id, shoe) IN (SELECT table_id, shoe FROM _touched)
             AND gaming_day IS NOT NULL
           UNION SELECT gaming_day FROM _touched_days WHERE gaming_day IS NOT NULL
           ORDER BY 1"""
    ).fetchall()
    return [d for (d,) in days]


def _refresh_seq_gaps(con: Any, band: tuple[int, int], complete_streams: Sequence[str]) -> None:
    """``LOG_SEQ_GAP`` findings anew within each stream's ``_seq_window``.

    A table's stream (named after the table: its shoe and round events, and the books
    it writes itself) is always judged; another stream (the cage's, the count room's)
    only when listed in ``complete_streams``, its findings with ``table`` null.
    """
    start = _day_start_sql(con)
    con.execute(
        """DELETE FROM log_findings f WHERE code = 'LOG_SEQ_GAP' AND EXISTS (
             SELECT 1 FROM _seq_window w
             WHERE w.table_id = COALESCE(f.stream, f.table_id)
               AND f.ordinal >= w.lo AND f.ordinal < w.hi)"""
    )
    # A window holding every seq from its lo to its hi has no gap: only the others are
    # sorted for their gaps (a clean night has none; the sort was most of the refresh).
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE _seq_gappy AS
           SELECT sw.table_id, sw.lo, sw.hi FROM _seq_window sw JOIN (
             SELECT {STREAM_SQL} AS skey, seq FROM events
             WHERE seq BETWEEN {band[0]} AND {band[1]}) e
             ON sw.table_id = e.skey AND e.seq BETWEEN sw.lo AND sw.hi
           GROUP BY ALL HAVING count(DISTINCT e.seq) < sw.hi - sw.lo + 1"""
    )
    if not con.execute("SELECT count(*) FROM _seq_gappy").fetchall()[0][0]:
        return
    con.execute(
        f"""INSERT INTO log_findings BY NAME
           SELECT 'LOG_SEQ_GAP' AS code, 'major' AS severity,
                  CASE WHEN g.own THEN g.table_id END AS table_id,
                  CASE WHEN g.shoe = g.next_shoe THEN g.next_shoe END AS shoe,
                  CASE WHEN g.shoe = g.next_shoe AND g.round = g.next_round THEN g.round END
                    AS round,
                  [g.id, g.next_id] AS events,
                  CASE WHEN g.own THEN 'table ' || g.table_id ELSE 'stream ' || g.skey END
                    || ': seq ' || g.seq || ' → ' || g.next_seq || ', '
                    || (g.next_seq - g.seq - 1) || ' event'
                    || CASE WHEN g.next_seq - g.seq - 1 = 1 THEN '' ELSE 's' END || ' missing'
                    AS message,
                  COALESCE(s.gaming_day, CASE WHEN g.next_shoe IS NULL
                    THEN CAST(g.next_local - to_minutes({start}) AS DATE) END) AS gaming_day,
                  g.seq AS ordinal, {SEQ_GAP_ID} AS id, g.skey AS stream
           FROM (
             SELECT *, skey = table_id AS own FROM (
               SELECT skey, table_id, shoe, round, id, seq,
                      lead(seq) OVER w AS next_seq, lead(id) OVER w AS next_id,
                      lead(shoe) OVER w AS next_shoe, lead(round) OVER w AS next_round,
                      lead(ts_local) OVER w AS next_local
               FROM (SELECT {STREAM_SQL} AS skey, table_id, shoe, round, id, seq, ts_local
                     FROM events WHERE seq BETWEEN {band[0]} AND {band[1]}) e
               SEMI JOIN _seq_gappy sw
                 ON sw.table_id = e.skey AND e.seq BETWEEN sw.lo AND sw.hi
               WINDOW w AS (PARTITION BY skey ORDER BY seq, id)
             )
           ) g
           LEFT JOIN shoes s ON s.table_id = g.table_id AND s.shoe = g.next_shoe
           WHERE g.next_seq > g.seq + 1
             AND (g.own OR g.skey IN (SELECT unnest($1::VARCHAR[])))""",
        [list(complete_streams)],
    )


def _day_start_sql(con: Any) -> int:
    rows = con.execute("SELECT value FROM meta WHERE key = 'day_start'").fetchall()
    return day_start_minutes(rows[0][0] if rows else DEFAULT_DAY_START)


def _seq_window(con: Any) -> tuple[int, int] | None:
    """Fill ``_seq_window``: per table touched, its seq range widened to the stored events
    just below and just above it; return the band of seqs all of them lie in.

    Those neighbours are looked for among the events of a band of seqs (constants:
    ``events``' zone maps on ``seq`` skip the rest of the history), bounded by the
    ``shoes`` rows (refreshed first): the last shoe that ends below a table's range
    holds an event at or under the one just below it, the first shoe that starts
    above it one at or over the one just above. Scanning the whole history for
    them once per transaction grew with the history: 6% of a million-round ingest.
    """
    # A stream's events outside shoes (stream_marks) bound it too: the nearer bound wins.
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _seq_near AS
           SELECT n.table_id, n.lo, n.hi,
             COALESCE(greatest(
               COALESCE(
                 (SELECT max(s.last_seq) FROM shoes s
                  WHERE s.table_id = n.table_id AND s.last_seq < n.lo),
                 (SELECT min(s.first_seq) FROM shoes s
                  WHERE s.table_id = n.table_id AND s.first_seq < n.lo)),
               (SELECT max(m.seq) FROM stream_marks m
                WHERE m.stream = n.table_id AND m.seq < n.lo)), n.lo) AS below,
             COALESCE(least(
               COALESCE(
                 (SELECT min(s.first_seq) FROM shoes s
                  WHERE s.table_id = n.table_id AND s.first_seq > n.hi),
                 (SELECT max(s.last_seq) FROM shoes s
                  WHERE s.table_id = n.table_id AND s.last_seq > n.hi)),
               (SELECT min(m.seq) FROM stream_marks m
                WHERE m.stream = n.table_id AND m.seq > n.hi)), n.hi) AS above
           FROM (SELECT table_id, min(lo) AS lo, max(hi) AS hi FROM _touched_seq GROUP BY 1) n"""
    )
    a, b = con.execute("SELECT min(below), max(above) FROM _seq_near").fetchall()[0]
    if a is None:
        return None
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE _seq_window AS
            SELECT n.table_id,
                   COALESCE(max(e.seq) FILTER (WHERE e.seq < n.lo), n.lo) AS lo,
                   COALESCE(min(e.seq) FILTER (WHERE e.seq > n.hi), n.hi) AS hi
            FROM _seq_near n LEFT JOIN (
              SELECT {STREAM_SQL} AS table_id, seq FROM events
              WHERE seq BETWEEN {int(a)} AND {int(b)}) e
              ON e.table_id = n.table_id
            GROUP BY n.table_id, n.lo, n.hi"""
    )
    return int(a), int(b)


def stored_rows(store: Store, paths: Sequence[Path]) -> dict[str, list[tuple[Any, ...]]]:
    """The ``input_files`` rows :func:`same_bytes` compares each of ``paths`` with, in
    one query for a transaction's files: those read to their end."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for path, *row in store.con.execute(
        """SELECT f.path, f.file_id, f.sha256, f.lines, f.events, f.rejected FROM input_files f
           WHERE f.path IN (SELECT unnest(?)) AND NOT EXISTS (
             SELECT 1 FROM quarantine q WHERE q.file_id = f.file_id AND q.raw = '')
           ORDER BY f.file_id""",
        [[str(p) for p in paths]],
    ).fetchall():
        out.setdefault(path, []).append(tuple(row))
    return out


def same_bytes(path: Path, rows: Sequence[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """The row of :func:`stored_rows` whose file held the very bytes ``path`` holds now.

    Storing them again would add nothing (every event a duplicate, every
    rejected line already in quarantine), so the file is only hashed, not
    read into the database: a nightly re-run over the same folder is quick.
    A file that could not be read to its end last time is read again (it has
    no row). Reads the file, not the database.
    """
    if not rows:
        return None
    try:
        sha = file_sha256(path)
    except (OSError, FileError):
        return None  # the reader will say what is wrong
    return next((row for row in rows if row[1] == sha), None)


def stored_again(store: Store, path: Path, row: tuple[Any, ...], now: dt.datetime) -> FileSummary:
    """The summary of a file :func:`same_bytes` found stored before, its row brought up
    to date (read now, nothing new)."""
    con = store.con
    file_id, _sha, lines, events, rejected = row
    con.execute(
        """UPDATE input_files SET last_ingested_at = ?, new_events = 0, duplicates = ?
           WHERE file_id = ?""",
        [now, events, file_id],
    )
    unknown = con.execute(
        "SELECT count(*) FROM events WHERE file_id = ? AND NOT known_type", [file_id]
    ).fetchall()[0][0]
    con.execute("DELETE FROM unread_inputs WHERE path = ?", [str(path)])
    return FileSummary(
        str(path), lines, events, 0, events, rejected, unknown_types=unknown, file_id=file_id
    )


def again_body(store: Store, s: FileSummary, path: Path, now: dt.datetime) -> dict[str, Any]:
    """The ledger record of a file only hashed, as stored before (it added nothing)."""
    sha, size = store.con.execute(
        "SELECT sha256, size_bytes FROM input_files WHERE file_id = ?", [s.file_id]
    ).fetchall()[0]
    return ingest_body(
        store.con,
        ingest_id=None,
        file_id=s.file_id,
        path=str(path),
        sha256=sha,
        size=size,
        counts=_counts(s),
        error=None,
        at=now,
    )


SEQ_GAP_ID = FINDING_ID_SQL.format(
    code="'LOG_SEQ_GAP'",
    # a table's stream: its table, as before; another stream: its name, marked as one
    table_id="CASE WHEN g.own THEN g.table_id ELSE 'stream:' || g.skey END",
    shoe="CASE WHEN g.shoe = g.next_shoe THEN g.next_shoe END",
    round="CASE WHEN g.shoe = g.next_shoe AND g.round = g.next_round THEN g.round END",
    box="NULL",
    hand="NULL",
    spot="NULL",
    source="NULL",
    occurrence="g.seq",
)
"""A sequence gap's stable id: its table, or its stream when not a table's (shoe and round
where known), and the ``seq`` it follows (:func:`audit.findings.finding_id`)."""
