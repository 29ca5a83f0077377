"""What the database holds, for ``shoe-audit status`` (cli.md).

Gaming days, tables, shoes (audited, not yet audited, out of date, still open),
rounds, findings by severity, the last ingest and run, and the engine
versions the shoes were audited with. Read-only; one query per figure.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from audit.findings import Severity
from audit.store.batches import failed_shoes
from audit.store.store import Store


@dataclass(slots=True)
class DatabaseStatus:
    """The figures ``status`` prints (``to_dict`` is its ``--json``)."""

    path: str
    schema_version: int
    gaming_days: list[dt.date] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    files: int = 0
    events: int = 0
    quarantined: int = 0
    shoes: int = 0
    shoes_audited: int = 0
    """Audited, and nothing changed since (events, engine, profile)."""
    shoes_not_audited: int = 0
    """Never audited."""
    shoes_out_of_date: int = 0
    """Audited, but its events, the engine or its profile changed since: ``run`` redoes it."""
    shoes_open: int = 0
    """No ``shoe_close`` stored yet (the shoe may still be in play, or its log not in yet)."""
    rounds: int = 0
    """Rounds stored (distinct round numbers per shoe)."""
    rounds_audited: int = 0
    """Rounds ``run`` stored an outcome for (the ``rounds`` table)."""
    findings: dict[str, int] = field(default_factory=dict)
    """Findings by severity, ingest (``LOG_*``) and replay together, every severity listed."""
    last_ingest: dt.datetime | None = None
    last_run: dt.datetime | None = None
    engine_version: str = ""
    """The engine of this program."""
    audited_with: dict[str, int] = field(default_factory=dict)
    """Shoes by the engine version that audited them."""
    failed: list[dict[str, Any]] = field(default_factory=list)
    """The shoes whose last replay failed (counted as not audited): ``table``, ``shoe``,
    ``error``, ``failed_at``, and ``kept_audit``, when the earlier audit whose results
    they keep was made (None: none)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "database": self.path,
            "schema_version": self.schema_version,
            "gaming_days": [d.isoformat() for d in self.gaming_days],
            "tables": self.tables,
            "files": self.files,
            "events": self.events,
            "quarantined": self.quarantined,
            "shoes": {
                "total": self.shoes,
                "audited": self.shoes_audited,
                "not_audited": self.shoes_not_audited,
                "out_of_date": self.shoes_out_of_date,
                "open": self.shoes_open,
                "failed": len(self.failed),
            },
            "rounds": {"total": self.rounds, "audited": self.rounds_audited},
            "findings": self.findings,
            "last_ingest": self.last_ingest.isoformat() if self.last_ingest else None,
            "last_run": self.last_run.isoformat() if self.last_run else None,
            "engine_version": self.engine_version,
            "audited_with": self.audited_with,
            "failed": self.failed,
        }


def _one(store: Store, sql: str, params: list[Any] | None = None) -> Any:
    return store.con.execute(sql, params or []).fetchall()[0][0]


def database_status(
    store: Store, engine_version: str, profile_digests: dict[str, str]
) -> DatabaseStatus:
    """The figures of ``store``; ``engine_version`` and ``profile_digests`` say what is current."""
    con = store.con
    status = DatabaseStatus(store.path, int(store.meta("schema_version") or 0))
    status.engine_version = engine_version
    status.gaming_days = [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT gaming_day FROM shoes WHERE gaming_day IS NOT NULL ORDER BY 1"
        ).fetchall()
    ]
    status.tables = [
        r[0] for r in con.execute("SELECT DISTINCT table_id FROM shoes ORDER BY 1").fetchall()
    ]
    status.files = _one(store, "SELECT count(*) FROM input_files")
    status.events = _one(store, "SELECT count(*) FROM events")
    status.quarantined = _one(store, "SELECT count(*) FROM quarantine")
    status.shoes = _one(store, "SELECT count(*) FROM shoes")
    status.failed = [
        {
            "table": f.key.table,
            "shoe": f.key.shoe,
            "error": f.error,
            "failed_at": at.isoformat(),
            "kept_audit": kept.isoformat() if kept is not None else None,
        }
        for f, at, kept in failed_shoes(con)
    ]
    # A failed shoe counts as not audited, also one that keeps an earlier audit's results.
    status.shoes_not_audited = _one(
        store, "SELECT count(*) FROM shoes s ANTI JOIN shoe_audits a USING (table_id, shoe)"
    ) + sum(f["kept_audit"] is not None for f in status.failed)
    pending = len(store.shoes_to_audit(engine_version, profile_digests))
    status.shoes_out_of_date = pending - status.shoes_not_audited
    status.shoes_audited = status.shoes - pending
    status.shoes_open = _one(
        store,
        """SELECT count(*) FROM shoes s ANTI JOIN
           (SELECT DISTINCT table_id, shoe FROM events WHERE type = 'shoe_close') c
           USING (table_id, shoe)""",
    )
    status.rounds = _one(
        store,
        "SELECT count(*) FROM (SELECT DISTINCT table_id, shoe, round FROM events "
        "WHERE round IS NOT NULL)",
    )
    status.rounds_audited = _one(store, "SELECT count(*) FROM rounds")  # stored outcomes
    # all_findings is the one definition of what a finding is (quarantined lines
    # included, with their severities); a database holds thousands, not millions.
    counts = Counter(str(f.severity) for f in store.all_findings())
    status.findings = {str(s): int(counts.get(str(s), 0)) for s in Severity}
    status.last_ingest = _one(store, "SELECT max(last_ingested_at) FROM input_files")
    status.last_run = _one(store, "SELECT max(audited_at) FROM shoe_audits")
    status.audited_with = dict(
        con.execute(
            "SELECT engine_version, count(*) FROM shoe_audits GROUP BY 1 ORDER BY 1"
        ).fetchall()
    )
    return status
