"""The hand pages beside a compliance report, at scale (issue 10, points 2 and 11).

cli.md: "one page per flagged round". A night of 1,000,000 rounds with errors
in 1% of them has some 10,000 flagged rounds, so pages are made with as few
replays as possible:

- the plan (:data:`audit.reports.sources.PAGE_PLAN_SQL`) lists every flagged
  round of a replayed shoe, and no other (a page names the rounds before and
  after it, with a link where that round is flagged too and the ``hand``
  command to see it where it is not: pages for the neighbours tripled the
  page count and the report's time);
- the events of all planned shoes are streamed out of DuckDB as ``run``
  streams them (:func:`audit.store.batches.stream_shoe_batches`): Arrow
  batches of whole shoes, lean as ``run`` reads them, with the facts a page
  shows beside the engine's steps (the local time, and the file and line each
  event was read from) for the events of the planned rounds. The parent turns
  no event into a Python object;
- each shoe is replayed **once**, and only up to the last event its pages need,
  by the same engine and profile ``run`` used, with the same cross-shoe
  context; all of the shoe's pages are built from that one replay;
- decoding, replays and rendering run in worker processes (one per core),
  which write the pages straight into the report's staging folder and hand
  back only their paths.

Verdicts on a page are the engine's (its findings and wager records), never
recomputed here.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections import deque
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, replace
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.batch.collector import quiet_collector
from audit.batch.interrupts import sigint_deferred, worker_leaves_sigint_to_parent
from audit.batch.lifeline import stop_with_parent
from audit.engine import ShoeContext, replay_shoe_of
from audit.engine.event import RoundEvent
from audit.errors import NotFoundError
from audit.events.models import AnyEvent
from audit.profiles import ProfileRegistry
from audit.reports.context import HandContext, RoundLink
from audit.reports.paths import HAND_TO_REPORT, INDEX, hand_href
from audit.store import ShoeKey, Store
from audit.store.batches import (
    Paged,
    ShoeEvents,
    batch_keys,
    decode_page_batch,
    stream_shoe_batches,
)

if TYPE_CHECKING:
    import pyarrow as pa

BATCH_EVENTS = 20_000


@dataclass(frozen=True, slots=True)
class PlannedRound:
    """One hand page to write: its round, and whether it is flagged (else a neighbour)."""

    round: int
    flagged: bool
    findings: int
    worst_severity: str | None


@dataclass(frozen=True, slots=True)
class PagedShoe:
    """What a worker needs of one shoe besides its events: what to replay and write."""

    key: ShoeKey
    profile_id: str | None
    context: ShoeContext
    rounds: tuple[PlannedRound, ...]


@dataclass(frozen=True, slots=True)
class PageBatch:
    """A batch of whole shoes for a page worker: their events (Arrow) and their plans."""

    events: pa.Table
    shoes: tuple[PagedShoe, ...]


@dataclass(frozen=True, slots=True)
class PageOptions:
    """How pages are written: where (the staging folder), which templates, masking, and
    the path of each input file (by ``file_id``) that a page names as an event's source."""

    root: Path
    templates_dir: Path | None
    show_players: bool
    paths: Mapping[int, str] | None = None
    bankers: frozenset[str] = frozenset()
    """The dealer ids that are players' (home-game bankers): masked too unless
    ``show_players`` (:func:`audit.store.lookup.player_dealers`)."""


Plan = dict[ShoeKey, tuple[tuple[PlannedRound, ...], int]]
"""The planned pages of each shoe, and the last ``seq`` its replay needs."""


