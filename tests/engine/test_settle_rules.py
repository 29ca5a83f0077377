"""Settlements (rules.md: the paying rows, "How many findings", the PAY_ code choice)."""

from __future__ import annotations

import pytest

from audit.engine import ShoeContext, ShoeReplay, replay_shoe
from tests.engine.builders import REGISTRY, ShoeLog, clean, codes, only, where

# ---------------------------------------------------------------- amounts and codes


def test_blackjack_pays_3_to_2_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 20})
    r.deal({1: "AS KD"}, dealer="9H").dealer("8C").settle(1, 30).close()
    clean(log.replay())


def test_blackjack_beats_dealer_21_in_three_cards_000() -> None:
    """000: «se invece il banco totalizza 21 punti con più di due carte paga ugualmente»."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 20})
    r.deal({1: "AS KD"}, dealer="6H").dealer("TC", "5C").settle(1, 30).close()
    clean(log.replay())


def test_blackjack_pushes_with_dealer_blackjack_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 20})
    r.deal({1: "AS KD"}, dealer="TH").dealer("AC").settle(1, 0).close()
    clean(log.replay())


def test_blackjack_paid_short_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 20})
    r.deal({1: "AS KD"}, dealer="9H").dealer("8C").settle(1, 20).close()
    f = only(log.replay())
    assert where(f) == ("PAY_BLACKJACK_SHORT", 1, 1, 0)
    assert (f.expected, f.actual, str(f.impact)) == ("30", "20", "-10")
    assert f.rule == "blackjack_pays"


def test_split_21_is_not_a_natural_000() -> None:
    """000: after a split «Eventuali Blackjack ... saranno pagati alla pari»."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS AD"}, dealer="9H").split(1).hit(1, "KC").hit(1, "5C", hand=1).dealer("8C")
    r.settle(1, 10).settle(1, -10, hand=1).close()
    clean(log.replay())


def test_split_21_paid_as_natural_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS AD"}, dealer="9H").split(1).hit(1, "KC").hit(1, "5C", hand=1).dealer("8C")
    r.settle(1, 15).settle(1, -10, hand=1).close()
    f = only(log.replay())
    assert where(f) == ("PAY_SPLIT_BLACKJACK_AS_NATURAL", 1, 1, 0)
    assert (f.expected, f.actual, str(f.impact)) == ("10", "15", "5")


def test_win_taken_is_wrong_outcome_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="9H").dealer("8C").settle(1, -10).close()
    f = only(log.replay())
    assert (str(f.code), f.expected, f.actual, str(f.impact)) == (
        "PAY_WRONG_OUTCOME",
        "10",
        "-10",
        "-20",
    )


def test_push_paid_is_wrong_outcome_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 10).close()
    assert codes(log.replay()) == ["PAY_WRONG_OUTCOME"]


def test_double_not_counted_is_wrong_amount_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "5S 5D"}, dealer="9H").double(1, "TC").dealer("8C").settle(1, 10).close()
    f = only(log.replay())
    assert (str(f.code), f.expected, f.actual) == ("PAY_WRONG_AMOUNT", "20", "10")


