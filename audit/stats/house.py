"""``house_result``: the house's net win over the handle, against the profile's expected edge.

Per table, dealer and gaming day: hold = Σ house win / Σ handle (house win of
a round = −``rounds.settled``, insurance and bonus settlements included, side
bets' left out: accounting.md "Statistics over time", so that the test does not
depend on how often players bet them; handle = the main stakes, doubles and
splits included). The 95% band is
drawn from the rounds' own variance (the ratio estimator's:
Σ (w − hold·h)² / H²) around the profile's ``house_edge``.

Besides the test (corrected with the others), the row marks what regulators
read, uncorrected: Maryland (COMAR 36.05.03.25) has casinos investigate a
result outside the 95% band; Kansas (K.A.R. 112-108-51) a hold more than 3
percentage points from what is expected. Both are US state rules, shown as
reference bands: no profile names either state as the casino's jurisdiction.

A band is judged only on the sample it needs (issue 30, point 7): Maryland's
on the test's own minimum (500 rounds, where the ratio's normal approximation
holds); Kansas's fixed 3 points once chance alone no longer moves a hold that
far, i.e. once the 95% half-width z·se is at most 3 points. With se = s/(h̄√n)
(s² the rounds' variance of w − hold·h, h̄ the mean handle) that is
n ≥ (z·s / (0.03·h̄))² = n·(z·se / 0.03)² (Cochran, *Sampling Techniques*, 3rd
ed., 1977: §4.4 the sample for a margin, §6.3 the ratio estimator's variance),
and never below 500. Below it the row says "too few rounds to judge (N of the
M needed)" and marks nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

import polars as pl

from audit.profiles import ProfileRegistry
from audit.sidebets.paytables import PayTableRegistry
from audit.stats.distributions import normal_two_sided
from audit.stats.frames import StatsData
from audit.stats.rows import StatRow, TestSpec
from audit.stats.scopes import scope_rows
from audit.stats.side_bets_priced import priced_side_bets
from audit.stats.wording import percent, subject_words

__all__ = [
    "HOUSE_RESULT",
    "KANSAS_POINTS",
    "KANSAS_RULE",
    "MARYLAND_RULE",
    "REFERENCE",
    "Z95",
    "Marks",
    "house_tests",
    "kansas_needed",
    "round_units",
    "too_few",
    "z_score",
]

HOUSE_RESULT = TestSpec(
    "house_result",
    "rounds",
    ("table", "dealer", "day"),
    500,
    "the house's win over handle against the profile's expected edge",
)
Z95 = 1.959963984540054
KANSAS_POINTS = 0.03
MARYLAND_RULE = "Maryland COMAR 36.05.03.25"
KANSAS_RULE = "Kansas K.A.R. 112-108-51"
REFERENCE = "a reference band, not the casino's jurisdiction"
"""How a mark names its rule: the shipped profiles are Italian casinos' rules, and no
profile or option names a US state as the casino's jurisdiction."""


def kansas_needed(n: int, se: float) -> int:
    """The rounds Kansas's 3-point band needs: enough that the hold's 95% half-width
    ``Z95·se`` (``se`` measured on ``n`` rounds) shrinks to 3 points, since se falls as
    1/√n; never fewer than the test's own minimum. See the module's docstring."""
    if se <= 0 or n <= 0:
        return HOUSE_RESULT.min_n
    return max(HOUSE_RESULT.min_n, math.ceil(n * (Z95 * se / KANSAS_POINTS) ** 2))


def too_few(n: int, needed: int) -> str:
    """``too few rounds to judge (80 of the 1,234 needed)``."""
    return f"too few rounds to judge ({n:,} of the {needed:,} needed)"


def _money(d: Decimal) -> str:
    return f"{d:,.2f}"


def _won(d: Decimal) -> str:
    return f"won {_money(d)}" if d >= 0 else f"lost {_money(-d)}"


@dataclass(frozen=True, slots=True)
class Marks:
    """What the reference bands mark on a hold ``observed`` against ``expected`` whose
    standard error is ``se`` over ``n`` rounds (uncorrected, each on the sample it needs)."""

    maryland: bool
    kansas: bool
    maryland_needed: int
    kansas_needed: int
    words: tuple[str, ...]

    @classmethod
    def of(
        cls, n: int, observed: float, expected: float, se: float, *, what: str = "edge"
    ) -> Marks:
        judged = n >= HOUSE_RESULT.min_n and se > 0
        md_needed, ks_needed = HOUSE_RESULT.min_n, kansas_needed(n, se)
        outside = judged and abs(observed - expected) > Z95 * se
        kansas = n >= ks_needed and se > 0 and abs(observed - expected) > KANSAS_POINTS
        words = []
        if outside:
            words.append(f"outside the 95% band ({MARYLAND_RULE}: investigate; {REFERENCE})")
        if kansas:
            words.append(
                f"{100 * abs(observed - expected):.1f} points from the expected {what} "
                f"({KANSAS_RULE}: over 3; {REFERENCE})"
            )
        if n < md_needed:
            words.append(f"the Maryland 95% band: {too_few(n, md_needed)}")
        if n < ks_needed:
            words.append(f"the Kansas 3-point band: {too_few(n, ks_needed)}")
        return cls(outside, kansas, md_needed, ks_needed, tuple(words))


