"""``shoe-audit verify [PATH...]``: is the stored evidence intact? (cli.md; issue 14, point 15)"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from audit.cli.app import app
from audit.cli.common import DEFAULT_DB_PATH, DbOption, boundary, open_db
from audit.cli.output import note, safe_line, say
from audit.wording import counted

EXIT_DIFFERENCE = 4
"""cli.md: ``verify`` exits 4 when a difference is found."""


@app.command("verify")
@boundary
def verify_cmd(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="The original TEL/1 files or folders, to compare event by event."),
    ] = None,
    db: DbOption = DEFAULT_DB_PATH,
    reports: Annotated[
        list[Path] | None,
        typer.Option(
            "--report",
            metavar="DIR",
            help="An archived report folder: check that the ledger and review-trail heads it "
            "pinned are still in the chains, and its SHA256SUMS (repeatable).",
        ),
    ] = None,
) -> None:
    """Recompute the stored evidence: the ledger's hash chain and file, every event's digest
    and typed row, the quarantine, the findings; given the original files, compare them
    with the stored events by event id. Names every event changed, inserted, removed or
    moved after ingest (a line inserted or removed is named alone, with its file:line),
    and each file never ingested ("not ingested": not a difference).

    The review trail is recomputed too, against its own ledger file and the trail heads
    the database's ledger recorded: a decision changed or removed is named. --report DIR
    (repeatable) checks that the heads an archived report pinned are still in the
    chains (a chain cut back in both copies is found) and the report's own files; a
    database re-created since (its old ledger kept as .ledger.retired-TIME) is said
    plainly, not called tampering. A break recorded by `shoe-audit ledger restart` is
    named as such, and everything after it checked.

    With SHOE_AUDIT_KEY set (in the environment), every line of the ledger file must
    carry a valid HMAC.
    Exit 0 intact, 4 a difference found, 1 error.

    \b
    Examples:
      shoe-audit verify
      shoe-audit verify sample_logs/2026-11-28/
      shoe-audit verify --db audit-nightly.duckdb /var/log/tables/2026-11-28/
      shoe-audit verify --report /archive/2026-11-28 --report /archive/2026-11-29
    """
    from audit.integrity.verify import verify

    with open_db(db, read_only=True) as store:
        result = verify(store, paths or [], reports=reports or [])
    for d in result.differences:  # the output asked for: printed even with --quiet
        sys.stdout.write(safe_line(f"LOG_TAMPERED {d}") + "\n")
    for text in result.not_ingested:  # a verdict on a file asked about, not a difference
        sys.stdout.write(safe_line(text) + "\n")
    sys.stdout.flush()
    for text in result.notes:
        note(f"note: {text}")
    head = f"; ledger head {result.head}" if result.head else "; the ledger is empty"
    if result.trail is not None:
        head += f"; review trail {result.trail}"
    if result.reports:
        head += f"; {counted(result.reports, 'archived report')} checked"
    verdict = "intact" if result.intact else counted(len(result.differences), "difference")
    # The verdict is the command's answer: stdout, like validate's (notes stay on stderr).
    say(
        f"{verdict}: {counted(result.records, 'ledger record')}, "
        f"{counted(result.events, 'event')}, {counted(len(result.files), 'file')} compared{head}"
    )
    if not result.intact:
        raise typer.Exit(EXIT_DIFFERENCE)
