"""The tamper-evidence ledger: a hash chain of records, in the database and in a file beside it.

Issue 14, point 15; rules.md ``LOG_TAMPERED``; cli.md ``verify``. A hash kept
beside the data proves nothing to someone who can rewrite the hash too, so
every record is written twice: to the ``ledger`` table and, appended, to the
plain file ``<database>.ledger`` (one JSON object a line). Each record holds
the hash of the one before (``prev``) and its own (``hash``, the SHA-256 of
``prev``, a newline and its body's canonical JSON), so changing any record
changes the hash of every later one. With ``SHOE_AUDIT_KEY`` set, each line of
the file also carries an HMAC-SHA256 of itself under that key, which never
enters the database: without the key nobody can write a line that passes.

Records:

* ``ingest`` (one per input file and ingest): the file's SHA-256, size and
  line counts; the digest of the lines it added, exactly as received
  (:data:`LINES_DIGEST`); per shoe, the count of those events and a
  fingerprint of their typed columns (:data:`TYPED_FINGERPRINT`, what the
  engine reads); the count and digest of the lines it quarantined. The
  events and quarantine rows carry ``ingest_id``, the record's ``ingest``;
* ``audit`` (one per ``run`` transaction): per shoe audited, a fingerprint of
  its ``shoe_audits`` row and one of each finding written (with the finding's
  code and place, so a finding removed by hand can be named);
* ``baseline``: what a database migrated to schema 4 already held, recorded
  once, on the first write after the migration.

The file is written before the transaction commits (and fsync'ed); after the
``COMMIT`` a line ``{"commit": no, "hash": ...}`` marks the records up to
``no`` as committed. Records after the last marker that the database lacks
are a transaction that did not commit (an interrupted ingest), not tampering;
committed ones it lacks were removed.

A file may hold parallel chains: a line with a ``chain`` key belongs to that
chain, numbered, linked and committed on its own (the review trail's file keeps
its decisions in the main chain and its accounts in ``accounts``,
:mod:`audit.review.roster`); ``read_file``, ``read_tail`` and ``first_record``
read one chain at a time.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from audit.errors import StoreError
from audit.store.fields import GAMES_COLUMNS
from audit.store.rows import EVENT_COLUMNS
from audit.store.schema import V12_EVENT_COLUMNS

LEDGER_VERSION = 1
BREAK = "break"
"""The kind of the record a restarted ledger file begins with (:func:`restart`)."""
KEY_ENV = "SHOE_AUDIT_KEY"
LEDGER_SUFFIX = ".ledger"

TYPED_COLUMNS: tuple[str, ...] = tuple(c for c in EVENT_COLUMNS if c != "raw")
"""The columns the typed fingerprint covers: every column of an event but its raw line
(which the raw digest covers), as of ledger version 1."""

LINES_DIGEST = "sha256-lines-v1"
"""How an ingest record's ``lines`` digest is taken (:class:`audit.store.evidence.LineDigest`):
the SHA-256 of the lines the ingest added, exactly as received, each followed by
a newline, in the file's line order (a table's events are in ``seq`` order in its
file, event-log.md). For a file every line of which went in, it is the file's
own SHA-256. It is taken from the bytes as they are read, and recomputed by
``verify`` from the stored ``raw`` column."""

_V10_TYPED = tuple(c for c in TYPED_COLUMNS if c not in GAMES_COLUMNS)
_V11_TYPED = tuple(c for c in _V10_TYPED if c not in V12_EVENT_COLUMNS)
_V12_NULL = " AND ".join(f'"{c}" IS NULL' for c in V12_EVENT_COLUMNS)
_GAMES_ALONE = "".join(
    f' + CASE WHEN "{c}" IS NULL THEN 0 ELSE hash(\'{c}\', "{c}")::HUGEINT END'
    for c in GAMES_COLUMNS
)
TYPED_SUM = (
    f"sum(CASE WHEN {_V12_NULL} "
    "THEN hash(" + ", ".join(f'"{c}"' for c in _V11_TYPED) + ") "
    "ELSE hash(" + ", ".join(f'"{c}"' for c in _V10_TYPED) + ") END::HUGEINT" + _GAMES_ALONE + ")"
)
"""The sum of DuckDB's 64-bit hash of each event's typed columns, as a HUGEINT. An event
whose TEL/1 v1.2 columns are all NULL (every v1.1 event) hashes its v1.1 columns alone,
as ledger records made before schema 9 did: old databases verify unchanged. A column
schema 11 added (games.md §2: ``side_limits``) is hashed on its own, only where it
holds a value, so every event stored before it keeps its fingerprint."""

TYPED_FINGERPRINT = f"CAST({TYPED_SUM} AS VARCHAR)"
"""Per shoe: the sum of DuckDB's 64-bit hash of each event's typed columns. A cheap
tripwire that ``run`` and ``report`` recompute for the shoes they read (an
``UPDATE`` of ``amount`` that leaves ``raw`` alone changes it); it is not a
cryptographic hash, so ``verify`` also checks that each typed row still
follows from its raw line, which the raw digest anchors."""


RESTART_COMMAND = 'shoe-audit ledger restart --why "..." --by NAME'
"""The recovery command for a ledger file lost or foreign (:mod:`audit.cli.ledger`)."""


class LedgerError(StoreError):
    """The ledger file cannot be written: it is missing, or does not continue the chain."""


def missing_file_text(path: Path) -> str:
    """What a command says of a ledger file that is gone while its chain has records."""
    return (
        f"the ledger file {str(path)!r} is missing while the database's chain has records: "
        f"nothing is written until the break is recorded with `{RESTART_COMMAND}`"
    )


def ledger_path(db_path: str | os.PathLike[str]) -> Path | None:
    """``<database>.ledger``; None for an in-memory database."""
    text = os.fspath(db_path)
    return None if text == ":memory:" else Path(text + LEDGER_SUFFIX)


def key_from_env() -> bytes | None:
    """The HMAC key, from ``SHOE_AUDIT_KEY`` (None when unset or empty)."""
    value = os.environ.get(KEY_ENV)
    return value.encode("utf-8") if value else None


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(obj: Any) -> str:
    """The one JSON text of ``obj`` that hashes are taken over (sorted keys, no spaces)."""
    return _CANONICAL.encode(obj)  # one encoder: json.dumps made one a call


def chain_hash(prev: str, body_text: str) -> str:
    return hashlib.sha256(f"{prev}\n{body_text}".encode()).hexdigest()


def seal(key: bytes, text: str) -> str:
    """The HMAC-SHA256 of ``text`` under ``key``, hex."""
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def fingerprint(values: Sequence[Any], size: int = 32) -> str:
    """A short SHA-256 of a row's values (money and dates as text), for audit records."""
    return hashlib.sha256(canonical([_plain(v) for v in values]).encode()).hexdigest()[:size]


