"""Signed-out sessions of ``serve``, kept in the review file (issue 29, point 10).

A session cookie is valid by its signature alone (:mod:`audit.web.session`), so
signing out must be remembered: the session's id (its nonce) is kept here until
the cookie would have expired anyway (:data:`audit.web.session.MAX_AGE_S` after
it was issued), and a cookie whose id is here is treated as signed out. The
review file is the one file ``serve`` may write; keeping the ids there (not
only in memory) means a restart of ``serve`` does not bring a signed-out
session back, and two ``serve`` processes over one database agree.
"""

from __future__ import annotations

import sqlite3
import time

from audit.review.trail import ReviewTrail

_DDL = "CREATE TABLE IF NOT EXISTS revoked_sessions (id TEXT PRIMARY KEY, until INTEGER NOT NULL)"


def revoke(trail: ReviewTrail, session_id: str, until: int, *, now: float | None = None) -> None:
    """Remember ``session_id`` as signed out until ``until`` (UNIX seconds); forget the
    ids whose cookies have expired since."""
    stamp = int(now if now is not None else time.time())
    with trail.connect(write=True) as con:
        con.execute(_DDL)
        con.execute("DELETE FROM revoked_sessions WHERE until < ?", [stamp])
        con.execute(
            "INSERT INTO revoked_sessions VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
            [session_id, int(until)],
        )


def is_revoked(trail: ReviewTrail, session_id: str) -> bool:
    """Whether ``session_id`` was signed out (a file or table not there yet: none was)."""
    if not trail.exists:
        return False
    with trail.connect() as con:
        try:
            row = con.execute("SELECT 1 FROM revoked_sessions WHERE id = ?", [session_id])
            return row.fetchone() is not None
        except sqlite3.OperationalError:  # no revoked_sessions table yet
            return False
