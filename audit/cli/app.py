"""The ``shoe-audit`` Typer application and its commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from audit import __version__
from audit.cli.common import State, boundary

app = typer.Typer(
    name="shoe-audit",
    help=(
        "Blackjack table audit: ingest TEL/1 table event logs into DuckDB, replay every "
        "round under its rule profile, and report the findings.\n\n"
        "Example: shoe-audit nightly sample_logs/ --out audit-reports/"
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"shoe-audit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: Annotated[
        bool, typer.Option("--debug", help="Show tracebacks instead of one-line errors.")
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    if debug:
        State.debug = True


@app.command("schema")
@boundary
def schema_cmd(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the schemas into.")] = Path(
        "schemas"
    ),
) -> None:
    """Write the JSON Schema of a TEL/1 event and of a finding.

    Example: shoe-audit schema --out schemas/
    """
    from audit.schemas import write_schemas

    for path in write_schemas(out):
        typer.echo(f"wrote {path}")


from audit.cli import commands  # noqa: E402,F401,I001  (registers the other commands)
from audit.cli import verify  # noqa: E402,F401  (registers verify, issue 14)


def main() -> None:
    """Entry point of the ``shoe-audit`` console script."""
    app()
