"""What `run` stores beside its findings: rounds and wagers, and the findings' stable ids.

Every figure of the report and the statistics comes from these rows, so they
must say exactly what the engine's records say, once per round and wager,
whatever the batching, and keep their ids across re-runs.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from audit.batch import run_audit, shoe_contexts
from audit.batch.runner import profile_for
from audit.engine import RoundRow, WagerRow, replay_shoe
from audit.engine.outcome import due_units
from audit.findings import assign_ids, finding_id
from audit.ingest import ingest_paths
from audit.profiles import load_registry
from audit.reports.hand import build_hand_context
from audit.simulate import simulate
from audit.store import Store, open_store
from audit.store.batches import _outcome_schemas

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("night")
    simulate(out, tables=4, shoes=1, rounds=50, profiles=PROFILES, seed=8, error_rate=0.25)
    return out


def _audited(tmp_path: Path, night: Path, **kw: Any) -> Store:
    tmp_path.mkdir(parents=True, exist_ok=True)
    store = open_store(tmp_path / "audit.duckdb")
    ingest_paths(store, sorted(p for p in night.iterdir() if p.is_dir()))
    run_audit(store, load_registry(), **kw)
    return store


def _rows(store: Store, table: str) -> list[tuple[Any, ...]]:
    return store.con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()


def test_outcome_columns_follow_the_engine_rows() -> None:
    rounds, wagers = _outcome_schemas()
    assert tuple(rounds.names) == RoundRow._fields
    assert tuple(wagers.names) == WagerRow._fields


def test_one_row_per_round_and_wager_whatever_the_batches(tmp_path: Path, night: Path) -> None:
    """rules.md: one round, one outcome; a shoe is never split, so batch size changes nothing."""
    with _audited(tmp_path / "a", night, workers=1) as one:
        rounds, wagers = _rows(one, "rounds"), _rows(one, "wagers")
        audited = one.con.execute("SELECT sum(rounds) FROM shoe_audits").fetchone()
        keys = one.con.execute(
            "SELECT count(*), count(DISTINCT (table_id, shoe, round)) FROM rounds"
        ).fetchone()
    assert audited == (len(rounds),) and keys == (len(rounds), len(rounds))
    with _audited(tmp_path / "b", night, workers=2, batch_events=300) as two:
        assert _rows(two, "rounds") == rounds and _rows(two, "wagers") == wagers
        run_audit(two, load_registry(), all_shoes=True, workers=1)
        assert _rows(two, "rounds") == rounds and _rows(two, "wagers") == wagers


def test_stored_outcomes_say_what_the_records_say(tmp_path: Path, night: Path) -> None:
    """The rows `run` stores and the records pages render come from the same judged round."""
    registry = load_registry()
    with _audited(tmp_path, night, workers=1) as store:
        keys = sorted(store.shoe_info())
        contexts = shoe_contexts(store, keys)
        events = store.load_shoe_events(keys)
        info = store.shoe_info(keys)
        stored = {
            (r[0], r[1], r[2], r[3], r[4], r[5], r[6]): r
            for r in store.con.execute(
                "SELECT table_id, shoe, round, box, hand, spot, kind, stake, due, settled, verdict"
                " FROM wagers"
            ).fetchall()
        }
        dealers = dict(
            ((t, s, n), (d, up, c))
            for t, s, n, d, up, c in store.con.execute(
                "SELECT table_id, shoe, round, dealer, dealer_upcard, dealer_completed FROM rounds"
            ).fetchall()
        )
    checked = 0
    for key in keys:
        replay = replay_shoe(events[key], profile_for(registry, info[key].profile), contexts[key])
        for rnd in replay.rounds:
            d = rnd.dealer
            assert dealers[(key.table, key.shoe, rnd.round)] == (rnd.banker, d.upcard, d.completed)
            for w in rnd.wagers:
                row = stored[(key.table, key.shoe, rnd.round, w.box, w.hand, w.spot, w.kind)]
                settled = sum(w.actual, Decimal(0)) if w.actual else None
                assert row[7:] == (w.stake, w.expected, settled, w.verdict)
                checked += 1
    assert checked > 100


def test_finding_ids_are_stable_across_reruns(tmp_path: Path, night: Path) -> None:
    """A finding's id comes from what identifies the breach, not from when it was raised."""
    with _audited(tmp_path, night, workers=1) as store:
        first = {f.id: f.code for f in store.all_findings()}
        run_audit(store, load_registry(), all_shoes=True, workers=2, batch_events=500)
        again = {f.id: f.code for f in store.all_findings()}
    assert None not in first and len(first) > 10
    assert again == first


