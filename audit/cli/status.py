"""``shoe-audit status``: what the database holds (cli.md)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING

from audit.cli.app import app
from audit.cli.common import (
    DEFAULT_DB_PATH,
    DbOption,
    JsonOption,
    ProfilesOption,
    boundary,
    open_db,
)
from audit.cli.output import print_json, say

if TYPE_CHECKING:
    from audit.store.status import DatabaseStatus


@app.command("status")
@boundary
def status_cmd(
    db: DbOption = DEFAULT_DB_PATH, json: JsonOption = False, profiles: ProfilesOption = None
) -> None:
    """What the database holds.

    Gaming days, tables, shoes, rounds, findings by severity, the last ingest
    and run, and the engine version. Shoes are audited (and current), not yet
    audited, or out of date (their events, the engine or their profile changed
    since: `run` redoes them); open shoes have no shoe_close yet. Exit 1 when
    there is no database.

    \b
    Examples:
      shoe-audit status
      shoe-audit status --db audit-nightly.duckdb
      shoe-audit status --json | jq .findings
    """
    from audit.batch.nightly import tally_findings
    from audit.engine import ENGINE_VERSION
    from audit.profiles import load_registry
    from audit.store.status import database_status

    digests = {p.id: p.digest for p in load_registry(profiles).all()}
    with open_db(db, read_only=True) as store:
        status = database_status(store, ENGINE_VERSION, digests)
        reviews = tally_findings(store).by_review  # issue 30: reviews count
    if json:
        print_json({**status.to_dict(), "reviews": reviews})
    else:
        for line in status_lines(status, reviews):
            say(line)


def _when(value: dt.datetime | None) -> str:
    if value is None:
        return "never"
    return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def status_lines(s: DatabaseStatus, reviews: Mapping[str, int] | None = None) -> list[str]:
    """The text form of ``status``: one figure a line, labels aligned; ``reviews``, the
    findings by review state, on the line after the findings by severity."""
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
    ]
    width = max(len(label) for label, _ in rows)
    return [f"{label:<{width}}  {value}" for label, value in rows]
