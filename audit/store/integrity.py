"""The ``LOG_TAMPERED`` findings of the last integrity check, in ``integrity_findings``.

``run`` checks the evidence before it reads (:mod:`audit.integrity.check`) and
stores what it found here: the ledger-wide differences replace the previous
ones, a shoe's differences replace those of the same shoe (a shoe not
checked again keeps what its last check found). :meth:`Store.all_findings`
lists them with the others.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from audit.findings import Finding
from audit.store.types import ShoeKey


def replace_integrity_findings(
    store: Any, findings: Sequence[Finding], shoes: Sequence[ShoeKey] | None, at: dt.datetime
) -> None:
    """Store one check's findings (``shoes``: the shoes it checked; None: all of them)."""
    with store.transaction() as con:
        con.execute("DELETE FROM integrity_findings WHERE table_id IS NULL OR shoe IS NULL")
        if shoes is None:
            con.execute("DELETE FROM integrity_findings")
        elif shoes:
            con.execute(
                """DELETE FROM integrity_findings
                   WHERE (table_id, shoe) IN (SELECT unnest(?), unnest(?))""",
                [[k.table for k in shoes], [k.shoe for k in shoes]],
            )
        rows = [
            (
                str(f.code),
                str(f.severity),
                f.table,
                f.shoe,
                f.round,
                f.box,
                f.hand,
                f.spot,
                f.expected,
                f.actual,
                f.impact,
                f.rule,
                list(f.events),
                f.source,
                f.message,
                i,
                at,
            )
            for i, f in enumerate(findings)
        ]
        if rows:
            con.executemany(
                """INSERT INTO integrity_findings
                     (code, severity, table_id, shoe, round, box, hand, spot, expected, actual,
                      impact, rule, events, source, message, ordinal, checked_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                rows,
            )
            con.execute(
                """UPDATE integrity_findings f SET gaming_day = s.gaming_day FROM shoes s
                   WHERE s.table_id = f.table_id AND s.shoe = f.shoe AND f.gaming_day IS NULL"""
            )


def tampered_without_day(store: Any) -> list[Finding]:
    """The stored ``LOG_TAMPERED`` findings that concern no one gaming day (the ledger's)."""
    return [
        f for f in store.all_findings(codes=["LOG_TAMPERED"]) if f.table is None or f.shoe is None
    ]
