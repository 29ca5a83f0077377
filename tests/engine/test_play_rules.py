"""Betting, the deal, the players' decisions and the dealer (rules.md, "The profiles").

Every test is one round: compliant (no finding) or breaching (exactly the code,
at the right round, box and hand).
"""

from __future__ import annotations

import pytest

from tests.engine.builders import REGISTRY, ShoeLog, clean, codes, only, where

# ---------------------------------------------------------------- betting


def test_table_limits_respected_000() -> None:
    log = ShoeLog("it-casino-6d", min_bet=10, max_bet=100).start()
    r = log.round(1).bet(1, 10).bet(1, 90, spot=1).no_more_bets()
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0).settle(1, 0, spot=1).close()
    clean(log.replay())


def test_spot_under_minimum_000() -> None:
    log = ShoeLog("it-casino-6d", min_bet=10).start()
    r = log.round(1).bets({1: 5})
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0).close()
    f = only(log.replay())
    assert (
        where(f) == ("BET_LIMIT", 1, 1, None) and f.spot == 0 and f.rule is None
    )  # a shoe_open limit, no profile field


def test_box_total_over_maximum_000() -> None:
    """000: «la somma delle puntate non superi il massimo consentito»."""
    log = ShoeLog("it-casino-6d", max_bet=100).start()
    r = log.round(1).bet(1, 60).bet(1, 50, spot=1).no_more_bets()
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0).settle(1, 0, spot=1).close()
    f = only(log.replay())
    assert (
        where(f) == ("BET_LIMIT", 1, 1, None) and f.spot is None and f.rule is None
    )  # a shoe_open limit


def test_three_circles_per_box_004() -> None:
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bet(1, 10).bet(1, 10, spot=1).bet(1, 10, spot=2).bet(1, 10, spot=3)
    r.no_more_bets().deal({1: "TS 7D"}, dealer="9H").dealer("8C")
    for spot in range(4):
        r.settle(1, 0, spot=spot)
    r.close()
    f = only(log.replay())
    assert where(f) == ("BET_SPOTS", 1, 1, None) and f.rule == "max_spots_per_box"


def test_bets_behind_need_a_box_holder_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bet(1, 10, spot=1).no_more_bets()
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0, spot=1).close()
    f = only(log.replay())
    assert where(f) == ("BET_SPOTS", 1, 1, None) and f.rule == "box_holder_decides"


def test_past_posting_after_no_more_bets_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10}).bet(1, 50)
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0).close()
    f = only(log.replay())
    assert where(f) == ("BET_AFTER_NO_MORE_BETS", 1, 1, None)


def test_no_more_bets_at_the_first_card_004() -> None:
    """004: «Le giocate terminano nel momento in cui il Dealer ... sfila la prima carta»."""
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bet(1, 10).card("TS", 1).bet(1, 0, spot=0)
    r.card("9H").card("7D", 1).dealer("8C").settle(1, 0).close()
    assert codes(log.replay())[0] == "BET_AFTER_NO_MORE_BETS"


