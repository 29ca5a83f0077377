"""Five readings of games.md §3 the engine once took otherwise (the simulator's author
found them and dealt around them: docs/decisions.md, "What the simulator leaves undealt"),
one golden round that obeys each rule and one that breaks it.

``us-test-6d`` (tests/engine/profiles/) is the US game of games.md §5: a hole card, a
peek under an ace and a ten-value, late surrender against every up card, OBBO.
``uk-6d-enhc`` is the shipped British game: no hole card, no surrender, ``when_known``."""

from __future__ import annotations

from audit.engine import ShoeContext, replay_shoe
from audit.profiles.model import Profile
from tests.engine.builders import REGISTRY, RoundLog, ShoeLog, clean, codes, only
from tests.engine.test_game_rules import variant

US = "us-test-6d"


def _us() -> ShoeLog:
    return ShoeLog(US).start()


def _found(log: ShoeLog, profile: Profile) -> list[tuple[str, str | None, str | None, str | None]]:
    replay = replay_shoe(log.parsed(), profile, ShoeContext())
    return [(str(f.code), f.expected, f.actual, f.rule) for f in replay.findings]


# --------------------------------------- 1. a reveal after a turn that ended unwritten


def test_a_reveal_after_a_stand_left_unwritten_is_no_finding_games_2_3() -> None:
    """games.md §2: ``stand`` is optional, so a hand that hit to 18 and wrote no stand has
    ended its turn when the dealer turns his hole card: nothing acts after the reveal."""
    log = _us()
    r = log.round(1).bets({1: 10, 2: 10}).deal({1: "TS 6C", 2: "9H 9D"}, dealer="9S 8H")
    r.hit(1, "2C").reveal().settle(1, 10).settle(2, 10).close()
    clean(log.replay())


def test_a_reveal_after_a_split_hands_21_is_no_finding_games_3() -> None:
    """8,8 split: hand 0 hits to 21 (8,3,K) and hand 1 takes an ace (8,A: 19), neither with
    a decision written; the reveal after them shows no hand still to play."""
    log = _us()
    r = log.round(1).bets({1: 10}).deal({1: "8S 8C"}, dealer="9S 8H").split(1)
    r.hit(1, "3H", "KD").hit(1, "AD", hand=1).reveal().settle(1, 10).settle(1, 10, hand=1)
    r.close()
    clean(log.replay())


def test_a_hand_that_plays_after_the_reveal_is_hole_card_shown_games_3() -> None:
    """games.md §4 DEAL_HOLE_CARD_SHOWN: the hole card turned while box 2 was still to play;
    box 2's card after the reveal proves it (the reveal and that card are the evidence)."""
    log = _us()
    r = log.round(1).bets({1: 10, 2: 10}).deal({1: "TS 6C", 2: "9H 4D"}, dealer="9S 8H")
    r.hit(1, "2C").reveal().hit(2, "5C").settle(1, 10).settle(2, 10).close()
    f = only(log.replay())
    assert f.code == "DEAL_HOLE_CARD_SHOWN" and "box 2 hand 0 was still to be played" in f.message
    reveal = next(e["id"] for e in log.events if e["type"] == "reveal")
    card = next(e["id"] for e in log.events if e.get("card") == "5C")
    assert f.events == (reveal, card)


def test_a_decision_after_the_reveal_is_hole_card_shown_once_games_4() -> None:
    """A decision after the reveal shows it too; the round's later play raises it no more."""
    log = _us()
    r = log.round(1).bets({1: 10, 2: 10}).deal({1: "TS 6C", 2: "9H 4D"}, dealer="9S 8H")
    r.hit(1, "2C").reveal().stand(2).stand(2).settle(1, 10).settle(2, -10).close()
    assert codes(log.replay()) == ["DEAL_HOLE_CARD_SHOWN"]


def test_a_reveal_right_after_a_peek_that_found_a_blackjack_is_no_finding_games_4() -> None:
    """Play is over once the peek finds a blackjack: a hit after it is
    PLAY_AFTER_DEALER_BLACKJACK, not also DEAL_HOLE_CARD_SHOWN."""
    log = _us()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="AS KD").peek().reveal()
    r.hit(1, "2D").settle(1, -10).close()
    assert codes(log.replay()) == ["PLAY_AFTER_DEALER_BLACKJACK"]


# ------------------------------- 2. a 2-9 up card rules the blackjack out, hole card or not

UK = "uk-6d-enhc"


def _uk_natural(up: str, second: str) -> ShoeLog:
    """Box 1's natural paid 3:2 right after the deal, before the dealer's second card; box 2
    stands on 17 and pushes the dealer's 17."""
    log = ShoeLog(UK).start()
    r = log.round(1).bets({1: 10, 2: 10}).deal({1: "AS KC", 2: "TS 7D"}, dealer=up)
    r.settle(1, 15).stand(2).dealer(second).settle(2, 0).close()
    return log


