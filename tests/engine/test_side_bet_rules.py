"""Side bets (games.md §1 "Side bets are data", §2, §3 "Side bets", §4), one golden round per
clause: one that obeys it and one that breaks it.

``us-test-6d-side`` (tests/engine/profiles/) is the US game of games.md §5 offering
``21plus3`` (21plus3-9), ``lucky_ladies`` (lucky-ladies-a), ``buster`` (buster-12) and
``perfect_pairs`` (perfect-pairs-25-12-6); ``it-test-6d-side`` the Italian game (no hole
card) offering the first three.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.engine import ShoeContext, replay_shoe
from audit.engine.result import ShoeReplay, WagerRecord
from audit.profiles import load_registry
from tests.engine.builders import ShoeLog, clean, codes, only

US = "us-test-6d-side"
IT = "it-test-6d-side"


def _log(profile: str = US, **kw: object) -> ShoeLog:
    return ShoeLog(profile, **kw).start()  # type: ignore[arg-type]


def _wager(replay: ShoeReplay, kind: str, box: int = 1) -> WagerRecord:
    [w] = [w for r in replay.rounds for w in r.wagers if w.kind == kind and w.box == box]
    return w


# ------------------------------------------------------------------ the spec's own round


def test_the_spec_round_t12_games_2() -> None:
    """games.md §2's example (T12, the US game): the peek finds A,J; box 2's 21+3 (QH, KH and
    the dealer's AH: a straight flush) wins 9:1, +45, judged correct; its insurance wins
    +25, its 20 loses; box 5's natural pushes but was paid 15.02: exactly one finding,
    PAY_WRONG_OUTCOME."""
    log = _log()
    r = log.round(1).bet(2, 25).side(2, "21plus3", 5).bet(5, "10.01").no_more_bets()
    r.deal({2: "QH KH", 5: "AS KC"}, dealer="AH JD").insurance(2, "12.5").peek(blackjack=True)
    r.reveal().settle(2, 45, kind="21plus3").settle(2, 25, kind="insurance").settle(2, -25)
    r.settle(5, "15.02").close()
    replay = log.replay()
    f = only(replay)
    assert (f.code, f.box, f.expected, f.actual) == ("PAY_WRONG_OUTCOME", 5, "0", "15.02")
    w = _wager(replay, "21plus3", box=2)
    assert (w.expected, w.actual, w.verdict, w.line, w.ratio) == (
        45,
        (45,),
        "ok",
        "straight_flush",
        "9/1",
    )


# ------------------------------------------------------------------ judged by amount (§3, §4)


def test_a_side_bet_paid_its_line_is_clean_games_3() -> None:
    """A perfect pair (two 8H) pays 25:1; a 21+3 with no line loses its stake."""
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "perfect_pairs", 4).side(1, "21plus3", 5).no_more_bets()
    r.deal({1: "8H 8H"}, dealer="6D KC").stand(1).reveal().dealer("5S")
    r.settle(1, 100, kind="perfect_pairs").settle(1, -5, kind="21plus3").settle(1, -10).close()
    replay = log.replay()
    clean(replay)
    assert _wager(replay, "perfect_pairs").line == "perfect"
    assert _wager(replay, "21plus3").line is None


def test_a_wrong_line_is_pay_side_bet_games_4() -> None:
    """games.md §4: a mixed pair (8H, 8S) paid as coloured (12:1): PAY_SIDE_BET, critical,
    expected the due (6:1 of 5 = 30), actual the settlement, impact actual - expected,
    hand 0, rule side_bets, the line due in the message."""
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "perfect_pairs", 5).no_more_bets()
    r.deal({1: "8H 8S"}, dealer="6D KC").stand(1).reveal().dealer("5S")
    r.settle(1, 60, kind="perfect_pairs").settle(1, -10).close()
    f = only(log.replay())
    assert (f.code, f.severity, f.box, f.hand, f.spot, f.rule) == (
        "PAY_SIDE_BET", "critical", 1, 0, 0, "side_bets",
    )  # fmt: skip
    assert (f.expected, f.actual, f.impact) == ("30", "60", 30)
    assert "mixed pays 6:1" in f.message


@pytest.mark.parametrize(
    ("cards", "paid", "due"),
    [("8H 9S", 20, -5), ("8H 8S", -5, 30)],
    ids=["a losing side bet paid", "a winning side bet taken"],
)
def test_a_side_bet_paid_when_it_lost_or_taken_when_it_won_games_4(
    cards: str, paid: int, due: int
) -> None:
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "perfect_pairs", 5).no_more_bets()
    r.deal({1: cards}, dealer="6D KC").stand(1).reveal().dealer("5S")
    r.settle(1, paid, kind="perfect_pairs").settle(1, -10).close()
    f = only(log.replay())
    assert (f.code, f.expected, f.actual) == ("PAY_SIDE_BET", str(due), str(paid))


def test_the_main_hands_fate_does_not_touch_a_side_bet_games_3() -> None:
    """games.md §3: the pair is the box's first two cards as dealt, whatever came of them
    (the 8s split, one hand busts)."""
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "perfect_pairs", 5).no_more_bets()
    r.deal({1: "8H 8D"}, dealer="6D KC").split(1).hit(1, "TC", "9S").settle(1, -10)
    r.hit(1, "KD", hand=1).stand(1, hand=1).reveal().dealer("5S")
    r.settle(1, 60, kind="perfect_pairs").settle(1, -10, hand=1).close()
    replay = log.replay()
    clean(replay)
    assert _wager(replay, "perfect_pairs").line == "coloured"


# ------------------------------------------------------------------ placement (§3)


def test_a_side_bet_the_profile_does_not_offer_games_4() -> None:
    """BET_SIDE_NOT_OFFERED, its settlement then not judged (no PAY_UNKNOWN_WAGER)."""
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "royal_match", 5).no_more_bets()
    r.deal({1: "8H 9S"}, dealer="6D KC").stand(1).reveal().dealer("5S")
    r.settle(1, 500, kind="royal_match").settle(1, -10).close()
    f = only(log.replay())
    assert (f.code, f.severity, f.actual, f.rule) == (
        "BET_SIDE_NOT_OFFERED", "major", "royal_match", "side_bets",
    )  # fmt: skip


def test_an_italian_profile_offers_no_side_bet_games_1() -> None:
    """A profile without ``side_bets`` offers none: a 21+3 there is BET_SIDE_NOT_OFFERED."""
    log = _log("it-casino-6d")
    r = log.round(1).bet(1, 10).side(1, "21plus3", 5).no_more_bets()
    r.deal({1: "8H 9S"}, dealer="6D").stand(1).dealer("KC", "5S")
    r.settle(1, -5, kind="21plus3").settle(1, -10).close()
    assert codes(log.replay()) == ["BET_SIDE_NOT_OFFERED"]


def test_a_side_bet_within_its_limits_games_3() -> None:
    """Within ``side_limits``; a side bet counts toward neither the box's max_bet nor its
    spots (house default)."""
    log = _log(max_bet=10, side_limits={"perfect_pairs": {"min_bet": 1, "max_bet": 5}})
    r = log.round(1).bet(1, 10).side(1, "perfect_pairs", 5).no_more_bets()
    r.deal({1: "8H 9S"}, dealer="6D KC").stand(1).reveal().dealer("5S")
    r.settle(1, -5, kind="perfect_pairs").settle(1, -10).close()
    clean(log.replay())


@pytest.mark.parametrize(
    ("main", "side", "why"),
    [(10, 6, "over its maximum 5"), (10, "0.5", "under its minimum 1"),
     (None, 5, "on a spot with no main stake")],
)  # fmt: skip
def test_a_side_bet_outside_its_limits_is_bet_limit_games_4(
    main: int | None, side: int | str, why: str
) -> None:
    """BET_LIMIT widened (games.md §4): outside its ``side_limits``, or on a spot with no main
    stake; settled as placed (one on a spot with no main stake reads the box's cards if
    the box got any: here box 1 has a main stake on spot 0, the side bet is on spot 1)."""
    log = _log(side_limits={"perfect_pairs": {"min_bet": 1, "max_bet": 5}})
    r = log.round(1).bet(1, 10)
    if main is not None:
        r.bet(1, main, spot=1)
    r.bet(1, side, spot=1, kind="perfect_pairs").no_more_bets()
    r.deal({1: "8H 9S"}, dealer="6D KC").stand(1).reveal().dealer("5S")
    r.settle(1, f"-{side}", spot=1, kind="perfect_pairs").settle(1, -10)
    if main is not None:
        r.settle(1, -main, spot=1)
    r.close()
    f = only(log.replay())
    assert f.code == "BET_LIMIT" and why in f.message and (f.box, f.spot) == (1, 1)


def test_a_side_bet_on_a_box_that_got_no_cards_is_returned_games_3() -> None:
    """games.md §3: one on a spot with no main stake is returned (0) if it reads box cards
    and the box got none."""
    log = _log()
    r = log.round(1).bet(1, 10).side(2, "perfect_pairs", 5).no_more_bets()
    r.deal({1: "8H 9S"}, dealer="6D KC").stand(1).reveal().dealer("5S")
    r.settle(2, 0, kind="perfect_pairs").settle(1, -10).close()
    assert codes(log.replay()) == ["BET_LIMIT"]


def test_a_side_bet_after_no_more_bets_games_4() -> None:
    """BET_AFTER_NO_MORE_BETS: a side bet is a stake; settled as placed."""
    log = _log()
    r = log.round(1).bet(1, 10).no_more_bets().side(1, "perfect_pairs", 5)
    r.deal({1: "8H 8H"}, dealer="6D KC").stand(1).reveal().dealer("5S")
    r.settle(1, 125, kind="perfect_pairs").settle(1, -10).close()
    assert codes(log.replay()) == ["BET_AFTER_NO_MORE_BETS"]


# ------------------------------------------------------------------ settled once, in time (§3)


def test_a_side_bet_settled_before_it_is_decided_is_pay_timing_games_4() -> None:
    """PAY_TIMING widened: a pair is decided at the box's second card; paid before it."""
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "perfect_pairs", 5).no_more_bets()
    r.card("8H", 1).card("6D").settle(1, 125, kind="perfect_pairs").card("8H", 1)
    r.card("KC", face_up=False).stand(1).reveal().dealer("5S").settle(1, -10).close()
    f = only(log.replay())
    assert (f.code, f.rule, f.impact) == ("PAY_TIMING", "side_bets", 0)


