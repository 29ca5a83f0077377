"""The queries behind ``shoe-audit stats``: stored outcomes as polars frames.

Owned by the store layer (SQL lives here); :mod:`audit.stats` only computes.
Each query selects the gaming days ``first`` to ``last`` (inclusive) and
returns the columns :mod:`audit.stats.frames` names.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import polars as pl

    from audit.store.store import Store

__all__ = [
    "StatsFrames",
    "audited_days",
    "load_period_books",
    "load_stats_frames",
    "load_wager_rows",
]

_RANK_OF = (
    "CASE WHEN substr(card, 1, 1) IN ('T', 'J', 'Q', 'K') THEN 'T' ELSE substr(card, 1, 1) END"
)
_RANK_COUNTS = ", ".join(
    f"count(*) FILTER (WHERE rank = '{r}')"
    for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
)

# ``rid`` and ``sid`` name a round and a shoe by an integer (the rows' ids in ``rounds`` and
# ``shoes``, stable within the query): the statistics join and group 5M wagers by them.
_ROUNDS = """
SELECT r.rowid AS rid, s.rowid AS sid, r.table_id, r.shoe, r.round, r.gaming_day, r.profile_id,
       s.decks, r.status, r.dealer,
       r.handle, r.settled, r.dealer_upcard, r.dealer_total, r.dealer_natural, r.dealer_bust,
       CAST(r.ranks_before_round AS BIGINT[]) AS ranks_before_round,
       CAST(r.ranks_before_dealer AS BIGINT[]) AS ranks_before_dealer
FROM rounds r JOIN shoes s USING (table_id, shoe)
WHERE r.gaming_day BETWEEN ? AND ?
"""

# The same without the two lists of cards seen (NULL): what ``stats`` reads when the store
# sums the tests that read them (audit.store.stats_aggregates); 170 bytes a round. The
# wagers' aggregates are then not read either (another ~150 bytes a round).
_LEAN_ROUNDS = _ROUNDS.replace("CAST(r.ranks_before_round AS BIGINT[])", "NULL::BIGINT[]").replace(
    "CAST(r.ranks_before_dealer AS BIGINT[])", "NULL::BIGINT[]"
)

# Every main wager, as WAGER_SCHEMA names its columns: what a wagers frame built by hand
# holds (load_wager_rows), never what the statistics load.
_WAGERS = """
SELECT r.rowid AS rid, w.table_id, w.shoe, w.round, w.box, w.hand, w.spot, w.kind, w.player,
       w.base_stake, w."natural", w.bust, w.surrendered, w.from_split
FROM wagers w LEFT JOIN rounds r USING (table_id, shoe, round)
WHERE w.gaming_day BETWEEN ? AND ? AND w.kind = 'main'
"""

# The statistics read a night's millions of wagers only through three aggregates
# (:class:`audit.stats.frames.WagerFacts`), made here: a frame of every wager (14
# columns, strings among them) and the polars work over it cost the report about
# 0.4 KB a round, 400 MB at 1,000,000 rounds (issue 33). Each mirrors the polars
# expression that derives it from a wagers frame built by hand (:mod:`audit.stats.frames`),
# null for null.
_MAIN_WAGERS = """
FROM wagers w JOIN rounds r USING (table_id, shoe, round)
WHERE w.gaming_day BETWEEN ? AND ? AND w.kind = 'main'
"""

# the rounds with a player hand still open when the dealer played (dealer_outcomes)
_OPEN_ROUNDS = f"""
SELECT DISTINCT r.rowid AS rid {_MAIN_WAGERS}
  AND NOT w."natural" AND NOT w.bust AND NOT coalesce(w.surrendered, false)
