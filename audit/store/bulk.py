"""Writing many rows in one statement: a reconciliation replaces thousands of periods at
once, and DuckDB's ``executemany`` runs one statement per row (milliseconds each)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from decimal import Decimal
from itertools import count
from typing import Any

_names = count()


def money_text(value: Decimal | None) -> str | None:
    """A money value as exact decimal text for a ``CAST(... AS DECIMAL)`` (never ``1E+2``)."""
    return None if value is None else format(value, "f")


def delete_table_days(con: Any, table: str, keys: Sequence[tuple[str, dt.date]]) -> None:
    """Delete ``table``'s rows whose ``(table_id, gaming_day)`` is one of ``keys``, in one
    statement (inside the caller's transaction)."""
    if not keys:
        return
    con.execute(
        f"""DELETE FROM {table} USING (
              SELECT unnest($tables::VARCHAR[]) AS t, unnest($days::DATE[]) AS d) k
            WHERE {table}.table_id = k.t AND {table}.gaming_day = k.d""",
        {"tables": [k[0] for k in keys], "days": [k[1] for k in keys]},
    )


def insert_columns(
    con: Any,
    table: str,
    columns: Mapping[str, Sequence[Any]],
    *,
    select: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
) -> None:
    """Insert the rows given column by column (``columns``: name to values, as Arrow reads
    them) into ``table`` in one statement; ``select`` gives a column's SQL over the
    registered rows where it is not the value itself (a cast, a parameter)."""
    import pyarrow as pa

    rows = pa.table(dict(columns))
    if rows.num_rows == 0:
        return
    select = select or {}
    view = f"_bulk_rows_{next(_names)}"
    targets = list(dict.fromkeys([*columns, *select]))
    exprs = ", ".join(select.get(c, f'"{c}"') for c in targets)
    con.register(view, rows)
    try:
        con.execute(
            f"INSERT INTO {table} ({', '.join(targets)}) SELECT {exprs} FROM {view}",
            dict(params) if params else None,
        )
    finally:
        con.unregister(view)
