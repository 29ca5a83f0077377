"""Pay tables as data (games.md §1): the nine shipped, a casino's own, a bad file in one line."""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from audit.errors import PayTableError, UnknownPayTableError
from audit.profiles import load_registry
from audit.sidebets import load_paytable_file, load_paytables
from audit.sidebets.paytables import (
    PACKAGED_PAYTABLES,
    offered_side_bets,
    side_bets_asked,
    side_bets_problem,
)

REPO = Path(__file__).resolve().parents[2]

BUSTER = {"cards_3": 2, "cards_4": 2, "cards_5": 4, "cards_7": 50, "cards_8_plus": 250}
# games.md §1's table of pay tables: id -> (evaluator, pays to 1)
SHIPPED = {
    "perfect-pairs-25-12-6": ("pair", {"perfect": 25, "coloured": 12, "mixed": 6}),
    "perfect-pairs-30-10-5": ("pair", {"perfect": 30, "coloured": 10, "mixed": 5}),
    "perfect-pairs-25-12-5": ("pair", {"perfect": 25, "coloured": 12, "mixed": 5}),
    "perfect-pairs-25-15-5": ("pair", {"perfect": 25, "coloured": 15, "mixed": 5}),
    "21plus3-9": ("three_card", {"straight_flush": 9, "trips": 9, "straight": 9, "flush": 9}),
    "21plus3-tiered": (
        "three_card",
        {"suited_trips": 100, "straight_flush": 40, "trips": 30, "straight": 10, "flush": 5},
    ),
    "lucky-ladies-a": (
        "twenty",
        {
            "queen_hearts_pair_dealer_blackjack": 1000,
            "queen_hearts_pair": 125,
            "matched": 19,
            "suited": 9,
            "any": 4,
        },
    ),
    "buster-12": (
        "dealer_bust_cards",
        {
            "cards_3": 2,
            "cards_4": 2,
            "cards_5": 4,
            "cards_6": 12,
            "cards_7": 50,
            "cards_8_plus": 250,
        },
    ),
    "buster-15": (
        "dealer_bust_cards",
        {
            "cards_3": 2,
            "cards_4": 2,
            "cards_5": 4,
            "cards_6": 15,
            "cards_7": 50,
            "cards_8_plus": 250,
        },
    ),
}

GOOD = """\
id = "house-pairs"
title = "Our Perfect Pairs"
evaluator = "pair"
source = "the house's own table"

[pays]
perfect = "30/1"
mixed = "5/1"
"""


def test_the_nine_shipped_pay_tables_are_games_md_section_1() -> None:
    tables = load_paytables()
    assert tables.ids() == sorted(SHIPPED)
    for table in tables.all():
        evaluator, pays = SHIPPED[table.id]
        assert table.evaluator == evaluator
        assert dict(table.pays) == {k: Fraction(v) for k, v in pays.items()}
        assert table.lines == tuple(line for line in table.verifier.lines if line in pays)
        assert table.source and table.title
        assert Path(table.path).name == f"{table.id}.toml"


def test_the_pay_tables_are_package_data() -> None:
    # a wheel install has them: pyproject's package-data globs every shipped file
    globs = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]["package-data"]["audit.profiles"]
    package = REPO / "audit" / "profiles"
    shipped = {p for g in globs for p in package.glob(g)}  # as setuptools globs them
    files = sorted(PACKAGED_PAYTABLES.glob("*.toml"))
    assert len(files) == 9
    assert set(files) <= shipped


def test_the_paytables_folder_is_no_profile(tmp_path: Path) -> None:
    (tmp_path / "paytables").mkdir()
    (tmp_path / "paytables" / "house-pairs.toml").write_text(GOOD, encoding="utf-8")
    registry = load_registry(tmp_path)
    assert registry.problems == []


def test_a_casino_adds_a_pay_table_beside_its_profiles(tmp_path: Path) -> None:
    (tmp_path / "paytables").mkdir()
    (tmp_path / "paytables" / "house-pairs.toml").write_text(GOOD, encoding="utf-8")
    tables = load_paytables(tmp_path)
    assert "house-pairs" in tables and "perfect-pairs-25-12-6" in tables
    own = tables.get("house-pairs")
    # the evaluator's order, whatever the file's
    assert own.pays == (("perfect", Fraction(30)), ("mixed", Fraction(5)))
    assert own.outcome(("coloured",)) is None  # not listed: the bet loses
    assert own.net(("coloured",)) == -1 and own.net(("mixed",)) == 5


def test_a_casino_pay_table_with_a_shipped_id_replaces_it(tmp_path: Path) -> None:
    (tmp_path / "paytables").mkdir()
    text = GOOD.replace('"house-pairs"', '"perfect-pairs-25-12-6"')
    (tmp_path / "paytables" / "mine.toml").write_text(text, encoding="utf-8")
    assert dict(load_paytables(tmp_path).get("perfect-pairs-25-12-6").pays)["perfect"] == 30
    assert dict(load_paytables().get("perfect-pairs-25-12-6").pays)["perfect"] == 25


def test_the_environment_names_the_casino_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "paytables").mkdir()
    (tmp_path / "paytables" / "house-pairs.toml").write_text(GOOD, encoding="utf-8")
    monkeypatch.setenv("SHOE_AUDIT_PROFILES", str(tmp_path))
    assert "house-pairs" in load_paytables()


