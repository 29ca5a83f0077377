"""Second-review cases: each is a place where the engine departed from rules.md.

Every test names the rule and cites the seed; compliant and breaching cases
come in pairs where the breach was the departure.
"""

from __future__ import annotations

from tests.engine.builders import ShoeLog, clean, codes, only, where

# ---------------------------------------------------------------- never crash


def test_decision_for_a_box_staked_after_the_first_card_never_crashes_000() -> None:
    """rules.md, BET_AFTER_NO_MORE_BETS: the late stake is its own finding; replay goes on."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 7D"}, dealer="9H").bet(2, 10).stand(2).dealer("8C")
    r.settle(1, 0).settle(2, -10).close()
    assert codes(log.replay())[0] == "BET_AFTER_NO_MORE_BETS"


# ---------------------------------------------------------------- insurance and even money


def test_insurance_after_the_dealer_second_card_000() -> None:
    """000: insurance is placed «prima che i giocatori abbiano ricevuto una terza carta»;
    rules.md: before any card is dealt after the initial deal (the dealer's too)."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 20})
    r.deal({1: "TS 9D"}, dealer="AH").stand(1).dealer("7C").insurance(1, 10)
    r.settle(1, 20).settle(1, -10, kind="insurance").close()
    f = only(log.replay())
    assert where(f) == ("PLAY_ILLEGAL_INSURANCE", 1, 1, 0)


def test_insurance_during_the_initial_deal_000() -> None:
    """000: insurance once the dealer's first card is an ace, before any third card: the
    players' second cards may still be coming (rules.md: «placed before any card is dealt
    after the initial deal»)."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 20, 2: 20})
    r.card("TS", 1).card("9S", 2).card("AH").insurance(1, 10).card("9D", 1).card("8D", 2)
    r.dealer("7C").settle(2, -20).settle(1, 20).settle(1, -10, kind="insurance").close()
    clean(log.replay())


def test_even_money_during_the_initial_deal_001() -> None:
    """001: «potrà richiedere l'immediato pagamento»: even money as soon as the player holds
    the blackjack against the dealer's ace, before the dealer's second card."""
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.card("AS", 1).card("9S", 2).card("AH").card("KD", 1).even_money(1).settle(1, 10)
    r.card("8D", 2).dealer("7C").settle(2, -10).close()
    clean(log.replay())


# ---------------------------------------------------------------- betting


def test_burn_before_round_1_betting_001() -> None:
    """rules.md: «At shoe start, the burn may come before or after round 1's betting»; a
    burn logged after round_open but before any stake does not close the betting (001)."""
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1)
    log.burn()
    r.bets({1: 10}, close=False).no_more_bets()
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0).close()
    clean(log.replay())


def test_burn_after_round_1_betting_closes_the_game_001() -> None:
    """001: «A puntate effettuate, il banchiere chiude il gioco, bruciando 5 carte»."""
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bet(1, 10)
    log.burn()
    r.bet(2, 10).deal({1: "TS 7D", 2: "9S 9C"}, dealer="9H").dealer("8C")
    r.settle(2, 10).settle(1, 0).close()
    f = only(log.replay())
    assert where(f) == ("BET_AFTER_NO_MORE_BETS", 1, 2, None)


# ---------------------------------------------------------------- shoe integrity


def test_reshuffle_restores_every_card_002() -> None:
    """002: a new deal «dopo aver effettuato una nuova mescolatura di tutte le carte (comprese
    quelle giocate)»: after its own reshuffle a round may deal the same cards again."""
    log = ShoeLog("ventuno-family", decks=1).start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 7D"}, dealer="9H 8C").settle(1, 0).close()
    log.shuffle()
    r = log.round(2).bets({1: 10})
    r.deal({1: "TS 7D"}, dealer="9H 8C").settle(1, 0).close()
    clean(log.replay())


def test_card_excess_within_one_deal_002() -> None:
    log = ShoeLog("ventuno-family", decks=1).start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 7D"}, dealer="9H TS").settle(1, -10).close()
    f = only(log.replay())
    assert where(f) == ("SHOE_CARD_EXCESS", 1, None, None)


# ---------------------------------------------------------------- PAY_ code choice


def test_three_card_hand_after_split_is_not_a_split_blackjack_000() -> None:
    """rules.md PAY_ choice: SPLIT_BLACKJACK_AS_NATURAL only for a *two-card* 21 after a
    split; T,A then a 5 is 16, and paying it 3:2 against 17 is a wrong outcome."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS TD"}, dealer="9H").split(1).hit(1, "9C").hit(1, "AC", "5D", hand=1)
    r.dealer("8C").settle(1, 10).settle(1, 15, hand=1).close()
    f = only(log.replay())
    assert where(f) == ("PAY_WRONG_OUTCOME", 1, 1, 1)


# ---------------------------------------------------------------- exactly one card


def test_doubled_hand_without_its_card_000() -> None:
    """000: on a double «si ha diritto a tirare una sola carta»; PLAY_DOUBLE_CARDS: a doubled
    hand receives other than exactly one card (none here: the dealer went on to box 2)."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 20, 2: 20})
    r.deal({1: "5S 6D", 2: "TS 8D"}, dealer="9H").double(1).hit(2, "2C").dealer("8C")
    r.settle(2, 20).settle(1, -40).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_DOUBLE_CARDS", 1, 1, 0)


def test_last_doubled_hand_without_its_card_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 20})
    r.deal({1: "5S 6D"}, dealer="9H").double(1).dealer("8C").settle(1, -40).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_DOUBLE_CARDS", 1, 1, 0)


def test_split_ace_without_its_card_000() -> None:
    """000: split aces «si potrà però tirare una sola carta per ognuno dei due giochi»."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS AD"}, dealer="9H").split(1).hit(1, "KC").dealer("8C")
    r.settle(1, 10).settle(1, -10, hand=1).close()
    f = only(log.replay())
    assert where(f) == ("PLAY_SPLIT_ACES_CARDS", 1, 1, 1)


def test_split_hands_served_out_of_order_is_one_finding_000() -> None:
    """rules.md "How many findings": one breach, one finding. Hand 1 served before hand 0
    is one card out of turn; hand 0 then gets the card it was owed."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "AS AD"}, dealer="9H").split(1).hit(1, "KC", hand=1).hit(1, "5C").dealer("8C")
    r.settle(1, 10, hand=1).settle(1, -10).close()
    f = only(log.replay())
    assert where(f) == ("DEAL_OUT_OF_TURN", 1, 1, 1)


def test_doubled_hand_served_late_is_one_finding_000() -> None:
    """The card to box 2 went past box 1's double; box 1 then got its one card: one breach."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 20, 2: 20})
    r.deal({1: "5S 6D", 2: "TS 7D"}, dealer="9H").double(1).hit(2, "2C").hit(1, "9C")
    r.dealer("8C").settle(2, 20).settle(1, 40).close()
    f = only(log.replay())
    assert where(f) == ("DEAL_OUT_OF_TURN", 1, 2, 0)
