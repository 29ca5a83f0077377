"""The deal against exact theory: dealer outcomes by up card, and naturals.

- ``dealer_bust``, ``dealer_bust_by_upcard``, ``dealer_outcomes``: the hands
  the dealer had to play out. rules.md lets him stop once every player hand is
  decided, and those rounds would bias the bust rate; so a round counts when,
  as his second card came, some player hand was still open (neither bust, nor
  a natural, nor surrendered): then the rule bound him to complete the hand
  whatever he did (a dealer who stopped short counts, with the total he stood
  on). Each round's expected outcome is exact for the shoe as it stood when he
  drew (:mod:`audit.stats.expected`).
- ``dealer_naturals``: with an ace or ten-value first card, the second card
  makes a blackjack with the chance of a ten-value (an ace) among the cards left.
- ``player_naturals``: each box's first two cards are a natural with
  P = 2·aces·tens / (N·(N−1)) of the shoe as the round began.

Counts are judged by their exact binomial tails (two-sided, at the mean
chance: conservative when the chances vary from round to round), the bust
rates by up card by Fisher's combination of those tails: a night's tests are
judged far out in the tail, where a normal approximation of a few dozen
expected busts is wrong by orders of magnitude. The final totals are judged by
Pearson's chi-square from 800 hands (some 40 expected in the rarest total).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import polars as pl

from audit.profiles import ProfileRegistry
from audit.stats.dealer import ACE, RANKS, TEN, DealerRule
from audit.stats.distributions import binomial_two_sided, chi2_sf
from audit.stats.expected import REMAINING, expected_outcomes, outcome_columns
from audit.stats.frames import ROUND_ID, ROUND_KEY, StatsData, rank_columns, upcard_index
from audit.stats.rows import StatRow, TestSpec
from audit.stats.scopes import SCOPE_KEYS, scope_groups, scope_rows
from audit.stats.wording import percent, subject_words

__all__ = [
    "DEALER_TESTS",
    "DealerCells",
    "dealer_cells",
    "dealer_cells_of",
    "dealer_profiles",
    "dealer_rounds",
    "dealer_tests",
    "natural_tests",
]

SCOPES = ("table", "dealer", "day")
MIN_PER_UPCARD = 30
"""An up card with fewer completed hands in a subject is left out of the by-up-card test."""

DEALER_BUST = TestSpec(
    "dealer_bust", "hands", SCOPES, 100, "dealer busts against each hand's exact chance"
)
BY_UPCARD = TestSpec(
    "dealer_bust_by_upcard",
    "hands",
    SCOPES,
    300,
    "bust rate by up card (chi-square over the up cards)",
)
OUTCOMES = TestSpec(
    "dealer_outcomes", "hands", SCOPES, 800, "the dealer's final totals (chi-square)"
)
DEALER_NATURALS = TestSpec(
    "dealer_naturals", "hands", SCOPES, 200, "dealer blackjacks behind an ace or ten-value"
)
PLAYER_NATURALS = TestSpec(
    "player_naturals", "boxes", SCOPES, 500, "naturals in the boxes' first two cards"
)
DEALER_TESTS = (DEALER_BUST, BY_UPCARD, OUTCOMES, DEALER_NATURALS, PLAYER_NATURALS)

SHORT = "short"
"""A hand the dealer stood on below his rule's standing total."""


def _full(decks: pl.Expr, rank: int) -> pl.Expr:
    return decks * (16 if rank == TEN else 4)


def _left(decks: pl.Expr, prefix: str) -> list[pl.Expr]:
    return [
        (_full(decks, i) - pl.col(f"{prefix}_{r}")).alias(REMAINING[i]) for i, r in enumerate(RANKS)
    ]


def dealer_profiles(registry: ProfileRegistry, profiles: Iterable[str]) -> list[str]:
    """The profiles among ``profiles`` whose dealer the ``dealer_*`` tests judge
    (:func:`_rules`)."""
    return sorted(_rules(registry, list(profiles)))


