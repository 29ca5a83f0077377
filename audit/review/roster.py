"""Accounts on the record: every account change is a record of the trail's ledger file.

Four eyes (issue 29, point 2) is only as strong as the accounts behind it, and
the ``accounts`` table is plain SQLite: an insider could ``UPDATE accounts SET
hash = ...`` to take over ``bob``, or insert ``mallory``, and nothing would
show. So every account created, disabled or given a new password is written,
before its transaction commits, as a record of the trail's own ledger file
(:func:`audit.review.trail.trail_ledger_path`), in the ``accounts`` chain of
that file: the same records, links, HMAC seals, fsync and commit markers as
the decisions' chain (:mod:`audit.store.ledger`, ``chain=``), numbered on
their own. A record holds a short digest of each of the account's fields
(:func:`AccountRow.digests`), the manager who authorised it, and how many
decisions the trail held then (``decisions``): that number orders accounts and
decisions, so a decision counts as a pair of eyes only when its account was
created before it and not yet disabled (:meth:`AccountRow.active_at`).

The account row keeps the hash of its latest record (``record``), and the
trail's settings the head of the chain (:data:`HEAD_SETTING`), so that records
cut from the file, or rows cut from the table, are both seen
(:func:`audit.integrity.trail.check_trail`).

A review file whose accounts predate their records gets one ``baseline``
record of them all on its first write: it vouches for them from then on, not
for before, and their earlier decisions keep counting as they did.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ACCOUNTS = "accounts"
"""The name of the accounts' chain in the trail's ledger file."""

ACCOUNT = "account"
"""The kind of the record of one account change (``action``: create, disable, passwd)."""

BASELINE = "baseline"
"""The kind of the record of every account a review file held before accounts had records."""

HEAD_SETTING = "accounts_head"
"""The ``settings`` key holding the accounts' chain head (``{"no": .., "hash": ..}``)."""

FIELDS = ("role", "kdf", "salt", "hash", "created_at", "since", "disabled_at", "disabled_after")
"""The fields of an account a record vouches for (its name is the key)."""

FIELD_WORDS = {
    "role": "role",
    "kdf": "password parameters",
    "salt": "password salt",
    "hash": "password hash",
    "created_at": "creation time",
    "since": "place in the trail",
    "disabled_at": "disabled flag",
    "disabled_after": "disabled flag",
}
"""How a changed field is named to people."""

COLUMNS = {
    "since": "INTEGER NOT NULL DEFAULT 0",
    "disabled_at": "TEXT",
    "disabled_after": "INTEGER",
    "record": "TEXT",
}
"""The columns issue 29 adds to the accounts table (in place: ``ALTER TABLE``)."""


@dataclass(frozen=True, slots=True)
class AccountRow:
    """One row of the accounts table, as stored."""

    name: str
    role: str
    kdf: str
    salt: str
    hash: str
    created_at: str
    since: int = 0
    """How many decisions the trail held when the account was created (0: a baseline)."""
    disabled_at: str | None = None
    disabled_after: int | None = None
    """How many decisions the trail held when the account was disabled."""
    record: str | None = None
    """The hash of the account's latest record in the trail's ledger file."""

    @property
    def disabled(self) -> bool:
        return self.disabled_at is not None

    def active_at(self, seq: int) -> bool:
        """Whether decision ``seq`` came after the account was created and before it was
        disabled: only then did the account stand behind it."""
        return self.since < seq and (self.disabled_after is None or seq <= self.disabled_after)

    def digests(self) -> dict[str, str]:
        """A short SHA-256 of each field a record vouches for (:data:`FIELDS`)."""
        from audit.store.ledger import canonical

        return {
            f: hashlib.sha256(canonical(getattr(self, f)).encode()).hexdigest()[:16] for f in FIELDS
        }


def _columns(con: sqlite3.Connection) -> set[str]:
    return {str(r[1]) for r in con.execute("PRAGMA table_info(accounts)")}


def migrate(con: sqlite3.Connection) -> None:
    """Add the columns of :data:`COLUMNS` to an older accounts table, in place."""
    have = _columns(con)
    for name, sql in COLUMNS.items():
        if name not in have:
            con.execute(f"ALTER TABLE accounts ADD COLUMN {name} {sql}")


def rows(con: sqlite3.Connection) -> list[AccountRow]:
    """Every account row by name (an older table without issue 29's columns reads as
    accounts on no record, never disabled; no table, as none)."""
    have = _columns(con)
    if not have:
        return []
    cols = ["name", "role", "kdf", "salt", "hash", "created_at"]
    cols += [c if c in have else ("0" if c == "since" else "NULL") for c in COLUMNS]
    got = con.execute(f"SELECT {', '.join(cols)} FROM accounts ORDER BY name").fetchall()
    return [
        AccountRow(
            name=str(r[0]),
            role=str(r[1]),
            kdf=str(r[2]),
            salt=str(r[3]),
            hash=str(r[4]),
            created_at=str(r[5]),
            since=int(r[6] or 0),
            disabled_at=None if r[7] is None else str(r[7]),
            disabled_after=None if r[8] is None else int(r[8]),
            record=None if r[9] is None else str(r[9]),
        )
        for r in got
    ]


