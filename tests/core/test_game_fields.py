"""The profile fields of games.md §1: defaults that keep today's rules, and the refusals.

Every new field defaults to what the auditor did before it existed, so the four
Italian profiles (and a casino's copy of one) load unchanged and mean the same;
a profile that could only be audited by guessing is refused at load, in one line
naming the field.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from audit.errors import ProfileError
from audit.profiles import load_profile_file, load_registry
from audit.profiles.model import Profile, side_bet_problem
from audit.profiles.registry import PACKAGED_DIR
from tests.cli.helpers import cli

ITALIAN = ("it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family")
US_DEAL = (
    "initial_deal = { value = { dealer_cards = 2, face_up = true, dealer_face_up = true, "
    'hole_card_face_up = false }, source = "games.md §5 [PK, W9]" }'
)


def _profile(tmp_path: Path, *lines: str, drop: tuple[str, ...] = ()) -> Path:
    """it-casino-6d as a casino's file ``mine``, rules ``drop``-ped and ``lines`` added."""
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    kept = [x for x in text.splitlines() if not x.startswith(drop)] if drop else text.splitlines()
    path = tmp_path / "mine.toml"
    path.write_text("\n".join([*kept, *lines]).replace('"it-casino-6d"', '"mine"', 1) + "\n")
    return path


def _hole_card(tmp_path: Path, *lines: str, drop: tuple[str, ...] = ()) -> Profile:
    return load_profile_file(_profile(tmp_path, US_DEAL, *lines, drop=("initial_deal", *drop)))


@pytest.mark.parametrize("pid", ITALIAN)
def test_the_italian_profiles_keep_todays_rules_games_1(pid: str) -> None:
    """games.md §1: each default is what the engine did before the field."""
    r = load_registry().get(pid).rules
    assert (r.peek_on_ace, r.peek_on_ten, r.dealer_22_pushes) == (False, False, False)
    assert r.double_max_cards == 2 and r.resplit_aces and r.split_forbidden_ranks == []
    assert r.surrender_kind == "late"
    assert r.surrender_against == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]
    assert r.payout_unit == Decimal("0.01") and r.side_bets == {}
    assert not r.initial_deal.has_hole_card
    # their files write dealer_blackjack_takes_all = true: ENHC, and a finding cites that name
    assert r.dealer_blackjack_takes == "all"
    assert r.rule_name("dealer_blackjack_takes") == "dealer_blackjack_takes_all"


def test_dealer_blackjack_takes_all_false_reads_as_obbo_games_1(tmp_path: Path) -> None:
    path = _profile(tmp_path)
    takes = "dealer_blackjack_takes_all = { value = "
    path.write_text(path.read_text().replace(takes + "true", takes + "false"))
    p = load_profile_file(path)
    assert p.rules.dealer_blackjack_takes == "original_and_busted"
    assert p.sources["dealer_blackjack_takes"].house_default  # its own entry's source, moved


def test_the_new_name_is_read_and_cited_as_written(tmp_path: Path) -> None:
    p = load_profile_file(
        _profile(
            tmp_path,
            'dealer_blackjack_takes = { value = "busted_plus_one", source = "a casino" }',
            drop=("dealer_blackjack_takes_all",),
        )
    )
    assert p.rules.dealer_blackjack_takes == "busted_plus_one"
    assert p.rules.rule_name("dealer_blackjack_takes") == "dealer_blackjack_takes"
    assert p.sources["dealer_blackjack_takes"].source == "a casino"


def test_naming_both_dealer_blackjack_fields_is_refused_games_1(tmp_path: Path) -> None:
    path = _profile(tmp_path, 'dealer_blackjack_takes = { value = "all", source = "x" }')
    with pytest.raises(ProfileError) as exc:
        load_profile_file(path)
    assert "dealer_blackjack_takes or dealer_blackjack_takes_all, not both" in str(exc.value)
    assert "\n" not in str(exc.value)


def test_a_peek_without_a_hole_card_is_refused_games_1(tmp_path: Path) -> None:
    path = _profile(tmp_path, 'peek_on_ace = { value = true, source = "x" }')
    with pytest.raises(ProfileError, match=r"peek_on_ace = true needs a hole card"):
        load_profile_file(path)
    # two cards, both face down (the home banker's deal): no hole card either
    both_down = _profile(
        tmp_path,
        'initial_deal = { value = "face_down_two_each", source = "x" }',
        'peek_on_ten = { value = true, source = "x" }',
        drop=("initial_deal",),
    )
    with pytest.raises(ProfileError, match=r"peek_on_ten = true needs a hole card"):
        load_profile_file(both_down)


def test_a_us_deal_with_a_peek_loads_games_1(tmp_path: Path) -> None:
    p = _hole_card(
        tmp_path,
        'peek_on_ace = { value = true, source = "[PK, W9]" }',
        'peek_on_ten = { value = true, source = "[PK, W9]" }',
    )
    deal = p.rules.initial_deal
    assert (deal.has_hole_card, deal.upcard_index, deal.hole_card_index) == (True, 0, 1)
    assert p.rules.peek_on_ace and p.rules.peek_on_ten