def test_dealer_blackjack_takes_doubles_and_splits_000() -> None:
    """rules.md house default: with no hole card the dealer's blackjack takes the whole stake."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "5S 5D", 2: "8S 8D"}, dealer="AH").double(1, "9C").split(2).hit(2, "TC")
    r.hit(2, "TD", hand=1).dealer("KC").settle(2, -10, hand=1).settle(2, -10).settle(1, -20)
    r.close()
    clean(log.replay())


def test_bets_behind_share_the_box_result_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bet(1, 10).bet(1, 30, spot=1, player="P-2").no_more_bets()
    r.deal({1: "TS 9D"}, dealer="9H").dealer("8C").settle(1, 10).settle(1, 30, spot=1).close()
    replay = log.replay()
    clean(replay)
    assert [w.player for w in replay.rounds[0].wagers] == [None, "P-2"]


def test_insurance_settled_wrongly_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="AH").insurance(1, 5).dealer("KC")
    r.settle(1, 5, kind="insurance").settle(1, -10).close()
    f = only(log.replay())
    assert where(f) == ("PAY_INSURANCE", 1, 1, 0)
    assert (f.expected, f.actual, f.rule) == ("10", "5", "insurance_pays")


def test_insurance_needs_the_dealer_second_card_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS KD"}, dealer="AH").insurance(1, 5).settle(1, -5, kind="insurance")
    r.settle(1, 15).close()
    assert codes(log.replay()) == ["DEALER_STOOD_ON_DRAW"]


# ---------------------------------------------------------------- money due is exact (v1.2)


def _blackjack(stake: str, paid: str) -> ShoeLog:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: stake})
    return r.deal({1: "AS KD"}, dealer="9H").dealer("8C").settle(1, paid).close()


def _house_rounding(log: ShoeLog) -> ShoeReplay:
    """The shoe replayed under a copy of its profile with ``payout_rounding = "house"``."""
    p = REGISTRY.get(log.profile)
    house = p.model_copy(update={"rules": p.rules.model_copy(update={"payout_rounding": "house"})})
    return replay_shoe(log.parsed(), house)


def test_due_rounded_to_the_cent_half_away_from_zero_v12() -> None:
    """rules.md v1.2, «Money due is exact»: 3:2 of 10.03 is 15.045, 15.05 is right; 3:2 of
    10.01 is 15.015, judged as 15.02."""
    clean(_blackjack("10.03", "15.05").replay())
    clean(_blackjack("10.01", "15.02").replay())


def test_due_rounded_the_other_way_is_short_v12() -> None:
    """15.04 for 15.045 due is a cent short: ``expected`` shows the rounded due."""
    f = only(_blackjack("10.03", "15.04").replay())
    assert where(f) == ("PAY_BLACKJACK_SHORT", 1, 1, 0)
    assert (f.expected, f.actual, str(f.impact)) == ("15.05", "15.04", "-0.01")
    f = only(_blackjack("10.01", "15.03").replay())
    assert (str(f.code), f.expected, f.actual, str(f.impact)) == (
        "PAY_WRONG_AMOUNT",
        "15.02",
        "15.03",
        "0.01",
    )


def test_house_rounding_pays_the_fraction_down_v12() -> None:
    """rules.md v1.2: ``payout_rounding = "house"``, «a payment rounds down, 15.01»;
    games.md: 15.02 where 15.01 is due is ``PAY_WRONG_AMOUNT`` (impact 0.01)."""
    clean(_house_rounding(_blackjack("10.01", "15.01")))
    f = only(_house_rounding(_blackjack("10.01", "15.02")))
    assert (str(f.code), f.expected, f.actual, str(f.impact)) == (
        "PAY_WRONG_AMOUNT",
        "15.01",
        "15.02",
        "0.01",
    )


@pytest.mark.parametrize("house", [False, True])
def test_a_take_rounds_up_in_size_v12(house: bool) -> None:
    """rules.md v1.2: a take rounds up in size under ``house``, and half away from zero
    otherwise: a surrender (judged as it happened) of 10.01 is -5.01 both ways."""

    def surrender(settled: str) -> ShoeReplay:
        log = ShoeLog("it-casino-6d").start()
        r = log.round(1).bets({1: "10.01"})
        r.deal({1: "TS 6D"}, dealer="TH").action(1, "surrender").settle(1, settled)
        log = r.dealer("8C").close()
        return _house_rounding(log) if house else log.replay()

    assert codes(surrender("-5.01")) == ["PLAY_SURRENDER"]
    bad = surrender("-5.00").findings[1]
    assert (str(bad.code), bad.expected, bad.actual) == ("PAY_WRONG_AMOUNT", "-5.01", "-5")


# ---------------------------------------------------------------- three sevens (001)


def test_three_sevens_prize_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "7S 7D"}, dealer="9H").hit(1, "7C").settle(1, 20, kind="bonus").dealer("8C")
    r.settle(1, 10).close()
    clean(log.replay())


def test_three_sevens_on_the_pre_double_stake_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "7S 7D"}, dealer="9H").double(1, "7C").dealer("8C")
    r.settle(1, 20).settle(1, 20, kind="bonus").close()
    clean(log.replay())


def test_three_sevens_on_a_split_hand_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "7S 7D"}, dealer="9H").split(1).hit(1, "7C", "7H").hit(1, "TC", hand=1)
    r.dealer("8C").settle(1, 0, hand=1).settle(1, 10).settle(1, 20, kind="bonus").close()
    clean(log.replay())


def test_three_sevens_prize_missing_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "7S 7D"}, dealer="9H").hit(1, "7C").dealer("8C").settle(1, 10).close()
    f = only(log.replay())
    assert where(f) == ("PAY_BONUS", 1, 1, 0)
    assert (f.expected, f.actual, str(f.impact)) == ("20", "0", "-20")


def test_three_sevens_prize_without_three_sevens_001() -> None:
    """rules.md v1.2: «A bonus settlement where no prize is due (no hand of exactly three
    sevens) is PAY_BONUS where the profile has the prize»."""
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "7S 6D"}, dealer="9H").hit(1, "8C").dealer("8C").settle(1, 10)
    r.settle(1, 20, kind="bonus").close()
    f = only(log.replay())
    assert (str(f.code), f.expected, f.actual) == ("PAY_BONUS", "0", "20")


def test_no_three_sevens_prize_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "7S 7D"}, dealer="9H").hit(1, "7C").dealer("8C").settle(1, 10).close()
    clean(log.replay())


def test_bonus_for_a_box_with_no_wager_is_an_unknown_wager_001() -> None:
    """rules.md v1.2: where the profile has the prize (001: «un premio stabilito dalla
    Direzione»), a bonus with no prize due on a staked hand is PAY_BONUS
    (test_three_sevens_prize_without_three_sevens_001); one naming a box that holds no
    wager is PAY_UNKNOWN_WAGER, and the prize due on box 1 is paid right."""
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "7S 7D"}, dealer="9H").hit(1, "7C").dealer("8C").settle(1, 10)
    r.settle(1, 20, kind="bonus").settle(3, 20, kind="bonus").close()
    f = only(log.replay())
    assert where(f) == ("PAY_UNKNOWN_WAGER", 1, 3, 0)


@pytest.mark.parametrize("cards", ["7S 7D", "7S 6D"])
def test_bonus_under_a_profile_without_the_prize_is_an_unknown_wager_000(cards: str) -> None:
    """rules.md v1.2: PAY_UNKNOWN_WAGER «for any bonus settlement under a profile without the
    prize» (000 has none), three sevens or not."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: cards}, dealer="9H").hit(1, "7C").dealer("8C").settle(1, 10)
    r.settle(1, 20, kind="bonus").close()
    f = only(log.replay())
    assert where(f) == ("PAY_UNKNOWN_WAGER", 1, 1, 0)
    assert (f.expected, f.actual, f.rule) == ("0", "20", None)


