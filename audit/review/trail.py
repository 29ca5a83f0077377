"""The review trail: every decision a reviewer took on a finding, append-only and chained.

Issue 12, point 2. Decisions live in a small SQLite file beside the audit
database (:func:`trail_path`: ``audit.duckdb`` -> ``audit.reviews.sqlite``),
reached through Python's :mod:`sqlite3`, so that ``serve`` can write a review
while ``nightly`` holds the DuckDB file, and ``report``/``findings`` can read
them (DuckDB lets no other process open a file it has open for writing).

- **Append-only**: a decision is never updated or deleted; triggers refuse
  both in the file itself. A later decision supersedes an earlier one
  (:mod:`audit.review.status`), and the whole history stays.
- **Chained**, like the ingest ledger of issue 14: each decision carries the
  SHA-256 of the one before it and its own hash over its canonical JSON
  (:func:`decision_hash`), so a decision changed, removed or inserted after the
  fact breaks the chain (:meth:`ReviewTrail.verify`). The issue-14 ledger had
  not landed when this was written, so the chain is this module's own.
- Each decision keeps a **snapshot** of the finding as the reviewer saw it
  (code, place, figures, message), so a decision on a finding that a re-run no
  longer raises, or raises with other figures, stays readable and comparable.
- The reviewer's name (``--by``, or the signed-in account) and the operating
  system user of the process that wrote it are both recorded.
- **Authenticated** (issue 29, point 2): ``account`` is the account whose
  password was checked for the decision (``review --by`` asks for it, ``serve``
  has it from the sign-in); NULL for the decisions recorded under a typed name
  before accounts were required. The column is added in place to an older file
  (``ALTER TABLE``, which no trigger refuses), and a decision's hash covers it
  only when it is set, so every older decision still verifies as it was written.

No connection is held between calls: each method opens the file, does its
work in one transaction and closes it.

**Anchored** (issue 29, point 3): with the triggers dropped, a decision could be
edited, or the last one removed, with every hash recomputed, and nothing
noticed. So each decision is also written to the trail's own ledger file,
``<db stem>.reviews.ledger`` (:func:`trail_ledger_path`), in the format of the
database's ledger (:mod:`audit.store.ledger`: one chained JSON line a record,
HMAC-sealed with ``SHOE_AUDIT_KEY``, fsync'ed before the SQLite ``COMMIT``, a
commit marker after it). The record is numbered by the decision's ``seq`` and
holds its hash and a digest of each of its fields, so ``verify`` can say which
field changed. ``ingest`` and ``run`` record the trail's head in the database's
ledger, and a report pins it (:mod:`audit.integrity.trail`). ``serve`` writes
only these two files, never the database.
"""

from __future__ import annotations

import datetime as dt
import getpass
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from enum import StrEnum
from os import PathLike, fspath
from pathlib import Path
from typing import Any

from audit.errors import AuditError, InputError
from audit.findings import Finding, money_str

GENESIS = "0" * 64
"""The ``prev_hash`` of the first decision."""

BUSY_TIMEOUT_S = 5.0
"""How long a writer waits for another writer's transaction (SQLite's own lock)."""


class Verdict(StrEnum):
    """What a reviewer decided about a finding (``review --confirm|--dismiss|--needs-video``)."""

    CONFIRM = "confirm"
    DISMISS = "dismiss"
    NEEDS_VIDEO = "needs_video"


class ReviewError(AuditError):
    """The review trail cannot be used (unreadable file, broken chain on write)."""


