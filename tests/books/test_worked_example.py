"""accounting.md's worked example (the T07 session) reconciles: W = 350 = R, D = B."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from tests.books.builders import Night, T07_session, at, chips, codes


def test_worked_example_t07_session_reconciles() -> None:
    n = Night()
    T07_session(n)
    books = n.reconcile(cage_day_close="count")
    assert codes(books) == []
    (p,) = books.periods
    assert (p.table, p.gaming_day, p.shift, p.status) == (
        "T07",
        dt.date(2026, 11, 28),
        "day",
        "reconciled",
    )
    f = p.figures
    assert (f.opener, f.fills, f.credits, f.closer) == (5500, 1000, 0, 6350)
    assert (f.buy_ins, f.drop, f.hands_result) == (500, 500, 350)
    assert (f.tray_win, f.win) == (Decimal(350), Decimal(350))
    assert (f.sessions, f.rounds, f.handle) == (1, 70, 5000)
    assert [c.at.id for c in p.slips] == ["T07-1407", "CAGE-77121"]


def test_worked_example_waits_for_the_cage_of_a_later_day() -> None:
    n = Night()
    T07_session(n)
    assert n.reconcile().periods[0].status == "pending"
    # the cage writes on the 29th (for another table): the 28th's cage copies are all in
    n.copy("T09", at("2026-11-29", "20:00"), 88413, chips(d25=4), side="cage")
    books = n.reconcile()
    assert books.period("T07", dt.date(2026, 11, 28), "day").status == "reconciled"  # type: ignore[union-attr]
    assert codes(books) == []
