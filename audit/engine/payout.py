"""What each wager should net, which ``PAY_`` code a wrong settlement gets, and when it is due.

rules.md, "Findings": settlements are judged against what actually happened
(the hands as dealt, the stakes as placed); "How many findings": one finding
per wrong wager. Amounts are cents (``int``); "Money due is exact" (v1.2): a
due finer than a cent (3:2 on 25.25 is 3787.5 cents) is judged rounded to the
cent as the profile's ``payout_rounding`` says, and ``expected`` shows it so.
"""

from __future__ import annotations

from fractions import Fraction

from audit.engine.event import Cents
from audit.engine.state import Hand
from audit.events.cards import is_ace
from audit.findings import Code
from audit.profiles.model import Rules


def payout(stake: int, ratio: Fraction, house: bool = False, unit: int = 1) -> int:
    """The win on ``stake`` cents at ``ratio`` (3/2 a blackjack, 1/1 a win), due to the unit.

    rules.md v1.2, "Money due is exact": 3:2 of 10.01 is 15.015, judged rounded to
    the cent half away from zero (15.02); with ``payout_rounding = "house"`` (``house``
    true) a payment rounds down (15.01). games.md §3: rounded to a multiple of
    ``payout_unit`` (``unit`` cents: 6:5 of 7 at 0.50 is 8.50, the house's 8.00). A
    whole multiple of the stake is exact either way, whatever the unit.
    """
    num, den = ratio.numerator, ratio.denominator
    if den == 1:
        return stake * num
    q, r = divmod(stake * num, den * unit)
    if r == 0 or house:
        return q * unit
    return (q + 1) * unit if 2 * r >= den * unit else q * unit


def take(stake: int, ratio: Fraction, house: bool = False, unit: int = 1) -> int:
    """What the house takes of ``stake`` cents at ``ratio`` (1/2 for a surrender), due to the unit.

    rules.md v1.2: a half cent of a take rounds up in size under both readings
    (half away from zero; the house's rounding takes the fraction), so 1/2 of
    10.01 is -5.01. games.md §3, to a ``payout_unit`` of ``unit`` cents: the nearest
    multiple, a tie away from zero (-5.005 at 0.50 is -5.00); the house's, up in size
    (-5.50).
    """
    q, r = divmod(stake * ratio.numerator, ratio.denominator * unit)
    if r == 0:
        return -q * unit
    if house or 2 * r >= ratio.denominator * unit:
        return -(q + 1) * unit
    return -q * unit


def forfeitable(hand: Hand, rules: Rules) -> bool:
    """A surrender a dealer blackjack takes whole (games.md §3): one not early, under a
    profile whose ``surrender_kind`` is ``late``, "legal or not" (house default), so also
    where the profile allows no surrender at all."""
    return not (hand.early_surrender or rules.surrender_kind == "early")


def unit_of(rules: Rules) -> int:
    """``payout_unit`` in cents (games.md §1; a money value, two decimals at most)."""
    return int(rules.payout_unit * 100)


def pay_ratio(stake: int, ratio: Fraction, rules: Rules) -> int:
    """:func:`payout` as the profile rounds: ``payout_rounding`` to its ``payout_unit``."""
    return payout(stake, ratio, house_rounding(rules), unit_of(rules))


def house_rounding(rules: Rules) -> bool:
    """``payout_rounding = "house"``: a fraction of a cent goes to the house (rules.md v1.2)."""
    return rules.payout_rounding == "house"


def amounts_match(actual: int, due: Cents) -> bool:
    """Money compared exactly: the due is already rounded to the cent (rules.md v1.2)."""
    return actual == due


_HALF = Fraction(1, 2)


def ratio_words(r: Fraction) -> str:
    return f"{r.numerator}:{r.denominator}"


def sign(value: Cents) -> int:
    return (value > 0) - (value < 0)