def test_a_side_bet_never_settled_is_pay_missing_games_4() -> None:
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "perfect_pairs", 5).no_more_bets()
    r.deal({1: "8H 9S"}, dealer="6D KC").stand(1).reveal().dealer("5S").settle(1, -10).close()
    f = only(log.replay())
    assert (f.code, f.expected, f.actual) == ("PAY_MISSING", "-5", "0")


def test_a_side_bet_settled_twice_is_pay_duplicate_games_4() -> None:
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "perfect_pairs", 5).no_more_bets()
    r.deal({1: "8H 9S"}, dealer="6D KC").stand(1).reveal().dealer("5S").settle(1, -10)
    r.settle(1, -5, kind="perfect_pairs").settle(1, -5, kind="perfect_pairs").close()
    assert codes(log.replay()) == ["PAY_DUPLICATE"]


def test_a_side_bet_settled_and_never_placed_is_pay_unknown_wager_games_4() -> None:
    log = _log()
    r = log.round(1).bet(1, 10).no_more_bets()
    r.deal({1: "8H 8H"}, dealer="6D KC").stand(1).reveal().dealer("5S").settle(1, -10)
    r.settle(1, 125, kind="perfect_pairs").close()
    f = only(log.replay())
    assert (f.code, f.actual) == ("PAY_UNKNOWN_WAGER", "125")


