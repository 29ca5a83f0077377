"""What a batch costs to send to a worker (a local process or a Dask task): its own rows only."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from audit.store import ShoeKey, Store
from audit.store.batches import (
    BATCH_SQL,
    SHOE_EVENTS,
    decode_batch,
    run_keys,
    shoe_events_apart,
    stream_shoe_batches,
)


def test_every_batch_pickles_at_its_own_size_not_its_parents(
    ingested: Callable[[int], Store],
) -> None:
    with ingested(2) as store:
        keys = sorted(store.shoe_info())
        batches = list(stream_shoe_batches(store, keys, 700))
    assert len(batches) > 5 and sum(b.num_rows for b in batches) > 5 * 700
    for b in batches:
        # A slice pickles its parent's whole buffers: a carried shoe would double a batch.
        apart = len(b.schema.metadata[SHOE_EVENTS.encode()])
        assert len(pickle.dumps(b, protocol=5)) < 1.1 * b.nbytes + apart + 20_000


def test_shoe_events_travel_apart_and_come_back_whole(
    ingested: Callable[[int], Store],
) -> None:
    """The forty-column ``shoe_event`` struct is null on most rows: only its rows are sent."""
    with ingested(2) as store:
        keys = sorted(store.shoe_info())
        batches = list(stream_shoe_batches(store, keys, 700))
        cur = store.con.cursor()
        run_keys(cur, keys)
        whole = cur.sql(BATCH_SQL).to_arrow_table()
    sent = [pickle.loads(pickle.dumps(b, protocol=5)) for b in batches]
    assert all("shoe_event" not in b.column_names for b in sent)
    # The same events as the whole scan decoded with its column (the Parquet source's way).
    assert [x for b in sent for x in decode_batch(b)] == decode_batch(whole)
    assert decode_batch(shoe_events_apart(whole)) == decode_batch(whole)
    # And well under half the bytes of the batch with the struct as a column.
    assert sum(len(pickle.dumps(b, protocol=5)) for b in sent) < 0.5 * whole.nbytes


def test_a_page_batch_stops_where_its_pages_do_and_carries_their_rounds_facts(
    ingested: Callable[[int], Store],
) -> None:
    """Hand pages (issue 10, points 2 and 10): each shoe's events up to its ``upto_seq``,
    lean as ``run`` reads them but for the shoe events, which come as their TEL/1 models;
    the shoe events and the paged rounds' events with the file and line each was read
    from, and the paged rounds' events with their ``ts`` as logged."""
    import pyarrow as pa

    from audit.engine.event import ROUND_TYPES, RoundEvent
    from audit.events.models import UnknownEvent
    from audit.store.batches import Paged, decode_page_batch

    with ingested(2) as store:
        keys = sorted(store.shoe_info())[:3]
        whole = dict(decode_batch(pa.concat_tables(stream_shoe_batches(store, keys, 10**9))))
        models = store.load_shoe_events(keys)
        pages = {}
        for k in keys:
            rounds = sorted({e.round for e in whole[k] if isinstance(e, RoundEvent)})
            paged = rounds[1:2]  # the second round of the shoe
            upto = max(e.seq for e in whole[k] if getattr(e, "round", None) in paged)
            pages[k] = Paged(paged, upto)
        got = [
            x
            for b in stream_shoe_batches(store, keys, 300, pages=pages)
            for x in decode_page_batch(b)
        ]
        lines = {
            i: (f, n)
            for i, f, n in store.con.execute("SELECT id, file_id, line_no FROM events").fetchall()
        }
    assert [x.key for x in got] == keys
    for key, events, read_at, logged_at in got:
        wanted, upto = pages[key]
        assert events == [e for e in whole[key] if e.seq <= upto]  # as run reads them
        full = [e for e in events if not isinstance(e, RoundEvent)]
        assert all(e.type not in ROUND_TYPES or isinstance(e, UnknownEvent) for e in full)
        in_round = {e.id for e in events if isinstance(e, RoundEvent) and e.round in wanted}
        assert in_round
        assert in_round == {
            e.id for e in whole[key] if isinstance(e, RoundEvent) and e.round in wanted
        }
        # shoe events and the paged rounds' events: each one's source, and no other's
        assert read_at == {i: lines[i] for i in {e.id for e in full} | in_round}
        assert logged_at == {e.id: e.ts for e in models[key] if e.id in in_round}


