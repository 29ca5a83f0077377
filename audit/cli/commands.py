"""Commands that read or write the audit database, and the rule-profile listing."""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from audit.cli.app import app
from audit.cli.common import DayStartOption, DbOption, ProfilesOption, boundary, err, is_terminal
from audit.errors import AuditError, InputError

if TYPE_CHECKING:
    from audit.batch import RunSummary
    from audit.ingest import IngestSummary
    from audit.store import Store

DEFAULT_DB_PATH = Path("audit.duckdb")
PathsArg = Annotated[
    list[Path], typer.Argument(help="TEL/1 files (*.jsonl, *.jsonl.gz) or folders (recursive).")
]


class FindingsFormat(StrEnum):
    table = "table"
    jsonl = "jsonl"
    csv = "csv"


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


def _date(value: str | None, option: str) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise InputError(f"{option} takes a gaming day as YYYY-MM-DD, got {value!r}") from None


def _open(db: Path, *, read_only: bool = False) -> Store:
    from audit.store import open_store

    if read_only and not db.exists():
        raise AuditError(f"no audit database at {str(db)!r}: run `shoe-audit ingest` first")
    return open_store(db, read_only=read_only)


# --------------------------------------------------------------------------- profiles


@app.command("profiles")
@boundary
def profiles_cmd(
    profile_id: Annotated[
        str | None, typer.Argument(metavar="[ID]", help="Show this profile's rules.")
    ] = None,
    profiles: ProfilesOption = None,
) -> None:
    """List the rule profiles, or show one with every rule and its source.

    Example: shoe-audit profiles it-casino-5d
    """
    from audit.profiles import load_registry
    from audit.profiles.model import describe_rules

    registry = load_registry(profiles)
    if profile_id is None:
        for p in registry.all():
            typer.echo(f"{p.id:<26} seed {p.seed}  {p.title}")
        return
    p = registry.get(profile_id)
    typer.echo(f"{p.id}: {p.title}")
    typer.echo(f"seed {p.seed}; digest {p.digest}")
    typer.echo("")
    width = max(len(name) for name, *_ in describe_rules(p))
    for name, value, house, source in describe_rules(p):
        mark = " [house default]" if house else ""
        typer.echo(f"{name:<{width}}  {value}{mark}")
        typer.echo(f"{'':<{width}}    {source}")


# --------------------------------------------------------------------------- validate / ingest


@app.command("validate")
@boundary
def validate_cmd(paths: PathsArg) -> None:
    """Check files against TEL/1 without storing anything.

    Prints each invalid line as file:line: why; unknown event types are warnings.
    Exit 0 when every line is valid, 1 otherwise.

    Example: shoe-audit validate logs/2026-11-28/
    """
    from audit.ingest import validate_paths

    report = validate_paths(paths)
    for line in report.invalid:
        typer.echo(line)
    for line in report.errors:
        typer.echo(line)
    for line in report.warnings:
        typer.echo(f"warning: {line}", err=True)
    verdict = "ok" if report.ok else "INVALID"
    typer.echo(
        f"{verdict}: {len(report.files)} files, {report.lines:,} lines, "
        f"{report.events:,} valid events, {len(report.invalid):,} invalid lines, "
        f"{len(report.warnings):,} warnings",
        err=True,
    )
    if not report.ok:
        raise typer.Exit(1)


def _print_ingest(summary: IngestSummary) -> None:
    for f in summary.files:
        note = f"  ERROR: {f.error}" if f.error else ""
        typer.echo(
            f"{f.path}: {f.lines:,} lines, {f.new:,} new, {f.duplicates:,} duplicates, "
            f"{f.rejected:,} rejected{note}",
            err=True,
        )
    typer.echo(
        f"files {len(summary.files):,}  events {summary.events:,}  new {summary.new:,}  "
        f"duplicates {summary.duplicates:,}  rejected {summary.rejected:,}"
    )
    if summary.rejected:
        typer.echo(
            "rejected lines are quarantined: see `shoe-audit findings --code LOG_MALFORMED "
            "--code LOG_ID_CONFLICT`",
            err=True,
        )