def _rules(registry: ProfileRegistry, profiles: list[str]) -> dict[str, DealerRule]:
    """The dealer rule of each profile whose dealer draws his second card after the players
    (no hole card): only then is the shoe before that card the one his draws come from."""
    out = {}
    for pid in profiles:
        if pid in registry:
            rules = registry.get(pid).rules
            rule = DealerRule.of(rules)
            if rule is not None and rules.initial_deal.dealer_cards == 1:
                out[pid] = rule
    return out


def dealer_rounds(data: StatsData, registry: ProfileRegistry) -> pl.DataFrame:
    """One row per round the dealer had to play out: its outcome and exact expectation.

    Columns: the round key, ``dealer``, ``gaming_day``, ``upcard``, ``outcome``
    (``17`` … ``21``, ``blackjack``, ``bust``, or ``short``) and ``p_<outcome>``.
    """
    rounds = data.rounds.filter(
        (pl.col("status") == "closed")
        & pl.col("dealer_upcard").is_not_null()
        & pl.col("decks").is_not_null()
    )
    rules = _rules(registry, rounds.get_column("profile_id").unique().drop_nulls().to_list())
    # the rounds with a player hand still open: a filter by id, not a join that would
    # gather every column of a million rounds (their rank lists too)
    open_ids = data.wager_facts().open_rounds
    up = upcard_index(pl.col("dealer_upcard"))
    # a dealer who stood on his first card took no second: his cards out were those
    # before the round, and the up card (the players' cards are missed: a rule breach)
    before = pl.coalesce(
        pl.col("ranks_before_dealer"),
        pl.concat_list(
            [
                pl.col("ranks_before_round").list.get(i) + (up == i).cast(pl.Int64)
                for i in range(len(RANKS))
            ]
        ),
    )
    frame = (
        rounds.lazy()
        .filter(pl.col("profile_id").is_in(list(rules)))
        .join(open_ids.lazy(), on=ROUND_ID, how="semi")
        .with_columns(upcard=up, _before=before)
        .with_columns(rank_columns(pl.col("_before"), "out"))
        .with_columns(_left(pl.col("decks"), "out"))
        .filter(
            pl.all_horizontal(pl.col(c) >= 0 for c in REMAINING) & pl.col("upcard").is_not_null()
        )
        # only what the rules below read: the rank lists and the cards-out columns of a
        # million rounds were a gigabyte of the report's memory (issue 33)
        .select(
            *ROUND_KEY,
            "profile_id",
            "dealer",
            "gaming_day",
            "upcard",
            "dealer_natural",
            "dealer_bust",
            "dealer_total",
            *REMAINING,
        )
        .collect()
    )
    return _with_chances(frame, rules, keys=ROUND_KEY)


def _with_chances(
    frame: pl.DataFrame, rules: dict[str, DealerRule], keys: Sequence[str]
) -> pl.DataFrame:
    """The hands of ``frame`` (``profile_id``, ``upcard``, the dealer's outcome columns
    and :data:`REMAINING`) with ``outcome`` and ``p_<outcome>``, keeping ``keys``,
    ``dealer``, ``gaming_day`` and ``upcard``; ``rules``: each profile's."""
    parts = []
    # one evaluation per dealer rule, whatever the profiles that share it
    for rule in sorted(set(rules.values()), key=lambda r: r.name):
        pids = [pid for pid, r in rules.items() if r == rule]
        part = frame.filter(pl.col("profile_id").is_in(pids))
        if part.is_empty():
            continue
        low = int(rule.outcomes[0])
        outcome = (
            pl.when(pl.col("dealer_natural"))
            .then(pl.lit("blackjack"))
            .when(pl.col("dealer_bust"))
            .then(pl.lit("bust"))
            .when(pl.col("dealer_total") >= low)
            .then(pl.col("dealer_total").cast(pl.String))
            .otherwise(pl.lit(SHORT))
        )
        keep = [*keys, "dealer", "gaming_day", "upcard", *REMAINING]
        part = expected_outcomes(part.select(*keep, outcome.alias("outcome")), rule)
        parts.append(part.drop(REMAINING))
    if not parts:
        return pl.DataFrame(
            schema={
                **{k: pl.String for k in (*keys, "dealer", "outcome") if k != "round"},
                **({"round": pl.Int64} if "round" in keys else {}),
                "gaming_day": pl.Date,
                "upcard": pl.Int64,
                **{c: pl.Float64 for c in outcome_columns(DealerRule(17, True))},
            }
        )
    hands = pl.concat(parts, how="diagonal")
    return hands.with_columns(pl.col(c).fill_null(0.0) for c in hands.columns if c.startswith("p_"))


