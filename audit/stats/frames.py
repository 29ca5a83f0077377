"""What the statistics read: the stored outcomes as polars frames, and their columns.

``run`` stores one row per replayed round (``rounds``) and one per wager
(``wagers``), so no statistic re-derives a verdict; :mod:`audit.store.outcomes`
loads them (with each shoe's ``decks``) for the gaming days asked for, and
the shuffle orders recorded (``shuffle.order``, event-log.md). Tests build
the same frames by hand.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import polars as pl

from audit.stats.dealer import RANKS

if TYPE_CHECKING:
    from audit.stats.dealing import DealerCells

__all__ = [
    "ORDER_SCHEMA",
    "PERIOD_SCHEMA",
    "ROUND_SCHEMA",
    "SHOE_CARDS_SCHEMA",
    "SIDE_BET_SCHEMA",
    "WAGER_SCHEMA",
    "StatsData",
    "WagerFacts",
    "rank_columns",
    "upcard_index",
]

ROUND_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "rid": pl.Int64,
    "sid": pl.Int64,
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
"""The ``rounds`` columns the statistics use (``decks`` from ``shoes``). ``rid`` and ``sid``
name the round and its shoe by an integer, unique in the frames of one run (joins and
group-bys of millions of wagers go by them, not by strings)."""

WAGER_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "rid": pl.Int64,
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
"""The ``wagers`` columns the statistics use (``rid``: the round's, as in ``rounds``)."""

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

SIDE_BET_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "rid": pl.Int64,
    "table_id": pl.String,
    "shoe": pl.String,
    "round": pl.Int64,
    "kind": pl.String,
    "stake": pl.Decimal(18, 2),
    "settled": pl.Decimal(18, 2),
}
"""The side bets among the ``wagers`` (games.md §2: a wager whose ``kind`` is a side-bet id,
not ``main``, ``insurance`` or ``bonus``): their stake and settlement, which the house tests
count at the side bet's own edge, not in the main game's (accounting.md "Statistics over
time")."""

PERIOD_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "table_id": pl.String,
    "gaming_day": pl.Date,
    "shift": pl.String,
    "status": pl.String,
    "win": pl.Decimal(38, 2),
    "drop": pl.Decimal(38, 2),
}
"""The stored periods (``periods``: one row per table, gaming day and shift, the books as
counted), of every gaming day up to the selection's last: ``hold_drop`` reads those of the
selection, ``payout_30d`` a table's lifetime."""

ROUND_KEY = ("table_id", "shoe", "round")
ROUND_ID = "rid"
"""A round's integer id: what the statistics join rounds and wagers by."""
SHOE_ID = "sid"

_UPCARD = {**{r: i for i, r in enumerate(RANKS)}, "J": 9, "Q": 9, "K": 9}


class StoredFrames(Protocol):
    """What the store loads (:class:`audit.store.stats_frames.StatsFrames`)."""

    @property
    def rounds(self) -> pl.DataFrame: ...
    @property
    def shoe_cards(self) -> pl.DataFrame: ...
    @property
    def orders(self) -> pl.DataFrame: ...
    @property
    def open_rounds(self) -> pl.DataFrame: ...
    @property
    def box_naturals(self) -> pl.DataFrame: ...
    @property
    def stakes(self) -> pl.DataFrame: ...
    @property
    def side_bets(self) -> pl.DataFrame: ...
    @property
    def periods(self) -> pl.DataFrame | None: ...


@dataclass(frozen=True, slots=True)
class WagerFacts:
    """What the statistics read of the main wagers: three aggregates, never the wagers.

    A night of 1,000,000 rounds has millions of wagers; the store makes these in
    DuckDB (:func:`audit.store.stats_frames.load_stats_frames`), and
    :meth:`of` derives the same from a wagers frame built by hand (issue 33).

    Attributes:
        open_rounds: ``rid`` of each round with a main hand still open when the dealer
            played (neither a natural, nor bust, nor surrendered).
        box_naturals: ``rid, box, hit``: each box's first main hand, ``hit`` when it is
            a natural (a box that split held a pair: no natural).
        stakes: ``rid, player, s``: each player's stake in a round (a Float64 sum over
            the first main hands of his boxes).
    """

    open_rounds: pl.DataFrame
    box_naturals: pl.DataFrame
    stakes: pl.DataFrame

    @classmethod
    def of(cls, wagers: pl.DataFrame) -> WagerFacts:
        """The aggregates of a wagers frame (:data:`WAGER_SCHEMA`), as the store makes them."""
        main = wagers.lazy().filter(pl.col("kind") == "main")
        first = main.filter(pl.col("hand") == 0)
        return cls(
            main.filter(
                ~pl.col("natural") & ~pl.col("bust") & ~pl.col("surrendered").fill_null(False)
            )
            .select(ROUND_ID)
            .collect(),
            first.group_by([ROUND_ID, "box"])
            .agg(hit=(pl.col("natural") & ~pl.col("from_split")).any())
            .collect(),
            first.filter(pl.col("player").is_not_null())
            .group_by([ROUND_ID, "player"])
            .agg(pl.col("base_stake").cast(pl.Float64).sum().alias("s"))
            .collect(),
        )


