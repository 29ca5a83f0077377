"""The Master Game Report's rows from hand-built periods (accounting.md "The Master Game
Report", "Adjustments"): every column always present and in order, totals of the known
cells, holds half-even, MTD and YTD across a month boundary, adjustments and reversals."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D
from typing import Any

from audit.books.house import House
from audit.books.mgr import (
    ADJUSTMENT_COLUMNS,
    MGR_COLUMNS,
    adjustment_log,
    hold_text,
    mgr_rows,
    variance_periods,
)
from audit.books.model import Adjustment, Figures, Period

HOUSE = House(pits={"P1": ("T01", "T02"), "P2": ("T03",)})
NOV28 = dt.date(2026, 11, 28)


def period(
    table: str,
    day: dt.date = NOV28,
    *,
    shift: str = "day",
    status: str = "reconciled",
    currency: str | None = "EUR",
    win: str | None = "350",
    drop: str | None = "500",
    result: str = "350",
    tray: str | None = None,
    handle: str = "5000",
) -> Period:
    """A period whose books hold: opener 5,500, fill 1,000, closer 6,350, a 500 cash buy-in,
    and ``drop`` counted (None: no count yet, so no win either)."""
    f = Figures(
        sessions=1,
        opener=D("5500"),
        closer=D("6350"),
        fills=D("1000"),
        buy_ins_cash=D("500"),
        rounds=40,
        handle=D(handle),
        hands_result=D(result),
        drop_cash=None if drop is None else D(drop),
        tray_win=D(tray) if tray is not None else D(result),
        win=None if win is None else D(win),
    )
    return Period(
        table=table,
        gaming_day=day,
        shift=shift,
        pit=HOUSE.pit_of(table),
        status=status,  # type: ignore[arg-type]
        figures=f,
        currency=currency,
    )


def adjustment(
    id: str, table: str, line: str, amount: str, day: dt.date = NOV28, **kw: Any
) -> Adjustment:
    return Adjustment(
        id=id,
        source="trail",
        table=table,
        gaming_day=day,
        shift=kw.pop("shift", "day"),
        line=line,
        amount=D(amount),
        reason="recount",
        by="boss",
        **kw,
    )


def only(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    got = [r for r in rows if all(r[k] == v for k, v in match.items())]
    assert len(got) == 1, (match, got)
    return got[0]


def test_every_row_has_every_column_in_the_reports_order() -> None:
    rows = mgr_rows([period("T01"), period("T03", drop=None, win=None)], HOUSE)
    assert rows
    for r in rows:
        assert tuple(r) == MGR_COLUMNS
    assert [r["level"] for r in rows] == [
        "shift",
        "shift",
        "table",
        "table",
        "pit",
        "pit",
        "casino",
    ]


def test_the_worked_example_period_reads_as_reconciled() -> None:
    """accounting.md's worked example: W = 6,350 - 5,500 + 0 - 1,000 + 500 = 350 = R."""
    r = only(mgr_rows([period("T01")], HOUSE), level="shift")
    assert (r["opener"], r["fills"], r["credits"], r["closer"]) == ("5500", "1000", "0", "6350")
    assert (r["buy_ins"], r["drop"], r["win"], r["hands_result"]) == ("500", "500", "350", "350")
    assert (r["variance"], r["drop_variance"], r["tray_variance"]) == ("0", "0", "0")
    assert r["hold"] == "70.00" and r["hands_hold"] == "7.00"
    assert (r["adjustments"], r["win_adjusted"], r["hold_adjusted"]) == ("0", "350", "70.00")


