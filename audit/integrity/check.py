"""Checking the stored evidence against the ledger (issue 14, point 15; rules.md ``LOG_TAMPERED``).

Two depths:

* :func:`check_head` and :func:`check_shoes` are what ``run`` and ``report``
  do before they read (cheap): the ledger table's chain is recomputed and its
  head compared with the last commit marker of the ledger file (HMAC-checked
  with the key); the shoes about to be read have their events' count and
  typed fingerprint compared with what their ingest records say, and their
  findings and audit rows with the last ``audit`` record. An ``UPDATE`` of
  ``amount`` or a ``DELETE`` of a finding is caught here;
* :func:`audit.integrity.verify.verify` recomputes everything (``verify``).

Every difference becomes a critical ``LOG_TAMPERED`` finding.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.findings import Code, Finding
from audit.store import ShoeKey, Store
from audit.store.evidence import (
    IngestDifference,
    audit_entries,
    changed_audits,
    ingest_differences,
)
from audit.store.ledger import Record, db_chain, key_from_env, ledger_path, read_tail
from audit.wording import counted


@dataclass(frozen=True, slots=True)
class Difference:
    """One thing that no longer matches the ledger: where (a table or file) and what."""

    where: str
    message: str
    table: str | None = None
    shoe: str | None = None
    round: int | None = None
    events: tuple[str, ...] = ()

    def __str__(self) -> str:
        place = f" {self.table}/{self.shoe}" if self.table and self.shoe else ""
        return f"{self.where}{place}: {self.message}"

    def finding(self) -> Finding:
        return Finding(
            Code.LOG_TAMPERED,
            str(self),
            table=self.table,
            shoe=self.shoe,
            round=self.round,
            events=self.events,
        )


@dataclass(frozen=True, slots=True)
class Head:
    """The last record of the ledger: what a report was made from."""

    no: int
    hash: str
    sealed: bool
    """Whether the ledger file's lines were checked against ``SHOE_AUDIT_KEY``."""

    def __str__(self) -> str:
        seal = "HMAC checked" if self.sealed else "no key given: HMAC not checked"
        return f"record {self.no}, sha256 {self.hash} ({seal})"


