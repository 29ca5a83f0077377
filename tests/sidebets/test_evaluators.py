"""Each evaluator's lines, by hand-written hands: one that hits the line, one that just misses.

Source of every line: games.md §1, "Side bets are data" (the evaluators' table,
best line first), after the pay tables' own pages it cites (Wizard of Odds:
Perfect Pairs, 21+3, Lucky Ladies, Buster Blackjack).
"""

from __future__ import annotations

import pytest

from audit.sidebets import (
    EVALUATORS,
    dealer_bust_cards_lines,
    load_paytables,
    pair_lines,
    three_card_lines,
    twenty_lines,
)

# --- pair (Perfect Pairs): the box's first two cards --------------------------------------


def test_perfect_pairs_perfect_same_rank_and_suit() -> None:
    assert pair_lines("7H", "7H") == ("perfect",)


def test_perfect_pairs_perfect_missed_by_the_suit_is_coloured() -> None:
    # same rank and colour, suits differ: hearts and diamonds are both red
    assert pair_lines("7H", "7D") == ("coloured",)


def test_perfect_pairs_coloured_black_suits() -> None:
    assert pair_lines("QS", "QC") == ("coloured",)


def test_perfect_pairs_coloured_missed_by_the_colour_is_mixed() -> None:
    assert pair_lines("QS", "QH") == ("mixed",)


def test_perfect_pairs_mixed_missed_by_the_rank_is_no_pair() -> None:
    # K,Q is no pair: ten-values pair by their own rank (games.md §1)
    assert pair_lines("KH", "QS") == ()
    assert pair_lines("TH", "JH") == ()


# --- three_card (21+3): the box's first two cards and the dealer's up card ------------------


def test_21plus3_suited_trips() -> None:
    assert three_card_lines("8C", "8C", "8C") == ("suited_trips", "trips", "flush")


def test_21plus3_suited_trips_missed_by_one_suit_is_trips() -> None:
    assert three_card_lines("8C", "8C", "8S") == ("trips",)


def test_21plus3_straight_flush() -> None:
    assert three_card_lines("9D", "JD", "TD") == ("straight_flush", "straight", "flush")


def test_21plus3_straight_flush_missed_by_one_suit_is_a_straight() -> None:
    assert three_card_lines("9D", "JD", "TH") == ("straight",)


def test_21plus3_the_ace_is_high_or_low() -> None:
    assert three_card_lines("AS", "2H", "3C") == ("straight",)
    assert three_card_lines("QS", "KH", "AC") == ("straight",)
    assert three_card_lines("QH", "KH", "AH")[0] == "straight_flush"


def test_21plus3_straight_missed_by_wrapping_round_the_ace() -> None:
    # K-A-2 is no straight (games.md §1)
    assert three_card_lines("KS", "AH", "2C") == ()


def test_21plus3_straight_missed_by_a_gap() -> None:
    assert three_card_lines("9S", "JH", "QC") == ()


def test_21plus3_trips_missed_by_a_ten_value() -> None:
    # T, J, Q, K are 10-13 for 21+3, never one rank
    assert three_card_lines("KS", "KH", "QC") == ()


def test_21plus3_flush() -> None:
    assert three_card_lines("2H", "9H", "KH") == ("flush",)


def test_21plus3_flush_missed_by_one_suit() -> None:
    assert three_card_lines("2H", "9H", "KD") == ()


def test_21plus3_a_table_without_suited_trips_pays_them_as_trips() -> None:
    # games.md §1: "So a table without suited_trips pays suited trips as trips"
    tables = load_paytables()
    assert tables.get("21plus3-9").outcome(three_card_lines("8C", "8C", "8C")) == "trips"
    assert tables.get("21plus3-tiered").outcome(three_card_lines("8C", "8C", "8C")) == (
        "suited_trips"
    )


# --- twenty (Lucky Ladies): the box's first two cards total 20 -----------------------------

BLACKJACK = ("AS", "KD")


def test_lucky_ladies_queen_hearts_pair_dealer_blackjack() -> None:
    assert twenty_lines("QH", "QH", BLACKJACK)[0] == "queen_hearts_pair_dealer_blackjack"


def test_lucky_ladies_queen_hearts_pair_missed_dealer_blackjack() -> None:
    # the dealer's 21 in two cards that is no natural; or his cards not yet known
    assert twenty_lines("QH", "QH", ("TS", "JD"))[0] == "queen_hearts_pair"
    assert twenty_lines("QH", "QH") == ("queen_hearts_pair", "matched", "suited", "any")


def test_lucky_ladies_queen_hearts_pair_missed_by_the_suit_is_matched() -> None:
    assert twenty_lines("QD", "QD", BLACKJACK) == ("matched", "suited", "any")


def test_lucky_ladies_matched_missed_by_the_rank_is_suited() -> None:
    # two identical cards: QH, KH are suited, not matched
    assert twenty_lines("QH", "KH") == ("suited", "any")


def test_lucky_ladies_suited_ace_nine() -> None:
    assert twenty_lines("AS", "9S") == ("suited", "any")


def test_lucky_ladies_suited_missed_by_the_suit_is_any() -> None:
    assert twenty_lines("AS", "9C") == ("any",)
    assert twenty_lines("TH", "JC") == ("any",)


def test_lucky_ladies_any_missed_by_a_total_not_20() -> None:
    assert twenty_lines("9H", "9H") == ()  # 18
    assert twenty_lines("AH", "AH") == ()  # 12 (or 2): two aces are no 20
    assert twenty_lines("AH", "TH") == ()  # a natural is 21


# --- dealer_bust_cards (Buster): the dealer's final hand -------------------------------------


@pytest.mark.parametrize(
    ("hand", "line"),
    [
        (("TS", "6H", "KD"), "cards_3"),
        (("2S", "4H", "6D", "KC"), "cards_4"),
        (("2S", "3H", "4D", "6C", "TS"), "cards_5"),
        (("2S", "2H", "2D", "2C", "5S", "TS"), "cards_6"),
        (("2S", "2H", "2D", "2C", "3S", "3H", "TS"), "cards_7"),
        (("AS", "AH", "AD", "AC", "2S", "3H", "3D", "TS"), "cards_8_plus"),
        (("AS", "AH", "AD", "AC", "2S", "2H", "2D", "2C", "TS"), "cards_8_plus"),
    ],
)
def test_buster_cards_n(hand: tuple[str, ...], line: str) -> None:
    assert dealer_bust_cards_lines(hand) == (line,)


def test_buster_missed_by_standing() -> None:
    assert dealer_bust_cards_lines(("TS", "6H", "5D")) == ()  # 21 in three cards
    assert dealer_bust_cards_lines(("TS", "7H")) == ()


def test_buster_missed_by_a_blackjack() -> None:
    # games.md §1: a blackjack loses it
    assert dealer_bust_cards_lines(("AS", "KH")) == ()


BUST = ("cards_3", "cards_4", "cards_5", "cards_6", "cards_7", "cards_8_plus")


def test_the_evaluators_are_games_md_closed_set() -> None:
    assert {name: e.lines for name, e in EVALUATORS.items()} == {
        "pair": ("perfect", "coloured", "mixed"),
        "three_card": ("suited_trips", "straight_flush", "trips", "straight", "flush"),
        "twenty": (
            "queen_hearts_pair_dealer_blackjack",
            "queen_hearts_pair",
            "matched",
            "suited",
            "any",
        ),
        "dealer_bust_cards": (
            "cards_3",
            "cards_4",
            "cards_5",
            "cards_6",
            "cards_7",
            "cards_8_plus",
        ),
    }
