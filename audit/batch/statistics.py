"""``shoe-audit stats``: the statistical tests over the stored outcomes of gaming days."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from audit.errors import AuditError

if TYPE_CHECKING:
    from audit.profiles import ProfileRegistry
    from audit.reports.statistics import StatisticsSection
    from audit.stats import Correction
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
) -> StatsResult:
    """Every test over the audited rounds of ``days`` (default: the latest audited day)."""
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
    data = StatsData.stored(load_stats_frames(store, first, last))
    return run_stats(data, registry, alpha=alpha, correction=correction)


def report_statistics(
    store: Store,
    days: list[dt.date],
    registry: ProfileRegistry,
    *,
    show_players: bool = False,
) -> StatisticsSection | None:
    """The report's statistics section for ``days`` at the default alpha (None: no rounds)."""
    from audit.reports.statistics import mask_id, statistics_section
    from audit.stats import Correction
    from audit.stats.suite import DEFAULT_ALPHA

    try:
        result = stats_for_days(
            store, days, registry, alpha=DEFAULT_ALPHA, correction=Correction.holm
        )
    except AuditError:
        return None
    return statistics_section(result, mask=None if show_players else mask_id)