def z_score(won: float, expected: float, var: float) -> float:
    """(won − expected) / √var, 0 when the rounds never vary: one expression for
    ``house_result`` and ``hold_drop``, so that with W = R the two agree exactly."""
    return (won - expected) / math.sqrt(var) if var > 0 else 0.0


def round_units(
    data: StatsData, registry: ProfileRegistry, paytables: PayTableRegistry | None = None
) -> pl.DataFrame:
    """The rounds the house tests read, one row each: ``w`` (the house's win on the main
    game, insurance and bonus included, side bets left out), ``h`` (the main handle),
    ``edge`` (the profile's ``house_edge``), and the side bets' ``side_won`` (the house's
    win on them) and ``side_expected`` (each side stake times its pay table's exact edge;
    a side bet the profile does not price is taken at its own result, ``side_unpriced``
    counts them). Closed rounds with a handle, under a profile with an expected edge."""
    edges = {}
    for pid in data.rounds.get_column("profile_id").unique().drop_nulls().to_list():
        edge = registry.get(pid).rules.house_edge if pid in registry else None
        if edge is not None:
            edges[pid] = float(edge)
    side = priced_side_bets(data, registry, paytables)
    return (
        data.rounds.filter(
            (pl.col("status") == "closed")
            & (pl.col("handle") > 0)
            & pl.col("settled").is_not_null()
            & pl.col("profile_id").is_in(list(edges))
        )
        .join(side, on="rid", how="left")
        .with_columns(
            pl.col("side_settled").fill_null(Decimal(0)),
            pl.col("side_expected").fill_null(0.0),
            pl.col("side_unpriced").fill_null(0),
        )
        .with_columns(
            win=-(pl.col("settled") - pl.col("side_settled")),
            side_won=-pl.col("side_settled"),
            edge=pl.col("profile_id").replace_strict(edges, return_dtype=pl.Float64),
        )
        .with_columns(w=pl.col("win").cast(pl.Float64), h=pl.col("handle").cast(pl.Float64))
    )


def house_tests(
    data: StatsData, registry: ProfileRegistry, paytables: PayTableRegistry | None = None
) -> Iterator[StatRow]:
    """``house_result`` per table, dealer and gaming day."""
    units = round_units(data, registry, paytables)
    aggs = [
        pl.len().alias("n"),
        pl.col("win").sum().alias("won"),
        pl.col("handle").sum().alias("handled"),
        (pl.col("edge") * pl.col("h")).sum().alias("e"),
        pl.col("w").sum().alias("sw"),
        pl.col("h").sum().alias("sh"),
        (pl.col("w") ** 2).sum().alias("sww"),
        (pl.col("w") * pl.col("h")).sum().alias("swh"),
        (pl.col("h") ** 2).sum().alias("shh"),
    ]
    for scope, subject, r in scope_rows(units, HOUSE_RESULT.scopes, aggs):
        n, sh = r["n"], r["sh"]
        hold, edge = r["sw"] / sh, r["e"] / sh
        var = max(r["sww"] - 2 * hold * r["swh"] + hold * hold * r["shh"], 0.0)
        se = math.sqrt(var) / sh
        z = z_score(r["sw"], r["e"], var)
        judged = n >= HOUSE_RESULT.min_n and se > 0
        marks = Marks.of(n, hold, edge, se)
        yield StatRow(
            HOUSE_RESULT.name,
            scope,
            subject,
            n,
            z,
            normal_two_sided(z) if judged else None,
            edge,
            hold,
            f"{subject_words(scope, subject)}: the house {_won(r['won'])} on a handle of "
            f"{_money(r['handled'])} over {n:,} rounds, a hold of {percent(hold, 2)} against "
            f"an expected edge of {percent(edge, 2)} ± {percent(Z95 * se, 2)} (95% band)"
            + "".join(f"; {m}" for m in marks.words),
            judged,
            detail={
                "won": r["won"],
                "handle": r["handled"],
                "hold": hold,
                "edge": edge,
                "band": (edge - Z95 * se, edge + Z95 * se),
                "maryland": marks.maryland,
                "kansas": marks.kansas,
                "maryland_needed": marks.maryland_needed,
                "kansas_needed": marks.kansas_needed,
            },
        )