def test_late_bet_is_settled_as_placed_000() -> None:
    """rules.md: a late bet is its own finding; the payout follows the stake as it stands."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="9H").bet(1, 50).dealer("8C").settle(1, 50).close()
    assert codes(log.replay()) == ["BET_AFTER_NO_MORE_BETS"]


# ---------------------------------------------------------------- the deal


def test_no_hole_card_deal_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 3: 10})
    r.deal({1: "TS 7D", 3: "9S 9C"}, dealer="9H").dealer("8C").settle(3, 10).settle(1, 0).close()
    clean(log.replay())


def test_dealer_hole_card_is_a_deal_order_breach_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.card("TS", 1).card("9H").card("8C").card("7D", 1).settle(1, 0).close()
    f = only(log.replay())
    assert where(f) == ("DEAL_ORDER", 1, None, None)


def test_boxes_in_order_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 3: 10})
    r.card("9S", 3).card("TS", 1).card("9H").card("7D", 1).card("9C", 3)
    r.dealer("8C").settle(3, 10).settle(1, 0).close()
    assert [where(f) for f in log.replay().findings] == [("DEAL_ORDER", 1, 3, 0)]


def test_card_to_a_box_with_no_stake_in_the_deal_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.card("TS", 1).card("4S", 2).card("9H").card("7D", 1).dealer("8C").settle(1, 0).close()
    assert [where(f) for f in log.replay().findings] == [("DEAL_ORDER", 1, 2, 0)]


def test_face_down_two_each_banker_last_002() -> None:
    log = ShoeLog("ventuno-family").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 8D", 2: "9S 6D"}, dealer="TH 7C").hit(2, "KC").settle(2, -10)
    r.settle(1, 10).close()
    clean(log.replay())


def test_face_up_initial_card_at_home_002() -> None:
    log = ShoeLog("ventuno-family").start()
    r = log.round(1).bets({1: 10})
    r.card("TS", 1, face_up=True).card("TH", face_up=False)
    r.card("8D", 1, face_up=False).card("7C", face_up=False).settle(1, 10).close()
    assert [where(f) for f in log.replay().findings] == [("DEAL_ORDER", 1, 1, 0)]


def test_banker_not_last_in_the_pass_002() -> None:
    log = ShoeLog("ventuno-family").start()
    r = log.round(1).bets({1: 10})
    r.card("TH", face_up=False).card("TS", 1, face_up=False)
    r.card("8D", 1, face_up=False).card("7C", face_up=False).settle(1, 10).close()
    assert codes(log.replay()) == ["DEAL_ORDER"]


# ---------------------------------------------------------------- turn and hits


def test_card_to_a_box_out_of_turn_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 6D", 2: "9S 7C"}, dealer="9H").hit(2, "2C").hit(1, "3C")
    r.dealer("8C").settle(2, 10).settle(1, 10).close()
    assert [where(f) for f in log.replay().findings] == [("DEAL_OUT_OF_TURN", 1, 1, 0)]


def test_card_to_a_hand_that_does_not_exist_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 6D"}, dealer="9H").hit(1, "3C", hand=1).dealer("8C").settle(1, -10).close()
    assert [where(f) for f in log.replay().findings] == [("DEAL_OUT_OF_TURN", 1, 1, 1)]


def test_hit_on_blackjack_004() -> None:
    """004: the blackjack fixes the ace at 11: «non è consentito richiedere ... altre carte»."""
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS KD"}, dealer="9H").hit(1, "5C").dealer("8C").settle(1, 15).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_HIT_ON_BLACKJACK", 1, 1, 0)


def test_hit_after_bust_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 6D"}, dealer="9H").hit(1, "8C").settle(1, -10).hit(1, "2C")
    r.dealer("8D").close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_HIT_AFTER_BUST", 1, 1, 0)]


def test_stand_on_21_004() -> None:
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 6D"}, dealer="9H").hit(1, "5C", "AC").settle(1, -10).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_HIT_ON_21", 1, 1, 0)]


def test_hit_on_21_is_free_without_the_rule_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 6D"}, dealer="9H").hit(1, "5C", "AC").settle(1, -10).close()
    clean(log.replay())


def test_mandatory_hit_at_11_or_less_004() -> None:
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "5S 6D"}, dealer="9H").stand(1).dealer("8C").settle(1, -10).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_MANDATORY_HIT", 1, 1, 0) and f.rule == "mandatory_hit_max"


def test_mandatory_hit_reads_the_best_total_004() -> None:
    """004: «il punteggio più favorevole»: A,5 is 16, no hit required."""
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS 5D"}, dealer="9H").stand(1).dealer("8C").settle(1, -10).close()
    clean(log.replay())


def test_mandatory_hit_implied_by_the_next_box_004() -> None:
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "4S 6D", 2: "TS 8C"}, dealer="9H").hit(2, "2C").dealer("8C")
    r.settle(2, 10).settle(1, -10).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_MANDATORY_HIT", 1, 1, 0)]


def test_double_ends_the_hand_even_at_11_or_less_004() -> None:
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "3S 6D"}, dealer="9H").double(1, "2C").dealer("8C").settle(1, -20).close()
    clean(log.replay())


def test_no_mandatory_hit_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "5S 6D"}, dealer="9H").stand(1).dealer("8C").settle(1, -10).close()
    clean(log.replay())


# ---------------------------------------------------------------- doubles


def test_double_on_9_10_11_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "5S 5D"}, dealer="9H").double(1, "TC").dealer("8C").settle(1, 20).close()
    clean(log.replay())


def test_double_soft_ace_counts_either_way_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS 8D"}, dealer="9H").double(1, "2C").dealer("8C").settle(1, 20).close()
    clean(log.replay())


def test_illegal_double_on_12_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "6S 6D"}, dealer="9H").double(1, "8C").dealer("8D").settle(1, 40 - 20).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_ILLEGAL_DOUBLE", 1, 1, 0) and f.rule == "double_totals"


def test_double_any_two_cards_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "6S 6D"}, dealer="9H").double(1, "8C").dealer("8D").settle(1, 20).close()
    clean(log.replay())


def test_no_double_at_home_002() -> None:
    log = ShoeLog("ventuno-family").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "5S 5D"}, dealer="TH 7C").double(1, "TC").settle(1, 20).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_ILLEGAL_DOUBLE", 1, 1, 0)]


def test_double_extra_stake_at_most_the_stake_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "5S 5D"}, dealer="9H").double(1, "TC", amount=15).dealer("8C").settle(1, 25)
    r.close()
    f = only(log.replay())
    assert where(f) == ("PLAY_ILLEGAL_DOUBLE", 1, 1, 0) and f.rule == "double_max_ratio"


def test_double_for_less_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "5S 5D"}, dealer="9H").double(1, "TC", amount=5).dealer("8C").settle(1, 15)
    r.close()
    clean(log.replay())


def test_doubled_hand_gets_exactly_one_card_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "5S 4D"}, dealer="9H").double(1, "2C").hit(1, "5H").dealer("8C")
    r.settle(1, -20).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_DOUBLE_CARDS", 1, 1, 0)]


def test_double_after_split_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "5S 5D"}, dealer="9H").split(1).hit(1, "6C").double(1, "TH")
    r.hit(1, "9C", hand=1).dealer("8C").settle(1, 20).settle(1, -10, hand=1).close()
    clean(log.replay())


def test_objection_forbids_a_double_000() -> None:
    """000: «Se uno si oppone, anche se giocatore in piedi, il raddoppio non si può fare»."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bet(1, 10).bet(1, 10, spot=1).no_more_bets()
    r.deal({1: "5S 5D"}, dealer="9H").objection(1, spot=1).double(1, "TC").dealer("8C")
    r.settle(1, 20).settle(1, 20, spot=1).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_UNCONSENTED", 1, 1, 0) and f.rule == "split_double_unanimity"


