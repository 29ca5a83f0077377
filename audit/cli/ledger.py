"""``shoe-audit ledger restart``: record a break when a ledger file is lost (issue 29, point 7)."""

from __future__ import annotations

from typing import Annotated

import typer

from audit.cli.app import app
from audit.cli.common import DEFAULT_DB_PATH, DbOption, boundary, open_db
from audit.cli.framework import AuditTyper
from audit.cli.output import say
from audit.errors import UsageError

ledger_app = AuditTyper(
    help=(
        "The tamper-evidence ledger files (the database's, the review trail's).\n\n"
        "\b\nExamples:\n"
        '  shoe-audit ledger restart --why "disk replaced, ledger lost" --by ana\n'
        '  shoe-audit ledger restart --trail --why "reviews.ledger deleted" --by ana'
    ),
    no_args_is_help=True,
)
app.add_typer(ledger_app, name="ledger")


@ledger_app.command("restart")
@boundary
def ledger_restart_cmd(
    why: Annotated[
        str, typer.Option("--why", metavar="TEXT", help="Why the file was lost (recorded).")
    ],
    by: Annotated[
        str, typer.Option("--by", metavar="NAME", help="Who records the break (recorded).")
    ],
    trail: Annotated[
        bool,
        typer.Option("--trail", help="Restart the review trail's ledger file instead."),
    ] = False,
    records_lost: Annotated[
        bool,
        typer.Option(
            "--records-lost",
            help="The database lost records the ledger file holds (restored from a backup): "
            "record them as lost.",
        ),
    ] = False,
    db: DbOption = DEFAULT_DB_PATH,
) -> None:
    """Record a break and start a new ledger file, when the old one is lost or foreign.

    `ingest`, `run` and `nightly` refuse to write while the ledger file
    (<database>.ledger) is missing or does not continue the database's chain,
    and a review is refused while the trail's ledger file (<db stem>.reviews.ledger)
    is lost. This records the break in both copies: a `break` record naming the
    head it vouches from, the lost or foreign file (its SHA-256; a foreign file is
    moved aside as .foreign-TIME, never deleted), who (--by and the OS user), when
    and why; the new file begins with it. `verify` names it as a known, recorded
    break, not tampering, and checks everything after it. Read `shoe-audit verify`
    first: a break vouches for the database as it is now. With --trail, the trail's
    ledger file (the database's must continue its chain). A wrong or missing
    SHOE_AUDIT_KEY is not a lost file: set the key instead. A file that holds committed
    records past the database's head (the database restored from a backup, or cut back)
    is refused: a break would hide them; --records-lost records them as lost, by number,
    and `verify` names them. Exit 0 recorded, 1 nothing to restart or an error.

    \b
    Examples:
      shoe-audit ledger restart --why "disk replaced, ledger lost" --by ana
      shoe-audit ledger restart --trail --why "reviews.ledger deleted by mistake" --by ana
      shoe-audit ledger restart --db audit-nightly.duckdb --why "restored from backup" --by bob
    """
    from audit.integrity.restart import restart_ledger, restart_trail_ledger
    from audit.review import os_user

    with open_db(db) as store:
        if trail:
            if records_lost:
                raise UsageError("--records-lost is for the database's ledger file, not --trail")
            done = restart_trail_ledger(store, by=by, why=why, user=os_user())
        else:
            done = restart_ledger(store, by=by, why=why, user=os_user(), records_lost=records_lost)
    moved = f"; the old file was moved to {str(done.moved)!r}" if done.moved else ""
    say(f"break recorded: {str(done.ledger)!r} restarted, vouching from {done.vouches}{moved}")
