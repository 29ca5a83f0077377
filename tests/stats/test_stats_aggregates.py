"""The statistics' per-round work fed from DuckDB (issue 33): the same figures as before.

``stats`` and the report sum the dealer's hands batch by batch as the store streams
them (:func:`audit.store.stats_aggregates.dealer_hand_batches`) and take the
count-betting and naturals' sums from SQL (``load_count_cells``, ``load_natural_cells``).
Each is held here to two other computations over a real audited night: the polars
path over frames of every round and wager (what frames built by hand still take), and
a plain Python loop over the stored rows written from the tests' definitions.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from audit.profiles import load_registry
from audit.simulate import simulate
from audit.simulate.bias import Bias
from audit.stats.counting import COUNT_BETTING, HI_LO, SIGMA2, count_cells
from audit.stats.dealer import RANKS, DealerRule, dealer_graph, outcome_probabilities, rank_index
from audit.stats.dealing import (
    DealerCells,
    dealer_cells,
    dealer_cells_of,
    dealer_profiles,
    dealer_rounds,
)
from audit.stats.frames import StatsData
from audit.store import Store, open_store
from audit.store.stats_aggregates import dealer_hand_batches, load_count_cells
from audit.store.stats_frames import load_stats_frames, load_wager_rows
from tests.stats.nights import audited_db

ALL_DAYS = dt.date(2000, 1, 1), dt.date(2100, 1, 1)
REL = 1e-9
"""Sums of the same floats in another order agree to their last bits, not exactly."""


@pytest.fixture(scope="module")
def night_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("aggregates-night")
    simulate(
        root / "logs",
        tables=3,
        shoes=8,
        profiles=["it-casino-6d", "it-casino-5d", "ventuno-family"],
        seed=21,
        biases={"T01": Bias(short_dealer=1.0)},  # hands the dealer stood short on
    )
    return audited_db(root / "logs", root / "audit.duckdb")


def _by_hand(store: Store) -> StatsData:
    """The frames of every round and wager, as a test would build them by hand."""
    frames = load_stats_frames(store, *ALL_DAYS)
    wagers = load_wager_rows(store, *ALL_DAYS)
    return StatsData.of(frames.rounds, wagers, frames.shoe_cards, frames.orders)


def _cells(cells: DealerCells) -> dict[tuple[Any, ...], dict[str, Any]]:
    keys = ("table_id", "dealer", "gaming_day", "upcard")
    return {
        tuple(r[k] for k in keys): {c: v for c, v in r.items() if c not in keys}
        for r in cells.frame.iter_rows(named=True)
    }


def _same(got: dict[tuple[Any, ...], dict[str, Any]], want: dict[tuple[Any, ...], dict[str, Any]]):
    assert got.keys() == want.keys()
    for key, cell in want.items():
        for name, value in cell.items():
            if isinstance(value, float):
                assert got[key][name] == pytest.approx(value, rel=REL, abs=1e-12), (key, name)
            else:
                assert got[key][name] == value, (key, name)


def _streamed(store: Store, rows: int) -> DealerCells:
    registry = load_registry()
    pids = [r[0] for r in store.con.execute("SELECT DISTINCT profile_id FROM rounds").fetchall()]
    profiles = dealer_profiles(registry, pids)
    return dealer_cells_of(
        dealer_hand_batches(store, *ALL_DAYS, profiles, rows=rows), registry, pids
    )


def test_the_streamed_dealer_sums_are_the_sums_over_every_hand(night_db: Path) -> None:
    """Batched (the night in batches of 37 hands, and in one), the sums are those of the
    polars frame of every hand that ``stats`` built before."""
    with open_store(night_db, read_only=True) as store:
        one, many = _streamed(store, 1_000_000), _streamed(store, 37)
        whole = dealer_cells(dealer_rounds(_by_hand(store), load_registry()))
    assert one.outcomes == whole.outcomes == many.outcomes
    assert whole.outcomes == ("17", "18", "19", "20", "21", "blackjack", "bust")
    want = _cells(whole)
    assert sum(c["short"] for c in want.values()) > 0  # T01's dealer stood short
    assert sum(c["n"] for c in want.values()) > 200
    _same(_cells(one), want)
    _same(_cells(many), want)


def test_the_dealers_hands_come_one_up_card_a_query_in_its_order(night_db: Path) -> None:
    """Issue 33 (session 7): one query over every hand of a 1,000,000-round night ran out of
    the report's 512MB once the statistics' frames were loaded; a query an up card holds a
    tenth of it. Every batch holds one up card, the up cards in their order."""
    registry = load_registry()
    with open_store(night_db, read_only=True) as store:
        pids = [
            r[0] for r in store.con.execute("SELECT DISTINCT profile_id FROM rounds").fetchall()
        ]
        profiles = dealer_profiles(registry, pids)
        ups = [
            b.get_column("upcard").unique().to_list()
            for b in dealer_hand_batches(store, *ALL_DAYS, profiles, rows=1_000_000)
        ]
    assert all(len(u) == 1 for u in ups)
    order = [u[0] for u in ups]
    assert order == sorted(order) and len(order) == len(set(order)) >= 9


def test_the_streamed_dealer_sums_are_what_each_hand_gives_row_by_row(night_db: Path) -> None:
    """An independent reckoning: each stored round read in Python, the rules of
    ``dealer_rounds`` applied one at a time, its chances by the graph's own recursion."""
    registry = load_registry()
    with open_store(night_db, read_only=True) as store:
        got = _cells(_streamed(store, 50))
        rounds = store.con.execute(
            """SELECT r.table_id, r.shoe, r.round, r.dealer, r.gaming_day, r.profile_id,
                      s.decks, r.status, r.dealer_upcard, r.dealer_natural, r.dealer_bust,
                      r.dealer_total, r.ranks_before_dealer, r.ranks_before_round
               FROM rounds r JOIN shoes s USING (table_id, shoe)"""
        ).fetchall()
        open_rounds = set(
            store.con.execute(
                """SELECT table_id, shoe, round FROM wagers
                   WHERE kind = 'main' AND NOT "natural" AND NOT bust
                     AND NOT coalesce(surrendered, false)"""
            ).fetchall()
        )
    want: dict[tuple[Any, ...], dict[str, Any]] = {}
    for (
        table,
        shoe,
        rnd,
        dealer,
        day,
        pid,
        decks,
        status,
        up,
        nat,
        bust,
        total,
        dealt,
        before,
    ) in rounds:
        rule = DealerRule.of(registry.get(pid).rules) if pid in registry else None
        if rule is None or registry.get(pid).rules.initial_deal.dealer_cards != 1:
            continue
        if (
            status != "closed"
            or up is None
            or decks is None
            or (table, shoe, rnd) not in open_rounds
        ):
            continue
        if up[0] not in "A23456789TJQK":
            continue
        upcard = rank_index(up)
        if dealt is None:
            if before is None:
                continue
            dealt = [n + (i == upcard) for i, n in enumerate(before)]
        left = [decks * (16 if r == "T" else 4) - n for r, n in zip(RANKS, dealt, strict=True)]
        if min(left) < 0:
            continue
        p = dict(
            zip(rule.outcomes, outcome_probabilities(dealer_graph(upcard, rule), left), strict=True)
        )
        outcome = (
            "blackjack"
            if nat
            else "bust"
            if bust
            else str(total)
            if total is not None and total >= int(rule.outcomes[0])
            else "short"
        )
        cell = want.setdefault(
            (table, dealer, day, upcard),
            {"n": 0, "short": 0, **{f"o_{o}": 0 for o in rule.outcomes}}
            | {f"e_{o}": 0.0 for o in rule.outcomes}
            | {"v_bust": 0.0},
        )
        cell["n"] += 1
        cell["short"] += outcome == "short"
        if outcome != "short":
            cell[f"o_{outcome}"] += 1
        for o in rule.outcomes:
            cell[f"e_{o}"] += p[o]
        cell["v_bust"] += p["bust"] * (1 - p["bust"])
    assert want and sum(c["n"] for c in want.values()) > 200
    _same(got, want)


