"""``verify PATH...``: the original files against the ledger and the stored events, line by line.

For each file: its SHA-256 against the ingest records of its path (an input
file edited after ingest differs), then every line against the event stored
under its ``id`` (changed), every line the database lacks though it was
neither rejected nor a duplicate (removed after ingest), and every event
stored from the file that no line of it holds (inserted).
"""

from __future__ import annotations

from collections.abc import Iterable
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.events.parse import loads
from audit.integrity.check import Difference, Integrity
from audit.store import Store
from audit.store.ledger import Record

if TYPE_CHECKING:
    from audit.integrity.verify import Verification


def compare_files(
    store: Store, paths: Iterable[str | PathLike[str]], anchor: list[Record], out: Verification
) -> None:
    from audit.ingest.reader import FileError, LogReader, find_logs

    found = find_logs(paths)
    for folder, why in found.unlisted:
        out.notes.append(f"{folder}: {why}")
    recorded: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for r in anchor:
        if r.kind == "ingest" and r.body.get("sha256"):
            recorded.setdefault(str(r.body.get("path")), []).append((r.no, r.body))
    for path in found.files:
        reader = LogReader(path)
        lines: list[tuple[int, str]] = []
        try:
            for batch in reader.batches():
                for first, block in zip(batch.block_first_lines, batch.blocks, strict=True):
                    text = block.decode("utf-8")
                    lines += [
                        (first + i, line)
                        for i, line in enumerate(text.split("\n"))
                        if line.strip(" \t\r")
                    ]
        except FileError as exc:
            out.notes.append(f"{path}: {exc}; compared up to there")
        if not reader.opened:
            continue
        out.files.append(str(path))
        _compare_hash(path, reader.sha256, recorded, out)
        _compare_lines(store, path, lines, out)


def _compare_hash(
    path: Path,
    sha: str,
    recorded: dict[str, list[tuple[int, dict[str, Any]]]],
    out: Integrity,
) -> None:
    mine = recorded.get(str(path), [])
    if not mine:
        same = [
            (no, body)
            for entries in recorded.values()
            for no, body in entries
            if body["sha256"] == sha
        ]
        if same:
            out.notes.append(
                f"{path}: ingested as {same[-1][1]['path']} (ledger record {same[-1][0]})"
            )
        else:
            out.notes.append(f"{path}: not in the ledger (never ingested from this path)")
        return
    no, body = mine[-1]
    if body["sha256"] != sha:
        out.differences.append(
            Difference(
                "input file",
                f"{path}: SHA-256 {sha}, but {body['sha256']} when ingested (ledger record {no}): "
                "the file changed since",
            )
        )


def _compare_lines(store: Store, path: Path, lines: list[tuple[int, str]], out: Integrity) -> None:
    import pyarrow as pa

    table = pa.table(
        {
            "line_no": pa.array([n for n, _ in lines], pa.int64()),
            "line": pa.array([t for _, t in lines], pa.string()),
        }
    )
    rel = store.con.from_arrow(table)
    sql = """
    WITH l AS (SELECT line_no, line, TRY(json_extract_string(line, '$.id')) AS id FROM _lines),
         f AS (SELECT file_id FROM input_files WHERE path = $path),
         rejected AS (
           SELECT line_no FROM quarantine WHERE file_id IN (SELECT file_id FROM f)),
         changed AS (
           SELECT 'changed' AS what, l.line_no, e.id, e.table_id, e.shoe, e.raw, l.line
           FROM l JOIN events e ON e.id = l.id
           WHERE e.raw <> l.line AND l.line_no NOT IN (SELECT line_no FROM rejected)),
         removed AS (
           SELECT 'removed', l.line_no, l.id, NULL, NULL, NULL, NULL FROM l
           WHERE l.id IS NOT NULL AND l.id NOT IN (SELECT id FROM events)
             AND l.line_no NOT IN (SELECT line_no FROM rejected)),
         inserted AS (
           SELECT 'inserted', e.line_no, e.id, e.table_id, e.shoe, NULL, NULL FROM events e
           WHERE e.file_id IN (SELECT file_id FROM f)
             AND NOT EXISTS (SELECT 1 FROM l WHERE l.line_no = e.line_no AND l.id = e.id))
    SELECT * FROM changed UNION ALL SELECT * FROM removed UNION ALL SELECT * FROM inserted
    ORDER BY 2, 3
    """
    rows = rel.query("_lines", sql.replace("$path", _lit(str(path)))).fetchall()
    for what, line_no, eid, table, shoe, raw, line in rows:
        if what == "changed" and _same_value(raw, line):
            continue  # the same event written differently (a duplicate from another file)
        if what == "changed":
            msg = f"{path}:{line_no}: event id {eid} differs from the stored event"
        elif what == "removed":
            msg = f"{path}:{line_no}: event id {eid} is not in the database (removed after ingest)"
        else:
            msg = f"id {eid} (stored from {path}:{line_no}) is in no line of the file (inserted)"
        out.differences.append(Difference("events", msg, table, shoe, events=(eid,) if eid else ()))


def _same_value(a: str, b: str) -> bool:
    try:
        return bool(loads(a) == loads(b))
    except ValueError:
        return False


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
