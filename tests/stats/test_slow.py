"""Heavier checks of ``stats`` (``make test-slow``): calibration on many clean nights, and a
simulated night with a stripped shoe found end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.simulate import simulate
from audit.simulate.bias import Bias
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
    simulate(
        tmp_path / "logs",
        tables=3,
        shoes=40,
        profiles=["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory"],
        seed=8,
        biases={"T02": Bias(stripped_tens=16)},
    )
    db = audited_db(tmp_path / "logs", tmp_path / "audit.duckdb")
    result = runner.invoke(app, ["stats", "--db", str(db), "--format", "jsonl", "--fail-on-flag"])
    assert result.exit_code == 3
    rows = [json.loads(line) for line in result.output.splitlines()]
    flagged = {(r["test"], r["scope"], r["subject"]) for r in rows if r["flag"]}
    assert ("card_ranks", "table", "T02") in flagged
    assert not any(s.startswith(("T01", "T03")) for _, _, s in flagged)
    tens = next(r for r in rows if r["test"] == "card_ranks" and r["subject"] == "T02")
    assert tens["observed"]["T"] < tens["expected"]["T"]
