"""Does the ledger file continue the database's chain? (issue 29, point 7)

A ledger file deleted, replaced or cut back is only evidence while nobody
writes past it: ``ingest`` started a new file without a word, and the next
check compared the database with that new file alone. So ``ingest``, ``run``
and ``nightly`` refuse to write (:func:`require_continuity`, one line naming
the file and the recovery command) unless the file

* exists whenever the database's chain has records;
* ends, as committed, at the database's head (an uncommitted tail is an
  interrupted command, not a break);
* begins where the database's chain begins (its record 1, or the ``break``
  that ``shoe-audit ledger restart`` wrote);
* is sealed with the key in ``SHOE_AUDIT_KEY`` when its lines carry HMACs.

All of it from the file's first line and its tail: the cost does not grow
with the history. ``shoe-audit ledger restart`` (:mod:`audit.cli.ledger`)
records a break in both copies so that a lost file never locks a database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audit.store.ledger import (
    BREAK,
    KEY_ENV,
    RESTART_COMMAND,
    LedgerError,
    db_hash_at,
    db_head,
    first_record,
    key_from_env,
    ledger_path,
    missing_file_text,
    read_tail,
)


def continuity_problem(
    con: Any, path: Path, key: bytes | None, *, command: str = RESTART_COMMAND
) -> str | None:
    """Why the ledger file at ``path`` does not continue the chain of the ledger table
    of ``con`` (None: it does). One line, naming the file and what to do."""
    head = db_head(con)
    exists = path.exists()
    if head is None:
        if exists and first_record(path) is not None:
            return _foreign(path, "it holds records while the database's chain is empty", command)
        return None
    no, h = head
    if not exists:
        return missing_file_text(path).replace(RESTART_COMMAND, command)
    tail = read_tail(path, key)
    if tail.sealed and key is None:
        return (
            f"the ledger file {str(path)!r} is sealed (HMAC) and {KEY_ENV} is not set: "
            "set the key it was sealed with"
        )
    if key is not None and tail.problems and tail.sealed:
        return (
            f"{KEY_ENV} does not open the seals of the ledger file {str(path)!r} "
            "(a wrong key, or lines changed): set the key it was sealed with, or run "
            "`shoe-audit verify`"
        )
    committed = tail.marker[0] if tail.marker is not None else 0
    at_head = (tail.marker == (no, h)) or (committed < no and tail.after.get(no) == h)
    if committed > no:
        return _foreign(
            path,
            f"its last committed record is #{committed}, the database's head is #{no}",
            command,
        )
    if not at_head:
        return _foreign(
            path, f"its last committed record is not the database's head #{no}", command
        )
    first = first_record(path)
    if first is None:
        return _foreign(path, "it does not begin with a ledger record", command)
    if (first.no != 1 and first.kind != BREAK) or db_hash_at(con, first.no) != first.hash:
        return _foreign(
            path, f"its first record #{first.no} is not the database's record #{first.no}", command
        )
    return None


def _foreign(path: Path, why: str, command: str) -> str:
    return (
        f"the ledger file {str(path)!r} does not continue the database's chain ({why}): "
        f"nothing is written until `shoe-audit verify` is read and the break recorded "
        f"with `{command}`, which moves this file aside"
    )


def require_continuity(store: Any) -> None:
    """Refuse (:class:`LedgerError`) to write to a database whose ledger file does not
    continue its chain (see the module's docstring). An in-memory store has no file."""
    path = ledger_path(store.path)
    if path is None:
        return
    problem = continuity_problem(store.con, path, key_from_env())
    if problem is not None:
        raise LedgerError(problem)


def before_writing(store: Any) -> None:
    """What ``ingest`` and ``run`` do before they write: refuse a ledger file that does not
    continue the chain, then record the review trail's head if it moved
    (:func:`audit.integrity.trail.record_trail_head`)."""
    from audit.integrity.trail import record_trail_head

    require_continuity(store)
    record_trail_head(store)