def _plain(v: Any) -> Any:
    kind = type(v)
    if kind is str or kind is int or v is None:  # most values: one test, not four
        return v
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


@dataclass(frozen=True, slots=True)
class Record:
    """One link of the chain."""

    no: int
    kind: str
    body_text: str
    prev: str
    hash: str

    @property
    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(self.body_text)
        return body

    def intact(self) -> bool:
        """Whether ``hash`` is the hash of ``prev`` and the body."""
        return self.hash == chain_hash(self.prev, self.body_text)


# --------------------------------------------------------------------------- the file


def sealed_line(obj: dict[str, Any], key: bytes | None) -> str:
    """One line of a ledger file: ``obj``'s canonical JSON, with its HMAC under ``key``."""
    if key is not None:
        obj = {**obj, "hmac": seal(key, canonical(obj))}
    return canonical(obj) + "\n"


def record_line(r: Record, key: bytes | None, chain: str | None = None) -> str:
    """The ledger-file line of a record (of the parallel chain ``chain`` of the file, when
    given: :func:`read_file` reads one chain of a file at a time)."""
    line: dict[str, Any] = {"no": r.no, "kind": r.kind, "prev": r.prev, "hash": r.hash}
    if chain is not None:
        line["chain"] = chain
    return sealed_line({**line, "body": r.body}, key)


def commit_line(no: int, h: str, key: bytes | None, chain: str | None = None) -> str:
    """The commit marker of record ``no`` (of ``chain``) in a ledger file."""
    marker: dict[str, Any] = {"commit": no, "hash": h}
    if chain is not None:
        marker["chain"] = chain
    return sealed_line(marker, key)


