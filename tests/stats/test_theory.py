"""Exact dealer theory against published tables (kept as data, like perft) and closed forms."""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from audit.cli import app
from audit.errors import NoDealerRuleError
from audit.profiles import load_registry
from audit.profiles.registry import PACKAGED_DIR
from audit.stats import RANKS, DealerRule, dealer_graph, outcome_probabilities, theory_table
from audit.stats.theory import natural_probability, theory

DATA = Path(__file__).resolve().parent.parent / "data" / "theory"
S17, H17 = DealerRule(17, True), DealerRule(17, False)


def published(name: str) -> dict[str, dict[str, float]]:
    with (DATA / name).open(encoding="utf-8") as fh:
        rows = csv.DictReader(line for line in fh if not line.startswith("#"))
        return {r.pop("upcard"): {k: float(v) for k, v in r.items()} for r in rows}


def test_wizard_appendix_2b_one_deck_s17_before_peek_every_cell() -> None:
    table = theory_table("x", 1, S17)
    rows = published("wizard_2b_1deck_s17.csv")
    assert set(rows) == {*RANKS, "all"}
    for up, cells in rows.items():
        ours = table.all if up == "all" else table.upcards[up]
        assert set(cells) == set(ours) == {"17", "18", "19", "20", "21", "blackjack", "bust"}
        for outcome, value in cells.items():
            assert ours[outcome] == pytest.approx(value, abs=1e-6), (up, outcome)


def test_wizard_appendix_2_two_decks_s17_after_peek() -> None:
    table = theory_table("x", 2, S17)
    for up, cells in published("wizard_2_2deck_s17_after_peek.csv").items():
        ours = table.upcards[up]
        for outcome, value in cells.items():
            after_peek = ours[outcome] / (1 - ours["blackjack"])
            assert after_peek == pytest.approx(value, abs=1e-6), (up, outcome)


def test_blackjackinfo_one_deck_h17_to_its_printed_precision() -> None:
    # printed in percent to two decimals: one unit of the last digit
    table = theory_table("x", 1, H17)
    for up, cells in published("blackjackinfo_1deck_h17_after_peek.csv").items():
        ours = table.upcards[up]
        for outcome, percent in cells.items():
            value = (
                ours[outcome] if outcome == "blackjack" else ours[outcome] / (1 - ours["blackjack"])
            )
            assert 100 * value == pytest.approx(percent, abs=0.01), (up, outcome)


@pytest.mark.parametrize("decks", range(1, 9))
def test_natural_closed_form(decks: int) -> None:
    n = decks
    closed = Fraction(2 * 4 * n * 16 * n, 52 * n * (52 * n - 1))
    table = theory_table("x", decks, S17)
    assert table.natural == pytest.approx(float(closed), rel=1e-12)
    assert table.all["blackjack"] == pytest.approx(float(closed), rel=1e-12)
    shoe = [4 * n] * 9 + [16 * n]
    shoe[0] -= 1
    exact = outcome_probabilities(dealer_graph(0, S17), shoe, exact=True)
    assert exact[S17.outcomes.index("blackjack")] == Fraction(16 * n, 52 * n - 1)


@pytest.mark.parametrize("rule", [S17, H17])
@pytest.mark.parametrize("decks", [1, 6, 8])
def test_every_up_card_sums_to_one(rule: DealerRule, decks: int) -> None:
    table = theory_table("x", decks, rule)
    for probs in [*table.upcards.values(), table.all]:
        assert sum(probs.values()) == pytest.approx(1.0, abs=1e-12)
    assert all(p == 0 for u, p in ((u, table.upcards[u]["blackjack"]) for u in "23456789"))


def _brute(up: int, remaining: tuple[int, ...], rule: DealerRule) -> dict[str, Fraction]:
    """Every ordered draw sequence, by plain recursion: an independent check of the graph."""
    out: dict[str, Fraction] = dict.fromkeys(rule.outcomes, Fraction(0))

    def play(cards: list[int], left: list[int], p: Fraction) -> None:
        hard = sum(c + 1 for c in cards)
        soft = 0 in cards and hard + 10 <= 21
        best = hard + 10 if soft else hard
        if len(cards) == 2 and sorted(cards) == [0, 9]:
            out["blackjack"] += p
        elif best > 21:
            out["bust"] += p
        elif not rule.must_draw(best, soft):
            out[str(best)] += p
        else:
            total = sum(left)
            for r, count in enumerate(left):
                if count:
                    left[r] -= 1
                    play([*cards, r], left, p * Fraction(count, total))
                    left[r] += 1

    play([up], list(remaining), Fraction(1))
    return out


