"""``shoe-audit stats``: the statistical tests over the stored outcomes of gaming days."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from audit.errors import AuditError

if TYPE_CHECKING:
    from audit.books.house import House
    from audit.profiles import ProfileRegistry
    from audit.reports.statistics import StatisticsSection
    from audit.sidebets.paytables import PayTableRegistry
    from audit.stats import Correction
    from audit.stats.frames import StatsData
    from audit.stats.suite import StatsResult
    from audit.store import Store

__all__ = ["report_statistics", "stats_for_days"]


def stats_for_days(
    store: Store,
    days: list[dt.date] | None,
    registry: ProfileRegistry,
    *,
    alpha: float,
    correction: Correction,
    house: House | None = None,
    paytables: PayTableRegistry | None = None,
) -> StatsResult:
    """Every test over the audited rounds of ``days`` (default: the latest audited day).

    The books' tests read the stored periods as counted, a period reconciled under a house
    file other than ``house`` (default: the one :func:`audit.books.house.load_house` reads)
    as not audited; ``paytables`` price the side bets (default: the packaged ones).
    """
    from audit.books.house import load_house
    from audit.stats.frames import StatsData
    from audit.stats.suite import run_stats
    from audit.store.stats_frames import audited_days, load_stats_frames

    audited = audited_days(store)
    if not audited:
        raise AuditError("no audited rounds in the database: run `shoe-audit run` first")
    chosen = days or [audited[-1]]
    first, last = min(chosen), max(chosen)
    if not any(first <= d <= last for d in audited):
        span = str(first) if first == last else f"{first} to {last}"
        raise AuditError(f"no audited rounds in gaming day(s) {span}")
    the_house = house if house is not None else load_house()
    frames = load_stats_frames(store, first, last, house_sha256=the_house.sha256, lean=True)
    data = _with_stored_sums(store, StatsData.stored(frames, last_day=last), registry, first, last)
    return run_stats(
        data,
        registry,
        alpha=alpha,
        correction=correction,
        paytables=paytables,
        house=the_house,
    )


def _with_stored_sums(
    store: Store, data: StatsData, registry: ProfileRegistry, first: dt.date, last: dt.date
) -> StatsData:
    """``data`` with the dealer's hands and the count-betting terms summed as the store
    feeds them: never a polars frame of every round's terms, which was most of a large
    night's memory (issue 33)."""
    import dataclasses

    from audit.stats.counting import COUNT_BETTING, SIGMA2
    from audit.stats.dealing import dealer_cells_of, dealer_profiles
    from audit.store.stats_aggregates import (
        dealer_hand_batches,
        load_count_cells,
        load_natural_cells,
    )

    profiles = dealer_profiles(
        registry, data.rounds.get_column("profile_id").unique().drop_nulls().to_list()
    )
    batches = dealer_hand_batches(store, first, last, profiles)
    cells = dealer_cells_of(batches, registry, profiles)
    counts = load_count_cells(store, first, last, sigma2=SIGMA2, min_n=COUNT_BETTING.min_n)
    naturals = load_natural_cells(store, first, last)
    return dataclasses.replace(data, dealer_cells=cells, count_cells=counts, natural_cells=naturals)


def report_statistics(
    store: Store,
    days: list[dt.date],
    registry: ProfileRegistry,
    *,
    show_players: bool = False,
    house: House | None = None,
) -> StatisticsSection | None:
    """The report's statistics section for ``days`` at the default alpha (None: no rounds);
    ``house``: the house file the books' tests read (default: :func:`load_house`'s)."""
    from audit.reports.statistics import mask_id, statistics_section
    from audit.stats import Correction
    from audit.stats.suite import DEFAULT_ALPHA

    try:
        result = stats_for_days(
            store, days, registry, alpha=DEFAULT_ALPHA, correction=Correction.holm, house=house
        )
    except AuditError:
        return None
    month_ends = _month_end_payouts(store, days, house)
    return statistics_section(result, mask=None if show_players else mask_id, month_ends=month_ends)


def _month_end_payouts(store: Store, days: list[dt.date], house: House | None) -> list[Any]:
    """``payout_30d`` at each month's end inside ``days`` but their last (whose rows the
    run has): Ohio compares each table's payout monthly (accounting.md "In the compliance
    report": "Ohio rows at each month's end")."""
    from audit.books.house import load_house
    from audit.stats.books import payout_rows
    from audit.stats.frames import StatsData
    from audit.store.stats_frames import load_period_books

    if not days:
        return []
    first, last = min(days), max(days)
    ends = [
        d - dt.timedelta(days=1)
        for d in (dt.date(y, m, 1) for y, m in _months_after(first, last))
        if first <= d - dt.timedelta(days=1) < last
    ]
    if not ends:
        return []
    the_house = house if house is not None else load_house()
    periods = load_period_books(store, last, house_sha256=the_house.sha256)
    if periods is None:
        return []
    frame = StatsData.of(periods=periods).periods
    return [row for end in ends for row in payout_rows(frame, the_house, end)]


def _months_after(first: dt.date, last: dt.date) -> list[tuple[int, int]]:
    """(year, month) of each first of a month after ``first``, up to the month after
    ``last``."""
    out = []
    y, m = first.year, first.month
    while (y, m) <= (last.year, last.month):
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        out.append((y, m))
    return out
