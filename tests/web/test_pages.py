"""The web pages' data is the engine's and the store's, as ``run`` and ``hand`` give it."""

from __future__ import annotations

from pathlib import Path

from audit.batch import replay_stored_shoe
from audit.profiles import load_registry
from audit.reports import build_hand_context
from audit.store import ShoeKey, open_store
from audit.web import pages
from audit.web.data import Reader


def test_a_hand_page_replays_its_shoe_exactly_as_run_and_hand_do(db: Path) -> None:
    registry = load_registry()
    with open_store(db, read_only=True) as store:
        flagged = store.con.execute(
            "SELECT table_id, shoe, round FROM rounds WHERE findings > 0 ORDER BY ALL"
        ).fetchall()
        assert len(flagged) > 10
        contexts: dict[str, dict[ShoeKey, object]] = {}
        for table, shoe, rnd in flagged:
            ctx = contexts.setdefault(table, pages.table_contexts(store, table))
            page = pages.load_hand(
                store, registry, table, shoe, rnd, show_players=True, trail={}, contexts=ctx
            )
            replay, events = replay_stored_shoe(store, registry, ShoeKey(table, shoe))
            want = build_hand_context(replay, rnd, events=events)
            assert page.context.findings == want.findings, (table, shoe, rnd)
            assert page.context.wagers == want.wagers
            assert [s.source for s in page.context.steps] == [
                s.source
                for s in build_hand_context(
                    replay, rnd, events=events, sources=_sources(store, table, shoe)
                ).steps
            ]
            stored = {f.id for f in store.all_findings(table=table, shoe=shoe) if f.round == rnd}
            assert {h.finding.id for h in page.findings} == stored


def _sources(store: object, table: str, shoe: str) -> dict[str, tuple[str, int]]:
    from audit.reports.sources import event_sources

    return event_sources(store.con, table, shoe)  # type: ignore[attr-defined]


def test_kept_data_is_read_again_once_the_database_changes(db: Path) -> None:
    reader = Reader(db)
    calls: list[int] = []

    def count(store: object) -> int:
        calls.append(1)
        return len(calls)

    with open_store(db, read_only=True) as s:
        assert reader.memo("x", s, count) == 1
        assert reader.memo("x", s, count) == 1
    with open_store(db) as s:  # a writer (nightly) changes the file
        s.set_meta("touched", "yes")
        s.con.execute("CHECKPOINT")
    with open_store(db, read_only=True) as s:
        assert reader.memo("x", s, count) == 2