def _count_by_definition(store: Store) -> dict[str, dict[str, float]]:
    """count_betting's sums from its module's definition, in plain Python: the variance
    as the double sum over each shoe's bets (not the one-pass cumulative form)."""
    stakes: defaultdict[tuple[str, str, int, str], float] = defaultdict(float)
    for table, shoe, rnd, player, stake in store.con.execute(
        """SELECT w.table_id, w.shoe, w.round, w.player, w.base_stake
           FROM wagers w JOIN rounds r USING (table_id, shoe, round)
           WHERE w.kind = 'main' AND w.hand = 0 AND w.player IS NOT NULL"""
    ).fetchall():
        stakes[(table, shoe, rnd, player)] += float(stake)
    seen = {
        (t, s, r): (ranks, decks)
        for t, s, r, ranks, decks in store.con.execute(
            """SELECT r.table_id, r.shoe, r.round, r.ranks_before_round, s.decks
               FROM rounds r JOIN shoes s USING (table_id, shoe)"""
        ).fetchall()
    }
    runs: defaultdict[tuple[str, str, str], list[tuple[int, int, float, float, float, int]]]
    runs = defaultdict(list)
    for (table, shoe, rnd, player), s in stakes.items():
        ranks, decks = seen[(table, shoe, rnd)]
        if ranks is None or decks is None:
            continue
        k, big_n = sum(ranks), 52 * decks
        if k >= big_n:
            continue
        d = max(big_n - k, 26) / 52
        tc = sum(n * tag for n, tag in zip(ranks, HI_LO, strict=True)) / d
        runs[(player, table, shoe)].append((k, rnd, s, tc, d, big_n))
    out: dict[str, dict[str, float]] = {}
    pairs: defaultdict[str, list[tuple[float, float]]] = defaultdict(list)
    for (player, _, _), bets in runs.items():
        mean = sum(b[2] for b in bets) / len(bets)
        a = [(s - mean) / d for _, _, s, _, d, _ in bets]
        big_n = bets[0][5]
        var = (
            SIGMA2
            / (big_n - 1)
            * sum(
                a[j] * a[t] * min(bets[j][0], bets[t][0]) * (big_n - max(bets[j][0], bets[t][0]))
                for j in range(len(bets))
                for t in range(len(bets))
            )
        )
        row = out.setdefault(player, {"n": 0, "t": 0.0, "var": 0.0, "shoes": 0})
        row["n"] += len(bets)
        row["t"] += sum((s - mean) * tc for _, _, s, tc, _, _ in bets)
        row["var"] += var
        row["shoes"] += 1
        pairs[player] += [(s, tc) for _, _, s, tc, _, _ in bets]
    for player, xy in pairs.items():
        out[player]["r"] = _corr(xy)
    return out


