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
from dataclasses import dataclass
from enum import StrEnum

from audit.errors import AuditError, InputError
from audit.review.trail import ReviewTrail

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


def add_account(trail: ReviewTrail, name: str, role: Role | str, password: str) -> Account:
    """Create an account; refuses a name already taken, a bad name or a short password."""
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
        # Four eyes compares names with case ignored: "Ana" beside "ana" would be one
        # person's two votes, so such a name is taken already.
        taken = con.execute("SELECT name FROM accounts WHERE lower(name) = lower(?)", [name])
        if (row := taken.fetchone()) is not None:
            raise InputError(f"an account named {str(row[0])!r} exists already")
        con.execute(
            "INSERT INTO accounts VALUES (?, ?, ?, ?, ?, ?)",
            [name, str(r), str(kdf), salt.hex(), kdf.derive(password, salt).hex(), stamp],
        )
    return Account(name, r, stamp)


def _read(trail: ReviewTrail, sql: str, params: list[str]) -> list[tuple[str, ...]]:
    """Rows of the accounts table; none when the file or the table does not exist yet (a
    read: every page asks whether accounts exist, and must not take the write lock)."""
    if not trail.exists:
        return []
    with trail.connect() as con:
        try:
            return [tuple(r) for r in con.execute(sql, params).fetchall()]
        except sqlite3.OperationalError:  # no accounts table yet
            return []


def accounts(trail: ReviewTrail) -> list[Account]:
    """Every account, by name (none when the review file does not exist yet)."""
    rows = _read(trail, "SELECT name, role, created_at FROM accounts ORDER BY name", [])
    return [Account(str(n), Role(r), str(c)) for n, r, c in rows]


def check_password(trail: ReviewTrail, name: str, password: str) -> Account | None:
    """The account when ``password`` is its password, else None (same work either way)."""
    rows = _read(
        trail, "SELECT name, role, created_at, kdf, salt, hash FROM accounts WHERE name = ?", [name]
    )
    row = rows[0] if rows else None
    kdf = Kdf.parse(str(row[3])) if row is not None else None
    if row is None or kdf is None:
        Kdf.current().derive(password, b"\0" * 16)  # as slow for an unknown name as a bad one
        return None
    n, role, created, _, salt, stored = row
    if hmac.compare_digest(kdf.derive(password, bytes.fromhex(salt)).hex(), str(stored)):
        return Account(str(n), Role(role), str(created))
    return None


def authenticate(trail: ReviewTrail, name: str, password: str) -> Account:
    """The account ``name`` when ``password`` is its password; else :class:`SignInError`,
    with the same message for an unknown name as for a wrong password."""
    account = check_password(trail, name, password)
    if account is None:
        hint = "" if accounts(trail) else " (no accounts exist: `shoe-audit users add NAME`)"
        raise SignInError(hint)
    return account
