"""Issue 33: speed on a casino's month (many files, many gaming days).

The figures live in benchmarks/ (a timing here would fail on a loaded machine); these
tests hold the means the figures were bought with, and the month-shaped corpus the
benchmark measures.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from audit.ingest import ingest_paths
from audit.ingest.reader import Batch
from audit.store import Store
from tests.ingest.helpers import shoe_events, write_events

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _setting(store: Store) -> bool:
    return bool(
        store.con.execute("SELECT current_setting('preserve_insertion_order')").fetchall()[0][0]
    )


def test_ingest_stores_events_in_any_order_and_restores_the_setting(
    store: Store, tmp_path: Path
) -> None:
    """The bulk insert runs with DuckDB's ``preserve_insertion_order`` off (both threads
    write ``events``), only while ingest runs; what is stored is the same either way."""
    files = [
        write_events(tmp_path / f"T0{t}.jsonl", shoe_events(table=f"T0{t}", rounds=40))
        for t in range(1, 4)
    ]
    seen: list[bool] = []

    def note(path: Path, batch: Batch) -> None:
        seen.append(_setting(store))

    assert _setting(store) is True
    summary = ingest_paths(store, files, on_batch=note)
    assert seen and not any(seen)  # off while the batches are stored
    assert _setting(store) is True  # and back as it was
    ordered = store.con.execute(
        "SELECT f.path, e.line_no, e.raw FROM events e JOIN input_files f USING (file_id)"
        " ORDER BY 1, 2"
    ).fetchall()
    assert len(ordered) == summary.new == sum(len(p.read_text().splitlines()) for p in files)
    for path in files:
        lines = path.read_text().splitlines()
        assert [r for p, _, r in ordered if p == str(path)] == lines


def test_the_setting_comes_back_when_ingest_fails(store: Store, tmp_path: Path) -> None:
    path = write_events(tmp_path / "T01.jsonl", shoe_events(table="T01", rounds=2))

    def stop(path: Path, batch: Batch) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest_paths(store, [path], on_batch=stop)
    assert _setting(store) is True


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
