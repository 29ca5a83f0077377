"""Cross-shoe context: inspection on the first shoe of a gaming day (001), banker stints (002)."""

from __future__ import annotations

import datetime as dt

from audit.batch.contexts import OutlineRow, group_outline, table_contexts
from audit.engine import ShoeContext
from audit.store import ShoeKey

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
        [("T2", "A", 3, "round_open", None, D1), ("T2", "A", 1, "shoe_open", "D", D1)]
    )
    assert [r.seq for r in grouped["T2"]] == [1, 3]
