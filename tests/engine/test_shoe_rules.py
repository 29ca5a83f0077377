"""Shoe integrity and log completeness (rules.md: the shoe rows, "When things must happen").

Each rule has a compliant shoe (no findings) and a breaching one (exactly the code).
"""

from __future__ import annotations

from audit.engine import ShoeContext
from tests.engine.builders import ShoeLog, clean, codes, only, where


def plain_round(log: ShoeLog, n: int, box: int = 1) -> ShoeLog:
    """A quiet round: 10 on one box, T,7 v 9,8: push."""
    r = log.round(n).bets({box: 10})
    r.deal({box: "TS 7D"}, dealer="9H").dealer("8C").settle(box, 0)
    return r.close()


# ---------------------------------------------------------------- decks, shuffle, cut, burn


def test_legal_shoe_start_000() -> None:
    log = ShoeLog("it-casino-6d").start(positions=True)
    plain_round(log, 1)
    plain_round(log, 2)
    clean(log.replay())


def test_shoe_decks_must_match_profile_000() -> None:
    log = ShoeLog("it-casino-6d", decks=8).start()
    plain_round(log, 1)
    f = only(log.replay())
    assert where(f) == ("SHOE_DECKS", None, None, None)
    assert (f.expected, f.actual, f.rule) == ("6", "8", "decks")


def test_ventuno_takes_decks_from_shoe_open_002() -> None:
    log = ShoeLog("ventuno-family", decks=2).start()
    r = log.round(1).bets({1: 10, 2: 10})
    r.deal({1: "TS 8D", 2: "9S 9D"}, dealer="TH 7C").settle(1, 10).settle(2, 10).close()
    clean(log.replay())


def test_shuffle_required_before_first_round_000() -> None:
    log = ShoeLog("it-casino-6d").cut().cut_card(234).burn()
    plain_round(log, 1)
    plain_round(log, 2)
    f = only(log.replay())
    assert where(f) == ("SHOE_NO_SHUFFLE", None, None, None)
    assert f.rule == "shuffle_required"


def test_full_reshuffle_before_every_round_002() -> None:
    log = ShoeLog("ventuno-family").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="TH 7C").settle(1, 10).close()
    r = log.round(2).bets({1: 10})
    r.deal({1: "9S 9H"}, dealer="TD 7D").settle(1, 10).close()
    assert codes(log.replay()) == ["SHOE_NO_SHUFFLE"]
    assert log.replay().findings[0].round is None


def test_ventuno_reshuffled_second_round_is_legal_002() -> None:
    log = ShoeLog("ventuno-family").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="TH 7C").settle(1, 10).close()
    log.shuffle("riffle")
    r = log.round(2).bets({1: 10})
    r.deal({1: "9S 9H"}, dealer="TD 7D").settle(1, 10).close()
    clean(log.replay())


def test_cut_by_a_player_000() -> None:
    log = ShoeLog("it-casino-6d").shuffle().cut(by="dealer").cut_card(234).burn()
    plain_round(log, 1)
    f = only(log.replay())
    assert where(f) == ("SHOE_NO_CUT", None, None, None)
    assert f.rule == "cut_required"


def test_no_cut_needed_at_home_002() -> None:
    log = ShoeLog("ventuno-family").shuffle()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="TH 7C").settle(1, 10).close()
    clean(log.replay())


def test_burn_five_at_shoe_start_000() -> None:
    log = ShoeLog("it-casino-6d").start(burn=False).burn("7H KD 2C")
    plain_round(log, 1)
    f = only(log.replay())
    assert where(f) == ("SHOE_BURN_COUNT", None, None, None)
    assert (f.expected, f.actual) == ("5", "3")


def test_burn_unseen_by_count_001() -> None:
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bets({1: 10}, close=False).no_more_bets()
    log.burn(count=5)
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0).close()
    clean(log.replay())


def test_burn_after_bets_closes_the_game_001() -> None:
    """001: «A puntate effettuate, il banchiere chiude il gioco, bruciando 5 carte»."""
    log = ShoeLog("it-casino-5d").start()
    r = log.round(1).bet(1, 10)
    log.burn()
    r.bet(1, 20)
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0).close()
    f = only(log.replay())
    assert where(f) == ("BET_AFTER_NO_MORE_BETS", 1, 1, None)
    assert f.rule == "bets_close_before_start_burn"


def test_burn_before_betting_is_allowed_001() -> None:
    """rules.md: at shoe start the burn may come before or after round 1's betting."""
    log = ShoeLog("it-casino-5d").start().burn()
    r = log.round(1).bets({1: 10}, close=False).no_more_bets()
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0).close()
    clean(log.replay())


