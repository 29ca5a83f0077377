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
    from audit.reports.folder import Staging
    from audit.store import Store

SUMS_FILE = "SHA256SUMS"
SUMS_HMAC_FILE = "SHA256SUMS.hmac"


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


def report_evidence(store: Store, days: Sequence[dt.date]) -> Evidence:
    """Check what a report of ``days`` reads, cheaply, and say so."""
    from audit.integrity import check_before
    from audit.integrity.check import NO_KEY_NOTE
    from audit.store.evidence import shoes_of_days, unread_inputs

    found = check_before(store, shoes_of_days(store.con, days), record=False)
    head = found.head
    return Evidence(
        head=f"record {head.no}, sha256 {head.hash}" if head is not None else None,
        sealed=head.sealed if head is not None else False,
        intact=found.intact,
        differences=tuple(str(d) for d in found.differences),
        # the ledger line says "HMACs not checked (SHOE_AUDIT_KEY not set)" already
        notes=tuple(n for n in found.notes if n != NO_KEY_NOTE),
        unread_inputs=tuple(UnreadInputRow(*r) for r in unread_inputs(store.con)),
    )


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