# ---------------------------------------------------------------- missing, duplicate, unknown


def test_wager_never_settled() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 9D", 2: "TS 8D"}, dealer="9H").dealer("8C").settle(2, 10).close()
    f = only(log.replay())
    assert where(f) == ("PAY_MISSING", 1, 1, 0)
    assert (f.expected, f.actual, str(f.impact)) == ("10", "0", "-10")


def test_wager_settled_twice() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="9H").dealer("8C").settle(1, 10).settle(1, 10).close()
    f = only(log.replay())
    assert where(f) == ("PAY_DUPLICATE", 1, 1, 0)
    assert (f.expected, f.actual, str(f.impact)) == ("10", "20", "10")


def test_settle_for_a_wager_that_does_not_exist() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="9H").dealer("8C").settle(1, 10).settle(5, 10).close()
    f = only(log.replay())
    assert where(f) == ("PAY_UNKNOWN_WAGER", 1, 5, 0)
    assert (f.expected, f.actual) == ("0", "10")


# ---------------------------------------------------------------- settled after the round (v1.2)


def _won_round(log: ShoeLog, close: bool = True) -> ShoeLog:
    """Round 1: 10 on box 1, T,9 against 9,8: due +10, and not settled in the round."""
    r = log.round(1).bets({1: 10}).deal({1: "TS 9D"}, dealer="9H").dealer("8C")
    return r.close() if close else log


def test_settled_after_round_close_is_timing_v12() -> None:
    """rules.md v1.2: «A settlement that comes after its round is over (after round_close ...)
    is late: PAY_TIMING when its amount is right»; not PAY_MISSING, not LOG_INCOMPLETE."""
    log = _won_round(ShoeLog("it-casino-6d").start())
    log.late(1).settle(1, 10)
    replay = log.replay()
    f = only(replay)
    assert where(f) == ("PAY_TIMING", 1, 1, 0)
    assert (f.expected, f.actual, str(f.impact), f.rule) == ("10", "10", "0", None)
    assert f.events == (log.events[-1]["id"],)
    assert [w.verdict for w in replay.rounds[0].wagers] == ["PAY_TIMING"]


def test_settled_after_round_close_wrongly_is_its_amount_code_v12() -> None:
    """rules.md v1.2: «its amount code otherwise» (a wager settled both wrongly and late is its
    PAY_ amount code only)."""
    log = _won_round(ShoeLog("it-casino-6d").start())
    log.late(1).settle(1, 5)
    f = only(log.replay())
    assert (str(f.code), f.expected, f.actual) == ("PAY_WRONG_AMOUNT", "10", "5")