def _corr(xy: list[tuple[float, float]]) -> float:
    n = len(xy)
    mx, my = sum(x for x, _ in xy) / n, sum(y for _, y in xy) / n
    sxy = sum((x - mx) * (y - my) for x, y in xy)
    sxx, syy = sum((x - mx) ** 2 for x, _ in xy), sum((y - my) ** 2 for _, y in xy)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else math.nan


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None or math.isnan(a) or math.isnan(b):
        return (a is None or math.isnan(a)) and (b is None or math.isnan(b))
    return math.isclose(a, b, rel_tol=REL, abs_tol=1e-9)


def test_the_count_betting_sums_in_sql_are_the_definitions(night_db: Path) -> None:
    """Every player's sums from SQL against the double-sum definition and against the
    polars path over every bet."""
    with open_store(night_db, read_only=True) as store:
        every = load_count_cells(store, *ALL_DAYS, sigma2=SIGMA2, min_n=1)
        judged = load_count_cells(store, *ALL_DAYS, sigma2=SIGMA2, min_n=COUNT_BETTING.min_n)
        want = _count_by_definition(store)
        frames = count_cells(_by_hand(store), min_n=1)
    got = {r["player"]: r for r in every.iter_rows(named=True)}
    assert got.keys() == want.keys() and len(got) > 3
    assert any(w["var"] > 0 and w["t"] != 0 for w in want.values())
    for player, w in want.items():
        g = got[player]
        assert (g["n"], g["shoes"]) == (w["n"], w["shoes"]), player
        for name in ("t", "var", "r"):
            assert _close(g[name], w[name]), (player, name, g[name], w[name])
    # no player of this small night bets the test's least sample: none is judged
    assert judged.is_empty() and max(w["n"] for w in want.values()) < COUNT_BETTING.min_n
    # every player, in the order of their ids, as the polars path over every bet gives
    assert every.get_column("player").to_list() == frames.get_column("player").to_list()
    for g, f in zip(every.iter_rows(named=True), frames.iter_rows(named=True), strict=True):
        assert (g["n"], g["shoes"]) == (f["n"], f["shoes"])
        for name in ("t", "var", "r"):
            assert _close(g[name], f[name]), (g["player"], name)


