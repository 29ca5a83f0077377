"""Entry points: :func:`simulate` writes a night of logs, :func:`iter_shoes` yields its shoes."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.books.house import House
from audit.errors import InputError, UsageError
from audit.findings import Code
from audit.profiles import Profile, ProfileRegistry, Rules, load_registry
from audit.sidebets.paytables import load_paytables
from audit.simulate.bias import NO_BIAS, Bias
from audit.simulate.books import BooksConfig, StreamRecord, TableBooks, period_of
from audit.simulate.books_inject import BOOKS_CODES, BooksInjected
from audit.simulate.inject import ALL_CLASSES, InjectedError
from audit.simulate.table import CasinoTable, HomeTable, ShoeOutput, TableSession
from audit.simulate.writer import FileSink

__all__ = [
    "DEFAULT_DATE",
    "DEFAULT_START",
    "MANIFEST_NAME",
    "RICH_SHARE",
    "SimulationSummary",
    "iter_shoes",
    "simulate",
]

OPENING = dt.time(20, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))
"""Tables open at 20:00 table-local time, +01:00."""

DEFAULT_DATE = dt.date(2026, 11, 28)
"""The first gaming day when none is given: the sample night's Saturday."""

DEFAULT_START = dt.datetime.combine(DEFAULT_DATE, OPENING)
"""Saturday evening, 20:00 table-local time, +01:00."""

MANIFEST_NAME = "injected.ndjson"
"""The answer key beside the day folders (cli.md v1.2). Not ``*.jsonl``: ``ingest``
reads only ``*.jsonl`` and ``*.jsonl.gz``, so ``nightly OUT`` audits the logs alone."""

PREFIX_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,15}")
"""A ``--prefix``: letters, digits, ``-`` and ``_``, at most 16, for ids that stay ids."""


def _check_prefix(prefix: str) -> None:
    if prefix and not PREFIX_PATTERN.fullmatch(prefix):
        raise UsageError(
            f"--prefix {prefix!r}: letters, digits, '-' and '_' only (at most 16, "
            "starting with a letter or digit)"
        )


def _casino_limits(rules: Rules) -> list[str]:
    """The v1 fields a casino table (a croupier, shoes to the cut card) cannot deal yet."""
    out = []
    if rules.shuffle_every_round:
        out.append("shuffle_every_round = true")
    if not rules.cut_card_used:
        out.append("cut_card_used = false")
    if rules.banker_max_rounds is not None:
        out.append(f"banker_max_rounds = {rules.banker_max_rounds}")
    if rules.blackjack_paid == "at_once":
        out.append('blackjack_paid = "at_once"')
    return out


def _check_dealable(profile: Profile) -> None:
    """Refuse a profile the simulator would deal wrong, rather than write a night whose
    clean rounds the audit flags: the casino table deals every other v1 field as the
    profile says; these combinations are the home game's (002) alone."""
    if profile.rules.dealer_plays_freely:
        return
    limits = _casino_limits(profile.rules)
    if limits:
        raise InputError(
            f"profile {profile.id!r}: the simulator cannot deal a casino table with "
            f"{', '.join(limits)} (only the home game, dealer_plays_freely = true, deals so)"
        )


def night_start(day: dt.date) -> dt.datetime:
    """The evening a gaming day's tables open: 20:00 table-local time, +01:00."""
    return dt.datetime.combine(day, OPENING)


RICH_SHARE = 0.25
"""The default share of rich tables (:mod:`audit.simulate.dress`): most tables
write the plainest TEL/1, some every optional field of it. Benchmarks pass 0,
so that their corpus stays the night it was before rich tables existed."""


