"""A 100,000-round night renders in seconds: every figure is aggregated in DuckDB."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import pytest

from audit.findings import Code
from audit.reports import build_report_context, render_report
from tests.reports.handmade_db import SCHEMA


@pytest.mark.slow
def test_a_100k_round_night_renders_in_seconds(tmp_path: Path) -> None:
    db = tmp_path / "big.duckdb"
    con = duckdb.connect(str(db))
    con.execute(SCHEMA)
    # 1,500 shoes x 67 rounds = 100,500 rounds on 30 tables, 60 dealers; ~1% of rounds flagged
    con.execute(
        "INSERT INTO shoes SELECT 'T' || (i % 30), 'S' || i, 'it-casino-6d', 6, 'D' || (i % 60), "
        "NULL, DATE '2026-11-28' FROM range(1500) t(i)"
    )
    con.execute(
        "INSERT INTO shoe_audits SELECT table_id, shoe, '1.0.0', profile, 'x', 67, 335, 16750 "
        "FROM shoes"
    )
    codes = [c for c in Code if not c.startswith("LOG_")]
    con.execute(
        "CREATE TEMP TABLE codes AS SELECT unnest(?) AS code, unnest(?) AS sev, "
        "unnest(range(?)) AS k",
        [[str(c) for c in codes], [str(c.severity) for c in codes], len(codes)],
    )
    con.execute(
        f"""INSERT INTO findings SELECT c.code, c.sev, s.table_id, s.shoe, 1 + (h % 67),
            1 + (h % 7), 0, 0, '10', '15',
            CASE WHEN c.code LIKE 'PAY_%' THEN CAST((h % 41) - 20 AS DECIMAL(18, 2)) END,
            'win_pays', ['e' || h], NULL, 'synthetic ' || h, DATE '2026-11-28'
            FROM range(1005) t(h) JOIN shoes s ON s.shoe = 'S' || (h * 7 % 1500)
            JOIN codes c ON c.k = h % {len(codes)}"""
    )
    con.close()
    ro = duckdb.connect(str(db), read_only=True)
    t0 = time.perf_counter()
    ctx = build_report_context(ro, ["2026-11-28"], hand_pages=False)
    render_report(ctx, tmp_path / "out", "html")
    elapsed = time.perf_counter() - t0
    ro.close()
    assert ctx.summary.rounds == 100_500 and ctx.summary.findings == 1005
    assert elapsed < 5, f"{elapsed:.2f}s"
