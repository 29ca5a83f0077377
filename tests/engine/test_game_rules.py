"""games.md §3's rules of the main game beyond the peek, one golden round that obeys each
and one that breaks it: a dealer blackjack against hands already played (ENHC, OBO,
OBBO, BB+1), surrender (late, early, surrender_against), splits and resplits (layout
order, split_forbidden_ranks, resplit_aces), double_max_cards, dealer_22_pushes, 6:5
and payout_unit rounding. Each profile is a shipped or test profile with the fields
the rule needs changed, as a casino's copy would change them."""

from __future__ import annotations

from typing import Any

import pytest

from audit.engine import ShoeContext, replay_shoe
from audit.engine.result import ShoeReplay
from audit.profiles.model import Profile, Rules
from tests.engine.builders import REGISTRY, ShoeLog


def variant(base: str, **changes: Any) -> Profile:
    """``base`` with some rules changed, validated as a profile file's would be."""
    p = REGISTRY.get(base)
    data = p.rules.model_dump()
    data.update(changes)
    if "dealer_blackjack_takes" in changes:
        data["spelled"] = {}  # the casino's copy names the new field
    return p.model_copy(update={"rules": Rules.model_validate(data)})


def replay(log: ShoeLog, profile: Profile) -> ShoeReplay:
    return replay_shoe(log.parsed(), profile, ShoeContext())


def found(log: ShoeLog, profile: Profile) -> list[tuple[str, str | None, str | None, str | None]]:
    return [(str(f.code), f.expected, f.actual, f.rule) for f in replay(log, profile).findings]


# ---------------------------------------------------------- a dealer blackjack (§3 table)


def _split_then_blackjack(hand0: int, hand1: int, obo: bool = False) -> ShoeLog:
    """8,8 split; hand 0 8,3 doubled to 20; hand 1 8,K,5 busts (collected at once, but
    under OBO once the blackjack is known); the dealer A then K."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10}).deal({1: "8S 8C"}, dealer="AD").split(1)
    r.hit(1, "3H").double(1, "9C", amount=10).hit(1, "KD", hand=1).hit(1, "5C", hand=1)
    if not obo:
        r.settle(1, hand1, hand=1)
    r.dealer("KH").settle(1, hand0)
    if obo:
        r.settle(1, hand1, hand=1)
    r.close()
    return log


@pytest.mark.parametrize(
    ("takes", "hand0", "hand1"),
    [
        ("all", -20, -10),  # ENHC: every stake, the double included
        ("original_and_busted", -10, -10),  # OBBO: the bust whole, the original stake
        ("original", -10, 0),  # OBO: the original stake only, the split hand returned
        ("busted_plus_one", -10, -10),  # BB+1: the bust, and one unit from hand 0
    ],
)
def test_dealer_blackjack_against_hands_already_played_games_3(
    takes: str, hand0: int, hand1: int
) -> None:
    """games.md §3 "A dealer blackjack against hands already played", each reading."""
    profile = variant("it-casino-6d", dealer_blackjack_takes=takes)
    assert found(_split_then_blackjack(hand0, hand1, takes == "original"), profile) == []


def test_obo_settled_as_enhc_is_wrong_amount_games_3() -> None:
    profile = variant("it-casino-6d", dealer_blackjack_takes="original")
    assert found(_split_then_blackjack(-20, -10, obo=True), profile) == [
        ("PAY_WRONG_AMOUNT", "-10", "-20", "dealer_blackjack_takes"),
        ("PAY_WRONG_OUTCOME", "0", "-10", "dealer_blackjack_takes"),
    ]


def test_bb_plus_one_takes_the_lowest_hand_not_busted_games_3() -> None:
    """Hand 0 busts, hand 1 stands doubled: BB+1 takes the bust and hand 1's original
    stake (its double returned); OBBO would return hand 1."""
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10}).deal({1: "8S 8C"}, dealer="AD").split(1)
    r.hit(1, "KD").hit(1, "5C").settle(1, -10).hit(1, "3H", hand=1)
    r.double(1, "9C", hand=1, amount=10).dealer("KH").settle(1, -10, hand=1).close()
    assert found(log, variant("it-casino-6d", dealer_blackjack_takes="busted_plus_one")) == []
    assert found(log, variant("it-casino-6d", dealer_blackjack_takes="original_and_busted")) == [
        ("PAY_WRONG_OUTCOME", "0", "-10", "dealer_blackjack_takes")
    ]


def test_obo_collects_a_bust_once_the_blackjack_is_known_games_3() -> None:
    """OBO: under a ten every bust of the spot waits for the dealer's second card (not 'at
    once'); under a 2-9 the blackjack is ruled out at the up card (§3 "Known"), so at once."""
    obo = variant("it-casino-6d", dealer_blackjack_takes="original")
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="TD").hit(1, "KD").settle(1, -10)
    r.dealer("8H").close()
    assert [c for c, *_ in found(log, obo)] == ["PAY_TIMING"]
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="TD").hit(1, "KD").dealer("8H")
    r.settle(1, -10).close()
    assert found(log, obo) == []
    log = ShoeLog("it-casino-6d").start()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="9D").hit(1, "KD").settle(1, -10)
    r.dealer("8H").close()
    assert found(log, obo) == []


