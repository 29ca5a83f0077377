"""The identity, tested by moving chips one by one, by denomination, between the tray, the
cage, the players and the drop box, with this test's own tallies (accounting.md "The
identity"): never by recomputing W with the product's formula."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from audit.books.model import Chip, Chips
from tests.books.builders import Night, at

DENOMS = (Decimal(5), Decimal(25), Decimal(100))
OPS = st.lists(
    st.tuples(
        st.sampled_from(["buy", "lose", "win", "fill", "credit", "walk", "steal"]),
        st.integers(0, len(DENOMS) - 1),
        st.integers(1, 6),
    ),
    max_size=60,
)


def _chips(counter: Counter[Decimal]) -> Chips:
    return Chips(tuple(Chip(d, counter[d]) for d in DENOMS))


@settings(max_examples=120, deadline=None)
@given(OPS, st.booleans())
def test_identity_chip_by_chip_tallies_match_and_clean_is_silent(
    ops: list[tuple[str, int, int]], errors: bool
) -> None:
    n = Night()
    tray: Counter[Decimal] = Counter({d: 40 for d in DENOMS})
    player: Counter[Decimal] = Counter()
    r = b = box = walked = stolen = fills = credits = Decimal(0)
    serial = 100
    t = at("2026-11-28", "20:00")
    n.opener("T07", t, _chips(tray))
    for kind, i, k in ops:
        d = DENOMS[i]
        t += dt.timedelta(minutes=1)
        if kind == "fill" or (kind in ("buy", "win") and tray[d] < k):
            serial += 1
            n.slip("T07", t, serial, Chips((Chip(d, k),)))
            for _ in range(k):  # one chip at a time from the cage
                tray[d] += 1
                fills += d
            t += dt.timedelta(minutes=1)
            if kind == "fill":
                continue
        if kind == "buy":
            for _ in range(k):
                tray[d] -= 1
                player[d] += 1
            box += d * k
            b += d * k
            n.buy_in("T07", t, d * k)
        elif kind == "lose" and player[d]:
            m = min(k, player[d])
            for _ in range(m):
                player[d] -= 1
                tray[d] += 1
                r += d
            n.hand("T07", t, d * m)
        elif kind == "win":
            for _ in range(k):
                tray[d] -= 1
                player[d] += 1
                r -= d
            n.hand("T07", t, -d * k)
        elif kind == "credit" and tray[d] >= k:
            serial += 1
            n.slip("T07", t, serial, Chips((Chip(d, k),)), type="credit")
            for _ in range(k):
                tray[d] -= 1
                credits += d
        elif kind == "walk" and errors and tray[d] >= 1:
            tray[d] -= 1  # a chip leaves the tray with no record
            walked += d
        elif kind == "steal" and errors and box >= d:
            box -= d  # cash taken from the box before the count
            stolen += d
    n.closer("T07", at("2026-11-29", "05:00"), _chips(tray))
    n.count("T07", at("2026-11-29", "09:00"), "2026-11-28", box)
    books = n.reconcile(cage_day_close="count")
    (p,) = books.periods
    f = p.figures
    # the test's own tallies: what play moved through the tray, less what walked
    assert f.hands_result == r
    assert f.buy_ins == b and f.drop == box
    assert (f.fills, f.credits) == (fills, credits)
    assert f.tray_win == r - walked
    assert f.win == r - walked - stolen
    found = {(str(x.code), x.impact) for x in books.findings}
    expected = set()
    if walked:
        expected.add(("ACCT_WIN_MISMATCH", walked))
    if stolen:
        expected.add(("ACCT_DROP_MISMATCH", stolen))
    assert found == expected
    # impacts add up to R - W, nothing counted twice
    assert sum((x.impact or 0 for x in books.findings), Decimal(0)) == f.hands_result - f.win
    assert p.status == "reconciled"
