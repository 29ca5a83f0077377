"""What the ledger records, computed from the tables (the SQL of :mod:`audit.store.ledger`).

The same functions make a record's contents when it is written and recompute
them when it is checked, so the two cannot drift apart.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from audit.store.ledger import TYPED_FINGERPRINT, TYPED_SUM, fingerprint
from audit.store.types import ShoeKey


def duckdb_version() -> str:
    import duckdb

    return str(duckdb.__version__)


class LineDigest:
    """The digest of an ingest's added lines, exactly as received, in line order.

    ``ledger.LINES_DIGEST``: the SHA-256 of those lines, each followed by a
    newline (for a file every line of which went in, that is the file's own
    SHA-256). Fed whole blocks of lines where it can (the bytes just read, no
    copy), and Arrow arrays of lines otherwise (at ``verify``, the stored
    ``raw`` column): never a Python object per line.
    """

    def __init__(self) -> None:
        self._sha = hashlib.sha256()
        self.n = 0

    def update_block(self, block: bytes, lines: int) -> None:
        """Add a block of ``lines`` whole lines joined by newlines (no final newline)."""
        self._sha.update(block)
        self._sha.update(b"\n")
        self.n += lines

    def update(self, lines: Any) -> None:
        """Add an Arrow string or binary array of lines, in order."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if len(lines) == 0:
            return
        binary = pa.types.is_binary(lines.type) or pa.types.is_large_binary(lines.type)
        kind = pa.large_binary() if binary else pa.large_string()
        empty, newline = (b"", b"\n") if binary else ("", "\n")
        lines = lines.cast(kind)
        ended = pc.binary_join_element_wise(lines, pa.scalar(empty, kind), pa.scalar(newline, kind))
        offsets = memoryview(ended.buffers()[1]).cast("q")[
            ended.offset : ended.offset + len(ended) + 1
        ]
        self._sha.update(memoryview(ended.buffers()[2])[offsets[0] : offsets[-1]])
        self.n += len(lines)

    def hexdigest(self) -> str:
        return self._sha.hexdigest()


def line_digests(con: Any, ingest_ids: Sequence[int] | None = None) -> dict[int | None, str]:
    """ingest_id -> :class:`LineDigest` of its stored events' raw lines, in line order."""
    import pyarrow.compute as pc

    where, params = _scope(ingest_ids, None)
    reader = con.sql(
        f"SELECT ingest_id, raw FROM events {where} ORDER BY ingest_id, line_no",
        params=params,
    ).to_arrow_reader(_DIGEST_BATCH)
    out: dict[int | None, str] = {}
    key: int | None = None
    digest: LineDigest | None = None
    for batch in reader:
        size = batch.num_rows
        if not size:
            continue
        ids, raw = batch.column(0), batch.column(1)
        same = pc.fill_null(pc.equal(ids.slice(1), ids.slice(0, size - 1)), False)
        cuts = [c + 1 for c in pc.indices_nonzero(pc.invert(same)).to_pylist()]
        for a, z in zip([0, *cuts], [*cuts, size], strict=True):
            k = ids[a].as_py()
            if digest is None or k != key:
                if digest is not None:
                    out[key] = digest.hexdigest()
                key, digest = k, LineDigest()
            digest.update(raw.slice(a, z - a))
    reader.close()
    if digest is not None:
        out[key] = digest.hexdigest()
    return out


_DIGEST_BATCH = 100_000


def typed_fingerprints(
    con: Any, keys: Iterable[ShoeKey] | None = None, *, ingest_ids: Sequence[int] | None = None
) -> dict[tuple[int, str, str], tuple[int, str]]:
    """(ingest_id, table, shoe) -> (events, typed fingerprint): the cheap part of the check."""
    where, params = _scope(ingest_ids, keys)
    rows = con.execute(
        f"""SELECT ingest_id, table_id, shoe, count(*), {TYPED_FINGERPRINT}
            FROM events {where} GROUP BY ALL""",
        params,
    ).fetchall()
    return {(i, t, s): (int(n), typed) for i, t, s, n, typed in rows}


