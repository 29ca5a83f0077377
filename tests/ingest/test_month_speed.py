"""Issue 33: the month-shaped corpus the benchmark measures (many files, many gaming days).

The figures live in benchmarks/ (a timing here would fail on a loaded machine).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("audit_bench", BENCHMARKS / "audit_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("audit_bench", module)
    spec.loader.exec_module(module)
    return module


def test_the_month_benchmark_writes_a_file_per_table_per_gaming_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``audit_bench.py --tables T --days D``: the rounds spread over every table and
    gaming day, one folder a day, one file a table in it; cached under its own name."""
    bench = _bench()
    monkeypatch.setattr(bench, "OUT", tmp_path)
    month = bench._night(24, 2, 5, 0.0, 3)
    assert month == tmp_path / "month-24-2x3-5-0"
    days = sorted(p.name for p in (month / "logs").iterdir())
    assert days[:3] == ["2026-11-28", "2026-11-29", "2026-11-30"]
    for day in days[:3]:
        assert sorted(p.name for p in (month / "logs" / day).iterdir()) == [
            "T01.jsonl",
            "T02.jsonl",
        ]
    rounds = sum(
        line.count('"type":"round_close"')
        for path in (month / "logs").rglob("*.jsonl")
        for line in path.read_text().splitlines()
    )
    assert rounds == 24  # 4 a table a day
    assert (month / ".complete").exists()
    assert bench._night(24, 2, 5, 0.0, 3) == month  # cached: not dealt again
    assert bench._night(24, 2, 5, 0.0) == tmp_path / "night-24-2-5-0"  # a night as before
