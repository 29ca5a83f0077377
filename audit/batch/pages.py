"""The hand pages beside a compliance report, at scale (issue 10, points 2 and 11).

cli.md: "one page per flagged round". A night of 1,000,000 rounds with errors
in 1% of them has some 10,000 flagged rounds, so pages are made with as few
replays as possible:

- the plan (:data:`audit.reports.sources.PAGE_PLAN_SQL`) lists every flagged
  round of a replayed shoe, and no other (a page names the rounds before and
  after it, with a link where that round is flagged too and the ``hand``
  command to see it where it is not: pages for the neighbours tripled the
  page count and the report's time);
- the events of all planned shoes are streamed out of DuckDB in one scan
  (:meth:`audit.store.Store.iter_shoe_rows`), as ``run`` does;
- each shoe is replayed **once**, and only up to the last event its pages need,
  by the same engine and profile ``run`` used, with the same cross-shoe
  context; all of the shoe's pages are built from that one replay;
- replays and rendering run in worker processes (one per core), which write
  the pages straight into the report's staging folder and hand back only
  their paths.

Verdicts on a page are the engine's (its findings and wager records), never
recomputed here.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from audit.engine import ShoeContext, replay_shoe
from audit.errors import NotFoundError
from audit.profiles import ProfileRegistry
from audit.reports.context import HandContext, RoundLink
from audit.reports.paths import HAND_TO_REPORT, INDEX, hand_href
from audit.store import ShoeKey, Store
from audit.store.rows import build_event

BATCH_EVENTS = 20_000


@dataclass(frozen=True, slots=True)
class PlannedRound:
    """One hand page to write: its round, and whether it is flagged (else a neighbour)."""

    round: int
    flagged: bool
    findings: int
    worst_severity: str | None


@dataclass(frozen=True, slots=True)
class PageJob:
    """One shoe's pages: its events as rows (up to ``upto_seq``) and what to write."""

    key: ShoeKey
    names: list[str]
    rows: list[tuple[Any, ...]]
    profile_id: str | None
    context: ShoeContext
    rounds: tuple[PlannedRound, ...]
    sources: dict[str, tuple[str, int]]


@dataclass(frozen=True, slots=True)
class PageOptions:
    """How pages are written: where (the staging folder), which templates, masking."""

    root: Path
    templates_dir: Path | None
    show_players: bool


def plan_pages(store: Store, src: Any) -> dict[ShoeKey, tuple[tuple[PlannedRound, ...], int]]:
    """The planned pages of each shoe, and the last ``seq`` its replay needs."""
    from audit.reports.sources import PAGE_PLAN_SQL

    plan: dict[ShoeKey, tuple[list[PlannedRound], int]] = {}
    for table, shoe, rnd, flagged, n, worst, upto in src.all(PAGE_PLAN_SQL):
        rounds, last = plan.setdefault(ShoeKey(table, shoe), ([], 0))
        rounds.append(PlannedRound(int(rnd), bool(flagged), int(n), worst))
        plan[ShoeKey(table, shoe)] = (rounds, max(last, int(upto)))
    return {k: (tuple(r), last) for k, (r, last) in plan.items()}


