"""The compliance report over gaming days, as ``report`` and ``nightly`` write it."""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import AuditError, UsageError
from audit.profiles import ProfileRegistry
from audit.store import Store

if TYPE_CHECKING:
    from audit.batch.pages import PageOptions, Plan
    from audit.books.house import House
    from audit.reports.context import FlaggedPage, ReportContext
    from audit.reports.sources import Sources
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
    house: House | None = None,
) -> Path:
    """Render the compliance report for ``days`` (default: the latest) into ``out``.

    The folder is written whole and swapped in (:mod:`audit.reports.folder`):
    the report, the list of every flagged round, and a hand page for every
    flagged round of a replayed shoe (:func:`audit.batch.pages.write_hand_pages`:
    one replay per shoe, on ``workers`` processes). The statistics come first,
    alone: their polars frames grow with the rounds, and computed beside the rest
    their peak added to everything else's (issue 33: 761 -> 533 MiB for the
    report of the 100,000-round night; the 1,000,000-round night's 3.5-4.3 GB
    were mostly that sum). Then two things run at once, each on a DuckDB
    connection of its own: a thread feeds the page workers, and this thread
    reads the report's figures and checks the evidence (one core of Python,
    mostly). ``generated_at`` defaults to now (UTC). Raises
    :class:`audit.reports.report.NothingAuditedError` when no round of those
    days was audited (cli.md: exit 1). ``house`` (default: :func:`audit.books.house.load_house`)
    is the house file whose SHA-256 the report pins beside the Master Game Report.
    DuckDB's memory is :data:`audit.store.store.REPORT_MEMORY_LIMIT` while it runs,
    unless ``SHOE_AUDIT_MEMORY`` chose one.
    """
    from audit.store.store import REPORT_MEMORY_LIMIT

    with store.memory_limit(REPORT_MEMORY_LIMIT), store.memory_given_back():
        return _write_report(
            store,
            days,
            out,
            fmt,
            templates,
            registry,
            show_players=show_players,
            generated_at=generated_at,
            workers=workers,
            house=house,
        )


def _write_report(
    store: Store,
    days: Sequence[dt.date | str] | None,
    out: Path,
    fmt: str,
    templates: Path | None,
    registry: ProfileRegistry | None,
    *,
    show_players: bool,
    generated_at: str | None,
    workers: int | None,
    house: House | None,
) -> Path:
    from audit.batch.books import report_books
    from audit.batch.pages import PageOptions, plan_pages
    from audit.batch.statistics import report_statistics
    from audit.books.house import load_house
    from audit.integrity.trail import store_trail_check, trusted_reviews
    from audit.profiles import load_registry
    from audit.reports import build_report_context
    from audit.reports.evidence import HEADS_FILE, heads_text, report_evidence, write_sums
    from audit.reports.folder import Swap, report_folder
    from audit.reports.masking import hide_ids
    from audit.reports.paths import hand_href
    from audit.reports.report import (
        build_flagged_page,
        check_format,
        report_sources,
        write_report_files,
    )
    from audit.review import ReviewTrail
    from audit.review.adjustments import trail_adjustments
    from audit.store.lookup import player_dealers

    check_format(fmt)
    registry = registry or load_registry()
    # a trail that fails its check: its dismissals count for nothing (issue 29, point 3)
    trail = store_trail_check(store)
    reviews = trusted_reviews(report_reviews(store), trail)
    chosen = sorted(
        {d if isinstance(d, dt.date) else dt.date.fromisoformat(d) for d in days}
        if days
        else {latest_gaming_day(store)}
    )
    stamp = generated_at or dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    swaps: list[Swap] = []
    # A home-game banker is a player: his id is masked where he deals too (issue 30).
    bankers = frozenset() if show_players else frozenset(player_dealers(store.con))

    def figures(src: Sources) -> tuple[ReportContext, FlaggedPage]:
        ctx = build_report_context(
            store,
            chosen,
            registry=registry,
            generated_at=stamp,
            show_players=show_players,
            with_pages=True,
            require_rounds=True,
            reviews=reviews,
            src=src,
        )
        full = build_flagged_page(
            store, chosen, registry=registry, with_pages=True, reviews=reviews, src=src
        )
        return hide_ids(ctx, bankers), hide_ids(full, bankers)

    # The statistics first, alone: their polars frames grow with the rounds, and beside
    # the pages, the figures and the evidence check their peak added to everything else's
    stats = report_statistics(store, chosen, registry, show_players=show_players)
    with report_sources(store, chosen, registry, reviews) as src:
        plan = plan_pages(store, src)
        # With pages to write, the figures are read while the first pages are: the page
        # thread has its own connection. Without, a day with nothing audited is refused
        # before --out is staged (with pages, its staging folder is removed).
        early = None if plan else figures(src)
        with report_folder(Path(out), swaps) as stage:
            options = PageOptions(stage.root, templates, show_players, bankers=bankers)
            with _PagesBeside(store, plan, registry, options, workers) as pages:
                ctx, full = early or figures(src)
                evidence = report_evidence(store, chosen, trail)
                written = pages.result()
            stage.add(written)
            stage.write(HEADS_FILE, heads_text(store, trail, stamp))  # verify --report reads it
            stats = hide_ids(stats, bankers)
            books = report_books(
                store,
                house or load_house(),
                chosen,
                adjustments=trail_adjustments(ReviewTrail.beside(store.path)),
                reviews={fid: str(r.state) for fid, r in reviews.items()},
                hand_link=lambda t, s, r: (
                    hand_href(t, s, r) if hand_href(t, s, r) in written else None
                ),
                statistics=stats,
            )
            ctx = dataclasses.replace(ctx, statistics=stats, integrity=evidence, books=books)
            name = write_report_files(
                stage,
                ctx,
                fmt,  # type: ignore[arg-type]
                templates,
                flagged=full,
                written=written,
                seal=write_sums,
            ).name
    return swaps[0].out / name


