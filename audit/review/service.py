"""What ``shoe-audit review`` and ``serve`` call: record a decision, read review statuses."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from audit.errors import NotFoundError, UsageError
from audit.findings import Finding
from audit.review.status import Review, against, reviews_of
from audit.review.trail import Decision, ReviewTrail, Verdict
from audit.store import Store

MIN_ID_PREFIX = 6
"""The shortest part of a finding's id that a reviewer may give instead of the whole id."""

CANDIDATES_SHOWN = 5
"""How many candidates an ambiguous prefix names before "and N more"."""


class AmbiguousIdError(NotFoundError):
    """A shortened finding id that more than one finding's id starts with (exit 1)."""


def find_finding(store: Store, finding_id: str) -> Finding:
    """The finding with this stable id, or the one whose id starts with it (at least
    :data:`MIN_ID_PREFIX` characters), as the latest run raised it.

    cli.md: no such finding, or a prefix several ids share (named, with their codes), is
    exit 1; a prefix shorter than :data:`MIN_ID_PREFIX` is a usage error (exit 2).
    """
    found = store.all_findings(ids=[finding_id])
    if found:
        return found[0]
    if len(finding_id) < MIN_ID_PREFIX:
        raise UsageError(
            f"finding id {finding_id!r}: give the whole id or at least "
            f"{MIN_ID_PREFIX} of its first characters"
        )
    by_id = {f.id: f for f in store.all_findings(id_prefix=finding_id) if f.id is not None}
    if len(by_id) == 1:
        return next(iter(by_id.values()))
    if not by_id:
        raise NotFoundError(
            f"no finding with id {finding_id!r} in the database "
            "(ids are the `id` key of `shoe-audit findings --format jsonl`)"
        )
    shown = [f"{fid} ({by_id[fid].code})" for fid in sorted(by_id)[:CANDIDATES_SHOWN]]
    more = len(by_id) - len(shown)
    raise AmbiguousIdError(
        f"finding id {finding_id!r} is ambiguous: {len(by_id)} findings start so: "
        + ", ".join(shown)
        + (f" and {more} more" if more else "")
    )


def review_finding(
    trail: ReviewTrail,
    finding: Finding,
    verdict: Verdict | str,
    *,
    note: str,
    by: str,
    via: str,
    user: str | None,
    account: str | None,
) -> tuple[Decision, Review]:
    """Append one decision on ``finding``; return it and the finding's review now.

    ``account``: the account whose password was checked (:func:`audit.review.accounts.
    authenticate`, or the web sign-in); None records ``by`` as a typed name, which the
    four-eyes rule never counts (:mod:`audit.review.status`).
    """
    decision = trail.record(finding, verdict, note=note, by=by, via=via, user=user, account=account)
    review = reviews_of({finding.id or "": trail.history(decision.finding_id)})[decision.finding_id]
    return decision, against(review, finding)


def standing_reviews(trail: ReviewTrail) -> dict[str, Review]:
    """Every reviewed finding's standing review, not yet compared with a run."""
    return reviews_of(trail.by_finding())


def reviews_for(findings: Sequence[Finding], reviews: Mapping[str, Review]) -> dict[str, Review]:
    """The reviews of ``findings`` (those that have one), compared with them."""
    return {
        f.id: against(reviews[f.id], f) for f in findings if f.id is not None and f.id in reviews
    }


def reviews_against_store(store: Store, reviews: Mapping[str, Review]) -> list[Review]:
    """Every review compared with the latest run: ``changed``, ``gone`` or as reviewed."""
    current = {f.id: f for f in store.all_findings(ids=list(reviews))}
    return [against(r, current.get(fid)) for fid, r in sorted(reviews.items())]


def counted_out(reviews: Mapping[str, Review]) -> Iterable[str]:
    """The ids of the findings that leave the report's totals (dismissed)."""
    return (fid for fid, r in reviews.items() if not r.counted)
