"""Reviewer accounts for ``serve`` on another address than 127.0.0.1 (issue 12, point 4).

``shoe-audit users add NAME --role reviewer|manager`` keeps an account in the
review file (:mod:`audit.review.trail`). Passwords are never stored: only a
salted scrypt hash (:func:`hashlib.scrypt`, RFC 7914; n=2**14, r=8, p=1, a
16-byte random salt), compared in constant time.

Each stored hash names the parameters it was made with (``kdf``,
``scrypt:n=16384,r=8,p=1``), and a password is checked under those, so a hash
made under one cost still verifies under another. ``SHOE_AUDIT_SCRYPT_N`` (a
power of two, at least 2) lowers the cost of *new* hashes: it is for the test
suite, where thousands of sign-ins at n=2**14 would take minutes; any other
value is ignored and the default stands.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
from contextlib import suppress
from dataclasses import dataclass
from enum import StrEnum

from audit.errors import AuditError, InputError, NotFoundError, UsageError
from audit.review import roster
from audit.review.trail import ReviewTrail, os_user
from audit.store.ledger import key_from_env

SCRYPT_N, SCRYPT_R, SCRYPT_P, KEY_BYTES = 2**14, 8, 1, 32
KDF = f"scrypt:n={SCRYPT_N},r={SCRYPT_R},p={SCRYPT_P}"
SCRYPT_N_ENV = "SHOE_AUDIT_SCRYPT_N"
"""For tests only: the scrypt cost ``n`` of new hashes (a power of two, at least 2)."""
MAX_SCRYPT_N = 2**20
"""The highest cost a stored hash may name (a file edited to ask for more is refused, not
obeyed: 2**20 with r=8 already takes 1 GiB)."""
MIN_PASSWORD = 10
_KDF = re.compile(r"^scrypt:n=([0-9]{1,8}),r=([0-9]{1,2}),p=([0-9]{1,2})$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")


SIGN_IN_REFUSED = "unknown account or wrong password"
"""The one answer to a failed sign-in, whichever it was, so that names cannot be probed."""


class SignInError(AuditError):
    """An account's password was not given right (or there is no such account): exit 1."""

    def __init__(self, hint: str = "") -> None:
        super().__init__(SIGN_IN_REFUSED + hint)


class Role(StrEnum):
    """What an account may do: both review; a manager also sees the trail's integrity."""

    REVIEWER = "reviewer"
    MANAGER = "manager"


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    role: Role
    created_at: str
    disabled_at: str | None = None


@dataclass(frozen=True, slots=True)
class Kdf:
    """The scrypt parameters of one stored hash, as its ``kdf`` column names them."""

    n: int
    r: int
    p: int

    @classmethod
    def current(cls) -> Kdf:
        """The parameters of new hashes: the default, or ``SHOE_AUDIT_SCRYPT_N`` in tests."""
        raw = os.environ.get(SCRYPT_N_ENV, "")
        n = int(raw) if raw.isdigit() else 0
        ok = 2 <= n <= MAX_SCRYPT_N and n & (n - 1) == 0
        return cls(n if ok else SCRYPT_N, SCRYPT_R, SCRYPT_P)

    @classmethod
    def parse(cls, text: str) -> Kdf | None:
        """The parameters a stored ``kdf`` names, or None when they are not ones we make."""
        m = _KDF.match(text)
        if m is None:
            return None
        n, r, p = (int(g) for g in m.groups())
        if not (2 <= n <= MAX_SCRYPT_N and n & (n - 1) == 0 and 1 <= r <= 16 and 1 <= p <= 4):
            return None
        return cls(n, r, p)

    def __str__(self) -> str:
        return f"scrypt:n={self.n},r={self.r},p={self.p}"

    def derive(self, password: str, salt: bytes) -> bytes:
        """The scrypt key of ``password`` under these parameters."""
        return hashlib.scrypt(
            password.encode("utf-8"),
            salt=salt,
            n=self.n,
            r=self.r,
            p=self.p,
            maxmem=128 * self.r * self.n * self.p + 32 * 1024 * 1024,
            dklen=KEY_BYTES,
        )


Manager = tuple[str, str]
"""A manager's name and password, authorising an account change."""


def _row(con: sqlite3.Connection, name: str) -> roster.AccountRow | None:
    return next((a for a in roster.rows(con) if a.name == name), None)


