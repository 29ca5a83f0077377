"""Commands that read or write the audit database, and the rule-profile listing."""

from __future__ import annotations

import datetime as dt
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from audit.cli.app import app
from audit.cli.common import (
    DEFAULT_DB_PATH,
    NOTE_PREFIX,
    DateOption,
    DayStartOption,
    DbOption,
    FromOption,
    HouseOption,
    JsonOption,
    ProfilesOption,
    RowsFormat,
    ToOption,
    boundary,
    fail,
    gaming_day_option,
    house_and_day_start,
    is_terminal,
    no_new_files_on_failure,
    open_db,
)
from audit.cli.output import note, print_json, say, warn
from audit.cli.rounds import AtOption
from audit.cli.scale import ClusterOption, SourceOption, executor_for
from audit.errors import AuditError, InputError, UsageError
from audit.findings import Code, Severity
from audit.wording import counted

if TYPE_CHECKING:
    from audit.batch import RunSummary
    from audit.batch.nightly import FindingTally
    from audit.batch.reconcile_books import BooksSummary
    from audit.findings import Finding
    from audit.ingest import IngestSummary
    from audit.ingest.reader import Batch
    from audit.ingest.summary import ValidationReport
    from audit.integrity.trail import TrailCheck
    from audit.review import Review
    from audit.store import ShoeKey

PathsArg = Annotated[
    list[Path],
    typer.Argument(
        metavar="PATH...",
        help="TEL/1 files (*.jsonl, *.jsonl.gz) or folders (searched recursively).",
    ),
]


# The names the first commands used, kept for modules written against them.
_open = open_db


def _date(value: str | None, option: str) -> dt.date | None:
    """A gaming day given as text (prefer ``gaming_day_option``, which Typer parses)."""
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} takes a gaming day as YYYY-MM-DD, got {value!r}") from None


FindingsFormat = RowsFormat


class HandFormat(StrEnum):
    text = "text"
    html = "html"
    json = "json"


class ReportFormat(StrEnum):
    html = "html"
    md = "md"


class FailOn(StrEnum):
    critical = "critical"
    major = "major"


# --------------------------------------------------------------------------- profiles


@app.command("profiles")
@boundary
def profiles_cmd(
    profile_id: Annotated[
        str | None, typer.Argument(metavar="ID", help="Show this profile's rules and sources.")
    ] = None,
    profiles: ProfilesOption = None,
) -> None:
    """List the rule profiles, or show one.

    With an ID: every rule of that profile with its value and the seed text it
    comes from. Exit 1 for an unknown profile id.

    \b
    Examples:
      shoe-audit profiles
      shoe-audit profiles it-casino-5d
      shoe-audit profiles --profiles casino-profiles/ my-house-6d
    """
    from audit.profiles import load_registry
    from audit.profiles.model import describe_rules

    registry = load_registry(profiles)
    for problem in registry.problems:
        warn(problem)
    if profile_id is None:
        for p in registry.all():
            say(f"{p.id:<26} seed {p.seed}  {p.title}")
        if registry.problems:
            raise typer.Exit(1)
        return
    p = registry.get(profile_id)
    say(f"{p.id}: {p.title}")
    say(f"seed {p.seed}; digest {p.digest}")
    say("")
    width = max(len(name) for name, *_ in describe_rules(p))
    for name, value, house, source in describe_rules(p):
        mark = " [house default]" if house else ""
        say(f"{name:<{width}}  {value}{mark}")
        say(f"{'':<{width}}    {source}")


# --------------------------------------------------------------------------- validate / ingest


def _validation_json(report: ValidationReport) -> dict[str, object]:
    return {
        "ok": report.ok,
        "files": len(report.files),
        "lines": report.lines,
        "events": report.events,
        "invalid": report.invalid,
        "warnings": report.warnings,
        "errors": report.errors,
    }


@app.command("validate")
@boundary
def validate_cmd(paths: PathsArg, json: JsonOption = False) -> None:
    """Check files against TEL/1 without storing anything.

    Prints each invalid line as file:line: why; unknown event types are
    warnings. Exit 0 when every line is valid, 1 otherwise.

    \b
    Examples:
      shoe-audit validate sample_logs/2026-11-28/
      shoe-audit validate T01.jsonl.gz T02.jsonl.gz
      shoe-audit validate --json sample_logs/2026-11-28/ | jq .invalid
    """
    from audit.ingest import validate_paths

    report = validate_paths(paths)
    if json:
        print_json(_validation_json(report))
    else:
        for line in [*report.invalid, *report.errors]:
            say(line)
        for line in report.warnings:
            note(f"warning: {line}")
        verdict = "ok" if report.ok else "INVALID"
        # The verdict is the command's answer: stdout, like verify's (warnings on stderr).
        say(
            f"{verdict}: {counted(len(report.files), 'file')}, {counted(report.lines, 'line')}, "
            f"{counted(report.events, 'valid event')}, "
            f"{counted(len(report.invalid), 'invalid line')}, "
            f"{counted(len(report.warnings), 'warning')}"
        )
    if not report.ok:
        raise typer.Exit(1)


