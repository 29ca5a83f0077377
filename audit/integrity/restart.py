"""Recording a break: a lost or foreign ledger file never locks a database (issue 29, point 7).

``ingest`` and ``run`` refuse to write while the ledger file does not continue
the database's chain (:mod:`audit.integrity.continuity`), and the review trail
refuses a decision while its own ledger file is lost. ``shoe-audit ledger
restart`` lifts that, on the record: a ``break`` record, naming the head it
vouches from, the lost or foreign file (its SHA-256, and where it was moved:
it is never deleted), who (``--by`` and the OS user), when and why, is written
to the database's ledger table and as the first line of a new ledger file.
``verify`` names it as a known, recorded break, not tampering, and checks
everything after it. With ``--trail`` the same for the trail's ledger file:
the break is recorded in the database's ledger and begins the trail's new
file, numbered by the decision it vouches for.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.errors import AuditError
from audit.store.ledger import (
    BREAK,
    KEY_ENV,
    append,
    db_head,
    key_from_env,
    ledger_path,
    read_file,
)
from audit.store.ledger import restart as start_file


@dataclass(frozen=True, slots=True)
class Break:
    """What ``ledger restart`` did."""

    ledger: Path
    """The new ledger file."""
    vouches: str
    """The head it vouches from, in words."""
    moved: Path | None
    """Where the foreign file was moved (None: it was missing)."""


def _stamp(at: dt.datetime) -> str:
    return at.strftime("%Y%m%dT%H%M%SZ")


def _set_aside(path: Path, at: dt.datetime) -> tuple[dict[str, Any] | None, Path | None]:
    """Move a foreign file aside (never deleted); what the break says of it."""
    if not path.exists():
        return {"missing": str(path)}, None
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    moved = path.with_name(f"{path.name}.foreign-{_stamp(at)}")
    path.rename(moved)
    return {"sha256": digest, "size": moved.stat().st_size, "moved_to": str(moved)}, moved


def _who(by: str, why: str, user: str | None, at: dt.datetime) -> dict[str, Any]:
    by, why = by.strip(), why.strip()
    if not by or not why:
        raise AuditError("a break needs who records it (--by NAME) and why (--why TEXT)")
    return {"by": by, "os_user": user, "at": at.isoformat(timespec="seconds"), "why": why}


def lost_records(path: Path, head: tuple[int, str] | None, key: bytes | None) -> range:
    """The committed records of the ledger file at ``path`` past the database's ``head``
    when the file continues the database's chain beyond it: records the database lost
    (restored from a backup, or cut back). Empty when the file is missing or foreign."""
    if not path.exists():
        return range(0)
    chain = read_file(path, key)
    no, h = head if head is not None else (0, "")
    at_head = no == 0 or ((r := chain.get(no)) is not None and r.hash == h)
    if not at_head or chain.committed <= no:
        return range(0)
    return range(no + 1, chain.committed + 1)


def _lost_words(lost: range) -> str:
    return f"records #{lost.start} to #{lost.stop - 1}"


def restart_ledger(
    store: Any,
    *,
    by: str,
    why: str,
    user: str | None,
    at: dt.datetime | None = None,
    records_lost: bool = False,
) -> Break:
    """Record a break and start a new ledger file for the database (see the module).

    A file that continues the database's chain past its head holds records the database
    lost: a break would hide them, so it is refused unless ``records_lost`` says so on
    purpose; the break then names them (``lost_records``), and ``verify`` with it."""
    from audit.integrity.continuity import continuity_problem

    at = at or dt.datetime.now(dt.UTC)
    path = ledger_path(store.path)
    if path is None:
        raise AuditError("an in-memory database has no ledger file")
    key = key_from_env()
    problem = continuity_problem(store.con, path, key)
    if problem is None:
        raise AuditError(
            f"the ledger file {str(path)!r} continues the database's chain: nothing to restart"
        )
    if KEY_ENV in problem:  # a key problem is not a lost file: set the key
        raise AuditError(problem)
    who = _who(by, why, user, at)
    head = db_head(store.con)
    gone = lost_records(path, head, key)
    if gone and not records_lost:
        raise AuditError(
            f"the ledger file {str(path)!r} holds committed {_lost_words(gone)} past the "
            f"database's head: the database lost them (restored from a backup, or cut back; "
            "`shoe-audit verify` names them) and a break would hide that; if they are lost "
            "for good, say so with --records-lost (recorded in the break)"
        )
    if records_lost and not gone:
        raise AuditError(
            "--records-lost: the database lost no record the ledger file holds (the file is "
            "missing or foreign): leave it out"
        )
    lost, moved = _set_aside(path, at)
    vouches = None if head is None else {"no": head[0], "hash": head[1]}
    body = {"ledger": "database", "vouches": vouches, "lost_file": lost, **who}
    if gone:
        body["lost_records"] = {"from": gone.start, "to": gone.stop - 1}
    no, prev = (1, "") if head is None else (head[0] + 1, head[1])
    with store.transaction():
        start_file(path, body, no, prev, store=store)
    words = "an empty chain" if head is None else f"ledger record {head[0]} ({head[1][:16]}…)"
    if gone:
        words += f"; {_lost_words(gone)} recorded as lost"
    return Break(path, words, moved)


def restart_trail_ledger(
    store: Any, *, by: str, why: str, user: str | None, at: dt.datetime | None = None
) -> Break:
    """Record a break of the review trail's ledger file: in the database's ledger, and as
    the first line of the trail's new file (see the module)."""
    from audit.integrity.continuity import require_continuity
    from audit.integrity.trail import check_trail, head_of, last_recorded_head
    from audit.review import ReviewTrail
    from audit.review.trail import LEDGER_SETTING

    at = at or dt.datetime.now(dt.UTC)
    if store.path == ":memory:":
        raise AuditError("an in-memory database has no review trail")
    require_continuity(store)  # the break goes into the database's ledger too
    trail = ReviewTrail.beside(store.path)
    last = last_recorded_head(store.con)
    found = check_trail(trail, [last] if last else [])
    path = trail.ledger_path
    file_trouble = [d for d in found.differences if "ledger file" in d.message]
    if path.exists() and not file_trouble:
        raise AuditError(
            f"the review trail's ledger file {str(path)!r} "
            + ("continues the trail: nothing to restart" if found.intact else
               "is not what fails the trail's check (`shoe-audit verify` names it): "
               "a break would not mend it")
        )  # fmt: skip
    decisions = trail.decisions() if trail.exists else []
    if any("hash no longer follows" in d.message for d in found.differences):
        raise AuditError(
            "the review trail's own chain is broken (`shoe-audit verify` names the decision): "
            "a break would vouch for an edited trail"
        )
    who = _who(by, why, user, at)
    head = head_of(decisions)
    lost, moved = _set_aside(path, at)
    body = {"ledger": "trail", "vouches": head.to_dict(), "lost_file": lost, **who}
    with store.transaction():
        append(store, [{"kind": BREAK, **body}])
    if decisions:
        start_file(path, {**body, "decision": head.hash}, head.decisions, "")
    if trail.exists:
        trail.setting_or_create(LEDGER_SETTING, lambda: at.isoformat(timespec="seconds"))
        trail.restart_accounts(at.isoformat(timespec="seconds"))
    return Break(path, str(head), moved)