def test_inspection_first_shoe_of_the_day_001() -> None:
    log = ShoeLog("it-casino-5d").shuffle("wash").shuffle().cut().cut_card(182)
    plain_round(log, 1)
    f = only(log.replay())
    assert where(f) == ("SHOE_NO_INSPECTION", None, None, None)
    later = ShoeLog("it-casino-5d").shuffle().cut().cut_card(182)
    plain_round(later, 1)
    clean(later.replay(context=ShoeContext(first_shoe_of_gaming_day=False)))


def test_failed_inspection_then_dealt_001() -> None:
    log = ShoeLog("it-casino-5d").inspection(ok=False).shuffle("wash").shuffle().cut()
    log.cut_card(182)
    plain_round(log, 1)
    assert codes(log.replay()) == ["SHOE_NO_INSPECTION"]


def test_cut_card_depth_000() -> None:
    log = ShoeLog("it-casino-6d").start(cut_card=300)
    plain_round(log, 1)
    f = only(log.replay())
    assert where(f) == ("SHOE_CUT_CARD_DEPTH", None, None, None)
    assert (f.actual, f.rule) == ("12", "cut_card_min_behind")


def test_cut_card_generous_001() -> None:
    log = ShoeLog("it-casino-5d").start(cut_card=100)
    plain_round(log, 1)
    f = only(log.replay())
    assert (str(f.code), f.actual, f.rule) == (
        "SHOE_CUT_CARD_DEPTH",
        "160",
        "cut_card_max_behind",
    )


# ---------------------------------------------------------------- positions, order, counts


def test_position_gap_000() -> None:
    log = ShoeLog("it-casino-6d").start(positions=True)
    plain_round(log, 1)
    log.pos += 1  # one card leaves the shoe unrecorded
    plain_round(log, 2)
    f = only(log.replay())
    assert where(f) == ("SHOE_POSITION_GAP", 2, None, None)
    assert (f.expected, f.actual) == ("10", "11")


def test_position_repeat_000() -> None:
    log = ShoeLog("it-casino-6d").start(positions=True)
    plain_round(log, 1)
    log.pos -= 1
    plain_round(log, 2)
    assert codes(log.replay()) == ["SHOE_POSITION_GAP"]


def test_shuffle_order_is_followed_000() -> None:
    order = ["7H", "KD", "2C", "9S", "QH", "TS", "9H", "7D", "8C"]
    log = ShoeLog("it-casino-6d").shuffle("machine", order=order).cut().cut_card(234)
    log.with_pos = True
    log.burn()
    plain_round(log, 1)
    clean(log.replay())


def test_order_mismatch_000() -> None:
    order = ["7H", "KD", "2C", "9S", "QH", "TS", "9H", "7C", "8C"]
    log = ShoeLog("it-casino-6d").shuffle("machine", order=order).cut().cut_card(234).burn()
    plain_round(log, 1)
    f = only(log.replay())
    assert where(f) == ("SHOE_ORDER_MISMATCH", 1, None, None)
    assert (f.expected, f.actual) == ("7C", "7D")


def test_card_excess_one_deck_002() -> None:
    log = ShoeLog("ventuno-family", decks=1).start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="TS 7C").settle(1, 10).close()
    f = only(log.replay())
    assert where(f) == ("SHOE_CARD_EXCESS", 1, None, None)
    assert f.message == (
        "TS has left the shoe 2 times; a 1-deck shoe holds it once: a card was added"
    )


def test_reconciliation_at_close_000() -> None:
    log = ShoeLog("it-casino-6d").start(positions=True)
    plain_round(log, 1)
    log.close(remaining=312 - 9)
    clean(log.replay())
    bad = ShoeLog("it-casino-6d").start(positions=True)
    plain_round(bad, 1)
    bad.close(remaining=312 - 11)
    f = only(bad.replay())
    assert where(f) == ("SHOE_RECONCILIATION", None, None, None)
    assert (f.expected, f.actual) == ("312", "310")


def test_card_recorded_twice_is_a_gap_not_a_reconciliation_error_v12() -> None:
    """rules.md v1.2: with pos, the cards drawn are counted by the highest position reached, so
    a card recorded twice (round 2's first card repeats pos 9) is SHOE_POSITION_GAP and «is not
    counted again as a reconciliation error»: 12 out + 300 remaining = 312."""
    log = ShoeLog("it-casino-6d").start(positions=True)
    plain_round(log, 1)
    log.pos -= 1
    plain_round(log, 2)
    log.close(remaining=312 - 12)
    replay = log.replay()
    f = only(replay)
    assert where(f) == ("SHOE_POSITION_GAP", 2, None, None)
    assert (f.expected, f.actual) == ("10", "9")
    assert replay.cards_drawn == 12
    counted = ShoeLog("it-casino-6d").start(positions=True)
    plain_round(counted, 1)
    plain_round(counted, 2)
    counted.close(remaining=312 - 13)
    clean(counted.replay())