def test_every_spot_takes_part_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bet(1, 10).bet(1, 10, spot=1).no_more_bets()
    r.deal({1: "5S 5D"}, dealer="9H").double(1, "TC", spots=[0]).dealer("8C")
    r.settle(1, 20).settle(1, 10, spot=1).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_UNCONSENTED", 1, 1, 0)]


def test_box_holder_binds_the_others_004() -> None:
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bet(1, 10).bet(1, 10, spot=1).no_more_bets()
    r.deal({1: "5S 5D"}, dealer="9H").objection(1, spot=1).double(1, "TC").dealer("8C")
    r.settle(1, 20, spot=1).settle(1, 20).close()
    clean(log.replay())


def _holder_double(profile: str, spots: list[int] | None) -> ShoeLog:
    """Box 1: the holder (spot 0) and a bettor behind (spot 1), 10 each; 5,5 doubled by
    ``spots``, T: 20 against 17, each spot wins its own stake (doubled if it took part)."""
    log = ShoeLog(profile).start()
    r = log.round(1).bet(1, 10).bet(1, 10, spot=1).no_more_bets()
    if REGISTRY.get(profile).rules.bets_close_before_start_burn:
        log.burn()  # 001: «il banchiere chiude il gioco, bruciando 5 carte»
    r.deal({1: "5S 5D"}, dealer="9H").double(1, "TC", spots=spots).dealer("8C")
    for spot in (1, 0):
        r.settle(1, 20 if spots is None or spot in spots else 10, spot=spot)
    return r.close()


@pytest.mark.parametrize("profile", ["it-casino-5d", "it-casino-6d-mandatory", "it-casino-6d"])
def test_every_staked_spot_takes_part_in_the_double_v12(profile: str) -> None:
    """rules.md v1.2 (who decides): «every spot takes part in his double or split»; 004: the
    holders «vincolano il gioco di coloro che puntano nei due cerchietti»."""
    clean(_holder_double(profile, [0, 1]).replay())
    clean(_holder_double(profile, None).replay())


@pytest.mark.parametrize("profile", ["it-casino-5d", "it-casino-6d-mandatory", "it-casino-6d"])
def test_double_leaving_a_staked_spot_out_is_unconsented_v12(profile: str) -> None:
    """rules.md v1.2, PLAY_UNCONSENTED: «leaves out a staked spot of the box (its spots omits
    one) where every spot must take part (all three casino profiles)»; the spot left out keeps
    its own stake and result (event-log.md, "Hand"), so the settlements raise nothing more."""
    f = only(_holder_double(profile, [0]).replay())
    assert where(f) == ("PLAY_UNCONSENTED", 1, 1, 0)
    assert f.rule == "split_double_every_spot"
    assert "spot(s) [1] did not take part" in f.message