@dataclass(frozen=True)
class SimulationSummary:
    """What :func:`simulate` wrote."""

    out_dir: Path
    files: tuple[Path, ...]
    manifest: Path | None
    tables: dict[str, str]
    """table id -> profile id"""
    shoes: int
    rounds: int
    events: int
    injected: tuple[InjectedError, ...]
    features: dict[str, Counter[str]] = field(default_factory=dict)
    """per profile: how often each feature happened (splits, doubles, insurance, ...)."""
    books_injected: tuple[BooksInjected, ...] = ()
    """``--books``: the accounting errors injected, each at its period."""
    stream_records: tuple[StreamRecord, ...] = ()
    """``--books``: the cage's, count room's and accounting's records, before their ``seq``."""

    def __str__(self) -> str:
        where = f"wrote {len(self.files)} file(s) to {self.out_dir}"
        what = f"{len(self.tables)} table(s), {self.shoes:,} shoes, {self.rounds:,} rounds"
        text = f"{where}: {what}, {self.events:,} events"
        if self.stream_records:
            text += (
                f"; books in streams {', '.join(sorted({r.stream for r in self.stream_records}))}"
            )
        if self.manifest is not None:
            n = len(self.injected) + len(self.books_injected)
            text += f"; {n} injected error(s) listed in {self.manifest}"
        return text


def _tables(
    *,
    tables: int,
    profiles: list[str],
    seed: int,
    error_rate: float,
    start: dt.datetime,
    registry: ProfileRegistry | None,
    error_codes: Collection[Code] | None,
    biases: Mapping[str, Bias] | None = None,
    rich_share: float = 0.0,
    prefix: str = "",
) -> list[TableSession]:
    _check_prefix(prefix)
    if tables < 1:
        raise InputError(f"--tables must be at least 1, got {tables}")
    if not profiles:
        raise InputError("at least one --profile is needed")
    if not 0 <= error_rate <= 1:
        raise InputError(f"--error-rate is a chance between 0 and 1, got {error_rate}")
    if not 0 <= rich_share <= 1:
        raise InputError(f"--rich-share is a share between 0 and 1, got {rich_share}")
    if start.tzinfo is None or start.utcoffset() is None:
        raise InputError(f"start must carry a UTC offset (table-local time), got {start}")
    reg = registry if registry is not None else load_registry()
    chosen = [reg.get(p) for p in profiles]
    for profile in chosen:
        _check_dealable(profile)
    enabled = frozenset(ALL_CLASSES if error_codes is None else error_codes)
    unknown = enabled - frozenset(ALL_CLASSES)
    if unknown:
        raise InputError(f"cannot inject {sorted(unknown)}: known classes are {list(ALL_CLASSES)}")
    names = [f"{prefix}T{i + 1:02d}" for i in range(tables)]
    unknown_tables = sorted(set(biases or {}) - set(names))
    if unknown_tables:
        raise InputError(f"--bias names tables {unknown_tables} beyond T01..{names[-1]}")
    out: list[TableSession] = []
    for i in range(tables):
        profile = chosen[i % len(chosen)]
        # The home game is the one whose banker plays freely (002); its table deals,
        # rotates the bank and reshuffles as the profile says.
        cls = HomeTable if profile.rules.dealer_plays_freely else CasinoTable
        extra: dict[str, Any] = {}
        if cls is CasinoTable and profile.rules.side_bets:
            extra["paytables"] = load_paytables(reg.folder)
        out.append(
            cls(
                **extra,
                table=names[i],
                index=i,
                profile=profile,
                seed=seed,
                error_rate=error_rate,
                enabled=enabled,
                start=start,
                bias=(biases or {}).get(names[i], NO_BIAS),
                rich_share=rich_share,
            )
        )
    return out