def test_a_scan_in_parts_reads_every_shoe_whole_each_part_from_the_files_that_hold_it(
    ingested: Callable[[int], Store],
) -> None:
    """A million-round night in one sorted scan spilled its sort to disk and kept the
    workers waiting for it: the shoes are read in parts, each from its range of files."""
    import pyarrow as pa

    from audit.store.batches import scan_parts

    with ingested(2) as store:
        keys = sorted(store.shoe_info())
        # One event of the first shoe stored as if read from a file far from its own:
        # the parts take their ranges from the events, so it is still read with its shoe.
        moved = store.con.execute(
            "SELECT id FROM events WHERE table_id = ? AND shoe = ? ORDER BY seq DESC LIMIT 1",
            [keys[0].table, keys[0].shoe],
        ).fetchall()[0][0]
        store.con.execute("UPDATE events SET file_id = 10**6 WHERE id = ?", [moved])
        whole = dict(decode_batch(pa.concat_tables(stream_shoe_batches(store, keys, 10**9))))
        parts = scan_parts(store, keys, 2_000)
        in_parts = [
            x
            for b in stream_shoe_batches(store, keys, 700, part_events=2_000)
            for x in decode_batch(b)
        ]
        spans = store.con.execute(
            "SELECT table_id, shoe, min(file_id), max(file_id), count(*) FROM events GROUP BY ALL"
        ).fetchall()
    assert len(parts) > 3
    assert [k for p in parts for k in p.keys] == [k for k, _ in in_parts]  # parts in order
    assert sorted(k for k, _ in in_parts) == keys and dict(in_parts) == whole
    assert moved in {e.id for e in whole[keys[0]]}
    span = {(t, s): (lo, hi, n) for t, s, lo, hi, n in spans}
    for p in parts:
        for k in p.keys:
            lo, hi, _ = span[(k.table, k.shoe)]
            assert p.first_file <= lo and hi <= p.last_file
        # each part is about part_events: a shoe more would have passed it
        assert sum(span[(k.table, k.shoe)][2] for k in p.keys[:-1]) <= 2_000
    firsts = [min(span[(k.table, k.shoe)][0] for k in p.keys) for p in parts]
    assert firsts == sorted(firsts)  # the order events were stored in


def test_a_line_with_fields_beyond_the_schema_comes_back_whole_in_both_scans(
    tmp_path: Path,
) -> None:
    """``raw`` is joined in only for the rows that have extra fields (``has_extra``): the
    scans of ``run`` and of hand pages give those events their extra fields, and every
    other event none, as the store's own loader does."""
    import pyarrow as pa

    from audit.engine.event import RoundEvent
    from audit.ingest import ingest_paths
    from audit.store import ShoeKey, open_store
    from audit.store.batches import Paged, decode_page_batch
    from tests.ingest.helpers import dumps, ev, write_lines

    lines = [
        dumps(ev(1, "shoe_open", shoe="S", profile="p", decks=6, dealer="D", note={"a": [1]})),
        dumps(ev(2, "shuffle", shoe="S", method="machine")),
        dumps(ev(3, "tip_box", shoe="S", round=1, amount=5)),
        dumps(ev(4, "round_open", shoe="S", round=1, lamp="red")),
        dumps(ev(5, "round_open", shoe="S", round=2)),
    ]
    with open_store(tmp_path / "audit.duckdb") as store:
        ingest_paths(store, [write_lines(tmp_path / "x.jsonl", lines)])
        key = ShoeKey("T07", "S")
        want = store.load_shoe_events([key])[key]
        ((_, run_events),) = decode_batch(pa.concat_tables(stream_shoe_batches(store, [key], 99)))
        pages = {key: Paged([1], 5)}
        ((_, page_events, _, _),) = [
            x
            for b in stream_shoe_batches(store, [key], 99, pages=pages)
            for x in decode_page_batch(b)
        ]
    extras = {e.id: e.model_extra for e in want if not isinstance(e, RoundEvent) and e.model_extra}
    assert set(extras) == {"T07-1", "T07-3", "T07-4"}
    for got in (run_events, page_events):
        full = {e.id: e for e in got if not isinstance(e, RoundEvent)}
        assert {i: e.model_extra for i, e in full.items() if e.model_extra} == {
            i: x for i, x in extras.items() if i in full
        }
    assert {"T07-1", "T07-3"} <= {e.id for e in run_events if not isinstance(e, RoundEvent)}
    # the page scan carries the paged round's events lean, as run does (a page shows none
    # of a round event's fields beyond the schema)
    assert [e for e in page_events if e.id == "T07-4"] == [e for e in run_events if e.id == "T07-4"]