def append_durably(path: Path, text: str, *, create: bool = True) -> None:
    """Append ``text`` and make it durable before going on (the database commits after).

    ``create=False``: the file must exist (a ledger file is never made afresh for a
    chain that already has records: :class:`LedgerError`)."""
    flags = os.O_WRONLY | os.O_APPEND | (os.O_CREAT if create else 0)
    try:
        fd = os.open(path, flags, 0o644)
    except FileNotFoundError:
        raise LedgerError(missing_file_text(path)) from None
    try:
        data = text.encode("utf-8")
        while data:
            data = data[os.write(fd, data) :]
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(slots=True)
class FileChain:
    """The ledger file as read: its chain, how far it is committed, what is wrong with it."""

    records: list[Record] = field(default_factory=list)
    committed: int = 0
    problems: list[str] = field(default_factory=list)
    unsealed: int = 0
    """Lines without an HMAC (when a key was given to check them)."""
    exists: bool = True
    first: int = 1
    """The number of the file's first record: 1, or that of the ``break`` a restarted
    file begins with (:func:`restart`); ``records[i]`` is record ``first + i``."""

    @property
    def last(self) -> int:
        """The number of the file's last record (``first - 1`` when it has none)."""
        return self.first + len(self.records) - 1

    def get(self, no: int) -> Record | None:
        """Record ``no``, if the file holds it."""
        i = no - self.first
        return self.records[i] if 0 <= i < len(self.records) else None


def read_file(path: Path, key: bytes | None, chain: str | None = None) -> FileChain:
    """Read and check the ledger file: links, hashes, commit markers, HMACs (with ``key``).

    ``chain``: the parallel chain to read (lines whose ``chain`` is that name; None: the
    lines without one, the file's main chain). A file may hold several chains, each
    numbered, linked and committed on its own (the review trail's decisions and its
    accounts).

    Without ``key`` the seals cannot be checked, but a line without one after sealed
    lines is a problem all the same: the file was sealed, and someone without the key
    added to it (a sealed file never goes back to unsealed lines).

    A record numbered at or below the chain's end replaces an uncommitted
    tail (a transaction that did not commit, then a later one); replacing a
    committed record is a problem.
    """
    out = FileChain()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        out.exists = False
        return out
    except (OSError, UnicodeDecodeError) as exc:
        out.problems.append(f"the ledger file {str(path)!r} cannot be read: {exc}")
        return out
    recs = out.records
    sealed = False
    # "\n" only: str.splitlines also splits at U+0085, U+2028 and the like, which ids may hold.
    for n, line in enumerate(text.split("\n"), start=1):
        if not line:
            continue
        where = f"{path}:{n}"
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise ValueError("not an object")
        except ValueError:
            if chain is None:  # a broken line is named once, by the main chain's reader
                out.problems.append(f"{where}: not a ledger line")
            continue
        if obj.get("chain") != chain:
            continue
        if key is not None:
            mac = obj.pop("hmac", None)
            if mac is None:
                out.unsealed += 1
                out.problems.append(f"{where}: no HMAC (written without SHOE_AUDIT_KEY?)")
            elif not hmac.compare_digest(str(mac), seal(key, canonical(obj))):
                out.problems.append(f"{where}: HMAC does not match (the line was changed)")
        elif obj.pop("hmac", None) is not None:
            sealed = True
        elif sealed:  # no key to check seals with, but a seal missing after sealed lines
            out.problems.append(
                f"{where}: no HMAC, while the lines before it are sealed (added by someone "
                "without SHOE_AUDIT_KEY)"
            )
        if "commit" in obj:
            no, h = obj.get("commit"), obj.get("hash")
            rec_at = out.get(no) if isinstance(no, int) else None
            if rec_at is None or rec_at.hash != h:
                out.problems.append(f"{where}: commit marker for record {no} matches no record")
            else:
                out.committed = max(out.committed, rec_at.no)
            continue
        try:
            rec = Record(
                int(obj["no"]), str(obj["kind"]), canonical(obj["body"]), obj["prev"], obj["hash"]
            )
        except (KeyError, TypeError, ValueError):
            out.problems.append(f"{where}: not a ledger record")
            continue
        if not recs and rec.kind == BREAK and rec.no > 1:
            out.first = rec.no  # a restarted file: the break vouches for what came before
        elif rec.no <= out.last:
            if rec.no <= out.committed:
                out.problems.append(f"{where}: record {rec.no} written again after its commit")
                continue
            del recs[rec.no - out.first :]  # an uncommitted tail, replaced
        if rec.no != out.last + 1:
            out.problems.append(f"{where}: record {rec.no} follows record {out.last}")
            continue
        prev = recs[-1].hash if recs else (rec.prev if out.first > 1 else "")
        if rec.prev != prev or not rec.intact():
            out.problems.append(f"{where}: record {rec.no} does not follow from the one before")
        recs.append(rec)
    return out