def test_split_leaving_a_staked_spot_out_is_unconsented_004() -> None:
    """rules.md v1.2: the holder binds the others in a split as in a double (004)."""
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bet(1, 10).bet(1, 20, spot=1).no_more_bets()
    r.deal({1: "8S 8D"}, dealer="9H").split(1, spots=[1]).hit(1, "TC").hit(1, "TD", hand=1)
    r.dealer("8C").settle(1, 20, hand=1, spot=1).settle(1, 10).settle(1, 20, spot=1).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_UNCONSENTED", 1, 1, 0) and f.rule == "split_double_every_spot"


def test_objection_has_no_effect_where_the_holder_binds_001() -> None:
    """001/004: objections do not count; a spots list naming every staked spot is legal."""
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bet(1, 10).bet(1, 10, spot=1).no_more_bets()
    log.burn()  # 001: «il banchiere chiude il gioco, bruciando 5 carte»
    r.deal({1: "5S 5D"}, dealer="9H").objection(1, spot=1).double(1, "TC", spots=[1, 0])
    r.dealer("8C").settle(1, 20, spot=1).settle(1, 20).close()
    clean(log.replay())


# ---------------------------------------------------------------- splits


def test_split_equal_ten_values_000() -> None:
    """000: «Figure e Dieci si considerano carte uguali»."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "KS QD"}, dealer="9H").split(1).hit(1, "9C").hit(1, "8C", hand=1)
    r.dealer("8D").settle(1, 10).settle(1, 10, hand=1).close()
    clean(log.replay())


def test_split_unequal_cards_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "KS 9D"}, dealer="9H").split(1).hit(1, "9C").hit(1, "8C", hand=1)
    r.dealer("8D").settle(1, 10).settle(1, 0, hand=1).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_ILLEGAL_SPLIT", 1, 1, 0)]


def test_no_resplit_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "8S 8D"}, dealer="9H").split(1).hit(1, "8C").split(1).hit(1, "TC")
    r.hit(1, "TH", hand=1).hit(1, "TD", hand=2).dealer("8D")
    r.settle(1, 10).settle(1, 10, hand=1).settle(1, 10, hand=2).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_ILLEGAL_SPLIT", 1, 1, 0)]


def test_no_split_at_home_002() -> None:
    log = ShoeLog("ventuno-family").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "8S 8D"}, dealer="TH 7C").split(1).hit(1, "TC").hit(1, "TD", hand=1)
    r.settle(1, 10).settle(1, 10, hand=1).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_ILLEGAL_SPLIT", 1, 1, 0)]


def test_split_aces_get_one_card_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS AD"}, dealer="9H").split(1).hit(1, "9C").hit(1, "KC", hand=1)
    r.dealer("8D").settle(1, 10).settle(1, 10, hand=1).close()
    clean(log.replay())


def test_split_aces_second_card_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS AD"}, dealer="9H").split(1).hit(1, "2C", "5C").hit(1, "KC", hand=1)
    r.dealer("8D").settle(1, 10).settle(1, 10, hand=1).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_SPLIT_ACES_CARDS", 1, 1, 0)]


def test_no_double_on_split_aces_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS AD"}, dealer="9H").split(1).hit(1, "9C").double(1, hand=1).hit(1, "KC", hand=1)
    r.dealer("8D").settle(1, 10).settle(1, 20, hand=1).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_ILLEGAL_DOUBLE", 1, 1, 1)


def test_double_on_split_aces_is_illegal_double_alone_v12() -> None:
    """rules.md v1.2: «A double on split aces is PLAY_ILLEGAL_DOUBLE, and the one card it takes
    is not also PLAY_SPLIT_ACES_CARDS» (nor out of turn): here after the ace's own card (A,2),
    so the double's card is the hand's third; settled as it happened, 2 on a doubled 10."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS AD"}, dealer="9H").split(1).hit(1, "9C").hit(1, "2C", hand=1)
    r.double(1, "7C", hand=1).dealer("8D").settle(1, 10).settle(1, 20, hand=1).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_ILLEGAL_DOUBLE", 1, 1, 1) and f.rule == "double_on_split_aces"


