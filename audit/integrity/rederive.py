"""Does each stored event's typed row still follow from its raw line? (issue 14, point 15)

The engine reads the typed columns; the ledger anchors the raw lines. An
``UPDATE events SET amount = ...`` leaves ``raw`` alone, so ``verify`` runs
every stored raw line through the same validator ingest used (the bulk
query, then :func:`audit.events.parse.parse_line` for the lines it does not
take) and compares what comes out with the stored row, column by column.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from audit.findings import money_str
from audit.integrity.check import Difference
from audit.store import Store
from audit.store.ledger import TYPED_COLUMNS

CHUNK = 100_000
"""Events re-derived at a time (bounded memory)."""


def rederive(store: Store) -> list[Difference]:
    """A difference per event whose typed row or raw line is not what ingest would store."""
    from audit.ingest.bulkstep import FileResult, Session
    from audit.ingest.summary import FileSummary

    con = store.con
    session = Session(con)
    out: list[Difference] = []
    cursor = con.cursor()  # the reader holds its connection while the session queries
    reader = cursor.sql(
        "SELECT rowid, table_id, shoe, id, raw FROM events ORDER BY rowid"
    ).to_arrow_reader(CHUNK)
    for batch in reader:
        rowids = batch.column(0).to_pylist()
        raws = batch.column(4).to_pylist()
        where = list(zip(batch.column(1).to_pylist(), batch.column(2).to_pylist(),
                         batch.column(3).to_pylist(), strict=True))  # fmt: skip
        # A raw line holding a newline was not a line as received: it cannot be re-read.
        lines = []
        for i, raw in enumerate(raws):
            if "\n" in raw:
                t, s, eid = where[i]
                out.append(
                    Difference(
                        "events", f"id {eid}: its raw line holds a line break", t, s, events=(eid,)
                    )
                )
                lines.append("")
            else:
                lines.append(raw)
        session.validate([(0, 1, "\n".join(lines).encode("utf-8"))])
        result = FileResult(FileSummary("verify"))
        session.recheck({0: result})
        for q in result.quarantined:
            t, s, eid = where[q.line_no - 1]
            out.append(
                Difference(
                    "events",
                    f"id {eid}: its raw line is no longer a valid event ({q.reason})",
                    t,
                    s,
                    events=(eid,),
                )
            )
        out += _compare(store, session.rest, rowids, where)
    cursor.close()
    return out


def _compare(
    store: Store, rest: Any, rowids: list[int], where: list[tuple[str, str, str]]
) -> list[Difference]:
    """The rows of ``rest`` (re-derived, by line number) that differ from the stored ones."""
    import pyarrow as pa

    if rest is None or rest.num_rows == 0:
        return []
    positions = [n - 1 for n in rest.column("line_no").to_pylist()]
    rest = rest.append_column("_rowid", pa.array([rowids[p] for p in positions], pa.int64()))
    differs = " OR ".join(f'e."{c}" IS DISTINCT FROM r."{c}"' for c in TYPED_COLUMNS)
    cols = ", ".join(f'e."{c}", r."{c}"' for c in TYPED_COLUMNS)
    rows = (
        store.con.from_arrow(rest)
        .query(
            "_re",
            f"SELECT r._rowid, {cols} FROM _re r JOIN events e ON e.rowid = r._rowid "
            f"WHERE {differs}",
        )
        .fetchall()
    )
    by_rowid = {rid: w for rid, w in zip(rowids, where, strict=True)}
    out = []
    for row in rows:
        table, shoe, eid = by_rowid[row[0]]
        changed = [
            f"{c} is {_show(row[1 + 2 * i])} in the table, {_show(row[2 + 2 * i])} by its raw line"
            for i, c in enumerate(TYPED_COLUMNS)
            if row[1 + 2 * i] != row[2 + 2 * i]
        ]
        out.append(
            Difference("events", f"id {eid}: " + "; ".join(changed), table, shoe, events=(eid,))
        )
    return out


def _show(value: Any) -> str:
    if isinstance(value, Decimal):
        return money_str(value) or "0"
    return repr(value)