def _ingest(db: Path, paths: list[Path], day_start: str) -> IngestSummary:
    from audit.ingest import ingest_paths

    with _open(db) as store:
        summary = ingest_paths(store, paths, day_start=day_start)
    _print_ingest(summary)
    if summary.files and all(f.error and not f.lines for f in summary.files):
        raise InputError("nothing readable: " + "; ".join(summary.errors))
    for line in summary.errors:
        err(f"could not read {line}")
    return summary


EXIT_UNREAD = 5
"""cli.md: ingested, but some input files could not be read (named on stderr)."""


@app.command("ingest")
@boundary
def ingest_cmd(
    paths: PathsArg, db: DbOption = DEFAULT_DB_PATH, day_start: DayStartOption = "06:00"
) -> None:
    """Read TEL/1 files or folders into the audit database.

    Idempotent: the same file twice adds nothing. Invalid lines are quarantined
    with file and line (LOG_MALFORMED); the good lines of the file still go in.
    Exit 0 when ingested (even with rejected lines), 1 when nothing was readable.

    Exit 5 when some input files could not be read (each named on stderr): a file
    that is not a regular file (a FIFO, a device), unreadable, or damaged part-way.

    Example: shoe-audit ingest --db audit.duckdb logs/2026-11-28/
    """
    if _ingest(db, paths, day_start).errors:
        raise typer.Exit(EXIT_UNREAD)


# --------------------------------------------------------------------------- run