def test_unrecorded_card_is_a_gap_not_a_reconciliation_error_000() -> None:
    """rules.md: with pos, cards drawn are counted by the highest position reached."""
    log = ShoeLog("it-casino-6d").start(positions=True)
    plain_round(log, 1)
    log.pos += 1
    plain_round(log, 2)
    log.close(remaining=312 - 14)
    assert codes(log.replay()) == ["SHOE_POSITION_GAP"]


def test_a_late_card_still_left_the_shoe_v12() -> None:
    """rules.md v1.2: «a late card left the shoe and counts for the shoe's positions, card
    counts and reconciliation like any other»: one LOG_INCOMPLETE a round, no gap, no
    reconciliation error (pos 10 late, round 2 from pos 11; one more logged after the
    shoe's close, pos 15, is counted too: 15 out + 297 remaining = 312)."""
    log = ShoeLog("it-casino-6d").start(positions=True)
    plain_round(log, 1)
    log.late(1).hit(1, "5C")
    plain_round(log, 2)
    log.close(remaining=312 - 15)
    log.late(2).hit(1, "6C")  # logged after the shoe's close
    replay = log.replay()
    assert [where(f) for f in replay.findings] == [
        ("LOG_INCOMPLETE", 1, None, None),
        ("LOG_INCOMPLETE", 2, None, None),
    ]
    assert replay.cards_drawn == 15
    unlogged = ShoeLog("it-casino-6d").start(positions=True)
    plain_round(unlogged, 1)
    unlogged.pos += 1  # the same card, never logged: a gap (and still no reconciliation error)
    plain_round(unlogged, 2)
    unlogged.close(remaining=312 - 14)
    assert codes(unlogged.replay()) == ["SHOE_POSITION_GAP"]


def test_a_late_card_counts_toward_the_card_counts_002() -> None:
    """rules.md v1.2: the late card is one more TS out of a one-deck shoe (SHOE_CARD_EXCESS)."""
    log = ShoeLog("ventuno-family", decks=1).start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 8D"}, dealer="9S 7C").settle(1, 10).close()
    log.late(1).hit(1, "TS")
    assert [where(f) for f in log.replay().findings] == [
        ("LOG_INCOMPLETE", 1, None, None),
        ("SHOE_CARD_EXCESS", 1, None, None),
    ]


# ---------------------------------------------------------------- the cut card


def test_cut_card_round_is_the_last_001() -> None:
    log = ShoeLog("it-casino-5d").start(positions=True)
    r = log.round(1).bets({1: 10})
    r.cut_card_out().deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0).close()
    log.close(remaining=260 - 9, reason="cut_card")
    clean(log.replay())


def test_round_after_cut_card_001() -> None:
    # A cut card at position 8 (also too deep: SHOE_CUT_CARD_DEPTH) comes out with pos 9.
    log = ShoeLog("it-casino-5d").start(positions=True, cut_card=8)
    plain_round(log, 1)
    plain_round(log, 2)
    plain_round(log, 3)
    assert [where(f) for f in log.replay().findings] == [
        ("SHOE_CUT_CARD_DEPTH", None, None, None),
        ("SHOE_ROUND_AFTER_CUT_CARD", 2, None, None),
    ]


def test_round_after_explicit_cut_card_out_000() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10}).cut_card_out()
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0).close()
    plain_round(log, 2)
    assert codes(log.replay()) == ["SHOE_ROUND_AFTER_CUT_CARD"]


# ---------------------------------------------------------------- log completeness


def test_unknown_profile_is_not_replayed() -> None:
    log = ShoeLog("casino-xyz")
    log.ev("round_open", round=1)
    replay = log.replay(known=False)
    f = only(replay)
    assert (str(f.code), f.round) == ("LOG_UNKNOWN_PROFILE", None)
    assert replay.rounds == () and not replay.replayed


def test_unknown_type_is_kept_not_replayed() -> None:
    log = ShoeLog("it-casino-6d").start().unknown("chip_count", chips=5)
    plain_round(log, 1)
    f = only(log.replay())
    assert (str(f.code), f.events) == ("LOG_UNKNOWN_TYPE", ("T07-6",))


def test_round_left_open_when_next_begins() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.deal({1: "TS 7D"}, dealer="9H").dealer("8C").settle(1, 0)
    plain_round(log, 2)
    f = only(log.replay())
    assert where(f) == ("LOG_INCOMPLETE", 1, None, None)
    assert log.replay().rounds[0].status == "incomplete"


def test_round_open_at_end_of_data_is_not_a_finding() -> None:
    log = ShoeLog("it-casino-6d").start()
    log.round(1).bets({1: 10}).deal({1: "TS 7D"}, dealer="9H")
    replay = log.replay()
    clean(replay)
    assert replay.rounds[0].status == "open" and not replay.is_closed