_DDL = """
CREATE TABLE IF NOT EXISTS decisions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    finding_id TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('confirm', 'dismiss', 'needs_video')),
    note TEXT NOT NULL,
    by_name TEXT NOT NULL,
    os_user TEXT,
    via TEXT NOT NULL,
    at TEXT NOT NULL,
    snapshot TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE
);
CREATE INDEX IF NOT EXISTS decisions_by_finding ON decisions (finding_id, seq);
CREATE TRIGGER IF NOT EXISTS decisions_never_updated BEFORE UPDATE ON decisions
BEGIN SELECT RAISE(ABORT, 'the review trail is append-only: decisions are never updated'); END;
CREATE TRIGGER IF NOT EXISTS decisions_never_deleted BEFORE DELETE ON decisions
BEGIN SELECT RAISE(ABORT, 'the review trail is append-only: decisions are never deleted'); END;
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('reviewer', 'manager')),
    kdf TEXT NOT NULL,
    salt TEXT NOT NULL,
    hash TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS accounts_never_deleted BEFORE DELETE ON accounts
BEGIN SELECT RAISE(ABORT, 'accounts are never deleted: `shoe-audit users disable NAME`'); END;
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

ADJUSTMENTS_DDL = """
CREATE TABLE IF NOT EXISTS adjustments (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    table_id TEXT NOT NULL,
    gaming_day TEXT NOT NULL,
    shift TEXT,
    line TEXT NOT NULL,
    amount TEXT NOT NULL,
    reason TEXT NOT NULL,
    by_name TEXT NOT NULL,
    account TEXT NOT NULL,
    os_user TEXT,
    via TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    ref TEXT,
    reverses TEXT,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE
);
CREATE TRIGGER IF NOT EXISTS adjustments_never_updated BEFORE UPDATE ON adjustments
BEGIN SELECT RAISE(ABORT, 'adjustments are append-only: a correction reverses one'); END;
CREATE TRIGGER IF NOT EXISTS adjustments_never_deleted BEFORE DELETE ON adjustments
BEGIN SELECT RAISE(ABORT, 'adjustments are append-only: a correction reverses one'); END;
"""
"""The books' adjustments a manager records (issue 31, :mod:`audit.review.adjustments`):
append-only and chained like the decisions, in the ``adjustments`` chain of the ledger file."""


def trail_path(db: str | PathLike[str]) -> Path:
    """The review file beside an audit database (``audit.duckdb``: ``audit.reviews.sqlite``)."""
    p = Path(fspath(db))
    return p.with_name(f"{p.stem}.reviews.sqlite")


def trail_ledger_path(trail: str | PathLike[str]) -> Path:
    """The ledger file of a review file (``audit.reviews.sqlite``: ``audit.reviews.ledger``)."""
    return Path(fspath(trail)).with_suffix(".ledger")


TRAIL_RESTART_COMMAND = 'shoe-audit ledger restart --trail --why "..." --by NAME'
"""The recovery command for a lost or foreign trail ledger file (:mod:`audit.cli.ledger`)."""

LEDGER_SETTING = "ledger"
"""The ``settings`` key saying the trail keeps its ledger file (set with its first line):
a trail without it, and without its file, predates the file."""

DECISION = "decision"
"""The kind of a trail ledger record that holds one decision."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The finding as the reviewer saw it: what identifies it and its figures."""

    code: str
    severity: str
    table: str | None
    shoe: str | None
    round: int | None
    box: int | None
    hand: int | None
    spot: int | None
    expected: str | None
    actual: str | None
    impact: str | None
    message: str

    @classmethod
    def of(cls, f: Finding) -> Snapshot:
        return cls(
            code=str(f.code),
            severity=str(f.severity),
            table=f.table,
            shoe=f.shoe,
            round=f.round,
            box=f.box,
            hand=f.hand,
            spot=f.spot,
            expected=f.expected,
            actual=f.actual,
            impact=money_str(f.impact),
            message=f.message,
        )

    def figures(self) -> tuple[str | None, str | None, str | None]:
        """What a re-run may change while the breach keeps its id: expected, actual, impact."""
        return (self.expected, self.actual, self.impact)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}


