"""A real 100,000-round night (simulated, ingested, run) reports in seconds, hand pages
included: every figure is aggregated in DuckDB, and only shoes with a critical finding
are replayed. Twenty tables deal 5,000 rounds each, so the night runs over several
gaming days: the report covers all of them (``--from``/``--to``).

    .venv/bin/pytest -q -s -m slow tests/reports/test_scale.py
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from audit.reports import build_report_context, render_report
from audit.store import open_store
from tests.reports.nights import build_night, replayer

ROUNDS, TABLES = 100_000, 20


@pytest.mark.slow
def test_a_100k_round_night_reports_in_seconds(tmp_path: Path) -> None:
    t0 = time.perf_counter()
    db = build_night(
        tmp_path, tables=TABLES, rounds=ROUNDS // TABLES, error_rate=0.002, seed=5, extra=[]
    )
    built = time.perf_counter() - t0
    with open_store(db, read_only=True) as store:
        days = [i.gaming_day for i in store.shoe_info().values()]
        t0 = time.perf_counter()
        ctx = build_report_context(store, days, replayer=replayer(store))
        aggregated = time.perf_counter() - t0
        index = render_report(ctx, tmp_path / "out", "html")
        elapsed = time.perf_counter() - t0
        (rounds,) = store.con.execute("SELECT sum(rounds) FROM shoe_audits").fetchone()
    pages = len(list((tmp_path / "out" / "hands").rglob("*.html")))
    print(
        f"\n{ctx.summary.rounds:,} rounds over {len(ctx.gaming_days)} gaming days, "
        f"{ctx.summary.findings:,} findings, {pages} hand pages;"
        f" night built in {built:.1f} s; report in {elapsed:.2f} s"
        f" ({aggregated:.2f} s context incl. replays, {elapsed - aggregated:.2f} s render)"
    )
    assert ctx.summary.rounds == rounds == ROUNDS
    assert sum(r.rounds for r in ctx.rates_by_dealer) == ROUNDS
    assert (
        pages
        == len(
            {
                (c.finding.table, c.finding.shoe, c.finding.round)
                for c in ctx.critical
                if c.hand_href is not None
            }
        )
        > 0
    )
    assert index.is_file()
    assert elapsed < 30, f"{elapsed:.2f}s"
