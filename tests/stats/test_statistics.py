"""``stats``: every test has a night that flags it and one that does not.

The nights are dealt from real shuffled shoes by :mod:`tests.stats.fakes`,
with the stored outcomes' columns; one table of the biased night is dealt
wrong in each way, and a clean table sits beside them.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import pairwise

import pytest

from audit.profiles import ProfileRegistry
from audit.stats import Correction, adjust
from audit.stats.distributions import (
    binomial_two_sided,
    chi2_sf,
    hypergeometric_two_sided,
    normal_sf,
    normal_two_sided,
    poisson_sf,
)
from audit.stats.frames import StatsData
from audit.stats.shuffle import neighbour_pairs
from audit.stats.suite import TESTS, StatsResult, run_stats
from tests.stats import fakes
from tests.stats.fakes import BIASED, CLEAN_TABLE, registry


def flagged(result: StatsResult, test: str) -> set[tuple[str, str]]:
    return {(r.scope, r.subject.split("/")[0]) for r in result.rows if r.test == test and r.flag}


def test_a_clean_night_flags_nothing(clean: StatsResult) -> None:
    assert {r.test for r in clean.rows} == {t.name for t in TESTS}
    assert clean.judged > 100
    assert clean.flags == ()


@pytest.mark.parametrize(
    ("test", "table"),
    [
        ("dealer_bust", "T01"),
        ("dealer_bust_by_upcard", "T01"),
        ("dealer_outcomes", "T01"),
        ("dealer_naturals", "T06"),
        ("player_naturals", "T05"),
        ("card_ranks", "T02"),
        ("house_result", "T04"),
        ("shuffle_neighbours", "T03"),
    ],
)
def test_each_test_flags_the_table_dealt_wrong(biased: StatsResult, test: str, table: str) -> None:
    where = flagged(biased, test)
    assert any(t == table for _, t in where), where
    assert not any(t == CLEAN_TABLE for _, t in where), where


def test_count_betting_flags_the_counter_only(biased: StatsResult) -> None:
    rows = {r.subject: r for r in biased.rows if r.test == "count_betting"}
    assert rows["P-T03-1"].flag
    assert rows["P-T03-1"].observed > 0.3  # type: ignore[operator]
    assert not any(r.flag for s, r in rows.items() if s != "P-T03-1")
    assert rows[f"P-{CLEAN_TABLE}-1"].adjusted_p is not None  # judged, and not flagged


def test_the_dealers_scope_names_the_dealer(biased: StatsResult) -> None:
    bust = {r.subject for r in biased.rows if r.test == "dealer_bust" and r.scope == "dealer"}
    assert bust == {f"D{i}" for i in range(len(BIASED))}
    assert ("dealer", "D0") in flagged(biased, "dealer_bust")


def test_jsonl_row_has_cli_md_keys(biased: StatsResult) -> None:
    row = next(r for r in biased.rows if r.test == "dealer_bust" and r.flag)
    d = row.to_dict()
    assert list(d) == [
        "test", "scope", "subject", "n", "statistic", "p_value", "adjusted_p", "flag",
        "expected", "observed", "message",
    ]  # fmt: skip
    assert d["flag"] is True and d["adjusted_p"] <= 0.001
    assert d["observed"] < d["expected"]
    assert "a reason to look" in d["message"]


def test_below_its_minimum_a_test_is_shown_but_never_flags() -> None:
    night = fakes.night(2, seed=3, knobs=fakes.Knobs(short_dealer=1.0, edge=0.9))
    result = run_stats(fakes.data(night), registry())
    bust = next(r for r in result.rows if r.test == "dealer_bust" and r.scope == "table")
    assert bust.n < 100 and bust.p_value is None and bust.adjusted_p is None and not bust.flag
    assert "not judged: fewer than 100 hands" in bust.message
    assert not result.flags


def test_holm_is_stricter_than_bh(biased_night: StatsData, biased: StatsResult) -> None:
    bh = run_stats(biased_night, registry(), correction=Correction.bh)
    assert len(bh.flags) >= len(biased.flags)
    assert {(r.test, r.subject) for r in biased.flags} <= {(r.test, r.subject) for r in bh.flags}


def test_holm_and_bh_adjustments() -> None:
    p = [0.01, 0.04, 0.03, 0.005, 0.5]
    # R: p.adjust(c(.01, .04, .03, .005, .5), "holm") and "BH"
    assert adjust(p, Correction.holm) == pytest.approx([0.04, 0.09, 0.09, 0.025, 0.5])
    assert adjust(p, Correction.bh) == pytest.approx([0.025, 0.05, 0.05, 0.025, 0.5])
    assert adjust([], Correction.holm) == []


def test_tail_probabilities() -> None:
    assert normal_sf(3.090232306167813) == pytest.approx(0.001, rel=1e-9)
    assert normal_two_sided(-1.959963984540054) == pytest.approx(0.05, rel=1e-9)
    assert chi2_sf(16.918977604620448, 9) == pytest.approx(0.05, rel=1e-9)
    assert chi2_sf(2.0, 2) == pytest.approx(math.exp(-1.0), rel=1e-12)
    assert chi2_sf(150.0, 9) == pytest.approx(1.0e-27, rel=0.5)
    assert poisson_sf(3, 2.0) == pytest.approx(1 - math.exp(-2) * 5, rel=1e-12)
    assert poisson_sf(0, 5.0) == 1.0


def test_exact_count_tails_far_out() -> None:
    def upper(k: int, n: int, p: float) -> float:
        return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))

    assert binomial_two_sided(15, 49, 0.1168) == pytest.approx(2 * upper(15, 49, 0.1168), rel=1e-10)
    # the lower tail far out is its own sum, not 1 minus nearly 1
    assert binomial_two_sided(0, 198, 0.28) == pytest.approx(2 * 0.72**198, rel=1e-9)
    assert binomial_two_sided(5, 10, 0.5) == 1.0

    def hyper(k: int) -> float:
        return math.comb(24, k) * math.comb(288, 234 - k) / math.comb(312, 234)

    assert hypergeometric_two_sided(8, 312, 24, 234) == pytest.approx(
        2 * sum(hyper(k) for k in range(0, 9)), rel=1e-10
    )
    assert hypergeometric_two_sided(25, 312, 24, 234) == 0.0  # more aces than the shoe holds


def test_neighbour_pairs_of_a_shoe_and_of_itself() -> None:
    shoe = [f"{r}{s}" for r in "A23456789TJQK" for s in "SHDC"]
    found, expected = neighbour_pairs(shoe, list(reversed(shoe)))
    assert found == 0 and expected == pytest.approx(51 * (1 - math.exp(-1 / 52)))
    assert neighbour_pairs(shoe, shoe)[0] == 51


def test_neighbour_pairs_expect_the_sum_over_pairs_whatever_the_copies() -> None:
    """The docstring's sum, pair by pair: for a whole six-deck shoe (every card six times,
    the count taken by kind of pair), for one a card short, and against an earlier shoe
    with a card the later one lacks (chance 0 for its pairs)."""
    import random

    deck = [f"{r}{s}" for r in "A23456789TJQK" for s in "SHDC"]
    rng = random.Random(3)
    earlier, later = deck * 6, deck * 6
    rng.shuffle(earlier)
    rng.shuffle(later)

    def by_pair(a: list[str], b: list[str]) -> float:
        c, n = Counter(b), len(b)
        return sum(1 - math.exp(-c[x] * (c[y] - (x == y)) / n) for x, y in set(pairwise(a)))

    for a, b in ((earlier, later), (earlier, later[1:]), ([*earlier, "XX"], later)):
        found, expected = neighbour_pairs(a, b)
        assert expected == pytest.approx(by_pair(a, b), rel=1e-12)
        assert found == len(set(pairwise(a)) & set(pairwise(b)))
    assert any(x == y for x, y in pairwise(earlier))  # pairs of one card are in it


def test_a_hole_card_game_has_no_dealer_outcome_tests(biased_night: StatsData) -> None:
    from audit.profiles.model import Deal

    reg = registry()
    p = reg.get("it-casino-6d")
    hole = Deal(dealer_cards=2, face_up=True, dealer_face_up=True)
    rules = p.rules.model_copy(update={"initial_deal": hole})
    result = run_stats(biased_night, ProfileRegistry([p.model_copy(update={"rules": rules})]))
    tests = {r.test for r in result.rows}
    assert not tests & {"dealer_bust", "dealer_bust_by_upcard", "dealer_outcomes"}
    assert {"dealer_naturals", "player_naturals", "card_ranks"} <= tests
