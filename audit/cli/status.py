"""``shoe-audit status``: what the database holds (cli.md)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from audit.cli.app import app
from audit.cli.common import (
    DEFAULT_DB_PATH,
    DbOption,
    HouseOption,
    JsonOption,
    ProfilesOption,
    boundary,
    open_db,
)
from audit.cli.output import print_json, say

if TYPE_CHECKING:
    from audit.store.books import DayCut
    from audit.store.status import DatabaseStatus


@app.command("status")
@boundary
def status_cmd(
    db: DbOption = DEFAULT_DB_PATH,
    json: JsonOption = False,
    profiles: ProfilesOption = None,
    house: HouseOption = None,
) -> None:
    """What the database holds.

    Gaming days, tables, shoes, rounds, findings by severity, the last ingest
    and run, the engine version, and the books' periods by status (reconciled,
    pending, incomplete, not audited: changed since `run` judged them). Shoes are
    audited (and current), not yet audited, or out of date (their events, the
    engine or their profile changed since: `run` redoes them); open shoes have no
    shoe_close yet. The house file (--house, else house.toml in --profiles, else
    the packaged one) with its
    SHA-256, and the day start each stored gaming day was cut with at ingest.
    Exit 1 when there is no database.

    \b
    Examples:
      shoe-audit status
      shoe-audit status --db audit-nightly.duckdb
      shoe-audit status --json | jq .findings
    """
    from audit.batch.books import periods_by_status
    from audit.batch.nightly import tally_findings
    from audit.books.house import load_house
    from audit.engine import ENGINE_VERSION
    from audit.profiles import load_registry
    from audit.review import ReviewTrail
    from audit.review.adjustments import trail_adjustments
    from audit.store.books import day_cuts
    from audit.store.status import database_status

    digests = {p.id: p.digest for p in load_registry(profiles).all()}
    settings = load_house(house, profiles)
    with open_db(db, read_only=True) as store:
        status = database_status(store, ENGINE_VERSION, digests)
        reviews = tally_findings(store).by_review  # issue 30: reviews count
        cuts = day_cuts(store)
        trail = ReviewTrail.beside(db)
        books = periods_by_status(store, settings, trail_adjustments(trail) if trail.exists else [])
    if json:
        print_json(
            {
                **status.to_dict(),
                "reviews": reviews,
                "books": books,
                "house": {"path": settings.path, "sha256": settings.sha256},
                "day_cuts": [
                    {
                        "gaming_day": c.gaming_day.isoformat(),
                        "day_start": c.day_start,
                        "house_sha256": c.house_sha256,
                    }
                    for c in cuts
                ],
            }
        )
    else:
        rows = [books_row(books), *house_rows(settings.path, settings.sha256, cuts)]
        for line in status_lines(status, reviews, rows):
            say(line)


def books_row(books: Mapping[str, int]) -> tuple[str, str]:
    """``status``' row on the books: the stored periods by status (accounting.md "Command
    line"), or that no table keeps books."""
    total = sum(books.values())
    if not total:
        return ("books", "no periods (no table keeps books, or `run` has not reconciled them)")
    parts = ", ".join(f"{n:,} {k.replace('_', ' ')}" for k, n in books.items())
    return ("books", f"{total:,} periods: {parts}")


def house_rows(
    path: str | None, sha256: str | None, cuts: Sequence[DayCut]
) -> list[tuple[str, str]]:
    """``status``'s rows on the house file and the day starts: the stored gaming days
    grouped in runs cut with one day start (and where it came from)."""
    runs: list[tuple[DayCut, DayCut]] = []
    for c in cuts:
        if runs and (runs[-1][1].day_start, runs[-1][1].house_sha256) == (
            c.day_start,
            c.house_sha256,
        ):
            runs[-1] = (runs[-1][0], c)
        else:
            runs.append((c, c))
    lines = [("house file", f"{path} (sha256 {sha256})")]
    for first, last in runs:
        span = str(first.gaming_day) + (
            f" .. {last.gaming_day}" if last.gaming_day != first.gaming_day else ""
        )
        source = (
            f"house file sha256 {first.house_sha256[:12]}" if first.house_sha256 else "--day-start"
        )
        lines.append(("day start", f"{first.day_start} for {span} (from {source})"))
    if not cuts:
        lines.append(("day start", "no gaming day noted (cut before shoe-audit noted them)"))
    return lines


def _when(value: dt.datetime | None) -> str:
    if value is None:
        return "never"
    return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def status_lines(
    s: DatabaseStatus,
    reviews: Mapping[str, int] | None = None,
    extra: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """The text form of ``status``: one figure a line, labels aligned; ``reviews``, the
    findings by review state, on the line after the findings by severity; ``extra`` rows
    (the house file and day starts) last."""
    days = (
        f"{len(s.gaming_days):,} ({s.gaming_days[0]} .. {s.gaming_days[-1]})"
        if s.gaming_days
        else "none"
    )
    tables = f"{len(s.tables):,}" + (f" ({', '.join(s.tables)})" if s.tables else "")
    rows = [
        ("database", f"{s.path} (schema {s.schema_version})"),
        ("gaming days", days),
        ("tables", tables),
        (
            "files",
            f"{s.files:,} ingested, {s.events:,} events, {s.quarantined:,} lines quarantined",
        ),
        (
            "shoes",
            f"{s.shoes:,}: {s.shoes_audited:,} audited, {s.shoes_not_audited:,} not yet audited, "
            f"{s.shoes_out_of_date:,} out of date, {s.shoes_open:,} still open"
            + (f", {len(s.failed):,} could not be audited" if s.failed else ""),
        ),
        *(
            (
                "  failed",
                f"{f['table']}/{f['shoe']}: {f['error']}"
                + (" (keeps its audit of " + f["kept_audit"][:19] + ")" if f["kept_audit"] else ""),
            )
            for f in s.failed[:20]
        ),
        ("rounds", f"{s.rounds:,} stored, {s.rounds_audited:,} audited"),
        ("findings", ", ".join(f"{n:,} {sev}" for sev, n in s.findings.items())),
        *(
            [("  by review", ", ".join(f"{n:,} {k.replace('_', ' ')}" for k, n in reviews.items()))]
            if reviews is not None
            else []
        ),
        ("last ingest", _when(s.last_ingest)),
        ("last run", _when(s.last_run)),
        (
            "engine",
            s.engine_version
            + (
                " (shoes audited with: "
                + ", ".join(f"{v} {n:,}" for v, n in s.audited_with.items())
                + ")"
                if s.audited_with
                else ""
            ),
        ),
        *extra,
    ]
    width = max(len(label) for label, _ in rows)
    return [f"{label:<{width}}  {value}" for label, value in rows]