def write_hand_pages(
    store: Store,
    plan: dict[ShoeKey, tuple[tuple[PlannedRound, ...], int]],
    registry: ProfileRegistry,
    options: PageOptions,
    *,
    workers: int | None = None,
) -> list[str]:
    """Write every planned page into ``options.root``; return the hrefs written."""
    from audit.batch.runner import shoe_contexts
    from audit.reports.sources import shoe_event_sources

    if not plan:
        return []
    keys = sorted(plan)
    infos = store.shoe_info(keys)
    contexts = shoe_contexts(store, keys)
    n_workers = max(1, min(workers or os.cpu_count() or 1, len(keys) // 8 or 1))

    def jobs() -> Iterator[list[PageJob]]:
        for names, rows in store.iter_shoe_rows(keys, batch_events=BATCH_EVENTS):
            seq_at = names.index("seq")
            where = shoe_event_sources(store.con, [(k.table, k.shoe) for k in rows])
            batch = []
            for key, shoe_rows in rows.items():
                rounds, upto = plan[key]
                batch.append(
                    PageJob(
                        key=key,
                        names=names,
                        rows=[r for r in shoe_rows if r[seq_at] <= upto],
                        profile_id=infos[key].profile if key in infos else None,
                        context=contexts.get(key, ShoeContext()),
                        rounds=rounds,
                        sources=where.get((key.table, key.shoe), {}),
                    )
                )
            yield batch

    written: list[str] = []
    if n_workers == 1:
        for batch in jobs():
            written.extend(_write_batch(batch, registry, options))
        return written
    with ProcessPoolExecutor(
        n_workers,
        mp_context=get_context("spawn"),
        initializer=_init_worker,
        initargs=(registry, options),
    ) as pool:
        pending: deque[Future[list[str]]] = deque()
        for batch in jobs():
            pending.append(pool.submit(_worker_batch, batch))
            while len(pending) > 2 * n_workers:
                written.extend(pending.popleft().result())
        while pending:
            written.extend(pending.popleft().result())
    return written


_WORKER: tuple[ProfileRegistry, PageOptions] | None = None


def _init_worker(registry: ProfileRegistry, options: PageOptions) -> None:
    global _WORKER
    _WORKER = (registry, options)


def _worker_batch(batch: list[PageJob]) -> list[str]:
    assert _WORKER is not None, "worker started without its registry"
    return _write_batch(batch, *_WORKER)


def _write_batch(
    batch: Sequence[PageJob], registry: ProfileRegistry, options: PageOptions
) -> list[str]:
    from audit.reports.templating import render

    out: list[str] = []
    for job in batch:
        for href, ctx in shoe_pages(job, registry, show_players=options.show_players):
            path = options.root / href
            path.parent.mkdir(parents=True, exist_ok=True)
            text = render("hand/hand.html.j2", "html", ctx, templates_dir=options.templates_dir)
            with path.open("w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
            out.append(href)
    return out


def shoe_pages(
    job: PageJob, registry: ProfileRegistry, *, show_players: bool = False
) -> list[tuple[str, HandContext]]:
    """The hand pages of one shoe from one replay: ``(href, context)`` per planned round.

    Each page links back to the report, to the rounds before and after it, and
    to every flagged round of the shoe (all of which have pages).
    """
    from audit.batch.runner import profile_for
    from audit.reports.hand import build_hand_context, masked

    profile = profile_for(registry, job.profile_id)
    if profile is None:
        return []
    events = [build_event(dict(zip(job.names, r, strict=True))) for r in job.rows]
    paged = {p.round for p in job.rounds}
    # Only the paged rounds in full (their steps and verdicts); the others are passed
    # over as the shoe remembers them (cards counted), which is most of a shoe.
    replay = replay_shoe(events, profile, job.context, rounds=paged)
    t, s = job.key.table, job.key.shoe
    flagged = tuple(
        RoundLink(p.round, p.findings, f"r{p.round}.html", p.worst_severity)
        for p in job.rounds
        if p.flagged
    )

    def link(rl: RoundLink | None) -> RoundLink | None:
        if rl is None:
            return None
        if rl.round not in paged:
            # not flagged (every flagged round has a page); the replay may stop in it
            return RoundLink(rl.round, 0)
        return replace(rl, href=f"r{rl.round}.html")

    pages = []
    for p in job.rounds:
        try:
            ctx = build_hand_context(replay, p.round, profile, events=events, sources=job.sources)
        except NotFoundError:
            continue  # the stored round is not one the engine replays: no page, no link
        ctx = replace(
            ctx,
            previous_round=link(ctx.previous_round),
            next_round=link(ctx.next_round),
            report_href=HAND_TO_REPORT + INDEX,
            shoe_flagged=flagged,
        )
        pages.append((hand_href(t, s, p.round), ctx if show_players else masked(ctx)))
    return pages
