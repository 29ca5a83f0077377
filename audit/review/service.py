"""What ``shoe-audit review`` and ``serve`` call: record a decision, read review statuses."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from audit.errors import NotFoundError
from audit.findings import Finding
from audit.review.status import Review, against, reviews_of
from audit.review.trail import Decision, ReviewTrail, Verdict
from audit.store import Store


def find_finding(store: Store, finding_id: str) -> Finding:
    """The finding with this stable id, as the latest run raised it (cli.md: exit 1 if none)."""
    found = store.all_findings(ids=[finding_id])
    if not found:
        raise NotFoundError(
            f"no finding with id {finding_id!r} in the database "
            "(ids are the `id` key of `shoe-audit findings --format jsonl`)"
        )
    return found[0]


def review_finding(
    trail: ReviewTrail,
    finding: Finding,
    verdict: Verdict | str,
    *,
    note: str,
    by: str,
    via: str,
    user: str | None,
) -> tuple[Decision, Review]:
    """Append one decision on ``finding``; return it and the finding's review now."""
    decision = trail.record(finding, verdict, note=note, by=by, via=via, user=user)
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
