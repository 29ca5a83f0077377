"""Adjustments a manager records in the review trail (accounting.md "Adjustments").

The books as counted never change; accounting corrects them with adjustments, recorded
append-only: a correction is a new adjustment whose ``reverses`` names the one it
cancels. A manager records one with ``shoe-audit adjust`` (or, later, in ``serve``), into
the review trail's SQLite file, never into the audit database, as review decisions are
(:mod:`audit.review.trail`):

- **Append-only**: the ``adjustments`` table (made with the trail's other tables,
  :data:`audit.review.trail.ADJUSTMENTS_DDL`) refuses UPDATE and DELETE (triggers).
- **Chained** on their own: each row carries the hash of the one before it and its own
  hash over its canonical JSON (:func:`adjustment_hash`).
- **Anchored** in the trail's ledger file, in its own parallel chain ``adjustments``
  (:mod:`audit.store.ledger`, ``chain=``): one sealed record per adjustment, numbered by
  its ``seq``, holding its hash and a digest of each of its fields, fsync'ed inside the
  ``BEGIN IMMEDIATE`` transaction that inserts the row, its commit marker after ``COMMIT``.
  ``verify`` (:func:`differences`, called by :func:`audit.integrity.trail.check_trail`)
  names an adjustment changed, removed or added behind the trail's back.

:func:`trail_adjustments` reads them back as :class:`audit.books.model.Adjustment`
records (``source`` "trail") for ``run``, ``books`` and the report.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from audit.books.model import ADJUSTMENT_LINES, Adjustment
from audit.errors import InputError, NotFoundError
from audit.review.trail import GENESIS, ReviewError, ReviewTrail

ADJUSTMENTS = "adjustments"
"""The name of the adjustments' chain in the trail's ledger file."""

ADJUSTMENT = "adjustment"
"""The kind of the record of one adjustment."""

ID_PREFIX = "ADJ-"
"""A trail adjustment's id is ``ADJ-<seq>`` (``adjust`` prints it, ``--reverses`` takes it)."""

_FIELDS = (
    "id",
    "table_id",
    "gaming_day",
    "shift",
    "line",
    "amount",
    "reason",
    "by_name",
    "account",
    "os_user",
    "via",
    "recorded_at",
    "ref",
    "reverses",
)
_READ = ", ".join(("seq", *_FIELDS, "prev_hash", "hash"))


@dataclass(frozen=True, slots=True)
class TrailAdjustment:
    """One row of the trail's ``adjustments`` table, as stored (text, as hashed)."""

    seq: int
    id: str
    table_id: str
    gaming_day: str
    shift: str | None
    line: str
    amount: str
    reason: str
    by_name: str
    account: str
    os_user: str | None
    via: str
    recorded_at: str
    ref: str | None
    reverses: str | None
    prev_hash: str
    hash: str

    def fields(self) -> dict[str, Any]:
        """Its fields, but for its place in the chain (``seq``, ``prev_hash``, ``hash``)."""
        return {f: getattr(self, f) for f in _FIELDS}

    def to_adjustment(self) -> Adjustment:
        """As the books read it (``source`` "trail")."""
        return Adjustment(
            id=self.id,
            source="trail",
            table=self.table_id,
            gaming_day=dt.date.fromisoformat(self.gaming_day),
            shift=self.shift,
            line=self.line,
            amount=Decimal(self.amount),
            reason=self.reason,
            by=self.by_name,
            reverses=self.reverses,
            ref=self.ref,
            os_user=self.os_user,
            recorded_at=dt.datetime.fromisoformat(self.recorded_at),
        )


