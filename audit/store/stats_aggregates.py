"""The statistics' per-round work, fed from DuckDB so that Python holds only sums.

A 1,000,000-round night's report held a polars frame of every round the dealer had
to play out (its cards left, then a column for every hand he may be drawing at,
hundreds behind a low up card) and a frame of every player's stake a round with its
count-betting terms: 1-2 KB a round at their peaks (issue 33). Now:

- :func:`dealer_hand_batches`: the dealer's hands, selected and joined in SQL, come
  a batch at a time; :mod:`audit.stats.dealing` works out each batch's exact chances
  and keeps only their sums by table, dealer, gaming day and up card. (The recursion
  written out as SQL column arithmetic gave the same figures but took DuckDB five
  times polars' CPU: docs/decisions.md, "The report's memory, the rest".)
- :func:`load_count_cells`: each player's ``count_betting`` sums, all in SQL (the
  stakes centred on his mean in each shoe, against the shoe's true count, and their
  variance).
- :func:`load_natural_cells`: ``dealer_naturals`` and ``player_naturals``, the count
  and the summed chances of naturals by table, dealer and gaming day, all in SQL. With
  these, ``stats`` never reads the rounds' lists of cards seen.

:mod:`audit.stats.dealing` and :mod:`audit.stats.counting` make the same sums from
frames built by hand, with polars (the tests hold both to the same figures).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

    from audit.store.store import Store

__all__ = ["HAND_BATCH", "dealer_hand_batches", "load_count_cells", "load_natural_cells"]

HAND_BATCH = 65_536
"""Hands a batch: their exact chances take some hundred columns of floats at the
widest (a column for each hand the dealer may be drawing at), ~0.6 KB a hand."""

_RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")

# A card code's rank as an index in RANKS (A 0, 2-9 1-8, T J Q K 9), else NULL:
# audit.stats.frames.upcard_index.
_UPCARD = """CASE substr(r.dealer_upcard, 1, 1)
  WHEN 'A' THEN 0 WHEN 'T' THEN 9 WHEN 'J' THEN 9 WHEN 'Q' THEN 9 WHEN 'K' THEN 9
  WHEN '2' THEN 1 WHEN '3' THEN 2 WHEN '4' THEN 3 WHEN '5' THEN 4 WHEN '6' THEN 5
  WHEN '7' THEN 6 WHEN '8' THEN 7 WHEN '9' THEN 8 END"""

# The rounds the dealer had to play out (audit.stats.dealing.dealer_rounds): closed, an
# up card and the shoe's decks known, a main hand still open when he played
# (WagerFacts.open_rounds), and the cards out when he drew: those before his second
# card, else (he stood on his first) those before the round and the up card. One up card
# a query: polars plans the chances of each up card in a batch once (a third of a second
# a plan), and a query over every hand of a 1,000,000-round night ran out of the report's
# 512MB once the statistics' frames were loaded (issue 33, session 7).
_HANDS = f"""
WITH open_ AS (
  SELECT DISTINCT w.table_id, w.shoe, w.round
  FROM wagers w JOIN rounds r USING (table_id, shoe, round)
  WHERE w.gaming_day BETWEEN ? AND ? AND w.kind = 'main'
    AND NOT w."natural" AND NOT w.bust AND NOT coalesce(w.surrendered, false)
), played AS (
  SELECT r.table_id, r.dealer, r.gaming_day, r.profile_id, s.decks,
         r.dealer_natural, r.dealer_bust, r.dealer_total, {_UPCARD} AS upcard,
         CAST(r.ranks_before_dealer AS BIGINT[]) AS dealt,
         CAST(r.ranks_before_round AS BIGINT[]) AS before_round
  FROM rounds r JOIN shoes s USING (table_id, shoe) SEMI JOIN open_ USING (table_id, shoe, round)
  WHERE r.gaming_day BETWEEN ? AND ? AND r.status = 'closed'
    AND r.dealer_upcard IS NOT NULL AND s.decks IS NOT NULL AND list_contains(?, r.profile_id)
), out_ AS (
  SELECT * EXCLUDE (dealt, before_round),
         coalesce(dealt, CASE WHEN before_round IS NOT NULL THEN [{
    ", ".join(f"before_round[{i + 1}] + CAST(upcard = {i} AS BIGINT)" for i in range(10))
}] END) AS seen
  FROM played
)
SELECT table_id, dealer, gaming_day, profile_id, upcard, dealer_natural, dealer_bust, dealer_total,
       {
    ", ".join(
        f"CAST(decks * {16 if r == 'T' else 4} - seen[{i + 1}] AS SMALLINT) AS left_{r}"
        for i, r in enumerate(_RANK_NAMES)
    )
}
FROM out_
WHERE upcard = ? AND {
    " AND ".join(
        f"seen[{i + 1}] <= decks * {16 if r == 'T' else 4}" for i, r in enumerate(_RANK_NAMES)
    )
}
ORDER BY profile_id
"""


def dealer_hand_batches(
    store: Store, first: dt.date, last: dt.date, profiles: Sequence[str], *, rows: int = 0
) -> Iterator[pl.DataFrame]:
    """The hands the dealer had to play out in gaming days ``first``..``last`` at tables
    of ``profiles``, ``rows`` at a time: ``table_id``, ``dealer``, ``gaming_day``,
    ``profile_id``, ``upcard`` (an index in RANKS), ``dealer_natural``, ``dealer_bust``,
    ``dealer_total`` and the cards left per rank when he drew (``left_A`` … ``left_T``).
    ``rows`` 0: :data:`HAND_BATCH`."""
    import polars as pl

    for upcard in range(len(_RANK_NAMES)):  # in the order of the up card
        params = [first, last, first, last, list(profiles), upcard]
        sql = store.con.sql(_HANDS, params=params)
        for batch in sql.to_arrow_reader(batch_size=rows or HAND_BATCH):
            frame = pl.from_arrow(batch)
            assert isinstance(frame, pl.DataFrame)
            yield frame


# count_betting (audit.stats.counting): each player's stake a round (WagerFacts.stakes)
# against the true count before it; per player and shoe, the stakes centred on their mean
# and the variance term with the sum of a·k over the earlier bets of that shoe.
_COUNT_CELLS = """
WITH stakes AS (
  SELECT w.table_id, w.shoe, w.round, w.player, sum(CAST(w.base_stake AS DOUBLE)) AS s
  FROM wagers w JOIN rounds r USING (table_id, shoe, round)
  WHERE w.gaming_day BETWEEN ? AND ? AND w.kind = 'main' AND w.hand = 0
    AND w.player IS NOT NULL
  GROUP BY ALL
), counted AS (
  SELECT table_id, shoe, round, k, 52 * decks AS big_n,
         greatest(52 * decks - k, 26) / 52 AS d, rc / (greatest(52 * decks - k, 26) / 52) AS tc
  FROM (
    SELECT r.table_id, r.shoe, r.round, s.decks,
           list_sum(seen) AS k,
           seen[2] + seen[3] + seen[4] + seen[5] + seen[6] - seen[1] - seen[10] AS rc
    FROM (SELECT *, CAST(ranks_before_round AS BIGINT[]) AS seen FROM rounds) r
    JOIN shoes s USING (table_id, shoe)
    WHERE r.gaming_day BETWEEN ? AND ? AND s.decks IS NOT NULL
      AND r.ranks_before_round IS NOT NULL)
  WHERE k < 52 * decks
), bets AS (
  SELECT table_id, shoe, player, round, k, big_n, d, tc, s,
         s - avg(s) OVER (PARTITION BY table_id, shoe, player) AS c
  FROM stakes JOIN counted USING (table_id, shoe, round)
), terms AS (
  SELECT table_id, shoe, player, s, tc, k, big_n, c * tc AS t, c / d AS a,
         coalesce(sum(c / d * k) OVER (
           PARTITION BY table_id, shoe, player ORDER BY k, round
           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0.0) AS before
  FROM bets
)
SELECT player, count(*) AS n, sum(t) AS t,
       sum(? / (big_n - 1) * a * (big_n - k) * (a * k + 2 * before)) AS var,
       corr(s, tc) AS r, count(DISTINCT (table_id, shoe)) AS shoes
FROM terms
GROUP BY player
HAVING count(*) >= ?
ORDER BY player
"""


def load_count_cells(
    store: Store, first: dt.date, last: dt.date, *, sigma2: float, min_n: int
) -> pl.DataFrame:
    """``count_betting``'s sums for each player with at least ``min_n`` bets in gaming
    days ``first``..``last``: ``player``, ``n`` (his bets: rounds he staked in),
    ``t`` (Σ centred stake · true count), ``var`` (its variance under independence, the
    Hi-Lo tags' mean square ``sigma2``), ``r`` (stake and true count's correlation) and
    ``shoes``."""
    frame: pl.DataFrame = store.con.sql(
        _COUNT_CELLS, params=[first, last, first, last, sigma2, min_n]
    ).pl()
    return frame


# dealer_naturals and player_naturals (audit.stats.dealing.natural_tests): closed rounds of
# a shoe of known decks. The dealer's: behind an ace (a ten-value) up, the chance of a
# ten-value (an ace) among the cards left before his second card. The players': each
# box's first main hand (WagerFacts.box_naturals) against 2·aces·tens / (N·(N-1)) of the
# shoe as the round began (every rank's count left not negative, two cards left at
# least). Summed by table, dealer and gaming day: n, o (naturals), e (Σ p), v (Σ p(1-p)).
def _left(ranks: str) -> list[str]:
    """Each rank's cards left in the shoe, the list ``ranks`` of cards out (RANKS order)."""
    return [
        f"(s.decks * {16 if r == 'T' else 4} - {ranks}[{i + 1}])" for i, r in enumerate(_RANK_NAMES)
    ]


_DEALT_LEFT, _ROUND_LEFT = _left("r.ranks_before_dealer"), _left("r.ranks_before_round")

_NATURAL_ROUNDS = """
FROM rounds r JOIN shoes s USING (table_id, shoe)
WHERE r.gaming_day BETWEEN ? AND ? AND r.status = 'closed' AND s.decks IS NOT NULL
"""

_SUMS = "count(*) AS n, count(*) FILTER (WHERE hit) AS o, sum(p) AS e, sum(p * (1 - p)) AS v"

_DEALER_NATURALS = f"""
WITH lefts AS (
  SELECT r.table_id, r.dealer, r.gaming_day, r.dealer_natural AS hit, {_UPCARD} AS upcard,
         {_DEALT_LEFT[0]} AS aces, {_DEALT_LEFT[9]} AS tens, ({" + ".join(_DEALT_LEFT)}) AS total
  {_NATURAL_ROUNDS} AND r.ranks_before_dealer IS NOT NULL
)
SELECT table_id, dealer, gaming_day, {_SUMS}
FROM (SELECT *, greatest(least(CASE WHEN upcard = 0 THEN tens / total ELSE aces / total END,
                               1.0), 0.0) AS p
      FROM lefts WHERE upcard IN (0, 9) AND total > 0)
GROUP BY ALL
"""

_PLAYER_NATURALS = f"""
WITH lefts AS (
  SELECT r.table_id, r.shoe, r.round, r.dealer, r.gaming_day,
         {_ROUND_LEFT[0]} AS aces, {_ROUND_LEFT[9]} AS tens, ({" + ".join(_ROUND_LEFT)}) AS total
  {_NATURAL_ROUNDS} AND r.ranks_before_round IS NOT NULL
    AND {" AND ".join(f"{c} >= 0" for c in _ROUND_LEFT)}
), chances AS (
  SELECT table_id, shoe, round, dealer, gaming_day,
         2 * aces * tens / CAST(total * (total - 1) AS DOUBLE) AS p
  FROM lefts WHERE total >= 2
), boxes AS (
  SELECT w.table_id, w.shoe, w.round, w.box,
         coalesce(bool_or(w."natural" AND NOT w.from_split), false) AS hit
  FROM wagers w JOIN rounds r USING (table_id, shoe, round)
  WHERE w.gaming_day BETWEEN ? AND ? AND w.kind = 'main' AND w.hand = 0
  GROUP BY ALL
)
SELECT table_id, dealer, gaming_day, {_SUMS}
FROM chances JOIN boxes USING (table_id, shoe, round)
GROUP BY ALL
"""


def load_natural_cells(
    store: Store, first: dt.date, last: dt.date
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``dealer_naturals``' and ``player_naturals``' sums in gaming days ``first``..``last``
    by ``table_id``, ``dealer`` and ``gaming_day``: ``n`` (hands, boxes), ``o`` (naturals),
    ``e`` (the sum of their chances) and ``v`` (of ``p · (1 - p)``)."""
    days = [first, last]
    dealer: pl.DataFrame = store.con.sql(_DEALER_NATURALS, params=days).pl()
    player: pl.DataFrame = store.con.sql(_PLAYER_NATURALS, params=days + days).pl()
    return dealer, player
