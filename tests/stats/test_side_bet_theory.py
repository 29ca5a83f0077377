"""games.md §6: every figure of its side-bet tables, reproduced (the 6-deck ones by default).

Tolerance (games.md §6): counts equal; probabilities within 1e-6; a house edge
within 0.0005 percentage points of the exact figure, and equal to the published
one when rounded to the digits it prints. Most figures are published (Wizard
of Odds' Perfect Pairs, 21+3 version 1, Lucky Ladies and Buster Blackjack
pages, appendix 2A; live-dealers-casino.com; onlineblackjack.org); games.md
says which are not (the 6-deck 25/12/6 and 25/15/5, the tiered 21+3, Buster 15).
"""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.profiles.model import Rules
from audit.profiles.registry import PACKAGED_DIR
from audit.sidebets import EVALUATORS, load_paytables, pair_lines, three_card_lines
from audit.sidebets.paytables import offered_side_bets
from audit.stats import DealerRule, theory_table
from audit.stats.side_bets import CARDS, LOSE, line_sets, side_bet_odds
from audit.stats.theory import after_peek, peeked_upcards

S17, H17 = DealerRule(17, True), DealerRule(17, False)
slow = pytest.mark.slow

# (pay table, decks, dealer, published % or None, exact % to 4 places): games.md §6
HOUSE_EDGES = [
    ("perfect-pairs-25-12-6", 8, None, "4.10", "4.0964"),
    ("perfect-pairs-25-12-6", 6, None, None, "6.1093"),
    ("perfect-pairs-30-10-5", 8, None, "3.37", "3.3735"),
    ("perfect-pairs-30-10-5", 6, None, "5.79", "5.7878"),
    ("perfect-pairs-25-12-5", 8, None, "7.95", "7.9518"),
    ("perfect-pairs-25-12-5", 6, None, "9.97", "9.9678"),
    ("perfect-pairs-25-15-5", 8, None, "2.17", "2.1687"),
    ("perfect-pairs-25-15-5", 6, None, None, "4.1801"),
    ("21plus3-9", 1, None, "13.30", "13.3032"),
    ("21plus3-9", 2, None, "7.26", "7.2618"),
    ("21plus3-9", 4, None, "4.24", "4.2439"),
    ("21plus3-9", 6, None, "3.2386", "3.2386"),
    ("21plus3-9", 8, None, "2.74", "2.7360"),
    ("21plus3-tiered", 6, None, None, "4.6210"),
    ("21plus3-tiered", 8, None, None, "3.7039"),
    ("lucky-ladies-a", 1, None, "38.16", "38.1599"),
    ("lucky-ladies-a", 6, None, "24.71", "24.7089"),
    ("lucky-ladies-a", 8, None, "24.05", "24.0460"),
    ("buster-12", 1, S17, "8.77", "8.7690"),
    ("buster-12", 1, H17, "6.89", "6.8889"),
    ("buster-12", 2, S17, "8.48", "8.4765"),
    ("buster-12", 2, H17, "6.51", "6.5097"),
    ("buster-12", 6, S17, "8.25", "8.2462"),
    ("buster-12", 6, H17, "6.21", "6.2143"),
    ("buster-12", 8, S17, "8.22", "8.2154"),
    ("buster-12", 8, H17, "6.17", "6.1749"),
    ("buster-15", 6, S17, None, "7.5517"),
    ("buster-15", 6, H17, None, "5.4230"),
]


def _six_decks_by_default(rows: list[tuple[object, ...]], decks_at: int) -> list[object]:
    """The 6-deck rows in the default suite, the rest marked slow (as games.md §6 asks)."""
    return [pytest.param(*row, marks=() if row[decks_at] == 6 else slow) for row in rows]


