"""The compliance report over gaming days, as ``report`` and ``nightly`` write it."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import AuditError, UsageError
from audit.profiles import ProfileRegistry
from audit.store import Store

if TYPE_CHECKING:
    from audit.review import Review


def day_range(
    date: dt.date | None, first: dt.date | None, last: dt.date | None
) -> list[dt.date] | None:
    """The gaming days named by ``--date`` or ``--from``/``--to``; None: the latest one."""
    if date is not None:
        if first or last:
            raise UsageError("give either --date or --from/--to, not both")
        return [date]
    if first is None and last is None:
        return None
    if first is None or last is None:
        raise UsageError("--from and --to go together")
    if last < first:
        raise UsageError(f"--to {last} is before --from {first}")
    return [first + dt.timedelta(days=i) for i in range((last - first).days + 1)]


def latest_gaming_day(store: Store) -> dt.date:
    """The latest gaming day that has a shoe in the database."""
    days = [i.gaming_day for i in store.shoe_info().values() if i.gaming_day is not None]
    if not days:
        raise AuditError("the database holds no shoes yet: run `shoe-audit ingest` first")
    return max(days)


def report_reviews(store: Store) -> dict[str, Review]:
    """The standing reviews of the trail beside the store's file (none for an in-memory
    store or a database nobody reviewed yet): dismissed findings leave the report's
    counts (issue 12)."""
    from audit.review import ReviewTrail
    from audit.review.service import standing_reviews

    if store.path == ":memory:":
        return {}
    return standing_reviews(ReviewTrail.beside(store.path))


def write_report(
    store: Store,
    days: Sequence[dt.date | str] | None,
    out: Path,
    fmt: str = "html",
    templates: Path | None = None,
    registry: ProfileRegistry | None = None,
    *,
    show_players: bool = False,
    generated_at: str | None = None,
    workers: int | None = None,
) -> Path:
    """Render the compliance report for ``days`` (default: the latest) into ``out``.

    The folder is written whole and swapped in (:mod:`audit.reports.folder`):
    the report, the list of every flagged round, and a hand page for every
    flagged round of a replayed shoe and its neighbours
    (:func:`audit.batch.pages.write_hand_pages`: one replay per shoe, on
    ``workers`` processes). ``generated_at`` defaults to now (UTC). Raises
    :class:`audit.reports.report.NothingAuditedError` when no round of those
    days was audited (cli.md: exit 1).
    """
    from audit.batch.pages import PageOptions, plan_pages, write_hand_pages
    from audit.batch.statistics import report_statistics
    from audit.engine import ENGINE_VERSION
    from audit.profiles import load_registry
    from audit.reports import build_report_context, render_report
    from audit.reports.evidence import report_evidence, write_sums
    from audit.reports.report import build_flagged_page
    from audit.reports.sources import Sources

    registry = registry or load_registry()
    reviews = report_reviews(store)
    chosen = sorted(
        {d if isinstance(d, dt.date) else dt.date.fromisoformat(d) for d in days}
        if days
        else {latest_gaming_day(store)}
    )
    stamp = generated_at or dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    ctx = build_report_context(
        store,
        chosen,
        registry=registry,
        generated_at=stamp,
        show_players=show_players,
        with_pages=True,
        require_rounds=True,
        reviews=reviews,
    )
    stats = report_statistics(store, chosen, registry, show_players=show_players)
    ctx = dataclasses.replace(ctx, statistics=stats, integrity=report_evidence(store, chosen))
    full = build_flagged_page(store, chosen, registry=registry, with_pages=True, reviews=reviews)
    digests = {p.id: p.digest for p in registry.all()}
    states = {fid: str(r.state) for fid, r in reviews.items()}
    with Sources(
        store.con, chosen, engine_version=ENGINE_VERSION, profile_digests=digests, reviews=states
    ) as src:
        plan = plan_pages(store, src)

    def pages(stage: Any) -> list[str]:
        options = PageOptions(stage.root, templates, show_players)
        hrefs = write_hand_pages(store, plan, registry, options, workers=workers)
        stage.add(hrefs)
        return hrefs

    return render_report(
        ctx,
        out,
        fmt,  # type: ignore[arg-type]
        templates_dir=templates,
        flagged=full,
        pages=pages,
        seal=write_sums,
    )
