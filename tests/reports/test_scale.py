"""A real 100,000-round night (simulated, ingested, run) reports with every flagged round's
hand page: every figure is aggregated in DuckDB, and each shoe with a flagged round is
replayed once. Twenty tables deal 5,000 rounds each, so the night runs over several
gaming days: the report covers all of them (``--from``/``--to``). Speed is measured by
``benchmarks/nightly_bench.py``; this checks the result at that size.

    .venv/bin/pytest -q -s -m slow tests/reports/test_scale.py
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from audit.batch.nightly import write_report
from audit.reports import build_report_context
from audit.store import open_store
from tests.reports.nights import build_night

ROUNDS, TABLES = 100_000, 20


@pytest.mark.slow
def test_a_100k_round_night_reports_every_flagged_round(tmp_path: Path) -> None:
    db = build_night(
        tmp_path, tables=TABLES, rounds=ROUNDS // TABLES, error_rate=0.002, seed=5, extra=[]
    )
    with open_store(db, read_only=True) as store:
        days = sorted({i.gaming_day for i in store.shoe_info().values() if i.gaming_day})
        t0 = time.perf_counter()
        index = write_report(store, days, tmp_path / "out", "html")
        elapsed = time.perf_counter() - t0
        ctx = build_report_context(store, days)
        (rounds,) = store.con.execute("SELECT sum(rounds) FROM shoe_audits").fetchone()
    pages = {str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("r*.html")}
    print(f"\n{ctx.summary.flagged_rounds:,} flagged rounds, {len(pages)} pages, {elapsed:.1f} s")
    assert ctx.summary.rounds == rounds == ROUNDS
    assert sum(r.rounds for r in ctx.by_dealer) == ROUNDS
    full = (tmp_path / "out" / "flagged.html").read_text()
    assert full.count('class="hand-link"') == ctx.summary.flagged_rounds > 0
    assert len(pages) >= ctx.summary.flagged_rounds
    assert index.is_file()
