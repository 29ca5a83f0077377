"""Cross-shoe facts a shoe's replay needs (:class:`audit.engine.ShoeContext`).

Two rules look beyond one shoe: card inspection when new decks are unwrapped
(001; house default in rules.md: the first shoe a table deals in a gaming day)
and the home banker's rotation (002; one round per shoe, so a banker's stint
spans shoes). Both are computed here from a light outline of the table's
events, so any shoe can be audited on its own, in any batch and any order.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from audit.engine import ShoeContext
from audit.store import ShoeKey, Store


@dataclass(frozen=True, slots=True)
class OutlineRow:
    """One event of a table that matters across shoes, in ``seq`` order.

    ``rounds_before``: the ``round_open`` events between the previous row and this one,
    where the outline carries them as a count (as read from the database: a table's
    round opens are most of its outline) instead of as rows of their own.
    """

    shoe: str
    seq: int
    type: str  # shoe_open | dealer_change | round_open
    dealer: str | None
    gaming_day: dt.date | None
    rounds_before: int = 0


def table_contexts(table: str, outline: Sequence[OutlineRow]) -> dict[ShoeKey, ShoeContext]:
    """The :class:`ShoeContext` of every shoe of one table, from its ordered outline.

    Implements the cross-shoe parts of ``inspection_required`` (001: inspection
    before the first shoe of the table's gaming day) and ``banker_max_rounds``
    (002: the bank passes after a set number of deals). The banker is the
    shoe's ``dealer`` or the latest ``dealer_change``; a stint goes on across
    shoes while the same person holds the bank and counts ``round_open`` events.
    """
    contexts: dict[ShoeKey, ShoeContext] = {}
    banker: str | None = None
    streak = 0
    days_seen: set[dt.date | None] = set()
    for row in outline:
        streak += row.rounds_before
        if row.type == "shoe_open":
            key = ShoeKey(table, row.shoe)
            if key not in contexts:
                contexts[key] = ShoeContext(
                    first_shoe_of_gaming_day=row.gaming_day not in days_seen,
                    banker=banker,
                    banker_rounds_before=streak,
                )
                days_seen.add(row.gaming_day)
            if row.dealer != banker:
                banker, streak = row.dealer, 0
        elif row.type == "dealer_change":
            if row.dealer != banker:
                banker, streak = row.dealer, 0
        elif row.type == "round_open":
            streak += 1
    return contexts


OutlineTuple = tuple[str, str, int, str, str | None, dt.date | None, int]
"""``(table, shoe, seq, type, dealer, gaming_day, rounds_before)``: a row of the outline SQL."""


def group_outline(rows: Iterable[OutlineTuple]) -> dict[str, list[OutlineRow]]:
    """Group outline rows by table, in ``seq`` order (a stable sort: rows of one ``seq``
    keep the order the outline's count of round opens was made in)."""
    out: dict[str, list[OutlineRow]] = {}
    for table, shoe, seq, etype, dealer, day, rounds in rows:
        out.setdefault(table, []).append(OutlineRow(shoe, seq, etype, dealer, day, rounds))
    for rows_ in out.values():
        rows_.sort(key=lambda r: r.seq)
    return out


_OUTLINE_SQL = """
SELECT o.table_id, o.shoe, o.seq, o.type, o.dealer, s.gaming_day, o.rounds
FROM (
  SELECT table_id, shoe, seq, type, dealer, file_id, line_no,
         sum((type = 'round_open')::BIGINT) OVER (
           PARTITION BY table_id ORDER BY seq, file_id, line_no ROWS UNBOUNDED PRECEDING
         ) AS rounds
  FROM events
  WHERE type IN ('shoe_open', 'dealer_change', 'round_open')
    AND table_id IN (SELECT unnest(?::VARCHAR[]))
) o
LEFT JOIN shoes s ON s.table_id = o.table_id AND s.shoe = o.shoe
WHERE o.type <> 'round_open'
ORDER BY o.table_id, o.seq, o.file_id, o.line_no"""
"""A table's outline with its round opens counted, not listed: each shoe open and dealer
change with the round opens up to it (``rounds``; :func:`_counted` makes that the count
since the row before). A table's round opens were ~3/4 of its outline, each a row read
into Python: :func:`store_run_contexts` took 3.3 s on a month of 1,000,000 rounds. Rows
of one ``seq`` (a log that breaks its order) go in the order they were logged."""


def _counted(rows: Iterable[tuple[Any, ...]]) -> Iterator[OutlineTuple]:
    """The outline SQL's rows with ``rounds`` as the round opens since the table's row
    before (:attr:`OutlineRow.rounds_before`)."""
    table, before = None, 0
    for t, shoe, seq, etype, dealer, day, rounds in rows:
        if t != table:
            table, before = t, 0
        yield t, shoe, seq, etype, dealer, day, rounds - before
        before = rounds


def outline_rows(store: Store, tables: Sequence[str]) -> list[OutlineTuple]:
    """The cross-shoe outline of ``tables``: shoe opens and dealer changes, each with the
    round opens before it (``_OUTLINE_SQL``), in order."""
    if not tables:
        return []
    return list(_counted(store.con.execute(_OUTLINE_SQL, [list(tables)]).fetchall()))


RUN_CONTEXTS = "_run_contexts"
"""The temp table of :func:`store_run_contexts`: each shoe's :class:`ShoeContext` fields."""


def store_run_contexts(store: Store, tables: Sequence[str]) -> None:
    """The :class:`ShoeContext` of every shoe of ``tables`` into ``_run_contexts``.

    One read of the tables' outline, in (table, seq) order, taken a table at a
    time (:func:`table_contexts`), so that only one table's outline is in
    Python at once.
    """
    import pyarrow as pa

    con = store.con
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE {RUN_CONTEXTS} (table_id VARCHAR, shoe VARCHAR,
              first_shoe_of_gaming_day BOOLEAN, banker VARCHAR, banker_rounds_before BIGINT)"""
    )
    cur = con.cursor()

    def flush(table: str, outline: list[OutlineRow]) -> None:
        contexts = table_contexts(table, outline)
        rows = pa.table(
            {
                "table_id": [k.table for k in contexts],
                "shoe": [k.shoe for k in contexts],
                "first": [c.first_shoe_of_gaming_day for c in contexts.values()],
                "banker": pa.array([c.banker for c in contexts.values()], pa.string()),
                "before": pa.array([c.banker_rounds_before for c in contexts.values()], pa.int64()),
            }
        )
        con.from_arrow(rows).insert_into(RUN_CONTEXTS)

    try:
        if not tables:
            return
        cur.execute(_OUTLINE_SQL, [list(tables)])
        table: str | None = None
        outline: list[OutlineRow] = []

        def chunks() -> Iterator[tuple[Any, ...]]:
            while chunk := cur.fetchmany(50_000):
                yield from chunk

        for t, shoe, seq, etype, dealer, day, rounds in _counted(chunks()):
            if t != table:
                if table is not None:
                    flush(table, outline)
                table, outline = t, []
            outline.append(OutlineRow(shoe, seq, etype, dealer, day, rounds))
        if table is not None:
            flush(table, outline)
    finally:
        cur.close()


def run_meta_rows(
    store: Store, keys: Sequence[ShoeKey]
) -> list[tuple[str | None, str | None, tuple[bool, str | None, int] | None]]:
    """Per key, in order: its profile and events digest (``shoes``) and its context
    fields (``_run_contexts``), each None where the shoe has none."""
    rows = store.con.execute(
        f"""SELECT s.profile, s.events_digest, c.first_shoe_of_gaming_day, c.banker,
                   c.banker_rounds_before, c.table_id IS NOT NULL
            FROM (SELECT unnest(?) AS table_id, unnest(?) AS shoe, unnest(?) AS i) k
            LEFT JOIN shoes s USING (table_id, shoe)
            LEFT JOIN {RUN_CONTEXTS} c USING (table_id, shoe)
            ORDER BY k.i""",
        [[k.table for k in keys], [k.shoe for k in keys], list(range(len(keys)))],
    ).fetchall()
    return [(p, d, (f, b, int(n)) if has else None) for p, d, f, b, n, has in rows]
