"""The subjects a test is run for: each table, dealer, shoe, player and gaming day.

A test aggregates its units (hands, rounds, cards) with one polars group-by
per scope; the statistic is then worked out once per subject.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import polars as pl

__all__ = ["SCOPE_KEYS", "by_scope"]

SCOPE_KEYS: dict[str, tuple[str, ...]] = {
    "table": ("table_id",),
    "dealer": ("dealer",),
    "shoe": ("table_id", "shoe"),
    "player": ("player",),
    "day": ("gaming_day",),
}
"""The columns that name a subject in each scope."""


def subject_name(scope: str, row: dict[str, Any]) -> str:
    """How a subject is named in the output: ``T07``, ``D042``, ``T07/T07-20261128-01``."""
    return "/".join(str(row[k]) for k in SCOPE_KEYS[scope])


def by_scope(
    units: pl.DataFrame,
    scopes: Sequence[str],
    aggs: Sequence[pl.Expr],
    *,
    by: Sequence[str] = (),
) -> Iterator[tuple[str, str, pl.DataFrame]]:
    """For each scope and subject: (scope, subject, its aggregated rows).

    ``by`` adds keys inside a subject (an up card, a rank): the subject's frame
    then has one row per value of them, else exactly one row.
    """
    for scope in scopes:
        keys = list(SCOPE_KEYS[scope])
        frame = units.filter(pl.all_horizontal(pl.col(k).is_not_null() for k in keys))
        if frame.is_empty():
            continue
        agg = frame.group_by([*keys, *by]).agg(aggs).sort([*keys, *by])
        for key, part in agg.group_by(keys, maintain_order=True):
            row = dict(zip(keys, key, strict=True))
            yield scope, subject_name(scope, row), part.drop(keys)