def test_totals_sum_the_known_cells_and_recompute_hold_over_rows_with_a_known_win() -> None:
    rows = mgr_rows(
        [
            period("T01", win="350", drop="500"),
            period("T02", win=None, drop="300", tray=None, result="-20"),  # tray not bounded
            period("T03", win=None, drop=None),  # no count yet
        ],
        HOUSE,
    )
    p1 = only(rows, level="pit", pit="P1")
    assert p1["win"] == "350"  # the one known
    assert p1["drop"] == "800"  # both counts known
    assert p1["hold"] == "70.00"  # 350 / 500: T02's drop has no known win beside it
    assert p1["hands_result"] == "330"
    p2 = only(rows, level="pit", pit="P2")
    assert (p2["win"], p2["drop"], p2["hold"], p2["drop_cash"]) == (None, None, None, None)
    assert (p2["win_mtd"], p2["hold_mtd"]) == (None, None)
    casino = only(rows, level="casino")
    assert (casino["win"], casino["drop"], casino["sessions"], casino["rounds"]) == (
        "350",
        "800",
        3,
        120,
    )


def test_a_totals_status_is_the_first_of_not_audited_incomplete_pending() -> None:
    rows = mgr_rows(
        [
            period("T01", status="pending"),
            period("T02", status="incomplete"),
            period("T03", status="reconciled"),
        ],
        HOUSE,
    )
    assert only(rows, level="pit", pit="P1")["status"] == "incomplete"
    assert only(rows, level="pit", pit="P2")["status"] == "reconciled"
    assert only(rows, level="casino")["status"] == "incomplete"
    rows = mgr_rows([period("T01", status="pending"), period("T03", status="not_audited")], HOUSE)
    assert only(rows, level="casino")["status"] == "not_audited"


def test_hold_is_rounded_half_even_and_null_on_a_zero_or_unknown_drop() -> None:
    assert hold_text(D("1"), D("800")) == "0.12"  # 0.125: half-even, not half-up's 0.13
    assert hold_text(D("3"), D("800")) == "0.38"  # 0.375
    assert hold_text(D("18.23"), D("100")) == "18.23"
    assert hold_text(D("-50"), D("0")) is None
    assert hold_text(None, D("100")) is None
    r = only(mgr_rows([period("T01", win="1", drop="800", result="1")], HOUSE), level="shift")
    assert r["hold"] == "0.12"


def test_mtd_and_ytd_run_from_the_first_of_the_month_and_year_across_a_boundary() -> None:
    nov30, dec1, dec2 = dt.date(2026, 11, 30), dt.date(2026, 12, 1), dt.date(2026, 12, 2)
    periods = [
        period("T01", nov30, win="100", drop="1000", result="100"),
        period("T01", dec1, win="200", drop="1000", result="200"),
        period("T01", dec2, win=None, drop=None),  # unknown: adds neither win nor drop
    ]
    rows = mgr_rows(periods, HOUSE, first=dec1, last=dec2)
    assert {r["gaming_day"] for r in rows} == {"2026-12-01", "2026-12-02"}
    d1 = only(rows, level="shift", gaming_day="2026-12-01")
    assert (d1["win_mtd"], d1["drop_mtd"], d1["hold_mtd"]) == ("200", "1000", "20.00")
    assert (d1["win_ytd"], d1["drop_ytd"], d1["hold_ytd"]) == ("300", "2000", "15.00")
    d2 = only(rows, level="table", gaming_day="2026-12-02")
    assert d2["win"] is None
    assert (d2["win_mtd"], d2["drop_mtd"]) == ("200", "1000")
    assert (d2["win_ytd"], d2["drop_ytd"]) == ("300", "2000")
    casino = only(rows, level="casino", gaming_day="2026-12-02")
    assert (casino["win_ytd"], casino["hold_ytd"]) == ("300", "15.00")


def test_mtd_counts_a_tables_row_per_shift_and_per_currency_apart() -> None:
    periods = [
        period("T01", shift="day", win="100", drop="1000"),
        period("T01", shift="night", win="50", drop="500"),
        period("T03", currency="USD", win="10", drop="100"),
    ]
    house = House(
        pits=HOUSE.pits,
        shifts=(HOUSE.shifts[0], type(HOUSE.shifts[0])("night", dt.time(14, 0))),
    )
    rows = mgr_rows(periods, house)
    assert only(rows, level="shift", shift="night")["win_mtd"] == "50"
    assert only(rows, level="table", table="T01")["win_mtd"] == "150"
    casinos = [r for r in rows if r["level"] == "casino"]
    assert [(r["currency"], r["win"]) for r in casinos] == [("EUR", "150"), ("USD", "10")]


