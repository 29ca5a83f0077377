"""Golden rounds for the round's phases: the deal's end, late decisions, the final pass.

Each rule has a round that obeys it and one that breaks it, named after the
rule and citing rules.md / the seed. These are the engine v2 defects (issue 9):
a hole card after the second pass, a double or split after the hand's turn,
one early payment counted twice, and the verdicts the engine's records carry.
"""

from __future__ import annotations

from decimal import Decimal

from tests.engine.builders import ShoeLog, clean, codes, only, where

# ---------------------------------------------------------------- no dealer hole card


def test_no_hole_card_face_down_after_the_second_pass_000() -> None:
    """rules.md: the initial deal has «no dealer hole card»; DEAL_ORDER covers «face up/down».

    000: «una seconda carta scoperta a ognuno dei giocatori seduti ma non ... a se stesso».
    The hole card is one breach; play goes on as the cards show (box 1 hits and stands).
    """
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 2D"}, dealer="9H").card("8C", face_up=False)
    r.hit(1, "5C").stand(1).settle(1, 0).close()
    f = only(log.replay())
    assert where(f) == ("DEAL_ORDER", 1, None, None) and f.rule == "initial_deal"
    assert "face down" in f.message


def test_no_hole_card_face_up_when_play_goes_on_000() -> None:
    """A face-up dealer card before anyone played, then the boxes play: it was a hole card."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 2D", 2: "9S 8D"}, dealer="9H").card("8C")
    r.hit(1, "5C").stand(1).stand(2).settle(2, 0).settle(1, 0).close()
    assert [where(f) for f in log.replay().findings] == [("DEAL_ORDER", 1, None, None)]


def test_no_hole_card_means_no_false_mandatory_hit_004() -> None:
    """004: a double takes its one card (rules.md); a hole card must not close the boxes.

    Before the fix the hole card closed box 1 at 11 (false PLAY_MANDATORY_HIT) and its
    double's card came out of turn.
    """
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "6S 5D"}, dealer="9H").card("8C").double(1, "9C").settle(1, 20).close()
    assert codes(log.replay()) == ["DEAL_ORDER"]


def test_no_hole_card_is_a_deal_breach_under_001() -> None:
    """001: «una scoperta per sé» (one card to the dealer): DEAL_ORDER, not DEAL_OUT_OF_TURN."""
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 6D", 2: "9S 7D"}, dealer="8H").card("KC", face_up=False)
    r.hit(1, "2C").stand(1).hit(2, "3C").stand(2).settle(2, 10).settle(1, 0).close()
    assert codes(log.replay()) == ["DEAL_ORDER"]


def test_dealer_draws_right_after_the_deal_when_every_box_stood_000() -> None:
    """Hit and stand are optional (event-log.md): the dealer drawing first shows the boxes
    stood. Obeys the rule: no finding."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="9H").dealer("8C").settle(1, 10).close()
    clean(log.replay())


def test_dealer_first_draw_still_closes_the_boxes_004() -> None:
    """004: a box left at 11 when the dealer begins drawing broke the mandatory hit."""
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "6S 5D"}, dealer="9H").dealer("8C").settle(1, -10).close()
    assert [where(f) for f in log.replay().findings] == [("PLAY_MANDATORY_HIT", 1, 1, 0)]


# ---------------------------------------------------------------- late doubles and splits


def test_double_after_the_dealer_drew_is_out_of_turn_000() -> None:
    """rules.md: «a card goes to a box or hand that is not the one being played» is
    DEAL_OUT_OF_TURN. A box that stood, then doubles after seeing the dealer's draw, is one
    finding, priced with what the late stake was paid (+10 on the extra 10)."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "5S 4D"}, dealer="9H").stand(1).dealer("8C")
    r.double(1, "TC").settle(1, 20).close()
    f = only(log.replay())
    assert where(f) == ("DEAL_OUT_OF_TURN", 1, 1, 0)
    assert f.impact == Decimal(10) and f.actual == "TC"
    assert "doubled after its turn had passed" in f.message


def test_double_after_the_next_box_played_is_out_of_turn_000() -> None:
    """The turn passed when the next box played: box 1's double comes too late."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "5S 4D", 2: "TS 6D"}, dealer="9H").hit(2, "3C")
    r.double(1, "TC").stand(2).dealer("8S").settle(2, 10).settle(1, 20).close()
    f = only(log.replay())
    assert where(f) == ("DEAL_OUT_OF_TURN", 1, 1, 0) and f.impact == Decimal(10)


def test_double_in_turn_is_no_finding_000() -> None:
    """000: «raddoppiare la puntata quando la somma delle prime due carte è di 9, 10 o 11»."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "5S 4D", 2: "TS 6D"}, dealer="9H").double(1, "TC").hit(2, "3C")
    r.stand(2).dealer("8S").settle(2, 10).settle(1, 20).close()
    clean(log.replay())


def test_split_after_the_turn_passed_is_out_of_turn_000() -> None:
    """A split of a hand that stood: its hands' cards are out of turn, one finding, priced
    with what the new hand was paid."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "8S 8D", 2: "TS 7D"}, dealer="9H").stand(1).stand(2)
    r.split(1).hit(1, "TC").hit(1, "3C", hand=1).dealer("8C")
    r.settle(2, 0).settle(1, 10, hand=0).settle(1, -10, hand=1).close()
    f = only(log.replay())
    assert where(f) == ("DEAL_OUT_OF_TURN", 1, 1, 0) and f.impact == Decimal(-10)


