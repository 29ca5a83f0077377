"""``shoe-audit stats``: every test over the audited rounds, corrected together.

:func:`run_stats` runs the tests of :data:`TESTS` on the frames of
:class:`~audit.stats.frames.StatsData`, then adjusts the p-values of every
row that met its test's minimum sample (:mod:`audit.stats.correction`), and
flags a row whose adjusted p is at most ``alpha`` (default 0.001). A test
judged by a regulator's fixed threshold (``payout_30d``: :attr:`TestSpec.corrected`
false) has no p-value, stays outside the correction and keeps the flag it set.
A flag is a reason to look, never a finding.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from audit.books.house import House
from audit.profiles import ProfileRegistry
from audit.sidebets.paytables import PayTableRegistry
from audit.stats.books import HOLD_DROP, PAYOUT_30D, hold_drop_tests, payout_tests
from audit.stats.cards import CARD_RANKS, card_rank_tests
from audit.stats.correction import Correction, adjust
from audit.stats.counting import COUNT_BETTING, count_tests
from audit.stats.dealing import (
    DEALER_TESTS,
    dealer_cells,
    dealer_rounds,
    dealer_tests,
    natural_tests,
)
from audit.stats.frames import StatsData
from audit.stats.house import HOUSE_RESULT, house_tests
from audit.stats.rows import StatRow, TestSpec
from audit.stats.shuffle import SHUFFLE, shuffle_tests
from audit.stats.wording import verdict

__all__ = ["DEFAULT_ALPHA", "TESTS", "StatsResult", "run_stats"]

DEFAULT_ALPHA = 0.001
TESTS: tuple[TestSpec, ...] = (
    *DEALER_TESTS,
    CARD_RANKS,
    HOUSE_RESULT,
    HOLD_DROP,
    PAYOUT_30D,
    SHUFFLE,
    COUNT_BETTING,
)
"""Every test, with the scopes it runs in and the smallest sample it judges."""
_SPECS = {t.name: t for t in TESTS}


@dataclass(frozen=True, slots=True)
class StatsResult:
    """The rows of one run, and how they were judged."""

    rows: tuple[StatRow, ...]
    alpha: float
    correction: Correction

    @property
    def flags(self) -> tuple[StatRow, ...]:
        return tuple(r for r in self.rows if r.flag)

    @property
    def judged(self) -> int:
        return sum(r.adjusted_p is not None for r in self.rows)


def _raw_rows(
    data: StatsData,
    registry: ProfileRegistry,
    paytables: PayTableRegistry | None,
    house: House | None,
) -> Iterator[StatRow]:
    cells = data.dealer_cells
    yield from dealer_tests(
        cells if cells is not None else dealer_cells(dealer_rounds(data, registry))
    )
    yield from natural_tests(data)
    yield from card_rank_tests(data)
    yield from house_tests(data, registry, paytables)
    yield from hold_drop_tests(data, registry, paytables)
    yield from payout_tests(data, house)
    yield from shuffle_tests(data)
    yield from count_tests(data)


def run_stats(
    data: StatsData,
    registry: ProfileRegistry,
    *,
    alpha: float = DEFAULT_ALPHA,
    correction: Correction = Correction.holm,
    paytables: PayTableRegistry | None = None,
    house: House | None = None,
) -> StatsResult:
    """Every test over ``data``, p-values adjusted together, rows flagged at ``alpha``.

    ``paytables`` price the side bets (default: the packaged pay tables); ``house`` gives
    ``payout_30d``'s window, points and history (default: the packaged house file's).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha is a probability between 0 and 1, got {alpha}")
    rows = list(_raw_rows(data, registry, paytables, house))
    family = [
        i
        for i, r in enumerate(rows)
        if r.judged and r.p_value is not None and _SPECS[r.test].corrected
    ]
    adjusted = dict(
        zip(family, adjust([rows[i].p_value or 0.0 for i in family], correction), strict=True)
    )
    out = []
    for i, r in enumerate(rows):
        spec = _SPECS[r.test]
        if not spec.corrected:
            out.append(r)  # judged and worded by its own threshold
            continue
        adj = adjusted.get(i)
        flag = adj is not None and adj <= alpha
        clause = verdict(
            r.p_value if adj is not None else None,
            adj,
            flag,
            len(family),
            min_n=spec.min_n,
            unit=spec.unit,
            unjudged=r.unjudged,
        )
        out.append(replace(r, adjusted_p=adj, flag=flag, message=f"{r.message}; {clause}"))
    return StatsResult(tuple(out), alpha, correction)
