"""Signed session cookies and CSRF tokens for ``serve`` (issue 12, point 4).

A session is a small JSON payload (a random nonce, the signed-in account and
its role, when it was issued) in a cookie signed with HMAC-SHA256 under a
secret kept in the review file (made once, 32 random bytes). Nothing but the
signature makes a session valid: a cookie changed by one byte, or older than
:data:`MAX_AGE_S`, is a new anonymous session.

Every POST carries a CSRF token: the HMAC of the session's nonce under the same
secret (another key derivation of it), so a form from another site, which
cannot read the cookie, cannot forge one. Signing in starts a new session
(a new nonce), so a token from before does not carry over.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass, replace

COOKIE = "shoe_audit_session"
MAX_AGE_S = 12 * 3600


@dataclass(frozen=True, slots=True)
class Session:
    nonce: str
    user: str | None = None
    role: str | None = None
    issued: int = 0

    @property
    def signed_in(self) -> bool:
        return self.user is not None


def new_session(user: str | None = None, role: str | None = None) -> Session:
    return Session(secrets.token_urlsafe(18), user, role, int(time.time()))


class Signer:
    """Signs and checks session cookies and CSRF tokens under one secret."""

    def __init__(self, secret: str) -> None:
        root = secret.encode()
        self._cookie_key = hmac.new(root, b"shoe-audit session cookie", hashlib.sha256).digest()
        self._csrf_key = hmac.new(root, b"shoe-audit csrf token", hashlib.sha256).digest()

    def dump(self, session: Session) -> str:
        body = json.dumps(
            {"n": session.nonce, "u": session.user, "r": session.role, "t": session.issued},
            separators=(",", ":"),
        ).encode()
        payload = base64.urlsafe_b64encode(body).decode().rstrip("=")
        return f"{payload}.{self._sign(payload)}"

    def load(self, cookie: str | None, *, now: float | None = None) -> Session | None:
        """The session of a cookie, or None when it is missing, forged or too old."""
        if not cookie or "." not in cookie:
            return None
        payload, _, sig = cookie.rpartition(".")
        if not _same(sig, self._sign(payload)):
            return None
        try:
            data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
            session = Session(str(data["n"]), data.get("u"), data.get("r"), int(data["t"]))
        except (ValueError, KeyError, TypeError):
            return None
        if (now if now is not None else time.time()) - session.issued > MAX_AGE_S:
            return None
        return session

    def csrf(self, session: Session) -> str:
        return hmac.new(self._csrf_key, session.nonce.encode(), hashlib.sha256).hexdigest()[:32]

    def csrf_ok(self, session: Session, token: str | None) -> bool:
        return bool(token) and _same(self.csrf(session), str(token))

    def _sign(self, payload: str) -> str:
        return hmac.new(self._cookie_key, payload.encode(), hashlib.sha256).hexdigest()


def _same(given: str, expected: str) -> bool:
    """Constant-time equality of a value from the request (any text: compared as UTF-8
    bytes, since :func:`hmac.compare_digest` refuses non-ASCII strings) and our own."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))


def signed_in(session: Session, user: str, role: str) -> Session:
    """A new session (new nonce: old CSRF tokens die) for the account just signed in."""
    return replace(new_session(user, role))
