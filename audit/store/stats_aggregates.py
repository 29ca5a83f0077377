"""The statistics' per-round work, done in DuckDB: only aggregates reach Python.

A 1,000,000-round night's report held a polars frame of every round the dealer had
to play out, with a column for every hand he may be drawing at (hundreds behind a
low up card), and a frame of every player's stake a round with its count-betting
terms: 1-2 KB a round at their peaks (issue 33). Here both are SQL over the stored
``rounds``, ``shoes`` and ``wagers``, grouped down to what the tests sum:

- :func:`load_dealer_cells`: the dealer's hands by table, dealer, gaming day and up
  card, each cell with its count of hands, of each final outcome, and the sums of
  their exact chances (the :class:`~audit.stats.dealer.DealerGraph` recursion,
  written out as column arithmetic, one query part per rule and up card).
- :func:`load_count_cells`: each player's ``count_betting`` sums (the stakes centred
  on his mean in each shoe, against the shoe's true count, and their variance).

:mod:`audit.stats.dealing` and :mod:`audit.stats.counting` make the same cells from
frames built by hand, with polars (the tests hold both to the same figures).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

    from audit.stats.dealer import DealerGraph, DealerRule
    from audit.store.store import Store

__all__ = ["dealer_cells_sql", "load_count_cells", "load_dealer_cells"]

_RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
_KEYS = ("table_id", "dealer", "gaming_day", "upcard")

# A card code's rank as an index in RANKS (A 0, 2-9 1-8, T J Q K 9), else NULL:
# audit.stats.frames.upcard_index.
_UPCARD = """CASE substr(r.dealer_upcard, 1, 1)
  WHEN 'A' THEN 0 WHEN 'T' THEN 9 WHEN 'J' THEN 9 WHEN 'Q' THEN 9 WHEN 'K' THEN 9
  WHEN '2' THEN 1 WHEN '3' THEN 2 WHEN '4' THEN 3 WHEN '5' THEN 4 WHEN '6' THEN 5
  WHEN '7' THEN 6 WHEN '8' THEN 7 WHEN '9' THEN 8 END"""

# The rounds the dealer had to play out (audit.stats.dealing.dealer_rounds): closed, an
# up card and the shoe's decks known, a main hand still open when he played
# (WagerFacts.open_rounds), and the cards out when he drew: those before his second
# card, else (he stood on his first) those before the round and the up card.
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
WHERE upcard IS NOT NULL AND {
    " AND ".join(
        f"seen[{i + 1}] <= decks * {16 if r == 'T' else 4}" for i, r in enumerate(_RANK_NAMES)
    )
}
"""


def _sum(terms: Sequence[str]) -> str:
    """``terms`` added as polars' ``sum_horizontal`` adds them: halves, recursively."""
    if len(terms) == 1:
        return terms[0]
    half = len(terms) // 2
    return f"({_sum(terms[:half])} + {_sum(terms[half:])})"


def _chances(graph: DealerGraph, outcomes: Sequence[str], source: str) -> str:
    """A query over ``source`` (``left_A`` … ``left_T``) adding ``p_<outcome>``: the
    recursion of :func:`audit.stats.expected.expected_outcomes`, layer by layer, each
    layer a projection of the last (one column per hand the dealer may be drawing at)."""
    left = [f"CAST(left_{r} AS DOUBLE)" for r in _RANK_NAMES]
    query = f"SELECT *, 1.0::DOUBLE AS _s0_0, {_sum(left)} AS _total FROM ({source})"
    ends: dict[int, list[str]] = {o: [] for o in range(len(outcomes))}
    for k, layer in enumerate(graph.layers):
        inv = f"(CASE WHEN _total > {k} THEN 1.0::DOUBLE / (_total - {k}) ELSE 0.0::DOUBLE END)"
        into: dict[int, list[str]] = {}
        terms: dict[int, list[str]] = {}
        for move in graph.moves[k]:
            drawn = layer[move.source][move.rank]
            count = f"({left[move.rank]} - {drawn})" if drawn else left[move.rank]
            chance = f"_s{k}_{move.source} * {count}"
            if move.outcome is None:
                into.setdefault(move.target, []).append(chance)
            else:
                terms.setdefault(move.outcome, []).append(chance)
        new = [f"{_sum(e)} * {inv} AS _s{k + 1}_{t}" for t, e in into.items()]
        new += [f"{_sum(e)} * {inv} AS _o{k}_{o}" for o, e in terms.items()]
        for o in terms:
            ends[o].append(f"_o{k}_{o}")
        drop = ", ".join(f"_s{k}_{s}" for s in range(len(layer)))
        query = f"SELECT * EXCLUDE ({drop}), {', '.join(new)} FROM ({query})"
    final = ", ".join(
        f'{_sum(e) if e else "0.0::DOUBLE"} AS "p_{outcomes[o]}"' for o, e in ends.items()
    )
    return f"SELECT * EXCLUDE (_total), {final} FROM ({query})"