def test_shoe_close_with_round_open_is_incomplete_and_unpaid() -> None:
    log = ShoeLog("it-casino-6d").start()
    log.round(1).bets({1: 10}).deal({1: "TS 7D"}, dealer="9H").dealer("8C")
    log.close()
    assert [where(f) for f in log.replay().findings] == [
        ("LOG_INCOMPLETE", 1, None, None),
        ("PAY_MISSING", 1, 1, 0),
    ]


def test_events_after_shoe_close() -> None:
    log = ShoeLog("it-casino-6d").start()
    plain_round(log, 1)
    log.close()
    plain_round(log, 2)
    assert codes(log.replay()) == ["LOG_INCOMPLETE"]


def test_event_for_a_finished_round() -> None:
    """A round event after its round is over is LOG_INCOMPLETE (a settlement is judged as a
    late settlement instead, rules.md v1.2: test_settle_rules)."""
    log = ShoeLog("it-casino-6d").start()
    plain_round(log, 1)
    plain_round(log, 2)
    log.ev("action", round=1, box=1, hand=0, action="stand")
    f = only(log.replay())
    assert where(f) == ("LOG_INCOMPLETE", 1, None, None)


def test_rounds_out_of_order() -> None:
    log = ShoeLog("it-casino-6d").start()
    plain_round(log, 2)
    plain_round(log, 1)
    assert [where(f) for f in log.replay().findings] == [("LOG_INCOMPLETE", 1, None, None)]


def test_round_with_stakes_and_no_cards() -> None:
    log = ShoeLog("it-casino-6d").start()
    log.round(1).bets({1: 10}).close()
    assert [where(f) for f in log.replay().findings] == [("LOG_INCOMPLETE", 1, None, None)]


def test_void_round_returns_stakes() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10, 2: 20})
    r.card("TS", 1).card("9H", 2).void().settle(1, 0).settle(2, 0).close()
    replay = log.replay()
    clean(replay)
    assert replay.rounds[0].status == "void"


def test_void_round_paid_is_wrong() -> None:
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10})
    r.card("TS", 1).void().settle(1, 10).close()
    assert [where(f) for f in log.replay().findings] == [("PAY_WRONG_OUTCOME", 1, 1, 0)]


def test_empty_shoe_never_crashes() -> None:
    from audit.engine import replay_shoe
    from tests.engine.builders import REGISTRY

    replay = replay_shoe([], REGISTRY.get("it-casino-6d"))
    assert replay.findings == () and replay.table is None


# --------------------------------------------------------------------------- stored prefix


def _prefix(log: ShoeLog) -> list[int] | None:
    """What ``run`` stores of the shoe for the shuffle's card-rank test (``prefix_ranks``)."""
    from audit.engine import audit_shoe
    from tests.engine.builders import REGISTRY

    return audit_shoe(
        "T07", "T07-20261128-01", log.parsed(), REGISTRY.get(log.profile)
    ).prefix_ranks


def _round_one(log: ShoeLog) -> None:
    r = log.round(1).bets({1: 10})
    r.deal({1: "8S 8C"}, dealer="6D").hit(1, "TD").dealer("TH").settle(1, -10).close()


def test_the_shoe_prefix_runs_to_the_cut_card_burns_included() -> None:
    """The sample of the ``card_ranks`` statistic (docs/decisions.md, "Card ranks"): every
    card out up to the cut card's position, the start burn's cards too; ranks A, 2, ...,
    9, ten-values."""
    log = ShoeLog("it-casino-6d").start(cut_card=7)  # burn 7H KD 2C 9S QH: positions 1-5
    _round_one(log)  # 8S (6), 6D (7), then 8C, TD, TH beyond the cut card
    assert _prefix(log) == [0, 1, 0, 0, 0, 1, 1, 1, 1, 2]


def test_without_a_cut_card_the_prefix_is_the_first_initial_deal() -> None:
    """No cut card: the cards out before round 1 and its initial deal, two cards to each
    box with a stake and two to the dealer (here the burn, 8S 6D 8C and the hit TD)."""
    log = ShoeLog("it-casino-6d")
    log.shuffle().cut().burn()
    _round_one(log)
    assert _prefix(log) == [0, 1, 0, 0, 0, 1, 1, 2, 1, 3]


def test_cards_burned_unseen_count_out_of_the_prefix_but_show_no_rank() -> None:
    log = ShoeLog("it-casino-6d").start(cut_card=4, burn=False)
    log.burn(count=3)  # positions 1-3, unseen
    _round_one(log)  # 8S is the 4th card out, the last of the prefix
    assert _prefix(log) == [0, 0, 0, 0, 0, 0, 0, 1, 0, 0]
    log = ShoeLog("it-casino-6d").start(cut_card=2, burn=False)
    log.burn(count=3)
    _round_one(log)
    assert _prefix(log) == []  # no card of the prefix was seen