def iter_shoes(
    *,
    tables: int,
    shoes: int,
    rounds: int | None = None,
    profiles: list[str],
    seed: int,
    error_rate: float = 0.0,
    start: dt.datetime = DEFAULT_START,
    registry: ProfileRegistry | None = None,
    error_codes: Collection[Code] | None = None,
    biases: Mapping[str, Bias] | None = None,
    only_tables: Collection[int] | None = None,
    rich_share: float = RICH_SHARE,
    days: int = 1,
    prefix: str = "",
    books: BooksConfig | None = None,
) -> Iterator[ShoeOutput]:
    """Every shoe of the run, table after table, each with its events and injected errors.

    The same arguments give the same shoes, event for event (one
    ``random.Random`` per table and purpose, seeded from ``seed``), so a
    table's shoes do not depend on the others: ``only_tables`` (0-based table
    indices) deals just those tables, exactly as the whole run deals them.
    ``days`` deals that many gaming days from ``start``'s, each table its
    ``shoes`` (or ``rounds``) every evening, its ``seq`` running on; ``prefix``
    starts every table id (and so every shoe and event id). ``books`` writes
    each casino table's books into its stream (:mod:`audit.simulate.books`),
    its hands dealt exactly as without them; a table's last shoe carries its
    cage, count and accounting records.
    """
    if shoes < 1 and rounds is None:
        raise InputError(f"--shoes must be at least 1, got {shoes}")
    if rounds is not None and rounds < 1:
        raise InputError(f"--rounds must be at least 1, got {rounds}")
    if days < 1:
        raise InputError(f"--days must be at least 1, got {days}")
    for table in _tables(
        tables=tables,
        profiles=profiles,
        seed=seed,
        error_rate=error_rate,
        start=start,
        registry=registry,
        error_codes=error_codes,
        biases=biases,
        rich_share=rich_share,
        prefix=prefix,
    ):
        if only_tables is None or table.index in only_tables:
            if books is not None and isinstance(table, CasinoTable):
                # the tray collects and pays in the house's chips: no stakes with cents
                table.P_CENTS = 0.0
            dealt = _evenings(table, start, days, shoes, rounds)
            if books is not None and isinstance(table, CasinoTable):
                yield from TableBooks(table, seed, books).books(dealt)
            else:
                yield from dealt


def _evenings(
    table: TableSession, start: dt.datetime, days: int, shoes: int, rounds: int | None
) -> Iterator[ShoeOutput]:
    for day in range(days):
        if day:
            table.next_evening(start + dt.timedelta(days=day))
        yield from table.run(shoes, rounds)


