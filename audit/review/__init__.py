"""The review trail: what reviewers decided about findings (issue 12, point 2).

:mod:`~audit.review.trail` keeps the decisions (append-only, chained, in a SQLite
file beside the audit database), :mod:`~audit.review.status` turns a finding's
decisions into its standing review (four eyes on dismissing a critical one),
:mod:`~audit.review.accounts` keeps reviewer accounts for ``serve``, and
:mod:`~audit.review.service` is what ``review`` and ``serve`` call.
"""

from audit.review.status import Review, ReviewState, against, review_of, reviews_of
from audit.review.trail import (
    ChainCheck,
    Decision,
    ReviewError,
    ReviewTrail,
    Snapshot,
    Verdict,
    os_user,
    trail_path,
)

__all__ = [
    "ChainCheck",
    "Decision",
    "Review",
    "ReviewError",
    "ReviewState",
    "ReviewTrail",
    "Snapshot",
    "Verdict",
    "against",
    "os_user",
    "review_of",
    "reviews_of",
    "trail_path",
]
