"""A finding's review status, from its decisions (issue 12, point 2).

- The latest decision supersedes the earlier ones: a finding confirmed, then
  dismissed, is dismissed; the whole history stays in the trail.
- **Four eyes**: dismissing a *critical* finding takes two different *accounts*
  (names compared with case and spacing ignored) among the dismissals since its
  last other decision. Until then it is ``dismissal_pending`` and still counts
  in the report's totals.
- **Authenticated** (issue 29, point 2): only a decision whose account's
  password was checked (:attr:`Decision.authenticated`) takes a finding out of
  the totals. A dismissal under a typed name (the trail before accounts were
  required) is kept and shown, marked ``unauthenticated``, but counts as no pair
  of eyes, whatever the severity: alone it leaves the finding
  ``dismissal_pending``. A confirmation or "needs video" under a typed name
  stands as the status (it takes nothing out of the totals), marked too.
- **Active** (issue 29, the accounts on the record): a decision counts as a
  pair of eyes only when its account was created before it and not yet
  disabled (:attr:`Decision.counts`); a later one by a disabled account is
  kept and shown, marked ``account not active then``, and counts for nothing.
- A dismissed finding (:attr:`Review.counted` false) leaves the report's counts
  and money totals, but stays visible, marked.
- Against the findings of the latest run: ``changed`` when the finding is raised
  with other figures (expected, actual or impact) than the snapshot its latest
  decision saw, ``gone`` ("no longer raised") when it is not raised at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from audit.findings import Code, Finding, Severity
from audit.review.trail import Decision, Snapshot, Verdict


class ReviewState(StrEnum):
    """Where a finding's review stands."""

    CONFIRMED = "confirmed"
    DISMISSED = "dismissed"
    DISMISSAL_PENDING = "dismissal_pending"
    NEEDS_VIDEO = "needs_video"

    @property
    def label(self) -> str:
        """For people: ``dismissal pending``, ``needs video``."""
        return self.value.replace("_", " ")


@dataclass(frozen=True, slots=True)
class Review:
    """The standing review of one finding.

    Attributes:
        finding_id: the finding's stable id.
        state: where the review stands.
        by: who took the decisions that make ``state`` (two names for a dismissed
            critical finding), in the order they were taken.
        unauthenticated: the names in ``by`` whose decisions no account's password
            stood behind (typed names, from before accounts were required).
        inactive: the names in ``by`` whose account was not active when they decided
            (created after, disabled before, or no longer on the record): no pair of eyes.
        at: when the latest decision was taken (RFC 3339, UTC).
        note: the latest decision's note.
        decisions: how many decisions the finding has in all.
        snapshot: the finding as the latest decision saw it.
        changed: the finding is raised now with other figures than ``snapshot``.
        gone: the finding is no longer raised (the review stays attached).
    """

    finding_id: str
    state: ReviewState
    by: tuple[str, ...]
    at: str
    note: str
    decisions: int
    snapshot: Snapshot
    changed: bool = False
    gone: bool = False
    unauthenticated: tuple[str, ...] = ()
    inactive: tuple[str, ...] = ()

    @property
    def counted(self) -> bool:
        """Whether the finding counts in the report's totals (all but a dismissed one)."""
        return self.state is not ReviewState.DISMISSED

    @property
    def label(self) -> str:
        """The status in words, with what changed and who was not authenticated:
        ``dismissed (changed since review)``, ``dismissal pending (unauthenticated: ana)``."""
        extra = " (no longer raised)" if self.gone else (" (changed since review)" * self.changed)
        if self.unauthenticated:
            extra += f" (unauthenticated: {', '.join(self.unauthenticated)})"
        if self.inactive:
            extra += f" (account not active then: {', '.join(self.inactive)})"
        return self.state.label + extra

    @property
    def signers(self) -> tuple[str, ...]:
        """``by`` for people, each typed name marked: ``("ana (unauthenticated)", "bob")``."""
        return tuple(
            f"{n} (unauthenticated)"
            if n in self.unauthenticated
            else f"{n} (account not active then)"
            if n in self.inactive
            else n
            for n in self.by
        )

    def to_dict(self) -> dict[str, Any]:
        """The ``review`` key of ``findings --format jsonl``."""
        return {
            "status": str(self.state),
            "by": list(self.by),
            "at": self.at,
            "note": self.note,
            "decisions": self.decisions,
            "changed_since_review": self.changed,
            "unauthenticated": list(self.unauthenticated),
            "inactive": list(self.inactive),
        }


def _who(name: str) -> str:
    return " ".join(name.split()).casefold()


def review_of(history: Sequence[Decision]) -> Review:
    """The standing review from one finding's decisions (oldest first, at least one)."""
    if not history:
        raise ValueError("a review needs at least one decision")
    last = history[-1]
    by: tuple[str, ...] = (last.by,)
    typed: tuple[str, ...] = () if last.authenticated else (last.by,)
    inactive: tuple[str, ...] = (last.by,) if last.authenticated and not last.counts else ()
    if last.verdict is Verdict.DISMISS:
        names: dict[str, Decision] = {}
        for d in reversed(history):
            if d.verdict is not Verdict.DISMISS:
                break
            seen = names.get(_who(d.by))
            if seen is None or (d.counts and not seen.counts):
                names[_who(d.by)] = d  # a name's counted decision stands for its others
        run = list(reversed(names.values()))
        by = tuple(d.by for d in run)
        typed = tuple(d.by for d in run if not d.authenticated)
        inactive = tuple(d.by for d in run if d.authenticated and not d.counts)
        eyes = {who for who, d in names.items() if d.counts}
        needed = 2 if _severity(last.snapshot) is Severity.CRITICAL else 1
        pending = len(eyes) < needed
        state = ReviewState.DISMISSAL_PENDING if pending else ReviewState.DISMISSED
    elif last.verdict is Verdict.CONFIRM:
        state = ReviewState.CONFIRMED
    else:
        state = ReviewState.NEEDS_VIDEO
    return Review(
        finding_id=last.finding_id,
        state=state,
        by=by,
        at=last.at,
        note=last.note,
        decisions=len(history),
        snapshot=last.snapshot,
        unauthenticated=typed,
        inactive=inactive,
    )


def _severity(s: Snapshot) -> Severity:
    try:
        return Code(s.code).severity
    except ValueError:
        return Severity(s.severity)


def reviews_of(by_finding: Mapping[str, Sequence[Decision]]) -> dict[str, Review]:
    """:func:`review_of` for every finding of the trail."""
    return {fid: review_of(h) for fid, h in by_finding.items() if h}


def against(review: Review, current: Finding | None) -> Review:
    """``review`` compared with the finding as the latest run raises it (None: not raised)."""
    from dataclasses import replace

    if current is None:
        return replace(review, gone=True, changed=False)
    now = Snapshot.of(current)
    return replace(review, gone=False, changed=now.figures() != review.snapshot.figures())
