"""The side bets of each round, priced at their own exact edge (accounting.md "Statistics
over time").

A side bet (games.md §2: a wager whose ``kind`` is a side-bet id) is in the books' W and R
but not in the main handle: the house tests leave its settlement out of a round's win and
count, in ``hold_drop``'s expectation, its stake times its pay table's exact house edge
(:func:`audit.stats.side_bets.side_bet_odds`, the figure ``theory`` prints), so that
neither test depends on how often players bet them. A side bet the round's profile does not
offer (``BET_SIDE_NOT_OFFERED``), or whose pay table is not known, has no edge to price it
at: it is taken at its own result (it moves neither test) and counted, so the row can say so.
"""

from __future__ import annotations

from decimal import Decimal

import polars as pl

from audit.errors import AuditError
from audit.profiles import ProfileRegistry
from audit.sidebets.paytables import PayTableRegistry, load_paytables, offered_side_bets
from audit.stats.dealer import DealerRule
from audit.stats.frames import StatsData
from audit.stats.side_bets import side_bet_odds

__all__ = ["SIDE_COLUMNS", "priced_side_bets", "side_edge"]

SIDE_COLUMNS = ("rid", "side_settled", "side_expected", "side_unpriced")
"""One row per round with a side bet: its side bets' settlements (net to the players),
their expected win for the house, and how many could not be priced."""


def side_edge(
    registry: ProfileRegistry,
    paytables: PayTableRegistry,
    profile_id: str,
    decks: int | None,
    kind: str,
) -> float | None:
    """The exact house edge of side bet ``kind`` under the profile's pay table for a shoe of
    ``decks`` decks, or None when the profile does not price it."""
    if profile_id not in registry or decks is None or decks < 1:
        return None
    rules = registry.get(profile_id).rules
    paytable_id = offered_side_bets(rules).get(kind)
    if paytable_id is None or paytable_id not in paytables:
        return None
    try:  # a dealer who plays freely has no rule: only a bet on his draw needs one
        return float(
            side_bet_odds(paytables.get(paytable_id), decks, DealerRule.of(rules)).house_edge
        )
    except AuditError:
        return None


def priced_side_bets(
    data: StatsData, registry: ProfileRegistry, paytables: PayTableRegistry | None = None
) -> pl.DataFrame:
    """Per round with side bets: :data:`SIDE_COLUMNS` (``paytables``: the packaged ones
    when not given)."""
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        "rid": pl.Int64,
        "side_settled": pl.Decimal(18, 2),
        "side_expected": pl.Float64,
        "side_unpriced": pl.Int64,
    }
    bets = data.side_bets.filter(pl.col("rid").is_not_null())
    if bets.is_empty():
        return pl.DataFrame(schema=schema)
    tables = paytables if paytables is not None else load_paytables()
    bets = bets.join(data.rounds.select("rid", "profile_id", "decks"), on="rid", how="left")
    keys = bets.select("profile_id", "decks", "kind").unique()
    edges = pl.DataFrame(
        [
            {**k, "side_edge": side_edge(registry, tables, k["profile_id"], k["decks"], k["kind"])}
            for k in keys.iter_rows(named=True)
        ],
        schema={**dict(keys.schema), "side_edge": pl.Float64},
    )
    settled = pl.col("settled").fill_null(Decimal(0))
    return (
        bets.join(edges, on=["profile_id", "decks", "kind"], how="left", nulls_equal=True)
        .with_columns(
            side_expected=pl.when(pl.col("side_edge").is_null())
            .then(-settled.cast(pl.Float64))
            .otherwise(pl.col("side_edge") * pl.col("stake").cast(pl.Float64)),
            unpriced=pl.col("side_edge").is_null().cast(pl.Int64),
        )
        .group_by("rid")
        .agg(
            settled.sum().alias("side_settled"),
            pl.col("side_expected").sum(),
            pl.col("unpriced").sum().alias("side_unpriced"),
        )
        .select(pl.col(c).cast(t) for c, t in schema.items())
    )