def _ingest_json(summary: IngestSummary) -> dict[str, object]:
    return {
        "files": len(summary.files),
        "events": summary.events,
        "new": summary.new,
        "duplicates": summary.duplicates,
        "rejected": summary.rejected,
        "gaming_days": [d.isoformat() for d in summary.gaming_days],
        "errors": summary.errors,
        "per_file": [
            {
                "path": f.path,
                "lines": f.lines,
                "events": f.events,
                "new": f.new,
                "duplicates": f.duplicates,
                "rejected": f.rejected,
                "unknown_types": f.unknown_types,
                "error": f.error,
            }
            for f in summary.files
        ],
    }


def _print_ingest(summary: IngestSummary) -> None:
    for f in summary.files:
        line = (
            f"{f.path}: {f.lines:,} lines, {f.new:,} new, {f.duplicates:,} duplicates, "
            f"{f.rejected:,} rejected"
        )
        if f.error:
            warn(f"{line}  ERROR: {f.error}")
        else:
            note(line)
    say(
        f"files {len(summary.files):,}  events {summary.events:,}  new {summary.new:,}  "
        f"duplicates {summary.duplicates:,}  rejected {summary.rejected:,}"
    )
    if summary.rejected:
        note(
            "rejected lines are quarantined: see `shoe-audit findings --code LOG_MALFORMED "
            "--code LOG_ID_CONFLICT`"
        )


class _ByteProgress:
    """Ingest progress in bytes of the input files (of the gzip, for a gzip).

    The total is known before the first byte is read, so a bar never pulses.
    """

    def __init__(self, paths: list[Path]) -> None:
        from audit.ingest.reader import find_logs

        sizes = {}
        for path in find_logs(paths).files:
            try:
                sizes[path] = path.stat().st_size
            except OSError:
                sizes[path] = 0
        self.total = sum(sizes.values())
        self._read: dict[Path, int] = {}
        self.tick: Callable[[int, int], None] | None = None

    @property
    def done(self) -> int:
        return sum(self._read.values())

    def __call__(self, path: Path, batch: Batch) -> None:
        self._read[path] = batch.read_bytes
        if self.tick is not None:
            self.tick(self.done, self.total)


def _ingest(
    db: Path, paths: list[Path], house: tuple[Any, str], *, quiet: bool = False
) -> IngestSummary:
    """Ingest with ``house``, the house file and the day start (:func:`house_and_day_start`):
    the day start cuts the gaming days, the file's ``complete_streams`` are judged for
    sequence gaps."""
    from audit.cli.output import progress_bar
    from audit.ingest import ingest_paths

    progress = _ByteProgress(paths)  # checks the paths before a database is made
    with (
        no_new_files_on_failure(db),
        open_db(db, create=True) as store,
        progress_bar("reading logs", total=progress.total, unit="bytes") as tick,
    ):
        progress.tick = tick
        summary = ingest_paths(store, paths, day_start=house[1], on_batch=progress, house=house[0])
    if not quiet:
        _print_ingest(summary)
    if summary.files and all(f.error and not f.lines for f in summary.files):
        raise InputError("nothing readable: " + "; ".join(summary.errors))
    for line in summary.errors:
        fail(f"could not read {line}")
    return summary


EXIT_UNREAD = 5
"""cli.md: ingested, but some input files could not be read (named on stderr)."""


@app.command("ingest")
@boundary
def ingest_cmd(
    paths: PathsArg,
    db: DbOption = DEFAULT_DB_PATH,
    day_start: DayStartOption = None,
    house: HouseOption = None,
    json: JsonOption = False,
) -> None:
    """Read TEL/1 files or folders into the database.

    The database is created if needed. Idempotent: the same file twice adds
    nothing. Invalid lines are quarantined with file and line (LOG_MALFORMED);
    the good lines of the file still go in. Exit 0 when ingested (even with
    rejected lines), 1 when nothing was readable, 5 when some input files could
    not be read.

    Exit 5 when some input files could not be read (each named on stderr): a file
    that is not a regular file (a FIFO, a device), unreadable, or damaged part-way.

    \b
    Examples:
      shoe-audit ingest sample_logs/2026-11-28/
      shoe-audit ingest --db audit-nightly.duckdb sample_logs/2026-11-28/
      shoe-audit ingest --json --quiet /var/log/tables/2026-11-28/
      shoe-audit ingest --house /etc/casino/house.toml /var/log/tables/2026-11-28/
    """
    settings = house_and_day_start(house, None, day_start)
    summary = _ingest(db, paths, settings, quiet=json)
    if json:
        print_json(_ingest_json(summary))
    if summary.errors:
        raise typer.Exit(EXIT_UNREAD)


# --------------------------------------------------------------------------- run


EXIT_NOT_REPLAYED = 6
"""cli.md ``run``/``nightly``: some shoes could not be replayed (each named on stderr)."""


