"""``shoe-audit verify [PATH...]``: is the stored evidence intact? (cli.md; issue 14, point 15)"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from audit.cli.app import app
from audit.cli.common import DbOption, boundary

EXIT_DIFFERENCE = 4
"""cli.md: ``verify`` exits 4 when a difference is found."""


@app.command("verify")
@boundary
def verify_cmd(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="The original TEL/1 files or folders, to compare line by line."),
    ] = None,
    db: DbOption = Path("audit.duckdb"),
) -> None:
    """Recompute the stored evidence: the ledger's hash chain and file, every event's digest
    and typed row, the quarantine, the findings; given the original files, compare them
    line by line. Names every event changed, inserted or removed after ingest.

    With SHOE_AUDIT_KEY set, every line of the ledger file must carry a valid HMAC.
    Exit 0 intact, 4 a difference found, 1 error.

    Example: shoe-audit verify --db audit.duckdb logs/2026-11-28/
    """
    from audit.cli.commands import _open
    from audit.integrity.verify import verify

    with _open(db, read_only=True) as store:
        result = verify(store, paths or [])
    for d in result.differences:
        typer.echo(f"LOG_TAMPERED {d}")
    for note in result.notes:
        typer.echo(f"note: {note}", err=True)
    head = f"; ledger head {result.head}" if result.head else "; the ledger is empty"
    verdict = "intact" if result.intact else f"{len(result.differences):,} differences"
    typer.echo(
        f"{verdict}: {result.records:,} ledger records, {result.events:,} events, "
        f"{len(result.files):,} files compared{head}",
        err=True,
    )
    if not result.intact:
        raise typer.Exit(EXIT_DIFFERENCE)
