"""Options shared by several commands, and the one error boundary."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, ParamSpec, TypeVar

import typer

from audit.errors import AuditError

P = ParamSpec("P")
R = TypeVar("R")

DB_ENV = "SHOE_AUDIT_DB"
DEFAULT_DB = "audit.duckdb"

DbOption = Annotated[
    Path,
    typer.Option(
        "--db",
        envvar=DB_ENV,
        help=f"The audit database (DuckDB file); ${DB_ENV} sets it too.",
        show_default=True,
    ),
]
ProfilesOption = Annotated[
    Path | None,
    typer.Option(
        "--profiles",
        envvar="SHOE_AUDIT_PROFILES",
        help="A folder of extra or overriding rule profile files (*.toml).",
    ),
]
DayStartOption = Annotated[
    str,
    typer.Option("--day-start", help="When a gaming day starts, table-local time (HH:MM)."),
]


class State:
    """Process-wide CLI switches set by the top-level callback."""

    debug: bool = bool(os.environ.get("SHOE_AUDIT_DEBUG"))


def err(message: str) -> None:
    """Print an error the way every command does: ``Error: ...`` in red on stderr."""
    from rich.console import Console
    from rich.markup import escape

    # The message is text, not markup: "pip install 'shoe-audit[cluster]'" must stay whole.
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"[bold red]Error:[/bold red] {escape(message)}", markup=True
    )


def boundary(fn: Callable[P, R]) -> Callable[P, R]:
    """The CLI's one error boundary: an :class:`AuditError` becomes ``Error: ...``, exit 1.

    ``--debug`` (or ``SHOE_AUDIT_DEBUG=1``) re-raises instead, with the traceback.
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except AuditError as exc:
            if State.debug:
                raise
            err(str(exc))
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            err("interrupted; the database is left as of the last finished transaction")
            raise typer.Exit(130) from None

    return wrapper


def is_terminal() -> bool:
    return sys.stdout.isatty()
