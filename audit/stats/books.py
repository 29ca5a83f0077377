"""The house's result read through the books: ``hold_drop`` and Ohio's ``payout_30d``
(accounting.md "Statistics over time").

Both read the stored periods (:data:`~audit.stats.frames.PERIOD_SCHEMA`, the books as
counted), over reconciled ones only. Their unit is a table's **gaming day**: the stored
rounds carry their shoe's gaming day, not a shift, so a table's day enters when every one
of its periods that day is reconciled with its win W and drop D known (a **counted day**);
a day with a period still pending, incomplete or not audited is left out whole, and the
row says how many were.

- ``hold_drop`` (scopes ``table`` and ``day``): expected Σ ``house_edge``·h / D, observed
  W / D, z = (W − Σ ``house_edge``·h) / √Σ(w − R/H·h)², over the rounds ``house_result``
  reads (:func:`~audit.stats.house.round_units`) on the counted days, with its minimum (500
  rounds). Side bets are in W but in neither w nor h: their expected win (each stake times
  its pay table's exact edge) is added to the expectation, and R/H is the main game's
  (Σw/Σh), so the band does not move with them. With W = R (and no side bets) z is
  ``house_result``'s exactly: a flag on ``hold_drop`` alone points at the books, on both at
  the game. Maryland's and Kansas's bands are marked, uncorrected, as for ``house_result``.
- ``payout_30d`` (scope ``table``), Ohio Admin. Code 3772-10-08, on the selection's last
  gaming day: payout % = 100 × (1 − ΣW/ΣD) pooled over the table's counted days, expected
  over its lifetime to that day, observed over the ``payout_window_days`` ending on it; a
  flag when they differ by more than ``payout_points`` points. No p-value (it is a
  regulator's fixed threshold, outside the correction); not judged before
  ``payout_history_days`` counted days precede the window.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from decimal import Decimal

import polars as pl

from audit.books.house import House
from audit.profiles import ProfileRegistry
from audit.sidebets.paytables import PayTableRegistry
from audit.stats.distributions import normal_two_sided
from audit.stats.frames import StatsData
from audit.stats.house import HOUSE_RESULT, Z95, Marks, round_units, z_score
from audit.stats.rows import StatRow, TestSpec
from audit.stats.scopes import scope_rows
from audit.stats.wording import percent, subject_words

__all__ = [
    "HOLD_DROP",
    "OHIO_RULE",
    "PAYOUT_30D",
    "counted_days",
    "hold_drop_tests",
    "payout_rows",
    "payout_tests",
]

HOLD_DROP = TestSpec(
    "hold_drop",
    "rounds",
    ("table", "day"),
    HOUSE_RESULT.min_n,
    "the win over the drop against the hands' expected hold",
)
PAYOUT_30D = TestSpec(
    "payout_30d",
    "counted days",
    ("table",),
    1,
    "the payout of the last 30 days against the table's lifetime (Ohio 3772-10-08)",
    corrected=False,
)
OHIO_RULE = "Ohio Admin. Code 3772-10-08"


def _money(d: Decimal) -> str:
    return f"{d:,.2f}"


def _days(n: int) -> str:
    return f"{n:,} counted day" + ("" if n == 1 else "s")


def counted_days(periods: pl.DataFrame) -> pl.DataFrame:
    """Per table and gaming day with a stored period: ``counted`` (every period of the day
    reconciled with its win and drop known), and the day's ``win`` and ``drop`` summed."""
    ok = (
        (pl.col("status") == "reconciled")
        & pl.col("win").is_not_null()
        & pl.col("drop").is_not_null()
    )
    return (
        periods.group_by("table_id", "gaming_day")
        .agg(
            ok.all().alias("counted"),
            pl.col("win").sum().alias("W"),
            pl.col("drop").sum().alias("D"),
        )
        .sort("table_id", "gaming_day")
    )