def adjustment_hash(prev_hash: str, seq: int, fields: dict[str, Any]) -> str:
    """SHA-256 (hex) of an adjustment's canonical JSON, chained to the one before it."""
    body = json.dumps(
        [prev_hash, seq, fields], ensure_ascii=False, separators=(",", ":"), sort_keys=True
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def field_digests(a: TrailAdjustment) -> dict[str, str]:
    """A short SHA-256 of each of an adjustment's fields, as its ledger record keeps them:
    enough to name the field changed without copying a reason into a second file."""
    from audit.store.ledger import canonical

    return {
        k: hashlib.sha256(canonical(v).encode()).hexdigest()[:16] for k, v in a.fields().items()
    }


def _ledger_text(a: TrailAdjustment) -> str:
    from audit.store.ledger import LEDGER_VERSION, canonical

    body = {"kind": ADJUSTMENT, "id": a.id, "adjustment": a.hash, "fields": field_digests(a)}
    return canonical({"v": LEDGER_VERSION, **body})


def _row(r: Sequence[Any]) -> TrailAdjustment:
    return TrailAdjustment(int(r[0]), *(None if v is None else str(v) for v in r[1:]))  # type: ignore[arg-type]


def _has_table(con: sqlite3.Connection) -> bool:
    row = con.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'adjustments'"
    ).fetchone()
    return bool(row and row[0])


def stored(trail: ReviewTrail) -> list[TrailAdjustment]:
    """Every adjustment of the trail, in the order recorded (none without the file/table)."""
    if not trail.exists:
        return []
    with trail.connect() as con:
        if not _has_table(con):
            return []
        return [_row(r) for r in con.execute(f"SELECT {_READ} FROM adjustments ORDER BY seq")]


def trail_adjustments(trail: ReviewTrail) -> list[Adjustment]:
    """The trail's adjustments as the books read them (:class:`Adjustment`, source "trail")."""
    return [a.to_adjustment() for a in stored(trail)]


def find(trail: ReviewTrail, adjustment_id: str) -> TrailAdjustment:
    """The trail adjustment ``adjustment_id``; :class:`NotFoundError` (exit 1) when none."""
    got = next((a for a in stored(trail) if a.id == adjustment_id), None)
    if got is None:
        raise NotFoundError(
            f"no adjustment {adjustment_id!r} in the review trail "
            f"(ids are the `id` column of `shoe-audit books --adjustments`)"
        )
    return got


@dataclass(frozen=True, slots=True)
class NewAdjustment:
    """What ``adjust`` records (checked by :func:`record`)."""

    table: str
    gaming_day: dt.date
    shift: str | None
    line: str
    amount: Decimal
    reason: str
    ref: str | None = None
    reverses: str | None = None


def check_amount(amount: Decimal) -> None:
    """An adjustment's amount: not 0, at most 2 decimals (:class:`InputError` otherwise)."""
    if not amount.is_finite() or amount == 0:
        raise InputError(f"an adjustment's amount is not 0, got {amount}")
    if amount != amount.quantize(Decimal("0.01")):
        raise InputError(f"an amount has at most 2 decimals, got {amount}")


def record(
    trail: ReviewTrail,
    new: NewAdjustment,
    *,
    account: str,
    user: str | None,
    via: str = "cli",
    at: str | None = None,
) -> TrailAdjustment:
    """Append one adjustment, recorded by ``account`` (a manager whose password the caller
    checked), in one ``BEGIN IMMEDIATE`` transaction with its record in the trail's ledger
    file (fsync'ed before ``COMMIT``); a reversal of an adjustment already reversed, or of
    one that is not in the trail, is refused in that transaction."""
    from audit.review.trail import _require_active

    if new.line not in ADJUSTMENT_LINES:
        raise InputError(f"unknown line {new.line!r}; the lines are {', '.join(ADJUSTMENT_LINES)}")
    check_amount(new.amount)
    reason = new.reason.strip()
    if not reason:
        raise InputError("an adjustment needs its reason")
    stamp = at or dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    with trail.connect(write=True) as con:
        _require_active(con, account)
        if new.reverses is not None:
            _check_reversible(con, new.reverses)
        last = con.execute("SELECT seq, hash FROM adjustments ORDER BY seq DESC LIMIT 1").fetchone()
        seq, prev = (int(last[0]) + 1, str(last[1])) if last else (1, GENESIS)
        fields: dict[str, Any] = {
            "id": f"{ID_PREFIX}{seq}",
            "table_id": new.table,
            "gaming_day": new.gaming_day.isoformat(),
            "shift": new.shift,
            "line": new.line,
            "amount": str(new.amount),
            "reason": reason,
            "by_name": account,
            "account": account,
            "os_user": user,
            "via": via,
            "recorded_at": stamp,
            "ref": new.ref,
            "reverses": new.reverses,
        }
        made = TrailAdjustment(
            seq, **fields, prev_hash=prev, hash=adjustment_hash(prev, seq, fields)
        )
        markers = _write_ledger(trail, con, made)
        con.execute(
            f"INSERT INTO adjustments ({_READ}) VALUES ({', '.join('?' for _ in range(17))})",
            [made.seq, *(getattr(made, f) for f in _FIELDS), made.prev_hash, made.hash],
        )
    from audit.store.ledger import append_durably

    with suppress(OSError):  # committed: an unmarked record is an interrupted write, not tampering
        append_durably(trail.ledger_path, "".join(markers))
    return made


