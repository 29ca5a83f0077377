"""``house_result``: the house's net win over the handle, against the profile's expected edge.

Per table, dealer and gaming day: hold = Σ house win / Σ handle (house win of
a round = −``rounds.settled``, insurance and bonus settlements included;
handle = the main stakes, doubles and splits included). The 95% band is
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
from decimal import Decimal

import polars as pl

from audit.profiles import ProfileRegistry
from audit.stats.distributions import normal_two_sided
from audit.stats.frames import StatsData
from audit.stats.rows import StatRow, TestSpec
from audit.stats.scopes import scope_rows
from audit.stats.wording import percent, subject_words

__all__ = [
    "HOUSE_RESULT",
    "KANSAS_POINTS",
    "KANSAS_RULE",
    "MARYLAND_RULE",
    "REFERENCE",
    "Z95",
    "house_tests",
    "kansas_needed",
    "too_few",
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


def house_tests(data: StatsData, registry: ProfileRegistry) -> Iterator[StatRow]:
    """``house_result`` per table, dealer and gaming day."""
    edges = {}
    for pid in data.rounds.get_column("profile_id").unique().drop_nulls().to_list():
        edge = registry.get(pid).rules.house_edge if pid in registry else None
        if edge is not None:
            edges[pid] = float(edge)
    units = (
        data.rounds.filter(
            (pl.col("status") == "closed")
            & (pl.col("handle") > 0)
            & pl.col("settled").is_not_null()
            & pl.col("profile_id").is_in(list(edges))
        )
        .with_columns(
            win=-pl.col("settled"),
            edge=pl.col("profile_id").replace_strict(edges, return_dtype=pl.Float64),
        )
        .with_columns(w=pl.col("win").cast(pl.Float64), h=pl.col("handle").cast(pl.Float64))
    )
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
        z = (hold - edge) / se if se > 0 else 0.0
        judged = n >= HOUSE_RESULT.min_n and se > 0
        md_needed, ks_needed = HOUSE_RESULT.min_n, kansas_needed(n, se)
        outside = judged and abs(hold - edge) > Z95 * se
        kansas = n >= ks_needed and se > 0 and abs(hold - edge) > KANSAS_POINTS
        marks = []
        if outside:
            marks.append(f"outside the 95% band ({MARYLAND_RULE}: investigate; {REFERENCE})")
        if kansas:
            marks.append(
                f"{100 * abs(hold - edge):.1f} points from the expected edge "
                f"({KANSAS_RULE}: over 3; {REFERENCE})"
            )
        if n < md_needed:
            marks.append(f"the Maryland 95% band: {too_few(n, md_needed)}")
        if n < ks_needed:
            marks.append(f"the Kansas 3-point band: {too_few(n, ks_needed)}")
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
            + "".join(f"; {m}" for m in marks),
            judged,
            detail={
                "won": r["won"],
                "handle": r["handled"],
                "hold": hold,
                "edge": edge,
                "band": (edge - Z95 * se, edge + Z95 * se),
                "maryland": outside,
                "kansas": kansas,
                "maryland_needed": md_needed,
                "kansas_needed": ks_needed,
            },
        )