class _PagesBeside:
    """The hand pages written in a thread of their own while the caller goes on.

    The thread reads through its own DuckDB connection (a cursor of the store's:
    the same database, never the caller's connection) and hands the batches to
    the page worker processes. Leaving the block early (an error, Ctrl-C) stops
    the thread after its current batch and waits for it, so nothing writes
    into the staging folder once it is removed.
    """

    def __init__(
        self,
        store: Store,
        plan: Plan,
        registry: ProfileRegistry,
        options: PageOptions,
        workers: int | None,
    ) -> None:
        from audit.batch.pages import write_hand_pages

        self._stop = threading.Event()
        self._own = Store(store.con.cursor(), store.path)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="hand-pages")
        self._done = self._pool.submit(
            write_hand_pages, self._own, plan, registry, options, workers=workers, stop=self._stop
        )

    def __enter__(self) -> _PagesBeside:
        return self

    def result(self) -> dict[str, str]:
        """The hrefs written, each with its page's SHA-256 (waits for the last page); the
        thread's error, if it failed."""
        return self._done.result()

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        with suppress(BaseException):
            self._done.result()
        self._pool.shutdown(wait=True)
        self._own.close()


def failing_findings(store: Store, days: Sequence[dt.date], floor: str) -> int:
    """How many findings of ``floor`` severity or worse make ``nightly --fail-on`` fail:
    those of ``days`` not dismissed on review, the ledger-wide ``LOG_TAMPERED`` ones (no
    gaming day), and the review trail's own; while the trail fails its check, its
    dismissals count for nothing (issue 29, point 3)."""
    from audit.findings import Severity
    from audit.integrity.trail import store_trail_check, trail_findings, trusted_reviews
    from audit.store.integrity import tampered_without_day

    rank = Severity(floor).rank
    trail = store_trail_check(store)
    reviews = trusted_reviews(report_reviews(store), trail)
    dismissed = {fid for fid, r in reviews.items() if not r.counted}
    bad = sum(
        f.id not in dismissed
        for day in days
        for f in store.all_findings(gaming_day=day, min_severity=floor)
    )
    bad += sum(f.severity.rank >= rank for f in tampered_without_day(store))
    return bad + len(trail_findings(trail, min_rank=rank))


@dataclasses.dataclass(frozen=True, slots=True)
class FindingTally:
    """The findings of some gaming days counted as reviews leave them (issue 30, point 3).

    Attributes:
        by_severity: every finding, by severity (every severity listed, worst first).
        by_review: every finding by where its review stands: ``open`` (never reviewed),
            ``confirmed``, ``needs_video``, ``dismissal_pending`` (a critical finding one
            account dismissed: it still counts), ``dismissed``.
        counted_by_severity: the findings not dismissed on review, by severity.
        moved_wrongly: the sum of the absolute impacts of the findings not dismissed, as
            an exact money string (``"112.5"``): the money paid wrongly either way.
    """

    by_severity: dict[str, int]
    by_review: dict[str, int]
    counted_by_severity: dict[str, int]
    moved_wrongly: str

    def to_dict(self) -> dict[str, Any]:
        """As ``status --json`` and ``nightly --json`` print it."""
        return {
            "by_severity": self.by_severity,
            "by_review": self.by_review,
            "not_dismissed_by_severity": self.counted_by_severity,
            "moved_wrongly": self.moved_wrongly,
        }


REVIEW_KEYS = ("open", "confirmed", "needs_video", "dismissal_pending", "dismissed")
"""The review states a tally counts, in the order a reviewer works through them."""


def tally_findings(store: Store, days: Sequence[dt.date] | None = None) -> FindingTally:
    """The findings of ``days`` (None: every gaming day) by severity and by review state,
    and the money they moved wrongly. A dismissal counts as the report counts it: not at
    all while the review trail fails its check (issue 29)."""
    from decimal import Decimal

    from audit.findings import Severity, money_str
    from audit.integrity.trail import store_trail_check, trusted_reviews

    reviews = trusted_reviews(report_reviews(store), store_trail_check(store))
    wanted = set(days or ())
    found = [
        f
        for f, x in store.findings_with_facts(
            gaming_days=(min(wanted), max(wanted)) if wanted else None
        )
        if not wanted or x.gaming_day in wanted  # the days of the files, maybe not in a row
    ]
    order = sorted(Severity, key=lambda s: -s.rank)
    by_severity = {str(s): 0 for s in order}
    counted = {str(s): 0 for s in order}
    by_review = dict.fromkeys(REVIEW_KEYS, 0)
    moved = Decimal(0)
    for f in found:
        r = reviews.get(f.id or "")
        by_severity[str(f.severity)] += 1
        by_review["open" if r is None else str(r.state)] += 1
        if r is None or r.counted:
            counted[str(f.severity)] += 1
            moved += abs(f.impact) if f.impact is not None else 0
    return FindingTally(by_severity, by_review, counted, money_str(moved) or "0")