def _password_ok(row: roster.AccountRow | None, password: str) -> bool:
    """Whether ``password`` is ``row``'s (as slow for no row as for a wrong password)."""
    kdf = Kdf.parse(row.kdf) if row is not None else None
    if row is None or kdf is None:
        Kdf.current().derive(password, b"\0" * 16)
        return False
    return hmac.compare_digest(kdf.derive(password, bytes.fromhex(row.salt)).hex(), row.hash)


def _authorise(
    trail: ReviewTrail, con: sqlite3.Connection, manager: Manager | None, *, new_role: Role | None
) -> str | None:
    """Who authorises an account change, in the transaction that makes it: nobody for the
    first account of a review file (which must be a manager), else an active manager
    whose password is given and whose account is as its record says. A file whose
    accounts predate managers (none active) takes any active account's password, for a
    new manager only. Refusals read as a failed sign-in (:data:`SIGN_IN_REFUSED`)."""
    rows = roster.rows(con)
    if not rows:
        if new_role is not Role.MANAGER:
            raise UsageError(
                "the first account of a review file must be a manager (it authorises every "
                "later account change): `shoe-audit users add NAME --role manager`"
            )
        return None
    if manager is None:
        raise SignInError(" (changing accounts needs a manager: --manager NAME)")
    name, password = manager
    row = _row(con, name)
    managers = [a for a in rows if a.role == Role.MANAGER and not a.disabled]
    may = row is not None and not row.disabled
    may = may and (row.role == Role.MANAGER if managers else new_role is Role.MANAGER)  # type: ignore[union-attr]
    ok = _password_ok(row, password)
    if not (ok and may and row is not None):
        raise SignInError()
    if not roster.vouched(con, trail.ledger_path, key_from_env(), row):
        raise SignInError(f" (account {name!r} does not match its record: `shoe-audit verify`)")
    return row.name


def _record_change(
    trail: ReviewTrail, con: sqlite3.Connection, name: str, action: str, by: str | None
) -> list[str]:
    """Record the change ``action`` of account ``name`` (as the table now holds it) in the
    trail's ledger file and store the record's hash with the row; the commit markers
    (:meth:`ReviewTrail.open_ledger`'s, taken before the change, then the change's)."""
    row = _row(con, name)
    assert row is not None
    at, decisions = roster.now_stamp(), roster.decisions_now(con)
    body = roster.change_body(row, action, by=by, user=os_user(), at=at, decisions=decisions)
    marker, recs = roster.append_records(con, trail.ledger_path, key_from_env(), [body])
    con.execute("UPDATE accounts SET record = ? WHERE name = ?", [recs[0].hash, name])
    return [marker]


def _after_commit(trail: ReviewTrail, markers: list[str]) -> None:
    from audit.store.ledger import append_durably

    with suppress(OSError):  # an account whose marker is lost still is on the record
        append_durably(trail.ledger_path, "".join(markers))


def add_account(
    trail: ReviewTrail,
    name: str,
    role: Role | str,
    password: str,
    *,
    manager: Manager | None = None,
) -> Account:
    """Create an account, on the record; refuses a name already taken, a bad name or a
    short password, and (:func:`_authorise`) a change no manager authorised."""
    if not _NAME.match(name):
        raise InputError(
            f"account name {name!r}: letters, digits and . _ @ - only, starting with a "
            "letter or digit, at most 64 characters"
        )
    r = Role(role)
    if len(password) < MIN_PASSWORD:
        raise InputError(f"the password must have at least {MIN_PASSWORD} characters")
    salt = secrets.token_bytes(16)
    stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    kdf = Kdf.current()
    with trail.connect(write=True) as con:
        by = _authorise(trail, con, manager, new_role=r)
        markers = trail.open_ledger(con)  # older accounts' baseline first, without this one
        # Four eyes compares names with case ignored: "Ana" beside "ana" would be one
        # person's two votes, so such a name is taken already.
        taken = con.execute("SELECT name FROM accounts WHERE lower(name) = lower(?)", [name])
        if (row := taken.fetchone()) is not None:
            raise InputError(f"an account named {str(row[0])!r} exists already")
        con.execute(
            "INSERT INTO accounts (name, role, kdf, salt, hash, created_at, since) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                name,
                str(r),
                str(kdf),
                salt.hex(),
                kdf.derive(password, salt).hex(),
                stamp,
                roster.decisions_now(con),
            ],
        )
        markers += _record_change(trail, con, name, "create", by)
    _after_commit(trail, markers)
    return Account(name, r, stamp)