def due_main(
    hand: Hand, spot: int, d_nat: bool, d_total: int, rules: Rules, lowest_standing: bool = False
) -> tuple[int, str, str]:
    """The correct net settlement of a main wager, why in words, and the rule it follows.

    000/001/004: a natural wins 3:2 (also against the dealer's 21 in 3+ cards),
    pushes against the dealer's blackjack; a bust loses at once; the dealer's
    blackjack takes the whole stake, doubles and splits included (rules.md house
    default); other wins 1:1, ties push. 002: a natural 1:1; the banker's
    two-card 21 takes every stake but another two-card 21. Even money (001):
    +stake. A surrender (judged as it happened): half the stake, or, not early, the whole
    against a dealer blackjack (games.md §3: legal or not).
    ``d_nat`` / ``d_total``: the dealer's blackjack and best total. Against hands
    already played the dealer's blackjack takes what ``dealer_blackjack_takes``
    says (:func:`dealer_blackjack_share`); ``lowest_standing``: this hand is its
    box's lowest-numbered hand not busted (BB+1's "plus one").
    """
    stake = hand.stake(spot)
    base = hand.stakes.get(spot, 0)
    if hand.surrendered:
        if d_nat and forfeitable(hand, rules):
            # games.md §3: a late surrender is forfeited against a dealer blackjack, legal
            # or not (house default)
            return -stake, "surrendered, forfeited to the dealer's blackjack", "surrender_kind"
        half = take(stake, _HALF, house_rounding(rules), unit_of(rules))
        return half, "surrendered: half the stake", "surrender_allowed"
    if spot in hand.even_money:
        return base, "even money 1:1", "even_money_offered"
    if hand.natural:
        if d_nat:
            return 0, "blackjack v dealer blackjack: push", "blackjack_pays"
        if d_total == 21 and not rules.blackjack_beats_dealer_21:
            return 0, "blackjack v dealer 21: push", "blackjack_beats_dealer_21"
        return (
            pay_ratio(stake, rules.blackjack_pays, rules),
            f"blackjack wins {ratio_words(rules.blackjack_pays)}",
            "blackjack_pays",
        )
    total = hand.total
    if d_nat and rules.dealer_blackjack_takes == "original":
        return dealer_blackjack_share(hand, spot, rules, lowest_standing)
    if hand.bust:
        return -stake, f"bust {total}", "win_pays"
    if d_nat:
        return dealer_blackjack_share(hand, spot, rules, lowest_standing)
    if d_total == 22 and rules.dealer_22_pushes:
        # games.md §3: every main wager still in play pushes, its whole stake
        return 0, f"{total} v dealer 22: push", "dealer_22_pushes"
    if d_total > 21:
        win = pay_ratio(stake, rules.win_pays, rules)
        return win, f"{total} v dealer bust {d_total}", "win_pays"
    if total > d_total:
        win = pay_ratio(stake, rules.win_pays, rules)
        return win, f"{total} v dealer {d_total}: win", "win_pays"
    if total == d_total:
        return 0, f"{total} v dealer {d_total}: push", "win_pays"
    return -stake, f"{total} v dealer {d_total}: loss", "win_pays"


def dealer_blackjack_share(
    hand: Hand, spot: int, rules: Rules, lowest_standing: bool
) -> tuple[int, str, str]:
    """What a dealer blackjack takes from a main wager already played (games.md §3).

    ``dealer_blackjack_takes``: ``all`` (ENHC) the whole stake, a double included;
    ``original`` (OBO) the original stake from hand 0, busted or not, and nothing
    from hands made by splits; ``original_and_busted`` (OBBO) a busted hand's
    whole stake, else the original stake from hand 0 and nothing from split hands;
    ``busted_plus_one`` (BB+1) every busted hand's whole stake and the original
    stake from the lowest-numbered hand not busted (house default: the sources say
    "one unit", not which), the rest returned. A bust under OBBO and BB+1 is taken
    by the caller as any bust. The original stake is the spot's stake as placed.
    """
    takes = rules.dealer_blackjack_takes
    rule = rules.rule_name("dealer_blackjack_takes")
    total = hand.total
    base = hand.stakes.get(spot, 0)
    if takes == "all":
        return -hand.stake(spot), f"{total} v dealer blackjack: the whole stake", rule
    if takes == "busted_plus_one":
        if hand.bust:
            return -hand.stake(spot), f"bust {total} v dealer blackjack: the whole stake", rule
        if lowest_standing:
            return -base, f"{total} v dealer blackjack: the original stake (plus one)", rule
        return 0, f"{total} v dealer blackjack: returned (only one hand pays)", rule
    first = not hand.from_split or hand.number == 0
    if takes == "original" and hand.bust:
        if first:
            return -base, f"bust {total} v dealer blackjack: the original stake", rule
        return 0, f"bust {total} v dealer blackjack: returned (a split hand)", rule
    if first:
        return -base, f"{total} v dealer blackjack: the original stake", rule
    return 0, f"{total} v dealer blackjack: the original stake", rule


def pay_code(hand: Hand | None, stake: int, due: Cents, actual: int, rules: Rules) -> Code:
    """Which ``PAY_`` code a wrong main settlement gets (rules.md, "How many findings").

    A two-card 21 after a split paid the blackjack payout of its stake:
    ``PAY_SPLIT_BLACKJACK_AS_NATURAL``; a natural paid 0 < A < C:
    ``PAY_BLACKJACK_SHORT``; a different sign: ``PAY_WRONG_OUTCOME``; else
    ``PAY_WRONG_AMOUNT``.
    """
    if (
        hand is not None
        and hand.split_21
        and amounts_match(actual, pay_ratio(stake, rules.blackjack_pays, rules))
    ):
        return Code.PAY_SPLIT_BLACKJACK_AS_NATURAL
    if hand is not None and hand.natural and 0 < actual < due:
        return Code.PAY_BLACKJACK_SHORT
    if sign(actual) != sign(due):
        return Code.PAY_WRONG_OUTCOME
    return Code.PAY_WRONG_AMOUNT


def paid_at_once(hand: Hand, spot: int, d_nat: bool, upcard: str | None, rules: Rules) -> bool:
    """A natural paid before the final pass: 001 on the spot (no dealer ace), 002 at once."""
    if not hand.natural or spot in hand.even_money or d_nat:
        return False
    if rules.blackjack_paid in ("at_once", "when_known"):
        return True
    return rules.blackjack_paid == "on_the_spot" and upcard is not None and not is_ace(upcard)
