"""``card_ranks``: the ranks of the cards dealt against the shoe's composition.

A shoe holds every rank in a fixed share (1/13 each, ten-values 4/13). The
cards seen up to the cut card are a random sample, without replacement, of
the shoe: a shoe stripped of tens, or with cards added, shows in them. Only
a prefix of fixed length counts (the cut card's position, set before the
deal; without a cut card, the initial deal of the shoe's first round):
counting every card up to the end of the last round would let the cards
decide where the sample ends (rounds of small cards take more cards), a
bias that a night of a million rounds turns into a false flag.

The statistic is Pearson's, with the finite-shoe variance: over shoes *s*
with *n_s* cards seen of *N_s*, X² = Σ_r (O_r − E_r)² / (p_r · Σ_s n_s (N_s − n_s) / (N_s − 1)).
Several shoes together (at least 2,000 cards) are judged by its chi-square with
9 degrees of freedom; one shoe, whose counts are small, by the exact
hypergeometric tail of each rank, the smallest times ten (Bonferroni): a night
tests thousands of shoes, far out in the tails where the chi-square is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl

from audit.stats.dealer import RANKS, TEN
from audit.stats.distributions import chi2_sf, hypergeometric_two_sided
from audit.stats.frames import StatsData, rank_columns
from audit.stats.rows import StatRow, TestSpec
from audit.stats.scopes import scope_rows
from audit.stats.wording import percent, subject_words

__all__ = ["CARD_RANKS", "card_rank_tests"]

CARD_RANKS = TestSpec(
    "card_ranks",
    "cards",
    ("shoe", "table", "day"),
    100,
    "ranks of the cards seen against the shoe's composition (chi-square)",
)
SHARE = tuple(4 / 13 if i == TEN else 1 / 13 for i in range(len(RANKS)))
PER_DECK = tuple(16 if i == TEN else 4 for i in range(len(RANKS)))
MIN_POOLED = 2_000
"""Cards needed to judge several shoes together by the chi-square (each rank then has
some 150 expected, enough for the normal tail this far out)."""
_NAMES = {"A": "aces", "T": "ten-values"}


def card_rank_tests(data: StatsData) -> Iterator[StatRow]:
    """``card_ranks`` per shoe, table and gaming day."""
    shoes = data.shoe_cards.filter(pl.col("decks").is_not_null() & pl.col("ranks").is_not_null())
    seen = pl.col("ranks").list.sum()
    full = 52 * pl.col("decks")
    units = shoes.with_columns(rank_columns(pl.col("ranks"), "o")).with_columns(
        n=seen, w=seen * (full - seen) / (full - 1).cast(pl.Float64)
    )
    aggs = [
        pl.col("n").sum(),
        pl.col("w").sum(),
        pl.len().alias("shoes"),
        pl.col("decks").first(),
        *(pl.col(f"o_{r}").sum() for r in RANKS),
    ]
    sample = ("n", CARD_RANKS.min_n)
    for scope, subject, row in scope_rows(units, CARD_RANKS.scopes, aggs, sample=sample):
        n, w = int(row["n"]), float(row["w"])
        if n == 0:
            continue
        obs = [int(row[f"o_{r}"]) for r in RANKS]
        z = [
            (o - p * n) / (p * w) ** 0.5 if w > 0 else 0.0 for o, p in zip(obs, SHARE, strict=True)
        ]
        x2 = sum(v * v for v in z)
        single = row["shoes"] == 1
        judged = w > 0 and n >= (CARD_RANKS.min_n if single else MIN_POOLED)
        p_value = None
        if judged and single:
            # one shoe: each rank's exact hypergeometric tail, Bonferroni over the ten
            total = 52 * int(row["decks"])
            tails = [
                hypergeometric_two_sided(o, total, k * int(row["decks"]), n)
                for o, k in zip(obs, PER_DECK, strict=True)
            ]
            p_value = min(1.0, len(RANKS) * min(tails))
        elif judged:
            p_value = chi2_sf(x2, len(RANKS) - 1)
        worst = max(range(len(RANKS)), key=lambda i: abs(z[i]))
        name = _NAMES.get(RANKS[worst], f"{RANKS[worst]}s")
        yield StatRow(
            CARD_RANKS.name,
            scope,
            subject,
            n,
            x2,
            p_value,
            dict(zip(RANKS, SHARE, strict=True)),
            {r: o / n for r, o in zip(RANKS, obs, strict=True)},
            f"{subject_words(scope, subject)}: {n:,} cards seen over {row['shoes']:,} shoe(s) "
            f"against the shoe's composition, chi-square {x2:.1f} on 9 degrees of freedom; "
            f"the widest gap: {name} {percent(obs[worst] / n)} of the cards seen, "
            f"{percent(SHARE[worst])} in a full shoe",
            judged,
            detail={"observed": dict(zip(RANKS, obs, strict=True)), "n": n, "w": w}
            if scope == "day"
            else {},
            unjudged="" if single or n >= MIN_POOLED else f"fewer than {MIN_POOLED:,} cards",
        )