@settings(max_examples=40, deadline=None)
@given(
    up=st.integers(0, 9),
    counts=st.lists(st.integers(0, 2), min_size=10, max_size=10),
    extra_tens=st.integers(0, 3),
    hits_soft=st.booleans(),
)
def test_graph_recursion_equals_brute_force_enumeration(
    up: int, counts: list[int], extra_tens: int, hits_soft: bool
) -> None:
    # a shoe big enough that no path runs out: 12+ cards totalling well over 21
    counts[9] += extra_tens + 2
    counts = [c + 1 for c in counts]
    rule = H17 if hits_soft else S17
    ours = outcome_probabilities(dealer_graph(up, rule), counts, exact=True)
    assert dict(zip(rule.outcomes, ours, strict=True)) == _brute(up, tuple(counts), rule)
    floats = outcome_probabilities(dealer_graph(up, rule), counts)
    for a, b in zip(floats, ours, strict=True):
        assert a == pytest.approx(float(b), abs=1e-12)


def test_natural_probability_of_a_composition() -> None:
    assert natural_probability([1, 0, 0, 0, 0, 0, 0, 0, 0, 1]) == 1.0
    assert natural_probability([2, 0, 0, 0, 0, 0, 0, 0, 0, 0]) == 0.0
    assert natural_probability([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]) == 0.0


def test_a_profile_without_a_dealer_rule_has_no_theory() -> None:
    with pytest.raises(NoDealerRuleError, match="plays freely"):
        theory(load_registry().get("ventuno-family"), 1)


@pytest.mark.parametrize("pid", ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory"])
def test_theory_cli_json_has_cli_md_shape(runner: CliRunner, pid: str) -> None:
    result = runner.invoke(app, ["theory", pid, "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert list(doc) == ["profile", "decks", "dealer", "upcards", "all"]
    profile = load_registry().get(pid)
    assert (doc["profile"], doc["decks"], doc["dealer"]) == (pid, profile.rules.decks, "s17")
    assert list(doc["upcards"]) == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]
    keys = ["17", "18", "19", "20", "21", "blackjack", "bust"]
    for probs in [*doc["upcards"].values(), doc["all"]]:
        assert list(probs) == keys
        assert all(isinstance(v, float) for v in probs.values())
        assert sum(probs.values()) == pytest.approx(1.0)


def test_theory_cli_decks_option_matches_the_published_table(runner: CliRunner) -> None:
    result = runner.invoke(app, ["theory", "it-casino-6d", "--decks", "1", "--format", "json"])
    doc = json.loads(result.output)
    rows = published("wizard_2b_1deck_s17.csv")
    assert doc["decks"] == 1
    assert doc["upcards"]["6"]["bust"] == pytest.approx(rows["6"]["bust"], abs=1e-6)
    assert doc["all"]["bust"] == pytest.approx(rows["all"]["bust"], abs=1e-6)


def test_theory_cli_table(runner: CliRunner) -> None:
    result = runner.invoke(app, ["theory", "it-casino-5d", "--decks", "1"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].startswith("it-casino-5d: 1 deck(s), the dealer stands on soft 17 (s17)")
    assert lines[1].split() == ["up", "17", "18", "19", "20", "21", "blackjack", "bust"]
    six = next(line.split() for line in lines if line.startswith("6 "))
    assert six == [
        "6",
        "0.166948",
        "0.106454",
        "0.107192",
        "0.100705",
        "0.097878",
        "0.000000",
        "0.420823",
    ]
    assert lines[-1] == "natural (two cards from a full shoe): 0.048265"


def test_theory_cli_a_casino_profile_that_hits_soft_17(runner: CliRunner, tmp_path: Path) -> None:
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    text = text.replace('"it-casino-6d"', '"casino-h17"', 1).replace(
        "dealer_stands_on_soft_17 = { value = true", "dealer_stands_on_soft_17 = { value = false"
    )
    (tmp_path / "h17.toml").write_text(text, encoding="utf-8")
    result = runner.invoke(
        app,
        ["theory", "casino-h17", "--decks", "1", "--format", "json", "--profiles", str(tmp_path)],
    )
    doc = json.loads(result.output)
    assert doc["dealer"] == "h17"
    ace = doc["upcards"]["A"]
    assert 100 * ace["bust"] / (1 - ace["blackjack"]) == pytest.approx(20.46, abs=0.01)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["theory", "ventuno-family"], "has no dealer rule: the banker plays freely"),
        (["theory", "nope"], "unknown profile: 'nope'"),
    ],
)
def test_theory_cli_exit_1(runner: CliRunner, args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert message in result.output