"""

# each box's first hand: a natural, unless the box split (player_naturals)
_BOX_NATURALS = f"""
SELECT r.rowid AS rid, w.box, coalesce(bool_or(w."natural" AND NOT w.from_split), false) AS hit
{_MAIN_WAGERS} AND w.hand = 0
GROUP BY ALL
"""

# each player's stake in a round, over his boxes' first hands (count_betting)
_ROUND_STAKES = f"""
SELECT r.rowid AS rid, w.player, sum(CAST(w.base_stake AS DOUBLE)) AS s
{_MAIN_WAGERS} AND w.hand = 0 AND w.player IS NOT NULL
GROUP BY ALL
"""

# The cards seen in each shoe's prefix of fixed length: up to the cut card's
# position, or (no cut card) the cards out before round 1 and its initial deal of
# two cards to each box with a stake and to the dealer. A card's position is the
# count of cards out of the shoe (burns included) up to and including it. The
# running count sorts every card of the night: it is kept to a shoe's integer id,
# the card's rank and a burn's cards (sorting the strings of table and shoe, and
# every card's code, cost a fifth more).
#
# ``run`` stores each shoe's prefix (``shoe_audits.prefix_ranks``, the engine's
# ``ShoeTracker.prefix_ranks``, by the same definition): this query only reads the
# events of the shoes without one (audited before schema 7, or not audited).
_STORED_SHOE_CARDS = """
SELECT s.table_id, s.shoe, s.gaming_day, s.decks, a.prefix_ranks AS ranks
FROM shoes s JOIN shoe_audits a USING (table_id, shoe)
WHERE s.gaming_day BETWEEN ? AND ? AND len(a.prefix_ranks) > 0
"""

_SHOE_CARDS = f"""
WITH sel AS (
  SELECT s.rowid AS sid, s.table_id, s.shoe, s.gaming_day, s.decks FROM shoes s
  WHERE s.gaming_day BETWEEN ? AND ? AND NOT EXISTS (
    SELECT 1 FROM shoe_audits a
    WHERE a.table_id = s.table_id AND a.shoe = s.shoe AND a.prefix_ranks IS NOT NULL)
), out_ AS (
  SELECT sel.sid, e.type,
         CASE WHEN e.type = 'card' THEN {_RANK_OF.replace("card", "e.card")} END AS rank,
         CASE WHEN e.type = 'burn' THEN e.cards END AS cards,
         sum(CASE WHEN e.type = 'card' THEN 1
                  ELSE COALESCE(NULLIF(len(e.cards), 0), e."count", 0) END)
           OVER (PARTITION BY sel.sid ORDER BY e.seq) AS pos
  FROM events e JOIN sel USING (table_id, shoe)
  WHERE e.type IN ('card', 'burn')
), cut AS (
  SELECT sel.sid, arg_max(e."position", e.seq) AS m
  FROM events e JOIN sel USING (table_id, shoe)
  WHERE e.type = 'cut_card'
  GROUP BY ALL
), deal AS (
  SELECT o.sid, min(o.pos) FILTER (WHERE o.type = 'card') - 1 + 2 * (any_value(r.boxes) + 1) AS m
  FROM out_ o JOIN sel USING (sid)
  JOIN rounds r ON r.table_id = sel.table_id AND r.shoe = sel.shoe AND r.round = 1
  GROUP BY ALL
), lim AS (
  SELECT sel.sid, COALESCE(cut.m, deal.m) AS m
  FROM sel LEFT JOIN cut USING (sid) LEFT JOIN deal USING (sid)
), seen AS (
  SELECT sid, rank FROM out_ JOIN lim USING (sid) WHERE type = 'card' AND pos <= m
  UNION ALL
  SELECT sid, {_RANK_OF} AS rank FROM (
    SELECT sid, unnest(cards) AS card FROM out_ JOIN lim USING (sid)
    WHERE type = 'burn' AND pos <= m)
)
SELECT sel.table_id, sel.shoe, sel.gaming_day, sel.decks, [{_RANK_COUNTS}] AS ranks
FROM sel JOIN seen USING (sid)
GROUP BY ALL
"""

# The side bets: wagers of a side-bet id (games.md §2), neither the main stake nor insurance
# nor the three-sevens bonus. ``stake`` and ``settled`` are what the house tests price.
_SIDE_BETS = """
SELECT r.rowid AS rid, w.table_id, w.shoe, w.round, w.kind, w.stake, w.settled
FROM wagers w JOIN rounds r USING (table_id, shoe, round)
WHERE w.gaming_day BETWEEN ? AND ? AND w.kind NOT IN ('main', 'insurance', 'bonus')
"""

# The books as counted, every gaming day up to the selection's last (payout_30d reads a
# table's lifetime). A period reconciled under another house file reads as not audited
# (accounting.md "When a period is judged"), as ``books`` reads it.
_PERIODS = """
SELECT table_id, gaming_day, shift,
       CASE WHEN ? IS NOT NULL AND house_sha256 IS DISTINCT FROM ? THEN 'not_audited'
            ELSE status END AS status,
       win,
       CASE WHEN drop_cash IS NULL THEN NULL
            ELSE drop_cash + COALESCE(drop_markers, 0) + COALESCE(drop_other, 0) END AS "drop"