def _run_json(summary: RunSummary) -> dict[str, object]:
    return {
        "shoes": summary.shoes,
        "rounds": summary.rounds,
        "findings": summary.findings,
        "by_code": summary.by_code,
        "seconds": round(summary.seconds, 3),
        "failed": [
            {"table": f.key.table, "shoe": f.key.shoe, "error": f.error} for f in summary.failed
        ],
        **_books_json(summary.books),
    }


def _books_json(books: BooksSummary | None) -> dict[str, object]:
    """The books' reconciliation in ``run --json`` (v1.2 keys, added beside cli.md's):
    its periods by status, ``ACCT_`` findings by code, seconds and their split."""
    if books is None:  # a run that never reached the books
        return {}
    return {
        "books_periods": books.periods,
        "books_findings": books.findings,
        "books_seconds": round(books.seconds, 3),
        "books_split": {part: round(secs, 3) for part, secs in books.split.items()},
    }


def _name_failed(summary: RunSummary) -> None:
    """Each shoe whose replay failed, on stderr, with its error (printed even with --quiet)."""
    for f in summary.failed:
        fail(f"shoe {f.key.table}/{f.key.shoe} could not be audited: {f.error}")
    if summary.failed:
        fail(
            f"{len(summary.failed):,} shoe(s) could not be audited: each keeps its earlier "
            "audit's results, if it had one, and the next `run` tries it again"
        )


@contextmanager
def _noted(notes: list[str]) -> Iterator[None]:
    """An exception leaving the block carries ``notes``, which the error's one line ends with
    (:func:`audit.cli.common.explain`)."""
    try:
        yield
    except BaseException as exc:
        for text in notes:
            exc.add_note(NOTE_PREFIX + text)
        raise


def not_done_text(not_done: Sequence[ShoeKey], selected: int) -> str:
    """A run stopped part-way: which shoes it did not re-audit (they are as they were)."""
    shown = ", ".join(f"{k.table}/{k.shoe}" for k in not_done[:5])
    more = f" and {len(not_done) - 5:,} more" if len(not_done) > 5 else ""
    return (
        f"{len(not_done):,} of {counted(selected, 'shoe')} "
        f"{'was' if len(not_done) == 1 else 'were'} not re-audited and keep their earlier "
        f"results, if any ({shown}{more}): run again to finish"
    )


def _run(
    db: Path,
    profiles: Path | None,
    *,
    all_shoes: bool = False,
    table: str | None = None,
    gaming_day: dt.date | None = None,
    workers: int | None = None,
    quiet: bool = False,
    cluster: str | None = None,
    source: Path | None = None,
    house: Path | None = None,
) -> RunSummary:
    from audit.batch import run_audit
    from audit.batch.reconcile_books import reconcile_books, trail_adjustments_of
    from audit.books.house import load_house
    from audit.cli.output import progress_bar
    from audit.profiles import load_registry

    registry = load_registry(profiles)
    the_house = load_house(house, profiles)
    stopped: list[str] = []  # which shoes a run stopped part-way did not re-audit
    with (
        open_db(db) as store,
        executor_for(cluster) as executor,
        progress_bar("auditing shoes", unit="shoes") as tick,
        _noted(stopped),
    ):
        summary = run_audit(
            store,
            registry,
            all_shoes=all_shoes,
            table=table,
            gaming_day=gaming_day,
            workers=workers,
            progress=tick,
            executor=executor,
            source=None if source is None else str(source),
            on_stop=lambda keys, n: stopped.append(not_done_text(keys, n)) if keys else None,
        )
        # accounting.md: run reconciles the books with the hands it has just stored
        books = reconcile_books(store, the_house, trail_adjustments_of(db))
        summary.books = books
        for code, n in books.findings.items():
            summary.by_code[code] = summary.by_code.get(code, 0) + n
    _name_failed(summary)
    for problem in registry.problems:
        warn(problem)
    unknown = summary.by_code.get(str(Code.LOG_UNKNOWN_PROFILE), 0)
    if unknown:
        searched = (
            f"the packaged profiles and --profiles {str(registry.folder)!r}"
            if registry.folder is not None
            else "the packaged profiles only (no --profiles folder given)"
        )
        warn(f"{unknown:,} shoe(s) name a profile not found in {searched}; not replayed")
    if not quiet:
        rate = summary.rounds / summary.seconds if summary.seconds else 0.0
        say(
            f"audited {counted(summary.shoes, 'shoe')}, {counted(summary.rounds, 'round')} in "
            f"{summary.seconds:.1f} s ({rate:,.0f} rounds/s): "
            f"{counted(summary.findings, 'finding')}"
        )
        for code, n in summary.by_code.items():
            say(f"  {code:<32} {n:>7,}")
        if books.periods:
            states = ", ".join(f"{n:,} {status}" for status, n in sorted(books.periods.items()))
            say(f"books: {counted(sum(books.periods.values()), 'period')} ({states})")
    return summary


