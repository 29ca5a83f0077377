"""``shoe-audit serve``: the investigator web app."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from audit.cli.app import app
from audit.cli.common import DEFAULT_DB_PATH, DbOption, ProfilesOption, boundary, no_database
from audit.cli.output import say


@app.command("serve")
@boundary
def serve_cmd(
    db: DbOption = DEFAULT_DB_PATH,
    host: Annotated[
        str,
        typer.Option("--host", help="Address to listen on; any but 127.0.0.1 needs accounts."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port.")] = 8750,
    templates: Annotated[
        Path | None, typer.Option("--templates", help="Folder of replacement templates.")
    ] = None,
    profiles: ProfilesOption = None,
) -> None:
    """The investigator web app: findings, shoes, hands, the day's report, reviews.

    Holds no database connection between requests, so `nightly` runs while it is
    up. On an address other than 127.0.0.1 it needs reviewer accounts
    (`shoe-audit users add`). Runs until stopped.

    \b
    Examples:
      shoe-audit serve
      shoe-audit serve --db audit-nightly.duckdb --port 8080
      shoe-audit serve --host 0.0.0.0   # needs accounts: shoe-audit users add
    """
    from audit.web.app import ServeConfig
    from audit.web.server import check_can_serve, serve

    if not db.exists():
        raise no_database(db)
    config = ServeConfig(db=db, host=host, port=port, profiles=profiles, templates=templates)
    check_can_serve(config)
    say(f"shoe-audit serve: http://{host}:{port}/findings  (Ctrl-C stops)")
    serve(config)
