"""A stand-in for ``run`` storing its outcome rows, until the lead's ``rounds``/``wagers`` land.

The engine already builds the rows (:func:`audit.engine.replay.audit_shoe`);
this writes them into ``rounds`` and ``wagers`` tables of the column names and
types the outcome tables will have (schema version 3), beside a real ingest.
Swap for ``run`` once it stores them.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from audit.batch.runner import profile_for, run_audit, shoe_contexts
from audit.engine import ShoeContext
from audit.engine.replay import audit_shoe
from audit.ingest import ingest_paths
from audit.profiles import ProfileRegistry, load_registry
from audit.store import Store, open_store

ROUNDS_DDL = """
CREATE TABLE IF NOT EXISTS rounds (
    table_id VARCHAR, shoe VARCHAR, round BIGINT, gaming_day DATE, profile_id VARCHAR,
    status VARCHAR, dealer VARCHAR, opened_at TIMESTAMPTZ, first_seq BIGINT, last_seq BIGINT,
    boxes INTEGER, wagers INTEGER, handle DECIMAL(18,2), due DECIMAL(18,2),
    settled DECIMAL(18,2), dealer_upcard VARCHAR, dealer_cards VARCHAR[],
    dealer_total INTEGER, dealer_natural BOOLEAN, dealer_bust BOOLEAN,
    dealer_completed BOOLEAN, ranks_before_round INTEGER[10], unseen_before_round INTEGER,
    ranks_before_dealer INTEGER[10], unseen_before_dealer INTEGER, findings INTEGER,
    worst_severity VARCHAR, impact DECIMAL(18,2),
    PRIMARY KEY (table_id, shoe, round)
);
CREATE TABLE IF NOT EXISTS wagers (
    table_id VARCHAR, shoe VARCHAR, round BIGINT, box BIGINT, hand BIGINT, spot BIGINT,
    kind VARCHAR, player VARCHAR, stake DECIMAL(18,2), base_stake DECIMAL(18,2),
    due DECIMAL(18,2), settled DECIMAL(18,2), settles INTEGER, verdict VARCHAR,
    outcome VARCHAR, cards VARCHAR[], total INTEGER, "natural" BOOLEAN, bust BOOLEAN,
    doubled BOOLEAN, from_split BOOLEAN, surrendered BOOLEAN
);
"""


def _cents(v: int | None) -> Decimal | None:
    return None if v is None else Decimal(v) / 100


def _units(v: int | None) -> Decimal | None:
    return None if v is None else (Decimal(v) / 10_000).quantize(Decimal("0.01"))


def store_outcomes(store: Store, registry: ProfileRegistry | None = None) -> int:
    """Replay every stored shoe and write its ``rounds`` and ``wagers`` rows; the rounds."""
    registry = registry or load_registry()
    store.con.execute(ROUNDS_DDL)
    infos = store.shoe_info()
    contexts = shoe_contexts(store, list(infos))
    events = store.load_shoe_events(list(infos))
    rounds: list[tuple[Any, ...]] = []
    wagers: list[tuple[Any, ...]] = []
    for key, info in infos.items():
        profile = profile_for(registry, info.profile)
        context = contexts.get(key, ShoeContext())
        out = audit_shoe(key.table, key.shoe, events[key], profile, context)
        for r in out.rounds:
            rounds.append(
                (r.table_id, r.shoe, r.round, info.gaming_day, info.profile, r.status, r.dealer,
                 None, r.first_seq, r.last_seq, r.boxes, r.wagers, _cents(r.handle),
                 _units(r.due), _cents(r.settled), r.dealer_upcard, r.dealer_cards,
                 r.dealer_total, r.dealer_natural, r.dealer_bust, r.dealer_completed,
                 r.ranks_before_round, r.unseen_before_round, r.ranks_before_dealer,
                 r.unseen_before_dealer, r.findings, r.worst_severity, _units(r.impact))
            )  # fmt: skip
        for w in out.wagers:
            wagers.append(
                (w.table_id, w.shoe, w.round, w.box, w.hand, w.spot, w.kind, w.player,
                 _cents(w.stake), _cents(w.base_stake), _units(w.due), _cents(w.settled),
                 w.settles, w.verdict, w.outcome, w.cards, w.total, w.natural, w.bust,
                 w.doubled, w.from_split, w.surrendered)
            )  # fmt: skip
    import polars as pl

    with store.transaction() as con:
        con.execute("DELETE FROM rounds")
        con.execute("DELETE FROM wagers")
        for name, rows in (("rounds", rounds), ("wagers", wagers)):
            if not rows:
                continue
            cols = [c[0] for c in con.execute(f"DESCRIBE {name}").fetchall()]
            frame = pl.DataFrame(rows, schema=cols, orient="row", infer_schema_length=None)
            con.register("_rows", frame.to_arrow())
            con.execute(f"INSERT INTO {name} SELECT * FROM _rows")
            con.unregister("_rows")
    return len(rounds)


def audited_db(logs: Path, db: Path) -> Path:
    """Ingest ``logs`` into a fresh ``db``, ``run`` it, and store the outcome rows of every shoe."""
    registry = load_registry()
    with open_store(db) as store:
        ingest_paths(store, [logs])
        run_audit(store, registry, workers=1)
        store_outcomes(store, registry)
    return db
