"""Cross-shoe context: inspection on the first shoe of a gaming day (001), banker stints (002)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.batch.contexts import (
    RUN_CONTEXTS,
    OutlineRow,
    group_outline,
    outline_rows,
    store_run_contexts,
    table_contexts,
)
from audit.engine import ShoeContext
from audit.store import ShoeKey, open_store

D1 = dt.date(2026, 11, 28)
D2 = dt.date(2026, 11, 29)


def ventuno(shoes: list[tuple[str, str, list[str | None]]]) -> list[OutlineRow]:
    """Outline of one-round shoes: (shoe, dealer at open, dealer changes before the round)."""
    rows: list[OutlineRow] = []
    seq = 0
    for shoe, dealer, changes in shoes:
        seq += 1
        rows.append(OutlineRow(shoe, seq, "shoe_open", dealer, D1))
        for c in changes:
            seq += 1
            rows.append(OutlineRow(shoe, seq, "dealer_change", c, D1))
        seq += 1
        rows.append(OutlineRow(shoe, seq, "round_open", None, D1))
    return rows


def test_first_shoe_of_each_gaming_day_needs_inspection_001() -> None:
    rows = [
        OutlineRow("S1", 1, "shoe_open", "D1", D1),
        OutlineRow("S2", 5, "shoe_open", "D1", D1),
        OutlineRow("S3", 9, "shoe_open", "D1", D2),
    ]
    ctx = table_contexts("T1", rows)
    assert [ctx[ShoeKey("T1", s)].first_shoe_of_gaming_day for s in ("S1", "S2", "S3")] == [
        True,
        False,
        True,
    ]


def test_banker_stint_spans_one_round_shoes_002() -> None:
    rows = ventuno([(f"S{i}", "B1", []) for i in range(1, 5)])
    ctx = table_contexts("T1", rows)
    assert ctx[ShoeKey("T1", "S1")] == ShoeContext(True, None, 0)
    assert ctx[ShoeKey("T1", "S4")].banker == "B1"
    assert ctx[ShoeKey("T1", "S4")].banker_rounds_before == 3


def test_bank_passing_resets_the_stint_002() -> None:
    rows = ventuno([("S1", "B1", []), ("S2", "B1", ["B2"]), ("S3", "B2", []), ("S4", "B3", [])])
    ctx = table_contexts("T1", rows)
    assert (ctx[ShoeKey("T1", "S3")].banker, ctx[ShoeKey("T1", "S3")].banker_rounds_before) == (
        "B2",
        1,
    )
    assert (ctx[ShoeKey("T1", "S4")].banker, ctx[ShoeKey("T1", "S4")].banker_rounds_before) == (
        "B2",
        2,
    )


def test_group_outline_orders_by_seq_per_table() -> None:
    grouped = group_outline(
        [("T2", "A", 3, "dealer_change", "E", D1, 1), ("T2", "A", 1, "shoe_open", "D", D1, 0)]
    )
    assert [(r.seq, r.rounds_before) for r in grouped["T2"]] == [(1, 0), (3, 1)]


def test_round_opens_counted_before_a_row_give_what_they_give_as_rows_002() -> None:
    listed = ventuno([("S1", "B1", []), ("S2", "B1", ["B2"]), ("S3", "B2", []), ("S4", "B3", [])])
    counted, n = [], 0
    for row in listed:
        if row.type == "round_open":
            n += 1
        else:
            counted.append(OutlineRow(row.shoe, row.seq, row.type, row.dealer, row.gaming_day, n))
            n = 0
    assert table_contexts("T1", counted) == table_contexts("T1", listed)


_ROW = st.tuples(
    st.sampled_from(["shoe_open", "dealer_change", "round_open", "round_open"]),
    st.sampled_from(["B1", "B2", None]),
    st.sampled_from([D1, D2]),
    st.integers(-1, 2),  # how far seq moves on: 0 repeats a seq, -1 goes back
)


@pytest.fixture(scope="module")
def outline_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("outline") / "audit.duckdb"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tables=st.lists(st.lists(_ROW, max_size=30), min_size=1, max_size=3))
def test_run_reads_each_shoes_context_as_the_rules_work_it_out_from_every_event_001_002(
    outline_db: Path, tables: list[list[tuple[str, str | None, dt.date, int]]]
) -> None:
    """What ``run`` stores for each shoe (round opens counted in SQL) is
    :func:`table_contexts` of the table's every event in ``seq`` order, and in the order
    they were logged where a log repeats a ``seq``."""
    with open_store(outline_db) as store:
        con = store.con
        con.execute("DELETE FROM events")
        con.execute("DELETE FROM shoes")
        expected: dict[ShoeKey, ShoeContext] = {}
        line = 0
        for t, rows in enumerate(tables):
            table, shoe, seq, listed, days = f"T{t}", "S0", 0, [], {}
            for etype, dealer, day, step in rows:
                line += 1
                seq += step if listed else 1
                if etype == "shoe_open":
                    shoe = f"S{line}"
                    days[shoe] = day
                listed.append(OutlineRow(shoe, seq, etype, dealer, None))
                con.execute(
                    """INSERT INTO events (id, table_id, shoe, seq, ts, ts_local, utc_offset_min,
                         type, known_type, dealer, has_extra, raw, file_id, line_no)
                       VALUES (?, ?, ?, ?, now(), now()::TIMESTAMP, 0, ?, true, ?, false, '{}',
                               1, ?)""",
                    [f"e{line}", table, shoe, seq, etype, dealer, line],
                )
            for s, day in days.items():
                con.execute(
                    """INSERT INTO shoes (table_id, shoe, gaming_day, first_seq, last_seq,
                         events, events_digest) VALUES (?, ?, ?, 0, 0, 0, '')""",
                    [table, s, day],
                )
            # in seq order; rows of one seq in the order they were logged (a stable sort)
            listed = [
                OutlineRow(r.shoe, r.seq, r.type, r.dealer, days.get(r.shoe))
                for r in sorted(listed, key=lambda r: r.seq)
            ]
            expected.update(table_contexts(table, listed))
        names = [f"T{t}" for t in range(len(tables))]
        store_run_contexts(store, names)
        got = {
            ShoeKey(t, s): ShoeContext(f, b, n)
            for t, s, f, b, n in con.execute(f"SELECT * FROM {RUN_CONTEXTS}").fetchall()
        }
        assert got == expected
        worked_out: dict[ShoeKey, ShoeContext] = {}
        for table, outline in group_outline(outline_rows(store, names)).items():
            worked_out.update(table_contexts(table, outline))
        assert worked_out == expected
