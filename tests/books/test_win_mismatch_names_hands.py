"""An ``ACCT_WIN_MISMATCH`` names the hands' findings that explain it (accounting.md "How
many findings": "the ``PAY_`` finding for the wager, the ``ACCT_`` one (naming it) for the
money"). A books night whose log lost one payout (a ``settle`` removed, the stream's
``seq`` closed up so only the payout is missing): the hands carry ``PAY_MISSING``, the tray
paid the chips, so the session's tray win differs from the hands' result, and the
``ACCT_WIN_MISMATCH`` message names the ``PAY_MISSING`` finding; its id is the one a night
without the naming would give (the message is not part of the identity)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from audit.books.house import load_house
from audit.books.reconcile import reconcile
from audit.cli import app
from audit.simulate import simulate
from audit.store import open_store
from audit.store.books import load_books
from audit.store.hands_findings import hands_findings

CASINO = ["it-casino-6d"]


def _cli(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def _drop_a_payout(night: Path) -> dict[str, Any]:
    """Remove T01's first winning ``settle`` and close its stream's ``seq`` up."""
    files = sorted(night.glob("*/T01.jsonl"))
    removed: dict[str, Any] | None = None
    for f in files:
        kept = []
        for line in f.read_text().splitlines():
            e = json.loads(line)
            if removed is None and e["type"] == "settle" and e["amount"] > 0:
                removed = e
                continue
            if (
                removed is not None
                and e.get("stream", e["table"]) == e["table"]
                and e["seq"] > removed["seq"]
            ):
                e["seq"] -= 1
                line = json.dumps(e, separators=(",", ":"))
            kept.append(line)
        f.write_text("".join(x + "\n" for x in kept))
    assert removed is not None
    return removed


def test_win_mismatch_names_the_pay_missing_finding_of_its_session(tmp_path: Path) -> None:
    night = tmp_path / "night"
    simulate(night, tables=1, shoes=2, profiles=CASINO, seed=5, days=2, books=True)
    settle = _drop_a_payout(night)
    house = tmp_path / "house.toml"
    house.write_text('cage_day_close = { value = "count", source = "the simulator" }\n')
    db = tmp_path / "a.duckdb"
    _cli("ingest", str(night / "2026-11-28"), str(night / "2026-11-29"), "--db", str(db))
    _cli("run", "--db", str(db), "--house", str(house))
    rows = [
        json.loads(x)
        for x in _cli("findings", "--db", str(db), "--format", "jsonl").stdout.splitlines()
        if x.strip()
    ]
    codes = {r["code"] for r in rows}
    assert "LOG_SEQ_GAP" not in codes  # only the payout is missing
    pay = [r for r in rows if r["code"] == "PAY_MISSING"]
    assert [(p["shoe"], p["round"]) for p in pay] == [(settle["shoe"], settle["round"])]
    acct = [r for r in rows if r["code"].startswith("ACCT_")]
    assert [r["code"] for r in acct] == ["ACCT_WIN_MISMATCH"]
    mismatch = acct[0]
    assert float(mismatch["impact"]) == float(settle["amount"])  # R - T: the unlogged payout
    named = (
        f"(the hands carry PAY_MISSING on T01 shoe {settle['shoe']} round {settle['round']} "
        f"(finding {pay[0]['id']}): see that finding)"
    )
    assert mismatch["message"].endswith(named), mismatch["message"]
    # the naming is the message's alone: the same reconciliation without the hands'
    # findings raises the same finding, same id, without the clause
    with open_store(db) as store:
        records = load_books(store, house=load_house(house))
        found = hands_findings(store, {i.table for i in records.inventories})
        assert [h.id for h in found] == [pay[0]["id"]]
        args = dict(
            house=load_house(house),
            inventories=records.inventories,
            slips=records.slips,
            voids=records.voids,
            buy_ins=records.buy_ins,
            counts=records.counts,
            hands=records.hands,
        )
    named_books = reconcile(**args, hands_findings=found)  # type: ignore[arg-type]
    plain_books = reconcile(**args)  # type: ignore[arg-type]
    (with_names,) = [f for f in named_books.findings if f.code == "ACCT_WIN_MISMATCH"]
    (plain,) = [f for f in plain_books.findings if f.code == "ACCT_WIN_MISMATCH"]
    assert with_names.id == plain.id == mismatch["id"]
    assert with_names.message == plain.message + " " + named
