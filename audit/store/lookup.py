"""Who and where, as people type them: tables by a loose id, players among the ids.

- :func:`resolve_table`: ``--table t01`` means ``T01`` when that is the one table it can
  mean; otherwise the error names the tables there are (issue 30, point 2).
- :func:`players_among`: which of some ids name a player (a ``bet`` carries its player).
  A home-game banker is a player dealing his turn: his id, shown as a dealer, is masked
  as any player's is (issue 30, point 8).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from audit.errors import NotFoundError

if TYPE_CHECKING:
    from audit.store import Store


def table_ids(store: Store) -> list[str]:
    """Every table that has a shoe in the database, sorted."""
    rows = store.con.execute("SELECT DISTINCT table_id FROM shoes ORDER BY table_id").fetchall()
    return [r[0] for r in rows]


def resolve_table(store: Store, given: str) -> str:
    """The table ``given`` names: itself when stored, else the one table whose id matches
    it with case ignored (``t01`` -> ``T01``).

    Raises :class:`NotFoundError` (exit 1) naming the tables there are when no table
    matches, or more than one does (``ta`` with ``TA`` and ``Ta`` stored).
    """
    tables = table_ids(store)
    if given in tables:
        return given
    matches = [t for t in tables if t.casefold() == given.casefold()]
    if len(matches) == 1:
        return matches[0]
    listed = ", ".join(tables) if tables else "none"
    if matches:
        raise NotFoundError(f"table {given!r} could be {', '.join(matches)}; tables: {listed}")
    raise NotFoundError(f"no table {given!r} in the database; tables: {listed}")


def players_among(con: Any, ids: Iterable[str | None]) -> set[str]:
    """The ids of ``ids`` that some ``bet`` names as its player (``con``: the store's)."""
    wanted = sorted({i for i in ids if i is not None})
    if not wanted:
        return set()
    rows = con.execute(
        """SELECT DISTINCT player FROM events
           WHERE type = 'bet' AND player IN (SELECT unnest(?::VARCHAR[]))""",
        [wanted],
    ).fetchall()
    return {r[0] for r in rows}


def player_dealers(con: Any) -> set[str]:
    """Every dealer id (of a ``shoe_open`` or ``dealer_change``) that some ``bet`` names as
    its player: the home-game bankers, whose ids are masked as players' are."""
    rows = con.execute(
        """SELECT DISTINCT d.dealer FROM events d
           WHERE d.type IN ('shoe_open', 'dealer_change') AND d.dealer IN (
             SELECT b.player FROM events b WHERE b.type = 'bet' AND b.player IS NOT NULL)"""
    ).fetchall()
    return {r[0] for r in rows}


def players_of_rounds(
    con: Any, rounds: Iterable[tuple[str | None, str | None, int | None]]
) -> set[str]:
    """Every player a ``bet`` names in the rounds ``(table, shoe, round)`` (a finding's
    message may name the players of its round, as a bet's description does)."""
    keys = sorted({(t, s, r) for t, s, r in rounds if t and s and r is not None})
    if not keys:
        return set()
    rows = con.execute(
        """WITH k AS (SELECT unnest(?::VARCHAR[]) AS table_id, unnest(?::VARCHAR[]) AS shoe,
                             unnest(?::BIGINT[]) AS round)
           SELECT DISTINCT b.player FROM events b JOIN k USING (table_id, shoe, round)
           WHERE b.type = 'bet' AND b.player IS NOT NULL""",
        [[k[0] for k in keys], [k[1] for k in keys], [k[2] for k in keys]],
    ).fetchall()
    return {r[0] for r in rows}
