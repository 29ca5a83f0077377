"""The review trail against its anchors (issue 29, point 3; rules.md ``LOG_TAMPERED``).

The trail (:mod:`audit.review.trail`) is anchored three ways: its own chain of
decision hashes; its ledger file, one sealed record per decision with a
digest of each field; and the trail heads (count and hash of the last
decision) that ``ingest`` and ``run`` record in the database's ledger
(:func:`record_trail_head`, a ``trail`` record, only when the head moved) and
that a report pins in its folder. Checks:

* :func:`check_trail` with ``whole=True`` (``verify``, ``report``,
  ``findings``: O(decisions)): every decision recomputed, compared with its
  record in the trail's ledger file (naming the field changed), and with the
  trail heads given;
* ``whole=False`` (``run``, before it records a new head): the chain, and the
  trail's ledger file from its first line and its tail only.

With ``whole=True`` the accounts are checked too: each account row against its
latest record in the file's ``accounts`` chain (:mod:`audit.review.roster`), so
an account inserted, changed (its password hash, role, disabled flag) or
removed behind the CLI's back is named, and the trail is ``LOG_TAMPERED``; and
the books' adjustments, against their own chain and the file's ``adjustments``
chain (:mod:`audit.review.adjustments`).

While the trail fails its check its dismissals count for nothing
(:func:`trusted_reviews`): every finding counts as not dismissed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.integrity.check import Difference
from audit.review.trail import (
    DECISION,
    GENESIS,
    LEDGER_SETTING,
    TRAIL_RESTART_COMMAND,
    Decision,
    ReviewError,
    ReviewTrail,
    field_digests,
    ledger_record,
    rehash,
)
from audit.store.ledger import (
    BREAK,
    db_last_of_kind,
    first_record,
    key_from_env,
    read_file,
    read_tail,
)

if TYPE_CHECKING:
    from audit.findings import Finding
    from audit.review import Review

TRAIL = "trail"
"""The kind of the database ledger's record of the trail's head."""

EMPTY = "empty"
"""The head of a trail with no decision."""


@dataclass(frozen=True, slots=True)
class TrailHead:
    """How far the trail went: its number of decisions and the hash of the last one."""

    decisions: int
    hash: str

    def __str__(self) -> str:
        if not self.decisions:
            return "no decision (empty)"
        return f"{self.decisions} decisions, head sha256 {self.hash}"

    def to_dict(self) -> dict[str, Any]:
        return {"decisions": self.decisions, "head": self.hash}


@dataclass(frozen=True, slots=True)
class RecordedHead:
    """A trail head as a ``trail`` record of the database's ledger holds it."""

    no: int
    head: TrailHead


