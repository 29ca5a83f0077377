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

from audit.errors import InputError, UsageError
from audit.findings import Code
from audit.profiles import Profile, ProfileRegistry, Rules, load_registry
from audit.simulate.bias import NO_BIAS, Bias
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

    def __str__(self) -> str:
        where = f"wrote {len(self.files)} file(s) to {self.out_dir}"
        what = f"{len(self.tables)} table(s), {self.shoes:,} shoes, {self.rounds:,} rounds"
        text = f"{where}: {what}, {self.events:,} events"
        if self.manifest is not None:
            text += f"; {len(self.injected)} injected error(s) listed in {self.manifest}"
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
        out.append(
            cls(
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
) -> Iterator[ShoeOutput]:
    """Every shoe of the run, table after table, each with its events and injected errors.

    The same arguments give the same shoes, event for event (one
    ``random.Random`` per table and purpose, seeded from ``seed``), so a
    table's shoes do not depend on the others: ``only_tables`` (0-based table
    indices) deals just those tables, exactly as the whole run deals them.
    ``days`` deals that many gaming days from ``start``'s, each table its
    ``shoes`` (or ``rounds``) every evening, its ``seq`` running on; ``prefix``
    starts every table id (and so every shoe and event id).
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
    """
    if days < 1:  # refused before a folder is made
        raise UsageError(f"--days must be at least 1, got {days}")
    _check_prefix(prefix)
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
    )
    n = max(1, min(workers, tables))
    parts = [range(tables * i // n, tables * (i + 1) // n) for i in range(n)]
    if n == 1:
        summaries = [_deal_tables(out, gzip, args, None)]
    else:
        with ProcessPoolExecutor(n) as pool:
            summaries = list(pool.map(_deal_tables, [out] * n, [gzip] * n, [args] * n, parts))
    injected = [e for s in summaries for e in s.injected]
    manifest = None
    if error_rate > 0:
        manifest = out / MANIFEST_NAME
        with manifest.open("w", encoding="utf-8", newline="\n") as fh:
            for err in injected:
                fh.write(err.to_json() + "\n")
    features: dict[str, Counter[str]] = {}
    for s in summaries:
        for profile, counts in s.features.items():
            features.setdefault(profile, Counter()).update(counts)
    return SimulationSummary(
        out_dir=out,
        files=tuple(p for s in summaries for p in s.files),
        manifest=manifest,
        tables={t: p for s in summaries for t, p in s.tables.items()},
        shoes=sum(s.shoes for s in summaries),
        rounds=sum(s.rounds for s in summaries),
        events=sum(s.events for s in summaries),
        injected=tuple(injected),
        features=features,
    )


def _deal_tables(
    out: Path, gzip: bool, args: dict[str, Any], only: range | None
) -> SimulationSummary:
    """Write the logs of the tables ``only`` (all when None); the manifest is the caller's."""
    sink = FileSink(out, compress=gzip)
    injected: list[InjectedError] = []
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
    )
