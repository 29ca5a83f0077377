"""The hole card and the peek (games.md §3), one golden round per clause: one that obeys
it and one that breaks it. ``us-test-6d`` (tests/engine/profiles/) is the US game of
games.md §5: a hole card last in the second pass, a peek under an ace and a ten-value,
insurance and even money before it, late surrender, OBBO."""

from __future__ import annotations

from audit.engine import ShoeContext, replay_shoe
from audit.engine.result import ShoeReplay
from tests.engine.builders import REGISTRY, ShoeLog, clean, codes, only, where

US = "us-test-6d"


def _log() -> ShoeLog:
    return ShoeLog(US).start()


def test_hole_card_dealt_face_down_last_in_the_second_pass_games_3() -> None:
    """games.md §3 "The deal with a hole card": the US order, no peek under a 6."""
    log = _log()
    r = log.round(1).bets({1: 10, 2: 20}).deal({1: "TS 8C", 2: "9H 7D"}, dealer="6D KC")
    r.stand(1).hit(2, "5C").stand(2).reveal().dealer("9S")  # 6,K,9 = 25: bust
    r.settle(1, 10).settle(2, 20).close()
    clean(log.replay())


def test_hole_card_face_up_is_deal_order_alone_games_3() -> None:
    """games.md §3: a hole card face up is DEAL_ORDER alone, judged as dealt; it counts as
    turned when dealt, so no peek is due and its reveal turns nothing."""
    log = _log()
    r = log.round(1).bets({1: 10}).card("TS", 1).card("6D").card("8C", 1).card("KC", face_up=True)
    r.stand(1).reveal().dealer("9S").settle(1, 10).close()
    assert [where(f) for f in log.replay().findings] == [("DEAL_ORDER", 1, None, None)]


def test_peek_under_an_ace_finding_none_play_goes_on_games_3() -> None:
    """games.md §3 "It finds none": insurance loses, play goes on, naturals may be paid."""
    log = _log()
    r = log.round(1).bets({1: 10, 2: 20}).deal({1: "TS 9C", 2: "AH KD"}, dealer="AS 7D")
    r.insurance(1, 5).peek(blackjack=False).stand(1).reveal()  # A,7 = soft 18: stands
    r.settle(1, 10).settle(2, 30).settle(1, -5, kind="insurance").close()
    clean(log.replay())


def test_peek_finding_a_blackjack_ends_play_games_3() -> None:
    """games.md §3 "It finds a blackjack": no decision, no card; insurance wins 2:1, a
    natural pushes, every other main wager loses its stake (the spec's T12 round)."""
    log = _log()
    r = log.round(1).bets({2: 25, 5: "10.01"})
    r.deal({2: "QH KH", 5: "AS KC"}, dealer="AH JD").insurance(2, "12.5").peek(blackjack=True)
    r.reveal().settle(2, 25, kind="insurance").settle(2, -25).settle(5, 0).close()
    clean(log.replay())


def test_the_spec_round_t12_box_5s_push_paid_is_wrong_outcome_games_2() -> None:
    """games.md §2's example (its 21+3 bet aside): box 5's natural pushes, paid 15.02."""
    log = _log()
    r = log.round(1).bets({2: 25, 5: "10.01"})
    r.deal({2: "QH KH", 5: "AS KC"}, dealer="AH JD").insurance(2, "12.5").peek(blackjack=True)
    r.reveal().settle(2, 25, kind="insurance").settle(2, -25).settle(5, "15.02").close()
    f = only(log.replay())
    assert (f.code, f.box, f.expected, f.actual) == ("PAY_WRONG_OUTCOME", 5, "0", "15.02")


def test_play_after_the_peek_found_a_blackjack_games_4() -> None:
    """games.md §4: PLAY_AFTER_DEALER_BLACKJACK once, on the first decision; the play that
    follows is not judged again (the split of T,6,2 is none); the wagers are settled by
    dealer_blackjack_takes, as against hands already played."""
    log = _log()
    r = log.round(1).bets({1: 10, 2: 10}).deal({1: "TS 6C", 2: "9H 8D"}, dealer="KS AD")
    r.peek(blackjack=True).hit(1, "2D").split(1).settle(1, -10).settle(1, 0, hand=1)
    r.settle(2, -10).close()
    f = only(log.replay())
    assert (f.code, f.box, f.hand, f.rule) == ("PLAY_AFTER_DEALER_BLACKJACK", 1, 0, "peek_on_ten")


def test_a_card_to_a_box_after_the_blackjack_is_play_after_it_games_4() -> None:
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="AS KD").peek().card("5H", 1)
    r.settle(1, -10).close()
    assert codes(log.replay()) == ["PLAY_AFTER_DEALER_BLACKJACK"]


