"""``run`` sees a side bet's ``kind`` and a shoe's ``side_limits`` (TEL/1 v1.2, games.md §2).

A side bet reaches the engine on every path that builds its events: from a model
(``round_event``), from ``run``'s Arrow batches and from a hand page's scan, each from a
real DuckDB file. A v1.1 ``bet`` (no ``kind``) reads as the main stake it always was.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from audit.engine.event import RoundEvent, round_event
from audit.events.models import ShoeOpen, SideLimit
from audit.ingest import ingest_paths
from audit.store import ShoeKey, Store, open_store
from audit.store.batches import (
    Paged,
    decode_batch,
    decode_page_batch,
    shoe_events_apart,
    stream_shoe_batches,
)
from tests.batch.test_decode_types import assert_declared_types

KEY = ShoeKey("T12", "T12-20261205-02")
_ENV = '"table":"T12","shoe":"T12-20261205-02"'
LINES = [
    '{"id":"T12-1","seq":1,"ts":"2026-12-05T21:00:00-08:00",' + _ENV + ',"type":"shoe_open",'
    '"profile":"it-casino-6d","decks":6,"dealer":"D7","side_limits":'
    '{"21plus3":{"min_bet":1,"max_bet":100},"buster":{"max_bet":25.5}}}',
    '{"id":"T12-2","seq":2,"ts":"2026-12-05T21:00:01-08:00",' + _ENV + ',"round":1,'
    '"type":"round_open"}',
    '{"id":"T12-3","seq":3,"ts":"2026-12-05T21:00:02-08:00",' + _ENV + ',"round":1,"type":"bet",'
    '"box":2,"spot":0,"amount":25}',
    '{"id":"T12-4","seq":4,"ts":"2026-12-05T21:00:03-08:00",' + _ENV + ',"round":1,"type":"bet",'
    '"box":2,"spot":0,"kind":"21plus3","amount":5}',
    '{"id":"T12-5","seq":5,"ts":"2026-12-05T21:00:04-08:00",' + _ENV + ',"round":1,'
    '"type":"settle","box":2,"hand":0,"spot":0,"kind":"21plus3","amount":45}',
]
LIMITS = {
    "21plus3": SideLimit(min_bet=Decimal(1), max_bet=Decimal(100)),
    "buster": SideLimit(min_bet=None, max_bet=Decimal("25.5")),
}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    log = tmp_path / "T12.jsonl"
    log.write_text("".join(x + "\n" for x in LINES), encoding="utf-8")
    store = open_store(tmp_path / "audit.duckdb")
    assert ingest_paths(store, [log]).rejected == 0
    return store


def _seen(events: list[Any]) -> tuple[Any, list[tuple[str, str | None]]]:
    assert assert_declared_types(events) == 4
    [opened] = [e for e in events if isinstance(e, ShoeOpen)]
    words = [(e.id, e.word) for e in events if isinstance(e, RoundEvent) and e.type != "round_open"]
    return opened.side_limits, words


WANTED = [("T12-3", None), ("T12-4", "21plus3"), ("T12-5", "21plus3")]


def test_a_side_bet_from_a_stored_model_games_2(store: Store) -> None:
    with store:
        models = store.load_shoe_events([KEY])[KEY]
    assert [json.loads(m.model_dump_json()).get("kind") for m in models if m.type == "bet"] == [
        None,
        "21plus3",
    ]
    assert _seen([round_event(e) for e in models]) == (LIMITS, WANTED)


def test_a_side_bet_from_runs_arrow_batches_games_2(store: Store) -> None:
    with store:
        batches = list(stream_shoe_batches(store, [KEY], 10**6))
    [(key, events)] = [x for b in batches for x in decode_batch(b)]
    assert key == KEY and _seen(events) == (LIMITS, WANTED)


def test_a_side_bet_from_a_page_scan_games_2(store: Store) -> None:
    with store:
        batches = list(stream_shoe_batches(store, [KEY], 10**6, pages={KEY: Paged([1], 5)}))
    [page] = [x for b in batches for x in decode_page_batch(b)]
    assert _seen(page.events) == (LIMITS, WANTED)


def test_a_side_bet_from_a_parquet_source_games_2(store: Store, tmp_path: Path) -> None:
    from audit.store.parquet import export_parquet, read_source_batch, recorded_partitions

    out = tmp_path / "export"
    with store:
        export_parquet(store, out)
        files = [f for r in recorded_partitions(store).values() for f in r.files]
        digest = store.shoe_info([KEY])[KEY].events_digest
    [(key, events)] = decode_batch(
        shoe_events_apart(read_source_batch(str(out), files, [(KEY, digest)]))
    )
    assert key == KEY and _seen(events) == (LIMITS, WANTED)