@dataclass(slots=True)
class Integrity:
    """What a check found."""

    head: Head | None = None
    differences: list[Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checked_shoes: int = 0

    @property
    def intact(self) -> bool:
        return not self.differences

    def findings(self) -> list[Finding]:
        return [d.finding() for d in self.differences]

    def tampered_shoes(self) -> list[ShoeKey]:
        """The shoes whose stored events differ from their ingest records (a plain ``run``
        audits them again, as ``run --all`` would)."""
        return sorted(
            {
                ShoeKey(d.table, d.shoe)
                for d in self.differences
                if d.where == "events" and d.table is not None and d.shoe is not None
            }
        )


NO_KEY_NOTE = "SHOE_AUDIT_KEY is not set: the ledger file's HMACs were not checked"
"""The note of a check made without the key (a report's first line already says so)."""


def chain_differences(db: Sequence[Record]) -> list[Difference]:
    """Records of the ledger table that do not follow from the ones before."""
    out = []
    prev = ""
    for i, r in enumerate(db, start=1):
        if r.no != i:
            out.append(Difference("ledger", f"record {i} is missing from the ledger table"))
            break
        if r.prev != prev or not r.intact():
            out.append(
                Difference("ledger", f"record {r.no} of the ledger table was changed ({r.kind})")
            )
        prev = r.hash
    return out


def check_head(store: Store, key: bytes | None = None) -> Integrity:
    """The ledger table's chain, and its head against the ledger file's last commit marker."""
    key = key if key is not None else key_from_env()
    out = Integrity()
    db = db_chain(store.con)
    out.differences += chain_differences(db)
    if db:
        out.head = Head(db[-1].no, db[-1].hash, key is not None)
    path = ledger_path(store.path)
    if path is None:
        out.notes.append("an in-memory database has no ledger file")
        return out
    tail = read_tail(path, key)
    if not tail.exists:
        out.differences += missing_ledger_file(path, db)
        return out
    out.differences += [Difference("ledger", p) for p in tail.problems]
    by_no = {r.no: r for r in db}
    if tail.marker is not None:
        no, h = tail.marker
        if no > len(db):
            out.differences.append(
                Difference(
                    "ledger",
                    f"records {len(db) + 1} to {no} were committed (ledger file) but are "
                    "missing from the database",
                )
            )
        elif by_no[no].hash != h:
            out.differences.append(
                Difference("ledger", f"record {no} differs from the ledger file's")
            )
    first = tail.marker[0] + 1 if tail.marker is not None else 1
    for r in db[first - 1 :]:
        if tail.after.get(r.no) != r.hash:
            out.differences.append(
                Difference("ledger", f"record {r.no} of the database is not in the ledger file")
            )
    if key is None:
        out.notes.append(NO_KEY_NOTE)
    return out


def check_shoes(
    store: Store, keys: Iterable[ShoeKey] | None = None, *, audits: bool = True
) -> list[Difference]:
    """The cheap content check of some shoes (all when None): events and findings.

    Events: per (ingest, shoe), the count and typed fingerprint against the
    ingest record (a fingerprint made by another DuckDB version is not
    compared: ``verify`` re-derives the typed rows instead). Findings and the
    audit row: against the shoe's last ``audit`` record.
    """
    wanted = None if keys is None else list(set(keys))
    con = store.con
    out: list[Difference] = []
    scope = _read_scope(con, wanted)
    keep = set(wanted) if scope is None and wanted is not None else None
    found = [
        d
        for d in ingest_differences(con, scope, _duckdb_version())
        if keep is None or ShoeKey(d.table, d.shoe) in keep
    ]
    for d in sorted(found, key=_order):
        table, shoe, ingest, n, rn = d.table, d.shoe, d.ingest, d.n, d.recorded_n
        if n is None:
            out.append(
                Difference(
                    "events", f"all {rn} events ingest {ingest} added were removed", table, shoe
                )
            )
        elif d.no is None:
            ids = _ids(con, ingest, table, shoe)
            out.append(
                Difference(
                    "events",
                    f"{counted(n, 'event')} no ingest added (ingest_id {ingest}): {_list(ids)}",
                    table,
                    shoe,
                    events=tuple(ids[:20]),
                )
            )
        elif n != rn:
            what = "removed" if n < (rn or 0) else "inserted"
            out.append(
                Difference(
                    "events",
                    f"{counted(abs((rn or 0) - n), 'event')} {what} after ingest {ingest} "
                    f"({rn} recorded, {n} stored)",
                    table,
                    shoe,
                )
            )
        else:
            out.append(
                Difference(
                    "events",
                    f"typed columns of events of ingest {ingest} changed since it "
                    "(run `shoe-audit verify` to name them)",
                    table,
                    shoe,
                )
            )
    if audits:
        out += audit_differences(store, wanted)
    return out


def _read_scope(con: Any, wanted: Sequence[ShoeKey] | None) -> Sequence[ShoeKey] | None:
    """The shoes to name in the evidence queries: None (read them all, and keep ``wanted``
    after) when ``wanted`` is half the database's shoes or more, where filtering the
    scans by tens of thousands of keys costs more than reading the rest (a report of a
    whole night: 1.2 of 5.4 s at 100,000 rounds)."""
    if wanted is None:
        return None
    total = con.execute("SELECT count(*) FROM shoes").fetchall()[0][0]
    return None if 2 * len(wanted) >= total else wanted


def audit_differences(
    store: Store,
    keys: Sequence[ShoeKey] | None,
    recorded: dict[ShoeKey, tuple[int, Any]] | None = None,
) -> list[Difference]:
    """Findings and ``shoe_audits`` rows against each shoe's last ``audit`` record.

    ``recorded`` gives those records (verify takes them from the ledger file);
    by default they come from the ledger table.
    """
    con = store.con
    scope = _read_scope(con, keys)
    if recorded is None:
        # the shoes plainly unchanged are told apart in SQL: only the others' entries are
        # built and compared in Python (6.5 of 7.3 CPU-s at 1,000,000 rounds, saved)
        changed, recorded = changed_audits(con, scope)
        now = audit_entries(con, sorted(changed)) if changed else {}
    else:
        now = audit_entries(con, scope)
    keep = set(keys) if scope is None and keys is not None else None
    out: list[Difference] = []
    # the shoes whose entry differs, sorted; all of them, sorted, cost 2 s at 1M rounds
    differ = (
        k
        for k in now.keys() | recorded.keys()
        if _audit_differs(now.get(k), recorded.get(k)) and (keep is None or k in keep)
    )
    for key in sorted(differ):
        have = now.get(key)
        rec = recorded.get(key)
        if rec is None:
            out.append(Difference("shoe_audits", "audit results no run wrote", key.table, key.shoe))
            continue
        no, (_, _, audit, findings) = rec
        if have is None:
            if audit or findings:
                out.append(
                    Difference(
                        "shoe_audits",
                        f"the audit row and findings of ledger record {no} were removed",
                        key.table,
                        key.shoe,
                    )
                )
            continue
        if have[0] != audit:
            out.append(
                Difference(
                    "shoe_audits",
                    f"the audit row differs from ledger record {no}",
                    key.table,
                    key.shoe,
                )
            )
        out += _finding_differences(key, no, [tuple(f) for f in findings], list(have[1]))
    return out


def _audit_differs(have: Any, rec: tuple[int, Any] | None) -> bool:
    """Whether :func:`audit_differences` has something to say of a shoe: its stored entry
    (audit fingerprint, findings) against its last ``audit`` record."""
    if rec is None:
        return True
    _, (_, _, audit, findings) = rec
    if have is None:
        return bool(audit or findings)
    return bool(have[0] != audit or [f[0] for f in findings] != [f[0] for f in have[1]])


def _finding_differences(
    key: ShoeKey, no: int, recorded: list[tuple[Any, ...]], stored: list[tuple[Any, ...]]
) -> list[Difference]:
    out = []
    left = list(stored)
    for f in recorded:
        match = next((s for s in left if s[0] == f[0]), None)
        if match is not None:
            left.remove(match)
            continue
        out.append(
            Difference(
                "findings",
                f"finding {f[1]} ({_place(f)}) of ledger record {no} was removed or changed",
                key.table,
                key.shoe,
                round=f[2],
            )
        )
    for s in left:
        out.append(
            Difference(
                "findings",
                f"finding {s[1]} ({_place(s)}) was not written by run",
                key.table,
                key.shoe,
                round=s[2],
            )
        )
    return out


def _place(f: tuple[Any, ...]) -> str:
    names = ("round", "box", "hand", "spot")
    parts = [f"{n} {v}" for n, v in zip(names, f[2:6], strict=False) if v is not None]
    return ", ".join(parts) or "the shoe"


def _order(d: IngestDifference) -> tuple[bool, str, str, int]:
    """Stored events first, then the entries whose events are all gone; each by shoe, then
    ingest (an event no ingest added has none)."""
    return (d.n is None, str(d.table), str(d.shoe), d.ingest if isinstance(d.ingest, int) else -1)


def _ids(con: Any, ingest: int | None, table: str, shoe: str) -> list[str]:
    rows = con.execute(
        """SELECT id FROM events WHERE ingest_id IS NOT DISTINCT FROM ? AND table_id = ?
           AND shoe IS NOT DISTINCT FROM ? ORDER BY seq, id""",
        [ingest, table, shoe],
    ).fetchall()
    return [r for (r,) in rows]


def _list(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:5])
    return shown + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def _duckdb_version() -> str:
    from audit.store.evidence import duckdb_version

    return duckdb_version()