def test_the_cards_decide_not_what_the_dealer_announced_games_3() -> None:
    """games.md §2: ``blackjack`` is kept for the record; A,K under the peek is a blackjack."""
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="AS KD").peek(blackjack=False)
    r.hit(1, "2C").settle(1, -10).close()
    assert codes(log.replay()) == ["PLAY_AFTER_DEALER_BLACKJACK"]


def test_a_decision_before_the_due_peek_is_peek_missing_games_3() -> None:
    """games.md §3: a late peek is DEAL_PEEK_MISSING alone, whatever it finds."""
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="TD 7H")
    r.hit(1, "2C").peek(blackjack=False).stand(1).reveal().settle(1, 10).close()
    f = only(log.replay())
    assert (f.code, f.rule, f.events) == ("DEAL_PEEK_MISSING", "peek_on_ten", ("T07-13",))


def test_a_late_peek_finding_a_blackjack_ends_play_games_3() -> None:
    """games.md §3: the blackjack a late peek finds ends play; the double before it is
    settled as against hands already played (OBBO: the original stake, the double returned)."""
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "6S 5C"}, dealer="AD KH")
    r.double(1, "9C", amount=10).peek(blackjack=True).reveal().settle(1, -10).close()
    assert codes(log.replay()) == ["DEAL_PEEK_MISSING"]


def test_a_peek_that_never_comes_is_missing_games_3() -> None:
    log = _log()
    log.round(1).bets({1: 10}).deal({1: "AS KC"}, dealer="AD 7H").settle(1, 15).close()
    assert codes(log.replay()) == ["DEAL_PEEK_MISSING"]


def test_a_peek_under_a_seven_is_needless_games_4() -> None:
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 9C"}, dealer="7D KC").peek().stand(1).reveal()
    r.settle(1, 10).close()
    f = only(log.replay())
    assert (f.code, f.severity) == ("DEAL_PEEK_NEEDLESS", "minor")


def test_a_second_peek_is_needless_games_4() -> None:
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 9C"}, dealer="AD 7C").peek().peek().stand(1)
    r.reveal().settle(1, 10).close()
    assert codes(log.replay()) == ["DEAL_PEEK_NEEDLESS"]


