"""The books at scale (issue 31, point 7): the hands' money numbered by sorted running
counts gives what accounting.md "The table's timeline" says, event by event, on a
simulated night with inventories in another stream at the hands' own times (every tie);
and ``run --json`` reports the reconciliation's periods, findings and seconds."""

from __future__ import annotations

import datetime as dt
import json
import random
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

from audit.books.house import load_house_file
from audit.books.timeline import period_at
from audit.ingest import ingest_paths
from audit.simulate import simulate
from audit.store import open_store
from audit.store.books import load_hands_money
from audit.store.rows import utc_offset
from tests.books.test_read_books import VALID
from tests.cli.helpers import cli

CASINO = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory"]
THREE_SHIFTS = """\
shifts = { value = [{ name = "day" }, { name = "swing", start = "14:00" }, { name = "grave", start = "22:00" }], source = "test" }
cage_day_close = { value = "count", source = "the simulator" }
"""  # noqa: E501


def _night(tmp: Path) -> tuple[Path, Path]:
    house = tmp / "house.toml"
    house.write_text(THREE_SHIFTS, encoding="utf-8")
    night = tmp / "night"
    simulate(
        night,
        tables=2,
        shoes=1,
        profiles=CASINO,
        seed=11,
        days=2,
        books=True,
        rich_share=0.0,
        house=load_house_file(house),
    )
    return night, house


def _pit_inventories(db: Path, out: Path, seed: int) -> None:
    """Inventories of the tables written by another stream (PIT) at the very times of
    hands events: an opener, a lone closer, or a shift change (a closer and an opener);
    some a second later. Each tie is one the timeline's rule must break."""
    with open_store(db) as store:
        rows = store.con.execute(
            """SELECT table_id, ts_local, utc_offset_min FROM events
               WHERE type IN ('settle', 'round_open') ORDER BY table_id, seq"""
        ).fetchall()
    rng = random.Random(seed)
    lines, seq = [], 0
    for table, ts_local, offset in rng.sample(rows, 40):
        at = ts_local.replace(tzinfo=utc_offset(offset))
        if rng.random() < 0.25:
            at += dt.timedelta(seconds=1)
        kinds = rng.choice([["opener"], ["closer"], ["closer", "opener"]])
        for kind in kinds:
            seq += 1
            fields = {"id": f"PIT-{seq}", "seq": seq, "stream": "PIT", "table": table}
            fields |= {"kind": kind, "ts": at.isoformat()}
            lines.append(json.dumps(json.loads(VALID["inventory"]) | fields))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _by_the_rule(db: Path, house_path: Path) -> list[tuple[str, str, Decimal, int]]:
    """accounting.md "The table's timeline", event by event: a hands event lies after
    each inventory of its own stream with a lower seq, and after each inventory of
    another stream with an earlier ts, or the same ts when that inventory is an opener
    or shares its ts with one (a shift change); never after a lone closer at its ts."""
    house = load_house_file(house_path)
    with open_store(db) as store:
        events = store.con.execute(
            """SELECT id, table_id, COALESCE(stream, table_id), seq, ts, ts_local,
                      utc_offset_min, type, kind, amount FROM events
               WHERE type IN ('inventory', 'settle', 'round_open')"""
        ).fetchall()
    inventories: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for e in events:
        if e[7] == "inventory":
            inventories[e[1]].append(e)
    openers_at = {(e[1], e[4]) for e in events if e[7] == "inventory" and e[8] == "opener"}
    groups: dict[tuple[Any, ...], list[tuple[Any, ...]]] = defaultdict(list)
    for h in events:
        if h[7] == "inventory":
            continue
        _id, table, stream, seq, ts = h[:5]
        stretch = 0
        for i in inventories[table]:
            if i[2] == stream:
                stretch += i[3] < seq
            else:
                tie_before = i[8] == "opener" or (table, i[4]) in openers_at
                stretch += i[4] < ts or (i[4] == ts and tie_before)
        local = h[5].replace(tzinfo=utc_offset(h[6]))
        groups[(table, stretch, *period_at(table, local, house)[1:])].append(h)
    out = []
    for (table, *_), hs in groups.items():
        first = min(hs, key=lambda h: (h[4], h[3]))
        result = -sum((h[9] for h in hs if h[7] == "settle"), Decimal(0))
        out.append((table, first[0], result, sum(h[7] == "round_open" for h in hs)))
    return sorted(out)


def test_hands_money_follows_the_timeline_rule_at_every_tie(tmp_path: Path) -> None:
    night, house = _night(tmp_path)
    db = tmp_path / "a.duckdb"
    with open_store(db) as store:
        ingest_paths(store, [night])
    extra = tmp_path / "pit.jsonl"
    _pit_inventories(db, extra, seed=3)
    with open_store(db) as store:
        ingest_paths(store, [extra])
        got = load_hands_money(store, house=load_house_file(house))
    expected = _by_the_rule(db, house)
    assert len(expected) > 40, "a night cut into many stretches"
    assert sorted((m.table, m.at.id, m.result.normalize(), m.rounds) for m in got) == [
        (t, i, r.normalize(), n) for t, i, r, n in expected
    ]


def test_run_json_reports_the_reconciliation(tmp_path: Path) -> None:
    night, house = _night(tmp_path)
    db = tmp_path / "a.duckdb"
    assert cli("ingest", str(night), "--db", str(db)).exit_code == 0
    ran = cli("run", "--db", str(db), "--house", str(house), "--json")
    assert ran.exit_code == 0, ran.output
    out = json.loads(ran.stdout)
    # cli.md's keys stay; v1.2 adds the books' beside them
    assert {"shoes", "rounds", "findings", "by_code", "seconds", "failed"} <= set(out)
    assert out["books_findings"] == {}
    assert set(out["books_periods"]) == {"reconciled"} and out["books_periods"]["reconciled"] > 0
    assert set(out["books_split"]) == {"records", "hands", "reconcile", "store"}
    assert 0 < sum(out["books_split"].values()) <= out["books_seconds"] + 0.01
    # the periods it counts are the ones `books` lists
    every_day = ("--from", "2026-11-01", "--to", "2026-12-31")
    books = cli("books", "--db", str(db), "--house", str(house), "--format", "jsonl", *every_day)
    shifts = [r for r in map(json.loads, books.stdout.splitlines()) if r["level"] == "shift"]
    assert len(shifts) == out["books_periods"]["reconciled"]
