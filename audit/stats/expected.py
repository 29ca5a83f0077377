"""Each round's exact expected dealer outcome, from the shoe as it stood when he drew.

The full-shoe table is not the exact null for what is observed: the players'
cards and the depth of the shoe change what the dealer draws from. The log
gives that composition (``rounds.ranks_before_dealer``: the cards out of the
shoe just before the dealer's second card), so each round gets its own exact
distribution: the :class:`~audit.stats.dealer.DealerGraph` recursion evaluated
for every round at once as polars column arithmetic (one column per hand the
dealer may be drawing at, layer by layer), not a Python loop over rounds.
"""

from __future__ import annotations

from collections import defaultdict

import polars as pl

from audit.stats.dealer import (
    RANKS,
    DealerGraph,
    DealerRule,
    dealer_graph,
    outcome_probabilities,
)

__all__ = ["REMAINING", "SMALL", "expected_outcomes", "outcome_columns"]

SMALL = 120
"""Below this many rows per up card, the recursion runs row by row in Python: planning the
polars query costs more than that (about a third of a second per up card)."""

REMAINING = tuple(f"left_{r}" for r in RANKS)
"""Columns holding the cards left per rank when the dealer starts drawing."""


def outcome_columns(rule: DealerRule) -> tuple[str, ...]:
    """The probability columns :func:`expected_outcomes` adds: ``p_17`` … ``p_bust``."""
    return tuple(f"p_{o}" for o in rule.outcomes)


def expected_outcomes(frame: pl.DataFrame, rule: DealerRule) -> pl.DataFrame:
    """``frame`` with ``p_<outcome>`` columns: P of each final outcome of the round.

    ``frame`` holds ``upcard`` (an index in :data:`~audit.stats.dealer.RANKS`)
    and the :data:`REMAINING` counts (the up card already out). Rows keep
    their order.
    """
    cols = outcome_columns(rule)
    if frame.is_empty():
        return frame.with_columns(pl.lit(None, dtype=pl.Float64).alias(c) for c in cols)
    indexed = frame.with_row_index("_row")
    parts = []
    for (upcard,), part in indexed.group_by(["upcard"], maintain_order=True):
        graph = dealer_graph(int(upcard), rule)
        if len(part) < SMALL:
            parts.append(_rows(part, graph, cols))
        else:
            parts.append(_evaluate(part, graph, cols))
    return pl.concat(parts).sort("_row").drop("_row")


def _rows(part: pl.DataFrame, graph: DealerGraph, cols: tuple[str, ...]) -> pl.DataFrame:
    lefts = part.select(REMAINING).rows()
    probs = [outcome_probabilities(graph, left) for left in lefts]
    return part.with_columns(
        pl.Series(c, [p[i] for p in probs], dtype=pl.Float64) for i, c in enumerate(cols)
    )


def _evaluate(part: pl.DataFrame, graph: DealerGraph, cols: tuple[str, ...]) -> pl.DataFrame:
    left = [pl.col(c).cast(pl.Float64) for c in REMAINING]
    total = pl.sum_horizontal(left)
    # one lazy query for all layers: polars then runs it without the eager
    # frame of every layer in between (three times faster)
    work = part.lazy().with_columns(pl.lit(1.0).alias("_s0_0"))
    sums: dict[str, list[pl.Expr]] = {c: [] for c in cols}
    for k, layer in enumerate(graph.layers):
        inv = pl.when(total > k).then(1.0 / (total - k)).otherwise(0.0)
        into: defaultdict[int, list[pl.Expr]] = defaultdict(list)
        terms: defaultdict[int, list[pl.Expr]] = defaultdict(list)
        for move in graph.moves[k]:
            drawn = layer[move.source][move.rank]
            count = left[move.rank] - drawn if drawn else left[move.rank]
            chance = pl.col(f"_s{k}_{move.source}") * count
            if move.outcome is None:
                into[move.target].append(chance)
            else:
                terms[move.outcome].append(chance)
        new = [
            (pl.sum_horizontal(exprs) * inv).alias(f"_s{k + 1}_{t}") for t, exprs in into.items()
        ]
        new += [(pl.sum_horizontal(exprs) * inv).alias(f"_o{k}_{o}") for o, exprs in terms.items()]
        for o in terms:
            sums[cols[o]].append(pl.col(f"_o{k}_{o}"))
        work = work.with_columns(new).drop([f"_s{k}_{s}" for s in range(len(layer))])
    final = [
        (pl.sum_horizontal(exprs) if exprs else pl.lit(0.0)).alias(c) for c, exprs in sums.items()
    ]
    keep = [*part.columns, *cols]
    return work.with_columns(final).select(keep).collect()
