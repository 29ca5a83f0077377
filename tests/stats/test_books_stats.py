"""``hold_drop`` and ``payout_30d`` on hand-built books (accounting.md "Statistics over time"):
each flags where it must and not where it must not, ``hold_drop``'s z is ``house_result``'s
when the books agree with the hands (W = R), side bets move neither hold test, and Ohio's
comparison keeps outside the correction."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D
from typing import Any

import polars as pl
import pytest

from audit.books.house import House
from audit.profiles import ProfileRegistry
from audit.stats.books import counted_days, payout_rows
from audit.stats.frames import PERIOD_SCHEMA, SIDE_BET_SCHEMA, StatsData
from audit.stats.rows import StatRow
from audit.stats.suite import StatsResult, run_stats
from tests.stats import fakes
from tests.stats.fakes import DAY, EDGE, registry

TABLE = "T07"


@pytest.fixture(scope="module")
def night() -> fakes.Night:
    n = fakes.Night()
    fakes.night(40, seed=11, table=TABLE, dealer="D1", knobs=fakes.Knobs(edge=EDGE), into=n)
    fakes.night(40, seed=11, table="T08", dealer="D2", knobs=fakes.Knobs(edge=EDGE), into=n)
    return n


def row(result: StatsResult, test: str, scope: str, subject: str) -> StatRow:
    return next(r for r in result.rows if (r.test, r.scope, r.subject) == (test, scope, subject))


def stats(night: fakes.Night, periods: list[dict[str, Any]], **kw: Any) -> StatsResult:
    return run_stats(fakes.data(night, periods), kw.pop("reg", None) or registry(), **kw)


# ------------------------------------------------------------------------------ hold_drop


def test_hold_drop_z_is_house_results_exactly_when_the_win_is_the_hands_result(
    night: fakes.Night,
) -> None:
    result = stats(night, fakes.books(night))
    for scope, subject in (("table", TABLE), ("table", "T08"), ("day", str(DAY))):
        books, hands = (row(result, t, scope, subject) for t in ("hold_drop", "house_result"))
        assert books.n == hands.n >= 500
        assert books.statistic == pytest.approx(hands.statistic, rel=1e-12, abs=1e-12)
        assert books.p_value == pytest.approx(hands.p_value, rel=1e-12)
        assert not books.flag
    # the hold is over the drop, not the handle: five times the hands' hold here
    t07 = row(result, "hold_drop", "table", TABLE)
    assert t07.observed == pytest.approx(5 * row(result, "house_result", "table", TABLE).observed)
    assert "handle over drop 5.00" in t07.message


def test_hold_drop_flags_a_win_short_of_the_hands_where_house_result_does_not(
    night: fakes.Night,
) -> None:
    result = stats(night, fakes.books(night, short={TABLE: D(1500)}))
    books = row(result, "hold_drop", "table", TABLE)
    assert books.flag and books.statistic is not None and books.statistic < 0
    assert "a reason to look" in books.message
    assert not row(result, "house_result", "table", TABLE).flag  # the game is fine: the books
    assert not row(result, "hold_drop", "table", "T08").flag
    assert row(result, "hold_drop", "day", str(DAY)).flag  # the day's books hold it too


def test_hold_drop_reads_reconciled_days_only(night: fakes.Night) -> None:
    periods = fakes.books(night, short={TABLE: D(1500)})
    for p in periods:
        if p["table_id"] == TABLE:
            p["status"] = "pending"
    result = stats(night, periods)
    assert not any(r.test == "hold_drop" and r.subject == TABLE for r in result.rows)
    day = row(result, "hold_drop", "day", str(DAY))
    assert not day.flag and day.n == row(result, "house_result", "table", "T08").n
    assert "1 table-day(s) with a period not yet reconciled left out" in day.message


def test_a_day_counts_only_when_every_period_of_it_is_reconciled_with_win_and_drop() -> None:
    periods = pl.DataFrame(
        [
            {"table_id": "T1", "gaming_day": DAY, "shift": "day", "status": "reconciled",
             "win": D(10), "drop": D(100)},
            {"table_id": "T1", "gaming_day": DAY, "shift": "swing", "status": "reconciled",
             "win": None, "drop": D(100)},
            {"table_id": "T2", "gaming_day": DAY, "shift": "day", "status": "reconciled",
             "win": D(10), "drop": D(100)},
        ],
        schema=PERIOD_SCHEMA,
    )  # fmt: skip
    assert counted_days(periods).select("table_id", "counted").rows() == [
        ("T1", False),
        ("T2", True),
    ]


# ------------------------------------------------------------------------------ side bets

PAIRS = "perfect_pairs"
# perfect-pairs-25-12-6 from six decks has the house edge 19/311 exactly: 311 one-unit bets
# of which 38 mixed pairs (6 to 1) and 2 coloured (12 to 1) win leave the house exactly 19
OUTCOMES = [D(6)] * 38 + [D(12)] * 2 + [D(-1)] * 271


def with_pairs(base: ProfileRegistry) -> ProfileRegistry:
    p = base.get("it-casino-6d")
    rules = p.rules.model_copy(update={"side_bets": {PAIRS: "perfect-pairs-25-12-6"}})
    return ProfileRegistry([p.model_copy(update={"rules": rules})])


def side_betting(night: fakes.Night, outcomes: list[D]) -> tuple[fakes.Night, list[dict]]:
    """The night with one side bet on each of the first rounds (their settlements in the
    round's ``settled``, as ``run`` stores every wager's), and its side-bet rows."""
    rounds = [dict(r) for r in night.rounds]
    bets = []
    table_rounds = [r for r in rounds if r["table_id"] == TABLE]
    for r, paid in zip(table_rounds, outcomes, strict=False):
        r["settled"] += paid
        bets.append({k: r[k] for k in ("table_id", "shoe", "round")} | {
            "kind": PAIRS, "stake": D(1), "settled": paid})  # fmt: skip
    return fakes.Night(rounds, night.wagers, night.shoes, night.orders), bets


def run_with_side_bets(
    night: fakes.Night, bets: list[dict], reg: ProfileRegistry, short: D = D(0)
) -> StatsResult:
    base = fakes.data(night, fakes.books(night, short={TABLE: short}))
    data = StatsData.of(
        base.rounds,
        base.wagers,
        base.shoe_cards,
        base.orders,
        pl.DataFrame(bets, schema={k: v for k, v in SIDE_BET_SCHEMA.items() if k != "rid"}),
        base.periods,
    )
    return run_stats(data, reg)


def test_side_bets_at_their_own_edge_move_neither_hold_test(night: fakes.Night) -> None:
    reg = with_pairs(registry())
    plain = stats(night, fakes.books(night), reg=reg)
    betting, bets = side_betting(night, OUTCOMES)
    sided = run_with_side_bets(betting, bets, reg)
    hands, hands_sided = (row(r, "house_result", "table", TABLE) for r in (plain, sided))
    assert (hands_sided.statistic, hands_sided.observed, hands_sided.n) == (
        hands.statistic,
        hands.observed,
        hands.n,
    )  # their settlements are out of w: the very same row
    books, books_sided = (row(r, "hold_drop", "table", TABLE) for r in (plain, sided))
    drop = float(fakes.books(night)[0]["drop"])
    assert books_sided.expected == pytest.approx(books.expected + 19 / drop, rel=1e-12)
    assert books_sided.observed == pytest.approx(books.observed + 19 / drop, rel=1e-12)
    assert books_sided.statistic == pytest.approx(books.statistic, abs=1e-9)
    assert "side bets: the house won 19.00 against 19.00 expected" in books_sided.message


def test_side_bets_enter_hold_drop_by_their_own_luck_only(night: fakes.Night) -> None:
    reg = with_pairs(registry())
    lucky = [D(25)] * 311  # every bet a perfect pair: the house loses 7,775 on them
    betting, bets = side_betting(night, lucky)
    sided = run_with_side_bets(betting, bets, reg)
    plain = stats(night, fakes.books(night), reg=reg)
    assert row(sided, "house_result", "table", TABLE).statistic == (
        row(plain, "house_result", "table", TABLE).statistic
    )
    books = row(sided, "hold_drop", "table", TABLE)
    assert books.flag and books.statistic is not None and books.statistic < 0


def test_a_side_bet_the_profile_does_not_price_is_taken_at_its_result(
    night: fakes.Night,
) -> None:
    betting, bets = side_betting(night, [D(25)] * 311)
    sided = run_with_side_bets(betting, bets, registry())  # no side bets offered
    plain = stats(night, fakes.books(night))
    books = row(sided, "hold_drop", "table", TABLE)
    assert books.statistic == pytest.approx(
        row(plain, "hold_drop", "table", TABLE).statistic, abs=1e-9
    )
    assert "311 side bet(s) the profile does not price taken at their result" in books.message


# ------------------------------------------------------------------------------ payout_30d

LAST = dt.date(2026, 11, 28)


def ohio_books(history: int, *, history_hold: str, window_hold: str) -> pl.DataFrame:
    """A table's books: ``history`` days before the 30-day window ending on LAST, each with a
    drop of 1,000 and the hold given, then the window's 30 days with their hold."""
    rows = []
    for back in range(30 + history):
        day = LAST - dt.timedelta(days=back)
        hold = D(window_hold) if back < 30 else D(history_hold)
        rows.append({"table_id": "T1", "gaming_day": day, "shift": "day",
                     "status": "reconciled", "win": 1000 * hold, "drop": D(1000)})  # fmt: skip
    return pl.DataFrame(rows, schema=PERIOD_SCHEMA)


