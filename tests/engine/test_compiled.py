"""The engine users run is compiled with mypyc (setup.py); the tests run that same code.

``tests/engine_build.py`` holds the check that ``tests/conftest.py`` runs before
any test: an engine source edited since the build stops the session.
"""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from audit.engine import ShoeContext
from tests.engine_build import (
    ENGINE,
    SOURCES_FILE,
    compiled,
    loaded_from,
    pure_requested,
    stale_engine,
)


def test_engine_is_compiled() -> None:
    """Every engine module is imported compiled, unless the build was asked to be pure."""
    if pure_requested():
        pytest.skip("SHOE_AUDIT_PURE is set: the pure-Python reference engine is under test")
    pure = [stem for stem, origin in loaded_from().items() if not compiled(origin)]
    assert not pure, f"not compiled: {pure}; run `make engine` (SHOE_AUDIT_PURE unset)"
    assert stale_engine() is None


def test_shoe_context_crosses_processes() -> None:
    """run hands each shoe's context to worker processes in a pickle."""
    context = ShoeContext(first_shoe_of_gaming_day=False, banker="P3", banker_rounds_before=7)
    assert pickle.loads(pickle.dumps(context)) == context


@pytest.fixture
def built_copy(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """A copy of the engine's sources with the build record of this tree's compiled engine,
    and where each module would be loaded from were the copy compiled in place."""
    if not (ENGINE / SOURCES_FILE).is_file():
        pytest.skip("the engine is not compiled in place")
    engine = tmp_path / "engine"
    engine.mkdir()
    for p in [*ENGINE.glob("*.py"), ENGINE / SOURCES_FILE]:
        shutil.copy(p, engine / p.name)
    return engine, {p.stem: engine / f"{p.stem}.so" for p in engine.glob("*.py")}


def test_the_compiled_engine_matches_unedited_sources(
    built_copy: tuple[Path, dict[str, Path]],
) -> None:
    engine, origins = built_copy
    assert stale_engine(engine, origins) is None


def test_an_edited_source_is_stale(built_copy: tuple[Path, dict[str, Path]]) -> None:
    engine, origins = built_copy
    with (engine / "round.py").open("a") as f:
        f.write("# an edit\n")
    reason = stale_engine(engine, origins)
    assert reason == (
        "audit/engine/round.py changed since the engine was compiled: "
        "run `make setup` (or `make engine`, which always rebuilds it)"
    )


def test_a_new_or_removed_source_is_stale(built_copy: tuple[Path, dict[str, Path]]) -> None:
    engine, origins = built_copy
    (engine / "extra.py").write_text('"""A module added after the build."""\n')
    origins["extra"] = engine / "extra.py"
    (engine / "sink.py").unlink()
    del origins["sink"]
    reason = stale_engine(engine, origins)
    assert reason is not None and reason.startswith("audit/engine/extra.py, sink.py changed")


def test_a_missing_build_record_is_stale(built_copy: tuple[Path, dict[str, Path]]) -> None:
    engine, origins = built_copy
    (engine / SOURCES_FILE).unlink()
    reason = stale_engine(engine, origins)
    assert reason is not None and f"no {SOURCES_FILE}" in reason


def test_a_compiled_engine_from_elsewhere_is_not_this_tree(
    built_copy: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    engine, origins = built_copy
    origins["round"] = tmp_path / "site-packages" / "round.so"
    reason = stale_engine(engine, origins)
    assert reason is not None and "imported from" in reason
