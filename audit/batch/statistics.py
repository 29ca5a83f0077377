"""``shoe-audit stats``: the statistical tests over the stored outcomes of gaming days."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from audit.errors import AuditError

if TYPE_CHECKING:
    from audit.profiles import ProfileRegistry
    from audit.stats import Correction, StatsResult
    from audit.store import Store

__all__ = ["stats_for_days"]


def stats_for_days(
    store: Store,
    days: list[dt.date] | None,
    registry: ProfileRegistry,
    *,
    alpha: float,
    correction: Correction,
) -> StatsResult:
    """Every test over the audited rounds of ``days`` (default: the latest audited day)."""
    from audit.stats import StatsData, run_stats
    from audit.store.stats_frames import audited_days, load_stats_frames

    audited = audited_days(store)
    if not audited:
        raise AuditError("no audited rounds in the database: run `shoe-audit run` first")
    chosen = days or [audited[-1]]
    first, last = min(chosen), max(chosen)
    if not any(first <= d <= last for d in audited):
        span = str(first) if first == last else f"{first} to {last}"
        raise AuditError(f"no audited rounds in gaming day(s) {span}")
    data = StatsData.of(*load_stats_frames(store, first, last))
    return run_stats(data, registry, alpha=alpha, correction=correction)