def test_when_known_without_a_hole_card_a_2_to_9_up_card_rules_it_out_games_3() -> None:
    """games.md §3 "Known": ruled in or out at his up card when it is 2-9, so under
    ``when_known`` (uk-6d-enhc, no hole card) a natural may be paid at once against a 9."""
    clean(_uk_natural("9H", "8C").replay())


def test_when_known_without_a_hole_card_an_ace_up_waits_for_his_second_card_games_3() -> None:
    """Against an ace (or a ten) the blackjack is known at his second card: a natural paid
    before it is PAY_TIMING (rule blackjack_paid). A,6 is soft 17: he stands."""
    log = _uk_natural("AH", "6C")
    assert _found(log, REGISTRY.get(UK)) == [("PAY_TIMING", "15", "15", "blackjack_paid")]


# ------------------------------------ 3. early surrenders by any box, in any order


def _early_surrenders(dealer: str, first: int, then: int) -> RoundLog:
    """Three boxes; box ``first`` then box ``then`` surrender 16 before the peek; box 2
    holds 18."""
    r = _us().round(1).bets({1: 10, 2: 10, 3: 10})
    r.deal({1: "TS 6C", 2: "9H 9D", 3: "TH 6D"}, dealer=dealer)
    return r.action(first, "surrender").action(then, "surrender").peek()


def test_early_surrenders_by_any_box_in_any_order_stand_games_3() -> None:
    """games.md §3: an early surrender is no player decision, so a second one (box 3's, then
    box 1's: any order, house default) is early too and never makes the peek late nor ends
    box 2's turn; under ``surrender_kind = "early"`` both stand against the blackjack the
    peek finds (half the stake) and box 2's 18 loses its stake."""
    r = _early_surrenders("AD KH", 3, 1)
    log = r.reveal().settle(3, -5).settle(1, -5).settle(2, -10).close()
    assert _found(log, variant(US, surrender_kind="early")) == []


def test_early_surrenders_where_only_late_is_allowed_are_play_surrender_alone_games_3() -> None:
    """Where only ``late`` is allowed each early surrender is PLAY_SURRENDER alone (§3), no
    DEAL_PEEK_MISSING; box 2 plays on after the peek (18 v 17: wins)."""
    r = _early_surrenders("TD 7H", 3, 1)
    log = r.stand(2).reveal().settle(3, -5).settle(1, -5).settle(2, 10).close()
    assert _found(log, REGISTRY.get(US)) == [
        ("PLAY_SURRENDER", None, None, "surrender_kind"),
        ("PLAY_SURRENDER", None, None, "surrender_kind"),
    ]


def test_a_surrender_after_another_boxs_decision_is_not_early_games_3() -> None:
    """Box 1's stand before the peek is a player decision: the peek is late
    (DEAL_PEEK_MISSING alone), and box 2's surrender after it is a late one, in turn;
    against the blackjack the late peek finds it is forfeited (the whole stake)."""
    r = _us().round(1).bets({1: 10, 2: 10}).deal({1: "9H 9D", 2: "TS 6C"}, dealer="AD KH")
    r.stand(1).action(2, "surrender").peek().reveal().settle(2, -10).settle(1, -10)
    assert _found(r.close(), REGISTRY.get(US)) == [
        ("DEAL_PEEK_MISSING", "peek", "box 1 hand 0: stand", "peek_on_ace")
    ]


# ------------------------- 4. an illegal late surrender is forfeited to a dealer blackjack


def _uk_surrender(second: str, settled: int | str, at_once: bool = False) -> ShoeLog:
    """uk-6d-enhc allows no surrender; box 1 surrenders 16 against a ten all the same."""
    log = ShoeLog(UK).start()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="TD").action(1, "surrender")
    if at_once:
        r.settle(1, settled)
    r.dealer(second)
    if not at_once:
        r.settle(1, settled)
    r.close()
    return log


def test_an_illegal_surrender_is_forfeited_to_a_dealer_blackjack_games_3() -> None:
    """games.md §3: against a dealer blackjack a surrender not early, under a profile whose
    ``surrender_kind`` is ``late`` (the default), is forfeited, the whole stake, "legal or
    not": the breach is PLAY_SURRENDER alone (§4) when it is settled so."""
    assert _found(_uk_surrender("AH", -10), REGISTRY.get(UK)) == [
        ("PLAY_SURRENDER", None, None, "surrender_allowed")
    ]