def payout(periods: pl.DataFrame, house: House | None = None) -> StatRow:
    (r,) = payout_rows(periods, house or House(), LAST)
    return r


def test_payout_30d_flags_a_window_over_four_points_from_the_lifetime() -> None:
    # history 20% held (payout 80), window 30% (payout 70): lifetime 75, 5 points apart
    r = payout(ohio_books(30, history_hold="0.2", window_hold="0.3"))
    assert r.judged and r.flag
    assert (r.observed, r.expected, r.statistic) == (70.0, 75.0, -5.0)
    assert r.n == 30 and r.p_value is None
    assert "over 4 points (Ohio Admin. Code 3772-10-08" in r.message


def test_payout_30d_does_not_flag_four_points_exactly() -> None:
    # window 28%: payout 72 against a lifetime of 76, "more than four percent" it is not
    r = payout(ohio_books(30, history_hold="0.2", window_hold="0.28"))
    assert r.judged and not r.flag and r.statistic == -4.0
    assert "within 4 points" in r.message


def test_payout_30d_is_not_judged_before_its_history() -> None:
    r = payout(ohio_books(29, history_hold="0.2", window_hold="0.5"))
    assert not r.judged and not r.flag
    assert "not judged: only 29 counted days before the window, of the 30" in r.message
    shorter = House(payout_history_days=29, payout_points=D("4"))
    assert payout(ohio_books(29, history_hold="0.2", window_hold="0.5"), shorter).flag


def test_payout_30d_counts_reconciled_days_only() -> None:
    books = ohio_books(30, history_hold="0.2", window_hold="0.3").with_columns(
        status=pl.when(pl.col("gaming_day") < LAST - dt.timedelta(days=39))
        .then(pl.lit("pending"))
        .otherwise(pl.col("status"))
    )
    r = payout(books)
    assert not r.judged and "only 10 counted days before the window" in r.message


def test_payout_30d_stays_outside_the_correction_and_keeps_its_flag() -> None:
    data = StatsData.of(periods=ohio_books(30, history_hold="0.2", window_hold="0.3"),
                        last_day=LAST)  # fmt: skip
    result = run_stats(data, registry(), alpha=1e-300)
    (r,) = result.rows
    assert (r.test, r.flag, r.p_value, r.adjusted_p) == ("payout_30d", True, None, None)
    assert result.flags == (r,) and result.judged == 0
    assert r.message.endswith("a reason to look")