def plan_pages(store: Store, src: Any) -> Plan:
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
    plan: Plan,
    registry: ProfileRegistry,
    options: PageOptions,
    *,
    workers: int | None = None,
    stop: threading.Event | None = None,
) -> dict[str, str]:
    """Write every planned page into ``options.root``; return the hrefs written, each with
    the SHA-256 of the page's bytes (:meth:`audit.reports.folder.Staging.add`).

    ``stop``, once set, ends the work after the batches in flight (another thread's
    caller gave up: :func:`audit.batch.nightly.write_report`).
    """
    from audit.batch.runner import shoe_contexts

    if not plan:
        return {}
    keys = sorted(plan)
    infos = store.shoe_info(keys)
    contexts = shoe_contexts(store, keys)
    options = replace(options, paths=store.input_paths())
    n_workers = max(1, min(workers or os.cpu_count() or 1, len(keys) // 8 or 1))

    def jobs() -> Iterator[PageBatch]:
        pages = {k: Paged([p.round for p in rounds], upto) for k, (rounds, upto) in plan.items()}
        for events in stream_shoe_batches(store, keys, BATCH_EVENTS, pages=pages):
            if stop is not None and stop.is_set():
                return
            shoes = []
            for key in batch_keys(events):
                rounds, _ = plan[key]
                info = infos.get(key)
                shoes.append(
                    PagedShoe(
                        key,
                        info.profile if info else None,
                        contexts.get(key, ShoeContext()),
                        rounds,
                    )
                )
            yield PageBatch(events, tuple(shoes))

    written: dict[str, str] = {}
    if n_workers == 1:
        for batch in jobs():
            written.update(_write_batch(batch, registry, options))
        return written
    with ProcessPoolExecutor(
        n_workers,
        mp_context=get_context("spawn"),
        initializer=_init_worker,
        initargs=(registry, options),
    ) as pool:
        pending: deque[Future[dict[str, str]]] = deque()
        for batch in jobs():
            with sigint_deferred():  # a worker may be started here (audit.batch.interrupts)
                pending.append(pool.submit(_worker_batch, batch))
            while len(pending) > 2 * n_workers:
                written.update(pending.popleft().result())
        while pending:
            written.update(pending.popleft().result())
    return written


_WORKER: tuple[ProfileRegistry, PageOptions] | None = None


def _init_worker(registry: ProfileRegistry, options: PageOptions) -> None:
    global _WORKER
    _WORKER = (registry, options)
    stop_with_parent()  # as run's workers do (audit.batch.lifeline)
    quiet_collector()
    worker_leaves_sigint_to_parent()  # Ctrl-C is the parent's to report


def _worker_batch(batch: PageBatch) -> dict[str, str]:
    assert _WORKER is not None, "worker started without its registry"
    return _write_batch(batch, *_WORKER)


def _write_batch(
    batch: PageBatch, registry: ProfileRegistry, options: PageOptions
) -> dict[str, str]:
    from audit.reports.folder import write_text
    from audit.reports.templating import render

    decoded = decode_page_batch(batch.events)
    if [d.key for d in decoded] != [s.key for s in batch.shoes]:
        raise RuntimeError("a page batch's shoes and their plans disagree")
    paths = options.paths or {}
    out: dict[str, str] = {}
    made: set[Path] = set()  # a shoe's pages share a folder: one mkdir, not one a page
    for got, shoe in zip(decoded, batch.shoes, strict=True):
        sources = {i: (paths.get(f, "?"), n) for i, (f, n) in got.read_at.items()}
        for href, ctx in shoe_pages(
            shoe,
            got.events,
            sources,
            registry,
            options.show_players,
            logged_at=got.logged_at,
            bankers=options.bankers,
        ):
            path = options.root / href
            if path.parent not in made:
                path.parent.mkdir(parents=True, exist_ok=True)
                made.add(path.parent)
            text = render("hand/hand.html.j2", "html", ctx, templates_dir=options.templates_dir)
            out[href] = write_text(path, text)
    return out


def shoe_pages(
    shoe: PagedShoe,
    events: ShoeEvents,
    sources: Mapping[str, tuple[str, int]],
    registry: ProfileRegistry,
    show_players: bool = False,
    *,
    logged_at: Mapping[str, dt.datetime] | None = None,
    bankers: frozenset[str] = frozenset(),
) -> list[tuple[str, HandContext]]:
    """The hand pages of one shoe from one replay: ``(href, context)`` per planned round.

    ``events`` are the shoe's events up to the last one its pages need: lean
    (:class:`~audit.engine.event.RoundEvent`) except for the shoe events, which
    come as their models. ``logged_at`` gives the planned rounds' events' local
    times, which with their lean records are what a page shows of them
    (:class:`~audit.reports.hand.StepFacts`). Each page links back to the report,
    to the rounds before and after it, and to every flagged round of the shoe
    (all of which have pages).
    """
    from audit.batch.runner import profile_for
    from audit.reports.hand import build_hand_context, lean_facts, masked

    profile = profile_for(registry, shoe.profile_id)
    if profile is None:
        return []
    shown: list[AnyEvent] = [e for e in events if not isinstance(e, RoundEvent)]
    logged = logged_at or {}
    facts = {
        e.id: lean_facts(e, logged[e.id])
        for e in events
        if isinstance(e, RoundEvent) and e.id in logged
    }
    paged = {p.round for p in shoe.rounds}
    # Only the paged rounds in full (their steps and verdicts); the others are passed
    # over as the shoe remembers them (cards counted), which is most of a shoe.
    t, s = shoe.key.table, shoe.key.shoe
    replay = replay_shoe_of(t, s, events, profile, shoe.context, rounds=paged)
    flagged = tuple(
        RoundLink(p.round, p.findings, f"r{p.round}.html", p.worst_severity)
        for p in shoe.rounds
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
    for p in shoe.rounds:
        try:
            ctx = build_hand_context(
                replay, p.round, profile, events=shown, sources=sources, facts=facts
            )
        except NotFoundError:
            continue  # the stored round is not one the engine replays: no page, no link
        ctx = replace(
            ctx,
            previous_round=link(ctx.previous_round),
            next_round=link(ctx.next_round),
            report_href=HAND_TO_REPORT + INDEX,
            shoe_flagged=flagged,
        )
        pages.append((hand_href(t, s, p.round), ctx if show_players else masked(ctx, bankers)))
    return pages