def _scope(
    ingest_ids: Sequence[int] | None, keys: Iterable[ShoeKey] | None
) -> tuple[str, list[Any]]:
    if ingest_ids is not None:
        return "WHERE ingest_id IN (SELECT unnest(?))", [list(ingest_ids)]
    if keys is not None:
        wanted = sorted(set(keys))
        return (
            "WHERE (table_id, shoe) IN (SELECT unnest(?), unnest(?))",
            [[k.table for k in wanted], [k.shoe for k in wanted]],
        )
    return "", []


_QUARANTINE_DIGEST = """sha256(COALESCE(string_agg(
    line_no || chr(9) || code || chr(9) || sha256(reason) || chr(9) || sha256(raw),
    chr(10) ORDER BY line_no, code), ''))"""


def quarantine_digest(con: Any, ingest_id: int) -> list[Any]:
    """[rows, digest] of the lines one ingest quarantined (line, code, reason, raw)."""
    return quarantine_digests(con, [ingest_id])[ingest_id]


def quarantine_digests(con: Any, ingest_ids: Sequence[int]) -> dict[int, list[Any]]:
    """:func:`quarantine_digest` of several ingests, in one query (a transaction of 64
    small files paid a query a file)."""
    empty = hashlib.sha256(b"").hexdigest()  # what the query gives for no rows
    out: dict[int, list[Any]] = {i: [0, empty] for i in ingest_ids}
    for i, n, digest in con.execute(
        f"""SELECT ingest_id, count(*), {_QUARANTINE_DIGEST} FROM quarantine
            WHERE ingest_id IN (SELECT unnest(?)) GROUP BY ingest_id""",
        [list(ingest_ids)],
    ).fetchall():
        out[int(i)] = [int(n), digest]
    return out


def events_entries(con: Any, ingest_id: int) -> list[list[Any]]:
    """The ``shoes`` list of an ingest record: [table, shoe, events, typed fingerprint]."""
    return many_events_entries(con, [ingest_id])[ingest_id]


def many_events_entries(con: Any, ingest_ids: Sequence[int]) -> dict[int, list[list[Any]]]:
    """:func:`events_entries` of several ingests, in one scan of ``events``."""
    out: dict[int, list[list[Any]]] = {i: [] for i in ingest_ids}
    # a table's books events (TEL/1 v1.2) have no shoe: one entry per ingest and table,
    # shoe null, sorted after its shoes
    for (i, t, s), (n, typed) in sorted(
        typed_fingerprints(con, ingest_ids=ingest_ids).items(),
        key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] is None, kv[0][2] or ""),
    ):
        out[i].append([t, s, n, typed])
    return out


def ingest_body(
    con: Any,
    *,
    ingest_id: int | None,
    file_id: int | None,
    path: str,
    sha256: str | None,
    size: int | None,
    counts: dict[str, int],
    error: str | None,
    at: dt.datetime,
    lines: str | None = None,
    shoes: list[list[Any]] | None = None,
    quarantine: list[Any] | None = None,
) -> dict[str, Any]:
    """The ledger record of one input file read (or not) by one ingest.

    ``lines`` is the :class:`LineDigest` of the lines it added (taken as they
    were read); None when it added none, or for a baseline (then it is taken
    from the stored lines). ``shoes`` is its :func:`events_entries` and
    ``quarantine`` its :func:`quarantine_digest`, when the caller took them for
    many ingests at once.
    """
    body: dict[str, Any] = {
        "kind": "ingest",
        "ingest": ingest_id,
        "file": file_id,
        "path": path,
        "sha256": sha256,
        "size": size,
        **counts,
        "error": error,
        "at": at.isoformat(),
        "duckdb": duckdb_version(),
        "lines": lines if lines is not None else LineDigest().hexdigest(),
        "shoes": [],
        "quarantine": [0, None],
    }
    if ingest_id is not None:
        body["shoes"] = shoes if shoes is not None else events_entries(con, ingest_id)
        body["quarantine"] = (
            quarantine if quarantine is not None else quarantine_digest(con, ingest_id)
        )
    return body