@app.command("run")
@boundary
def run_cmd(
    db: DbOption = DEFAULT_DB_PATH,
    all_shoes: Annotated[
        bool, typer.Option("--all", help="Re-audit every shoe, current or not.")
    ] = False,
    table: Annotated[
        str | None, typer.Option("--table", metavar="TABLE", help="Only this table, e.g. T01.")
    ] = None,
    date: DateOption = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", metavar="N", min=1, help="Processes to replay on (default: one per core)."
        ),
    ] = None,
    profiles: ProfilesOption = None,
    house: HouseOption = None,
    json: JsonOption = False,
    cluster: ClusterOption = None,
    source: SourceOption = None,
) -> None:
    """Audit the shoes not yet audited (or changed since).

    Replays every shoe not yet audited, whose events changed since its audit,
    or that was audited with another engine or profile version; --all
    re-audits everything. Shows progress on a terminal. A shoe whose replay
    fails costs only itself: it is named on stderr, keeps its earlier results
    and is tried again by the next run (exit 6). Exit 1 when there is no
    database. --cluster replays on a Dask cluster with the same results, and
    --source has its workers read the shoes from an `export --parquet`.

    \b
    Examples:
      shoe-audit run
      shoe-audit run --db audit-nightly.duckdb --date 2026-11-28
      shoe-audit run --all --table T01 --workers 1
      shoe-audit run --cluster tcp://scheduler:8786 --source /nfs/audit-export
    """
    if source is not None and cluster is None:
        raise UsageError("--source needs --cluster (the workers of a Dask cluster read it)")
    # The house file the books are reconciled under (accounting.md): read first, so a
    # bad one is one line naming file, line and key (exit 1) before anything is done.
    house_and_day_start(house, profiles)
    summary = _run(
        db,
        profiles,
        all_shoes=all_shoes,
        table=table,
        gaming_day=date,
        workers=workers,
        quiet=json,
        cluster=cluster,
        source=source,
        house=house,
    )
    if json:
        print_json(_run_json(summary))
    if summary.failed:
        raise typer.Exit(EXIT_NOT_REPLAYED)


# --------------------------------------------------------------------------- findings

_CODES = ", ".join(c.value for c in Code)


def _check_codes(codes: list[str]) -> None:
    import difflib

    for c in codes:
        if c not in Code.__members__:
            near = difflib.get_close_matches(c, list(Code.__members__), n=3)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise UsageError(f"unknown finding code {c!r}{hint} (see `shoe-audit findings --help`)")


class ReviewFilter(StrEnum):
    """``findings --review``: where a finding's review stands."""

    open = "open"
    confirmed = "confirmed"
    dismissed = "dismissed"
    dismissal_pending = "dismissal-pending"
    needs_video = "needs-video"