def test_settled_after_the_next_round_open_is_timing_v12() -> None:
    """rules.md v1.2: the next round_open ends the round too (left unclosed: LOG_INCOMPLETE)."""
    log = _won_round(ShoeLog("it-casino-6d").start(), close=False)
    r2 = log.round(2).bets({2: 10})
    log.late(1).settle(1, 10)
    r2.deal({2: "TS 7D"}, dealer="9H").dealer("8C").settle(2, 0).close()
    assert [where(f) for f in log.replay().findings] == [
        ("LOG_INCOMPLETE", 1, None, None),
        ("PAY_TIMING", 1, 1, 0),
    ]


def test_settled_after_the_shoe_close_is_timing_v12() -> None:
    """rules.md v1.2: «or the shoe's shoe_close»: the settlement is PAY_TIMING alone (not also
    an event after the close, LOG_INCOMPLETE)."""
    log = _won_round(ShoeLog("it-casino-6d").start()).close()
    log.late(1).settle(1, 10)
    assert [where(f) for f in log.replay().findings] == [("PAY_TIMING", 1, 1, 0)]


def test_settled_in_the_round_and_again_after_it_is_duplicate_v12() -> None:
    """rules.md v1.2: «a wager settled in its round and again after it is PAY_DUPLICATE»."""
    log = ShoeLog("it-casino-6d").start()
    log.round(1).bets({1: 10}).deal({1: "TS 9D"}, dealer="9H").dealer("8C").settle(1, 10).close()
    log.late(1).settle(1, 10)
    f = only(log.replay())
    assert where(f) == ("PAY_DUPLICATE", 1, 1, 0)
    assert (f.expected, f.actual, str(f.impact)) == ("10", "20", "10")


def test_settled_in_its_round_is_on_time_v12() -> None:
    """The round that obeys: every wager settled before round_close."""
    log = ShoeLog("it-casino-6d").start()
    log.round(1).bets({1: 10}).deal({1: "TS 9D"}, dealer="9H").dealer("8C").settle(1, 10).close()
    clean(log.replay())


def test_late_events_other_than_settlements_are_one_log_incomplete_per_round_v12() -> None:
    """rules.md v1.2: «Any other round event after its round is over is LOG_INCOMPLETE, once
    per round»; the settlement among them is judged as above."""
    log = _won_round(ShoeLog("it-casino-6d").start())
    late = log.late(1).stand(1)
    first = log.events[-1]["id"]
    late.action(1, "hit").settle(1, 10).ev("void", reason="misdeal")
    assert [(where(f), f.events) for f in log.replay().findings] == [
        (("LOG_INCOMPLETE", 1, None, None), (first,)),
        (("PAY_TIMING", 1, 1, 0), (log.events[-2]["id"],)),
    ]


# ---------------------------------------------------------------- order and timing


def test_settlement_right_to_left_004() -> None:
    """004: «procedendo da destra verso sinistra, postazione per postazione»."""
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10, 2: 10, 3: 10})
    r.deal({1: "TS 9D", 2: "TS 8D", 3: "TS 7D"}, dealer="9H").dealer("8C")
    r.settle(3, 0).settle(2, 10).settle(1, 10).close()
    clean(log.replay())


def test_settlement_out_of_order_004() -> None:
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10, 2: 10, 3: 10})
    r.deal({1: "TS 9D", 2: "TS 8D", 3: "TS 7D"}, dealer="9H").dealer("8C")
    r.settle(1, 10).settle(2, 10).settle(3, 0).close()
    f = only(log.replay())
    assert (str(f.code), f.round, f.box, f.rule) == ("PAY_ORDER", 1, None, "settlement_order")


def test_any_order_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 9D", 2: "TS 8D"}, dealer="9H").dealer("8C").settle(1, 10).settle(2, 10)
    r.close()
    clean(log.replay())


