"""The ``shoe-audit`` command line: a thin layer over the library.

Each command parses its options, calls one library function and prints. No SQL
and no rule logic here. Heavy imports (duckdb, polars, jinja) happen inside the
commands so that ``--help`` starts at once.
"""

from audit.cli.app import app, main

__all__ = ["app", "main"]