@app.command("findings")
@boundary
def findings_cmd(
    db: DbOption = DEFAULT_DB_PATH,
    fmt: Annotated[
        FindingsFormat | None,
        typer.Option(
            "--format", help="table (default on a terminal), jsonl (default when piped) or csv."
        ),
    ] = None,
    code: Annotated[
        list[str] | None,
        typer.Option("--code", metavar="CODE", help=f"Only this finding code: {_CODES}."),
    ] = None,
    severity: Annotated[
        list[Severity] | None, typer.Option("--severity", help="Only this severity.")
    ] = None,
    min_severity: Annotated[
        Severity | None, typer.Option("--min-severity", help="This severity or worse.")
    ] = None,
    table: Annotated[
        str | None,
        typer.Option("--table", metavar="TABLE", help="Only this table, e.g. T01 (or t01)."),
    ] = None,
    shoe: Annotated[
        str | None,
        typer.Option("--shoe", metavar="SHOE", help="Only this shoe, e.g. T01-20261128-01."),
    ] = None,
    date: DateOption = None,
    from_: FromOption = None,
    to: ToOption = None,
    dealer: Annotated[
        str | None,
        typer.Option("--dealer", metavar="DEALER", help="Only the rounds this dealer dealt."),
    ] = None,
    player: Annotated[
        str | None,
        typer.Option(
            "--player", metavar="PLAYER", help="Only the boxes this player bet on (full id)."
        ),
    ] = None,
    review: Annotated[
        list[ReviewFilter] | None,
        typer.Option("--review", help="Only findings whose review stands so (open: none)."),
    ] = None,
    show_players: Annotated[
        bool, typer.Option("--show-players", help="Show player ids (masked by default).")
    ] = False,
    raw: Annotated[
        bool,
        typer.Option(
            "--raw",
            help="csv: keep cells as they are (no leading ' against spreadsheet formulas).",
        ),
    ] = False,
) -> None:
    """Write the findings to stdout.

    The findings of ingest (LOG_*) and of the replay, in one list. In csv, a
    cell that is not a plain number and starts with =, +, -, @, a tab or a
    carriage return gets a leading ' so that no spreadsheet runs it (--raw
    keeps cells unchanged, for pipelines). A player's id (a home-game banker's
    too, in the dealer column) is masked unless --show-players; --player takes
    the full id. The table shows the first 8 characters of each id, which
    `shoe-audit review` accepts.

    \b
    Examples:
      shoe-audit findings --min-severity major
      shoe-audit findings --date 2026-11-28 --format csv > findings.csv
      shoe-audit findings --code PAY_WRONG_AMOUNT --table T01 --format jsonl
      shoe-audit findings --from 2026-11-01 --to 2026-11-30 --dealer D180 --review open
    """
    from audit.batch.nightly import day_range
    from audit.cli.output import ListedFinding, write_findings
    from audit.integrity.trail import store_trail_check, trail_findings
    from audit.reports.masking import hide_ids
    from audit.store.lookup import players_among, players_of_rounds, resolve_table

    _check_codes(code or [])
    days = day_range(date, from_, to)
    with open_db(db, read_only=True) as store:
        if table is not None:
            table = resolve_table(store, table)
        found = store.findings_with_facts(
            codes=code or None,
            severities=severity or None,
            min_severity=min_severity,
            table=table,
            shoe=shoe,
            gaming_days=(days[0], days[-1]) if days else None,
            dealer=dealer,
            player=player,
        )
        trail = store_trail_check(store)  # issue 29: the trail, live (not stored)
        hidden: set[str] = set()
        if not show_players:
            hidden = players_among(store.con, (x.dealer for _, x in found))
            hidden |= players_of_rounds(store.con, ((f.table, f.shoe, f.round) for f, _ in found))
    listed = [ListedFinding(f, x.gaming_day, x.dealer, x.opened) for f, x in found]
    listed = hide_ids(listed, hidden)
    narrowed = (table, shoe, days, dealer, player) != (None, None, None, None, None)
    if not narrowed:  # ledger-wide, as the stored ones
        listed = [
            *(
                ListedFinding(f, None, None, None)
                for f in trail_findings(
                    trail,
                    codes=code or None,
                    severities=[str(s) for s in severity] if severity else None,
                    min_rank=min_severity.rank if min_severity else 0,
                )
            ),
            *listed,
        ]
    reviews = _reviews(db, [li.finding for li in listed], trail)
    if review:
        wanted = {r.value for r in review}
        listed = [li for li in listed if _review_filter(reviews.get(li.finding.id or "")) in wanted]
    chosen = fmt or (FindingsFormat.table if is_terminal() else FindingsFormat.jsonl)
    write_findings(listed, chosen.value, sys.stdout, reviews, raw=raw)


def _review_filter(review: Review | None) -> str:
    """The ``--review`` value a finding's standing review answers to."""
    return "open" if review is None else review.state.value.replace("_", "-")


def _reviews(db: Path, found: list[Finding], trail: TrailCheck | None = None) -> dict[str, Review]:
    """The review status of each listed finding (issue 12: the ``review`` key); a
    dismissal of a trail that fails its check counts for nothing (issue 29)."""
    from audit.integrity.trail import trusted_reviews
    from audit.review import ReviewTrail
    from audit.review.service import reviews_for, standing_reviews

    reviews = standing_reviews(ReviewTrail.beside(db))
    if trail is not None:
        reviews = trusted_reviews(reviews, trail)
    return reviews_for(found, reviews)


# --------------------------------------------------------------------------- hand


def write_atomically(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all: a failed write leaves no half file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


TemplatesOption = Annotated[
    Path | None,
    typer.Option(
        "--templates", metavar="DIR", help="A folder of templates replacing the built-in ones."
    ),
]


@app.command("hand")
@boundary
def hand_cmd(
    table: Annotated[str, typer.Argument(metavar="TABLE", help="Table id, e.g. T01.")],
    shoe: Annotated[
        str | None, typer.Argument(metavar="SHOE", help="Shoe id, e.g. T01-20261128-01.")
    ] = None,
    round_no: Annotated[
        int | None, typer.Argument(metavar="ROUND", help="Round number in the shoe, e.g. 14.")
    ] = None,
    at: AtOption = None,
    date: DateOption = None,
    db: DbOption = DEFAULT_DB_PATH,
    fmt: Annotated[HandFormat, typer.Option("--format", help="How to write it.")] = HandFormat.text,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="FILE", help="Write to this file instead of stdout."),
    ] = None,
    templates: TemplatesOption = None,
    profiles: ProfilesOption = None,
    show_players: Annotated[
        bool, typer.Option("--show-players", help="Show player ids (masked by default).")
    ] = False,
) -> None:
    """Replay one round step by step, for a dispute. Exit 1 when there is no such round.

    The round is TABLE SHOE ROUND, or TABLE --at TIME: the round in play at that
    table-local time, as `shoe-audit rounds --at` finds it (exit 1 naming the
    rounds just before and after when none was in play).

    Player ids are masked unless --show-players (a home-game banker's where he
    deals too): the packet is often sent on.

    \b
    Examples:
      shoe-audit hand T01 T01-20261128-01 1
      shoe-audit hand T03 --at 2026-11-28T21:40
      shoe-audit hand T01 T01-20261128-01 1 --format html --out round-1.html
      shoe-audit hand T01 T01-20261128-01 1 --format json | jq .findings
    """
    from audit.batch.dispute import hand_packet
    from audit.cli.rounds import round_at
    from audit.reports.templating import can_encode
    from audit.targets import check_target

    if at is None and (shoe is None or round_no is None):
        raise UsageError("hand takes TABLE SHOE ROUND, or TABLE --at TIME")
    if at is not None and shoe is not None:
        raise UsageError("hand takes TABLE SHOE ROUND or TABLE --at TIME, not both")
    if out is not None:
        check_target(out, "--out", "file")
    with open_db(db, read_only=True) as store:
        if at is not None:
            table, shoe, round_no = round_at(store, table, at, date)
        assert shoe is not None and round_no is not None
        text = hand_packet(
            store,
            table,
            shoe,
            round_no,
            fmt.value,
            color=out is None and is_terminal(),
            templates=templates,
            profiles=profiles,
            ascii_only=out is None and not can_encode(sys.stdout.encoding),
            show_players=show_players,
        )
    if out is None:
        sys.stdout.write(text)
    else:
        write_atomically(out, text)
        say(f"wrote {out}")


