"""The hands' findings the books name (accounting.md "How many findings").

An ``ACCT_WIN_MISMATCH`` names the ``PAY_`` and ``LOG_SEQ_GAP`` findings of its session's
hands; the reconciliation is pure, so ``run``'s books step reads them here, after the
shoes' findings are stored, and passes them in.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from audit.books.model import HandsFinding

if TYPE_CHECKING:
    from audit.store.store import Store

_HANDS_FINDINGS_SQL = """
WITH f AS (
  SELECT id, code, table_id, shoe, round, events FROM findings
  WHERE starts_with(code, 'PAY_') AND table_id IN (SELECT unnest($1::VARCHAR[]))
  UNION ALL
  SELECT id, code, table_id, shoe, round, events FROM log_findings
  WHERE code = 'LOG_SEQ_GAP' AND table_id IN (SELECT unnest($1::VARCHAR[]))
), opened AS (
  SELECT e.table_id, e.shoe, e.round, min(e.ts) AS ts FROM events e
  SEMI JOIN f ON f.table_id = e.table_id AND f.shoe = e.shoe AND f.round = e.round
  WHERE e.type = 'round_open' GROUP BY ALL
), first_event AS (
  SELECT f.id, min(e.ts) AS ts FROM f JOIN events e
    ON e.table_id = f.table_id AND e.id = f.events[1]
  GROUP BY f.id
)
SELECT f.id, f.code, f.table_id, f.shoe, f.round, COALESCE(o.ts, x.ts) AS ts
FROM f LEFT JOIN opened o USING (table_id, shoe, round)
LEFT JOIN first_event x ON x.id = f.id
WHERE COALESCE(o.ts, x.ts) IS NOT NULL
ORDER BY ts, f.table_id, f.code, f.id
"""


def hands_findings(store: Store, tables: Collection[str]) -> list[HandsFinding]:
    """The stored ``PAY_`` and ``LOG_SEQ_GAP`` findings of ``tables``, each at its round's
    ``round_open`` time (else its first event's), in time order."""
    if not tables:
        return []
    rows = store.con.execute(_HANDS_FINDINGS_SQL, [sorted(tables)]).fetchall()
    return [
        HandsFinding(id=i, code=c, table=t, shoe=s, round=r, ts=ts) for i, c, t, s, r, ts in rows
    ]