def disable_account(trail: ReviewTrail, name: str, *, manager: Manager | None) -> Account:
    """Disable account ``name`` (a reviewer who left), on the record: it can no longer sign
    in or review, and its decisions from now on count for nothing; those before stand.
    Never the last active manager (nobody could change accounts any more)."""
    with trail.connect(write=True) as con:
        by = _authorise(trail, con, manager, new_role=None)
        markers = trail.open_ledger(con)
        row = _row(con, name)
        if row is None:
            raise NotFoundError(f"no account named {name!r}")
        if row.disabled:
            raise InputError(f"the account {name!r} is disabled already (since {row.disabled_at})")
        others = [
            a
            for a in roster.rows(con)
            if a.role == Role.MANAGER and not a.disabled and a.name != name
        ]
        if row.role == Role.MANAGER and not others:
            raise InputError(
                f"{name!r} is the last active manager: add another manager before disabling it"
            )
        con.execute(
            "UPDATE accounts SET disabled_at = ?, disabled_after = ? WHERE name = ?",
            [roster.now_stamp(), roster.decisions_now(con), name],
        )
        markers += _record_change(trail, con, name, "disable", by)
    _after_commit(trail, markers)
    return Account(row.name, Role(row.role), row.created_at)


def set_password(
    trail: ReviewTrail, name: str, password: str, *, manager: Manager | None
) -> Account:
    """Give account ``name`` a new password (a forgotten one), on the record."""
    if len(password) < MIN_PASSWORD:
        raise InputError(f"the password must have at least {MIN_PASSWORD} characters")
    salt = secrets.token_bytes(16)
    kdf = Kdf.current()
    with trail.connect(write=True) as con:
        by = _authorise(trail, con, manager, new_role=None)
        markers = trail.open_ledger(con)
        row = _row(con, name)
        if row is None:
            raise NotFoundError(f"no account named {name!r}")
        if row.disabled:
            raise InputError(f"the account {name!r} is disabled")
        con.execute(
            "UPDATE accounts SET kdf = ?, salt = ?, hash = ? WHERE name = ?",
            [str(kdf), salt.hex(), kdf.derive(password, salt).hex(), name],
        )
        markers += _record_change(trail, con, name, "passwd", by)
    _after_commit(trail, markers)
    return Account(row.name, Role(row.role), row.created_at)


def _rows(trail: ReviewTrail) -> list[roster.AccountRow]:
    """The account rows; none when the file or the table does not exist yet (a read: every
    page asks whether accounts exist, and must not take the write lock)."""
    if not trail.exists:
        return []
    with trail.connect() as con:
        return roster.rows(con)


def accounts(trail: ReviewTrail, *, disabled: bool = True) -> list[Account]:
    """Every account, by name (none when the review file does not exist yet); without the
    disabled ones when ``disabled`` is false."""
    return [
        Account(a.name, Role(a.role), a.created_at, a.disabled_at)
        for a in _rows(trail)
        if disabled or not a.disabled
    ]


def check_password(trail: ReviewTrail, name: str, password: str) -> Account | None:
    """The account when ``password`` is its password, it is not disabled, and it is as its
    record in the trail's ledger file says; else None (the same work either way)."""
    if not trail.exists:
        _password_ok(None, password)
        return None
    with trail.connect() as con:
        row = _row(con, name)
        if not _password_ok(row, password) or row is None or row.disabled:
            return None
        if not roster.vouched(con, trail.ledger_path, key_from_env(), row):
            return None  # inserted or changed behind the CLI's back: no sign-in with it
    return Account(row.name, Role(row.role), row.created_at)


def authenticate(trail: ReviewTrail, name: str, password: str) -> Account:
    """The account ``name`` when ``password`` is its password; else :class:`SignInError`,
    with the same message for an unknown name as for a wrong password."""
    account = check_password(trail, name, password)
    if account is None:
        hint = "" if accounts(trail) else " (no accounts exist: `shoe-audit users add NAME`)"
        raise SignInError(hint)
    return account