def dealer_cells_of(
    batches: Iterable[pl.DataFrame], registry: ProfileRegistry, profiles: Iterable[str]
) -> DealerCells:
    """The cells of hands that come in batches (the store's
    :func:`audit.store.stats_aggregates.dealer_hand_batches`, columns as
    :func:`_with_chances` reads them): each batch's exact chances are worked out and
    summed, and only the sums are kept."""
    rules = _rules(registry, list(profiles))
    sums = [dealer_cells(_with_chances(b, rules, keys=("table_id",))).frame for b in batches]
    sums = [s for s in sums if not s.is_empty()]
    if not sums:
        return DealerCells(pl.DataFrame(), ())
    frame = pl.concat(sums, how="diagonal")
    totals = [c for c in frame.columns if c not in CELL_KEYS]
    frame = frame.group_by(list(CELL_KEYS)).agg(pl.col(c).fill_null(0).sum() for c in totals)
    present = {c[2:] for c in totals if c.startswith("e_")}
    outcomes: list[str] = []
    for rule in sorted(set(rules.values()), key=lambda r: r.name):
        outcomes += [o for o in rule.outcomes if o in present and o not in outcomes]
    return DealerCells(frame, tuple(outcomes))


CELL_KEYS = ("table_id", "dealer", "gaming_day", "upcard")
"""What a cell of :class:`DealerCells` sums over: every subject of the tests is a sum of cells."""


@dataclass(frozen=True, slots=True)
class DealerCells:
    """The dealer's hands (:func:`dealer_rounds`) summed by :data:`CELL_KEYS`.

    ``frame`` holds, per cell, ``n`` (hands), ``short`` (stood below the rule's total),
    ``o_<outcome>`` (hands that ended so), ``e_<outcome>`` (the sum of their exact
    chances) and ``v_bust`` (the sum of ``p_bust · (1 - p_bust)``); ``outcomes`` names
    the outcomes, in the order the tests list them. :func:`dealer_cells` makes them from a
    frame of hands, :func:`dealer_cells_of` from the store's hands a batch at a time (a
    1,000,000-round night's frame of every hand and its chances was most of the report's
    memory, issue 33).
    """

    frame: pl.DataFrame
    outcomes: tuple[str, ...]


def dealer_cells(hands: pl.DataFrame) -> DealerCells:
    """The cells of a frame of hands (:func:`dealer_rounds`' columns)."""
    outcomes = tuple(c[2:] for c in hands.columns if c.startswith("p_"))
    outcome = pl.col("outcome")
    frame = hands.group_by(list(CELL_KEYS)).agg(
        pl.len().cast(pl.Int64).alias("n"),
        (outcome == SHORT).sum().cast(pl.Int64).alias("short"),
        *((outcome == o).sum().cast(pl.Int64).alias(f"o_{o}") for o in outcomes),
        *(pl.col(f"p_{o}").sum().alias(f"e_{o}") for o in outcomes),
        (pl.col("p_bust") * (1 - pl.col("p_bust"))).sum().alias("v_bust"),
    )
    return DealerCells(frame, outcomes)


def dealer_tests(cells: DealerCells) -> Iterator[StatRow]:
    """``dealer_bust``, ``dealer_bust_by_upcard`` and ``dealer_outcomes`` per subject."""
    if cells.frame.is_empty():
        return
    busts = [
        pl.col("n").sum().alias("n"),
        pl.col("o_bust").sum().alias("o"),
        pl.col("e_bust").sum().alias("e"),
        pl.col("v_bust").sum().alias("v"),
    ]
    yield from _rate_rows(
        DEALER_BUST,
        cells.frame,
        lambda o, n: f"the dealer busted {o:,} of the {n:,} hands he had to play out",
        digits=1,
        aggs=busts,
    )
    yield from _bust_by_upcard(cells.frame, busts)
    yield from _outcomes(cells.frame, list(cells.outcomes))