def test_double_on_split_aces_without_its_card_is_illegal_double_alone_v12() -> None:
    """The split ace had its one card; the illegal double draws none: still one finding."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS AD"}, dealer="9H").split(1).hit(1, "9C").double(1).hit(1, "KC", hand=1)
    r.dealer("8D").settle(1, 20).settle(1, 10, hand=1).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_ILLEGAL_DOUBLE", 1, 1, 0)]


def test_a_second_card_after_a_double_on_split_aces_is_its_own_breach_000() -> None:
    """One card more than the double's one is PLAY_SPLIT_ACES_CARDS (first in precedence)."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS AD"}, dealer="9H").split(1).hit(1, "9C").hit(1, "2C", hand=1)
    r.double(1, "2H", hand=1).hit(1, "5C", hand=1).dealer("8D")
    r.settle(1, 10).settle(1, 20, hand=1).close()
    assert [where(f) for f in log.replay().findings] == [
        ("PLAY_ILLEGAL_DOUBLE", 1, 1, 1),
        ("PLAY_SPLIT_ACES_CARDS", 1, 1, 1),
    ]


def test_split_with_some_spots_000_unanimity() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bet(1, 10).bet(1, 20, spot=1).no_more_bets()
    r.deal({1: "8S 8D"}, dealer="9H").objection(1, spot=1, action="split").split(1)
    r.hit(1, "TC").hit(1, "TD", hand=1).dealer("8C")
    r.settle(1, 10).settle(1, 20, spot=1).settle(1, 10, hand=1).settle(1, 20, hand=1, spot=1)
    r.close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_UNCONSENTED", 1, 1, 0)]


def test_split_spots_listed_keep_their_stake_001() -> None:
    """event-log.md: a spot not listed keeps its stake on h and has no wager on the new hand.

    Leaving it out is PLAY_UNCONSENTED (rules.md v1.2); the wagers are still as the split made
    them, so the settlements that follow them raise nothing.
    """
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bet(1, 10).bet(1, 20, spot=1).no_more_bets()
    if log.events[-1]["type"] != "burn":
        log.burn()
    r.deal({1: "8S 8D"}, dealer="9H").split(1, spots=[0]).hit(1, "TC").hit(1, "TD", hand=1)
    r.dealer("8C").settle(1, 10, hand=1).settle(1, 20, spot=1).settle(1, 10).close()
    replay = log.replay()
    assert codes(replay) == ["PLAY_UNCONSENTED"]
    assert [(w.hand, w.spot) for w in replay.rounds[0].wagers] == [(0, 0), (0, 1), (1, 0)]


# ---------------------------------------------------------------- side bets


def test_insurance_against_an_ace_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="AH").insurance(1, 5).dealer("KC")
    r.settle(1, 10, kind="insurance").settle(1, -10).close()
    clean(log.replay())


def test_insurance_lost_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="AH").insurance(1, 5).dealer("7C")
    r.settle(1, -5, kind="insurance").settle(1, 10).close()
    clean(log.replay())


def test_insurance_over_half_the_stake_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="AH").insurance(1, 6).dealer("7C")
    r.settle(1, -6, kind="insurance").settle(1, 10).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_ILLEGAL_INSURANCE", 1, 1, 0) and f.rule == "insurance_max_ratio"


def test_insurance_needs_a_dealer_ace_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="KH").insurance(1, 5).dealer("7C")
    r.settle(1, -5, kind="insurance").settle(1, 10).close()
    assert codes(log.replay()) == ["PLAY_ILLEGAL_INSURANCE"]


def test_insurance_after_a_third_card_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 9D", 2: "5S 6D"}, dealer="AH").hit(2, "9C").insurance(1, 5).dealer("7C")
    r.settle(1, -5, kind="insurance").settle(1, 10).settle(2, 10).close()
    assert codes(log.replay()) == ["PLAY_ILLEGAL_INSURANCE"]


def test_no_insurance_offered_004() -> None:
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="AH").insurance(1, 5).dealer("7C")
    r.settle(1, 10).settle(1, -5, kind="insurance").close()
    assert codes(log.replay()) == ["PLAY_ILLEGAL_INSURANCE"]


def test_even_money_001() -> None:
    """001: «potrà richiedere l'immediato pagamento ... effettuato alla pari»."""
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 8C"}, dealer="AH").even_money(1).settle(1, 10)
    r.dealer("6C").settle(2, 10).close()
    clean(log.replay())