def test_a_page_scan_in_parts_reads_each_shoe_in_its_order_up_to_its_pages(
    ingested: Callable[[int], Store],
) -> None:
    """The page scans fetch by ``rowid`` the rows a pass over the key columns chose
    (``_page_rows``): read in parts, with one event stored as if from a far file, each
    shoe still comes whole up to its last paged event, in the engine's order."""
    import pyarrow as pa

    from audit.engine.event import RoundEvent
    from audit.store.batches import Paged, decode_page_batch

    with ingested(2) as store:
        keys = sorted(store.shoe_info())
        moved = store.con.execute(
            "SELECT id FROM events WHERE table_id = ? AND shoe = ? ORDER BY seq LIMIT 1 OFFSET 3",
            [keys[0].table, keys[0].shoe],
        ).fetchall()[0][0]
        store.con.execute("UPDATE events SET file_id = 10**6 WHERE id = ?", [moved])
        whole = dict(decode_batch(pa.concat_tables(stream_shoe_batches(store, keys, 10**9))))
        pages = {}
        for k in keys:
            rounds = sorted({e.round for e in whole[k] if isinstance(e, RoundEvent)})
            paged = rounds[-2:-1] or rounds[:1]
            pages[k] = Paged(paged, max(e.seq for e in whole[k] if getattr(e, "round", 0) in paged))
        got = [
            x
            for b in stream_shoe_batches(store, keys, 500, pages=pages, part_events=1_500)
            for x in decode_page_batch(b)
        ]
    assert sorted(x.key for x in got) == keys
    for key, events, _, logged_at in got:
        wanted, upto = pages[key]
        assert [(e.id, e.seq) for e in events] == [
            (e.id, e.seq) for e in whole[key] if e.seq <= upto
        ]
        assert set(logged_at) == {
            e.id for e in whole[key] if isinstance(e, RoundEvent) and e.round in wanted
        }
    assert moved in {e.id for e in got[[x.key for x in got].index(keys[0])].events}


def _page_steps_and_hand_steps(store: Store, keys: list[ShoeKey]) -> Iterator[tuple[Any, Any]]:
    """For every round of ``keys``: its report page's context, made as a report's page
    workers make it (one page scan, lean events and their facts), and the ``hand``
    command's (the shoe's TEL/1 models from the store)."""
    from audit.batch.pages import PagedShoe, PlannedRound, shoe_pages
    from audit.batch.runner import replay_stored_shoe, shoe_contexts
    from audit.profiles import load_registry
    from audit.reports.hand import build_hand_context
    from audit.reports.sources import event_sources
    from audit.store.batches import Paged, decode_page_batch

    registry = load_registry()
    models = {k: store.load_shoe_events([k])[k] for k in keys}
    rounds = {
        k: sorted({e.round for e in v if getattr(e, "round", None)}) for k, v in models.items()
    }
    pages = {k: Paged(rounds[k], max(e.seq for e in models[k])) for k in keys}
    infos, contexts = store.shoe_info(keys), shoe_contexts(store, keys)
    paths = store.input_paths()
    for batch in stream_shoe_batches(store, keys, 300, pages=pages):
        for got in decode_page_batch(batch):
            key = got.key
            shoe = PagedShoe(
                key,
                infos[key].profile,
                contexts[key],
                tuple(PlannedRound(r, True, 1, "high") for r in rounds[key]),
            )
            sources = {i: (paths[f], n) for i, (f, n) in got.read_at.items()}
            made = shoe_pages(shoe, got.events, sources, registry, True, logged_at=got.logged_at)
            replay, events = replay_stored_shoe(store, registry, key)
            where = event_sources(store.con, key.table, key.shoe)
            for (_, page), rnd in zip(made, rounds[key], strict=True):
                yield page, build_hand_context(replay, rnd, events=events, sources=where)


