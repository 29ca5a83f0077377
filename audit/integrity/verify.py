"""``shoe-audit verify [PATH...]``: recompute all the stored evidence (cli.md; issue 14, point 15).

In order:

1. the ledger: the table's chain recomputed, and compared record by record
   with the ledger file (every HMAC checked when ``SHOE_AUDIT_KEY`` is set).
   The file is the anchor for what follows: a record edited in the database,
   even with every hash recomputed, no longer matches it;
2. the events: per ingest and shoe, the count, the digest of the raw lines
   and the typed fingerprint against the ingest record; events that no
   ingest added; ids stored twice; and every event's typed columns against
   what its raw line gives (:mod:`audit.integrity.rederive`), which names
   each event whose typed row (what the engine reads) was edited;
3. the quarantine (the ``LOG_MALFORMED`` findings of ingest) per ingest;
4. findings and audit rows against each shoe's last ``audit`` record;
5. given the original files (``PATH...``): each file's SHA-256 against its
   ingest records, and line by line against the stored events
   (:mod:`audit.integrity.files`), aligned by event id, which names every
   event changed, removed or inserted, and each file (or part of one) that
   was never ingested.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from audit.integrity.check import (
    NO_KEY_NOTE,
    Difference,
    Head,
    Integrity,
    audit_differences,
    chain_differences,
    missing_ledger_file,
)
from audit.integrity.trail import TrailHead
from audit.store import ShoeKey, Store
from audit.store.evidence import (
    LineDigest,
    duckdb_version,
    line_digests,
    quarantine_digest,
    typed_fingerprints,
)
from audit.store.ledger import (
    BREAK,
    FileChain,
    Record,
    db_chain,
    key_from_env,
    ledger_path,
    read_file,
)
from audit.wording import counted


@dataclass(slots=True)
class Verification(Integrity):
    """What ``verify`` found, and what it looked at."""

    records: int = 0
    events: int = 0
    files: list[str] = field(default_factory=list)
    not_ingested: list[str] = field(default_factory=list)
    """One line per given file (or part of one) that no ingest read: not a difference."""
    trail: TrailHead | None = None
    """The review trail's head (issue 29, point 3)."""
    reports: int = 0
    """Archived reports whose pinned heads were checked (``--report``)."""


def verify(
    store: Store,
    paths: Iterable[str | PathLike[str]] = (),
    key: bytes | None = None,
    reports: Iterable[str | PathLike[str]] = (),
) -> Verification:
    """Recompute every digest and compare; name every difference (see the module's docstring).

    ``reports``: archived report folders whose pinned heads must still be in the chains
    (:mod:`audit.integrity.pinned`)."""
    from audit.integrity.trail import check_trail, recorded_heads
    from audit.review import ReviewError, ReviewTrail

    key = key if key is not None else key_from_env()
    out = Verification()
    file = _ledger_file(store, key)
    anchor = _ledger(store, key, out, file)
    out.records = len(anchor)
    _events(store, anchor, out)
    _quarantine(store, anchor, out)
    out.differences += audit_differences(store, None, _audits(anchor))
    trail = ReviewTrail.beside(store.path) if store.path != ":memory:" else None
    decisions = []
    if trail is not None:
        found = check_trail(trail, recorded_heads(anchor), key=key)
        out.differences += found.differences
        out.notes += found.notes
        out.trail = found.head
        with suppress(ReviewError):
            decisions = trail.decisions()
    given = list(paths)
    if given:
        from audit.integrity.files import compare_files

        compare_files(store, given, anchor, out)
    for folder in reports:
        from audit.integrity.pinned import check_report

        check_report(Path(folder), store, db_chain(store.con), file, decisions, key, out)
        out.reports += 1
    return out


def _ledger_file(store: Store, key: bytes | None) -> FileChain | None:
    path = ledger_path(store.path)
    return None if path is None else read_file(path, key)


def _ledger(
    store: Store, key: bytes | None, out: Verification, chain: FileChain | None
) -> list[Record]:
    """Check the chain; return the records to check the data against (the file's, if any).

    A file restarted by ``shoe-audit ledger restart`` begins with its ``break``: the
    records before it are the database's alone (the lost file cannot be read), a known,
    recorded break, not tampering; everything from the break on is compared."""
    db = db_chain(store.con)
    out.differences += chain_differences(db)
    if db:
        out.head = Head(db[-1].no, db[-1].hash, key is not None)
    if key is None:
        out.notes.append(NO_KEY_NOTE)
    path = ledger_path(store.path)
    if path is None or chain is None:
        out.notes.append("an in-memory database has no ledger file")
        return db
    if not chain.exists:
        out.differences += missing_ledger_file(path, db)
        return db
    out.differences += [Difference("ledger", p) for p in chain.problems]
    for r in db:
        if r.kind == BREAK:
            out.notes.append(_break_note(r))
    by_no = {r.no: r for r in chain.records}
    for r in db:
        if r.no < chain.first:
            continue  # before the recorded break: the lost file's, checked as a chain only
        f = by_no.get(r.no)
        if f is None:
            out.differences.append(
                Difference("ledger", f"record {r.no} of the database is not in the ledger file")
            )
        elif f.hash != r.hash or f.body_text != r.body_text:
            out.differences.append(
                Difference("ledger", f"record {r.no} ({r.kind}) differs from the ledger file's")
            )
    if chain.committed > len(db):
        out.differences.append(
            Difference(
                "ledger",
                f"records {len(db) + 1} to {chain.committed} were committed (ledger file) "
                "but are missing from the database",
            )
        )
    uncommitted = chain.last - max(chain.committed, len(db))
    if uncommitted > 0:
        out.notes.append(
            f"the ledger file ends with {uncommitted} records of a transaction that did not "
            "commit (an interrupted command): not part of the data"
        )
    # The file is the anchor, up to what the database holds (an uncommitted tail is not);
    # before a recorded break, the database's own records.
    if not chain.records:
        return db
    upto = max(chain.committed, len(db))
    return db[: chain.first - 1] + [r for r in chain.records if r.no <= upto]