def _rounded(value: Fraction, places: int) -> str:
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return str(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


@pytest.mark.parametrize(
    ("paytable", "decks", "rule", "published", "exact"), _six_decks_by_default(HOUSE_EDGES, 1)
)
def test_house_edge_games_md_section_6(
    paytable: str, decks: int, rule: DealerRule | None, published: str | None, exact: str
) -> None:
    odds = side_bet_odds(load_paytables().get(paytable), decks, rule)
    assert isinstance(odds.house_edge, Fraction)
    percent = 100 * odds.house_edge
    assert abs(percent - Fraction(exact)) <= Fraction(5, 10_000)
    assert _rounded(percent, 4) == exact
    if published is not None:
        assert _rounded(percent, len(published.split(".")[1])) == published
    assert sum(p for _, p in odds.lines) == 1
    assert odds.house_edge == -sum(
        p * (-1 if line == LOSE else odds.paytable.ratio(line)) for line, p in odds.lines
    )


def _first_line_counts(evaluator: str, decks: int, total: int) -> list[Fraction]:
    """The chance of each line as the best one met, times ``total``: a count."""
    order = EVALUATORS[evaluator].lines
    counts = dict.fromkeys(order, Fraction(0))
    for satisfied, p in line_sets(evaluator, decks).items():
        if satisfied:
            counts[satisfied[0]] += p * total
    return [counts[line] for line in order]


# (evaluator, decks, counts best line first, of how many): games.md §6's line fixtures
COUNTS = [
    ("pair", 6, [780, 936, 1_872], 48_516),
    ("pair", 8, [1_456, 1_664, 3_328], 86_320),
    ("three_card", 6, [1_040, 10_368, 25_272, 155_520, 292_896], 5_013_320),
    ("three_card", 8, [2_912, 24_576, 61_568, 368_640, 700_928], 11_912_160),
    (
        "twenty",
        6,
        [135_360, 2_738_340, 43_105_500, 193_112_640, 744_863_040],
        9_294_695_280,
    ),
]


@pytest.mark.parametrize(
    ("evaluator", "decks", "counts", "total"), _six_decks_by_default(COUNTS, 1)
)
def test_line_counts_games_md_section_6(
    evaluator: str, decks: int, counts: list[int], total: int
) -> None:
    assert _first_line_counts(evaluator, decks, total) == counts
    assert sum(line_sets(evaluator, decks).values()) == 1


# (decks, rule, P of a bust in 3, 4, 5, 6, 7, 8+ cards): games.md §6 (6D H17: WoO)
BUST_CARDS = [
    (6, H17, [0.173032, 0.089392, 0.020473, 0.002638, 0.000214, 0.000012]),
    (6, S17, [0.173032, 0.087274, 0.019119, 0.002315, 0.000173, 0.000008]),
    (8, H17, [0.173015, 0.089276, 0.020491, 0.002661, 0.000219, 0.000012]),
]


@pytest.mark.parametrize(("decks", "rule", "published"), _six_decks_by_default(BUST_CARDS, 0))
def test_dealer_bust_cards_games_md_section_6(
    decks: int, rule: DealerRule, published: list[float]
) -> None:
    dist = line_sets("dealer_bust_cards", decks, rule)
    assert sum(dist.values()) == 1
    lines = ["cards_3", "cards_4", "cards_5", "cards_6", "cards_7", "cards_8_plus"]
    ours = [float(dist.get((line,), Fraction(0))) for line in lines]
    assert ours == pytest.approx(published, abs=1e-6)
    # what the dealer's table says he busts, whatever the number of cards
    table = theory_table("x", decks, rule)
    assert sum(ours) == pytest.approx(table.all["bust"], abs=1e-12)


# (decks, rule, up card, P of a bust after the peek): games.md §6 (2D S17: WoO appendix 2A)
AFTER_PEEK = [
    (2, S17, "A", 0.168096),
    (2, S17, "T", 0.231144),
    (6, S17, "A", 0.167033),
    (6, S17, "T", 0.230239),
    (6, H17, "A", 0.201281),
]


@pytest.mark.parametrize(("decks", "rule", "up", "bust"), _six_decks_by_default(AFTER_PEEK, 0))
def test_after_peek_bust_games_md_section_6(
    decks: int, rule: DealerRule, up: str, bust: float
) -> None:
    table = theory_table("x", decks, rule)
    ours = after_peek(table, [up])[up]
    assert list(ours) == ["17", "18", "19", "20", "21", "bust"]
    assert sum(ours.values()) == pytest.approx(1.0, abs=1e-12)
    assert ours["bust"] == pytest.approx(bust, abs=1e-6)


def test_perfect_pairs_house_edge_is_a_rational() -> None:
    # 6 decks, 25/12/6: (780·25 + 936·12 + 1,872·6 − 44,928) / 48,516
    odds = side_bet_odds(load_paytables().get("perfect-pairs-25-12-6"), 6)
    assert odds.house_edge == Fraction(44_928 - 780 * 25 - 936 * 12 - 1_872 * 6, 48_516)


# --- the enumeration against every hand of a real shoe, card by card ------------------------


def _shoe(decks: int) -> list[str]:
    return [card for card in CARDS for _ in range(decks)]


def test_pair_odds_are_every_two_cards_of_a_two_deck_shoe() -> None:
    shoe = _shoe(2)
    counts: dict[tuple[str, ...], int] = {}
    for a, b in combinations(shoe, 2):
        lines = pair_lines(a, b)
        counts[lines] = counts.get(lines, 0) + 1
    total = len(shoe) * (len(shoe) - 1) // 2
    assert line_sets("pair", 2) == {k: Fraction(n, total) for k, n in counts.items()}


def _three_card_brute(decks: int) -> dict[tuple[str, ...], Fraction]:
    shoe = _shoe(decks)
    counts: dict[tuple[str, ...], int] = {}
    for a, b, c in combinations(shoe, 3):
        lines = three_card_lines(a, b, c)
        counts[lines] = counts.get(lines, 0) + 1
    total = sum(counts.values())
    return {k: Fraction(n, total) for k, n in counts.items()}


def test_three_card_odds_are_every_three_cards_of_a_deck() -> None:
    assert line_sets("three_card", 1) == _three_card_brute(1)


@slow
def test_three_card_odds_are_every_three_cards_of_a_two_deck_shoe() -> None:
    assert line_sets("three_card", 2) == _three_card_brute(2)


@slow
@pytest.mark.parametrize("rule", [S17, H17])
def test_dealer_bust_cards_are_every_deal_of_a_deck(rule: DealerRule) -> None:
    # every ordered deal of the dealer's hand from one deck, by plain recursion over ranks
    counts = [4] * 9 + [16]
    out: dict[int, Fraction] = {}

    def deal(hand: list[int], p: Fraction) -> None:
        hard = sum(r + 1 for r in hand)
        soft = 0 in hand and hard + 10 <= 21
        best = hard + 10 if soft else hard
        if len(hand) == 2 and sorted(hand) == [0, 9]:
            return
        if best > 21:
            out[len(hand)] = out.get(len(hand), Fraction(0)) + p
            return
        if len(hand) >= 2 and not rule.must_draw(best, soft):
            return
        left = sum(counts)
        for r, n in enumerate(counts):
            if n:
                counts[r] -= 1
                deal([*hand, r], p * Fraction(n, left))
                counts[r] += 1

    deal([], Fraction(1))
    dist = line_sets("dealer_bust_cards", 1, rule)
    for cards, p in out.items():
        line = f"cards_{cards}" if cards < 8 else "cards_8_plus"
        if cards >= 8:
            p = sum((q for c, q in out.items() if c >= 8), Fraction(0))
        assert dist[(line,)] == p, cards


# --- the command line ------------------------------------------------------------------------


SIX_DECKS_S17 = {row[0]: row[4] for row in HOUSE_EDGES if row[1] == 6 and row[2] in (None, S17)}


def test_theory_cli_every_paytable_json_six_decks(runner: CliRunner) -> None:
    # all nine shipped tables in one invocation, as --paytable repeats
    assert len(SIX_DECKS_S17) == 9
    paytables = [arg for paytable in SIX_DECKS_S17 for arg in ("--paytable", paytable)]
    result = runner.invoke(app, ["theory", "it-casino-6d", *paytables, "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert list(doc) == ["profile", "decks", "dealer", "upcards", "all", "side_bets"]
    assert list(doc["side_bets"]) == list(SIX_DECKS_S17)
    for paytable, exact in SIX_DECKS_S17.items():
        bet = doc["side_bets"][paytable]
        assert list(bet)[:3] == ["paytable", "house_edge", "lines"]
        assert bet["paytable"] == paytable and bet["decks"] == 6
        assert 100 * bet["house_edge"] == pytest.approx(float(exact), abs=0.0005)
        table = load_paytables().get(paytable)
        assert list(bet["lines"]) == [*table.lines, "lose"]
        assert sum(bet["lines"].values()) == pytest.approx(1.0, abs=1e-12)
        assert bet["pays"] == {line: f"{r.numerator}/{r.denominator}" for line, r in table.pays}
        assert bet["dealer"] == ("s17" if table.evaluator == "dealer_bust_cards" else None)


def test_theory_cli_json_example_of_games_md(runner: CliRunner) -> None:
    # games.md §6's example: 21plus3-9 at 6 decks
    result = runner.invoke(
        app, ["theory", "it-casino-6d", "--paytable", "21plus3-9", "--format", "json"]
    )
    bet = json.loads(result.output)["side_bets"]["21plus3-9"]
    assert bet["house_edge"] == pytest.approx(0.0323857, abs=5e-8)
    assert bet["lines"]["straight_flush"] == pytest.approx(0.0020681, abs=5e-8)
    assert bet["lines"]["lose"] == pytest.approx(0.9032386, abs=5e-8)


def test_theory_cli_paytable_repeatable_with_decks(runner: CliRunner) -> None:
    result = runner.invoke(
        app,
        [
            "theory",
            "it-casino-6d",
            "--decks",
            "8",
            "--paytable",
            "perfect-pairs-30-10-5",
            "--paytable",
            "lucky-ladies-a",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    bets = json.loads(result.output)["side_bets"]
    assert list(bets) == ["perfect-pairs-30-10-5", "lucky-ladies-a"]
    assert 100 * bets["perfect-pairs-30-10-5"]["house_edge"] == pytest.approx(3.3735, abs=5e-4)
    assert 100 * bets["lucky-ladies-a"]["house_edge"] == pytest.approx(24.0460, abs=5e-4)


def test_theory_cli_buster_follows_the_profiles_soft_17_rule(
    runner: CliRunner, tmp_path: Path
) -> None:
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    text = text.replace('"it-casino-6d"', '"casino-h17"', 1).replace(
        "dealer_stands_on_soft_17 = { value = true", "dealer_stands_on_soft_17 = { value = false"
    )
    (tmp_path / "h17.toml").write_text(text, encoding="utf-8")
    args = ["theory", "--paytable", "buster-12", "--format", "json", "--profiles", str(tmp_path)]
    s17 = json.loads(runner.invoke(app, [*args, "it-casino-6d"]).output)["side_bets"]
    h17 = json.loads(runner.invoke(app, [*args, "casino-h17"]).output)["side_bets"]
    assert (s17["buster-12"]["dealer"], h17["buster-12"]["dealer"]) == ("s17", "h17")
    assert 100 * s17["buster-12"]["house_edge"] == pytest.approx(8.2462, abs=5e-4)
    assert 100 * h17["buster-12"]["house_edge"] == pytest.approx(6.2143, abs=5e-4)


def test_theory_cli_paytable_table(runner: CliRunner) -> None:
    result = runner.invoke(app, ["theory", "it-casino-6d", "--paytable", "21plus3-9"])
    assert result.exit_code == 0, result.output
    block = result.output.split("\n\n")[1].splitlines()
    assert block[0] == (
        "pay table 21plus3-9 (three_card), 6 deck(s): "
        "21+3, version 1: 9 to 1 on every hand (Las Vegas Hilton, 2001)"
    )
    assert block[1].split() == ["line", "pays", "probability"]
    assert [row.split() for row in block[2:-1]] == [
        ["straight_flush", "9/1", "0.0020681"],
        ["trips", "9/1", "0.0052484"],
        ["straight", "9/1", "0.0310214"],
        ["flush", "9/1", "0.0584236"],
        ["lose", "-1", "0.9032386"],
    ]
    assert block[-1] == "house edge: 3.2386%"


def test_theory_cli_a_casino_pay_table(runner: CliRunner, tmp_path: Path) -> None:
    folder = tmp_path / "paytables"
    folder.mkdir()
    (folder / "pp.toml").write_text(
        'id = "house-pp"\ntitle = "House pairs"\nevaluator = "pair"\nsource = "the house"\n'
        '[pays]\nperfect = "25/1"\ncoloured = "12/1"\nmixed = "6/1"\n',
        encoding="utf-8",
    )
    (folder / "bad.toml").write_text('id = "x"\n', encoding="utf-8")
    args = ["theory", "it-casino-6d", "--paytable", "house-pp", "--format", "json"]
    result = runner.invoke(app, [*args, "--profiles", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"{folder / 'bad.toml'}: title: a pay table names its title" in result.stderr
    doc = json.loads(result.stdout)
    assert 100 * doc["side_bets"]["house-pp"]["house_edge"] == pytest.approx(6.1093, abs=5e-4)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--paytable", "nope"], "unknown pay table: 'nope' (known: 21plus3-9, 21plus3-tiered"),
        (["--paytable", "buster-12", "--decks", "0"], "--decks"),
    ],
)
def test_theory_cli_paytable_refused(runner: CliRunner, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["theory", "it-casino-6d", *args])
    assert result.exit_code in (1, 2)
    assert message in result.output
    assert result.exit_code == (1 if "nope" in args else 2)


# --- a profile's own side bets and peek (games.md §1's fields, from the engine's branch) ----

HAS_FIELDS = {"side_bets", "peek_on_ace", "peek_on_ten"} <= set(Rules.model_fields)


def test_the_seams_read_the_profile_fields_by_name() -> None:
    rules = SimpleNamespace(
        peek_on_ace=True, peek_on_ten=False, side_bets={"perfect_pairs": "perfect-pairs-25-12-6"}
    )
    assert peeked_upcards(rules) == ("A",)
    assert offered_side_bets(rules) == {"perfect_pairs": "perfect-pairs-25-12-6"}
    assert peeked_upcards(SimpleNamespace(peek_on_ace=True, peek_on_ten=True)) == ("A", "T")
    assert peeked_upcards(SimpleNamespace()) == () and offered_side_bets(SimpleNamespace()) == {}


@pytest.mark.skipif(not HAS_FIELDS, reason="side_bets and peek_on_* land with the engine branch")
def test_theory_cli_a_us_profiles_side_bets_and_after_peek(
    runner: CliRunner, tmp_path: Path
) -> None:
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    text = text.replace('"it-casino-6d"', '"casino-us"', 1).replace(
        "dealer_cards = 1, face_up = true, dealer_face_up = true",
        "dealer_cards = 2, face_up = true, dealer_face_up = true, hole_card_face_up = false",
    )
    text += (
        'peek_on_ace = { value = true, source = "test" }\n'
        'peek_on_ten = { value = true, source = "test" }\n'
        'side_bets = { value = { "21plus3" = "21plus3-9", "lucky_ladies" = "lucky-ladies-a" }, '
        'source = "test" }\n'
    )
    (tmp_path / "us.toml").write_text(text, encoding="utf-8")
    args = ["theory", "casino-us", "--format", "json", "--profiles", str(tmp_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert list(doc["side_bets"]) == ["21plus3", "lucky_ladies"]
    assert doc["side_bets"]["21plus3"]["house_edge"] == pytest.approx(0.0323857, abs=5e-8)
    assert list(doc["after_peek"]) == ["A", "T"]
    assert doc["after_peek"]["A"]["bust"] == pytest.approx(0.167033, abs=1e-6)
    assert doc["after_peek"]["T"]["bust"] == pytest.approx(0.230239, abs=1e-6)
