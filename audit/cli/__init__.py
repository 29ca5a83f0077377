"""The ``shoe-audit`` command line: a thin layer over the library.

Each command parses its options, calls one library function and prints. No SQL
and no rule logic here. Heavy imports (duckdb, polars, jinja, the engine)
happen inside the commands so that ``--help`` starts at once.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from audit.cli.app import app

__all__ = ["INTERRUPTED", "app", "main"]

INTERRUPTED = "interrupted; the database is left as of the last finished transaction"
"""What Ctrl-C prints (exit 130), whenever it comes."""


def _load_app() -> Any:
    from audit.cli.app import app

    # Importing the submodule bound the name ``app`` here to the module; the
    # package's ``app`` is the Typer application.
    globals()["app"] = app
    return app


def main() -> None:
    """Entry point of the ``shoe-audit`` console script."""
    try:
        _load_app()()
    except KeyboardInterrupt:  # Ctrl-C while the program loads, before its error boundary
        sys.stderr.write(f"Error: {INTERRUPTED}\n")
        raise SystemExit(130) from None


def __getattr__(name: str) -> Any:
    if name == "app":
        return _load_app()
    raise AttributeError(name)
