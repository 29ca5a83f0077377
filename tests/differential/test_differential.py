"""The compiled engine proved against its reference, on nights drawn from TEL/1 (issue 28, pt 3).

The shipped build (mypyc, ``setup.py``) once raised ``TypeError`` on valid logs
its own simulator never writes (a ``spots`` list): nothing ran the compiled
engine on the whole format through ``run``'s decode path. Here every example is
a night of tens of shoes drawn from the format's grammar (:mod:`.grammar`:
every event type and optional field, legal and illegal values, odd orders),
written as JSON Lines, ingested once into a real DuckDB file, and audited by
:func:`audit.batch.run_audit` with an executor (:class:`.harness.Differential`)
that replays each of ``run``'s Arrow batches with the compiled engine here and
with the engine's ``.py`` sources in one long-lived second process
(:mod:`.pure`): findings, audit records and outcome rows must be identical, and
neither side may raise.

Hypothesis runs from a fixed seed (the same nights on every run, in CI too).
The default test replays a few hundred shoes; the ``slow`` one, in two halves
that ``-n 2`` runs side by side, at least 20,000 (``SHOE_AUDIT_FUZZ_SCALE=N``
multiplies that). Each records how many shoes it replayed both ways
(``differential_shoes``), which the terminal summary prints
(:mod:`tests.fuzz.summary`).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from audit.batch import run_audit
from audit.ingest import ingest_paths
from audit.store import open_store
from tests.differential.grammar import (
    FORMS,
    PROFILES,
    REGISTRY,
    UNKNOWN_PROFILE,
    ShoeSpec,
    drawn_vocabulary,
    model_vocabulary,
    night,
    write_night,
)
from tests.differential.harness import Differential, PureProcess

Record = Callable[[str, object], None]

SPECS = st.builds(
    ShoeSpec,
    profile=st.sampled_from(PROFILES) | st.just(UNKNOWN_PROFILE),
    seed=st.integers(0, 2**32 - 1),
    rounds=st.integers(1, 8),
    hostility=st.sampled_from([0, 0, 0, 1, 1, 2]),
)
"""One shoe: mostly plausible (hostility 0), a third with events moved or changed."""


@pytest.fixture(scope="module")
def pure() -> Iterator[PureProcess]:
    """The reference: one process importing the engine from its sources, for the module."""
    import audit.engine.round

    if not (audit.engine.round.__file__ or "").endswith(".so"):
        pytest.skip("the engine is not compiled here (SHOE_AUDIT_PURE build): nothing to compare")
    process = PureProcess()
    try:
        assert process.engine, "the pure process loaded no engine module"
        assert all(f.endswith(".py") for f in process.engine.values()), process.engine
        assert Path(process.audit_package).parent == Path(audit.__file__ or "").parent
        yield process
    finally:
        process.close()


def replay_night(
    pure: PureProcess, specs: list[ShoeSpec], tables: int, seed: int, batch_events: int
) -> int:
    """Ingest the night of ``specs`` and ``run`` it both ways; how many shoes were compared."""
    n = night(specs, tables, seed)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "night.jsonl"
        write_night(n, log, seed)
        with open_store(Path(tmp) / "audit.duckdb") as store:
            ingest_paths(store, [log])
            differential = Differential(pure)
            summary = run_audit(
                store, REGISTRY, all_shoes=True, executor=differential, batch_events=batch_events
            )
            assert summary.shoes == differential.shoes
            stored = store.con.execute("SELECT count(*) FROM shoe_audits").fetchone()
            assert stored is not None and stored[0] == differential.shoes
    return differential.shoes


def _differential(
    pure: PureProcess, nights: int, shoes: tuple[int, int], fixed_seed: int, record: Record
) -> int:
    """``nights`` nights of ``shoes`` shoes each, replayed both ways; records the shoe count."""
    compared = 0
    examples = 0
    cpu = time.process_time(), pure.cpu_seconds

    @seed(fixed_seed)  # the same nights on every run, in CI too
    @settings(
        max_examples=nights,
        database=None,
        deadline=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(
        specs=st.lists(SPECS, min_size=shoes[0], max_size=shoes[1]),
        tables=st.integers(1, 6),
        night_seed=st.integers(0, 2**32 - 1),
        batch_events=st.sampled_from([300, 3_000, 40_000]),
    )
    def check(specs: list[ShoeSpec], tables: int, night_seed: int, batch_events: int) -> None:
        nonlocal compared, examples
        compared += replay_night(pure, specs, tables, night_seed, batch_events)
        examples += 1

    check()
    record("differential_shoes", compared)
    record("differential_nights", examples)
    # CPU seconds of both processes (DuckDB's threads included): on a shared machine the
    # wall time says more about the neighbours than about the test.
    record(
        "differential_cpu_seconds",
        round(time.process_time() - cpu[0] + pure.cpu_seconds - cpu[1], 1),
    )
    return compared


def test_the_compiled_engine_agrees_with_its_sources(
    pure: PureProcess, record_property: Record
) -> None:
    # three nights (issue 33: eight were a twentieth of the default suite's time); the
    # slow test compares 20,000 shoes
    assert _differential(pure, 3, (30, 50), 28, record_property) >= 90


SLOW_SHOES = int(10_000 * float(os.environ.get("SHOE_AUDIT_FUZZ_SCALE", "1")))
"""Shoes of each half of the slow test (two, so that ``-n 2`` runs them side by side)."""
SLOW_NIGHT = 90
"""Shoes a night at volume: DuckDB's fixed cost of an ingest and a run (about 2 s) spread."""


@pytest.mark.slow
@pytest.mark.parametrize("half", [1, 2])
def test_the_compiled_engine_agrees_with_its_sources_at_volume(
    pure: PureProcess, record_property: Record, half: int
) -> None:
    nights = -(-SLOW_SHOES // SLOW_NIGHT)
    shoes = (SLOW_NIGHT, SLOW_NIGHT)
    assert _differential(pure, nights, shoes, 2800 + half, record_property) >= SLOW_SHOES


def test_the_grammar_draws_every_type_field_and_value_of_the_format() -> None:
    """A field, type or literal value added to the models fails here until the grammar draws it
    (the models are the format's one definition); so does a shape of :data:`FORMS`."""
    specs = [
        ShoeSpec(PROFILES[i % len(PROFILES)], seed=i, rounds=1 + i % 8, hostility=i % 3)
        for i in range(400)
    ]
    drawn = night(specs, tables=4, seed=1)
    missing = model_vocabulary() - drawn_vocabulary(drawn.lines)
    assert not missing, f"the grammar never draws {sorted(missing)}"
    assert FORMS - drawn.tags == set()


def test_the_vocabulary_follows_the_models() -> None:
    """The check above can fail: the vocabulary names the models' optional fields and values."""
    vocabulary = model_vocabulary()
    for entry in [
        ("action", "spots"),
        ("action", "amount"),
        ("burn", "pos"),
        ("shuffle", "order"),
        ("shoe_close", "remaining"),
        ("shoe_close", "reason", '"integrity"'),
        ("bet", "kind"),  # v1.2 (games.md §2): a pattern, not a list of values
        ("shoe_open", "side_limits"),
        ("shuffle", "method", '"machine"'),
        ("envelope", "v"),
    ]:
        assert entry in vocabulary, entry
    assert ("action", "spots") not in drawn_vocabulary([{"type": "action", "box": 1}])