# ------------------------------------------------------------------ Buster and the QH pair (§3)


def test_the_dealer_completes_his_hand_for_an_open_buster_bet_games_3() -> None:
    """Every player busts, the dealer still completes: 6,K,5,8 busts with four cards,
    Buster pays 2:1 (buster-12)."""
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "buster", 5).no_more_bets()
    r.deal({1: "TS 6C"}, dealer="6D KC").hit(1, "9S").settle(1, -10).reveal().dealer("8H")
    r.settle(1, 10, kind="buster").close()
    replay = log.replay()
    clean(replay)
    assert (_wager(replay, "buster").line, _wager(replay, "buster").ratio) == ("cards_3", "2/1")


def test_the_dealer_stopping_with_a_buster_bet_open_is_stood_on_draw_games_4() -> None:
    """DEALER_STOOD_ON_DRAW widened: every player bust, a Buster bet open, he stops on 16."""
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "buster", 5).no_more_bets()
    r.deal({1: "TS 6C"}, dealer="6D KC").hit(1, "9S").settle(1, -10).reveal()
    r.settle(1, -5, kind="buster").close()
    f = only(log.replay())
    assert f.code == "DEALER_STOOD_ON_DRAW" and "buster side bet was open" in f.message


def test_a_buster_bet_settled_before_his_last_card_is_pay_timing_games_4() -> None:
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "buster", 5).no_more_bets()
    r.deal({1: "TS 6C"}, dealer="6D KC").hit(1, "9S").settle(1, -10).reveal()
    r.settle(1, 10, kind="buster").dealer("8H").close()
    assert codes(log.replay()) == ["PAY_TIMING"]