# ---------------------------------------------------------------------------- surrender

US = "us-test-6d"


def test_late_surrender_half_the_stake_rounded_games_3() -> None:
    """10.01 surrendered: -5.005, settled -5.01 (games.md §3's table)."""
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: "10.01"}).deal({1: "TS 6C"}, dealer="TD 7H").peek()
    r.action(1, "surrender").reveal().settle(1, "-5.01").close()
    assert found(log, REGISTRY.get(US)) == []


def test_a_late_surrender_is_forfeited_to_a_dealer_blackjack_games_3() -> None:
    """No peek under a ten where the profile peeks on aces only: the blackjack meets a
    hand already surrendered, which loses its whole stake."""
    aces_only = variant(US, peek_on_ten=False)
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="TD AH").action(1, "surrender")
    r.reveal().settle(1, -10).close()
    assert found(log, aces_only) == []
    early = variant(US, peek_on_ten=False, surrender_kind="early")
    assert found(log, early) == [("PAY_WRONG_AMOUNT", "-5", "-10", "surrender_allowed")]


def test_early_surrender_stands_against_the_blackjack_the_peek_finds_games_3() -> None:
    """An early surrender does not make the peek late; under early it stands (half)."""
    early = variant(US, surrender_kind="early")
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: 10}).deal({1: "TS 6C"}, dealer="AD KH").action(1, "surrender")
    r.peek().reveal().settle(1, -5).close()
    assert found(log, early) == []
    # where only late is allowed: PLAY_SURRENDER alone, settled as made (it stands)
    assert found(log, REGISTRY.get(US)) == [("PLAY_SURRENDER", None, None, "surrender_kind")]


@pytest.mark.parametrize(
    ("hand", "dealer", "before", "rule"),
    [
        ("TS 6C", "AD 7H", [], "surrender_against"),  # no surrender against an ace here
        ("TS 2C", "9D 7H", ["hit"], "surrender_allowed"),  # not the first decision
        ("AS KC", "9D 7H", [], "surrender_allowed"),  # a natural
    ],
)
def test_an_illegal_surrender_is_play_surrender_games_4(
    hand: str, dealer: str, before: list[str], rule: str
) -> None:
    narrow = variant(US, surrender_against=["2", "3", "4", "5", "6", "7", "8", "9", "T"])
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: 10}).deal({1: hand}, dealer=dealer)
    if dealer[0] == "A":
        r.peek()
    for _ in before:
        r.hit(1, "4D")
    r.action(1, "surrender").reveal().settle(1, -5).close()
    assert [(c, ru) for c, _e, _a, ru in found(log, narrow)] == [("PLAY_SURRENDER", rule)]


# ------------------------------------------------------------------ splits and resplits


