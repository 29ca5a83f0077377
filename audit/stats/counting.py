"""``count_betting``: a player's stake against the shoe's true count (Hi-Lo) at the bet.

Card counting shows in a log as stakes that rise with the count. The Hi-Lo
running count of the cards seen before a round (2–6 count +1, 7–9 count 0,
ten-values and aces −1) over the decks left is the true count at the bet.
For each player and shoe, T = Σ_t (s_t − s̄) · TC_t (stakes centred on the
player's mean in that shoe). Under independence the cards seen before round t
are a random subset of the shoe of size k_t, so with a_t = (s_t − s̄) / D_t
(D_t the decks left) and σ² = 40/52 (the Hi-Lo tags' mean square):

    Var T = σ² / (N − 1) · Σ_j Σ_t a_j a_t · min(k_j, k_t) · (N − max(k_j, k_t))

(the covariance of running counts of nested random subsets), in one pass per
shoe with a cumulative sum. The count's own drift within a shoe is thus
allowed for exactly: a naive correlation test would take it for a relation.
Summed over the player's shoes, Z = ΣT / √ΣVar; a high Z (one-sided) flags.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import polars as pl

from audit.stats.dealer import RANKS
from audit.stats.distributions import normal_sf
from audit.stats.frames import ROUND_ID, SHOE_ID, StatsData
from audit.stats.rows import StatRow, TestSpec
from audit.stats.scopes import scope_rows
from audit.stats.wording import subject_words

__all__ = ["COUNT_BETTING", "HI_LO", "SIGMA2", "count_cells", "count_tests"]

COUNT_BETTING = TestSpec(
    "count_betting",
    "bets",
    ("player",),
    200,
    "a player's stakes rising with the true count (Hi-Lo)",
)
HI_LO = (-1, 1, 1, 1, 1, 1, 0, 0, 0, -1)
"""The Hi-Lo tag of each rank, in :data:`~audit.stats.dealer.RANKS` order."""
SIGMA2 = 40 / 52


def count_tests(data: StatsData) -> Iterator[StatRow]:
    """``count_betting`` for each player id logged (with :attr:`TestSpec.min_n` bets)."""
    cells = data.count_cells if data.count_cells is not None else count_cells(data)
    for r in cells.iter_rows(named=True):
        subject, n, t, var = r["player"], r["n"], r["t"], r["var"]
        z = t / math.sqrt(var) if var > 0 else 0.0
        judged = n >= COUNT_BETTING.min_n and var > 0
        corr = r["r"] if r["r"] is not None and math.isfinite(r["r"]) else 0.0
        yield StatRow(
            COUNT_BETTING.name,
            "player",
            subject,
            n,
            z,
            normal_sf(z) if judged else None,
            0.0,
            corr,
            f"{subject_words('player', subject)}: {n:,} bets over {r['shoes']:,} shoes; "
            f"stake and true count correlate at {corr:+.2f}, "
            f"{z:+.1f} standard errors from what bets blind to the count give",
            judged,
            unjudged="" if var > 0 else "the stakes never vary",
        )


def count_cells(data: StatsData, min_n: int = COUNT_BETTING.min_n) -> pl.DataFrame:
    """Each player's ``count_betting`` sums from the frames, with polars: ``player``,
    ``n`` (bets), ``t`` (Σ centred stake · true count), ``var`` (its variance), ``r``
    (stake and true count's correlation) and ``shoes``, for each player with at least
    ``min_n`` bets (the test's least sample), in the order of the players' ids. The store makes the
    same in DuckDB (:func:`audit.store.stats_aggregates.load_count_cells`)."""
    # each player's stake in a round, summed by the store (WagerFacts.stakes); the player
    # id as a categorical: the runs below sort and compare its integer code
    stakes = data.wager_facts().stakes.with_columns(pl.col("player").cast(pl.Categorical))
    seen = pl.col("ranks_before_round")
    shoe = 52 * pl.col("decks")
    # lazily: an eager filter copied every column of a million rounds, rank lists too
    rounds = (
        data.rounds.lazy()
        .filter(pl.col("decks").is_not_null() & seen.is_not_null())
        .with_columns(
            k=seen.list.sum(),
            rc=pl.sum_horizontal(seen.list.get(i) * HI_LO[i] for i in range(len(RANKS))),
            big_n=shoe,
        )
        .with_columns(d=(pl.col("big_n") - pl.col("k")).clip(lower_bound=26) / 52)
        .with_columns(tc=pl.col("rc") / pl.col("d"))
        .filter(pl.col("k") < pl.col("big_n"))
        .select(ROUND_ID, SHOE_ID, "round", "gaming_day", "k", "big_n", "d", "tc")
    )
    bets = stakes.join(rounds.collect(), on=ROUND_ID, how="inner")
    # Each player's shoe is one run of rows, in the order of its bets (integer keys
    # only: the player id by its categorical code). The cumulative sum of each run is
    # the frame's running sum less the sum at the run's start: polars' cum_sum over
    # groups took 1.6 s of a million-round night's 4M bets.
    player = pl.col("player").cast(pl.Categorical).to_physical()
    x = pl.col("a") * pl.col("k")
    terms = (
        bets.with_columns(_player=player)
        .sort([SHOE_ID, "_player", "k", "round"])
        .with_columns(
            _start=(pl.col(SHOE_ID) != pl.col(SHOE_ID).shift())
            .or_(pl.col("_player") != pl.col("_player").shift())
            .fill_null(True)
        )
        .with_columns(_run=pl.col("_start").cum_sum())
        .with_columns(c=pl.col("s") - pl.col("s").mean().over("_run"))
        .with_columns(a=pl.col("c") / pl.col("d"))
        .with_columns(_sum=x.cum_sum() - x)
        .with_columns(before=pl.col("_sum") - pl.when("_start").then("_sum").forward_fill())
        .with_columns(
            t=pl.col("c") * pl.col("tc"),
            var=SIGMA2
            / (pl.col("big_n") - 1)
            * pl.col("a")
            * (pl.col("big_n") - pl.col("k"))
            * (pl.col("a") * pl.col("k") + 2 * pl.col("before")),
        )
    )
    aggs = [
        pl.len().alias("n"),
        pl.col("t").sum(),
        pl.col("var").sum(),
        pl.corr("s", "tc").alias("r"),
        pl.col(SHOE_ID).n_unique().alias("shoes"),
    ]
    sample = ("n", min_n)
    rows = [r for _, _, r in scope_rows(terms, COUNT_BETTING.scopes, aggs, sample=sample)]
    schema = {"player": pl.String, "n": pl.Int64, "t": pl.Float64, "var": pl.Float64}
    schema |= {"r": pl.Float64, "shoes": pl.Int64}
    return pl.DataFrame(
        [{**r, "player": str(r["player"])} for r in rows], schema=schema, orient="row"
    )
