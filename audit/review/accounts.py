"""Reviewer accounts for ``serve`` on another address than 127.0.0.1 (issue 12, point 4).

``shoe-audit users add NAME --role reviewer|manager`` keeps an account in the
review file (:mod:`audit.review.trail`). Passwords are never stored: only a
salted scrypt hash (:func:`hashlib.scrypt`, RFC 7914; n=2**14, r=8, p=1, a
16-byte random salt), compared in constant time.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets
import sqlite3
from dataclasses import dataclass
from enum import StrEnum

from audit.errors import InputError
from audit.review.trail import ReviewTrail

SCRYPT_N, SCRYPT_R, SCRYPT_P, KEY_BYTES = 2**14, 8, 1, 32
KDF = f"scrypt:n={SCRYPT_N},r={SCRYPT_R},p={SCRYPT_P}"
MIN_PASSWORD = 10
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")


class Role(StrEnum):
    """What an account may do: both review; a manager also sees the trail's integrity."""

    REVIEWER = "reviewer"
    MANAGER = "manager"


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    role: Role
    created_at: str


def _derive(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"),
        salt=salt,
        n=SCRYPT_N,
        r=SCRYPT_R,
        p=SCRYPT_P,
        maxmem=64 * 1024 * 1024,
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
    with trail.connect(write=True) as con:
        if con.execute("SELECT 1 FROM accounts WHERE name = ?", [name]).fetchone():
            raise InputError(f"an account named {name!r} exists already")
        con.execute(
            "INSERT INTO accounts VALUES (?, ?, ?, ?, ?, ?)",
            [name, str(r), KDF, salt.hex(), _derive(password, salt).hex(), stamp],
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
    if row is None:
        _derive(password, b"\0" * 16)  # as slow for an unknown name as for a bad password
        return None
    n, role, created, kdf, salt, stored = row
    if kdf != KDF:
        return None
    if hmac.compare_digest(_derive(password, bytes.fromhex(salt)).hex(), str(stored)):
        return Account(str(n), Role(role), str(created))
    return None