def _vouched(body: dict[str, Any]) -> str:
    v = body.get("vouches") or {}
    if "no" in v:
        return f"ledger record {v['no']} (sha256 {v['hash']})"
    if v.get("decisions"):
        return f"review decision #{v['decisions']} (sha256 {v['head']})"
    return "an empty chain"


def _break_note(r: Record) -> str:
    body = r.body
    what = "the review trail's ledger file" if body.get("ledger") == "trail" else "the ledger file"
    return (
        f"a known, recorded break (ledger record {r.no}): {what} was restarted on "
        f"{body.get('at')} by {body.get('by')} (OS user {body.get('os_user')}), because "
        f"{body.get('why')!r}; it vouches for what came before, from {_vouched(body)}"
        + _lost_note(body)
    )


def _lost_note(body: dict[str, Any]) -> str:
    lost = body.get("lost_records")
    if not isinstance(lost, dict):
        return ""
    return (
        f"; the database had lost records #{lost.get('from')} to #{lost.get('to')} of the "
        "old file (restored from a backup, or cut back): recorded as lost, not checked"
    )


def _ingests(anchor: list[Record]) -> dict[int, tuple[Record, dict[str, Any]]]:
    out = {}
    for r in anchor:
        if r.kind == "ingest":
            body = r.body
            if body.get("ingest") is not None:
                out[int(body["ingest"])] = (r, body)
    return out


def _events(store: Store, anchor: list[Record], out: Verification) -> None:
    con = store.con
    ingests = _ingests(anchor)
    stored = typed_fingerprints(con)
    lines = line_digests(con)
    out.events = sum(n for n, _ in stored.values())
    version = duckdb_version()
    seen: set[tuple[int, str, str]] = set()
    for ingest, (rec, body) in sorted(ingests.items()):
        where = f"ingest {ingest} ({body.get('path')}, ledger record {rec.no})"
        if lines.get(ingest, LineDigest().hexdigest()) != body.get("lines"):
            out.differences.append(
                Difference(
                    "events",
                    f"the lines {where} added are no longer those it read (changed, inserted "
                    "or removed); give the original files to name them",
                )
            )
        for table, shoe, n, typed in body.get("shoes", []):
            seen.add((ingest, table, shoe))
            have = stored.get((ingest, table, shoe))
            if have is None:
                out.differences.append(
                    Difference(
                        "events",
                        f"{'the' if n == 1 else 'all'} {counted(n, 'event')} added by {where} "
                        f"{'was' if n == 1 else 'were'} removed",
                        table,
                        shoe,
                    )
                )
                continue
            hn, htyped = have
            if hn != n:
                what = "removed" if hn < n else "inserted"
                out.differences.append(
                    Difference(
                        "events",
                        f"{counted(abs(n - hn), 'event')} {what} among those added by {where} "
                        f"({n} recorded, {hn} stored)",
                        table,
                        shoe,
                    )
                )
            elif htyped != typed and body.get("duckdb") == version:
                out.differences.append(
                    Difference(
                        "events", f"typed columns of events added by {where} changed", table, shoe
                    )
                )
    for (ingest, table, shoe), (n, _) in sorted(stored.items(), key=lambda kv: str(kv[0])):
        if (ingest, table, shoe) not in seen:
            ids = [
                i
                for (i,) in con.execute(
                    """SELECT id FROM events WHERE ingest_id IS NOT DISTINCT FROM ?
                       AND table_id = ? AND shoe IS NOT DISTINCT FROM ? ORDER BY seq, id""",
                    [ingest, table, shoe],
                ).fetchall()
            ]
            out.differences.append(
                Difference(
                    "events",
                    f"{counted(n, 'event')} no ingest added (ingest_id {ingest}): "
                    f"ids {', '.join(ids[:20])}"
                    + (f" and {len(ids) - 20} more" if len(ids) > 20 else ""),
                    table,
                    shoe,
                    events=tuple(ids[:20]),
                )
            )
    for table, shoe, eid, copies in con.execute(
        """SELECT table_id, shoe, id, count(*) FROM events GROUP BY ALL HAVING count(*) > 1
           ORDER BY 1, 2, 3"""
    ).fetchall():
        out.differences.append(
            Difference("events", f"id {eid} is stored {copies} times", table, shoe, events=(eid,))
        )
    from audit.integrity.rederive import rederive

    out.differences += rederive(store)


def _audits(anchor: list[Record]) -> dict[ShoeKey, tuple[int, Any]]:
    """Shoe -> (record no, entry) of the latest ``audit`` record naming it."""
    out: dict[ShoeKey, tuple[int, Any]] = {}
    for r in anchor:
        if r.kind == "audit":
            for entry in r.body.get("shoes", []):
                out[ShoeKey(entry[0], entry[1])] = (r.no, entry)
    return out


def _quarantine(store: Store, anchor: list[Record], out: Verification) -> None:
    for ingest, (rec, body) in sorted(_ingests(anchor).items()):
        recorded = body.get("quarantine")
        if recorded is None:
            continue
        have = quarantine_digest(store.con, ingest)
        if json.dumps(have) != json.dumps(recorded):
            out.differences.append(
                Difference(
                    "quarantine",
                    f"the rejected lines of ingest {ingest} ({body.get('path')}, ledger record "
                    f"{rec.no}) changed: {recorded[0]} recorded, {have[0]} stored",
                )
            )