def test_the_old_peek_key_is_refused_naming_the_new_fields_games_1(tmp_path: Path) -> None:
    peek = US_DEAL.replace("hole_card_face_up = false", "hole_card_face_up = false, peek = true")
    with pytest.raises(ProfileError) as exc:
        load_profile_file(_profile(tmp_path, peek, drop=("initial_deal",)))
    assert "peek_on_ace and peek_on_ten" in str(exc.value)
    # v1 read peek = false as no peek, which the defaults say too: such a copy still loads
    quiet = US_DEAL.replace("hole_card_face_up = false", "hole_card_face_up = false, peek = false")
    p = load_profile_file(_profile(tmp_path, quiet, drop=("initial_deal",)))
    assert not p.rules.peek_on_ace and p.rules.initial_deal.has_hole_card


def test_the_new_fields_as_files_write_them_games_1(tmp_path: Path) -> None:
    p = _hole_card(
        tmp_path,
        'double_max_cards = { source = "no limit: null is an entry with no value" }',
        'resplit_aces = { value = false, source = "[W9]" }',
        'split_forbidden_ranks = { value = ["4", "5", "T"], source = "[PT]" }',
        'surrender_kind = { value = "early", source = "x" }',
        'surrender_against = { value = ["2", "3", "4", "5", "6", "7", "8", "9"], source = "x" }',
        'dealer_22_pushes = { value = true, source = "Free Bet" }',
        'payout_unit = { value = "0.50", source = "the smallest chip" }',
        'side_bets = { value = { perfect_pairs = "perfect-pairs-25-12-6", 21plus3 = "21plus3-9" }, '
        'source = "[SB]" }',
    )
    r = p.rules
    assert r.double_max_cards is None and not r.resplit_aces
    assert r.split_forbidden_ranks == ["4", "5", "T"] and r.surrender_kind == "early"
    assert "A" not in r.surrender_against and "T" not in r.surrender_against
    assert r.dealer_22_pushes and r.payout_unit == Decimal("0.50")
    assert r.side_bets == {"perfect_pairs": "perfect-pairs-25-12-6", "21plus3": "21plus3-9"}
    assert not p.sources["payout_unit"].house_default


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('payout_unit = { value = "0.005", source = "x" }', "payout_unit"),
        ('payout_unit = { value = "0", source = "x" }', "payout_unit"),
        ('surrender_against = { value = ["A", "10"], source = "x" }', "surrender_against"),
        ('split_forbidden_ranks = { value = ["K"], source = "x" }', "split_forbidden_ranks"),
        ('surrender_kind = { value = "midway", source = "x" }', "surrender_kind"),
        ('double_max_cards = { value = 1, source = "x" }', "double_max_cards"),
        ('side_bets = { value = { main = "p" }, source = "x" }', "'main' is no side-bet id"),
        ('side_bets = { value = { _pp = "p" }, source = "x" }', "'_pp' is no side-bet id"),
        ('side_bets = { value = { Pairs = "p" }, source = "x" }', "'Pairs' is no side-bet id"),
        ('side_bets = { value = { pairs = "" }, source = "x" }', "'pairs' names no pay table"),
    ],
)
def test_a_bad_new_field_is_one_line_naming_it_games_1(
    tmp_path: Path, line: str, field: str
) -> None:
    with pytest.raises(ProfileError) as exc:
        load_profile_file(_profile(tmp_path, line))
    assert field in str(exc.value) and "\n" not in str(exc.value)


def test_the_side_bet_seam_of_the_pay_table_loader_games_1(tmp_path: Path) -> None:
    """games.md §1's refusals that need a pay table's evaluator: the loader's to call."""
    tables = {"21plus3-9": "three_card", "buster-12": "dealer_bust_cards", "pp": "pair"}
    us = _hole_card(
        tmp_path, 'side_bets = { value = { 21plus3 = "21plus3-9", pairs = "pp" }, source = "x" }'
    )
    assert side_bet_problem(us.rules, tables) is None
    unknown = us.rules.model_copy(update={"side_bets": {"pairs": "pp-99"}})
    assert "names pay table 'pp-99', which is not known" in str(side_bet_problem(unknown, tables))
    blind = load_profile_file(
        _profile(
            tmp_path,
            'initial_deal = { value = "face_down_two_each", source = "x" }',
            'side_bets = { value = { 21plus3 = "21plus3-9" }, source = "x" }',
            drop=("initial_deal",),
        )
    )
    assert "reads the dealer's up card" in str(side_bet_problem(blind.rules, tables))
    free = blind.rules.model_copy(
        update={"side_bets": {"buster": "buster-12"}, "dealer_plays_freely": True}
    )
    assert "the dealer plays freely" in str(side_bet_problem(free, tables))


def test_profiles_lists_the_new_fields_with_their_sources(tmp_path: Path) -> None:
    _profile(tmp_path)
    result = cli("profiles", "--profiles", str(tmp_path), "mine")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for name in ("peek_on_ace", "surrender_against", "payout_unit", "side_bets"):
        assert any(x.startswith(f"{name} ") for x in lines), name
    takes = next(x for x in lines if x.startswith("dealer_blackjack_takes "))
    assert "all (written dealer_blackjack_takes_all)" in takes