def hold_drop_tests(
    data: StatsData, registry: ProfileRegistry, paytables: PayTableRegistry | None = None
) -> Iterator[StatRow]:
    """``hold_drop`` per table and gaming day, over the counted days of the selection."""
    if data.periods.is_empty():
        return
    days = counted_days(data.periods)
    units = round_units(data, registry, paytables)
    if units.is_empty():
        return
    per_day = units.group_by("table_id", "gaming_day").agg(
        pl.len().alias("n"),
        pl.col("win").sum().alias("won"),
        pl.col("handle").sum().alias("handled"),
        (pl.col("edge") * pl.col("h")).sum().alias("e"),
        pl.col("side_expected").sum().alias("se_"),
        pl.col("side_won").sum().alias("side_won"),
        pl.col("side_unpriced").sum().alias("unpriced"),
        pl.col("w").sum().alias("sw"),
        pl.col("h").sum().alias("sh"),
        (pl.col("w") ** 2).sum().alias("sww"),
        (pl.col("w") * pl.col("h")).sum().alias("swh"),
        (pl.col("h") ** 2).sum().alias("shh"),
    )
    joined = per_day.join(days, on=["table_id", "gaming_day"], how="inner").with_columns(
        left_out=(~pl.col("counted")).cast(pl.Int64)
    )
    counted = pl.col("counted")
    aggs = [
        *(
            pl.col(c).filter(counted).sum().alias(c)
            for c in ("n", "won", "handled", "e", "se_", "side_won", "unpriced")
        ),
        *(pl.col(c).filter(counted).sum().alias(c) for c in ("sw", "sh", "sww", "swh", "shh")),
        pl.col("W").filter(counted).sum().alias("W"),
        pl.col("D").filter(counted).sum().alias("D"),
        counted.sum().alias("table_days"),
        pl.col("left_out").sum().alias("left_out"),
    ]
    for scope, subject, r in scope_rows(joined, HOLD_DROP.scopes, aggs):
        if not r["table_days"]:
            continue  # nothing reconciled yet: no figure to test (the MGR shows why)
        yield _hold_drop_row(scope, subject, r)


def _hold_drop_row(scope: str, subject: str, r: dict[str, object]) -> StatRow:
    n = int(r["n"])  # type: ignore[call-overload]
    win, drop = Decimal(r["W"]), Decimal(r["D"])  # type: ignore[arg-type]
    handled = Decimal(r["handled"])  # type: ignore[arg-type]
    sw, sh = float(r["sw"]), float(r["sh"])  # type: ignore[arg-type]
    expected_win = float(r["e"]) + float(r["se_"])  # type: ignore[arg-type]
    hold_main = sw / sh if sh else 0.0
    var = max(
        float(r["sww"]) - 2 * hold_main * float(r["swh"]) + hold_main**2 * float(r["shh"]),  # type: ignore[arg-type]
        0.0,
    )
    d = float(drop)
    z = z_score(float(win), expected_win, var)
    observed = float(win) / d if d > 0 else math.nan
    expected = expected_win / d if d > 0 else math.nan
    se = math.sqrt(var) / d if d > 0 else 0.0
    judged = n >= HOLD_DROP.min_n and var > 0 and d > 0
    marks = Marks.of(n, observed, expected, se, what="hold") if d > 0 else None
    words = [
        f"{subject_words(scope, subject)}: a win of {_money(win)} on a drop of {_money(drop)} "
        + (
            f"(a hold of {percent(observed, 2)}) against an expected "
            f"{percent(expected, 2)} ± {percent(Z95 * se, 2)} (95% band)"
            if d > 0
            else "(no drop counted, so no hold)"
        )
        + f", over {n:,} rounds of {_days(int(r['table_days']))}"  # type: ignore[call-overload]
    ]
    if d > 0:
        words.append(
            f"handle over drop {float(handled) / d:.2f} (chips bought and carried away lower it, "
            "chips from other tables raise it)"
        )
    side_won = Decimal(r["side_won"])  # type: ignore[arg-type]
    if side_won or float(r["se_"]):  # type: ignore[arg-type]
        words.append(
            f"side bets: the house {'won' if side_won >= 0 else 'lost'} {_money(abs(side_won))} "
            f"against {_money(Decimal(str(round(float(r['se_']), 2))))} expected at their own "  # type: ignore[arg-type]
            "edge"
        )
    if r["unpriced"]:
        words.append(
            f"{int(r['unpriced']):,} side bet(s) the profile does not price taken at their "  # type: ignore[call-overload]
            "result"
        )
    if r["left_out"]:
        words.append(
            f"{int(r['left_out']):,} table-day(s) with a period not yet reconciled left out"  # type: ignore[call-overload]
        )
    if marks is not None:
        words.extend(marks.words)
    return StatRow(
        HOLD_DROP.name,
        scope,
        subject,
        n,
        z,
        normal_two_sided(z) if judged else None,
        expected,
        observed,
        "; ".join(words),
        judged,
        unjudged="" if d > 0 or n < HOLD_DROP.min_n else "no drop counted",
        detail={
            "win": win,
            "drop": drop,
            "handle": handled,
            "hold": observed,
            "edge": expected,
            "band": (expected - Z95 * se, expected + Z95 * se),
            "maryland": bool(marks and marks.maryland),
            "kansas": bool(marks and marks.kansas),
            "maryland_needed": marks.maryland_needed if marks else HOLD_DROP.min_n,
            "kansas_needed": marks.kansas_needed if marks else HOLD_DROP.min_n,
            "handle_over_drop": float(handled) / d if d > 0 else None,
        },
    )