# --------------------------------------------------------------------------- report / nightly


def _report(
    db: Path,
    days: list[dt.date] | None,
    out: Path,
    fmt: ReportFormat,
    templates: Path | None,
    profiles: Path | None = None,
    show_players: bool = False,
    house: Path | None = None,
) -> Path:
    from audit.batch.nightly import write_report
    from audit.books.house import load_house
    from audit.profiles import load_registry

    the_house = load_house(house, profiles)

    with open_db(db, read_only=True) as store:
        try:
            return write_report(
                store,
                days,
                out,
                fmt.value,
                templates,
                load_registry(profiles),
                show_players=show_players,
                house=the_house,
            )
        except OSError as exc:  # name the --out asked for, not the folder being swapped in
            if isinstance(exc, (FileExistsError, NotADirectoryError)) and out.is_file():
                raise AuditError(
                    f"--out {str(out)!r} is a file, where a folder is needed"
                ) from None
            raise AuditError(f"cannot write the report into {str(out)!r}: {exc.strerror}") from None


OutOption = Annotated[
    Path,
    typer.Option(
        "--out", metavar="DIR", help="Folder for the report and its hand pages.", show_default=True
    ),
]
ShowPlayersOption = Annotated[
    bool,
    typer.Option(
        "--show-players",
        help="Show player ids in the report's pages (masked by default: reports travel by e-mail).",
    ),
]
ReportFormatOption = Annotated[
    ReportFormat, typer.Option("--format", help="HTML pages or one Markdown file.")
]


@app.command("report")
@boundary
def report_cmd(
    db: DbOption = DEFAULT_DB_PATH,
    date: DateOption = None,
    from_: FromOption = None,
    to: ToOption = None,
    fmt: ReportFormatOption = ReportFormat.html,
    out: OutOption = Path("audit-reports"),
    templates: TemplatesOption = None,
    profiles: ProfilesOption = None,
    house: HouseOption = None,
    show_players: ShowPlayersOption = False,
) -> None:
    """Render the compliance report.

    For --date, or --from/--to (default: the latest gaming day in the
    database), into --out DIR: DIR/index.html (or DIR/report.md) with one page
    per flagged round beside it. Exit 1 when no round of the selected gaming
    days was audited.

    \b
    Examples:
      shoe-audit report
      shoe-audit report --date 2026-11-28 --out audit-reports/
      shoe-audit report --from 2026-11-01 --to 2026-11-30 --format md --out november/
    """
    from audit.batch.nightly import day_range

    house_and_day_start(house, profiles)  # a bad house file: one line, exit 1, nothing written
    path = _report(
        db, day_range(date, from_, to), out, fmt, templates, profiles, show_players, house
    )
    say(f"report: {path}")


def _nightly_days(db: Path, summary: IngestSummary) -> list[dt.date]:
    # Every gaming day the given files hold, their events new or stored before: a
    # re-run after a crash reports (and fails on) the same days as the first run.
    # The files' book records count too (cli.md, v1.2): a count's or an adjustment's
    # gaming day, another record's period's; a file of the count room alone names its day.
    from audit.store.periods import book_days_of_files
    from audit.store.store import DEFAULT_DAY_START, day_start_minutes

    ids = [f.file_id for f in summary.files if f.file_id is not None]
    with open_db(db, read_only=True) as store:
        start = day_start_minutes(store.meta("day_start") or DEFAULT_DAY_START)
        days = sorted(set(summary.file_days) | set(book_days_of_files(store.con, ids, start)))
        if days:
            return days
        from audit.batch.nightly import latest_gaming_day  # no dated line: the latest day

        return [latest_gaming_day(store)]


