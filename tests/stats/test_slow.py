"""Heavier checks of ``stats`` (``make test-slow``): calibration on many clean nights, and a
simulated night (a whole evening at every table) with a stripped shoe found end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.simulate import simulate
from audit.simulate.bias import Bias
from audit.stats.cards import MIN_POOLED
from audit.stats.suite import run_stats
from tests.stats import fakes
from tests.stats.nights import audited_db

pytestmark = pytest.mark.slow


def test_thirty_clean_nights_raise_no_flag() -> None:
    flagged = []
    for seed in range(30):
        night = fakes.Night()
        for i in range(1, 3):
            knobs = fakes.Knobs(edge=fakes.EDGE)
            fakes.night(
                30, seed=500 + seed, table=f"T0{i}", dealer=f"D{i}", knobs=knobs, into=night
            )
        result = run_stats(fakes.data(night), fakes.registry())
        flagged += [(seed, r.test, r.subject) for r in result.flags]
    assert flagged == []


def test_a_stripped_shoe_is_found_in_a_simulated_night(runner: CliRunner, tmp_path: Path) -> None:
    # `stats` judges one gaming day (the latest unless told): the night judged must be a
    # whole evening's session at every table. 24 shoes a table outlast one (8 hours:
    # some 14 shoes of 6 decks, 16 of 5), so the first gaming day is whole and the
    # leftovers spill into the next. Judging that leftover day instead (the default)
    # left the 5-deck T02, the quickest table, a few shoes and too few cards to judge.
    summary = simulate(
        tmp_path / "logs",
        tables=3,
        shoes=24,
        profiles=["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory"],
        seed=8,
        biases={"T02": Bias(stripped_tens=16)},
    )
    days = {t: {p.parent.name for p in summary.files if p.stem == t} for t in summary.tables}
    night = min(min(d) for d in days.values())
    assert all(len(d) > 1 for d in days.values()), f"a table's night ended early: {days}"
    db = audited_db(tmp_path / "logs", tmp_path / "audit.duckdb")
    args = ["stats", "--db", str(db), "--date", night, "--format", "jsonl", "--fail-on-flag"]
    result = runner.invoke(app, args)
    rows = [json.loads(line) for line in result.output.splitlines()]
    tables = {r["subject"]: r for r in rows if r["test"] == "card_ranks" and r["scope"] == "table"}
    # every table's night holds enough cards to be judged: the clean ones are the control
    assert {t: r["n"] >= MIN_POOLED for t, r in tables.items()} == dict.fromkeys(days, True)
    assert all(r["p_value"] is not None for r in tables.values())
    assert result.exit_code == 3
    flagged = {(r["test"], r["scope"], r["subject"]) for r in rows if r["flag"]}
    assert ("card_ranks", "table", "T02") in flagged
    assert not any(s.startswith(("T01", "T03")) for _, _, s in flagged)
    tens = tables["T02"]
    assert tens["observed"]["T"] < tens["expected"]["T"]