# --------------------------------------------------------------------------- the table


def db_head(con: Any) -> tuple[int, str] | None:
    """(no, hash) of the ledger table's last record; None when the chain is empty."""
    rows = con.execute("SELECT no, hash FROM ledger ORDER BY no DESC LIMIT 1").fetchall()
    return (int(rows[0][0]), str(rows[0][1])) if rows else None


def db_chain(con: Any) -> list[Record]:
    rows = con.execute("SELECT no, kind, body, prev, hash FROM ledger ORDER BY no").fetchall()
    return [Record(*r) for r in rows]


def db_hash_at(con: Any, no: int) -> str | None:
    """The hash of the ledger table's record ``no`` (None: no such record)."""
    rows = con.execute("SELECT hash FROM ledger WHERE no = ?", [no]).fetchall()
    return str(rows[0][0]) if rows else None


def db_last_of_kind(con: Any, kind: str) -> tuple[int, dict[str, Any]] | None:
    """The number and body of the ledger table's last record of ``kind`` (one indexed read)."""
    rows = con.execute(
        "SELECT no, body FROM ledger WHERE kind = ? ORDER BY no DESC LIMIT 1", [kind]
    ).fetchall()
    return (int(rows[0][0]), json.loads(rows[0][1])) if rows else None


def append(store: Any, bodies: Iterable[dict[str, Any]]) -> list[Record]:
    """Append records to the chain, inside the caller's transaction.

    The ledger file gets them at once (fsync'ed); its commit marker follows
    the ``COMMIT`` (``store.after_commit``). A database migrated to schema 4
    first records what it already held (``baseline``).
    """
    con = store.con
    bodies = list(bodies)
    if store.meta("ledger_baseline") == "needed":
        from audit.store.evidence import baseline_bodies

        bodies = baseline_bodies(store) + bodies
        store.set_meta("ledger_baseline", "done")
    if not bodies:
        return []
    last = con.execute("SELECT no, hash FROM ledger ORDER BY no DESC LIMIT 1").fetchall()
    no, prev = (int(last[0][0]), str(last[0][1])) if last else (0, "")
    first_no = no + 1
    records = []
    for body in bodies:
        text = canonical({"v": LEDGER_VERSION, **body})
        no += 1
        rec = Record(no, str(body["kind"]), text, prev, chain_hash(prev, text))
        records.append(rec)
        prev = rec.hash
    con.executemany(
        "INSERT INTO ledger VALUES (?, ?, ?, ?, ?)",
        [(r.no, r.kind, r.body_text, r.prev, r.hash) for r in records],
    )
    path = ledger_path(store.path)
    if path is not None:
        key = key_from_env()
        # the file is made with the chain's first record, never for a chain under way
        append_durably(path, "".join(record_line(r, key) for r in records), create=first_no == 1)
        head = records[-1]
        store.after_commit(
            lambda: append_durably(path, sealed_line({"commit": head.no, "hash": head.hash}, key))
        )
    return records


def chain_audits(
    store: Any, keys: Sequence[Any], at: dt.datetime, entries: dict[Any, Any] | None = None
) -> None:
    """Record what ``run`` just wrote for ``keys``, inside its transaction (an ``audit`` record).

    ``entries``: theirs, made (:func:`audit.store.evidence.entries_of`) from the rows just
    inserted; None: read back."""
    from audit.store.evidence import audit_body

    append(store, [audit_body(store.con, keys, at, entries)])


@dataclass(slots=True)
class Tail:
    """The end of the ledger file: its last commit marker and the records after it."""

    exists: bool = True
    marker: tuple[int, str] | None = None
    """(record no, hash) of the last commit marker; None when the file has none."""
    after: dict[int, str] = field(default_factory=dict)
    """Record no -> hash of the records written after that marker."""
    problems: list[str] = field(default_factory=list)
    sealed: bool | None = None
    """Whether the file's last line carries an HMAC (None: the file has no line)."""