# --------------------------------------------------------------------------- audits

AUDIT_ROW = (
    "table_id, shoe, engine_version, profile_id, profile_digest, events_digest, audited_at, "
    "rounds, wagers, handle"
)
"""A ``shoe_audits`` row: its shoe, then the values its fingerprint is taken of."""
FINDING_ROW = (
    "code, severity, table_id, shoe, round, box, hand, spot, expected, actual, impact, rule, "
    "events, source, message, gaming_day, ordinal, origin"
)
"""A finding row as its fingerprint is taken."""

AuditEntry = tuple[str, tuple[tuple[Any, ...], ...]]
"""A shoe's audit fingerprint and its findings' [fingerprint, code, round, box, hand, spot]."""


def audit_entries(con: Any, keys: Iterable[ShoeKey] | None = None) -> dict[ShoeKey, AuditEntry]:
    """What ``run`` last wrote for each shoe: its ``shoe_audits`` row and replay findings."""
    where, params = _scope(None, keys)
    audits = con.execute(f"SELECT {AUDIT_ROW} FROM shoe_audits {where}", params).fetchall()
    findings = con.execute(
        f"""SELECT {FINDING_ROW} FROM findings {where}
            {"AND" if where else "WHERE"} origin = 'replay'""",
        params,
    ).fetchall()
    return entries_of(audits, findings)


def _json(column: str) -> str:
    return f"COALESCE(to_json({column})::VARCHAR, 'null')"


def _iso(ts: str) -> str:
    """SQL for Python's ``isoformat()`` of a TIMESTAMPTZ as DuckDB hands it to Python (in the
    session's time zone; no fraction when the microseconds are 0)."""
    return f"""(strftime({ts}, '%Y-%m-%dT%H:%M:%S')
        || CASE WHEN epoch_us({ts}) % 1000000 = 0 THEN ''
                ELSE '.' || lpad(CAST(epoch_us({ts}) % 1000000 AS VARCHAR), 6, '0') END
        || CASE WHEN timezone({ts}) < 0 THEN '-' ELSE '+' END
        || lpad(CAST(abs(timezone_hour({ts})) AS VARCHAR), 2, '0') || ':'
        || lpad(CAST(abs(timezone_minute({ts})) AS VARCHAR), 2, '0'))"""


AUDIT_FINGERPRINT_SQL = (
    "left(sha256('[' || "
    + " || ',' || ".join(
        [
            _json("engine_version"),
            _json("profile_id"),
            _json("profile_digest"),
            _json("events_digest"),
            f"to_json({_iso('audited_at')})::VARCHAR",
            "CAST(rounds AS VARCHAR)",
            "CAST(wagers AS VARCHAR)",
            "to_json(CAST(handle AS VARCHAR))::VARCHAR",
        ]
    )
    + " || ']'), 32)"
)
"""The SQL twin of ``fingerprint`` of a ``shoe_audits`` row (:data:`AUDIT_ROW`'s values):
the SHA-256 of the same canonical JSON, built in DuckDB. Only a fast path: equal
SHA-256s mean equal texts, so a row whose SQL fingerprint is the recorded one is
unchanged; any other is checked in Python (:func:`audit_entries`), so a text this
builds otherwise (a string JSON escapes differently, another time zone) costs time,
never a wrong verdict. A test holds it equal to the Python fingerprint."""

_LATEST_AUDIT_ENTRIES = """
SELECT no, table_id, shoe, audit, findings FROM (
  SELECT no, e[1] AS table_id, e[2] AS shoe, e[3] AS audit, e[4] AS findings FROM (
    SELECT no, unnest(from_json(body, '{"shoes": [["VARCHAR"]]}').shoes) AS e
    FROM ledger WHERE kind = 'audit'))
QUALIFY row_number() OVER (PARTITION BY table_id, shoe ORDER BY no DESC) = 1
"""
"""Each shoe's entry in the latest ``audit`` record naming it, its findings as JSON text:
one structured parse of the records (DuckDB's JSON path functions ran out of memory at
500MB on a 1,000,000-round night's records; this holds)."""