@app.command("nightly")
@boundary
def nightly_cmd(
    paths: PathsArg,
    db: DbOption = DEFAULT_DB_PATH,
    out: OutOption = Path("audit-reports"),
    templates: TemplatesOption = None,
    fmt: ReportFormatOption = ReportFormat.html,
    fail_on: Annotated[
        FailOn | None,
        typer.Option("--fail-on", help="Exit 3 when findings this severe (or worse) exist."),
    ] = None,
    day_start: DayStartOption = None,
    profiles: ProfilesOption = None,
    house: HouseOption = None,
    show_players: ShowPlayersOption = False,
    json: JsonOption = False,
) -> None:
    """The nightly job: ingest, run, and report every gaming day the given files hold.

    Exit 0, or 3 with --fail-on when such findings exist in those gaming days (whether
    their events were new or already stored), else 6 when some shoes could not be
    replayed (each named on stderr), else 5 when some input files could not be read.

    \b
    Examples:
      shoe-audit nightly sample_logs/2026-11-28/
      shoe-audit nightly sample_logs/2026-11-28/ --db audit-nightly.duckdb --out audit-reports/
      shoe-audit nightly /var/log/tables/ --fail-on critical --quiet
    """
    from audit.reports.folder import check_out
    from audit.store.intent import writing

    check_out(out)  # before anything is ingested: a refused --out leaves nothing done
    settings = house_and_day_start(house, profiles, day_start)  # a bad one: nothing done
    # The intent to write is held from the ingest to the last read (issue 29, point 8):
    # `serve` opens nothing in between, so no request can take the file from the run.
    with writing(db):
        summary = _ingest(db, paths, settings, quiet=json)
        run = _run(db, profiles, quiet=json, house=house)  # reconciled at the house it reports
        days = _nightly_days(db, summary)
        path = _report(db, days, out, fmt, templates, profiles, show_players, house)
        bad = 0
        from audit.batch.nightly import failing_findings, tally_findings

        with open_db(db, read_only=True) as store:
            tally = tally_findings(store, days)
            if fail_on is not None:
                # not dismissed on review (cli.md), unless the trail fails its check (issue 29)
                bad = failing_findings(store, days, fail_on.value)
    if json:
        print_json(
            {
                "ingest": _ingest_json(summary),
                "run": _run_json(run),
                "gaming_days": [d.isoformat() for d in days],
                "report": str(path),
                "fail_on": fail_on.value if fail_on else None,
                "failing_findings": bad,
                "findings": tally.to_dict(),
            }
        )
    else:
        say(f"report: {path}")
    if bad:
        fail(
            f"{bad:,} findings of severity {fail_on} or worse not dismissed on review; "
            f"report: {path}; findings: {_tally_line(tally)}"
        )
        raise typer.Exit(3)
    if run.failed:
        raise typer.Exit(EXIT_NOT_REPLAYED)
    if summary.errors:
        raise typer.Exit(EXIT_UNREAD)


def _tally_line(tally: FindingTally) -> str:
    """``3 critical, 1 major, 0 minor, 0 info; 2 open, 1 dismissed, ...; 75 moved wrongly``"""
    sev = ", ".join(f"{n:,} {s}" for s, n in tally.by_severity.items())
    rev = ", ".join(f"{n:,} {s.replace('_', ' ')}" for s, n in tally.by_review.items())
    return f"{sev}; {rev}; {tally.moved_wrongly} moved wrongly"


# --------------------------------------------------------------------------- simulate