def payout_tests(data: StatsData, house: House | None = None) -> Iterator[StatRow]:
    """``payout_30d`` per table on the selection's last gaming day."""
    last = data.selection_last_day
    if last is None or data.periods.is_empty():
        return
    yield from payout_rows(data.periods, house or House(), last)


def payout_rows(periods: pl.DataFrame, house: House, day: dt.date) -> Iterator[StatRow]:
    """``payout_30d`` of every table with a stored period in the window ending on ``day``
    (the report also asks for each month's end)."""
    start = day - dt.timedelta(days=house.payout_window_days - 1)
    days = counted_days(periods.filter(pl.col("gaming_day") <= day))
    in_window = pl.col("gaming_day") >= start
    counted = pl.col("counted")
    agg = (
        days.group_by("table_id")
        .agg(
            in_window.any().alias("seen"),
            (counted & in_window).sum().alias("n"),
            (counted & ~in_window).sum().alias("history"),
            pl.col("W").filter(counted & in_window).sum().alias("W"),
            pl.col("D").filter(counted & in_window).sum().alias("D"),
            pl.col("W").filter(counted).sum().alias("W_life"),
            pl.col("D").filter(counted).sum().alias("D_life"),
            pl.col("gaming_day").filter(counted).min().alias("since"),
        )
        .filter(pl.col("seen"))
        .sort("table_id")
    )
    for r in agg.iter_rows(named=True):
        yield _payout_row(r, house, day, start)


def _payout(win: Decimal, drop: Decimal) -> Decimal | None:
    # exact: "more than four percent" is judged on the money, not on a float's last bit
    return 100 * (1 - win / drop) if drop > 0 else None


def _payout_row(r: dict[str, object], house: House, day: dt.date, start: dt.date) -> StatRow:
    table = str(r["table_id"])
    n, history = int(r["n"]), int(r["history"])  # type: ignore[call-overload]
    zero = Decimal(0)
    observed = _payout(Decimal(r["W"] or zero), Decimal(r["D"] or zero))  # type: ignore[arg-type]
    expected = _payout(Decimal(r["W_life"] or zero), Decimal(r["D_life"] or zero))  # type: ignore[arg-type]
    points = house.payout_points
    needed = house.payout_history_days
    window = f"the {house.payout_window_days} days to {day}"
    head = f"{subject_words('table', table)}: "
    diff: Decimal | None = None
    if observed is None or expected is None:
        head += f"no drop counted over {window} ({_days(n)}), so no payout"
        why = f"no drop counted over {window}"
    else:
        diff = observed - expected
        head += (
            f"a payout of {observed:.2f}% over {window} ({_days(n)}) against {expected:.2f}% "
            f"over its lifetime since {r['since']}: {abs(diff):.2f} points apart"
        )
        why = ""
    if not why and history < needed:
        why = f"only {_days(history)} before the window, of the {needed:,} {OHIO_RULE} needs"
    judged = not why
    flag = judged and diff is not None and abs(diff) > points
    if not judged:
        tail = f"not judged: {why}"
    elif flag:
        tail = f"over {points} points ({OHIO_RULE}: compare and explain): a reason to look"
    else:
        tail = f"within {points} points ({OHIO_RULE})"
    return StatRow(
        PAYOUT_30D.name,
        "table",
        table,
        n,
        None if diff is None else float(diff),
        None,
        None if expected is None else float(expected),
        None if observed is None else float(observed),
        f"{head}; {tail}",
        judged,
        flag=flag,
        unjudged=why,
        detail={
            "day": day,
            "window_start": start,
            "history": history,
            "history_needed": needed,
            "points": float(points),
            "since": r["since"],
        },
    )