def check_before(
    store: Store,
    keys: Iterable[ShoeKey] | None,
    *,
    record: bool,
    at: dt.datetime | None = None,
    sweep: bool = False,
) -> Integrity:
    """The cheap check ``run`` (``record=True``: its findings are stored) and ``report`` do.

    ``sweep``: the shoes of every table whose events no longer add up to their ingest
    records are checked too (one pass over the events, compared per table first:
    :func:`audit.store.evidence.tables_changed_since_ingest`), so a plain ``run`` that
    replays none of them still notices an ``UPDATE`` made since their audit.

    A database migrated to schema 4 first records what it holds (a ``baseline``);
    a read-only check of one that has not yet only checks the ledger's head.
    """
    from audit.store.ledger import ensure_baseline

    if record:
        ensure_baseline(store)
    out = check_head(store)
    # the shoes once each, in no order (sorting a night's 300,000 keys cost 0.6 s)
    shoes = None if keys is None else list(set(keys))
    if store.meta("ledger_baseline") == "needed":
        out.notes.append(
            "the database was migrated to schema 4 and has no ledger baseline yet "
            "(the next ingest or run records it): its contents were not checked"
        )
    else:
        if sweep and shoes is not None:
            from audit.store.evidence import shoes_of_tables, tables_changed_since_ingest

            changed = tables_changed_since_ingest(store.con, _duckdb_version())
            if changed:
                shoes = list(set(shoes) | set(shoes_of_tables(store.con, changed)))
        out.differences += check_shoes(store, shoes)
        out.checked_shoes = len(shoes) if shoes is not None else -1
    if record:
        from audit.store.integrity import replace_integrity_findings

        replace_integrity_findings(store, out.findings(), shoes, at or dt.datetime.now(dt.UTC))
    return out


def missing_ledger_file(path: Any, db: Sequence[Record]) -> list[Difference]:
    """The one difference of a ledger file that is gone while the database holds records."""
    if not db:
        return []
    return [Difference("ledger", f"the ledger file {str(path)!r} is missing ({len(db)} records)")]