# ---------------------------------------------------------------- the final pass


def test_early_blackjack_is_pay_timing_only_004() -> None:
    """rules.md: settlement order applies «once the dealer's hand is complete»; a wager
    settled early is its PAY_TIMING, not also PAY_ORDER. 004: blackjacks at settlement,
    then from the highest box to the lowest («procedendo da destra verso sinistra»)."""
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "AS KD", 2: "TS 8D"}, dealer="9H").settle(1, 15)
    r.stand(2).dealer("8C").settle(2, 10).close()
    f = only(log.replay())
    assert where(f) == ("PAY_TIMING", 1, 1, 0)
    assert (f.expected, f.actual, f.impact) == ("15", "15", Decimal(0))


def test_final_pass_out_of_order_004() -> None:
    """004: the final pass from the highest box to the lowest; one PAY_ORDER, no amounts."""
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 9D", 2: "TS 8D"}, dealer="9H").stand(1).stand(2).dealer("8C")
    r.settle(1, 10).settle(2, 10).close()
    f = only(log.replay())
    assert where(f) == ("PAY_ORDER", 1, None, None)
    assert (f.expected, f.actual, f.impact) == (None, None, None)
    assert "box 2 settled after box 1" in f.message


def test_final_pass_in_order_004() -> None:
    log = ShoeLog("it-casino-6d-mandatory").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 9D", 2: "TS 8D"}, dealer="9H").stand(1).stand(2).dealer("8C")
    r.settle(2, 10).settle(1, 10).close()
    clean(log.replay())


# ---------------------------------------------------------------- verdicts in the records


def test_blackjack_due_to_a_fraction_of_a_cent_is_ok_in_the_record_000() -> None:
    """3:2 on 25.25 is 37.875 (000: «una volta e mezzo la posta»), due 37.88 (rules.md v1.2:
    rounded to the cent half away from zero, and the record shows the rounded due); paid
    37.88 the engine accepts it, and its wager record says so, so no page can show a
    difference."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: "25.25"})
    r.deal({1: "AS KD"}, dealer="9H").dealer("8C").settle(1, "37.88").close()
    replay = log.replay()
    clean(replay)
    (w,) = replay.rounds[0].wagers
    assert w.verdict == "ok" and w.expected == Decimal("37.88")


def test_wrong_payout_verdict_is_its_code_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="9H").dealer("8C").settle(1, 20).close()
    replay = log.replay()
    (w,) = replay.rounds[0].wagers
    assert w.verdict == "PAY_WRONG_AMOUNT" and codes(replay) == ["PAY_WRONG_AMOUNT"]


def test_insurance_message_names_the_dealer_cards_000() -> None:
    """000: insurance pays 2:1 «se farà Blackjack»; the message carries the dealer's cards."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="AH").insurance(1, 5).stand(1).dealer("KC")
    r.settle(1, 5, kind="insurance").settle(1, -10).close()
    f = only(log.replay())
    assert f.code == "PAY_INSURANCE" and "dealer AH,KC" in f.message and "( v" not in f.message


def test_round_records_who_dealt_it_and_the_dealer_outcome() -> None:
    """The round's record: the dealer in charge when it opened, the dealer's hand, complete."""
    log = ShoeLog("it-casino-6d", dealer="D1").start()
    log.dealer_change("D2")
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 9D"}, dealer="9H").dealer("8C").settle(1, 10).close()
    rnd = log.replay().rounds[0]
    assert rnd.banker == "D2"
    assert rnd.dealer.cards == ("9H", "8C") and rnd.dealer.completed
    assert rnd.ranks_before_round is not None and sum(rnd.ranks_before_round) == 5
    assert rnd.ranks_before_dealer is not None and sum(rnd.ranks_before_dealer) == 8


# ---------------------------------------------------------------- a past-posted box


def test_a_past_posted_box_that_splits_has_no_turn_000() -> None:
    """000: «nessuna puntata può essere aggiunta ... dopo l'annuncio»; rules.md: the late
    stake is BET_AFTER_NO_MORE_BETS and is settled as placed, and a card to a hand that is
    not the one being played is DEAL_OUT_OF_TURN.

    A box staked after the deal began has no place in the turn order; when it splits, its
    new hand has none either (the fuzz tests found the split raising instead of replaying).
    """
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 7D"}, dealer="9H").bet(2, 10).card("8S", 2).card("8D", 2).split(2)
    r.card("3C", 2).card("4C", 2, hand=1)
    r.stand(1).dealer("8C").settle(1, 0).settle(2, 0).close()
    found = [where(f) for f in log.replay().findings]
    assert found[0] == ("BET_AFTER_NO_MORE_BETS", 1, 2, None)
    assert found[1:5] == [("DEAL_OUT_OF_TURN", 1, 2, h) for h in (0, 0, 0, 1)]
    assert ("PAY_MISSING", 1, 2, 1) in found  # the split hand's stake was never settled