def test_a_peek_in_a_game_without_a_hole_card_is_needless_000() -> None:
    """it-casino-6d deals no hole card: a peek has nothing to look at; a reveal turns
    nothing and is no finding (games.md §2)."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10}).deal({1: "TS 9C"}, dealer="AD").peek().stand(1).reveal()
    r.dealer("7C").settle(1, 10).close()
    assert codes(log.replay()) == ["DEAL_PEEK_NEEDLESS"]
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10}).deal({1: "TS 9C"}, dealer="AD").stand(1).reveal()
    r.dealer("7C").settle(1, 10).close()
    clean(log.replay())


def test_a_reveal_in_the_peeks_window_is_hole_card_shown_alone_games_3() -> None:
    """games.md §3: it takes the peek's place (not also DEAL_PEEK_MISSING); a peek after it
    is needless."""
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 9C"}, dealer="AD 7C").reveal().stand(1)
    r.settle(1, 10).close()
    f = only(log.replay())
    assert f.code == "DEAL_HOLE_CARD_SHOWN" and "box 1 hand 0 was still to be played" in f.message
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 9C"}, dealer="AD 7C").reveal().peek().stand(1)
    r.settle(1, 10).close()
    # the reveal is shown early by the stand after it, so its finding comes second
    assert codes(log.replay()) == ["DEAL_PEEK_NEEDLESS", "DEAL_HOLE_CARD_SHOWN"]


def test_a_reveal_while_a_later_box_is_to_play_is_hole_card_shown_games_4() -> None:
    log = _log()
    r = log.round(1).bets({1: 10, 2: 10}).deal({1: "TS 9C", 2: "8S 8D"}, dealer="6D KC")
    r.stand(1).reveal().stand(2).dealer("5S").settle(1, -10).settle(2, -10).close()
    assert codes(log.replay()) == ["DEAL_HOLE_CARD_SHOWN"]


def test_insurance_after_the_peek_is_illegal_games_4() -> None:
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 9C"}, dealer="AD 7C").peek().insurance(1, 5)
    r.stand(1).reveal().settle(1, 10).settle(1, -5, kind="insurance").close()
    f = only(log.replay())
    assert f.code == "PLAY_ILLEGAL_INSURANCE" and "after the peek" in f.message


def test_even_money_after_the_peek_is_illegal_games_4() -> None:
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "AS KC"}, dealer="AD 7C").peek().even_money(1)
    r.settle(1, 10).close()
    f = only(log.replay())
    assert f.code == "PLAY_ILLEGAL_EVEN_MONEY" and "after the peek" in f.message


def test_even_money_before_the_peek_stands_games_3() -> None:
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "AS KC"}, dealer="AD KD").even_money(1).peek()
    r.settle(1, 10).close()
    clean(log.replay())


def test_a_replay_names_the_peek_and_the_hole_card_in_its_steps() -> None:
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 9C"}, dealer="AD 7C").peek(blackjack=False)
    r.stand(1).reveal().settle(1, 10).close()
    replay: ShoeReplay = replay_shoe(log.parsed(), REGISTRY.get(US), ShoeContext(), trace=True)
    text = [s.description for rnd in replay.rounds for s in rnd.steps]
    assert "the dealer peeks under AD: finds no blackjack (announced: no)" in text
    assert "the dealer turns his hole card: AD,7C" in text


def test_a_missing_hole_card_is_deal_order_and_no_peek_is_due_games_3() -> None:
    """games.md §3: the dealer's second card after play is DEAL_ORDER alone; the round is
    judged as one without a hole card: no peek due, his second card and draws as v1."""
    log = _log()
    r = log.round(1).bets({1: 10}).card("TS", 1).card("AD").card("9C", 1).stand(1)
    r.dealer("7H").settle(1, 10).close()
    assert [where(f) for f in log.replay().findings] == [("DEAL_ORDER", 1, None, None)]


def _when_known(first: bool) -> ShoeLog:
    log = _log()
    r = log.round(1).bets({1: 10, 2: 10}).deal({1: "AS KC", 2: "TS 8D"}, dealer="AD 7H")
    if first:
        r.settle(1, 15)
    r.peek()
    if not first:
        r.settle(1, 15)
    r.stand(2).reveal().settle(2, 0).close()  # 18 v soft 18: push
    return log


def test_when_known_a_natural_is_paid_once_the_peek_rules_the_blackjack_out_games_1() -> None:
    """games.md §1 ``when_known``: at any moment once the dealer's blackjack is ruled out;
    a natural paid before the peek is PAY_TIMING alone (§3)."""
    from tests.engine.test_game_rules import variant

    known = variant(US, blackjack_paid="when_known")
    assert replay_shoe(_when_known(False).parsed(), known, ShoeContext()).findings == ()
    early = replay_shoe(_when_known(True).parsed(), known, ShoeContext()).findings
    assert [(f.code, f.rule) for f in early] == [("PAY_TIMING", "blackjack_paid")]


def test_insurance_is_settled_once_the_blackjack_is_known_games_4() -> None:
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 9C"}, dealer="AD 7C").insurance(1, 5)
    r.settle(1, -5, kind="insurance").peek().stand(1).reveal().settle(1, 10).close()
    f = only(log.replay())
    assert (f.code, f.rule) == ("PAY_TIMING", "insurance_pays")


def test_a_late_surrender_waits_for_the_blackjack_to_be_known_games_4() -> None:
    """Under a ten with a peek on aces only, the hole card decides: a surrender settled
    before it is turned is PAY_TIMING; after, it is on time."""
    from tests.engine.test_game_rules import variant

    aces_only = variant(US, peek_on_ten=False)
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="TD 7H").action(1, "surrender")
    r.settle(1, -5).reveal().close()
    early = replay_shoe(log.parsed(), aces_only, ShoeContext()).findings
    assert [(f.code, f.rule) for f in early] == [("PAY_TIMING", "surrender_kind")]
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="TD 7H").action(1, "surrender")
    r.reveal().settle(1, -5).close()
    assert replay_shoe(log.parsed(), aces_only, ShoeContext()).findings == ()


def test_a_double_on_a_natural_before_the_peek_is_both_games_4() -> None:
    """games.md §4: DEAL_PEEK_MISSING is the peek's, beside what the event that makes it
    late breaks."""
    log = _log()
    r = log.round(1).bets({1: 10}).deal({1: "AS KC"}, dealer="AD 7H")
    r.double(1, "2D", amount=10).peek().reveal().settle(1, 15).close()
    assert codes(log.replay())[:2] == ["DEAL_PEEK_MISSING", "PLAY_ILLEGAL_DOUBLE"]


def test_without_a_reveal_the_hole_card_is_turned_when_play_is_over_games_2() -> None:
    """games.md §2: ``reveal`` is optional; without a peek or a reveal the blackjack is
    known once the players' play is over, and insurance is settled from there."""
    from tests.engine.test_game_rules import variant

    no_peek = variant(US, peek_on_ace=False, peek_on_ten=False)

    def night(settle_first: bool) -> ShoeLog:
        log = _log()
        r = log.round(1).bets({1: 10}).deal({1: "TS 9C"}, dealer="AD 7H").insurance(1, 5)
        if settle_first:
            r.settle(1, -5, kind="insurance")
        r.stand(1)
        if not settle_first:
            r.settle(1, -5, kind="insurance")
        r.settle(1, 10).close()
        return log

    assert replay_shoe(night(False).parsed(), no_peek, ShoeContext()).findings == ()
    early = replay_shoe(night(True).parsed(), no_peek, ShoeContext()).findings
    assert [(f.code, f.rule) for f in early] == [("PAY_TIMING", "insurance_pays")]