def _check_reversible(con: sqlite3.Connection, reverses: str) -> None:
    row = con.execute("SELECT id FROM adjustments WHERE id = ?", [reverses]).fetchone()
    if row is None:
        raise NotFoundError(f"no adjustment {reverses!r} in the review trail to reverse")
    done = con.execute("SELECT id FROM adjustments WHERE reverses = ?", [reverses]).fetchone()
    if done is not None:
        raise InputError(f"adjustment {reverses!r} is reversed already, by {done[0]}")


def _write_ledger(trail: ReviewTrail, con: sqlite3.Connection, a: TrailAdjustment) -> list[str]:
    """Append adjustment ``a``'s record to the adjustments' chain of the trail's ledger file
    (fsync'ed) inside ``con``'s transaction; the commit markers to append after ``COMMIT``."""
    from audit.review.trail import chain_end
    from audit.store.ledger import Record, append_durably, chain_hash, commit_line, record_line

    markers = trail.open_ledger(con)
    key, prev = chain_end(trail.ledger_path, a.seq, "adjustment", ADJUSTMENTS)
    text = _ledger_text(a)
    rec = Record(a.seq, ADJUSTMENT, text, prev, chain_hash(prev, text))
    append_durably(trail.ledger_path, record_line(rec, key, ADJUSTMENTS))
    return [*markers, commit_line(rec.no, rec.hash, key, ADJUSTMENTS)]


def differences(trail: ReviewTrail, key: bytes | None) -> list[str]:
    """What is wrong with the trail's adjustments: each one changed, removed or added after
    it was recorded, against its own chain and its record in the trail's ledger file."""
    from audit.store.ledger import read_file

    try:
        rows = stored(trail)
    except ReviewError as exc:
        return [f"the adjustments cannot be read: {exc}"]
    found: list[str] = []
    named: set[int] = set()
    path = trail.ledger_path
    chain = read_file(path, key, chain=ADJUSTMENTS)
    if not chain.exists:
        return (
            [f"the adjustments' records are gone with the trail's ledger file {str(path)!r}"]
            if rows
            else []
        )
    found += chain.problems
    by_seq = {a.seq: a for a in rows}
    for r in chain.records:
        a = by_seq.get(r.no)
        if a is None:
            if r.no <= chain.committed:
                found.append(
                    f"adjustment #{r.no} ({r.body.get('id')}) removed after it was recorded"
                )
            continue
        recorded = r.body.get("fields") or {}
        now = field_digests(a)
        changed = sorted(k for k in now.keys() | recorded.keys() if now.get(k) != recorded.get(k))
        if changed:
            words = " and ".join("by" if c == "by_name" else c for c in changed)
            found.append(f"adjustment #{a.seq} ({a.id}): {words} changed after it was recorded")
            named.add(a.seq)
        elif r.body.get("adjustment") != a.hash:
            found.append(f"adjustment #{a.seq} ({a.id}): its hash changed after it was recorded")
            named.add(a.seq)
    for a in rows:
        if chain.get(a.seq) is None:
            found.append(
                f"adjustment #{a.seq} ({a.id}) is not in the trail's ledger file (added behind "
                "the trail's back, or the file was cut back)"
            )
            named.add(a.seq)
    prev = GENESIS
    for i, a in enumerate(rows, start=1):
        if a.seq != i:
            if i not in named:
                found.append(f"adjustment #{i} removed after it was recorded")
            break
        if a.seq not in named and (
            a.prev_hash != prev or a.hash != adjustment_hash(prev, a.seq, a.fields())
        ):
            found.append(
                f"adjustment #{a.seq} ({a.id}): changed after it was recorded (its hash no "
                "longer follows from its fields)"
            )
        prev = a.hash
    return found
