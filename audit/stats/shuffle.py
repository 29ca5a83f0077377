"""``shuffle_neighbours``: consecutive shoes' recorded orders against independent shuffles.

Where a shuffling machine records the order (``shuffle.order``, event-log.md),
a table's consecutive shoes are compared: a weak shuffle (or a faked one, the
same order recorded again) keeps neighbours together. The statistic is the
number of distinct neighbouring pairs (card ``a`` directly followed by card
``b``) of the earlier shoe found again, as neighbours, in the later one. An
independent shuffle of a shoe holding ``c_a`` copies of each card among
``N`` finds a given pair with chance 1 − exp(−c_a (c_b − [a = b]) / N)
(the pair's expected count among the later shoe's N − 1 neighbours is
(N − 1) · c_a (c_b − [a = b]) / (N (N − 1))); the count found is then
nearly Poisson, and a high count is the sign (one-sided).
"""

from __future__ import annotations

import itertools
import math
import operator
from collections import Counter
from collections.abc import Iterator

import polars as pl

from audit.stats.distributions import poisson_sf
from audit.stats.frames import StatsData
from audit.stats.rows import StatRow, TestSpec

__all__ = ["SHUFFLE", "neighbour_pairs", "shuffle_tests"]

SHUFFLE = TestSpec(
    "shuffle_neighbours",
    "pairs",
    ("shoe",),
    51,
    "neighbouring cards kept together from the table's previous shoe",
)


def neighbour_pairs(earlier: list[str], later: list[str]) -> tuple[int, float]:
    """(distinct neighbour pairs of ``earlier`` found again in ``later``, their expected count)."""
    copies = Counter(later)
    n = len(later)
    pairs = set(itertools.pairwise(earlier))
    again = pairs & set(itertools.pairwise(later))
    held = set(copies.values())
    if len(held) == 1 and all(a in copies and b in copies for a, b in pairs):
        # every card c times (a whole shoe): a pair's chance is one of two, by a = b; the
        # sum pair by pair was 60% of the test's time over a night's 6,000 shoes
        (c,) = held
        same = sum(itertools.starmap(operator.eq, pairs))
        return len(again), (len(pairs) - same) * (1 - math.exp(-c * c / n)) + same * (
            1 - math.exp(-c * (c - 1) / n)
        )
    expected = sum(1 - math.exp(-copies[a] * (copies[b] - (a == b)) / n) for a, b in pairs)
    return len(again), expected


def shuffle_tests(data: StatsData) -> Iterator[StatRow]:
    """``shuffle_neighbours`` for each shoe whose table's previous shoe recorded its order too."""
    orders = data.orders.filter(pl.col("order").is_not_null()).sort("table_id", "first_seq")
    previous: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    # one step per recorded shoe (a few per table and night), not per round
    for row in orders.iter_rows(named=True):
        table, order = row["table_id"], list(row["order"])
        subject = f"{table}/{row['shoe']}"
        before = previous.get(table)
        previous[table], last = order, names.get(table)
        names[table] = row["shoe"]
        if before is None:
            continue
        comparable = sorted(before) == sorted(order)
        found, expected = neighbour_pairs(before, order) if comparable else (0, 0.0)
        n = len(order) - 1
        if n < SHUFFLE.min_n:
            continue  # a sparse scope: no row below the minimum (audit.stats.scopes)
        judged = comparable
        what = (
            f"{found:,} of the {n:,} neighbouring pairs of shoe {last} are neighbours again, "
            f"where independent shuffles keep {expected:.1f} on average"
            if comparable
            else f"its recorded order does not hold the same cards as shoe {last}'s"
        )
        yield StatRow(
            SHUFFLE.name,
            "shoe",
            subject,
            n,
            float(found),
            poisson_sf(found, expected) if judged else None,
            expected,
            float(found),
            f"Shoe {subject}: {what}",
            judged,
            detail={"previous": last},
        )
