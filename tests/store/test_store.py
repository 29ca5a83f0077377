"""The audit database: opening it, reading shoes back, storing and listing findings."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from audit.errors import StoreError
from audit.events.models import Bet, ShoeOpen, UnknownEvent
from audit.events.parse import parse_line
from audit.findings import Code, Finding, Severity
from audit.ingest import ingest_paths
from audit.store import ShoeAuditResult, ShoeKey, Store, open_store
from audit.store.schema import SCHEMA_VERSION
from tests.ingest.helpers import ROUND_FILE, dumps, ev, shoe_events, write_events, write_lines

KEY = ShoeKey("T07", "T07-20261128-01")

# --------------------------------------------------------------------------- opening


def test_new_database_has_the_schema(tmp_path: Path) -> None:
    with open_store(tmp_path / "a.duckdb") as store:
        assert store.meta("schema_version") == str(SCHEMA_VERSION)
        tables = {
            r[0] for r in store.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        }
        assert {"meta", "input_files", "events", "quarantine", "log_findings", "shoes",
                "shoe_audits", "findings"} <= tables  # fmt: skip
    with open_store(tmp_path / "a.duckdb") as store:  # and opens again
        assert store.meta("app") == "shoe-audit"


def test_a_file_that_is_not_duckdb(tmp_path: Path) -> None:
    path = tmp_path / "audit.duckdb"
    path.write_text("these are not the bytes you are looking for\n" * 100)
    with pytest.raises(StoreError, match="not a DuckDB database file"):
        open_store(path)


def test_a_duckdb_file_that_is_not_ours(tmp_path: Path) -> None:
    path = tmp_path / "other.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t (x INTEGER)")
    con.close()
    with pytest.raises(StoreError, match="not a shoe-audit database"):
        open_store(path)


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "audit.duckdb"
    open_store(path).close()
    con = duckdb.connect(str(path))
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(StoreError, match="schema version 99, newer than this shoe-audit"):
        open_store(path)


def test_a_locked_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOE_AUDIT_LOCK_WAIT", "0.2")  # a writer waits for it that long
    path = tmp_path / "audit.duckdb"
    open_store(path).close()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         f"import duckdb, sys; c = duckdb.connect({str(path)!r}); print('ready', flush=True); "
         "sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreError, match=r"it is locked by .*; waited 0.2 s"):
            open_store(path)
    finally:
        holder.communicate("")
    open_store(path).close()  # free again once the other process is gone


def test_a_directory_is_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        open_store(tmp_path)


# --------------------------------------------------------------------------- events back


def test_load_shoe_events_gives_back_what_parse_line_gives(store: Store) -> None:
    ingest_paths(store, [ROUND_FILE])
    events = store.load_shoe_events([KEY])
    expected = [parse_line(line) for line in ROUND_FILE.read_text().splitlines()]
    assert events[KEY] == expected
    assert [type(e) for e in events[KEY]] == [type(e) for e in expected]
    bet = events[KEY][7]
    assert isinstance(bet, Bet) and bet.amount == Decimal("50") and str(bet.amount) == "50"
    assert bet.ts.utcoffset() == dt.timedelta(hours=1)


def test_unknown_fields_and_types_come_back(store: Store, tmp_path: Path) -> None:
    lines = [
        dumps(ev(1, "shoe_open", shoe="S", profile="p", decks=6, dealer="D", note={"a": [1, 2.5]})),
        dumps(ev(2, "tip_box", shoe="S", round=1, amount=5)),
        dumps(ev(3, "card", shoe="S", round=1, card="10s", to="dealer", box=None)),
    ]
    ingest_paths(store, [write_lines(tmp_path / "x.jsonl", lines)])
    got = store.load_shoe_events([ShoeKey("T07", "S")])[ShoeKey("T07", "S")]
    assert got == [parse_line(x) for x in lines]
    assert isinstance(got[0], ShoeOpen) and got[0].model_extra == {
        "note": {"a": [1, Decimal("2.5")]}
    }
    assert isinstance(got[1], UnknownEvent) and got[1].model_extra == {"round": 1, "amount": 5}
    assert got[2].card == "TS"  # type: ignore[union-attr]


def test_load_several_shoes_in_seq_order(store: Store, tmp_path: Path) -> None:
    a = shoe_events(table="T01", shoe="A", rounds=2)
    b = shoe_events(table="T02", shoe="B", rounds=1)
    ingest_paths(store, [write_events(tmp_path / "x.jsonl", list(reversed(a)) + b)])
    got = store.load_shoe_events([ShoeKey("T02", "B"), ShoeKey("T01", "A"), ShoeKey("T09", "Z")])
    assert [e.seq for e in got[ShoeKey("T01", "A")]] == list(range(1, 19))
    assert len(got[ShoeKey("T02", "B")]) == 11
    assert got[ShoeKey("T09", "Z")] == []


# --------------------------------------------------------------------------- audits and findings


def _result(
    key: ShoeKey,
    findings: list[Finding],
    engine: str = "e1",
    digest: str | None = "d1",
    profile: str | None = "it-casino-6d",
) -> ShoeAuditResult:
    return ShoeAuditResult(key, engine, profile, digest, 3, findings)


def _pay(key: ShoeKey, rnd: int, box: int) -> Finding:
    return Finding(Code.PAY_WRONG_OUTCOME, f"box {box}: paid 75, due -50", table=key.table,
                   shoe=key.shoe, round=rnd, box=box, hand=1, spot=0, expected="-50",
                   actual="75", impact=Decimal("125"), rule="payout.main",
                   events=("T07-20", "T07-24"))  # fmt: skip


def test_shoes_to_audit_follows_events_engine_and_profile(store: Store, tmp_path: Path) -> None:
    events = shoe_events(rounds=2)
    ingest_paths(store, [write_events(tmp_path / "a.jsonl", events[:12])])
    key = ShoeKey("T07", "S1")
    digests = {"it-casino-6d": "d1"}
    assert store.shoes_to_audit("e1", digests) == [key]
    store.replace_findings([_result(key, [])])
    assert store.shoes_to_audit("e1", digests) == []
    assert store.shoes_to_audit("e1", digests, all=True) == [key]
    assert store.shoes_to_audit("e2", digests) == [key]  # another engine
    assert store.shoes_to_audit("e1", {"it-casino-6d": "d2"}) == [key]  # the profile changed
    ingest_paths(store, [write_events(tmp_path / "b.jsonl", events[12:])])
    assert store.shoes_to_audit("e1", digests) == [key]  # its second file arrived
    assert store.shoes_to_audit("e1", digests, table="T99") == []
    assert store.shoes_to_audit("e1", digests, gaming_day=dt.date(2026, 11, 28)) == [key]
    assert store.shoes_to_audit("e1", digests, gaming_day=dt.date(2026, 11, 29)) == []


def test_the_shoes_to_audit_of_a_table_share_one_string_for_it(tmp_path: Path) -> None:
    """run holds every key of its selection: a copy of the table id per shoe was ~14 MiB
    at 1,000,000 rounds (issue 33)."""
    from audit.simulate import simulate

    simulate(tmp_path / "logs", tables=2, shoes=1, rounds=80, profiles=["ventuno-family"], seed=2)
    with open_store(tmp_path / "audit.duckdb") as store:
        ingest_paths(store, [tmp_path / "logs"])
        keys = store.shoes_to_audit("e1", {})
    by_table: dict[str, list[ShoeKey]] = {}
    for k in keys:
        by_table.setdefault(k.table, []).append(k)
    assert len(by_table) == 2 and all(len(ks) >= 2 for ks in by_table.values())
    for ks in by_table.values():
        assert all(k.table is ks[0].table for k in ks)
    assert len(set(keys)) == len(keys)


def test_a_shoe_with_an_unknown_profile_is_listed_until_audited(
    store: Store, tmp_path: Path
) -> None:
    events = shoe_events()
    events[0]["profile"] = "no-such-profile"
    ingest_paths(store, [write_events(tmp_path / "a.jsonl", events)])
    key = ShoeKey("T07", "S1")
    assert store.shoes_to_audit("e1", {"it-casino-6d": "d1"}) == [key]
    store.replace_findings([_result(key, [], profile="no-such-profile", digest=None)])
    assert store.shoes_to_audit("e1", {"it-casino-6d": "d1"}) == []


def test_replace_findings_replaces_a_shoes_replay_findings(store: Store) -> None:
    ingest_paths(store, [ROUND_FILE])
    store.replace_findings([_result(KEY, [_pay(KEY, 1, 1), _pay(KEY, 1, 4)])])
    assert len(store.all_findings()) == 2
    store.replace_findings([_result(KEY, [_pay(KEY, 1, 1)])])
    (only,) = store.all_findings()
    assert only.id is not None and len(only.id) == 16  # stored findings carry their stable id
    assert replace(only, id=None) == _pay(KEY, 1, 1)
    assert {**only.to_dict(), "id": None} == _pay(KEY, 1, 1).to_dict()
    (audit,) = store.con.execute(
        "SELECT engine_version, rounds, events_digest FROM shoe_audits"
    ).fetchall()
    assert audit[:2] == ("e1", 3) and audit[2] == store.shoe_info()[KEY].events_digest


def test_all_findings_merges_ingest_and_replay_findings_and_filters(
    store: Store, tmp_path: Path
) -> None:
    ingest_paths(store, [ROUND_FILE])
    day2 = shoe_events(table="T08", shoe="S2", ts_day="2026-11-29T20")
    bad = write_lines(
        tmp_path / "T08.jsonl",
        [dumps(e) for e in day2[:3]] + ["not json"] + [dumps(e) for e in day2[5:]],
    )
    ingest_paths(store, [bad])
    key2 = ShoeKey("T08", "S2")
    store.replace_findings([_result(KEY, [_pay(KEY, 1, 1)]), _result(key2, [_pay(key2, 1, 1)])])
    everything = store.all_findings()
    # Unknown gaming day first (a line that is not JSON has no time), then by day.
    assert [(f.code, f.table) for f in everything] == [
        (Code.LOG_MALFORMED, None),
        (Code.PAY_WRONG_OUTCOME, "T07"),
        (Code.LOG_SEQ_GAP, "T08"),
        (Code.PAY_WRONG_OUTCOME, "T08"),
    ]
    assert everything == store.all_findings()  # deterministic
    malformed = store.all_findings(codes=["LOG_MALFORMED"])
    assert [f.source for f in malformed] == [f"{bad}:4"]
    assert malformed[0].table is None and malformed[0].events == ()
    assert {f.code for f in store.all_findings(table="T08")} == {
        Code.LOG_SEQ_GAP,
        Code.PAY_WRONG_OUTCOME,
    }
    assert [f.shoe for f in store.all_findings(shoe="S2")] == ["S2", "S2"]
    assert {f.code for f in store.all_findings(gaming_day=dt.date(2026, 11, 29))} == {
        Code.LOG_SEQ_GAP, Code.PAY_WRONG_OUTCOME}  # fmt: skip
    crit = store.all_findings(min_severity=Severity.CRITICAL)
    assert [f.code for f in crit] == [Code.PAY_WRONG_OUTCOME] * 2
    majors = store.all_findings(severities=["major"])
    assert {f.code for f in majors} == {Code.LOG_MALFORMED, Code.LOG_SEQ_GAP}
    ranged = store.all_findings(gaming_days=(dt.date(2026, 11, 28), dt.date(2026, 11, 28)))
    assert [f.table for f in ranged] == ["T07"]


def test_load_shoe_events_builds_models_without_validating_again(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stored events come back through ``model_construct`` from the typed columns: no line
    is parsed and no model validated again (that is what kept it fast; a timing here
    failed on a loaded machine, and timings live in benchmarks/)."""
    import pydantic

    import audit.events.parse as parse

    events = []
    for t in range(4):
        events += shoe_events(table=f"T{t}", shoe="S", rounds=300)
    ingest_paths(store, [write_events(tmp_path / "x.jsonl", events)])
    keys = list(store.shoe_info())

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("validated again")

    monkeypatch.setattr(pydantic.BaseModel, "__init__", refuse)
    monkeypatch.setattr(pydantic.BaseModel, "model_validate", refuse)
    monkeypatch.setattr(parse, "parse_line", refuse)
    monkeypatch.setattr(parse, "parse_object", refuse)
    got = store.load_shoe_events(keys)
    assert sum(len(v) for v in got.values()) == len(events) == 8416
    assert [e.id for e in got[keys[0]]] == [e["id"] for e in events if e["table"] == keys[0].table]