def test_even_money_without_blackjack_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8C"}, dealer="AH").even_money(1).dealer("6C").settle(1, 10).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_ILLEGAL_EVEN_MONEY", 1, 1, 0)


def test_no_even_money_offered_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS KD"}, dealer="AH").even_money(1).settle(1, 10).dealer("6C").close()
    assert codes(log.replay()) == ["PLAY_ILLEGAL_EVEN_MONEY"]


def test_surrender_not_allowed_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 6D"}, dealer="TH").action(1, "surrender").settle(1, -5).dealer("8C").close()
    f = only(log.replay())
    assert where(f) == ("PLAY_SURRENDER", 1, 1, 0)


# ---------------------------------------------------------------- exposed card


def test_exposed_card_refused_by_all_then_burned_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 6D", 2: "9S 8C"}, dealer="9H").exposed("5C")
    r.offer("5C", 1, False).offer("5C", 2, False).offer("5C", None, False)
    log.burn("5C", face_down=False)
    r.hit(1, "2C").dealer("8D").settle(2, 0).settle(1, 10).close()
    clean(log.replay())


def test_exposed_card_accepted_by_a_later_box_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 6D", 2: "9S 2C"}, dealer="9H").exposed("5C")
    r.offer("5C", 1, False).offer("5C", 2, True).card("5C", 2)
    r.stand(1).dealer("8D").settle(2, -10).settle(1, -10).close()
    clean(log.replay())


def test_exposed_card_burned_without_offers_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 6D"}, dealer="9H").exposed("5C")
    log.burn("5C", face_down=False)
    r.dealer("8D").settle(1, -10).close()
    f = only(log.replay())
    assert (str(f.code), f.round, f.rule) == ("PLAY_EXPOSED_CARD", 1, "exposed_card_procedure")


def test_exposed_card_offered_out_of_order_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 6D", 2: "9S 8C"}, dealer="9H").exposed("5C")
    r.offer("5C", 2, False).offer("5C", 1, False).offer("5C", None, False)
    log.burn("5C", face_down=False)
    r.dealer("8D").settle(2, 0).settle(1, -10).close()
    assert codes(log.replay()) == ["PLAY_EXPOSED_CARD"]


def test_burn_mid_shoe_outside_the_procedure_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 6D"}, dealer="9H").dealer("8D").settle(1, -10).close()
    log.burn("4C")
    assert [where(f) for f in log.replay().findings] == [("PLAY_EXPOSED_CARD", None, None, None)]


# ---------------------------------------------------------------- the dealer


def test_dealer_stands_on_soft_17_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="AH").dealer("6C").settle(1, 10).close()
    clean(log.replay())


def test_dealer_drew_on_soft_17_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="AH").dealer("6C", "2C").settle(1, -10).close()
    f = only(log.replay())
    assert where(f) == ("DEALER_DREW_ON_STAND", 1, None, None)
    assert f.rule == "dealer_stands_on_soft_17"


def test_dealer_draws_to_16_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="TH").dealer("6C").settle(1, 10).close()
    f = only(log.replay())
    assert where(f) == ("DEALER_STOOD_ON_DRAW", 1, None, None)


def test_dealer_error_does_not_cascade_into_payouts_000() -> None:
    """rules.md: settlements follow what happened; the dealer's extra card is its own finding."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="TH").dealer("7C", "5C").settle(1, 10).close()
    assert codes(log.replay()) == ["DEALER_DREW_ON_STAND"]


def test_dealer_may_stop_once_every_hand_is_decided_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 6D", 2: "AS KD"}, dealer="9H").hit(1, "9C").settle(1, -10)
    r.settle(2, 15).close()
    clean(log.replay())


def test_dealer_checks_for_blackjack_against_a_natural_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS KD"}, dealer="TH").settle(1, 15).close()
    assert codes(log.replay()) == ["DEALER_STOOD_ON_DRAW"]


def test_banker_plays_freely_002() -> None:
    log = ShoeLog("ventuno-family").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="TH 2C").settle(1, 10).close()
    clean(log.replay())


def test_first_offer_to_a_later_box_shows_the_earlier_stood_004() -> None:
    """Hit and stand are optional: an offer starting at box 2 shows box 1 stood."""
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 9D", 2: "9S 8C"}, dealer="9H").exposed("5C")
    r.offer("5C", 2, False).offer("5C", None, False)
    log.burn("5C", face_down=False)
    r.dealer("8D").settle(2, 0).settle(1, 10).close()
    clean(log.replay())
