"""Every ACCT_ code: a period that obeys its rule and one that breaks it, written by hand
from accounting.md "The catalogue", named after the rule and its regulation."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

from audit.books.model import Signer
from audit.findings import Code
from tests.books.builders import Night, T07_session, at, chips, codes

D28, D29, D30 = "2026-11-28", "2026-11-29", "2026-11-30"
OPEN = chips(d5=200, d25=100, d100=20)  # 5,500


def one(books: object, code: str) -> object:
    found = [f for f in books.findings if f.code == code]  # type: ignore[attr-defined]
    assert len(found) == 1, [f.to_dict() for f in books.findings]  # type: ignore[attr-defined]
    return found[0]


def session(n: Night, table: str = "T07", day: str = D28, *, closer: object = OPEN) -> None:
    """Opener and closer of 5,500, a buy-in of 200 won by the house, counted."""
    nxt = (dt.date.fromisoformat(day) + dt.timedelta(days=1)).isoformat()
    n.opener(table, at(day, "20:00"), OPEN)
    n.buy_in(table, at(day, "20:05"), 200)
    n.hand(table, at(day, "20:10"), 200, handle=400)
    n.closer(table, at(nxt, "04:00"), closer)  # type: ignore[arg-type]
    n.count(table, at(nxt, "09:00"), day, 200)


def test_every_acct_code_has_a_test_here() -> None:
    text = "\n".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    assert [c.value for c in Code if c.is_books and f'"{c.value}"' not in text] == []


# ------------------------------------------------------------------- the identity


def test_win_matches_hands_nigc_542_2_obeyed() -> None:
    n = Night()
    session(n)
    assert codes(n.reconcile()) == []


def test_win_mismatch_nigc_542_2_chips_walk_from_the_tray() -> None:
    n = Night()
    session(n, closer=chips(d5=200, d25=96, d100=20))  # 100 gone from the tray
    f = one(n.reconcile(), "ACCT_WIN_MISMATCH")
    assert (f.expected, f.actual, f.impact) == ("200", "100", Decimal(100))  # type: ignore[attr-defined]
    assert (f.gaming_day, f.shift, f.key) == (dt.date(2026, 11, 28), "day", "T07-1")  # type: ignore[attr-defined]
    assert f.severity == "critical"  # type: ignore[attr-defined]


def test_win_tolerance_house_key_allows_a_difference() -> None:
    n = Night()
    session(n, closer=chips(d5=198, d25=100, d100=20))  # 10 short
    assert codes(n.reconcile(win_tolerance=Decimal(10))) == []
    assert codes(n.reconcile()) == ["ACCT_WIN_MISMATCH"]


def test_drop_mismatch_nigc_542_2_cash_missing_from_the_box() -> None:
    n = Night()
    session(n)
    n.counts[0] = n.counts[0].__class__(**{**_fields(n.counts[0]), "cash": Decimal(150)})
    f = one(n.reconcile(), "ACCT_DROP_MISMATCH")
    assert (f.expected, f.actual, f.impact, f.key) == ("200", "150", Decimal(50), None)  # type: ignore[attr-defined]
    assert "cash counted 150 for 200 recorded" in f.message  # type: ignore[attr-defined]


def test_drop_mismatch_kinds_compared_apart_impact_zero() -> None:
    n = Night()
    session(n)
    n.counts[0] = n.counts[0].__class__(
        **{**_fields(n.counts[0]), "cash": Decimal(100), "markers": Decimal(100)}
    )
    f = one(n.reconcile(), "ACCT_DROP_MISMATCH")
    assert f.impact == 0 and "markers" in f.message  # type: ignore[attr-defined]


def _fields(obj: object) -> dict[str, object]:
    return {k: getattr(obj, k) for k in obj.__slots__}  # type: ignore[attr-defined]


# ------------------------------------------------------------------- inventories


def _two_sessions(second_opener: object) -> Night:
    n = Night()
    session(n)
    n.opener("T07", at(D29, "20:00"), second_opener)  # type: ignore[arg-type]
    n.buy_in("T07", at(D29, "20:05"), 200)
    n.hand("T07", at(D29, "20:10"), 200)
    n.closer("T07", at(D30, "04:00"), second_opener)  # type: ignore[arg-type]
    n.count("T07", at(D30, "09:00"), D29, 200)
    return n


def test_opener_equals_previous_closer_nj_13_69d_1_21e_obeyed() -> None:
    assert codes(_two_sessions(OPEN).reconcile()) == []


def test_opener_mismatch_nj_13_69d_1_21e_equal_value_swap() -> None:
    f = one(_two_sessions(chips(d5=205, d25=99, d100=20)).reconcile(), "ACCT_OPENER_MISMATCH")
    assert (f.expected, f.actual, f.impact, f.key) == ("5500", "5500", Decimal(0), "T07-5")  # type: ignore[attr-defined]
    assert f.gaming_day == dt.date(2026, 11, 29)  # type: ignore[attr-defined]


def test_inventory_discrepancy_nj_13_69d_1_21e_over_25_under_100() -> None:
    books = _two_sessions(chips(d5=200, d25=98, d100=20)).reconcile()  # 50 short
    f = one(books, "ACCT_INVENTORY_DISCREPANCY")
    assert (f.impact, f.severity) == (Decimal(50), "major")  # type: ignore[attr-defined]
    assert codes(books) == ["ACCT_INVENTORY_DISCREPANCY"]  # one breach, one finding


def test_inventory_discrepancy_nj_13_69d_1_21e_exactly_25_is_not_over() -> None:
    books = _two_sessions(chips(d5=195, d25=100, d100=20)).reconcile()  # 25 short
    assert codes(books) == ["ACCT_OPENER_MISMATCH"]


def test_inventory_reportable_nj_13_69d_1_21e_100_or_more_copy_to_the_division() -> None:
    books = _two_sessions(chips(d5=200, d25=100, d100=19)).reconcile()  # exactly 100
    f = one(books, "ACCT_INVENTORY_REPORTABLE")
    assert (f.impact, f.severity, f.rule) == (Decimal(100), "critical", "discrepancy_regulator")  # type: ignore[attr-defined]
    assert codes(books) == ["ACCT_INVENTORY_REPORTABLE"]


def test_inventory_signers_nj_13_69d_1_21d_obeyed_and_broken() -> None:
    n = Night()
    n.opener("T07", at(D28, "20:00"), OPEN, signers=(Signer("D042", "dealer"),))
    n.closer("T07", at(D29, "04:00"), OPEN)
    n.count("T07", at(D29, "09:00"), D28, 0)
    f = one(n.reconcile(), "ACCT_SLIP_SIGNATURES")
    assert (f.key, f.rule, f.expected) == ("T07-1", "inventory_roles", "dealer, supervisor")  # type: ignore[attr-defined]
    assert codes(n.reconcile(inventory_roles=("dealer",))) == []


# ------------------------------------------------------------------- slips


def _slips(n: Night) -> None:
    n.opener("T07", at(D28, "20:00"), OPEN)
    n.closer("T07", at(D29, "04:00"), OPEN)
    n.count("T07", at(D29, "09:00"), D28, 0)
    n.copy("T99", at(D29, "21:00"), 1, chips(d25=1), side="cage")  # the cage writes on the 29th


def test_slip_sequence_ohio_3772_11_31_rising_serials_obeyed() -> None:
    n = Night()
    _slips(n)
    n.slip("T07", at(D28, "21:00"), 10, chips(d25=4), type="credit")
    n.slip("T07", at(D28, "22:00"), 11, chips(d25=4), type="credit")
    n.hand("T07", at(D28, "23:00"), 200)  # the credits' chips were won from the players
    assert codes(n.reconcile()) == []


def test_slip_sequence_ohio_3772_11_31_swapped_serials() -> None:
    n = Night()
    _slips(n)
    n.slip("T07", at(D28, "21:00"), 12, chips(d25=4), type="credit")
    n.slip("T07", at(D28, "22:00"), 11, chips(d25=4), type="credit")
    f = one(n.reconcile(), "ACCT_SLIP_SEQUENCE")
    assert (f.expected, f.actual, f.key) == ("13", "11", "credit/2026/11")  # type: ignore[attr-defined]


def test_slip_sequence_series_complete_names_the_missing_run() -> None:
    n = Night()
    _slips(n)
    n.slip("T07", at(D28, "21:00"), 10, chips(d25=4), type="credit")
    n.slip("T07", at(D28, "22:00"), 13, chips(d25=4), type="credit")
    n.hand("T07", at(D28, "23:00"), 200)
    assert codes(n.reconcile()) == []
    f = one(n.reconcile(series_complete=True), "ACCT_SLIP_SEQUENCE")
    assert (f.table, f.shift, f.expected, f.actual, f.key) == (  # type: ignore[attr-defined]
        None,
        None,
        "11",
        "13",
        "credit/2026/11",
    )


def test_slip_duplicate_kansas_112_108_32_only_duplicate() -> None:
    n = Night()
    _slips(n)
    n.slip("T07", at(D28, "21:00"), 5, chips(d25=4), type="credit")
    n.copy("T07", at(D28, "21:40"), 5, chips(d25=4), side="cage", type="credit")
    n.copy("T07", at(D28, "21:45"), 5, chips(d25=4), type="credit")
    books = n.reconcile()
    f = one(books, "ACCT_SLIP_DUPLICATE")
    assert (f.expected, f.actual, f.key) == ("100", "100", "credit/2026/5")  # type: ignore[attr-defined]
    # each event of a duplicated slip counts on the counting side: it shows in the tray
    assert codes(books) == ["ACCT_SLIP_DUPLICATE", "ACCT_WIN_MISMATCH"]
    assert books.periods[0].figures.credits == 200


def test_slip_void_ohio_3772_11_31f_obeyed_and_one_signer() -> None:
    n = Night()
    _slips(n)
    n.slip("T07", at(D28, "21:00"), 7, chips(d25=4))
    n.void("T07", at(D28, "21:10"), 7, side="cage")
    n.void("T07", at(D28, "21:10"), 7)
    assert codes(n.reconcile()) == []
    n.voids[-1] = n.voids[-1].__class__(
        **{**_fields(n.voids[-1]), "signers": (Signer("D042", "dealer"),)}
    )
    f = one(n.reconcile(), "ACCT_SLIP_VOID")
    assert f.key == n.voids[-1].at.id and "1 distinct signers, 2 due" in f.message  # type: ignore[attr-defined]


def test_slip_void_of_a_slip_never_recorded_and_empty_reason() -> None:
    n = Night()
    _slips(n)
    n.void("T07", at(D28, "21:10"), 8, reason=" ")
    f = one(n.reconcile(), "ACCT_SLIP_VOID")
    assert "never recorded" in f.message and "no reason" in f.message  # type: ignore[attr-defined]


def test_slip_void_after_the_closer_of_its_session_is_late() -> None:
    n = Night()
    _slips(n)
    n.slip("T07", at(D28, "21:00"), 7, chips(d25=4))
    n.void("T07", at(D28, "21:10"), 7, side="cage")
    n.void("T07", at(D29, "05:00"), 7)
    f = one(n.reconcile(), "ACCT_SLIP_VOID")
    assert "after the closer" in f.message  # type: ignore[attr-defined]


def test_slip_signatures_wac_230_15_525_two_signers_obeyed_and_one() -> None:
    n = Night()
    _slips(n)
    n.slip("T07", at(D28, "21:00"), 7, chips(d25=4), type="credit")
    n.hand("T07", at(D28, "21:30"), 100)
    assert codes(n.reconcile()) == []
    n.hand("T07", at(D28, "22:30"), 100)
    n.copy("T07", at(D28, "22:00"), 8, chips(d25=4), side="cage", type="credit")
    n.copy(
        "T07",
        at(D28, "22:03"),
        8,
        chips(d25=4),
        type="credit",
        signers=(Signer("D042", "dealer"),) * 2,
    )
    f = one(n.reconcile(), "ACCT_SLIP_SIGNATURES")
    assert (f.expected, f.rule) == ("2 signers", "slip_signers")  # type: ignore[attr-defined]


def test_slip_unmatched_louisiana_iii_2717_fill_the_table_does_not_record() -> None:
    n = Night()
    _slips(n)
    n.copy("T07", at(D28, "21:00"), 9, chips(d25=4), side="cage")
    books = n.reconcile()
    f = one(books, "ACCT_SLIP_UNMATCHED")
    assert (f.expected, f.actual, f.impact, f.key) == ("100", None, None, "fill/2026/9")  # type: ignore[attr-defined]
    w = one(books, "ACCT_WIN_MISMATCH")  # the cage's copy counts: the chips went missing
    assert w.impact == Decimal(100)  # type: ignore[attr-defined]


def test_slip_unmatched_not_before_the_first_cage_day() -> None:
    n = Night()
    n.opener("T07", at(D28, "20:00"), OPEN)
    n.copy("T07", at(D28, "21:00"), 9, chips(d25=4), type="credit")
    n.closer("T07", at(D29, "04:00"), chips(d5=200, d25=96, d100=20))
    n.count("T07", at(D29, "09:00"), D28, 0)
    assert codes(n.reconcile()) == []  # no cage copy at all: judged on the table's copies


def test_slip_voided_on_one_side_counted_on_the_other_is_unmatched_only() -> None:
    n = Night()
    _slips(n)
    n.slip("T07", at(D28, "21:00"), 7, chips(d25=4), type="credit")
    n.void("T07", at(D28, "21:10"), 7, of="credit")  # the table voids, the cage counts
    books = n.reconcile()
    assert "ACCT_SLIP_UNMATCHED" in codes(books) and "ACCT_SLIP_VOID" not in codes(books)


# ------------------------------------------------------------------- what never comes


def test_no_inventory_session_left_without_closer_by_a_later_opener() -> None:
    n = Night()
    n.opener("T07", at(D28, "20:00"), OPEN)
    n.hand("T07", at(D28, "20:10"), 0)
    n.opener("T07", at(D29, "20:00"), OPEN)
    n.closer("T07", at(D30, "04:00"), OPEN)
    n.count("T07", at(D29, "09:00"), D28, 0)
    n.count("T07", at(D30, "09:00"), D29, 0)
    books = n.reconcile()
    f = one(books, "ACCT_NO_INVENTORY")
    assert (f.key, f.gaming_day) == ("T07-1", dt.date(2026, 11, 28))  # type: ignore[attr-defined]
    p = books.period("T07", dt.date(2026, 11, 28), "day")
    assert p is not None and p.status == "incomplete" and p.figures.win is None
    assert p.figures.closer is None and p.figures.drop == 0


def test_no_inventory_round_outside_every_session_one_per_period() -> None:
    n = Night()
    session(n)
    n.hand("T07", at(D29, "05:00"), 10)  # after the closer
    n.hand("T07", at(D29, "05:01"), 10)
    books = n.reconcile()
    f = one(books, "ACCT_NO_INVENTORY")
    assert f.gaming_day == dt.date(2026, 11, 28) and len(f.events) == 2  # type: ignore[attr-defined]
    assert books.periods[0].figures.tray_win is None  # the tray is not bounded


def test_no_drop_count_once_a_later_days_count_is_stored() -> None:
    n = Night()
    session(n)
    n.counts.clear()
    p = n.reconcile().periods[0]
    assert p.status == "pending" and p.figures.drop is None
    n.count("T08", at(D30, "09:00"), D29, 0)  # any table's count of a later day
    f = one(n.reconcile(), "ACCT_NO_DROP_COUNT")
    assert (f.expected, f.actual, f.key) == ("200", None, None)  # type: ignore[attr-defined]
    assert n.reconcile().periods[0].status == "incomplete"


def test_stray_count_names_no_period_is_its_own_drop_mismatch() -> None:
    n = Night()
    session(n)
    n.count("T07", at(D29, "09:30"), D28, 40, shift="swing", id="CR-X")
    books = n.reconcile()
    f = one(books, "ACCT_DROP_MISMATCH")
    assert (f.key, f.shift, f.expected, f.actual, f.impact) == (  # type: ignore[attr-defined]
        "CR-X",
        "swing",
        "0",
        "40",
        Decimal(-40),
    )
    assert books.periods[0].figures.drop == 200  # it enters no figure


def test_adjustment_reportable_nj_13_69d_1_34_over_2000() -> None:
    n = Night()
    session(n)
    n.adjust("T07", D28, "drop_cash", 2000)
    assert codes(n.reconcile()) == []
    n.adjust("T07", D28, "drop_cash", "-2000.01")
    books = n.reconcile()
    f = one(books, "ACCT_ADJUSTMENT_REPORTABLE")
    assert (f.expected, f.actual, f.key, f.severity) == ("2000", "-2000.01", "ADJ-2", "info")  # type: ignore[attr-defined]
    assert books.periods[0].figures.win == 200  # the books as counted never change


def test_worked_example_has_every_stable_id_of_its_code_table_period_and_key() -> None:
    n = Night()
    T07_session(n)
    n.closer("T07", at(D29, "05:56"), chips(d5=1))  # a closer ending nothing
    n.hand("T07", at(D29, "05:57"), 1)
    a = n.reconcile(cage_day_close="count").findings
    b = n.reconcile(cage_day_close="count").findings
    assert [f.id for f in a] == [f.id for f in b] and all(f.id for f in a)