def test_bust_collected_at_once_000() -> None:
    """000: «il croupier si impadronisce immediatamente della loro puntata»."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 6D", 2: "TS 8D"}, dealer="9H").hit(1, "9C").settle(1, -10)
    r.dealer("8C").settle(2, 10).close()
    clean(log.replay())


def test_bust_collected_late_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 6D", 2: "TS 8D"}, dealer="9H").hit(1, "9C").dealer("8C")
    r.settle(2, 10).settle(1, -10).close()
    f = only(log.replay())
    assert where(f) == ("PAY_TIMING", 1, 1, 0)


def test_wrong_and_late_is_the_amount_code_only_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 6D", 2: "TS 8D"}, dealer="9H").hit(1, "9C").dealer("8C")
    r.settle(2, 10).settle(1, -5).close()
    assert codes(log.replay()) == ["PAY_WRONG_AMOUNT"]


def test_blackjack_paid_on_the_spot_against_2_to_9_001() -> None:
    """001: «il Black Jack sarà pagato immediatamente se la carta esposta ... non è un 10»."""
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 8D"}, dealer="9H").settle(1, 15).stand(2).dealer("8C")
    r.settle(2, 10).close()
    clean(log.replay())


def test_blackjack_paid_late_against_2_to_9_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 8D"}, dealer="9H").dealer("8C").settle(2, 10).settle(1, 15)
    r.close()
    f = only(log.replay())
    assert (str(f.code), f.box, f.rule) == ("PAY_TIMING", 1, "blackjack_paid")


def test_blackjack_against_a_ten_after_the_dealer_second_card_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 6D"}, dealer="TH").dealer("5C").settle(1, 15).dealer("4C")
    r.settle(2, -10).close()
    clean(log.replay())


def test_blackjack_against_a_ten_paid_before_the_second_card_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 6D"}, dealer="TH").settle(1, 15).dealer("5C", "4C")
    r.settle(2, -10).close()
    assert codes(log.replay()) == ["PAY_TIMING"]


def test_blackjack_against_an_ace_at_settlement_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 9D"}, dealer="AH").dealer("5C", "TC", "2C")
    r.settle(2, 10).settle(1, 15).close()
    clean(log.replay())


def test_blackjack_at_settlement_paid_early_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 8D"}, dealer="9H").settle(1, 15).dealer("8C").settle(2, 10)
    r.close()
    assert [where(f) for f in log.replay().findings] == [("PAY_TIMING", 1, 1, 0)]


def test_even_money_paid_after_the_dealer_second_card_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS KD"}, dealer="AH").even_money(1).dealer("6C").settle(1, 10).close()
    assert codes(log.replay()) == ["PAY_TIMING"]


def test_blackjack_short_paid_even_money_without_asking_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS KD"}, dealer="AH").dealer("6C").settle(1, 10).close()
    assert codes(log.replay()) == ["PAY_BLACKJACK_SHORT"]


# ---------------------------------------------------------------- the home game (002)


def test_blackjack_paid_at_once_even_money_002() -> None:
    """002: «deve denunciarlo e viene pagato subito alla pari»."""
    log = ShoeLog("ventuno-family").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 6D"}, dealer="TH 7C").settle(1, 10).hit(2, "9C").settle(2, -10)
    r.close()
    clean(log.replay())


def test_blackjack_paid_after_the_next_player_002() -> None:
    log = ShoeLog("ventuno-family").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 6D"}, dealer="TH 7C").hit(2, "9C").settle(2, -10).settle(1, 10)
    r.close()
    assert [where(f) for f in log.replay().findings] == [("PAY_TIMING", 1, 1, 0)]


def test_banker_two_card_21_takes_all_but_two_card_21_002() -> None:
    log = ShoeLog("ventuno-family").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 9D"}, dealer="AH QC").settle(1, 0).settle(2, -10).close()
    clean(log.replay())


def test_banker_rotation_002() -> None:
    log = ShoeLog("ventuno-family", dealer="P-7").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="TH 7C").settle(1, 10).close()
    ctx = ShoeContext(banker="P-7", banker_rounds_before=9)
    replay = log.replay(context=ctx)
    clean(replay)
    assert (replay.banker, replay.banker_streak) == ("P-7", 10)
    replay = log.replay(context=replay.next_context())
    assert [where(f) for f in replay.findings] == [("DEALER_BANKER_ROTATION", 1, None, None)]
    assert replay.findings[0].rule == "banker_max_rounds"
    # once per stint: the 12th round of the same banker is not flagged again
    assert log.replay(context=replay.next_context()).findings == ()


def test_new_banker_resets_the_streak_002() -> None:
    log = ShoeLog("ventuno-family", dealer="P-8").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="TH 7C").settle(1, 10).close()
    replay = log.replay(context=ShoeContext(banker="P-7", banker_rounds_before=10))
    clean(replay)
    assert replay.banker_streak == 1