@pytest.mark.parametrize(
    ("change", "field", "why"),
    [
        (('evaluator = "pair"', 'evaluator = "pairs"'), "evaluator", "unknown evaluator 'pairs'"),
        (('perfect = "30/1"', 'straight = "30/1"'), "pays.straight", "not a line of evaluator"),
        (('perfect = "30/1"', "perfect = 30"), "pays.perfect", "(got 30)"),
        (('perfect = "30/1"', 'perfect = "30"'), "pays.perfect", "such as \"25/1\" (got '30')"),
        (('perfect = "30/1"', 'perfect = "0/1"'), "pays.perfect", "a positive ratio"),
        (('perfect = "30/1"', 'perfect = "1/0"'), "pays.perfect", "a positive ratio"),
        (('source = "the house\'s own table"\n', ""), "source", "(missing)"),
        (('title = "Our Perfect Pairs"', "title = 3"), "title", "(got 3)"),
        (('id = "house-pairs"', 'id = "House Pairs"'), "id", "1-64 characters"),
        (('id = "house-pairs"', 'id = "house-pairs"\nodds = 1'), "odds", "not a pay-table key"),
        (('[pays]\nperfect = "30/1"\nmixed = "5/1"\n', ""), "pays", "a [pays] table"),
        (("[pays]", "[pays"), "", "cannot read pay table"),
    ],
)
def test_a_bad_pay_table_is_refused_in_one_line_naming_file_and_field(
    tmp_path: Path, change: tuple[str, str], field: str, why: str
) -> None:
    path = tmp_path / "bad.toml"
    assert change[0] in GOOD
    path.write_text(GOOD.replace(*change), encoding="utf-8")
    with pytest.raises(PayTableError) as caught:
        load_paytable_file(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {field}: " if field else f"{path}: ")
    assert why in message


def test_a_bad_casino_pay_table_is_left_out_and_named(tmp_path: Path) -> None:
    folder = tmp_path / "paytables"
    folder.mkdir()
    (folder / "a.toml").write_text(GOOD, encoding="utf-8")
    (folder / "b.toml").write_text(GOOD.replace('"pair"', '"poker"'), encoding="utf-8")
    (folder / "c.toml").write_text(GOOD, encoding="utf-8")  # the same id again
    tables = load_paytables(tmp_path)
    assert "house-pairs" in tables
    assert tables.problems == [
        f"{folder / 'b.toml'}: evaluator: unknown evaluator 'poker' "
        "(the evaluators: pair, three_card, twenty, dealer_bust_cards)",
        f"{folder / 'c.toml'}: id: 'house-pairs' is already the id of {folder / 'a.toml'}",
    ]


def test_an_unknown_pay_table_names_the_known_ones() -> None:
    with pytest.raises(UnknownPayTableError, match=r"unknown pay table: 'nope' \(known: 21plus3"):
        load_paytables().get("nope")


def test_side_bets_asked_keys_the_profiles_by_side_bet_and_the_others_by_pay_table() -> None:
    tables = load_paytables()
    asked = side_bets_asked(
        tables, {"21plus3": "21plus3-9"}, ["buster-12", "21plus3-9", "buster-12"]
    )
    assert [(key, t.id) for key, t in asked] == [
        ("21plus3", "21plus3-9"),
        ("buster-12", "buster-12"),
        ("21plus3-9", "21plus3-9"),
    ]
    with pytest.raises(UnknownPayTableError, match="side bet 'pp' names an unknown pay table"):
        side_bets_asked(tables, {"pp": "perfect-pairs-99"})


def test_a_profile_without_side_bets_offers_none() -> None:
    assert offered_side_bets(load_registry().get("it-casino-6d").rules) == {}


@pytest.mark.parametrize(
    ("offered", "up_card", "freely", "problem"),
    [
        ({"21plus3": "21plus3-9", "buster": "buster-12"}, True, False, None),
        ({"_pp": "perfect-pairs-25-12-6"}, True, False, "side_bets._pp: a side-bet id is 1-32"),
        ({"bonus": "perfect-pairs-25-12-6"}, True, False, "not main, insurance or bonus"),
        ({"Perfect": "perfect-pairs-25-12-6"}, True, False, "(got 'Perfect')"),
        ({"p" * 33: "perfect-pairs-25-12-6"}, True, False, "1-32 characters"),
        ({"pp": "perfect-pairs-9"}, True, False, "side_bets.pp: names no pay table"),
        ({"21plus3": "21plus3-9"}, False, False, "side_bets.21plus3: pay table '21plus3-9'"),
        ({"ll": "lucky-ladies-a"}, False, False, "no face-up card"),
        ({"pp": "perfect-pairs-25-12-6"}, False, True, None),  # reads the box's cards only
        ({"buster": "buster-12"}, True, True, "side_bets.buster: pay table 'buster-12'"),
    ],
)
def test_a_profiles_side_bets_refused_as_games_md_section_1_says(
    offered: dict[str, str], up_card: bool, freely: bool, problem: str | None
) -> None:
    found = side_bets_problem(
        offered, load_paytables(), dealer_has_up_card=up_card, dealer_plays_freely=freely
    )
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found and "\n" not in found