@dataclass(frozen=True, slots=True)
class Decision:
    """One row of the trail."""

    seq: int
    finding_id: str
    verdict: Verdict
    note: str
    by: str
    os_user: str | None
    via: str
    at: str
    snapshot: Snapshot
    prev_hash: str
    hash: str
    account: str | None = None
    """The account whose password was checked (None: a typed name, not authenticated)."""
    active: bool = True
    """Whether ``account`` was on the record, created before this decision and not yet
    disabled (:meth:`audit.review.roster.AccountRow.active_at`); read, never hashed."""

    @property
    def authenticated(self) -> bool:
        """Whether an account's password stood behind this decision."""
        return self.account is not None

    @property
    def counts(self) -> bool:
        """Whether this decision is a pair of eyes: authenticated by an account that was
        active when it was taken."""
        return self.account is not None and self.active

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "finding_id": self.finding_id,
            "verdict": str(self.verdict),
            "note": self.note,
            "by": self.by,
            "os_user": self.os_user,
            "via": self.via,
            "at": self.at,
            "snapshot": self.snapshot.to_dict(),
            "prev_hash": self.prev_hash,
            "hash": self.hash,
            "account": self.account,
        }


def decision_hash(
    prev_hash: str,
    seq: int,
    finding_id: str,
    verdict: str,
    note: str,
    by: str,
    os_user: str | None,
    via: str,
    at: str,
    snapshot: dict[str, Any],
    account: str | None = None,
) -> str:
    """SHA-256 (hex) of a decision's canonical JSON, chained to the one before it.

    ``account`` is hashed only when set, so a decision from before accounts were
    required (no account) hashes exactly as it did when it was written.
    """
    fields: list[Any] = [prev_hash, seq, finding_id, verdict, note, by, os_user, via, at, snapshot]
    if account is not None:
        fields.append({"account": account})
    body = json.dumps(
        fields,
        ensure_ascii=False,
        separators=(",", ":"),
        sort_keys=True,
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def rehash(d: Decision, prev_hash: str) -> str:
    """The hash decision ``d`` must carry when it follows the one whose hash is ``prev_hash``:
    :func:`decision_hash` of its fields as stored (the one recomputation every check uses)."""
    return decision_hash(
        prev_hash, d.seq, d.finding_id, str(d.verdict), d.note, d.by, d.os_user, d.via, d.at,
        d.snapshot.to_dict(), d.account,
    )  # fmt: skip


def field_digests(d: Decision) -> dict[str, str]:
    """A short SHA-256 of each of a decision's fields (not its place in the chain), as its
    trail ledger record keeps them: enough to name the field changed, without copying a
    note into a second file."""
    from audit.store.ledger import canonical

    body = d.to_dict()
    for name in ("seq", "prev_hash", "hash"):
        body.pop(name, None)
    return {k: hashlib.sha256(canonical(v).encode()).hexdigest()[:16] for k, v in body.items()}


def ledger_body(d: Decision) -> dict[str, Any]:
    """The body of the trail ledger record of decision ``d`` (numbered ``d.seq``)."""
    return {
        "kind": DECISION,
        "finding": d.finding_id,
        "decision": d.hash,
        "fields": field_digests(d),
    }


def ledger_record(d: Decision, prev: str) -> Any:
    """The trail ledger record of decision ``d``, following the record whose hash is ``prev``."""
    from audit.store.ledger import LEDGER_VERSION, Record, canonical, chain_hash

    text = canonical({"v": LEDGER_VERSION, **ledger_body(d)})
    return Record(d.seq, DECISION, text, prev, chain_hash(prev, text))


@dataclass(frozen=True, slots=True)
class ChainCheck:
    """The result of :meth:`ReviewTrail.verify`."""

    decisions: int
    head: str
    broken_at: int | None
    """The ``seq`` of the first decision whose hash or link does not hold (None: intact)."""

    @property
    def ok(self) -> bool:
        return self.broken_at is None


def os_user() -> str | None:
    """The operating-system user of this process (recorded beside the reviewer's name)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER: say so
        return None


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


_COLUMNS = "seq, finding_id, verdict, note, by_name, os_user, via, at, snapshot, prev_hash, hash"
_READ = f"{_COLUMNS}, account"


def _migrate(con: sqlite3.Connection) -> None:
    """Bring an older trail's tables up to this version in place (the decisions' ``account``
    column, the accounts' columns of :mod:`audit.review.roster`)."""
    from audit.review import roster

    if not _has_account(con):
        con.execute("ALTER TABLE decisions ADD COLUMN account TEXT")
    roster.migrate(con)


def _has_account(con: sqlite3.Connection) -> bool:
    return any(row[1] == "account" for row in con.execute("PRAGMA table_info(decisions)"))


def _decision(row: Sequence[Any]) -> Decision:
    seq, fid, verdict, note, by, user, via, at, snap, prev, h, account = row
    return Decision(
        seq=int(seq),
        finding_id=str(fid),
        verdict=Verdict(verdict),
        note=str(note),
        by=str(by),
        os_user=user,
        via=str(via),
        at=str(at),
        snapshot=Snapshot(**json.loads(snap)),
        prev_hash=str(prev),
        hash=str(h),
        account=None if account is None else str(account),
    )


class ReviewTrail:
    """The review file of one audit database. Opens the file per call, never keeps it open."""

    def __init__(self, path: str | PathLike[str]) -> None:
        self.path = Path(fspath(path))

    @classmethod
    def beside(cls, db: str | PathLike[str]) -> ReviewTrail:
        """The trail of the audit database at ``db`` (:func:`trail_path`)."""
        return cls(trail_path(db))

    @property
    def exists(self) -> bool:
        return self.path.is_file()

    @property
    def ledger_path(self) -> Path:
        """The trail's own ledger file (:func:`trail_ledger_path`)."""
        return trail_ledger_path(self.path)

    @contextmanager
    def connect(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection for one unit of work: ``BEGIN IMMEDIATE`` ... ``COMMIT`` when
        ``write`` (the file and its tables are created then), else a plain read."""
        if not write and not self.exists:
            raise ReviewError(f"no review trail at {str(self.path)!r}")
        created = not self.exists
        try:
            con = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as exc:
            raise ReviewError(f"cannot open the review trail {str(self.path)!r}: {exc}") from None
        if created:  # it holds password hashes and the session secret: its owner only
            os.chmod(self.path, 0o600)
        try:
            con.execute("PRAGMA journal_mode = WAL")
            if write:
                con.executescript(_DDL + ADJUSTMENTS_DDL)
                _migrate(con)
                con.execute("BEGIN IMMEDIATE")
                try:
                    yield con
                except BaseException:
                    con.execute("ROLLBACK")
                    raise
                con.execute("COMMIT")
            else:
                yield con
        except sqlite3.DatabaseError as exc:
            raise ReviewError(f"review trail {str(self.path)!r}: {exc}") from None
        finally:
            con.close()

    # ------------------------------------------------------------------ decisions

    def record(
        self,
        finding: Finding,
        verdict: Verdict | str,
        *,
        note: str,
        by: str,
        via: str,
        user: str | None = None,
        at: str | None = None,
        account: str | None = None,
    ) -> Decision:
        """Append one decision on ``finding`` (which must carry its stable id).

        ``account``: the account whose password the caller checked (its name is then the
        reviewer's name); None records a typed name, which never counts as a pair of eyes.
        """
        if not finding.id:
            raise InputError("a finding needs its stable id to be reviewed")
        v = Verdict(verdict)
        by = account if account is not None else by.strip()
        if not by:
            raise InputError("a review needs the reviewer's name (--by NAME)")
        note = note.strip()
        if not note:
            raise InputError("a review needs a note (--note TEXT) saying why")
        snapshot = Snapshot.of(finding).to_dict()
        stamp = at or _now()
        snap = Snapshot(**snapshot)
        with self.connect(write=True) as con:
            if account is not None:
                _require_active(con, account)
            last = con.execute("SELECT seq, hash FROM decisions ORDER BY seq DESC LIMIT 1")
            row = last.fetchone()
            seq, prev = (int(row[0]) + 1, str(row[1])) if row else (1, GENESIS)
            h = decision_hash(
                prev, seq, finding.id, str(v), note, by, user, via, stamp, snapshot, account
            )
            made = Decision(seq, finding.id, v, note, by, user, via, stamp, snap, prev, h, account)
            markers = self._write_ledger(con, made)
            con.execute(
                f"INSERT INTO decisions ({_READ}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    seq,
                    finding.id,
                    str(v),
                    note,
                    by,
                    user,
                    via,
                    stamp,
                    json.dumps(snapshot, ensure_ascii=False, sort_keys=True),
                    prev,
                    h,
                    account,
                ],
            )
        from audit.store.ledger import append_durably

        # committed: mark it so (a decision whose COMMIT never came has no marker, and
        # the next one replaces its line: an interrupted decision is not tampering)
        with suppress(OSError):
            append_durably(self.ledger_path, "".join(markers))
        return made

    def open_ledger(self, con: sqlite3.Connection) -> list[str]:
        """Make the trail's ledger file ready for a write inside ``con``'s transaction, and
        return the commit markers to append after ``COMMIT``.

        A trail kept before its ledger file existed gets a record of every decision it
        holds first (committed at once: they are), and accounts kept before they had
        records a ``baseline`` record (:mod:`audit.review.roster`); neither can vouch for
        before. The file is never made afresh for a trail whose file was lost:
        :class:`ReviewError` names the recovery command.
        """
        from audit.review import roster
        from audit.store.ledger import append_durably, commit_line, key_from_env, record_line

        path = self.ledger_path
        key = key_from_env()
        kept = con.execute("SELECT value FROM settings WHERE key = ?", [LEDGER_SETTING]).fetchone()
        if not path.exists():
            if kept is not None:
                raise ReviewError(
                    f"the review trail's ledger file {str(path)!r} is missing: nothing is "
                    f"recorded until the break is recorded with `{TRAIL_RESTART_COMMAND}`"
                )
            prev, lines = "", []
            rows = con.execute(f"SELECT {_READ} FROM decisions ORDER BY seq").fetchall()
            for old in (_decision(r) for r in rows):  # a trail that predates its file
                rec = ledger_record(old, prev)
                lines.append(record_line(rec, key))
                prev = rec.hash
            if rows:
                lines.append(commit_line(len(rows), prev, key))
            append_durably(path, "".join(lines))
        if kept is None:
            con.execute("INSERT INTO settings VALUES (?, ?)", [LEDGER_SETTING, _now()])
        marker = roster.record_baseline(con, path, key, _now())
        return [] if marker is None else [marker]

    def _write_ledger(self, con: sqlite3.Connection, d: Decision) -> list[str]:
        """Append decision ``d``'s record to the trail's ledger file (fsync'ed), inside the
        transaction that inserts it; return the commit markers to append after ``COMMIT``
        (:meth:`open_ledger`'s, then the decision's)."""
        from audit.store.ledger import append_durably, commit_line, record_line

        markers = self.open_ledger(con)
        path = self.ledger_path
        key, prev = chain_end(path, d.seq, "decision")
        rec = ledger_record(d, prev)
        append_durably(path, record_line(rec, key))
        return [*markers, commit_line(rec.no, rec.hash, key)]

    def restart_accounts(self, at: str) -> None:
        """Start the accounts' chain again in a restarted ledger file: a baseline of the
        accounts as they are (``ledger restart --trail``, a break on the record)."""
        from audit.review import roster
        from audit.store.ledger import append_durably, key_from_env

        with self.connect(write=True) as con:
            marker = roster.restart(con, self.ledger_path, key_from_env(), at)
        if marker is not None:
            append_durably(self.ledger_path, marker)

    def decisions(self, finding_ids: Iterable[str] | None = None) -> list[Decision]:
        """Every decision (of ``finding_ids`` only, when given), in the order taken."""
        if not self.exists:
            return []
        with self.connect() as con:
            if not _has_decisions(con):
                return []
            # a trail no write has migrated yet reads as it is: no decision authenticated
            cols = _READ if _has_account(con) else f"{_COLUMNS}, NULL"
            if finding_ids is None:
                rows = con.execute(f"SELECT {cols} FROM decisions ORDER BY seq").fetchall()
            else:
                wanted = sorted(set(finding_ids))
                if not wanted:
                    return []
                rows = con.execute(
                    f"""SELECT {cols} FROM decisions
                        WHERE finding_id IN (SELECT value FROM json_each(?)) ORDER BY seq""",
                    [json.dumps(wanted)],
                ).fetchall()
            from audit.review import roster

            standing = {a.name: a for a in roster.rows(con)}
        out = []
        for d in map(_decision, rows):
            acct = standing.get(d.account) if d.account is not None else None
            if d.account is not None and (acct is None or not acct.active_at(d.seq)):
                d = replace(d, active=False)
            out.append(d)
        return out

    def history(self, finding_id: str) -> list[Decision]:
        """One finding's decisions, oldest first."""
        return self.decisions([finding_id])

    def by_finding(self) -> dict[str, list[Decision]]:
        """Every decision, grouped by finding id (each list oldest first)."""
        out: dict[str, list[Decision]] = {}
        for d in self.decisions():
            out.setdefault(d.finding_id, []).append(d)
        return out

    def verify(self) -> ChainCheck:
        """Recompute every decision's hash and link; name the first one that does not hold."""
        decisions = self.decisions()
        prev = GENESIS
        for i, d in enumerate(decisions, start=1):
            want = rehash(d, prev)
            if d.seq != i or d.prev_hash != prev or d.hash != want:
                return ChainCheck(len(decisions), decisions[-1].hash, d.seq)
            prev = d.hash
        return ChainCheck(len(decisions), prev, None)

    # ------------------------------------------------------------------ settings

    def setting(self, key: str) -> str | None:
        """The setting ``key`` (None: never set, or a file without settings yet); read-only."""
        with self.connect() as con:
            has = con.execute(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'settings'"
            ).fetchone()
            if not has or not has[0]:
                return None
            row = con.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        return None if row is None else str(row[0])

    def setting_or_create(self, key: str, make: Any) -> str:
        """The setting ``key``, created with ``make()`` the first time (in one transaction)."""
        with self.connect(write=True) as con:
            row = con.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
            if row:
                return str(row[0])
            value = str(make())
            con.execute("INSERT INTO settings VALUES (?, ?)", [key, value])
        return value


def _require_active(con: sqlite3.Connection, account: str) -> None:
    """Refuse a decision under an account that is gone or disabled (a web session signed in
    before the account was disabled), in the transaction that would record it."""
    row = con.execute("SELECT disabled_at FROM accounts WHERE name = ?", [account]).fetchone()
    if row is None or row[0] is not None:
        raise InputError(f"the account {account!r} is disabled: it can no longer review")


def _has_decisions(con: sqlite3.Connection) -> bool:
    row = con.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'decisions'"
    ).fetchone()
    return bool(row and row[0])


def chain_end(
    path: Path, seq: int, what: str, chain: str | None = None
) -> tuple[bytes | None, str]:
    """The key to seal with and the hash record ``seq`` of ``chain`` (None: the decisions')
    chains on to in the ledger file at ``path``: the hash of record ``seq - 1`` at the file's
    end ("" for the first record). Refused (:class:`ReviewError`, naming ``what``) when the
    file is sealed and no key is set, or does not end at record ``seq - 1``: a break is read
    with ``verify`` and recorded before anything more is."""
    from audit.store.ledger import key_from_env, read_tail

    key = key_from_env()
    tail = read_tail(path, key, chain=chain)
    if tail.sealed and key is None:  # an unsealed line after sealed ones is tampering
        raise ReviewError(
            f"the review trail's ledger file {str(path)!r} is sealed (HMAC) and "
            "SHOE_AUDIT_KEY is not set: set the key it was sealed with"
        )
    if tail.marker is not None and tail.marker[0] == seq - 1:
        return key, tail.marker[1]
    if seq - 1 in tail.after:
        return key, tail.after[seq - 1]
    if seq == 1 and tail.marker is None and not tail.after:
        return key, ""
    raise ReviewError(
        f"the review trail's ledger file {str(path)!r} does not end at {what} "
        f"#{seq - 1}: no {what} is recorded until `shoe-audit verify` is read "
        f"and the break recorded with `{TRAIL_RESTART_COMMAND}`"
    )