@dataclass(slots=True)
class TrailCheck:
    """What a check of the trail found."""

    head: TrailHead = field(default_factory=lambda: TrailHead(0, EMPTY))
    differences: list[Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def intact(self) -> bool:
        return not self.differences


def head_of(decisions: Sequence[Decision]) -> TrailHead:
    """The head of a trail holding ``decisions`` (in ``seq`` order)."""
    return TrailHead(len(decisions), decisions[-1].hash) if decisions else TrailHead(0, EMPTY)


def _name(d: Decision | None, seq: int, finding: str | None = None) -> str:
    fid = d.finding_id if d is not None else finding
    return f"decision #{seq}" + (f" (finding {fid})" if fid else "")


def _changed_fields(d: Decision, recorded: Mapping[str, Any]) -> list[str]:
    now = field_digests(d)
    return sorted(k for k in now.keys() | recorded.keys() if now.get(k) != recorded.get(k))


def recorded_heads(records: Iterable[Any]) -> list[RecordedHead]:
    """The trail heads among ledger records (``trail`` records), in order."""
    out = []
    for r in records:
        if r.kind == TRAIL:
            body = r.body
            out.append(RecordedHead(r.no, TrailHead(int(body["decisions"]), str(body["head"]))))
    return out


def last_recorded_head(con: Any) -> RecordedHead | None:
    """The trail head the database's ledger recorded last (one indexed read)."""
    last = db_last_of_kind(con, TRAIL)
    if last is None:
        return None
    no, body = last
    return RecordedHead(no, TrailHead(int(body["decisions"]), str(body["head"])))


def _decisions(trail: ReviewTrail, out: TrailCheck) -> list[Decision] | None:
    try:
        return trail.decisions()
    except ReviewError as exc:
        out.differences.append(Difference("trail", f"the review trail cannot be read: {exc}"))
        return None


def _chain(decisions: Sequence[Decision], named: set[int], out: TrailCheck) -> None:
    """Each decision's hash recomputed from its fields and linked to the one before."""
    prev = GENESIS
    for i, d in enumerate(decisions, start=1):
        if d.seq != i:
            out.differences.append(
                Difference("trail", f"decision #{i} removed after it was recorded")
            )
            named.add(i)
            return
        want = rehash(d, prev)
        if (d.prev_hash != prev or d.hash != want) and d.seq not in named:
            out.differences.append(
                Difference(
                    "trail",
                    f"{_name(d, d.seq)}: changed after it was recorded "
                    "(its hash no longer follows from its fields)",
                )
            )
            named.add(d.seq)
        prev = d.hash


def _heads(
    decisions: Sequence[Decision], heads: Sequence[RecordedHead], named: set[int], out: TrailCheck
) -> None:
    by_seq = {d.seq: d for d in decisions}
    for rh in heads:
        n = rh.head.decisions
        if n == 0 or n in named:
            continue
        d = by_seq.get(n)
        if d is None:
            out.differences.append(
                Difference(
                    "trail",
                    f"decision #{n} removed after it was recorded (the database's ledger "
                    f"record #{rh.no} holds the trail's head at {n} decisions)",
                )
            )
        elif d.hash != rh.head.hash:
            out.differences.append(
                Difference(
                    "trail",
                    f"{_name(d, n)}: changed after it was recorded (it differs from the trail "
                    f"head in the database's ledger record #{rh.no})",
                )
            )
        else:
            continue
        named.add(n)


def _kept(trail: ReviewTrail) -> bool:
    """Whether the trail says it keeps a ledger file (its ``ledger`` setting)."""
    try:
        return trail.setting(LEDGER_SETTING) is not None
    except ReviewError:
        return False


def _missing_file(
    trail: ReviewTrail,
    decisions: Sequence[Decision],
    heads: Sequence[RecordedHead],
    out: TrailCheck,
) -> None:
    if not decisions and not any(h.head.decisions for h in heads):
        return
    if _kept(trail) or any(h.head.decisions for h in heads):
        out.differences.append(
            Difference(
                "trail",
                f"the review trail's ledger file {str(trail.ledger_path)!r} is missing "
                f"({len(decisions)} decisions): record the break with `{TRAIL_RESTART_COMMAND}`",
            )
        )
    else:
        out.notes.append(
            "the review trail predates its ledger file (its next decision starts it): its "
            "decisions were checked against their own chain only"
        )


def check_trail(
    trail: ReviewTrail,
    heads: Sequence[RecordedHead] = (),
    *,
    whole: bool = True,
    key: bytes | None = None,
) -> TrailCheck:
    """Check the review trail against its chain, its ledger file and ``heads`` (the trail
    heads the database's ledger recorded). See the module's docstring."""
    key = key if key is not None else key_from_env()
    out = TrailCheck()
    decisions = _decisions(trail, out) if trail.exists else []
    if decisions is None:
        return out
    out.head = head_of(decisions)
    named: set[int] = set()
    path = trail.ledger_path
    if not path.exists():
        _missing_file(trail, decisions, heads, out)
    elif whole:
        _against_file(decisions, path, key, named, out)
    else:
        _against_tail(decisions, path, key, named, out)
    if whole and trail.exists:
        _accounts(trail, key, out)
        _adjustments(trail, key, out)
    _heads(decisions, heads, named, out)
    _chain(decisions, named, out)
    out.differences.sort(key=lambda d: d.message)
    return out


def _accounts(trail: ReviewTrail, key: bytes | None, out: TrailCheck) -> None:
    """The accounts against their records in the trail's ledger file (:mod:`audit.review.
    roster`): one inserted, changed or removed behind the CLI's back is a difference."""
    from audit.review import roster

    try:
        with trail.connect() as con:
            found, notes = roster.differences(con, trail.ledger_path, key)
    except ReviewError as exc:
        out.differences.append(Difference("trail", f"the accounts cannot be read: {exc}"))
        return
    out.differences += [Difference("trail", m) for m in found]
    out.notes += notes


def _adjustments(trail: ReviewTrail, key: bytes | None, out: TrailCheck) -> None:
    """The books' adjustments against their own chain and their records in the trail's
    ledger file (:mod:`audit.review.adjustments`): one changed, removed or added behind the
    trail's back is a difference."""
    from audit.review import adjustments

    out.differences += [Difference("trail", m) for m in adjustments.differences(trail, key)]


def _against_file(
    decisions: Sequence[Decision], path: Path, key: bytes | None, named: set[int], out: TrailCheck
) -> None:
    chain = read_file(path, key)
    out.differences += [Difference("trail", p) for p in chain.problems]
    by_seq = {d.seq: d for d in decisions}
    done = max(chain.committed, max(by_seq, default=0))
    rehashed: set[int] = set()
    for r in chain.records:
        body = r.body
        d = by_seq.get(r.no)
        if d is None:
            if r.no <= chain.committed:
                out.differences.append(
                    Difference(
                        "trail",
                        f"{_name(None, r.no, body.get('finding'))} removed after it was recorded",
                    )
                )
                named.add(r.no)
            continue
        fields = _changed_fields(d, body.get("fields", {})) if r.kind == DECISION else []
        if d.hash == body.get("decision") and not fields:
            continue
        if r.kind == BREAK:
            what = "changed since the recorded break that vouches for it"
        elif fields:
            what = " and ".join(fields) + " changed"
        elif r.no - 1 in rehashed:
            rehashed.add(r.no)  # only its hash, recomputed after an earlier change
            named.add(r.no)
            continue
        else:
            what = "its hash changed"
        named.add(r.no)
        rehashed.add(r.no)
        out.differences.append(
            Difference("trail", f"{_name(d, r.no)}: {what} after it was recorded")
        )
    first = chain.first if chain.records else 1
    for d in decisions:
        if d.seq > chain.last or (d.seq >= first and chain.get(d.seq) is None):
            out.differences.append(
                Difference(
                    "trail",
                    f"{_name(d, d.seq)} is not in the trail's ledger file "
                    "(added behind the trail's back, or the file was cut back)",
                )
            )
            named.add(d.seq)
    if first > 1:
        out.notes.append(
            f"decisions #1 to #{first} are vouched for by the recorded break that starts the "
            "trail's ledger file: they were checked against their own chain"
        )
    uncommitted = chain.last - done
    if uncommitted > 0:
        out.notes.append(
            f"the trail's ledger file ends with {uncommitted} decision(s) that did not commit "
            "(an interrupted review): not part of the trail"
        )


def _against_tail(
    decisions: Sequence[Decision], path: Path, key: bytes | None, named: set[int], out: TrailCheck
) -> None:
    """The ledger file from its first line and its tail: its records recomputed from the
    decisions (O(decisions), no read of the whole file)."""
    tail = read_tail(path, key)
    out.differences += [Difference("trail", p) for p in tail.problems]
    start = first_record(path)
    prev, begin = "", 1
    if start is not None and start.kind == BREAK:
        prev, begin = start.hash, start.no + 1
    hashes: dict[int, str] = {}
    if start is not None and start.kind == BREAK:
        hashes[start.no] = start.hash
    for d in decisions:
        if d.seq >= begin:
            rec = ledger_record(d, prev)
            hashes[d.seq] = prev = rec.hash
    n = len(decisions)
    if tail.marker is not None:
        no, h = tail.marker
        if no > n:
            out.differences.append(
                Difference("trail", f"decision #{n + 1} removed after it was recorded")
            )
            named.add(n + 1)
        elif hashes.get(no) != h:
            out.differences.append(
                Difference(
                    "trail",
                    f"the review trail no longer matches its ledger file at or before decision "
                    f"#{no} (run `shoe-audit verify` to name it)",
                )
            )
    after = tail.marker[0] if tail.marker is not None else 0
    for d in decisions[after:]:
        if tail.after.get(d.seq) != hashes.get(d.seq):
            out.differences.append(
                Difference("trail", f"{_name(d, d.seq)} is not in the trail's ledger file")
            )
            named.add(d.seq)


def record_trail_head(store: Any, at: dt.datetime | None = None) -> TrailHead | None:
    """Record the trail's head in the database's ledger (a ``trail`` record, in a
    transaction of its own) when it moved since the last one recorded, and the trail
    passes its cheap check (a tampered head is never vouched for). Returns the head
    recorded, else None."""
    from audit.store.ledger import append

    if store.path == ":memory:":
        return None
    trail = ReviewTrail.beside(store.path)
    last = last_recorded_head(store.con)
    if not trail.exists and last is None:
        return None
    found = check_trail(trail, [last] if last else [], whole=False)
    if not found.intact or (last is not None and last.head == found.head):
        return None
    stamp = (at or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds")
    with store.transaction():
        append(store, [{"kind": TRAIL, **found.head.to_dict(), "at": stamp}])
    return found.head


def store_trail_check(store: Any) -> TrailCheck:
    """The check ``report`` and ``findings`` make: the whole trail (O(decisions)) against
    its ledger file and the last trail head the database's ledger recorded."""
    if store.path == ":memory:":
        return TrailCheck()
    last = last_recorded_head(store.con)
    return check_trail(ReviewTrail.beside(store.path), [last] if last else [])


def trusted_reviews(reviews: Mapping[str, Review], check: TrailCheck) -> dict[str, Review]:
    """The reviews that count: all of them while the trail is intact; while it fails its
    check, none that dismisses (every finding counts as not dismissed)."""
    from audit.review import ReviewState

    if check.intact:
        return dict(reviews)
    return {k: r for k, r in reviews.items() if r.state is not ReviewState.DISMISSED}


def trail_findings(
    check: TrailCheck,
    *,
    codes: Iterable[str] | None = None,
    min_rank: int = 0,
    severities: Iterable[str] | None = None,
) -> list[Finding]:
    """The check's differences as critical, ledger-wide ``LOG_TAMPERED`` findings (no table,
    shoe or gaming day), each with a stable id of its message, kept by ``codes``,
    ``severities`` and ``min_rank`` as ``findings`` filters (the live trail is never stored:
    it changes without the database)."""
    import dataclasses

    from audit.findings import finding_id

    out = []
    for d in check.differences:
        f = d.finding()
        if codes is not None and str(f.code) not in set(codes):
            continue
        if severities is not None and str(f.severity) not in set(severities):
            continue
        if f.severity.rank < min_rank:
            continue
        out.append(dataclasses.replace(f, id=finding_id((str(f.code), TRAIL, f.message), 0)))
    return out