def _bust_by_upcard(summed: pl.DataFrame, aggs: Sequence[pl.Expr]) -> Iterator[StatRow]:
    for scope, subject, cells_rows in scope_groups(summed, BY_UPCARD.scopes, aggs, ["upcard"]):
        n = sum(c["n"] for c in cells_rows)
        used = [c for c in cells_rows if c["n"] >= MIN_PER_UPCARD and c["v"] > 0]
        cells = {RANKS[c["upcard"]]: {k: c[k] for k in ("n", "o", "e", "v")} for c in cells_rows}
        z = [(c["o"] - c["e"]) / math.sqrt(c["v"]) for c in used]
        # each up card's exact binomial tail, combined by Fisher's method (-2 Σ ln p)
        tails = [max(binomial_two_sided(c["o"], c["n"], c["e"] / c["n"]), 1e-300) for c in used]
        x2 = -2 * sum(math.log(t) for t in tails)
        df = 2 * len(used)
        judged = n >= BY_UPCARD.min_n and df > 0
        worst = ""
        if used:
            c = used[max(range(len(used)), key=lambda i: abs(z[i]))]
            worst = (
                f"; the widest gap is behind a {RANKS[c['upcard']]}: "
                f"{percent(c['o'] / c['n'])} busts against {percent(c['e'] / c['n'])} "
                f"expected over {c['n']:,} hands"
            )
        yield StatRow(
            BY_UPCARD.name,
            scope,
            subject,
            n,
            x2,
            chi2_sf(x2, df) if judged else None,
            {u: c["e"] / c["n"] for u, c in cells.items()},
            {u: c["o"] / c["n"] for u, c in cells.items()},
            f"{subject_words(scope, subject)}: bust rates behind {len(used)} up card(s) against "
            f"their exact chances, combined chi-square {x2:.1f} on {df} degrees of freedom{worst}",
            judged,
            detail={"upcards": cells},
        )


def _outcomes(summed: pl.DataFrame, outcomes: list[str]) -> Iterator[StatRow]:
    aggs = [pl.col("n").sum(), pl.col("short").sum()]
    for o in outcomes:
        aggs += [pl.col(f"o_{o}").sum(), pl.col(f"e_{o}").sum()]
    for scope, subject, row in scope_rows(summed, OUTCOMES.scopes, aggs):
        n, short = row["n"], row["short"]
        cells = [(o, row[f"o_{o}"], row[f"e_{o}"]) for o in outcomes if row[f"e_{o}"] > 0]
        x2 = sum((obs - exp) ** 2 / exp for _, obs, exp in cells)
        df = len(cells) - 1
        judged = n >= OUTCOMES.min_n and df > 0
        stood = f"; {short:,} stood below the rule's total" if short else ""
        yield StatRow(
            OUTCOMES.name,
            scope,
            subject,
            n,
            x2,
            chi2_sf(x2, df) if judged else None,
            {o: exp / n for o, _, exp in cells},
            {o: obs / n for o, obs, _ in cells},
            f"{subject_words(scope, subject)}: the dealer's final totals over {n:,} hands "
            f"against their exact chances, chi-square {x2:.1f} on {df} degrees of freedom{stood}",
            judged,
            detail={"short": short, "cells": {o: (obs, exp) for o, obs, exp in cells}},
        )


_SUMMED = [pl.col(c).sum() for c in ("n", "o", "e", "v")]


def natural_tests(data: StatsData) -> Iterator[StatRow]:
    """``dealer_naturals`` and ``player_naturals`` per subject: from the store's sums
    (:attr:`StatsData.natural_cells`) when it made them, else from the frames."""
    if data.natural_cells is not None:
        dealer, player = data.natural_cells
        yield from _rate_rows(DEALER_NATURALS, dealer, _dealer_says, aggs=_SUMMED)
        yield from _rate_rows(PLAYER_NATURALS, player, _player_says, aggs=_SUMMED)
        return
    # lazily: an eager filter copied every column of a million rounds, rank lists too
    rounds = (
        data.rounds.lazy()
        .filter((pl.col("status") == "closed") & pl.col("decks").is_not_null())
        .with_columns(upcard=upcard_index(pl.col("dealer_upcard")))
    )
    yield from _dealer_naturals(rounds)
    yield from _player_naturals(rounds, data.wager_facts().box_naturals)