@contextmanager
def _progress_bar(what: str) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on a terminal (``tick(done, total)``); nothing when piped."""
    if not is_terminal():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
    ) as bar:
        task = bar.add_task(what, total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield tick


def _run(
    db: Path,
    profiles: Path | None,
    *,
    all_shoes: bool = False,
    table: str | None = None,
    gaming_day: dt.date | None = None,
    workers: int | None = None,
) -> RunSummary:
    from audit.batch import run_audit
    from audit.profiles import load_registry

    registry = load_registry(profiles)
    with _open(db) as store, _progress_bar("auditing shoes") as tick:
        summary = run_audit(
            store,
            registry,
            all_shoes=all_shoes,
            table=table,
            gaming_day=gaming_day,
            workers=workers,
            progress=tick,
        )
    rate = summary.rounds / summary.seconds if summary.seconds else 0.0
    typer.echo(
        f"audited {summary.shoes:,} shoes, {summary.rounds:,} rounds in {summary.seconds:.1f} s "
        f"({rate:,.0f} rounds/s): {summary.findings:,} findings"
    )
    for code, n in summary.by_code.items():
        typer.echo(f"  {code:<32} {n:>7,}")
    return summary


@app.command("run")
@boundary
def run_cmd(
    db: DbOption = DEFAULT_DB_PATH,
    all_shoes: Annotated[bool, typer.Option("--all", help="Re-audit every shoe.")] = False,
    table: Annotated[str | None, typer.Option("--table", help="Only this table.")] = None,
    date: Annotated[str | None, typer.Option("--date", help="Only this gaming day.")] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", help="Processes (default: one per core).")
    ] = None,
    profiles: ProfilesOption = None,
) -> None:
    """Audit every shoe not yet audited, or changed since, or audited by another engine/profile.

    Example: shoe-audit run --db audit.duckdb --date 2026-11-28
    """
    _run(
        db,
        profiles,
        all_shoes=all_shoes,
        table=table,
        gaming_day=_date(date, "--date"),
        workers=workers,
    )


# --------------------------------------------------------------------------- findings


@app.command("findings")
@boundary
def findings_cmd(
    db: DbOption = DEFAULT_DB_PATH,
    fmt: Annotated[
        FindingsFormat | None,
        typer.Option("--format", help="table (default on a terminal), jsonl (default piped), csv."),
    ] = None,
    code: Annotated[
        list[str] | None, typer.Option("--code", help="Only this code (repeatable).")
    ] = None,
    severity: Annotated[
        list[str] | None, typer.Option("--severity", help="Only this severity (repeatable).")
    ] = None,
    min_severity: Annotated[
        str | None, typer.Option("--min-severity", help="This severity or worse.")
    ] = None,
    table: Annotated[str | None, typer.Option("--table")] = None,
    shoe: Annotated[str | None, typer.Option("--shoe")] = None,
    date: Annotated[str | None, typer.Option("--date", help="Gaming day YYYY-MM-DD.")] = None,
) -> None:
    """Write the findings (ingest and replay) to stdout.

    Example: shoe-audit findings --min-severity major --format jsonl
    """
    from audit.cli.output import write_findings
    from audit.findings import Code, Severity

    for c in code or []:
        if c not in Code.__members__:
            raise InputError(f"unknown finding code {c!r}; see rules.md's catalogue")
    for s in [*(severity or []), *([min_severity] if min_severity else [])]:
        if s not in {x.value for x in Severity}:
            raise InputError(f"unknown severity {s!r}: expected critical, major, minor or info")
    with _open(db, read_only=True) as store:
        found = store.all_findings(
            codes=code or None,
            severities=severity or None,
            min_severity=min_severity,
            table=table,
            shoe=shoe,
            gaming_day=_date(date, "--date"),
        )
    chosen = fmt or (FindingsFormat.table if is_terminal() else FindingsFormat.jsonl)
    write_findings(found, chosen.value, sys.stdout)


# --------------------------------------------------------------------------- hand


@app.command("hand")
@boundary
def hand_cmd(
    table: Annotated[str, typer.Argument(help="Table id, e.g. T07.")],
    shoe: Annotated[str, typer.Argument(help="Shoe id, e.g. T07-20261128-01.")],
    round_no: Annotated[int, typer.Argument(metavar="ROUND", help="Round number in the shoe.")],
    db: DbOption = DEFAULT_DB_PATH,
    fmt: Annotated[
        HandFormat, typer.Option("--format", help="text, html or json.")
    ] = HandFormat.text,
    out: Annotated[Path | None, typer.Option("--out", help="Write to this file.")] = None,
    templates: Annotated[
        Path | None, typer.Option("--templates", help="Folder of replacement templates.")
    ] = None,
    profiles: ProfilesOption = None,
) -> None:
    """Replay one round step by step, for a dispute. Exit 1 when there is no such round.

    Example: shoe-audit hand T07 T07-20261128-01 14 --format html --out r14.html
    """
    from audit.cli.output import hand_packet

    with _open(db, read_only=True) as store:
        text = hand_packet(
            store,
            table,
            shoe,
            round_no,
            fmt.value,
            color=out is None and is_terminal(),
            templates=templates,
            profiles=profiles,
        )
    if out is None:
        sys.stdout.write(text)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out}")


# --------------------------------------------------------------------------- report / nightly


def _report(
    db: Path,
    days: list[dt.date] | None,
    out: Path,
    fmt: ReportFormat,
    templates: Path | None,
    profiles: Path | None = None,
) -> Path:
    from audit.cli.output import write_report
    from audit.profiles import load_registry

    with _open(db, read_only=True) as store:
        return write_report(store, days, out, fmt.value, templates, load_registry(profiles))


OutOption = Annotated[Path, typer.Option("--out", help="Folder for the report and its hand pages.")]
TemplatesOption = Annotated[
    Path | None, typer.Option("--templates", help="Folder of replacement report templates.")
]


@app.command("report")
@boundary
def report_cmd(
    db: DbOption = DEFAULT_DB_PATH,
    date: Annotated[str | None, typer.Option("--date", help="Gaming day YYYY-MM-DD.")] = None,
    from_: Annotated[str | None, typer.Option("--from", help="First gaming day.")] = None,
    to: Annotated[str | None, typer.Option("--to", help="Last gaming day.")] = None,
    fmt: Annotated[ReportFormat, typer.Option("--format", help="html or md.")] = ReportFormat.html,
    out: OutOption = Path("audit-reports"),
    templates: TemplatesOption = None,
    profiles: ProfilesOption = None,
) -> None:
    """Render the compliance report (default: the latest gaming day in the database).

    Example: shoe-audit report --date 2026-11-28 --out audit-reports/
    """
    from audit.cli.output import day_range

    days = day_range(_date(date, "--date"), _date(from_, "--from"), _date(to, "--to"))
    path = _report(db, days, out, fmt, templates, profiles)
    typer.echo(f"report: {path}")


@app.command("nightly")
@boundary
def nightly_cmd(
    paths: PathsArg,
    db: DbOption = DEFAULT_DB_PATH,
    out: OutOption = Path("audit-reports"),
    templates: TemplatesOption = None,
    fmt: Annotated[ReportFormat, typer.Option("--format", help="html or md.")] = ReportFormat.html,
    fail_on: Annotated[
        FailOn | None,
        typer.Option("--fail-on", help="Exit 3 when findings of this severity (or worse) exist."),
    ] = None,
    day_start: DayStartOption = "06:00",
    profiles: ProfilesOption = None,
) -> None:
    """The nightly job: ingest, run, and report every gaming day the given files hold.

    Exit 0, or 3 with --fail-on when such findings exist in those gaming days (whether
    their events were new or already stored), else 5 when some input files could not be read.

    Example: shoe-audit nightly logs/2026-11-28/ --out audit-reports/ --fail-on critical
    """
    from audit.findings import Severity

    summary = _ingest(db, paths, day_start)
    _run(db, profiles)
    # Every gaming day the given files hold, their events new or stored before: a
    # re-run after a crash reports (and fails on) the same days as the first run.
    days = summary.file_days
    if not days:  # files with no dated line at all: report the latest day
        from audit.batch.nightly import latest_gaming_day

        with _open(db, read_only=True) as store:
            days = [latest_gaming_day(store)]
    path = _report(db, days, out, fmt, templates, profiles)
    typer.echo(f"report: {path}")
    if fail_on is not None:
        from audit.store.integrity import tampered_without_day

        with _open(db, read_only=True) as store:
            floor = Severity(fail_on.value)
            bad = [
                f for day in days for f in store.all_findings(gaming_day=day, min_severity=floor)
            ] + [f for f in tampered_without_day(store) if f.severity.rank >= floor.rank]
        if bad:
            err(f"{len(bad):,} findings of severity {fail_on.value} or worse")
            raise typer.Exit(3)
    if summary.errors:
        raise typer.Exit(EXIT_UNREAD)


# --------------------------------------------------------------------------- simulate


@app.command("simulate")
@boundary
def simulate_cmd(
    out: Annotated[Path, typer.Option("--out", help="Folder for the logs (created).")],
    tables: Annotated[int, typer.Option("--tables", min=1, help="Tables.")] = 4,
    shoes: Annotated[
        int, typer.Option("--shoes", min=1, help="Shoes per table, each dealt to its cut card.")
    ] = 3,
    rounds: Annotated[
        int | None, typer.Option("--rounds", min=1, help="Stop each table after this many rounds.")
    ] = None,
    profile: Annotated[
        list[str] | None,
        typer.Option("--profile", help="Rule profile (repeatable: tables take them in turn)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same logs.")] = 1,
    error_rate: Annotated[
        float,
        typer.Option("--error-rate", min=0.0, max=1.0, help="Chance a round carries one error."),
    ] = 0.0,
    gzip: Annotated[bool, typer.Option("--gzip", help="Write *.jsonl.gz.")] = False,
    profiles: ProfilesOption = None,
) -> None:
    """Write realistic TEL/1 logs; with --error-rate, inject dealer errors and list them.

    The list of injected errors is written beside the logs as injected.jsonl.

    Example: shoe-audit simulate --tables 4 --shoes 3 --seed 7 --error-rate 0.02 --out night/
    """
    from audit.profiles import load_registry
    from audit.simulate import simulate

    registry = load_registry(profiles)
    chosen = profile or [p.id for p in registry.all()]
    for pid in chosen:
        registry.get(pid)
    summary = simulate(
        out,
        tables=tables,
        shoes=shoes,
        rounds=rounds,
        profiles=chosen,
        seed=seed,
        error_rate=error_rate,
        gzip=gzip,
        registry=registry,
    )
    typer.echo(str(summary))