def dealer_cells_sql(
    rules: Mapping[DealerRule, Sequence[str]], graphs: Mapping[tuple[DealerRule, int], DealerGraph]
) -> tuple[str, tuple[str, ...]]:
    """The query of :func:`load_dealer_cells`, and the outcome names its columns carry
    (each rule's in turn, in the order of ``rules``: ``17`` … ``21``, ``blackjack``,
    ``bust``). Its parameters: the first and last gaming day, twice, then the profiles.
    A cell is also kept apart by its ``rule`` (its name): which rules had hands."""
    outcomes: list[str] = []
    for rule in rules:
        outcomes += [o for o in rule.outcomes if o not in outcomes]
    parts = []
    for rule, pids in rules.items():
        listed = ", ".join("'" + p.replace("'", "''") + "'" for p in pids)
        low = int(rule.outcomes[0])
        for upcard in range(10):
            source = (
                f"SELECT * EXCLUDE (profile_id, dealer_natural, dealer_bust, dealer_total),"
                f" CASE WHEN dealer_natural THEN 'blackjack' WHEN dealer_bust THEN 'bust'"
                f" WHEN dealer_total >= {low} THEN CAST(dealer_total AS VARCHAR)"
                f" ELSE 'short' END AS outcome"
                f" FROM hands WHERE upcard = {upcard} AND profile_id IN ({listed})"
            )
            chances = _chances(graphs[(rule, upcard)], rule.outcomes, source)
            parts.append(
                f"SELECT '{rule.name}' AS rule, {', '.join(_KEYS)}, outcome, {_p(rule.outcomes)}"
                f" FROM ({chances})"
            )
    cells = ", ".join(
        [
            "count(*) AS n",
            "count(*) FILTER (WHERE outcome = 'short') AS short",
            *(f"count(*) FILTER (WHERE outcome = '{o}') AS \"o_{o}\"" for o in outcomes),
            *(f'sum(coalesce("p_{o}", 0.0)) AS "e_{o}"' for o in outcomes),
            "sum(coalesce(p_bust, 0.0) * (1 - coalesce(p_bust, 0.0))) AS v_bust",
        ]
    )
    union = "\nUNION ALL BY NAME\n".join(parts)
    sql = f"""WITH hands AS MATERIALIZED ({_HANDS})
SELECT rule, {", ".join(_KEYS)}, {cells}
FROM ({union})
GROUP BY ALL
ORDER BY ALL"""
    return sql, tuple(outcomes)


def _p(outcomes: Sequence[str]) -> str:
    return ", ".join(f'"p_{o}"' for o in outcomes)


def load_dealer_cells(
    store: Store,
    first: dt.date,
    last: dt.date,
    rules: Mapping[DealerRule, Sequence[str]],
) -> pl.DataFrame:
    """The dealer's hands of gaming days ``first``..``last`` under ``rules`` (each dealer
    rule and the profiles that deal by it), by ``rule`` (its name), table, dealer, gaming
    day and up card: ``n``, ``short``, ``o_<outcome>`` (hands ending so),
    ``e_<outcome>`` (the sum of their exact chances) and ``v_bust`` (of
    ``p_bust · (1 - p_bust)``). No rule: an empty frame."""
    import polars as pl

    from audit.stats.dealer import dealer_graph

    if not rules:
        return pl.DataFrame()
    graphs = {(rule, u): dealer_graph(u, rule) for rule in rules for u in range(10)}
    sql, _ = dealer_cells_sql(rules, graphs)
    pids = sorted({p for ps in rules.values() for p in ps})
    frame: pl.DataFrame = store.con.sql(sql, params=[first, last, first, last, pids]).pl()
    return frame


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
