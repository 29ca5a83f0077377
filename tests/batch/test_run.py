"""`run` over a real DuckDB file: parallel equals serial, re-runs, interruption."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from audit.batch import run_audit
from audit.ingest import ingest_paths
from audit.profiles import load_registry
from audit.simulate import simulate
from audit.store import Store, open_store

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("night")
    simulate(out, tables=4, shoes=1, rounds=60, profiles=PROFILES, seed=5, error_rate=0.2)
    return out


def fresh_store(tmp_path: Path, night: Path) -> Store:
    tmp_path.mkdir(parents=True, exist_ok=True)
    store = open_store(tmp_path / "audit.duckdb")
    summary = ingest_paths(store, sorted(p for p in night.iterdir() if p.is_dir()))
    assert summary.rejected == 0
    return store


def signature(store: Store) -> Counter[str]:
    return Counter(f.to_json() for f in store.all_findings())


def test_two_workers_find_exactly_what_one_finds(tmp_path: Path, night: Path) -> None:
    registry = load_registry()
    with fresh_store(tmp_path, night) as store:
        one = run_audit(store, registry, workers=1)
        serial = signature(store)
        two = run_audit(store, registry, workers=2, all_shoes=True, batch_events=500)
        assert (one.shoes, one.rounds, one.findings) == (two.shoes, two.rounds, two.findings)
        assert signature(store) == serial
        assert one.findings > 0


def test_rerun_audits_nothing_and_duplicates_nothing(tmp_path: Path, night: Path) -> None:
    registry = load_registry()
    with fresh_store(tmp_path, night) as store:
        first = run_audit(store, registry, workers=1)
        before = signature(store)
        again = run_audit(store, registry, workers=1)
        assert again.shoes == 0 and first.shoes > 0
        assert signature(store) == before


def test_interrupted_run_leaves_whole_shoes_and_a_rerun_completes(
    tmp_path: Path, night: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = load_registry()
    with fresh_store(tmp_path, night) as store:
        run_audit(store, registry, workers=1)
        complete = signature(store)
        audited = len(store.shoe_info())

    with fresh_store(tmp_path / "b", night) as store:
        import audit.batch.runner as runner

        real = runner.write_results
        calls = 0

        def crash_on_second_batch(*args: Any, **kwargs: Any) -> None:
            nonlocal calls
            calls += 1
            if calls == 2:
                raise KeyboardInterrupt
            real(*args, **kwargs)

        monkeypatch.setattr(runner, "write_results", crash_on_second_batch)
        with pytest.raises(KeyboardInterrupt):
            run_audit(store, registry, workers=1, batch_events=800)
        monkeypatch.setattr(runner, "write_results", real)
        assert calls == 2
        partial = signature(store)
        assert set(partial) <= set(complete)
        resumed = run_audit(store, registry, workers=1)
        assert 0 < resumed.shoes < audited  # the first batch was kept whole, not redone
        assert signature(store) == complete


def test_a_run_in_many_scan_parts_finds_exactly_what_one_part_finds(
    tmp_path: Path, night: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each part's shoe metadata is read once, before its batches (issue 9): every shoe
    still gets its own profile, digest and context."""
    from functools import partial

    import audit.batch.runner as runner
    from audit.store.batches import stream_shoe_parts

    registry = load_registry()
    with fresh_store(tmp_path, night) as store:
        run_audit(store, registry, workers=1)
        whole = signature(store)
        rounds = store.con.execute("SELECT * FROM rounds ORDER BY ALL").fetchall()
        parts: list[int] = []

        def counted(*args: Any, **kwargs: Any) -> Any:
            for part, batches in partial(stream_shoe_parts, part_events=400)(*args, **kwargs):
                parts.append(len(part.keys))
                yield part, batches

        monkeypatch.setattr(runner, "stream_shoe_parts", counted)
        again = run_audit(store, registry, workers=1, all_shoes=True, batch_events=150)
        assert len(parts) > 2 and again.shoes == sum(parts)
        assert signature(store) == whole
        assert store.con.execute("SELECT * FROM rounds ORDER BY ALL").fetchall() == rounds
