"""The subjects a test is run for: each table, dealer, shoe, player and gaming day.

A test aggregates its units (hands, rounds, cards) with one polars group-by
per scope; the statistic is then worked out once per subject, from the
aggregated rows (a night has thousands of shoes and players: no frame per
subject).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import polars as pl

__all__ = ["SCOPE_KEYS", "SPARSE_SCOPES", "scope_groups", "scope_rows", "subject_name"]

SCOPE_KEYS: dict[str, tuple[str, ...]] = {
    "table": ("table_id",),
    "dealer": ("dealer",),
    "shoe": ("table_id", "shoe"),
    "player": ("player",),
    "day": ("gaming_day",),
}
"""The columns that name a subject in each scope."""

SPARSE_SCOPES = frozenset({"shoe", "player"})
"""Scopes with thousands of subjects a night (every shoe, every player id logged): a
subject below the test's minimum sample gets no row there, where a table, dealer or
gaming day gets one marked "not judged"."""

Row = dict[str, Any]


def subject_name(scope: str, row: Row) -> str:
    """How a subject is named in the output: ``T07``, ``D042``, ``T07/T07-20261128-01``."""
    return "/".join(str(row[k]) for k in SCOPE_KEYS[scope])


def _aggregate(
    units: pl.DataFrame,
    scope: str,
    aggs: Sequence[pl.Expr],
    by: Sequence[str],
    sample: tuple[str, int] | None = None,
) -> pl.DataFrame | None:
    keys = list(SCOPE_KEYS[scope])
    frame = units.filter(pl.all_horizontal(pl.col(k).is_not_null() for k in keys))
    if frame.is_empty():
        return None
    agg = frame.group_by([*keys, *by]).agg(aggs)
    if sample is not None and scope in SPARSE_SCOPES:
        column, least = sample
        agg = agg.filter(pl.col(column) >= least)
    return agg.sort([*keys, *by])


def scope_rows(
    units: pl.DataFrame,
    scopes: Sequence[str],
    aggs: Sequence[pl.Expr],
    *,
    sample: tuple[str, int] | None = None,
) -> Iterator[tuple[str, str, Row]]:
    """For each scope and subject: (scope, subject, its one aggregated row).

    ``sample`` (a column of the aggregate and the test's minimum) leaves out the
    subjects of a sparse scope that fall below it (:data:`SPARSE_SCOPES`).
    """
    for scope in scopes:
        agg = _aggregate(units, scope, aggs, (), sample)
        if agg is None:
            continue
        for row in agg.iter_rows(named=True):
            yield scope, subject_name(scope, row), row


def scope_groups(
    units: pl.DataFrame, scopes: Sequence[str], aggs: Sequence[pl.Expr], by: Sequence[str]
) -> Iterator[tuple[str, str, list[Row]]]:
    """For each scope and subject: its aggregated rows, one per value of ``by``."""
    for scope in scopes:
        agg = _aggregate(units, scope, aggs, by)
        if agg is None:
            continue
        groups: dict[str, list[Row]] = {}
        for row in agg.iter_rows(named=True):
            groups.setdefault(subject_name(scope, row), []).append(row)
        for subject, rows in groups.items():
            yield scope, subject, rows
