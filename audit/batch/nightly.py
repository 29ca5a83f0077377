"""The compliance report over gaming days, as ``report`` and ``nightly`` write it."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

from audit.errors import AuditError, InputError
from audit.profiles import ProfileRegistry
from audit.store import Store


def day_range(
    date: dt.date | None, first: dt.date | None, last: dt.date | None
) -> list[dt.date] | None:
    """The gaming days named by ``--date`` or ``--from``/``--to``; None: the latest one."""
    if date is not None:
        if first or last:
            raise InputError("give either --date or --from/--to, not both")
        return [date]
    if first is None and last is None:
        return None
    if first is None or last is None:
        raise InputError("--from and --to go together")
    if last < first:
        raise InputError(f"--to {last} is before --from {first}")
    return [first + dt.timedelta(days=i) for i in range((last - first).days + 1)]


def latest_gaming_day(store: Store) -> dt.date:
    """The latest gaming day that has a shoe in the database."""
    days = [i.gaming_day for i in store.shoe_info().values() if i.gaming_day is not None]
    if not days:
        raise AuditError("the database holds no shoes yet: run `shoe-audit ingest` first")
    return max(days)


def write_report(
    store: Store,
    days: list[dt.date] | None,
    out: Path,
    fmt: str = "html",
    templates: Path | None = None,
    registry: ProfileRegistry | None = None,
) -> Path:
    """Render the compliance report for ``days`` (default: the latest) into ``out``."""
    from audit.batch.runner import replay_stored_shoe
    from audit.engine import ShoeContext
    from audit.profiles import load_registry
    from audit.reports import build_report_context, render_report
    from audit.reports.evidence import report_evidence, write_sums
    from audit.store import ShoeKey

    registry = registry or load_registry()
    chosen = days or [latest_gaming_day(store)]
    contexts: dict[ShoeKey, ShoeContext] = {}  # each table's outline read once
    ctx = build_report_context(
        store,
        chosen,
        registry=registry,
        replayer=lambda t, s: replay_stored_shoe(store, registry, ShoeKey(t, s), contexts),
    )
    ctx = dataclasses.replace(ctx, evidence=report_evidence(store, chosen))
    path = render_report(ctx, out, fmt, templates_dir=templates)  # type: ignore[arg-type]
    write_sums(out, [path, *(out / p.href for p in ctx.hand_pages)])
    return path
