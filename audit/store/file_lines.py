"""A file's lines against the stored events, by event id: the queries of ``verify PATH...``.

:mod:`audit.integrity.files` reads a file and decides what its lines mean;
the queries here hand it, per line, the event stored under the line's ``id``
(and whether it was stored from the file being compared), the stored events
of the file that no line holds, and the file's quarantined lines. Every
query is one join by id over an Arrow table of the file's lines: the cost
grows with the file and the events table, never with their product.
"""

from __future__ import annotations

from typing import Any

LINES_VIEW = "_verify_lines"
"""The name the file's lines are registered under while they are compared."""


def register_lines(con: Any, line_nos: list[int], texts: list[str]) -> None:
    """Register a file's lines (number, text) as :data:`LINES_VIEW`, ids extracted once."""
    import pyarrow as pa

    table = pa.table(
        {"line_no": pa.array(line_nos, pa.int64()), "line": pa.array(texts, pa.string())}
    )
    con.register("_verify_raw_lines", table)
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE {LINES_VIEW} AS
            SELECT line_no, line, TRY(json_extract_string(line, '$.id')) AS id
            FROM _verify_raw_lines"""
    )
    con.unregister("_verify_raw_lines")


def drop_lines(con: Any) -> None:
    """Forget the registered lines."""
    con.execute(f"DROP TABLE IF EXISTS {LINES_VIEW}")


def lines_by_id(con: Any, file_ids: list[int]) -> Any:
    """Per line of the registered file: its id and the event stored under that id.

    An Arrow table with ``line_no``, ``id`` (null when the line has none),
    ``file_id`` (of the stored event), ``ours`` (the event was stored from one
    of ``file_ids``; null when no event has the id), ``was`` (the line number
    it was stored from), ``same`` (its raw line is the line, byte for byte),
    ``table_id``, ``shoe``, ``copies`` (lines of the file with this id) and
    ``occ`` (1 for the copy that stands for the event: the one nearest the line
    it was stored from; 2, 3... for the others).
    An id stored twice (named by ``verify`` elsewhere) is joined once, preferring
    the copy stored from the file.
    """
    return con.sql(
        f"""
        WITH e AS (
          SELECT id, file_id, file_id IN (SELECT unnest($files)) AS ours, line_no AS was, raw,
                 table_id, shoe
          FROM events WHERE id IN (SELECT id FROM {LINES_VIEW} WHERE id IS NOT NULL)
          QUALIFY row_number() OVER (PARTITION BY id ORDER BY ours DESC, was, rowid) = 1)
        SELECT l.line_no, l.id, e.file_id, e.ours, e.was, e.raw = l.line AS same,
               e.table_id, e.shoe,
               CASE WHEN l.id IS NULL THEN 1 ELSE count(*) OVER (PARTITION BY l.id) END
                 AS copies,
               CASE WHEN l.id IS NULL THEN 1 ELSE row_number() OVER (
                 PARTITION BY l.id
                 ORDER BY abs(l.line_no - coalesce(e.was, l.line_no)), l.line_no) END AS occ
        FROM {LINES_VIEW} l LEFT JOIN e USING (id)
        ORDER BY l.line_no
        """,
        params={"files": file_ids},
    ).to_arrow_table()


def stored_raw(con: Any, ids: list[str], file_ids: list[int]) -> dict[str, str]:
    """id -> the raw line stored under it (the copy from ``file_ids`` first)."""
    if not ids:
        return {}
    rows = con.execute(
        """SELECT id, raw FROM events WHERE id IN (SELECT unnest($ids))
           QUALIFY row_number() OVER (
             PARTITION BY id ORDER BY file_id IN (SELECT unnest($files)) DESC, line_no, rowid
           ) = 1""",
        {"ids": ids, "files": file_ids},
    ).fetchall()
    return {str(i): str(raw) for i, raw in rows}


def stored_not_in_lines(con: Any, file_ids: list[int]) -> list[tuple[str, int, str, str]]:
    """The events stored from ``file_ids`` whose id no registered line holds:
    (id, line it was stored from, table, shoe), in line order."""
    if not file_ids:
        return []
    rows = con.execute(
        f"""SELECT id, line_no, table_id, shoe FROM events
            WHERE file_id IN (SELECT unnest($files))
              AND id NOT IN (SELECT id FROM {LINES_VIEW} WHERE id IS NOT NULL)
            ORDER BY line_no, id""",
        {"files": file_ids},
    ).fetchall()
    return [(str(i), int(n), str(t), str(s)) for i, n, t, s in rows]


def quarantined_lines(con: Any, file_ids: list[int]) -> list[tuple[int, str]]:
    """The lines of ``file_ids`` that ingest rejected: (line number, raw as kept), each once."""
    if not file_ids:
        return []
    rows = con.execute(
        """SELECT DISTINCT line_no, raw FROM quarantine WHERE file_id IN (SELECT unnest($files))
           ORDER BY line_no, raw""",
        {"files": file_ids},
    ).fetchall()
    return [(int(n), str(raw)) for n, raw in rows]


def source_files(con: Any, ids: list[str]) -> list[tuple[str, int]]:
    """The input files the events ``ids`` were stored from: (path, events), most first."""
    if not ids:
        return []
    rows = con.execute(
        """SELECT f.path, count(*) FROM events e JOIN input_files f USING (file_id)
           WHERE e.id IN (SELECT unnest($ids)) GROUP BY ALL ORDER BY 2 DESC, 1""",
        {"ids": ids},
    ).fetchall()
    return [(str(p), int(n)) for p, n in rows]