def head(con: sqlite3.Connection) -> tuple[int, str] | None:
    """The accounts' chain head the review file recorded (None: no account on record yet)."""
    row = con.execute("SELECT value FROM settings WHERE key = ?", [HEAD_SETTING]).fetchone()
    if row is None:
        return None
    got = json.loads(row[0])
    return int(got["no"]), str(got["hash"])


def decisions_now(con: sqlite3.Connection) -> int:
    """How many decisions the trail holds (the ``seq`` of the last one)."""
    row = con.execute("SELECT coalesce(max(seq), 0) FROM decisions").fetchone()
    return int(row[0])


def change_body(
    row: AccountRow, action: str, *, by: str | None, user: str | None, at: str, decisions: int
) -> dict[str, Any]:
    """The body of the record of one change (``action``) of account ``row`` (as it is after)."""
    return {
        "kind": ACCOUNT,
        "action": action,
        "account": row.name,
        "by": by,
        "os_user": user,
        "at": at,
        "decisions": decisions,
        "fields": row.digests(),
    }


def baseline_body(accounts: Sequence[AccountRow], at: str, decisions: int) -> dict[str, Any]:
    """The body of the record of the accounts a review file held before they had records."""
    return {
        "kind": BASELINE,
        "at": at,
        "decisions": decisions,
        "accounts": {a.name: a.digests() for a in accounts},
    }


def append_records(
    con: sqlite3.Connection, path: Path, key: bytes | None, bodies: Iterable[dict[str, Any]]
) -> tuple[str, list[Any]]:
    """Append records to the accounts' chain of the trail's ledger file (fsync'ed), inside
    ``con``'s transaction, and move the head kept in the settings; return the commit marker
    to append after ``COMMIT`` and the records.

    Refuses (:class:`~audit.review.trail.ReviewError`) when the file does not end where the
    review file says the chain ends, or is sealed and no key is set."""
    from audit.review.trail import TRAIL_RESTART_COMMAND, ReviewError
    from audit.store.ledger import (
        LEDGER_VERSION,
        Record,
        append_durably,
        canonical,
        chain_hash,
        commit_line,
        read_tail,
        record_line,
    )

    tail = read_tail(path, key, chain=ACCOUNTS)
    if tail.sealed and key is None:
        raise ReviewError(
            f"the review trail's ledger file {str(path)!r} is sealed (HMAC) and "
            "SHOE_AUDIT_KEY is not set: set the key it was sealed with"
        )
    no, prev = head(con) or (0, "")
    at_head = (tail.marker is not None and tail.marker == (no, prev)) or (
        no > 0 and tail.after.get(no) == prev
    )
    if not at_head and not (no == 0 and tail.marker is None):
        raise ReviewError(
            f"the review trail's ledger file {str(path)!r} does not end at account record "
            f"#{no}: no account is changed until `shoe-audit verify` is read and the break "
            f"recorded with `{TRAIL_RESTART_COMMAND}`"
        )
    records = []
    for body in bodies:
        text = canonical({"v": LEDGER_VERSION, **body})
        no += 1
        rec = Record(no, str(body["kind"]), text, prev, chain_hash(prev, text))
        records.append(rec)
        prev = rec.hash
    if not records:
        return "", []
    append_durably(path, "".join(record_line(r, key, ACCOUNTS) for r in records))
    con.execute(
        "INSERT OR REPLACE INTO settings VALUES (?, ?)",
        [HEAD_SETTING, json.dumps({"no": no, "hash": prev})],
    )
    return commit_line(no, prev, key, ACCOUNTS), records


def baseline_due(con: sqlite3.Connection) -> list[AccountRow]:
    """The accounts to record in a baseline: those of a file whose accounts were never on
    record (no chain head yet, none with a record)."""
    if head(con) is not None:
        return []
    return [a for a in rows(con) if a.record is None]


def record_baseline(con: sqlite3.Connection, path: Path, key: bytes | None, at: str) -> str | None:
    """Record the accounts a review file held before they had records (once, on its first
    write), inside ``con``'s transaction; the commit marker, or None when none was due."""
    due = baseline_due(con)
    if not due:
        return None
    marker, recs = append_records(con, path, key, [baseline_body(due, at, decisions_now(con))])
    con.executemany(
        "UPDATE accounts SET record = ? WHERE name = ?", [(recs[0].hash, a.name) for a in due]
    )
    return marker