def test_adjustments_move_the_adjusted_books_never_the_counted_ones() -> None:
    adjs = [
        adjustment("ADJ-1", "T01", "closer", "50"),  # win +50
        adjustment("ADJ-2", "T01", "fills", "20"),  # win -20
        adjustment("ADJ-3", "T01", "drop_cash", "-100"),  # win -100, drop -100
        adjustment("ADJ-4", "T01", "tips", "15"),  # win 0
        adjustment("ADJ-5", "T01", "closer", "-50", reverses="ADJ-1"),  # cancels ADJ-1
    ]
    rows = mgr_rows([period("T01")], HOUSE, adjustments=adjs)
    r = only(rows, level="shift")
    assert (r["win"], r["drop"], r["closer"]) == ("350", "500", "6350")  # as counted
    assert r["adjustments"] == "-120"
    assert (r["win_adjusted"], r["drop_adjusted"], r["hold_adjusted"]) == ("230", "400", "57.50")
    assert (r["win_mtd"], r["drop_mtd"]) == ("230", "400")  # MTD uses the adjusted books
    assert only(rows, level="casino")["adjustments"] == "-120"


def test_an_adjustment_is_known_on_a_period_whose_win_is_not() -> None:
    rows = mgr_rows(
        [period("T01", win=None, drop=None)],
        HOUSE,
        adjustments=[adjustment("ADJ-1", "T01", "closer", "25")],
    )
    r = only(rows, level="shift")
    assert (r["adjustments"], r["win_adjusted"], r["drop_adjusted"]) == ("25", None, None)


def test_an_adjustment_without_shift_names_the_only_shift_at_a_house_with_one() -> None:
    adj = adjustment("A-1", "T01", "closer", "10", shift=None)
    assert (
        only(mgr_rows([period("T01")], HOUSE, adjustments=[adj]), level="shift")["adjustments"]
        == "10"
    )
    night = type(HOUSE.shifts[0])("night", dt.time(14, 0))
    two = House(pits=HOUSE.pits, shifts=(HOUSE.shifts[0], night))
    assert (
        only(mgr_rows([period("T01")], two, adjustments=[adj]), level="shift")["adjustments"] == "0"
    )


def test_findings_are_counted_on_their_period_and_added_up() -> None:
    rows = mgr_rows(
        [period("T01"), period("T02")],
        HOUSE,
        findings={("T01", NOV28, "day"): 2, ("T02", NOV28, "day"): 1},
    )
    assert only(rows, level="shift", table="T01")["findings"] == 2
    assert only(rows, level="pit", pit="P1")["findings"] == 3
    assert variance_periods(
        {("T01", NOV28, "day"): ["ACCT_SLIP_VOID"], ("T02", NOV28, "day"): ["ACCT_DROP_MISMATCH"]}
    ) == [("T02", NOV28, "day")]


def test_the_levels_asked_for_only() -> None:
    rows = mgr_rows([period("T01"), period("T03")], HOUSE, levels=["pit", "casino"])
    assert [r["level"] for r in rows] == ["pit", "pit", "casino"]


def test_the_adjustment_log_marks_those_over_the_reporting_threshold() -> None:
    adjs = [
        adjustment("ADJ-1", "T01", "drop_cash", "-2000"),  # at the threshold: not over
        adjustment("ADJ-2", "T01", "fills", "2000.01"),
        adjustment("ADJ-3", "T01", "fills", "-2000.01", reverses="ADJ-2"),
    ]
    log = adjustment_log(adjs, HOUSE)
    for r in log:
        assert tuple(r) == ADJUSTMENT_COLUMNS
    assert [(r["id"], r["effect"], r["reportable"]) for r in log] == [
        ("ADJ-1", "-2000", False),
        ("ADJ-2", "-2000.01", True),
        ("ADJ-3", "2000.01", True),
    ]
    assert log[2]["reverses"] == "ADJ-2"
