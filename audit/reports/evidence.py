"""What the report says about the evidence it was made from (issue 14, points 10 and 15).

The compliance report checks the ledger head and the shoes of its days before
it is rendered (:func:`audit.integrity.check_before`): a difference is a
critical ``LOG_TAMPERED`` finding and stands on the report's first screen,
with the ledger head the report was made from. The data-quality section lists
the input files that could not be read. Beside the report, ``SHA256SUMS``
(checkable with ``sha256sum -c``) holds the SHA-256 of each file written, and,
with ``SHOE_AUDIT_KEY``, ``SHA256SUMS.hmac`` an HMAC of it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from audit.integrity.trail import TrailCheck, TrailHead
    from audit.reports.folder import Staging
    from audit.store import Store

SUMS_FILE = "SHA256SUMS"
SUMS_HMAC_FILE = "SHA256SUMS.hmac"
HEADS_FILE = "ledger-heads.json"
"""The heads a report was made from, machine-readable, inside the report folder (and so in
its ``SHA256SUMS``): ``verify --report DIR`` checks they are still in the chains (issue 29)."""


@dataclass(frozen=True, slots=True)
class UnreadInputRow:
    """An input file (or folder) that could not be read at its last ingest."""

    path: str
    reason: str
    last_seen: str


@dataclass(frozen=True, slots=True)
class Evidence:
    """The integrity of the data behind the report (``ctx.integrity``).

    Attributes:
        head: the ledger head the report was made from (``record N, sha256 ...``),
            or None when the ledger is empty.
        sealed: whether the ledger file's HMACs were checked (``SHOE_AUDIT_KEY`` set).
        intact: no difference found.
        differences: each ``LOG_TAMPERED`` finding's message.
        notes: what the check could not look at, and why.
        unread_inputs: input files that could not be read, by path.
    """

    head: str | None
    sealed: bool
    intact: bool
    differences: tuple[str, ...]
    notes: tuple[str, ...]
    unread_inputs: tuple[UnreadInputRow, ...] = ()
    trail_head: str = "no decision (empty)"
    """The review trail's head the report was made from (issue 29, point 3)."""
    trail_intact: bool = True
    """Whether the review trail passed its check; when not, its dismissals counted for
    nothing (every finding was counted as not dismissed) and the first screen says so."""
    ledger_warning: str | None = None
    """Why the ledger file does not continue the database's chain (``ingest`` and ``run``
    refuse to write until the break is recorded; issue 29, point 7), or None."""


def report_evidence(
    store: Store, days: Sequence[dt.date], trail: TrailCheck | None = None
) -> Evidence:
    """Check what a report of ``days`` reads, cheaply, and say so (``trail``: the review
    trail's check, :func:`audit.integrity.trail.store_trail_check`)."""
    from audit.integrity import check_before
    from audit.integrity.check import NO_KEY_NOTE
    from audit.integrity.continuity import continuity_problem
    from audit.store.evidence import shoes_of_days, unread_inputs
    from audit.store.ledger import key_from_env, ledger_path

    found = check_before(store, shoes_of_days(store.con, days), record=False)
    head = found.head
    differences = [str(d) for d in found.differences]
    notes = [n for n in found.notes if n != NO_KEY_NOTE]
    if trail is not None:
        differences += [str(d) for d in trail.differences]
        notes += trail.notes
    path = ledger_path(store.path)
    warning = None if path is None else continuity_problem(store.con, path, key_from_env())
    return Evidence(
        head=f"record {head.no}, sha256 {head.hash}" if head is not None else None,
        sealed=head.sealed if head is not None else False,
        intact=not differences,
        differences=tuple(differences),
        # the ledger line says "HMACs not checked (SHOE_AUDIT_KEY not set)" already
        notes=tuple(notes),
        unread_inputs=tuple(UnreadInputRow(*r) for r in unread_inputs(store.con)),
        trail_head=str(trail.head) if trail is not None else "no decision (empty)",
        trail_intact=trail is None or trail.intact,
        ledger_warning=warning,
    )


def heads_text(store: Store, trail: TrailCheck | None, generated_at: str) -> str:
    """The text of :data:`HEADS_FILE`: the database ledger's head (``no``, ``hash``; null
    when empty), the review trail's (``decisions``, ``head``), and when."""
    import json

    from audit.store.ledger import db_head

    head = db_head(store.con)
    return (
        json.dumps(
            {
                "tool": "shoe-audit",
                "generated_at": generated_at,
                "database": str(store.path),
                "ledger": None if head is None else {"no": head[0], "hash": head[1]},
                "trail": (trail.head if trail is not None else _empty_trail()).to_dict(),
            },
            indent=1,
        )
        + "\n"
    )


def _empty_trail() -> TrailHead:
    from audit.integrity.trail import EMPTY, TrailHead

    return TrailHead(0, EMPTY)


def write_sums(stage: Staging) -> None:
    """Write ``SHA256SUMS`` of every file of the report folder being staged (and, with
    the key, ``SHA256SUMS.hmac``), inside the staging folder, so they are swapped in
    with the report or not at all (:mod:`audit.reports.folder`)."""
    from audit.store.ledger import key_from_env, seal

    lines = []
    for rel in sorted(set(stage.files) - {SUMS_FILE, SUMS_HMAC_FILE}):
        lines.append(f"{stage.digests[rel]}  {Path(rel).as_posix()}\n")
    text = "".join(lines)
    stage.write(SUMS_FILE, text)
    key = key_from_env()
    if key is not None:
        stage.write(SUMS_HMAC_FILE, f"HMAC-SHA256 ({SUMS_FILE}) = {seal(key, text)}\n")