@dataclass(frozen=True, slots=True)
class StatsData:
    """The frames one ``stats`` run reads.

    ``wagers`` is a frame built by hand (empty when the store gave ``facts``);
    :meth:`wager_facts` is what the tests read of it. ``dealer_cells`` and
    ``count_cells`` and ``natural_cells``, when the store made them (issue 33), stand
    for the per-round work of the ``dealer_*``, naturals and ``count_betting`` tests
    over the frames.
    """

    rounds: pl.DataFrame
    wagers: pl.DataFrame
    shoe_cards: pl.DataFrame
    orders: pl.DataFrame
    side_bets: pl.DataFrame
    periods: pl.DataFrame
    last_day: dt.date | None = None
    """The selection's last gaming day (``payout_30d`` is judged on it); None: the rounds'."""
    facts: WagerFacts | None = None
    dealer_cells: DealerCells | None = None
    """The dealer's hands summed by the store (None: the tests sum :attr:`rounds`)."""
    count_cells: pl.DataFrame | None = None
    """``count_betting``'s sums per player made by the store (None: the tests make them)."""
    natural_cells: tuple[pl.DataFrame, pl.DataFrame] | None = None
    """``dealer_naturals``' and ``player_naturals``' sums made by the store (None: the
    tests make them). With all three the rounds' rank lists are read by no test."""

    def wager_facts(self) -> WagerFacts:
        """The wagers' aggregates: the store's, else derived from :attr:`wagers`."""
        return self.facts if self.facts is not None else WagerFacts.of(self.wagers)

    @classmethod
    def stored(cls, frames: StoredFrames, *, last_day: dt.date | None = None) -> StatsData:
        """The frames :func:`audit.store.stats_frames.load_stats_frames` read."""
        facts = WagerFacts(frames.open_rounds, frames.box_naturals, frames.stakes)
        return cls.of(
            frames.rounds,
            facts,
            frames.shoe_cards,
            frames.orders,
            frames.side_bets,
            frames.periods,
            last_day=last_day,
        )

    @classmethod
    def of(
        cls,
        rounds: pl.DataFrame | None = None,
        wagers: pl.DataFrame | WagerFacts | None = None,
        shoe_cards: pl.DataFrame | None = None,
        orders: pl.DataFrame | None = None,
        side_bets: pl.DataFrame | None = None,
        periods: pl.DataFrame | None = None,
        *,
        last_day: dt.date | None = None,
    ) -> StatsData:
        """Frames with every column the statistics use (empty where not given).

        Frames built by hand may leave out ``rid`` and ``sid``: they are numbered
        here, a wager's (and a side bet's) from its round's key (one of no round
        given has none). ``wagers`` may be the store's :class:`WagerFacts` (their
        ``rid`` are the stored rounds').
        """
        if isinstance(wagers, WagerFacts):
            data = cls.of(rounds, None, shoe_cards, orders, side_bets, periods, last_day=last_day)
            return dataclasses.replace(data, facts=wagers)
        rounds, renumbered = _numbered(rounds)
        wagers = _with_round_ids(wagers, rounds, renumbered)
        side_bets = _with_round_ids(side_bets, rounds, renumbered)
        return cls(
            _conform(rounds, ROUND_SCHEMA),
            _conform(wagers, WAGER_SCHEMA),
            _conform(shoe_cards, SHOE_CARDS_SCHEMA),
            _conform(orders, ORDER_SCHEMA),
            _conform(side_bets, SIDE_BET_SCHEMA),
            _conform(periods, PERIOD_SCHEMA),
            last_day,
        )

    @property
    def selection_last_day(self) -> dt.date | None:
        """The selection's last gaming day: as given, else the rounds' latest."""
        if self.last_day is not None:
            return self.last_day
        day: dt.date | None = self.rounds.get_column("gaming_day").max()  # type: ignore[assignment]
        return day


def _with_round_ids(
    frame: pl.DataFrame | None, rounds: pl.DataFrame | None, renumbered: bool
) -> pl.DataFrame | None:
    """``frame`` (wagers, side bets) with its rounds' ``rid``, when built by hand without."""
    if frame is None or not _has(frame, ROUND_KEY) or not (renumbered or not _ids(frame)):
        return frame
    schema = {**{k: ROUND_SCHEMA[k] for k in ROUND_KEY}, ROUND_ID: pl.Int64}
    ids = pl.DataFrame(schema=schema)
    if rounds is not None and ROUND_ID in rounds.columns:
        ids = rounds.select(*ROUND_KEY, ROUND_ID).unique().cast(schema)  # type: ignore[arg-type]
    return frame.drop(ROUND_ID, strict=False).join(ids, on=list(ROUND_KEY), how="left")


def _has(frame: pl.DataFrame, columns: tuple[str, ...]) -> bool:
    return all(c in frame.columns for c in columns)


def _ids(frame: pl.DataFrame, *columns: str) -> bool:
    """Whether ``frame`` has its ids: the columns, not all null (a frame built by hand
    with the schema, but no ids, has them all null)."""
    return all(c in frame.columns for c in (ROUND_ID, *columns)) and not any(
        frame.get_column(c).null_count() == frame.height > 0 for c in (ROUND_ID, *columns)
    )


def _numbered(rounds: pl.DataFrame | None) -> tuple[pl.DataFrame | None, bool]:
    """``rounds`` with ``rid`` and ``sid`` (numbered here when not given), and whether
    they were numbered here."""
    if rounds is None or not _has(rounds, ROUND_KEY):
        return rounds, False  # _conform names what is missing
    if _ids(rounds, SHOE_ID) and rounds.get_column(ROUND_ID).null_count() == 0:
        return rounds, False
    return rounds.with_columns(
        pl.struct(ROUND_KEY).rank("dense").cast(pl.Int64).alias(ROUND_ID),
        pl.struct(ROUND_KEY[:2]).rank("dense").cast(pl.Int64).alias(SHOE_ID),
    ), True


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