def test_resplits_are_played_in_layout_order_games_3() -> None:
    """Splitting 0, then 0 again: [0, 2, 1]; hand 2 takes its card before hand 1."""
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: 10}).deal({1: "8S 8C"}, dealer="6D 9H").split(1)
    r.hit(1, "8D").split(1).hit(1, "TC").stand(1)  # hand 0: 8,T
    r.hit(1, "JC", hand=2).stand(1, hand=2).hit(1, "9C", hand=1).stand(1, hand=1)
    r.reveal().dealer("TS").settle(1, 10).settle(1, 10, hand=2).settle(1, 10, hand=1).close()
    assert found(log, REGISTRY.get(US)) == []


def test_hands_played_in_creation_order_deal_out_of_turn_games_3() -> None:
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: 10}).deal({1: "8S 8C"}, dealer="6D 9H").split(1)
    r.hit(1, "8D").split(1).hit(1, "TC").stand(1)
    r.hit(1, "9C", hand=1).stand(1, hand=1).hit(1, "JC", hand=2).stand(1, hand=2)
    r.reveal().dealer("TS").settle(1, 10).settle(1, 10, hand=1).settle(1, 10, hand=2).close()
    assert [c for c, *_ in found(log, REGISTRY.get(US))] == ["DEAL_OUT_OF_TURN"]


@pytest.mark.parametrize(
    ("pair", "rule", "changes"),
    [
        ("TS KD", "split_forbidden_ranks", {"split_forbidden_ranks": ["4", "5", "T"]}),
        ("5S 5D", "split_forbidden_ranks", {"split_forbidden_ranks": ["4", "5", "T"]}),
    ],
)
def test_a_forbidden_pair_split_is_illegal_games_3(
    pair: str, rule: str, changes: dict[str, Any]
) -> None:
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: 10}).deal({1: pair}, dealer="6D 9H").split(1)
    r.hit(1, "9D").stand(1).hit(1, "9C", hand=1).stand(1, hand=1)
    r.reveal().dealer("TS").settle(1, 10).settle(1, 10, hand=1).close()
    assert found(log, REGISTRY.get(US)) == []
    assert [(c, ru) for c, _e, _a, ru in found(log, variant(US, **changes))] == [
        ("PLAY_ILLEGAL_SPLIT", rule)
    ]


def _split_aces_twice() -> ShoeLog:
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: 10}).deal({1: "AS AD"}, dealer="6D 9H").split(1)
    r.hit(1, "AC").split(1).hit(1, "9C").hit(1, "8C", hand=2).hit(1, "7C", hand=1)
    r.reveal().dealer("TS").settle(1, 10).settle(1, 10, hand=2).settle(1, 10, hand=1).close()
    return log


def test_resplit_aces_games_3() -> None:
    """us-test-6d: aces from split aces may be split again (resplit_aces defaults true);
    with resplit_aces false it is PLAY_ILLEGAL_SPLIT, and the hands stay one card each."""
    assert found(_split_aces_twice(), REGISTRY.get(US)) == []
    assert [
        (c, ru) for c, _e, _a, ru in found(_split_aces_twice(), variant(US, resplit_aces=False))
    ] == [("PLAY_ILLEGAL_SPLIT", "resplit_aces")]


# ---------------------------------------------------------------- double_max_cards


def _three_card_double() -> ShoeLog:
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: 10}).deal({1: "4S 3D"}, dealer="6D 9H").hit(1, "4C")
    r.double(1, "TC", amount=10).reveal().dealer("TS").settle(1, 20).close()
    return log


def test_double_on_three_cards_needs_double_max_cards_games_1() -> None:
    assert [(c, ru) for c, _e, _a, ru in found(_three_card_double(), REGISTRY.get(US))] == [
        ("PLAY_ILLEGAL_DOUBLE", "double_allowed")
    ]
    assert found(_three_card_double(), variant(US, double_max_cards=None)) == []
    assert found(_three_card_double(), variant(US, double_max_cards=3)) == []
    assert [
        (c, ru) for c, _e, _a, ru in found(_three_card_double(), variant(US, double_max_cards=2))
    ] == [("PLAY_ILLEGAL_DOUBLE", "double_allowed")]