def changed_audits(
    con: Any, keys: Iterable[ShoeKey] | None = None
) -> tuple[set[ShoeKey], dict[ShoeKey, tuple[int, Any]]]:
    """The shoes whose audit results may differ from their latest ``audit`` record, and those
    records' entries (as :func:`recorded_audits` gives them), in one query.

    A shoe is plainly unchanged when its ``shoe_audits`` row's fingerprint
    (:data:`AUDIT_FINGERPRINT_SQL`) is the recorded one and neither the record nor
    the table has a replay finding of it: most shoes of a night. Every other one
    (findings, a missing row or record, a fingerprint that differs) is returned,
    for the caller to compare in full.
    """
    where, params = _scope(None, keys)
    also = "AND" if where else "WHERE"
    rows = con.execute(
        f"""WITH rec AS (SELECT * FROM ({_LATEST_AUDIT_ENTRIES}) {where}),
                 cur AS (SELECT table_id, shoe, {AUDIT_FINGERPRINT_SQL} AS fp
                         FROM shoe_audits {where}),
                 fnd AS (SELECT DISTINCT table_id, shoe, true AS found FROM findings
                         {where} {also} origin = 'replay'),
                 k AS (SELECT table_id, shoe FROM cur UNION SELECT table_id, shoe FROM fnd
                       UNION SELECT table_id, shoe FROM rec)
            SELECT rec.no, k.table_id, k.shoe, rec.audit, rec.findings
            FROM k LEFT JOIN cur USING (table_id, shoe) LEFT JOIN fnd USING (table_id, shoe)
                   LEFT JOIN rec USING (table_id, shoe)
            WHERE cur.fp IS DISTINCT FROM rec.audit OR rec.findings IS DISTINCT FROM '[]'
               OR fnd.found""",
        params * 3,
    ).fetchall()
    changed: set[ShoeKey] = set()
    recorded: dict[ShoeKey, tuple[int, Any]] = {}
    for no, t, sh, audit, findings in rows:
        key = ShoeKey(t, sh)
        changed.add(key)
        if no is not None:
            recorded[key] = (int(no), [t, sh, audit, json.loads(findings)])
    return changed, recorded


def entries_of(
    audits: Iterable[Sequence[Any]], findings: Iterable[Sequence[Any]]
) -> dict[ShoeKey, AuditEntry]:
    """:func:`audit_entries` of rows as stored: ``shoe_audits`` rows (:data:`AUDIT_ROW`) and
    replay findings (:data:`FINDING_ROW`), read back or returned by their insert."""
    out: dict[ShoeKey, AuditEntry] = {}
    for t, s, *values in audits:
        out[ShoeKey(t, s)] = (fingerprint(values), ())
    found: dict[ShoeKey, list[tuple[Any, ...]]] = {}
    for row in findings:
        key = ShoeKey(row[2], row[3])
        found.setdefault(key, []).append((fingerprint(row, 16), row[0], *row[4:8]))
    for key, rows in found.items():
        audit = out.get(key, ("", ()))[0]
        out[key] = (audit, tuple(sorted(rows, key=_finding_order)))
    return out


