"""The report's memory (issue 33): a 1,000,000-round night's report peaked at 3.5-4.3 GB,
mostly the statistics' polars frames computed beside the hand pages, the figures and the
evidence check, every peak added to the others'. ``benchmarks/report_bench.py`` measures
it; these hold the shape that keeps it down."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from audit.batch.nightly import write_report
from audit.store import Store
from tests.memory_limits import held_limit, shown
from tests.reports.conftest import STAMP
from tests.reports.nights import DAY

T = TypeVar("T")


def test_the_statistics_run_alone_before_the_pages_and_the_figures(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import audit.batch.statistics as statistics

    threads: list[list[str]] = []
    real = statistics.report_statistics

    def counted(*args: object, **kw: object) -> object:
        threads.append(sorted(t.name for t in threading.enumerate()))
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(statistics, "report_statistics", counted)
    index = write_report(store, [DAY], tmp_path / "report", "html", generated_at=STAMP, workers=2)
    assert len(threads) == 1
    assert not any(name.startswith("hand-pages") for name in threads[0]), threads[0]
    assert threads[0] == sorted(t.name for t in threading.enumerate())  # nothing beside it
    assert "<h2>Statistics</h2>" in index.read_text(encoding="utf-8")


def test_the_report_reads_no_frame_of_every_wager(store: Store) -> None:
    from audit.stats.frames import StatsData
    from audit.store.stats_frames import load_stats_frames

    data = StatsData.stored(load_stats_frames(store, DAY, DAY))
    assert data.wagers.is_empty() and data.facts is not None
    assert data.facts.stakes.height > 0


def _seen_by_the_statistics(
    monkeypatch: pytest.MonkeyPatch, probe: Callable[[Store], T]
) -> list[T]:
    """``probe(store)`` each time the report's statistics start (the list fills as they do)."""
    import audit.batch.statistics as statistics

    during: list[T] = []
    real = statistics.report_statistics

    def seen(store: Store, *args: object, **kw: object) -> object:
        during.append(probe(store))
        return real(store, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(statistics, "report_statistics", seen)
    return during


@pytest.mark.parametrize("chosen", [None, "2GB"], ids=["default", "SHOE_AUDIT_MEMORY"])
def test_the_report_holds_duckdb_to_its_own_limit_unless_one_was_chosen(
    night: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chosen: str | None
) -> None:
    """Issue 33: DuckDB caches every block the report reads up to its limit (1GB by
    default: most of a 1,000,000-round report's 1.5 GiB); the report holds it to
    REPORT_MEMORY_LIMIT (512MB) while it runs and gives the store's back after.
    SHOE_AUDIT_MEMORY still decides when set."""
    from audit.store import open_store

    if chosen is None:
        monkeypatch.delenv("SHOE_AUDIT_MEMORY", raising=False)
    else:
        monkeypatch.setenv("SHOE_AUDIT_MEMORY", chosen)
    during = _seen_by_the_statistics(monkeypatch, held_limit)
    with open_store(night, read_only=True) as store:
        before = held_limit(store)
        write_report(store, [DAY], tmp_path / "report", "html", generated_at=STAMP, workers=1)
        assert held_limit(store) == before
    assert before == shown(chosen or "1GB")
    assert during == [shown("512MB") if chosen is None else before]


def test_the_report_has_duckdb_give_freed_memory_back_while_it_runs(
    night: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33: without DuckDB's allocator background threads, what the statistics' queries
    freed stayed resident (~200 MiB of the 100,000-round night's report, growing with the
    rounds) under the evidence check and the hand pages' feed. The report turns them on
    while it runs, and leaves the setting as it found it."""
    from audit.store import open_store

    def threads(store: Store) -> bool:
        query = "SELECT current_setting('allocator_background_threads')"
        return bool(store.con.execute(query).fetchall()[0][0])

    during = _seen_by_the_statistics(monkeypatch, threads)
    with open_store(night, read_only=True) as store:
        assert not threads(store)
        write_report(store, [DAY], tmp_path / "report", "html", generated_at=STAMP, workers=1)
        assert not threads(store)
    assert during == [True]