def on_record(records: Iterable[Any]) -> dict[str, tuple[int, str, Mapping[str, str]]]:
    """Each account's latest state on the record: name -> (record no, record hash, field
    digests), from the accounts' chain in order."""
    out: dict[str, tuple[int, str, Mapping[str, str]]] = {}
    for r in records:
        body = r.body
        if r.kind == ACCOUNT:
            out[str(body.get("account"))] = (r.no, r.hash, body.get("fields") or {})
        elif r.kind == BASELINE:
            for name, fields in (body.get("accounts") or {}).items():
                out[str(name)] = (r.no, r.hash, fields)
    return out


def changed_words(row: AccountRow, recorded: Mapping[str, str]) -> list[str]:
    """The fields of ``row`` that differ from their recorded digests, in words."""
    now = row.digests()
    words = [FIELD_WORDS.get(f, f) for f in FIELDS if now.get(f) != recorded.get(f)]
    return list(dict.fromkeys(words))


def now_stamp() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def file_chain(path: Path, key: bytes | None) -> Any:
    """The accounts' chain of the trail's ledger file (:func:`audit.store.ledger.read_file`)."""
    from audit.store.ledger import read_file

    return read_file(path, key, chain=ACCOUNTS)


def vouched(con: sqlite3.Connection, path: Path, key: bytes | None, row: AccountRow) -> bool:
    """Whether account ``row`` is as its latest record says, up to the chain head the review
    file recorded: an account inserted or changed behind the CLI's back is not (a file whose
    accounts never had records vouches for them as they are, until its first write)."""
    at = head(con)
    if at is None:
        return row.record is None and not _any_records(path, key)
    chain = file_chain(path, key)
    last = chain.get(at[0])
    if last is None or last.hash != at[1] or chain.problems:
        return False
    state = on_record(r for r in chain.records if r.no <= at[0])
    got = state.get(row.name)
    return got is not None and got[1] == row.record and not changed_words(row, got[2])


def _any_records(path: Path, key: bytes | None) -> bool:
    return path.exists() and bool(file_chain(path, key).records)


def restart(con: sqlite3.Connection, path: Path, key: bytes | None, at: str) -> str | None:
    """Start the accounts' chain again in a restarted trail ledger file (``ledger restart
    --trail``, on the record): a baseline of the accounts as they are; the commit marker."""
    con.execute("DELETE FROM settings WHERE key = ?", [HEAD_SETTING])
    con.execute("UPDATE accounts SET record = NULL")
    return record_baseline(con, path, key, at)


def differences(
    con: sqlite3.Connection, path: Path, key: bytes | None
) -> tuple[list[str], list[str]]:
    """What is wrong with the accounts against their records in the trail's ledger file:
    (differences, notes). Names each account inserted, changed or removed behind the CLI's
    back, and records cut from either copy."""
    found: list[str] = []
    accounts = rows(con)
    at = head(con)
    chain = file_chain(path, key) if path.exists() else None
    records = chain.records if chain is not None else []
    if at is None and not records:
        found += [
            f"account {a.name!r}: its record is gone (the review file no longer says where "
            "the accounts' records end)"
            for a in accounts
            if a.record is not None
        ]
        notes = ["the accounts predate their records: the review file's next write records "
                 "them as a baseline"] if accounts and not found else []  # fmt: skip
        return found, notes
    if chain is None:
        return [f"the accounts' records are gone with the trail's ledger file {str(path)!r}"], []
    found += chain.problems
    upto = at[0] if at is not None else 0
    if at is not None and ((last := chain.get(at[0])) is None or last.hash != at[1]):
        found.append(
            f"account record #{at[0]} is not in the trail's ledger file as the review file "
            "recorded it (the file was cut back or rewritten)"
        )
    for r in records:
        if upto < r.no <= chain.committed:
            who = r.body.get("account") or ", ".join(sorted(r.body.get("accounts") or {}))
            found.append(
                f"account record #{r.no} ({who}) removed from the review file after it was recorded"
            )
    state = on_record(r for r in records if r.no <= max(upto, chain.committed))
    names = {a.name for a in accounts}
    for a in accounts:
        got = state.get(a.name)
        if got is None:
            found.append(f"account {a.name!r}: not on the record (added behind the CLI's back)")
        elif words := changed_words(a, got[2]):
            found.append(f"account {a.name!r}: {' and '.join(words)} changed after it was recorded")
        elif a.record != got[1]:
            found.append(f"account {a.name!r}: its record changed after it was recorded")
    found += [
        f"account {name!r}: removed after it was recorded" for name in state if name not in names
    ]
    return found, []