def test_a_report_page_shows_each_step_as_the_hand_command_does_from_lean_events(
    ingested: Callable[[int], Store],
) -> None:
    """A report's page scan carries its rounds' events lean, as ``run`` reads them, with
    their local time and source beside (``PAGE_FACTS``): every step's time, source, card
    face and decision, and the shoe's story, are those the ``hand`` command shows from
    the TEL/1 models (issue 10, point 10)."""
    with ingested(2) as store:
        keys = sorted(store.shoe_info())[:4]
        pairs = list(_page_steps_and_hand_steps(store, keys))
    assert len(pairs) > 40
    for page, hand in pairs:
        assert page.steps == hand.steps and page.story == hand.story
        assert all(s.ts and s.source for s in page.steps)
    decisions = {s.decision for page, _ in pairs for s in page.steps}
    assert {"hit", "stand", "insurance"} <= decisions


def test_a_report_page_keeps_each_events_own_utc_offset_and_fraction_of_a_second(
    tmp_path: Path,
) -> None:
    """``ts`` as logged, each event with its own offset (``Z``, ``+05:30``, ``-03:00``) and
    microseconds, and a card dealt face down: the page scan's facts give the same
    step lines as the models do."""
    import datetime as dt
    import json

    from audit.ingest import ingest_paths
    from audit.store import open_store

    zones = [
        dt.UTC,
        dt.timezone(dt.timedelta(hours=5, minutes=30)),
        dt.timezone(-dt.timedelta(hours=3)),
    ]
    worked = Path(__file__).resolve().parents[1] / "data" / "worked_example.jsonl"
    lines = []
    for n, line in enumerate(worked.read_text().splitlines()):
        obj = json.loads(line)
        if "round" in obj:
            when = dt.datetime.fromisoformat(obj["ts"]) + dt.timedelta(microseconds=1000 * n + 7)
            obj["ts"] = when.astimezone(zones[n % 3]).isoformat().replace("+00:00", "Z")
            if obj["type"] == "card" and obj.get("to") == "dealer":
                obj["face_up"] = False
        lines.append(json.dumps(obj))
    log = tmp_path / "T07.jsonl"
    log.write_text("\n".join(lines) + "\n")
    with open_store(tmp_path / "audit.duckdb") as store:
        assert ingest_paths(store, [log]).rejected == 0
        pairs = list(_page_steps_and_hand_steps(store, sorted(store.shoe_info())))
    assert pairs
    shown = [s for page, hand in pairs for s in page.steps]
    for page, hand in pairs:
        assert page.steps == hand.steps and page.story == hand.story
    assert {s.ts[-6:] for s in shown if s.ts} >= {"+00:00", "+05:30", "-03:00"}
    assert any(s.ts and "." in s.ts for s in shown)
    assert any(s.card is not None and not s.card.face_up for s in shown)


def test_a_report_page_tells_the_time_of_an_earlier_rounds_late_event_as_hand_does(
    tmp_path: Path,
) -> None:
    """A settle of round 1 logged after round 1 closed (``PAY_DUPLICATE``, a line of the
    shoe's story on the later rounds' pages): its time comes from the page scan's facts,
    as the ``hand`` command takes it from the model."""
    from audit.ingest import ingest_paths
    from audit.store import open_store
    from tests.ingest.helpers import shoe_events, write_events

    events = shoe_events(shoe="S1", rounds=3)
    close_1 = next(
        i for i, e in enumerate(events) if e["type"] == "round_close" and e["round"] == 1
    )
    settle_1 = next(e for e in events if e["type"] == "settle" and e["round"] == 1)
    events.insert(close_1 + 1, dict(settle_1))
    for seq, e in enumerate(events, start=1):  # ids, seqs and times in the new order
        e.update(id=f"T07-{seq}", seq=seq, ts=f"2026-11-28T20:{seq // 60:02d}:{seq % 60:02d}+01:00")
    late = events[close_1 + 1]["id"]
    log = write_events(tmp_path / "T07.jsonl", events)
    with open_store(tmp_path / "audit.duckdb") as store:
        assert ingest_paths(store, [log]).rejected == 0
        pairs = list(_page_steps_and_hand_steps(store, sorted(store.shoe_info())))
    assert len(pairs) == 3
    for page, hand in pairs:
        assert page.steps == hand.steps and page.story == hand.story
    told = [line for page, _ in pairs[1:] for line in page.story.lines if line.event_id == late]
    assert len(told) == 2 and all(line.ts and line.source for line in told)