@app.command("simulate")
@boundary
def simulate_cmd(
    out: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="Folder for the logs (created).")
    ],
    tables: Annotated[int, typer.Option("--tables", metavar="N", min=1, help="Tables.")] = 4,
    shoes: Annotated[
        int,
        typer.Option("--shoes", metavar="N", min=1, help="Shoes per table, each to its cut card."),
    ] = 3,
    rounds: Annotated[
        int | None,
        typer.Option(
            "--rounds", metavar="N", min=1, help="Deal exactly this many rounds at each table."
        ),
    ] = None,
    profile: Annotated[
        list[str] | None,
        typer.Option(
            "--profile", metavar="ID", help="Rule profile; tables take them in turn (default: all)."
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", help="Same seed, same logs, byte for byte.")
    ] = 1,
    error_rate: Annotated[
        float,
        typer.Option(
            "--error-rate",
            metavar="P",
            min=0.0,
            max=1.0,
            help="The chance (0 to 1) that a round carries one injected dealer error.",
        ),
    ] = 0.0,
    error: Annotated[
        list[str] | None,
        typer.Option(
            "--error",
            metavar="CODE",
            help="With --error-rate: inject only this finding code (repeatable; default "
            "every class that applies to a round).",
        ),
    ] = None,
    gzip: Annotated[bool, typer.Option("--gzip", help="Write *.jsonl.gz.")] = False,
    rich_share: Annotated[
        float | None,
        typer.Option(
            "--rich-share",
            metavar="P",
            min=0.0,
            max=1.0,
            help="The share (0 to 1, default 0.25) of tables that write every optional "
            "field of TEL/1 (spots, void rounds, 10 for T, cards without pos, ...); "
            "0: plain logs only.",
        ),
    ] = None,
    bias: Annotated[
        list[str] | None,
        typer.Option(
            "--bias",
            help="Deal a table wrong on purpose, to test `stats` (repeatable): "
            "TABLE:short-dealer[=CHANCE] or TABLE:strip-tens[=COUNT].",
        ),
    ] = None,
    profiles: ProfilesOption = None,
    start_day: Annotated[
        dt.date | None,
        gaming_day_option("--date", "The first gaming day (default 2026-11-28)."),
    ] = None,
    days: Annotated[
        int | None,
        typer.Option(
            "--days",
            metavar="N",
            min=1,
            help="Gaming days: a night each, a folder each (default 1; with --books 2, "
            "the least it allows).",
        ),
    ] = None,
    prefix: Annotated[
        str,
        typer.Option(
            "--prefix",
            metavar="P",
            help="Starts every table, shoe and event id (P + T01 ...), so that two runs "
            "never share an id.",
        ),
    ] = "",
    books: Annotated[
        bool,
        typer.Option(
            "--books",
            help="Also write each casino table's books (TEL/1 v1.2): a first opener of 100 "
            "chips of each house denomination, then each previous closer; buy-ins; fills "
            "below 25 chips and credits above 300 of a denomination, back to 100, both "
            "copies (the cage's in stream CAGE); a closer and an opener at each shift "
            "change and close; a drop count per table and shift (stream COUNT). Needs "
            "--days 2 or more.",
        ),
    ] = False,
    books_error_rate: Annotated[
        float,
        typer.Option(
            "--books-error-rate",
            metavar="P",
            min=0.0,
            max=1.0,
            help="With --books: the chance (0 to 1) that a table's period carries one "
            "injected accounting error (listed in injected.ndjson).",
        ),
    ] = 0.0,
    books_error: Annotated[
        list[str] | None,
        typer.Option(
            "--books-error",
            metavar="CODE",
            help="With --books: inject only this ACCT_ code (repeatable; default all).",
        ),
    ] = None,
    tips: Annotated[
        bool, typer.Option("--tips", help="With --books: each drop count counts a tip box.")
    ] = False,
    house: Annotated[
        Path | None,
        typer.Option(
            "--house",
            metavar="FILE",
            help="With --books: the house file (shifts, pits, denominations; default: "
            "house.toml in --profiles, $SHOE_AUDIT_HOUSE, or the packaged one).",
        ),
    ] = None,
) -> None:
    """Write realistic TEL/1 logs, with injected errors.

    Each table deals by its profile's rules, a casino's own too (--profiles).
    Logs go to DIR/YYYY-MM-DD/TABLE.jsonl, a folder per gaming day (--date,
    --days). With --error-rate, dealer errors are injected and listed beside
    the day folders in injected.ndjson (one JSON object per error), which
    ingest does not read: `nightly DIR` audits the logs alone. Some tables
    (--rich-share) write every optional field of the format; the others write
    plain logs. With --books, each casino table also keeps its books (the home
    game keeps none), over at least two gaming days, and --books-error-rate
    injects accounting errors into them.

    \b
    Examples:
      shoe-audit simulate --out /tmp/night
      shoe-audit simulate --tables 4 --shoes 3 --seed 7 --error-rate 0.02 --out /tmp/night
      shoe-audit simulate --date 2026-12-01 --days 3 --prefix W49- --out /tmp/week
      shoe-audit simulate --books --books-error-rate 0.3 --days 3 --out /tmp/books
    """
    from audit.profiles import load_registry
    from audit.simulate import DEFAULT_DATE, RICH_SHARE, night_start, simulate
    from audit.simulate.bias import parse_biases
    from audit.simulate.inject import injectable_codes
    from audit.targets import check_target

    check_target(out, "--out", "folder")
    biases = parse_biases(bias or [])
    registry = load_registry(profiles)
    chosen = profile or [p.id for p in registry.all()]
    for pid in chosen:
        registry.get(pid)
    house_settings = None
    if books:
        from audit.books.house import load_house

        house_settings = load_house(house, profiles)
    elif house is not None:
        raise UsageError("--house only with --books")
    summary = simulate(
        out,
        tables=tables,
        shoes=shoes,
        rounds=rounds,
        profiles=chosen,
        seed=seed,
        error_rate=error_rate,
        error_codes=injectable_codes(error) if error else None,
        gzip=gzip,
        registry=registry,
        biases=biases,
        rich_share=RICH_SHARE if rich_share is None else rich_share,
        start=night_start(start_day or DEFAULT_DATE),
        days=days if days is not None else (2 if books else 1),
        prefix=prefix,
        books=books,
        books_error_rate=books_error_rate,
        books_errors=books_error,
        tips=tips,
        house=house_settings,
    )
    say(str(summary))