def test_a_dealer_blackjack_a_peek_finds_loses_a_buster_bet_at_once_games_1() -> None:
    log = _log()
    r = log.round(1).bet(1, 10).side(1, "buster", 5).no_more_bets()
    r.deal({1: "TS 6C"}, dealer="AD KC").peek(blackjack=True).settle(1, -5, kind="buster")
    r.reveal().settle(1, -10).close()
    clean(log.replay())


def test_the_dealer_takes_his_second_card_for_an_open_qh_pair_games_3() -> None:
    """No hole card: the box's QH,QH are split and both hands bust, so every player hand is
    decided, but the Lucky Ladies QH pair waits for the dealer's blackjack to be known: he
    takes his second card (A: a blackjack, the 1000:1 line)."""
    log = _log(IT)
    r = log.round(1).bet(1, 10).side(1, "lucky_ladies", 1).no_more_bets()
    r.deal({1: "QH QH"}, dealer="KS").split(1).hit(1, "5C", "KD").settle(1, -10)
    r.hit(1, "6C", "TD", hand=1).settle(1, -10, hand=1).dealer("AS")
    r.settle(1, 1000, kind="lucky_ladies").close()
    replay = log.replay()
    clean(replay)
    assert _wager(replay, "lucky_ladies").line == "queen_hearts_pair_dealer_blackjack"


def test_the_dealer_stopping_before_his_second_card_over_a_qh_pair_games_4() -> None:
    log = _log(IT)
    r = log.round(1).bet(1, 10).side(1, "lucky_ladies", 1).no_more_bets()
    r.deal({1: "QH QH"}, dealer="KS").split(1).hit(1, "5C", "KD").settle(1, -10)
    r.hit(1, "6C", "TD", hand=1).settle(1, -10, hand=1).settle(1, 125, kind="lucky_ladies")
    r.close()
    assert codes(log.replay()) == ["DEALER_STOOD_ON_DRAW"]


def test_a_qh_pair_paid_before_the_dealers_blackjack_is_known_is_pay_timing_games_1() -> None:
    log = _log(IT)
    r = log.round(1).bet(1, 10).side(1, "lucky_ladies", 1).no_more_bets()
    r.deal({1: "QH QH"}, dealer="KS").settle(1, 125, kind="lucky_ladies").stand(1)
    r.dealer("7D").settle(1, 10).close()
    assert codes(log.replay()) == ["PAY_TIMING"]


# ------------------------------------------------------------------ the up card (§1)

HOLE_FIRST = """\
id = "hole-first-test"
title = "A hole card dealt first, the up card second (games.md §1)"
seed = "000"
"""


def _hole_first_registry(tmp_path: Path) -> object:
    """us-test-6d with the dealer's first card face down and his second up: the hole card is
    his first, the up card his second (games.md §1), no peek."""
    base = (Path(__file__).with_name("profiles") / "us-test-6d.toml").read_text()
    rules = base[base.index("[rules]") :]
    rules = rules.replace(
        "dealer_face_up = true, hole_card_face_up = false",
        "dealer_face_up = false, hole_card_face_up = true",
    )
    rules = rules.replace("peek_on_ace = { value = true", "peek_on_ace = { value = false")
    rules = rules.replace("peek_on_ten = { value = true", "peek_on_ten = { value = false")
    (tmp_path / "hole-first.toml").write_text(HOLE_FIRST + rules)
    return load_registry(extra_dir=tmp_path)


@pytest.mark.parametrize(
    ("hole", "up", "found"),
    [("7D", "AH", []), ("AH", "7D", ["PLAY_ILLEGAL_INSURANCE"])],
    ids=["against the ace up", "against a seven up, the ace in the hole"],
)
def test_insurance_reads_the_up_card_not_the_dealers_first_card_games_1(
    tmp_path: Path, hole: str, up: str, found: list[str]
) -> None:
    """games.md §1: the up card is ``initial_deal``'s. With the hole card dealt first (face
    down) and the up card second, insurance is offered against the up card: legal against
    AH up over 7D, illegal against 7D up over an ace in the hole."""
    registry = _hole_first_registry(tmp_path)
    log = _log("us-test-6d")
    log.events[0]["profile"] = "hole-first-test"
    r = log.round(1).bets({1: 10}).card("TS", 1).card(hole, face_up=False).card("9C", 1)
    r.card(up).insurance(1, 5).stand(1).reveal().settle(1, 10)
    r.settle(1, -5, kind="insurance").close()
    profile = registry.get("hole-first-test")  # type: ignore[attr-defined]
    replay = replay_shoe(log.parsed(), profile, ShoeContext())
    assert codes(replay) == found
    assert replay.rounds[0].dealer.cards == (hole, up)
