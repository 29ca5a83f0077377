"""A table named as a user types it: ``--table t03`` finds ``T03`` (issue 30)."""

from __future__ import annotations

from audit.errors import AuditError
from audit.store.store import Store


def table_ids(store: Store) -> list[str]:
    """Every table the database has shoes of, in order."""
    rows = store.con.execute("SELECT DISTINCT table_id FROM shoes ORDER BY 1").fetchall()
    return [t for (t,) in rows]


def resolve_table(store: Store, name: str) -> str:
    """The table id ``name`` means: itself when the database has it, else the one table
    that matches it ignoring case; otherwise an error naming the tables there are."""
    tables = table_ids(store)
    if name in tables:
        return name
    matches = [t for t in tables if t.casefold() == name.casefold()]
    if len(matches) == 1:
        return matches[0]
    there = ", ".join(tables) if tables else "none"
    if matches:
        raise AuditError(f"table {name!r} matches {', '.join(matches)}: give one exactly")
    raise AuditError(f"no table {name!r} in the database (tables: {there})")
