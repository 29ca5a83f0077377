"""``shoe-audit verify [PATH...]``: is the stored evidence intact? (cli.md; issue 14, point 15)"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from audit.cli.app import app
from audit.cli.common import DEFAULT_DB_PATH, DbOption, boundary, open_db
from audit.cli.output import note, safe_line

EXIT_DIFFERENCE = 4
"""cli.md: ``verify`` exits 4 when a difference is found."""


@app.command("verify")
@boundary
def verify_cmd(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="The original TEL/1 files or folders, to compare line by line."),
    ] = None,
    db: DbOption = DEFAULT_DB_PATH,
) -> None:
    """Recompute the stored evidence: the ledger's hash chain and file, every event's digest
    and typed row, the quarantine, the findings; given the original files, compare them
    line by line. Names every event changed, inserted or removed after ingest.

    With SHOE_AUDIT_KEY set (in the environment), every line of the ledger file must
    carry a valid HMAC.
    Exit 0 intact, 4 a difference found, 1 error.

    \b
    Examples:
      shoe-audit verify
      shoe-audit verify sample_logs/2026-11-28/
      shoe-audit verify --db audit-nightly.duckdb /var/log/tables/2026-11-28/
    """
    from audit.integrity.verify import verify

    with open_db(db, read_only=True) as store:
        result = verify(store, paths or [])
    for d in result.differences:  # the output asked for: printed even with --quiet
        sys.stdout.write(safe_line(f"LOG_TAMPERED {d}") + "\n")
    for text in result.not_ingested:  # a verdict on a file asked about, not a difference
        sys.stdout.write(safe_line(text) + "\n")
    sys.stdout.flush()
    for text in result.notes:
        note(f"note: {text}")
    head = f"; ledger head {result.head}" if result.head else "; the ledger is empty"
    verdict = "intact" if result.intact else f"{len(result.differences):,} differences"
    note(
        f"{verdict}: {result.records:,} ledger records, {result.events:,} events, "
        f"{len(result.files):,} files compared{head}"
    )
    if not result.intact:
        raise typer.Exit(EXIT_DIFFERENCE)