FROM periods
WHERE gaming_day <= ?
ORDER BY table_id, gaming_day, shift
"""

_ORDERS = """
SELECT e.table_id, e.shoe, s.gaming_day, s.first_seq, arg_max(e."order", e.seq) AS "order"
FROM events e JOIN shoes s USING (table_id, shoe)
WHERE e.type = 'shuffle' AND e."order" IS NOT NULL AND s.gaming_day BETWEEN ? AND ?
GROUP BY ALL
"""


_FACTS = (_OPEN_ROUNDS, _BOX_NATURALS, _ROUND_STAKES)


def _none(sql: str) -> str:
    """``sql`` with no rows: its columns only."""
    return f"SELECT * FROM ({sql}) LIMIT 0"


def _frame(store: Store, sql: str, days: tuple[dt.date, dt.date]) -> pl.DataFrame:
    # a relation straight to polars (through Arrow): no Python objects per row
    frame: pl.DataFrame = store.con.sql(sql, params=list(days)).pl()
    return frame


class StatsFrames(NamedTuple):
    """The frames of :func:`load_stats_frames`; ``open_rounds``, ``box_naturals`` and
    ``stakes`` are the wagers' aggregates (:class:`audit.stats.frames.WagerFacts`)."""

    rounds: pl.DataFrame
    shoe_cards: pl.DataFrame
    orders: pl.DataFrame
    open_rounds: pl.DataFrame
    box_naturals: pl.DataFrame
    stakes: pl.DataFrame
    side_bets: pl.DataFrame
    periods: pl.DataFrame | None
    """None: a database without the ``periods`` table (before schema 9)."""


def load_stats_frames(
    store: Store,
    first: dt.date,
    last: dt.date,
    *,
    house_sha256: str | None = None,
    lean: bool = False,
) -> StatsFrames:
    """The rounds, shoe prefixes, shuffle orders and the wagers' aggregates of gaming days
    ``first``..``last``; their side bets; and the stored periods of every gaming day up to
    ``last``, each read as ``not_audited`` when reconciled under a house file other than
    ``house_sha256``. ``lean``: the rounds' ``ranks_before_round`` and
    ``ranks_before_dealer`` are left NULL and the wagers' aggregates empty (for a caller
    that has the store sum the tests that read them: :mod:`audit.store.stats_aggregates`)."""
    import polars as pl

    days = (first, last)
    periods = load_period_books(store, last, house_sha256=house_sha256)
    # lean: no test reads the wagers' aggregates either (empty, of their columns)
    open_rounds, box_naturals, stakes = (
        _frame(store, _none(sql) if lean else sql, days) for sql in _FACTS
    )
    return StatsFrames(
        _frame(store, _LEAN_ROUNDS if lean else _ROUNDS, days),
        pl.concat([_frame(store, _STORED_SHOE_CARDS, days), _frame(store, _SHOE_CARDS, days)]),
        _frame(store, _ORDERS, days),
        open_rounds,
        box_naturals,
        stakes,
        _frame(store, _SIDE_BETS, days),
        periods,
    )


def load_period_books(
    store: Store, last: dt.date, *, house_sha256: str | None = None
) -> pl.DataFrame | None:
    """The stored periods (:data:`audit.stats.frames.PERIOD_SCHEMA`) of every gaming day up
    to ``last``; None for a database without the ``periods`` table."""
    if not _has_table(store, "periods"):
        return None
    frame: pl.DataFrame = store.con.sql(_PERIODS, params=[house_sha256, house_sha256, last]).pl()
    return frame


def _has_table(store: Store, name: str) -> bool:
    rows = store.con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [name]
    ).fetchall()  # every row fetched: the connection is free for the relations that follow
    return bool(rows and rows[0][0])


def load_wager_rows(store: Store, first: dt.date, last: dt.date) -> pl.DataFrame:
    """Every main wager of gaming days ``first``..``last``, one row each: the frame that
    :meth:`audit.stats.frames.WagerFacts.of` turns into what :func:`load_stats_frames`
    reads in SQL (the check that both agree)."""
    return _frame(store, _WAGERS, (first, last))


def audited_days(store: Store) -> list[dt.date]:
    """The gaming days that have replayed rounds, in order (none before ``run`` stores any)."""
    if not _has_table(store, "rounds"):
        return []
    rows = store.con.execute(
        "SELECT DISTINCT gaming_day FROM rounds WHERE gaming_day IS NOT NULL ORDER BY 1"
    ).fetchall()
    return [r[0] for r in rows]