def test_stats_reads_the_stored_sums_and_words_every_row_as_before(night_db: Path) -> None:
    """``stats`` (and the report) take the store's sums, never the per-round frames; its
    rows read word for word as the frames of every round and wager give them."""
    from audit.batch.statistics import stats_for_days
    from audit.stats import Correction
    from audit.stats.suite import run_stats

    registry = load_registry()
    with open_store(night_db, read_only=True) as store:
        days = [
            d for (d,) in store.con.execute("SELECT DISTINCT gaming_day FROM rounds").fetchall()
        ]
        result = stats_for_days(
            store, sorted(days), registry, alpha=0.001, correction=Correction.holm
        )
        frames = run_stats(_by_hand(store), registry)
    tests = {r.test for r in result.rows}
    assert {
        "dealer_bust",
        "dealer_bust_by_upcard",
        "dealer_outcomes",
        "dealer_naturals",
        "player_naturals",
    } <= tests
    assert [(r.test, r.scope, r.subject, r.n, r.message, r.flag) for r in result.rows] == [
        (r.test, r.scope, r.subject, r.n, r.message, r.flag) for r in frames.rows
    ]
    for got, want in zip(result.rows, frames.rows, strict=True):
        for name in ("statistic", "p_value", "adjusted_p"):
            g, w = getattr(got, name), getattr(want, name)
            assert (g is None) == (w is None), (got.test, got.subject, name)
            if g is not None:
                assert g == pytest.approx(w, rel=REL, abs=1e-300), (got.test, got.subject, name)
        for name in ("expected", "observed"):
            assert getattr(got, name) == pytest.approx(getattr(want, name), rel=REL)


def test_the_report_builds_no_frame_of_every_hand_or_bet(
    night_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The per-round polars work is the tests' path for frames built by hand only, and
    the report reads no round's lists of cards seen."""
    import audit.stats.counting as counting
    import audit.stats.dealing as dealing
    import audit.stats.suite as suite
    from audit.batch.statistics import report_statistics

    def refuse(*args: object, **kw: object) -> pl.DataFrame:
        raise AssertionError("a frame of every round was built")

    monkeypatch.setattr(suite, "dealer_rounds", refuse)
    monkeypatch.setattr(counting, "count_cells", refuse)
    monkeypatch.setattr(dealing, "_dealer_naturals", refuse)
    monkeypatch.setattr(dealing, "_player_naturals", refuse)
    registry = load_registry()
    with open_store(night_db, read_only=True) as store:
        days = [
            d for (d,) in store.con.execute("SELECT DISTINCT gaming_day FROM rounds").fetchall()
        ]
        section = report_statistics(store, sorted(days), registry)
    assert section is not None
    with open_store(night_db, read_only=True) as store:
        lean = load_stats_frames(store, *ALL_DAYS, lean=True).rounds
    assert lean.height > 0
    assert lean.get_column("ranks_before_round").null_count() == lean.height
    assert lean.get_column("ranks_before_dealer").null_count() == lean.height
    with open_store(night_db, read_only=True) as store:
        facts = load_stats_frames(store, *ALL_DAYS, lean=True)
        full = load_stats_frames(store, *ALL_DAYS)
    for name in ("open_rounds", "box_naturals", "stakes"):
        assert getattr(facts, name).is_empty() and getattr(full, name).height > 0, name
        assert getattr(facts, name).schema == getattr(full, name).schema, name