def simulate(
    out_dir: str | Path,
    *,
    tables: int,
    shoes: int,
    rounds: int | None = None,
    profiles: list[str],
    seed: int,
    error_rate: float = 0.0,
    gzip: bool = False,
    start: dt.datetime = DEFAULT_START,
    registry: ProfileRegistry | None = None,
    error_codes: Collection[Code] | None = None,
    biases: Mapping[str, Bias] | None = None,
    workers: int = 1,
    rich_share: float = RICH_SHARE,
    days: int = 1,
    prefix: str = "",
    books: bool = False,
    books_error_rate: float = 0.0,
    books_errors: Collection[str] | None = None,
    tips: bool = False,
    house: House | None = None,
) -> SimulationSummary:
    """Write realistic TEL/1 logs of a gaming night, with injected dealer errors.

    Tables ``T01``.. take the ``profiles`` in turn. Each table deals ``shoes``
    shoes, each to its cut card (the home game: one round per shoe); with
    ``rounds``, each table deals exactly that many rounds instead (the last
    shoe closes with reason ``end_of_session``). ``error_rate`` is the chance
    that a round carries one injected error (of the classes ``error_codes``,
    default all, that apply to it); the errors are listed in
    ``OUT/injected.ndjson``, a name ``ingest`` does not read. ``biases`` deal some
    tables wrong on purpose
    (:mod:`audit.simulate.bias`, for testing the statistics). ``rich_share``
    is the chance that a table is *rich*: it writes every optional field of
    TEL/1 (``spots``, void rounds, ``10`` for ``T``, cards without ``pos``, ...:
    :mod:`audit.simulate.dress`); the other tables' logs do not depend on it,
    and 0 deals the night exactly as before rich tables existed. Logs go to
    ``OUT/<gaming day>/<table>.jsonl`` (``.jsonl.gz`` with ``gzip``). ``days``
    deals that many gaming days from ``start``'s, one folder each; ``prefix``
    starts every table, shoe and event id, so that two runs never share an
    id (``N2`` writes table ``N2T01``, shoe ``N2T01-20261128-01``). Same
    arguments, same bytes, whatever ``workers`` (processes that deal the
    tables in parallel: a table's logs are its own files).

    ``books`` also writes each casino table's books (accounting.md "The
    simulator", :mod:`audit.simulate.books`) by ``house``'s shifts and
    denominations (default: the packaged house file), over at least two
    gaming days; the cage's copies go to ``OUT/<day>/CAGE.jsonl``, the counts
    to ``COUNT.jsonl`` and adjustments to ``ACCOUNTING.jsonl`` (``prefix``
    starting each stream's name). ``books_error_rate`` is the chance that a
    period carries one accounting error, of ``books_errors`` (default all of
    :data:`~audit.simulate.books_inject.BOOKS_CODES`); ``tips`` counts a
    tip box with each drop.
    """
    if days < 1:  # refused before a folder is made
        raise UsageError(f"--days must be at least 1, got {days}")
    _check_prefix(prefix)
    books_config = _books_config(
        books=books,
        error_rate=books_error_rate,
        codes=books_errors,
        tips=tips,
        house=house,
        start=start,
        days=days,
        prefix=prefix,
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    args: dict[str, Any] = dict(
        tables=tables,
        shoes=shoes,
        rounds=rounds,
        profiles=profiles,
        seed=seed,
        error_rate=error_rate,
        start=start,
        registry=registry,
        error_codes=error_codes,
        biases=biases,
        rich_share=rich_share,
        days=days,
        prefix=prefix,
        books=books_config,
    )
    n = max(1, min(workers, tables))
    parts = [range(tables * i // n, tables * (i + 1) // n) for i in range(n)]
    if n == 1:
        summaries = [_deal_tables(out, gzip, args, None)]
    else:
        with ProcessPoolExecutor(n) as pool:
            summaries = list(pool.map(_deal_tables, [out] * n, [gzip] * n, [args] * n, parts))
    injected = [e for s in summaries for e in s.injected]
    books_injected = [e for s in summaries for e in s.books_injected]
    records = [r for s in summaries for r in s.stream_records]
    stream_files = _write_streams(out, gzip, records)
    manifest = None
    if error_rate > 0 or (books_config is not None and books_config.error_rate > 0):
        manifest = out / MANIFEST_NAME
        with manifest.open("w", encoding="utf-8", newline="\n") as fh:
            for err in injected:
                fh.write(err.to_json() + "\n")
            for books_err in books_injected:
                fh.write(books_err.to_json() + "\n")
    features: dict[str, Counter[str]] = {}
    for s in summaries:
        for profile, counts in s.features.items():
            features.setdefault(profile, Counter()).update(counts)
    return SimulationSummary(
        out_dir=out,
        files=tuple(p for s in summaries for p in s.files) + stream_files,
        manifest=manifest,
        tables={t: p for s in summaries for t, p in s.tables.items()},
        shoes=sum(s.shoes for s in summaries),
        rounds=sum(s.rounds for s in summaries),
        events=sum(s.events for s in summaries),
        injected=tuple(injected),
        features=features,
        books_injected=tuple(books_injected),
        stream_records=tuple(records),
    )


def _books_config(
    *,
    books: bool,
    error_rate: float,
    codes: Collection[str] | None,
    tips: bool,
    house: House | None,
    start: dt.datetime,
    days: int,
    prefix: str,
) -> BooksConfig | None:
    """The ``--books`` settings, checked: the options that need ``--books``, the codes,
    and at least two gaming days (a slip or a count is judged once a later day's
    records exist)."""
    if not books:
        given = [
            name
            for name, on in (
                ("--books-error-rate", error_rate > 0),
                ("--books-error", bool(codes)),
                ("--tips", tips),
                ("--house", house is not None),
            )
            if on
        ]
        if given:
            raise UsageError(f"{', '.join(given)} only with --books")
        return None
    if days < 2:
        raise UsageError(
            f"--books needs --days 2 or more, got {days}: slips and counts are judged "
            "only once a later gaming day's records exist"
        )
    if not 0 <= error_rate <= 1:
        raise UsageError(f"--books-error-rate is a chance between 0 and 1, got {error_rate}")
    unknown = sorted(set(codes or ()) - set(BOOKS_CODES))
    if unknown:
        raise UsageError(
            f"--books-error {', '.join(unknown)}: the accounting errors are "
            f"{', '.join(BOOKS_CODES)}"
        )
    if house is None:
        from audit.books.house import load_house

        house = load_house()
    first = period_of(start, house)[0]
    return BooksConfig(
        house=house,
        last_day=first + dt.timedelta(days=days - 1),
        error_rate=error_rate,
        codes=frozenset(codes if codes else BOOKS_CODES),
        tips=tips,
        prefix=prefix,
    )


def _write_streams(out: Path, compress: bool, records: list[StreamRecord]) -> tuple[Path, ...]:
    """The cage's, count room's and accounting's streams: ``seq`` from 1 in time order
    (ties by table), one file per stream and gaming day (the records' periods'). A
    ``reverses`` holding the event it cancels becomes that event's ``id``."""
    if not records:
        return ()
    by_stream: dict[str, list[StreamRecord]] = {}
    for r in sorted(records, key=lambda r: (r.ts, r.table_index, r.order)):
        by_stream.setdefault(r.stream, []).append(r)
    sink = FileSink(out, compress=compress)
    try:
        for stream in sorted(by_stream):
            for seq, r in enumerate(by_stream[stream], start=1):
                r.event["id"] = f"{stream}-{seq}"
                r.event["seq"] = seq
            for r in by_stream[stream]:
                # a reversal names the adjustment it cancels, numbered just above
                if isinstance(r.event.get("reverses"), dict):
                    r.event["reverses"] = r.event["reverses"]["id"]
            for r in sorted(by_stream[stream], key=lambda r: (r.day, r.event["seq"])):
                sink.write(r.day, stream, r.event)
    finally:
        sink.close()
    return tuple(sink.paths)


def _deal_tables(
    out: Path, gzip: bool, args: dict[str, Any], only: range | None
) -> SimulationSummary:
    """Write the logs of the tables ``only`` (all when None); the manifest is the caller's."""
    sink = FileSink(out, compress=gzip)
    injected: list[InjectedError] = []
    books_injected: list[BooksInjected] = []
    records: list[StreamRecord] = []
    table_profiles: dict[str, str] = {}
    features: dict[str, Counter[str]] = {}
    n_shoes = n_rounds = n_events = 0
    try:
        for shoe in iter_shoes(**args, only_tables=only):
            for event in shoe.events:
                sink.write(shoe.day, shoe.table, event)
            table_profiles[shoe.table] = shoe.profile
            features.setdefault(shoe.profile, Counter()).update(shoe.features)
            injected.extend(shoe.injected)
            books_injected.extend(shoe.books_injected)
            records.extend(shoe.side)
            n_shoes += 1
            n_rounds += shoe.features["rounds"]
            n_events += len(shoe.events)
    finally:
        sink.close()
    return SimulationSummary(
        out_dir=out,
        files=tuple(sink.paths),
        manifest=None,
        tables=table_profiles,
        shoes=n_shoes,
        rounds=n_rounds,
        events=n_events,
        injected=tuple(injected),
        features=features,
        books_injected=tuple(books_injected),
        stream_records=tuple(records),
    )