def test_double_over_double_max_cards_games_1() -> None:
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: 10}).deal({1: "2S 3D"}, dealer="6D 9H").hit(1, "2C").hit(1, "2H")
    r.double(1, "TC", amount=10).reveal().dealer("TS").settle(1, 20).close()
    assert [(c, ru) for c, _e, _a, ru in found(log, variant(US, double_max_cards=3))] == [
        ("PLAY_ILLEGAL_DOUBLE", "double_max_cards")
    ]


# ---------------------------------------------------------------- dealer 22 pushes


def _dealer_22(settled: int) -> ShoeLog:
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: 10, 2: 10}).deal({1: "TS 8C", 2: "AS KD"}, dealer="6D 6H")
    r.stand(1).reveal().dealer("TC").settle(1, settled).settle(2, 15).close()
    return log


def test_dealer_22_pushes_every_wager_but_a_natural_games_3() -> None:
    assert found(_dealer_22(0), variant(US, dealer_22_pushes=True)) == []
    assert found(_dealer_22(10), variant(US, dealer_22_pushes=True)) == [
        ("PAY_WRONG_OUTCOME", "0", "10", "dealer_22_pushes")
    ]
    assert found(_dealer_22(10), REGISTRY.get(US)) == []  # default: 22 busts


# ---------------------------------------------------------------- 6:5 and payout_unit


def _natural(stake: str, paid: str) -> ShoeLog:
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: stake}).deal({1: "AS KD"}, dealer="9D 7H").reveal()
    r.settle(1, paid).close()
    return log


@pytest.mark.parametrize(
    ("stake", "pays", "rounding", "unit", "due"),
    [
        ("25", "6/5", "half_away_from_zero", "0.01", "30"),
        ("7", "6/5", "half_away_from_zero", "0.01", "8.40"),
        ("10.03", "6/5", "half_away_from_zero", "0.01", "12.04"),
        ("10.03", "6/5", "house", "0.01", "12.03"),
        ("7", "6/5", "half_away_from_zero", "0.50", "8.50"),
        ("7", "6/5", "house", "0.50", "8.00"),
        ("10.01", "3/2", "half_away_from_zero", "0.01", "15.02"),
        ("10.01", "3/2", "house", "0.01", "15.01"),
    ],
)
def test_blackjack_pays_rounded_to_the_payout_unit_games_3(
    stake: str, pays: str, rounding: str, unit: str, due: str
) -> None:
    """games.md §3 "Payouts, 6:5 and rounding", its table row by row."""
    profile = variant(US, blackjack_pays=pays, payout_rounding=rounding, payout_unit=unit)
    assert found(_natural(stake, due), profile) == []


def test_6_to_5_paid_3_to_2_and_3_to_2_paid_6_to_5_games_3() -> None:
    six_five = variant(US, blackjack_pays="6/5")
    assert found(_natural("25", "37.5"), six_five) == [
        ("PAY_WRONG_AMOUNT", "30", "37.5", "blackjack_pays")
    ]
    assert found(_natural("25", "30"), REGISTRY.get(US)) == [
        ("PAY_BLACKJACK_SHORT", "37.5", "30", "blackjack_pays")
    ]


def test_surrender_rounded_to_the_payout_unit_games_3() -> None:
    """-5.005 at a unit of 0.50: -5.00, the house's -5.50."""
    log = ShoeLog(US).start()
    r = log.round(1).bets({1: "10.01"}).deal({1: "TS 6C"}, dealer="9D 7H")
    r.action(1, "surrender").reveal().settle(1, "-5").close()
    assert found(log, variant(US, payout_unit="0.50")) == []
    assert [
        c for c, *_ in found(log, variant(US, payout_unit="0.50", payout_rounding="house"))
    ] == ["PAY_WRONG_AMOUNT"]