def test_occurrences_tell_one_place_apart() -> None:
    from audit.findings import Code, Finding

    f = Finding(code=Code.DEALER_DREW_ON_STAND, message="x", table="T", shoe="S", round=3)
    a, b = assign_ids([f, f])
    assert a != b and a == finding_id(f.identity(), 0) and b == finding_id(f.identity(), 1)


def test_due_to_a_fraction_of_a_cent_is_kept_exactly() -> None:
    from fractions import Fraction

    assert due_units(Fraction(7575, 2)) == 378750  # 37.875 in hundredths of a cent
    assert due_units(-1500) == -150000


def test_a_flagged_round_alone_replays_as_in_its_shoe(tmp_path: Path, night: Path) -> None:
    """Pages replay only the rounds they show: on a night with injected errors, each flagged
    round's steps, findings and page are exactly those of the whole shoe's replay."""
    registry = load_registry()
    with _audited(tmp_path, night, workers=1) as store:
        keys = sorted(store.shoe_info())
        contexts = shoe_contexts(store, keys)
        events = store.load_shoe_events(keys)
        info = store.shoe_info(keys)
        flagged = store.con.execute(
            "SELECT table_id, shoe, list(round ORDER BY round) FROM rounds WHERE findings > 0"
            " GROUP BY ALL"
        ).fetchall()
    checked = 0
    for table, shoe, numbers in flagged:
        key = next(k for k in keys if (k.table, k.shoe) == (table, shoe))
        profile = profile_for(registry, info[key].profile)
        full = replay_shoe(events[key], profile, contexts[key])
        part = replay_shoe(events[key], profile, contexts[key], rounds=numbers)
        assert part.round_numbers == full.round_numbers
        # the shoe's own findings too (a burn inside a round passed over is not "between rounds")
        assert [f for f in part.findings if f.round is None] == [
            f for f in full.findings if f.round is None
        ]
        assert part.burned_later == full.burned_later
        for r in part.rounds:
            assert r.to_dict() == full.round_replay(r.round).to_dict()  # type: ignore[union-attr]
            # and its page: its neighbours and its place in the shoe included
            assert build_hand_context(part, r.round, profile, events=events[key]) == (
                build_hand_context(full, r.round, profile, events=events[key])
            )
            checked += 1
    assert checked > 10


def test_a_page_replays_a_shoe_with_the_context_run_audited_it_with(
    tmp_path: Path, night: Path
) -> None:
    """``run`` stores each shoe's cross-shoe context (inspection 001, banker stint 002) with
    its results, and a replay for a page takes that one, not one worked out again, so the
    page shows the verdicts as they were made; a shoe without one (audited before schema
    7) gets its context from its table's outline."""
    from audit.batch.contexts import group_outline, outline_rows, table_contexts

    with _audited(tmp_path, night, workers=2, batch_events=300) as store:
        keys = sorted(store.shoe_info())
        worked_out = {}
        tables = sorted({k.table for k in keys})
        for table, outline in group_outline(outline_rows(store, tables)).items():
            worked_out.update(table_contexts(table, outline))
        assert any(c.banker for c in worked_out.values())  # the home game's banker
        assert shoe_contexts(store, keys) == {k: worked_out[k] for k in keys}
        first, second = keys[0], keys[1]
        store.con.execute(
            """UPDATE shoe_audits SET context_banker_rounds = 99
               WHERE table_id = ? AND shoe = ?""",
            list(first),
        )
        store.con.execute(
            """UPDATE shoe_audits SET context_first_shoe = NULL, context_banker_rounds = 99
               WHERE table_id = ? AND shoe = ?""",
            list(second),
        )
        got = shoe_contexts(store, keys)
    assert got[first].banker_rounds_before == 99
    assert got[second] == worked_out[second]
    assert {k: c for k, c in got.items() if k != first} == {
        k: worked_out[k] for k in keys if k != first
    }
