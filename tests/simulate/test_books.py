"""``simulate --books``: books consistent with the hands, by tallies of their own
(tests/simulate/books_checker.py), and every injected error where the manifest says.

accounting.md "The simulator": closer − opener = fills − credits + R − B for
every session, the drop equal to the buy-ins by method, the next opener the
previous closer exactly; an injected night departs from that exactly where
``injected.ndjson`` says, by the impact it gives.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audit.books.house import House, Shift
from audit.cli.app import app
from audit.errors import UsageError
from audit.simulate import MANIFEST_NAME, simulate
from audit.simulate.books_inject import BOOKS_CODES
from tests.simulate.books_checker import (
    BOOK_TYPES,
    anomalies,
    read_night,
    shape_problems,
    tally,
    value,
)

CASINO = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory"]


def _night(out: Path, **kw: Any) -> list[dict[str, Any]]:
    args: dict[str, Any] = dict(tables=3, shoes=2, profiles=CASINO, seed=11, days=2, books=True)
    args.update(kw)
    simulate(out, **args)
    return read_night(out)


def _manifest(out: Path) -> set[tuple[Any, ...]]:
    rows = [json.loads(x) for x in (out / MANIFEST_NAME).read_text().splitlines()]
    out_set = set()
    for r in rows:
        assert (r["shoe"], r["round"], r["box"], r["hand"]) == (None, None, None, None)
        impact = None if r["impact"] is None else Decimal(r["impact"])
        day = dt.date.fromisoformat(r["gaming_day"])
        out_set.add((r["code"], r["table"], day, r["shift"], impact))
    assert len(out_set) == len(rows), "one injected error per period"
    return out_set


def test_clean_books_night_every_identity_holds_by_own_tallies(tmp_path: Path) -> None:
    lines = _night(tmp_path, tips=True)
    books = [e for e in lines if e["type"] in BOOK_TYPES]
    assert not [(e["id"], p) for e in books for p in shape_problems(e) if p]
    night = tally(lines)
    assert night.sessions and not night.outside
    for s in night.sessions:
        assert s.closer is not None, s.opener["id"]
        assert s.tray_gap() == 0, (s.opener["id"], s.tray_gap())
    # the next opener is the previous closer exactly, by denomination
    for invs in night.inventories.values():
        assert invs[0]["kind"] == "opener" and invs[-1]["kind"] == "closer"
        for closer, opener in zip(invs[1::2], invs[2::2], strict=False):
            assert closer["kind"] == "closer" and opener["kind"] == "opener"
            assert closer["chips"] == opener["chips"]
    # one count per table and period, equal to the buy-ins by method, tips apart
    periods = {(s.table, s.day, s.shift) for s in night.sessions}
    assert set(night.counts) == periods
    for key in periods:
        (count,) = night.counts[key]
        bought = night.buy_ins.get(key, {})
        assert Decimal(count["cash"]) == bought.get("cash", 0)
        assert Decimal(count["markers"]) == bought.get("marker", 0)
        assert "tips" in count
    assert {s.day for s in night.sessions} == {dt.date(2026, 11, 28), dt.date(2026, 11, 29)}
    # both copies of every slip, the same chips, two signers each
    cage = {(c["series"], c["slip"]): c for c in night.cage}
    table = {(c["series"], c["slip"]): c for c in night.table_slips}
    assert cage and cage.keys() == table.keys()
    assert all(cage[k]["chips"] == table[k]["chips"] for k in cage)
    assert anomalies(night, lines) == set()
    assert not (tmp_path / MANIFEST_NAME).exists()


def test_buy_ins_come_before_a_players_first_stake(tmp_path: Path) -> None:
    lines = _night(tmp_path, tables=1, profiles=["it-casino-6d"])
    stream = sorted((e for e in lines if e.get("stream", "T01") == "T01"), key=lambda e: e["seq"])
    bought: set[str] = set()
    methods: Counter[str] = Counter()
    for e in stream:
        if e["type"] == "buy_in":
            methods[e["method"]] += 1
            if "player" in e:
                bought.add(e["player"])
        elif e["type"] == "bet" and e.get("player") and e["amount"] > 0:
            assert e["player"] in bought, e["id"]
    assert methods["cash"] > methods["marker"] > 0


def test_fills_and_credits_keep_the_tray_stocked_serials_in_order(tmp_path: Path) -> None:
    lines = _night(tmp_path, tables=2, shoes=4, profiles=["it-casino-6d"], seed=3)
    night = tally(lines)
    kinds = Counter(c["type"] for c in night.cage)
    assert kinds["fill"] and kinds["credit"]
    for series in {c["series"] for c in night.cage}:
        serials = [
            c["slip"] for c in sorted(night.cage, key=lambda e: e["ts"]) if c["series"] == series
        ]
        assert serials == list(range(1, len(serials) + 1))
    for c in night.cage:
        assert {s["role"] for s in c["signers"]} == {"cashier", "security"}
    for c in night.table_slips:
        assert {s["role"] for s in c["signers"]} == {"dealer", "supervisor"}
    for invs in night.inventories.values():
        for inv in invs:
            assert all(c["count"] >= 0 for c in inv["chips"])
            assert {s["role"] for s in inv["signers"]} == {"dealer", "supervisor"}


def test_shift_changes_close_and_open_between_rounds(tmp_path: Path) -> None:
    house = House(shifts=(Shift("day"), Shift("night", dt.time(20, 50))))
    lines = _night(tmp_path, house=house)
    night = tally(lines, lambda ts: house.shift_at(dt.datetime.fromisoformat(ts)))
    shifts = Counter(s.shift for s in night.sessions)
    assert shifts["day"] and shifts["night"]
    for s in night.sessions:
        assert s.closer is not None and s.tray_gap() == 0
        assert house.shift_at(dt.datetime.fromisoformat(s.opener["ts"])) == s.shift
    assert set(night.counts) == {(s.table, s.day, s.shift) for s in night.sessions}
    assert anomalies(night, lines) == set()


def test_same_seed_same_books_and_same_hands_as_without(tmp_path: Path) -> None:
    a = _night(tmp_path / "a")
    b = _night(tmp_path / "b")
    assert a == b
    simulate(tmp_path / "plain", tables=3, shoes=2, profiles=CASINO, seed=11, days=2)
    plain = read_night(tmp_path / "plain")

    def hands(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in e.items() if k not in ("id", "seq")}
            for e in lines
            if e["type"] not in BOOK_TYPES
        ]

    assert hands(a) == hands(plain)
    assert len(a) > len(plain)


@pytest.mark.parametrize("code", BOOKS_CODES)
def test_injected_error_changes_exactly_its_figure(tmp_path: Path, code: str) -> None:
    lines = _night(tmp_path, days=3, books_error_rate=1.0, books_errors=[code], seed=7)
    injected = _manifest(tmp_path)
    assert injected and {i[0] for i in injected} == {code}
    books = [e for e in lines if e["type"] in BOOK_TYPES]
    assert not [(e["id"], p) for e in books for p in shape_problems(e) if p]
    assert anomalies(tally(lines), lines) == injected


def test_injected_night_of_every_code_found_exactly_by_own_tallies(tmp_path: Path) -> None:
    lines = _night(tmp_path, tables=4, days=3, books_error_rate=0.7, seed=23)
    injected = _manifest(tmp_path)
    assert len({i[0] for i in injected}) >= 6
    assert anomalies(tally(lines), lines) == injected


def test_books_needs_two_days_and_its_options_need_books(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--days 2 or more"):
        simulate(tmp_path / "x", tables=1, shoes=1, profiles=CASINO, seed=1, books=True)
    with pytest.raises(UsageError, match="--tips only with --books"):
        simulate(tmp_path / "y", tables=1, shoes=1, profiles=CASINO, seed=1, tips=True)
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_cli_books_defaults_to_two_days_and_refuses_bad_options(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "night"
    ok = runner.invoke(
        app, ["simulate", "--books", "--tables", "1", "--shoes", "1", "--out", str(out)]
    )
    assert ok.exit_code == 0, ok.output
    assert sorted(p.name for p in out.iterdir()) == ["2026-11-28", "2026-11-29"]
    assert (out / "2026-11-28" / "COUNT.jsonl").exists()
    for argv, said in (
        (["--books", "--days", "1"], "--books needs --days 2 or more"),
        (["--books", "--books-error", "ACCT_NOPE"], "--books-error ACCT_NOPE"),
        (["--books-error-rate", "0.5"], "--books-error-rate only with --books"),
        (["--house", str(tmp_path / "h.toml")], "--house only with --books"),
    ):
        bad = runner.invoke(app, ["simulate", *argv, "--out", str(tmp_path / "bad")])
        assert bad.exit_code == 2, (argv, bad.output)
        assert said in bad.output
        assert not (tmp_path / "bad").exists()


def test_tray_value_never_negative_in_any_denomination(tmp_path: Path) -> None:
    night = tally(_night(tmp_path, tables=2, shoes=3, seed=5))
    assert all(value(i["chips"]) > 0 for invs in night.inventories.values() for i in invs)


def test_rich_books_write_the_optional_fields_and_a_clean_night_stays_clean(
    tmp_path: Path,
) -> None:
    """TEL/1 v1.2's optional book fields (rich tables, ``--rich-share 1``) change nothing
    ``run`` judges: no finding at all, and a reversal names the adjustment it cancels."""
    out, db = tmp_path / "night", tmp_path / "audit.duckdb"
    made = CliRunner().invoke(app, [
        "simulate", "--books", "--tips", "--days", "3", "--tables", "3", "--shoes", "2",
        "--profile", "it-casino-6d", "--seed", "11", "--rich-share", "1", "--out", str(out),
    ])  # fmt: skip
    assert made.exit_code == 0, made.output
    lines = read_night(out)
    books = [e for e in lines if e["type"] in BOOK_TYPES]
    assert not [(e["id"], p) for e in books for p in shape_problems(e) if p]
    written = {(e["type"], k) for e in books for k in e}
    for field in [
        ("inventory", "slip"), ("fill", "requested_by"),
        ("buy_in", "stream"), ("drop_count", "other"), ("adjustment", "reverses"),
        ("adjustment", "ref"), ("inventory", "v"),
    ]:  # fmt: skip
        assert field in written, field
    others = [e for e in books if e["type"] == "buy_in" and e["method"] == "other"]
    assert others and all(e["ref"].startswith("V-") for e in others)
    assert all(e["stream"] == e["table"] for e in books if e["type"] in ("inventory", "buy_in")
               if "stream" in e)  # fmt: skip
    adjustments = {e["id"]: e for e in books if e["type"] == "adjustment"}
    reversals = [e for e in adjustments.values() if "reverses" in e]
    assert reversals
    for e in reversals:
        first = adjustments[e["reverses"]]
        assert first["seq"] < e["seq"] and "reverses" not in first
        same = ("table", "gaming_day", "shift", "line")
        assert [first[k] for k in same] == [e[k] for k in same]
        assert first["amount"] == -e["amount"]
    ingested = CliRunner().invoke(app, ["ingest", "--db", str(db), str(out)])
    assert ingested.exit_code == 0, ingested.output
    ran = CliRunner().invoke(app, ["run", "--db", str(db)])
    assert ran.exit_code == 0, ran.output
    listed = CliRunner().invoke(app, ["findings", "--db", str(db), "--format", "jsonl"])
    assert listed.exit_code == 0, listed.output
    assert [json.loads(x)["code"] for x in listed.stdout.splitlines() if x.strip()] == []