def _finding_order(f: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple("" if v is None else str(v) for v in f)


def audit_body(
    con: Any,
    keys: Iterable[ShoeKey],
    at: dt.datetime,
    entries: dict[ShoeKey, AuditEntry] | None = None,
) -> dict[str, Any]:
    """The ledger record of one ``run`` transaction over ``keys``.

    Every key is named, also a shoe the transaction left without results (an empty
    entry), so the record supersedes the shoe's earlier one. ``entries``:
    the keys' entries made (:func:`entries_of`) from the rows the transaction's inserts
    returned; None: read back (:func:`audit_entries`).
    """
    keys = list(keys)
    if entries is None:
        entries = audit_entries(con, keys)
    empty: AuditEntry = ("", ())
    return {
        "kind": "audit",
        "at": at.isoformat(),
        "shoes": [
            [k.table, k.shoe, audit, [list(f) for f in findings]]
            for k in sorted(set(keys))
            for audit, findings in (entries.get(k, empty),)
        ],
    }


# --------------------------------------------------------------------------- baseline


def baseline_bodies(store: Any) -> list[dict[str, Any]]:
    """Records of what a database migrated to schema 4 held before its first ledger write.

    They vouch for the data as it stood then (nothing can vouch for before).
    """
    con = store.con
    con.execute("UPDATE events SET ingest_id = file_id WHERE ingest_id IS NULL")
    con.execute("UPDATE quarantine SET ingest_id = file_id WHERE ingest_id IS NULL")
    now = dt.datetime.now(dt.UTC)
    bodies = []
    files = con.execute(
        """SELECT f.file_id, f.path, f.sha256, f.size_bytes, f.lines, f.events, f.new_events,
                  f.duplicates, f.rejected FROM input_files f ORDER BY f.file_id"""
    ).fetchall()
    for file_id, path, sha, size, lines, events, new, dups, rejected in files:
        body = ingest_body(
            con,
            ingest_id=file_id,
            file_id=file_id,
            path=path,
            sha256=sha,
            size=size,
            counts={
                "lines": lines,
                "events": events,
                "new": new,
                "duplicates": dups,
                "rejected": rejected,
            },
            error=None,
            at=now,
            lines=line_digests(con, [file_id]).get(file_id),
        )
        bodies.append({**body, "baseline": True})
    keys = [
        ShoeKey(t, s) for t, s in con.execute("SELECT table_id, shoe FROM shoe_audits").fetchall()
    ]
    if keys:
        bodies.append({**audit_body(con, keys, now), "baseline": True})
    return bodies


# --------------------------------------------------------------------------- what was recorded

_INGEST_RECORD = '{"ingest": "BIGINT", "duckdb": "VARCHAR", "shoes": [["VARCHAR"]]}'
"""The parts of an ``ingest`` record :data:`_RECORDED_SHOES` reads, as one JSON structure:
parsed in one pass (extracting each entry's fields as JSON took ten times as long)."""

_RECORDED_SHOES = f"""
SELECT no, ingest_id, table_id, shoe, n, typed, duckdb FROM (
  SELECT no, r.ingest AS ingest_id, r.duckdb, e[1] AS table_id, e[2] AS shoe,
         CAST(e[3] AS BIGINT) AS n, e[4] AS typed
  FROM (SELECT no, from_json(body, '{_INGEST_RECORD}') AS r FROM ledger WHERE kind = 'ingest'),
       LATERAL (SELECT unnest(r.shoes) AS e))"""
"""Every (ingest, shoe) entry of the ledger table's ``ingest`` records."""


class IngestDifference(NamedTuple):
    """A shoe's events of one ingest that differ from what its ``ingest`` record says:
    stored (``n`` events, ``typed`` fingerprint; None when none is stored) against
    recorded (record ``no``, ``recorded_n``, ``recorded_typed``, made by DuckDB
    ``duckdb``; None when no record names them)."""

    ingest: int | None
    table: str
    shoe: str
    n: int | None
    typed: str | None
    no: int | None
    recorded_n: int | None
    recorded_typed: str | None
    duckdb: str | None


def ingest_differences(
    con: Any, keys: Iterable[ShoeKey] | None, version: str
) -> list[IngestDifference]:
    """The (ingest, shoe) entries of ``keys`` (all when None) whose stored events differ
    from their ingest record: a count, or a typed fingerprint made by the same DuckDB
    ``version``, unlike; or stored with no record, or recorded with none stored.

    Compared in one join, so a night of 300,000 shoes, nearly all unchanged, builds
    no Python object for the unchanged (as two dicts compared in Python, 1.7 of the
    report's 8 s evidence check at 1,000,000 rounds).
    """
    where, params = _scope(None, keys)
    rows = con.execute(
        f"""WITH stored AS (
              SELECT ingest_id, table_id, shoe, count(*) AS n, {TYPED_FINGERPRINT} AS typed
              FROM events {where} GROUP BY ALL),
            recorded AS (SELECT * FROM ({_RECORDED_SHOES}) {where})
            SELECT COALESCE(s.ingest_id, r.ingest_id), COALESCE(s.table_id, r.table_id),
                   COALESCE(s.shoe, r.shoe), s.n, s.typed, r.no, r.n, r.typed, r.duckdb
            FROM stored s FULL OUTER JOIN recorded r
              ON s.ingest_id = r.ingest_id AND s.table_id = r.table_id
                 AND s.shoe IS NOT DISTINCT FROM r.shoe
            WHERE r.no IS NULL OR s.n IS NULL OR s.n <> r.n
               OR (r.duckdb = ? AND s.typed IS DISTINCT FROM r.typed)""",
        [*params, *params, version],
    ).fetchall()
    return [IngestDifference(*r) for r in rows]


def tables_changed_since_ingest(con: Any, version: str) -> list[str]:
    """The tables whose stored events no longer add up to their ingest records: a count,
    or (where every record was made by DuckDB ``version``) the sum of the typed
    fingerprints (each a sum of 64-bit hashes, so a table's is the sum of its shoes').

    One pass over ``events`` with no per-shoe grouping: what a plain ``run`` checks of
    the shoes it does not replay, before it compares those tables shoe by shoe
    (:func:`ingest_differences`; issue 28, point 7)."""
    rows = con.execute(
        f"""WITH stored AS (
              SELECT table_id, count(*) AS n, {TYPED_SUM} AS typed
              FROM events GROUP BY table_id),
            recorded AS (
              SELECT table_id, sum(n) AS n, sum(CAST(typed AS HUGEINT)) AS typed,
                     bool_and(duckdb = ?) AS comparable
              FROM ({_RECORDED_SHOES}) GROUP BY table_id)
            SELECT COALESCE(s.table_id, r.table_id) AS t
            FROM stored s FULL OUTER JOIN recorded r ON s.table_id = r.table_id
            WHERE r.n IS NULL OR s.n IS NULL OR s.n <> r.n
               OR (r.comparable AND s.typed IS DISTINCT FROM r.typed)
            ORDER BY t""",
        [version],
    ).fetchall()
    return [t for (t,) in rows]


def shoes_of_tables(con: Any, tables: Sequence[str]) -> list[ShoeKey]:
    """Every shoe stored of ``tables``, also one whose events are all gone (by its records)."""
    rows = con.execute(
        f"""SELECT DISTINCT table_id, shoe FROM (
              SELECT table_id, shoe FROM shoes WHERE table_id IN (SELECT unnest($1))
              UNION ALL
              SELECT table_id, shoe FROM ({_RECORDED_SHOES}) WHERE table_id IN (SELECT unnest($1)))
            ORDER BY 1, 2""",
        [list(tables)],
    ).fetchall()
    return [ShoeKey(t, s) for t, s in rows]


def recorded_audits(
    con: Any, keys: Iterable[ShoeKey] | None = None
) -> dict[ShoeKey, tuple[int, Any]]:
    """Shoe -> (record no, entry) of the latest ``audit`` record naming it (all shoes when
    ``keys`` is None)."""
    where, params = _scope(None, keys)
    rows = con.execute(f"SELECT * FROM ({_LATEST_AUDIT_ENTRIES}) {where}", params).fetchall()
    return {
        ShoeKey(t, sh): (int(no), [t, sh, audit, json.loads(findings)])
        for no, t, sh, audit, findings in rows
    }


def shoes_of_days(con: Any, days: Sequence[dt.date]) -> list[ShoeKey]:
    rows = con.execute(
        "SELECT table_id, shoe FROM shoes WHERE gaming_day IN (SELECT unnest(?)) ORDER BY 1, 2",
        [list(days)],
    ).fetchall()
    return [ShoeKey(t, s) for t, s in rows]


def unread_inputs(con: Any) -> list[tuple[str, str, str]]:
    """(path, why, when last tried) of the inputs that could not be read at their last ingest."""
    rows = con.execute("SELECT path, reason, last_seen FROM unread_inputs ORDER BY path").fetchall()
    return [(p, r, t.isoformat(timespec="seconds")) for p, r, t in rows]