def test_an_illegal_surrender_stood_against_a_dealer_blackjack_is_wrong_amount_games_4() -> None:
    """Half the stake taken where the whole was due: its own PAY_ finding, the v1 chooser's
    PAY_WRONG_AMOUNT (§4: "a wrong settlement of it is its own PAY_ finding")."""
    assert _found(_uk_surrender("AH", -5), REGISTRY.get(UK)) == [
        ("PLAY_SURRENDER", None, None, "surrender_allowed"),
        ("PAY_WRONG_AMOUNT", "-10", "-5", "surrender_kind"),
    ]


def test_an_illegal_surrender_settled_when_made_is_not_timed_games_3() -> None:
    """Where the profile allows no surrender it is settled as made (v1's reading, kept for
    the Italian profiles): half the stake at once, against a dealer who then draws no
    blackjack, is PLAY_SURRENDER alone."""
    assert _found(_uk_surrender("8H", -5, at_once=True), REGISTRY.get(UK)) == [
        ("PLAY_SURRENDER", None, None, "surrender_allowed")
    ]


# ------------------ 5. a surrender before a peek that never comes in time, by surrender_kind


def _no_peek(dealer: str, settled: int | str) -> ShoeLog:
    """Box 1 surrenders 16 as the round's first decision, the peek never comes; box 2's
    stand shows it missing; box 2's 18 against the dealer."""
    r = _us().round(1).bets({1: 10, 2: 10}).deal({1: "TS 6C", 2: "9H 9D"}, dealer=dealer)
    r.action(1, "surrender").stand(2).reveal()
    return r.settle(1, settled).settle(2, 10 if dealer == "TD 7H" else -10).close()


def test_under_late_a_surrender_before_a_missing_peek_is_a_late_one_games_3() -> None:
    """games.md §3: ``late`` allows a surrender "in turn where [the peek] came late or
    never"; the missing peek is the finding (DEAL_PEEK_MISSING alone), not the surrender."""
    assert _found(_no_peek("TD 7H", -5), REGISTRY.get(US)) == [
        ("DEAL_PEEK_MISSING", "peek", "box 2 hand 0: stand", "peek_on_ten")
    ]


def test_under_late_a_surrender_before_a_missing_peek_is_forfeited_games_3() -> None:
    """A late surrender meets the dealer's blackjack the missing peek left: forfeited, the
    whole stake; stood at half it is PAY_WRONG_AMOUNT."""
    assert _found(_no_peek("TD AH", -10), REGISTRY.get(US)) == [
        ("DEAL_PEEK_MISSING", "peek", "box 2 hand 0: stand", "peek_on_ten")
    ]
    assert _found(_no_peek("TD AH", -5), REGISTRY.get(US)) == [
        ("DEAL_PEEK_MISSING", "peek", "box 2 hand 0: stand", "peek_on_ten"),
        ("PAY_WRONG_AMOUNT", "-10", "-5", "surrender_kind"),
    ]


def test_under_early_a_surrender_before_a_missing_peek_is_an_early_one_games_3() -> None:
    """Under ``surrender_kind = "early"`` it is an early surrender: it stands (half the
    stake) against the blackjack, and the missing peek is the finding."""
    early = variant(US, surrender_kind="early")
    assert _found(_no_peek("TD AH", -5), early) == [
        ("DEAL_PEEK_MISSING", "peek", "box 2 hand 0: stand", "peek_on_ten")
    ]


def test_under_late_a_surrender_right_before_the_peek_is_early_games_3() -> None:
    """The peek right after it (nothing between) shows it early: PLAY_SURRENDER alone where
    only late is allowed, and it stands against the blackjack the peek finds."""
    r = _us().round(1).bets({1: 10, 2: 10}).deal({1: "TS 6C", 2: "9H 9D"}, dealer="TD AH")
    log = r.action(1, "surrender").peek().reveal().settle(1, -5).settle(2, -10).close()
    assert _found(log, REGISTRY.get(US)) == [("PLAY_SURRENDER", None, None, "surrender_kind")]


def test_a_dispute_trace_marks_the_steps_the_later_event_judged() -> None:
    """The hand page's steps carry the verdicts decided after them: the reveal a later card
    showed early, the surrender the peek right after showed early."""
    r = _us().round(1).bets({1: 10, 2: 10}).deal({1: "TS 6C", 2: "9H 4D"}, dealer="TD 7H")
    r.action(1, "surrender").peek().reveal().hit(2, "5C").settle(1, -5).settle(2, 10)
    replay = replay_shoe(r.close().parsed(), REGISTRY.get(US), ShoeContext(), trace=True)
    steps = {s.type: s for s in replay.rounds[0].steps if s.type in ("action", "reveal")}
    assert (steps["action"].allowed, steps["reveal"].allowed) == (False, False)
    assert "where only late is allowed" in (steps["action"].why_not or "")
    assert "a card (5C) to box 2 hand 0 came after it" in (steps["reveal"].why_not or "")
