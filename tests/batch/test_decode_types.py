"""Every path that makes a ``RoundEvent`` gives it its declared field types (issue 28, pt 1).

The compiled engine (mypyc) checks a ``NamedTuple`` field's declared type where it
reads it: a ``spots`` that arrived as Arrow's ``list`` instead of a ``tuple`` raised
``TypeError`` for the whole ``run`` on every night where a back bettor's ``spots``
was written. Each construction path is checked here field by field, and its events
are replayed by the compiled engine: from a model (``round_event``), from ``run``'s
Arrow batches (``decode_batch``), from a hand-page scan (``decode_page_batch``), and
from a Parquet ``--source`` (``read_source_batch``).
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from audit.engine import ShoeContext, audit_shoe
from audit.engine.event import RoundEvent, round_event
from audit.ingest import ingest_paths
from audit.profiles import load_registry
from audit.store import ShoeKey, Store, open_store
from audit.store.batches import (
    Paged,
    decode_batch,
    decode_page_batch,
    shoe_events_apart,
    stream_shoe_batches,
)

WORKED = Path(__file__).resolve().parents[1] / "data" / "worked_example.jsonl"
KEY = ShoeKey("T07", "T07-20261128-01")


def _declared_hints() -> dict[str, Any]:
    """``RoundEvent``'s field types as its source declares them (mypyc's compiled class
    keeps ``type`` for every union)."""
    import importlib.util

    source = Path(__file__).resolve().parents[2] / "audit" / "engine" / "event.py"
    spec = importlib.util.spec_from_file_location("_event_source", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return typing.get_type_hints(module.RoundEvent)


HINTS = _declared_hints()


def _conforms(value: Any, hint: Any) -> bool:
    """Is ``value`` of the declared type ``hint`` (exactly: a bool is no int, a list no tuple)?"""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if origin is tuple:
        (item, _) = typing.get_args(hint)
        return type(value) is tuple and all(_conforms(v, item) for v in value)
    return type(value) is hint


def assert_declared_types(events: list[Any]) -> int:
    """Check every field of every ``RoundEvent`` in ``events``; how many were checked."""
    checked = 0
    for e in events:
        if isinstance(e, RoundEvent):
            for name, hint in HINTS.items():
                value = getattr(e, name)
                assert _conforms(value, hint), f"{e.id}.{name} = {value!r}: not {hint}"
            checked += 1
    return checked


def _every_optional_field(path: Path) -> Path:
    """The worked example with the round-event fields it leaves out written explicitly:
    ``spots`` on the split and the double, ``amount`` of a double, ``face_up``, ``hand``
    on a dealer's card, ``10`` for ``T`` and lower-case cards, a card without ``pos``,
    a ``hit`` and a ``stand``, and a field TEL/1 does not name."""
    lines = [json.loads(x) for x in WORKED.read_text().splitlines() if x.strip()]
    for e in lines:
        if e["type"] == "action" and e["action"] in ("split", "double"):
            e["spots"] = [0]
        if e["type"] == "action" and e["action"] == "double":
            e["amount"] = 25
        if e["type"] == "card":
            e["face_up"] = True
            e["note"] = "an extra field"
    by_id = {e["id"]: e for e in lines}
    by_id["T07-19"]["card"] = "10s"  # T as 10, lower case
    del by_id["T07-22"]["pos"]  # the dealer's last card without its position
    path.write_text("".join(json.dumps(e) + "\n" for e in lines))
    return path


@pytest.fixture
def rich_store(tmp_path: Path) -> Store:
    log = _every_optional_field(tmp_path / "T07.jsonl")
    store = open_store(tmp_path / "audit.duckdb")
    assert ingest_paths(store, [log]).rejected == 0
    return store


def _replay(events: list[Any]) -> list[str]:
    """The compiled engine's finding codes for the shoe (it raises on a mistyped field)."""
    profile = load_registry().get("it-casino-6d")
    out = audit_shoe(KEY.table, KEY.shoe, events, profile, ShoeContext())
    return sorted(str(f.code) for f in out.findings)


def _spots_of(events: list[Any]) -> list[Any]:
    return [e.spots for e in events if isinstance(e, RoundEvent) and e.spots is not None]


def test_round_events_from_a_model_have_their_declared_types(rich_store: Store) -> None:
    with rich_store as store:
        models = store.load_shoe_events([KEY])[KEY]
    events = [round_event(e) for e in models]
    assert assert_declared_types(events) == 20
    assert _spots_of(events) == [(0,), (0,)]
    assert _replay(events) == ["PAY_WRONG_OUTCOME"]


def test_round_events_from_runs_arrow_batches_have_their_declared_types(
    rich_store: Store,
) -> None:
    with rich_store as store:
        batches = list(stream_shoe_batches(store, [KEY], 10**6))
    [(key, events)] = [x for b in batches for x in decode_batch(b)]
    assert key == KEY
    assert assert_declared_types(events) == 20
    assert _spots_of(events) == [(0,), (0,)]
    assert _replay(events) == ["PAY_WRONG_OUTCOME"]


def test_round_events_from_a_page_scan_have_their_declared_types(rich_store: Store) -> None:
    with rich_store as store:
        batches = list(stream_shoe_batches(store, [KEY], 10**6, pages={KEY: Paged([1], 26)}))
    [page] = [x for b in batches for x in decode_page_batch(b)]
    assert assert_declared_types(page.events) == 20
    assert _spots_of(page.events) == [(0,), (0,)]
    assert _replay(page.events) == ["PAY_WRONG_OUTCOME"]


def test_round_events_from_a_parquet_source_have_their_declared_types(
    rich_store: Store, tmp_path: Path
) -> None:
    from audit.store.parquet import export_parquet, read_source_batch, recorded_partitions

    out = tmp_path / "export"
    with rich_store as store:
        export_parquet(store, out)
        files = [f for r in recorded_partitions(store).values() for f in r.files]
        digest = store.shoe_info([KEY])[KEY].events_digest
    table: pa.Table = shoe_events_apart(read_source_batch(str(out), files, [(KEY, digest)]))
    [(key, events)] = decode_batch(table)
    assert key == KEY
    assert assert_declared_types(events) == 20
    assert _spots_of(events) == [(0,), (0,)]
    assert _replay(events) == ["PAY_WRONG_OUTCOME"]


def test_a_mistyped_field_is_caught_by_the_check() -> None:
    """The check itself can fail: a list where a tuple is declared, a bool for an int."""
    good = RoundEvent("action", "x", 1, 1, spots=(0,))
    assert assert_declared_types([good]) == 1
    for bad in (good._replace(spots=[0]), good._replace(box=True), good._replace(seq=1.0)):
        with pytest.raises(AssertionError):
            assert_declared_types([bad])


def test_run_audits_a_night_with_explicit_spots_with_the_shipped_engine(
    tmp_path: Path,
) -> None:
    """The issue's reproduction: the worked example with ``spots`` written, through the CLI."""
    from typer.testing import CliRunner

    from audit.cli import app

    log = _every_optional_field(tmp_path / "T07.jsonl")
    db = str(tmp_path / "audit.duckdb")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(log), "--db", db]).exit_code == 0
    result = runner.invoke(app, ["run", "--all", "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["shoes"] == 1
    found = runner.invoke(app, ["findings", "--db", db, "--format", "jsonl"])
    codes = [json.loads(x)["code"] for x in found.stdout.splitlines()]
    assert codes == ["PAY_WRONG_OUTCOME"]
