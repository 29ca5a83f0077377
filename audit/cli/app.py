"""The ``shoe-audit`` Typer application; commands register on :data:`app`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from audit import __version__
from audit.cli.common import boundary
from audit.cli.framework import EXIT_CODES, AuditGroup, AuditTyper
from audit.cli.output import say


class _RootGroup(AuditGroup):
    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Exit codes"):
            formatter.write_dl(EXIT_CODES)


app = AuditTyper(
    name="shoe-audit",
    cls=_RootGroup,
    help=(
        "Blackjack table audit: ingest TEL/1 table event logs into DuckDB, replay every "
        "round under its rule profile, and report the findings.\n\n"
        "\b\n"
        "Examples:\n"
        "  shoe-audit nightly sample_logs/2026-11-28/ --out audit-reports/\n"
        "  shoe-audit findings --min-severity major\n"
        "  shoe-audit run --help"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"shoe-audit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the traceback of an error instead of one line.")
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print nothing but errors and the output asked for."),
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    # --debug and --quiet are read by AuditGroup wherever they stand (framework.py);
    # they are declared here so that the top-level help lists them.
    del debug, quiet


@app.command("schema")
@boundary
def schema_cmd(
    out: Annotated[
        Path,
        typer.Option("--out", metavar="DIR", help="Folder to write the schemas into (created)."),
    ] = Path("schemas"),
) -> None:
    """Write the JSON Schema of a TEL/1 event and of a finding.

    \b
    Examples:
      shoe-audit schema --out schemas/
      shoe-audit schema --out /tmp/schemas && ls /tmp/schemas
    """
    from audit.schemas import write_schemas
    from audit.targets import check_target

    check_target(out, "--out", "folder")
    for path in write_schemas(out):
        say(f"wrote {path}")


# Each import registers its commands on app (new commands: a module of their own, here).
# scale: export --parquet, and run's --cluster (issue 13).
# ledger: `ledger restart`, a break recorded when a ledger file is lost (issue 29).
# books: `books` (the Master Game Report) and `adjust` (issue 31).
from audit.cli import (  # noqa: E402,F401
    books,
    commands,
    ledger,
    reviewing,
    rounds,
    scale,
    serving,
    stats_cmds,
    status,
    verify,
)


def main() -> None:
    """Run the CLI (the console script's entry point is :func:`audit.cli.main`)."""
    app()