def _rate_rows(
    spec: TestSpec,
    units: pl.DataFrame,
    say: Callable[[int, int], str],
    digits: int = 2,
    aggs: Sequence[pl.Expr] | None = None,
) -> Iterator[StatRow]:
    """Events (``hit``) against the sum of their chances (``p``): a z-test, two-sided.
    ``aggs`` make ``n``, ``o``, ``e`` and ``v`` of units already summed."""
    aggs = aggs or [
        pl.len().alias("n"),
        pl.col("hit").cast(pl.Int64).sum().alias("o"),
        pl.col("p").sum().alias("e"),
        (pl.col("p") * (1 - pl.col("p"))).sum().alias("v"),
    ]
    for scope, subject, row in scope_rows(units, spec.scopes, aggs):
        n, o, e, v = (row[c] for c in ("n", "o", "e", "v"))
        z = (o - e) / math.sqrt(v) if v > 0 else 0.0
        judged = n >= spec.min_n
        yield StatRow(
            spec.name,
            scope,
            subject,
            n,
            z,
            binomial_two_sided(o, n, e / n) if judged else None,
            e / n,
            o / n,
            f"{subject_words(scope, subject)}: {say(o, n)} ({percent(o / n, digits)}); "
            f"the cards left in the shoe made {e:,.1f} ({percent(e / n, digits)}) expected",
            judged,
            detail={"n": n, "observed": o, "expected": e, "variance": v},
        )


def _dealer_naturals(rounds: pl.LazyFrame) -> Iterator[StatRow]:
    left = _left(pl.col("decks"), "out")
    units = (
        rounds.filter(
            pl.col("ranks_before_dealer").is_not_null() & pl.col("upcard").is_in([ACE, TEN])
        )
        .with_columns(rank_columns(pl.col("ranks_before_dealer"), "out"))
        .with_columns(left)
        .with_columns(total=pl.sum_horizontal(REMAINING))
        .filter(pl.col("total") > 0)
        .with_columns(
            p=pl.when(pl.col("upcard") == ACE)
            .then(pl.col(REMAINING[TEN]) / pl.col("total"))
            .otherwise(pl.col(REMAINING[ACE]) / pl.col("total"))
            .clip(0.0, 1.0),
            hit=pl.col("dealer_natural"),
        )
        .collect()
    )
    yield from _rate_rows(DEALER_NATURALS, units, _dealer_says)


def _player_naturals(rounds: pl.LazyFrame, boxes: pl.DataFrame) -> Iterator[StatRow]:
    # a box that split held a pair, never a natural: it counts, as no natural
    # (WagerFacts.box_naturals)
    n = pl.sum_horizontal(REMAINING)
    units = (
        rounds.with_columns(rank_columns(pl.col("ranks_before_round"), "out"))
        .with_columns(_left(pl.col("decks"), "out"))
        .filter(pl.all_horizontal(pl.col(c) >= 0 for c in REMAINING) & (n >= 2))
        .select(
            ROUND_ID,
            *dict.fromkeys(k for scope in PLAYER_NATURALS.scopes for k in SCOPE_KEYS[scope]),
            p=2 * pl.col(REMAINING[ACE]) * pl.col(REMAINING[TEN]) / (n * (n - 1)).cast(pl.Float64),
        )
        .join(boxes.lazy(), on=ROUND_ID, how="inner")  # a row a box: only what the test reads
        .collect()
    )
    yield from _rate_rows(PLAYER_NATURALS, units, _player_says)


def _dealer_says(o: int, n: int) -> str:
    return f"{o:,} dealer blackjacks in {n:,} hands"


def _player_says(o: int, n: int) -> str:
    return f"{o:,} naturals in {n:,} boxes"