def read_tail(
    path: Path, key: bytes | None, start: int = 1 << 16, chain: str | None = None
) -> Tail:
    """The last commit marker of the ledger file and what follows it (HMACs checked with ``key``),
    in the parallel chain ``chain`` (None: the main one, :func:`read_file`); ``sealed`` is
    that of the file's last line, whichever chain it belongs to.

    Reads backwards from the end, doubling the span until a marker is found:
    a check costs the same whatever the length of the history.
    """
    out = Tail()
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        out.exists = False
        return out
    span = start
    with path.open("rb") as fh:
        while True:
            offset = max(0, size - span)
            fh.seek(offset)
            data = fh.read()
            lines = data.split(b"\n")
            if offset:
                lines = lines[1:]  # cut mid-line
            out.after.clear()
            out.problems.clear()
            out.sealed = None
            for raw in reversed([x for x in lines if x.strip()]):
                try:
                    obj = json.loads(raw)
                    if not isinstance(obj, dict):
                        raise ValueError
                except ValueError:
                    out.problems.append(f"{path}: a line near the end is not a ledger line")
                    continue
                mac = obj.pop("hmac", None)
                if out.sealed is None:
                    out.sealed = mac is not None
                if obj.get("chain") != chain:
                    continue
                if key is not None and (
                    mac is None or not hmac.compare_digest(str(mac), seal(key, canonical(obj)))
                ):
                    what = "has no HMAC" if mac is None else "has an HMAC that does not match"
                    which = obj.get("no", obj.get("commit"))
                    out.problems.append(f"{path}: the line of record {which} {what}")
                if "commit" in obj:
                    out.marker = (int(obj["commit"]), str(obj.get("hash")))
                    return out
                if isinstance(obj.get("no"), int):
                    out.after[obj["no"]] = str(obj.get("hash"))
            if offset == 0:
                return out
            span *= 2


def first_record(path: Path, chain: str | None = None) -> Record | None:
    """The first record of a ledger file (its first line of ``chain``, :func:`read_file`),
    unchecked; None when the file is missing, empty, or does not begin with a record."""
    try:
        with path.open("rb") as fh:
            obj = json.loads(fh.readline())
            while isinstance(obj, dict) and obj.get("chain") != chain:
                line = fh.readline()
                if not line:
                    return None
                obj = json.loads(line)
        return Record(
            int(obj["no"]), str(obj["kind"]), canonical(obj["body"]), obj["prev"], obj["hash"]
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def restart(path: Path, body: dict[str, Any], no: int, prev: str, *, store: Any = None) -> Record:
    """Start a new ledger file at ``path`` with a ``break`` record numbered ``no``, linked
    to ``prev``; the file must not exist yet (a foreign one is moved aside first).

    With ``store`` (the database's own ledger), the record is also appended to its
    ledger table, in the caller's transaction, and the file's commit marker follows the
    ``COMMIT``; without (the review trail's file), the marker follows at once.
    """
    text = canonical({"v": LEDGER_VERSION, **body, "kind": BREAK})
    rec = Record(no, BREAK, text, prev, chain_hash(prev, text))
    if store is not None:
        store.con.execute(
            "INSERT INTO ledger VALUES (?, ?, ?, ?, ?)",
            [rec.no, rec.kind, rec.body_text, rec.prev, rec.hash],
        )
    key = key_from_env()
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    append_durably(path, record_line(rec, key))
    marker = sealed_line({"commit": rec.no, "hash": rec.hash}, key)
    if store is not None:
        store.after_commit(lambda: append_durably(path, marker))
    else:
        append_durably(path, marker)
    return rec


def ensure_baseline(store: Any) -> bool:
    """Record a migrated database's existing data now, if not yet done; whether it was due."""
    if store.meta("ledger_baseline") != "needed":
        return False
    with store.transaction():
        append(store, [])
    return True


def retire_ledger_file(db_path: str) -> Path | None:
    """Move aside the ledger file of a database that no longer exists (a new one is made).

    It is evidence about the old database, so it is kept, renamed
    ``<database>.ledger.retired-<UTC time>``; the new database starts a new chain.
    """
    path = ledger_path(db_path)
    if path is None or not path.exists():
        return None
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(f"{path.name}.retired-{stamp}")
    path.rename(target)
    return target
