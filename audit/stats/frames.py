"""What the statistics read: the stored outcomes as polars frames, and their columns.

``run`` stores one row per replayed round (``rounds``) and one per wager
(``wagers``), so no statistic re-derives a verdict; :mod:`audit.store.outcomes`
loads them (with each shoe's ``decks``) for the gaming days asked for, and
the shuffle orders recorded (``shuffle.order``, event-log.md). Tests build
the same frames by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from audit.stats.dealer import RANKS

__all__ = [
    "ORDER_SCHEMA",
    "ROUND_SCHEMA",
    "SHOE_CARDS_SCHEMA",
    "WAGER_SCHEMA",
    "StatsData",
    "rank_columns",
    "upcard_index",
]

ROUND_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "table_id": pl.String,
    "shoe": pl.String,
    "round": pl.Int64,
    "gaming_day": pl.Date,
    "profile_id": pl.String,
    "decks": pl.Int64,
    "status": pl.String,
    "dealer": pl.String,
    "handle": pl.Decimal(18, 2),
    "settled": pl.Decimal(18, 2),
    "dealer_upcard": pl.String,
    "dealer_total": pl.Int64,
    "dealer_natural": pl.Boolean,
    "dealer_bust": pl.Boolean,
    "ranks_before_round": pl.List(pl.Int64),
    "ranks_before_dealer": pl.List(pl.Int64),
}
"""The ``rounds`` columns the statistics use (``decks`` from ``shoes``)."""

WAGER_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "table_id": pl.String,
    "shoe": pl.String,
    "round": pl.Int64,
    "box": pl.Int64,
    "hand": pl.Int64,
    "spot": pl.Int64,
    "kind": pl.String,
    "player": pl.String,
    "base_stake": pl.Decimal(18, 2),
    "natural": pl.Boolean,
    "bust": pl.Boolean,
    "surrendered": pl.Boolean,
    "from_split": pl.Boolean,
}
"""The ``wagers`` columns the statistics use."""

SHOE_CARDS_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "table_id": pl.String,
    "shoe": pl.String,
    "gaming_day": pl.Date,
    "decks": pl.Int64,
    "ranks": pl.List(pl.Int64),
}
"""One row per shoe: the ranks of the cards seen in its fixed-length prefix
(up to the cut card; :mod:`audit.stats.cards` says why)."""

ORDER_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "table_id": pl.String,
    "shoe": pl.String,
    "gaming_day": pl.Date,
    "first_seq": pl.Int64,
    "order": pl.List(pl.String),
}
"""One row per shoe whose shuffle recorded the order it will be drawn in."""

ROUND_KEY = ("table_id", "shoe", "round")

_UPCARD = {**{r: i for i, r in enumerate(RANKS)}, "J": 9, "Q": 9, "K": 9}


@dataclass(frozen=True, slots=True)
class StatsData:
    """The frames one ``stats`` run reads."""

    rounds: pl.DataFrame
    wagers: pl.DataFrame
    shoe_cards: pl.DataFrame
    orders: pl.DataFrame

    @classmethod
    def of(
        cls,
        rounds: pl.DataFrame | None = None,
        wagers: pl.DataFrame | None = None,
        shoe_cards: pl.DataFrame | None = None,
        orders: pl.DataFrame | None = None,
    ) -> StatsData:
        """Frames with every column the statistics use (empty where not given)."""
        return cls(
            _conform(rounds, ROUND_SCHEMA),
            _conform(wagers, WAGER_SCHEMA),
            _conform(shoe_cards, SHOE_CARDS_SCHEMA),
            _conform(orders, ORDER_SCHEMA),
        )


def _conform(
    frame: pl.DataFrame | None, schema: dict[str, pl.DataType | type[pl.DataType]]
) -> pl.DataFrame:
    if frame is None:
        return pl.DataFrame(schema=schema)
    missing = [c for c in schema if c not in frame.columns]
    if missing:
        raise ValueError(f"the statistics need the columns {missing}")
    return frame.select(pl.col(c).cast(t) for c, t in schema.items())


def upcard_index(card: pl.Expr) -> pl.Expr:
    """A card code's rank as an index in :data:`~audit.stats.dealer.RANKS`."""
    return card.str.slice(0, 1).replace_strict(_UPCARD, default=None, return_dtype=pl.Int64)


def rank_columns(ranks: pl.Expr, prefix: str) -> list[pl.Expr]:
    """A list of ten counts (A, 2 … 9, T) as ten columns ``<prefix>_A`` … ``<prefix>_T``."""
    return [ranks.list.get(i, null_on_oob=True).alias(f"{prefix}_{r}") for i, r in enumerate(RANKS)]
