"""Side bets in a round (games.md §1 "Side bets are data", §3 "Side bets", §4).

A side bet is the wager (table, shoe, round, box, hand 0, spot, id): a ``bet`` of its
``kind`` places it, a ``settle`` of its ``kind`` with ``hand`` 0 settles it. Its due is
its **evaluator** (:mod:`audit.sidebets.evaluators`: which lines the dealt cards
satisfy) read against the profile's **pay table** (:class:`~audit.profiles.model.
SideBetTable`, plain data loaded with the profile): the first line the cards satisfy
and the table lists pays stake × ratio, rounded as games.md §3 rounds (a whole ratio
exact); no line, the stake is lost; never a push. The main hand's fate does not touch
it.

Pure functions of the round's cards: the round (:mod:`audit.engine.round`) keeps the
stakes and the cards they read, :mod:`audit.engine.judge` asks here for each one's
verdict (line, ratio, due) and the moment it was decided (§1's "decided" column).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from audit.engine.payout import pay_ratio, ratio_words
from audit.profiles.model import Rules, SideBetTable
from audit.sidebets.evaluators import (
    dealer_bust_cards_lines,
    pair_lines,
    three_card_lines,
    twenty_lines,
)

__all__ = ["BUSTER", "SideStake", "SideVerdict", "needs_dealer", "side_verdict"]

BUSTER = "dealer_bust_cards"
"""The evaluator that reads the dealer's final hand: an open one keeps him drawing (§3)."""
QH_PAIR = ("QH", "QH")


@dataclass(slots=True, eq=False)
class SideStake:
    """One side bet of a spot while its round is replayed (games.md §2).

    ``amount`` in cents as the last ``bet`` of its kind left it (0: withdrawn);
    ``table`` None where the profile does not offer the kind (``BET_SIDE_NOT_OFFERED``:
    its settlement is then not judged).
    """

    box: int
    spot: int
    kind: str
    amount: int
    player: str | None
    table: SideBetTable | None
    events: list[str] = field(default_factory=list)
    late: bool = False
    """Placed or changed after betting closed (``BET_AFTER_NO_MORE_BETS``)."""


@dataclass(frozen=True, slots=True)
class SideVerdict:
    """What a side bet is due and why: its line (None: none won), ratio and due (cents)."""

    due: int
    line: str | None
    ratio: Fraction | None
    words: str


def lines_of(
    evaluator: str,
    box_cards: Sequence[str],
    upcard: str | None,
    dealer: Sequence[str],
) -> tuple[str, ...] | None:
    """The lines the cards satisfy, best first; None where the cards it reads never came.

    ``box_cards``: the box's first two cards as dealt; ``upcard``: the dealer's up card
    (games.md §1: ``initial_deal``'s, with no hole card his first); ``dealer``: his cards
    as his hand ended (its first two decide the Lucky Ladies top line, the whole hand
    Buster).
    """
    if evaluator == BUSTER:
        return dealer_bust_cards_lines(dealer)
    if len(box_cards) < 2:
        return None
    first, second = box_cards[0], box_cards[1]
    if evaluator == "pair":
        return pair_lines(first, second)
    if evaluator == "three_card":
        return None if upcard is None else three_card_lines(first, second, upcard)
    if evaluator == "twenty":
        return twenty_lines(first, second, tuple(dealer[:2]) if len(dealer) >= 2 else ())
    raise AssertionError(evaluator)  # pragma: no cover: the evaluators are a closed set


def side_verdict(
    stake: SideStake,
    box_cards: Sequence[str],
    upcard: str | None,
    dealer: Sequence[str],
    rules: Rules,
    *,
    voided: bool,
) -> SideVerdict:
    """A side bet's due (games.md §3 "Side bets"): its paid line × stake, or −stake.

    A ``void`` returns it (0), and so does a bet that reads box cards the box never got
    (one on a spot with no main stake, house default). A ratio that is no whole number
    is rounded as ``payout_rounding`` and ``payout_unit`` say (games.md §3).
    """
    table = stake.table
    assert table is not None
    if voided:
        return SideVerdict(0, None, None, "void: stake returned")
    lines = lines_of(table.evaluator, box_cards, upcard, dealer)
    if lines is None:
        return SideVerdict(0, None, None, "the cards it reads were not dealt: stake returned")
    pays = dict(table.pays)
    line = next((x for x in lines if x in pays), None)
    if line is None:
        return SideVerdict(-stake.amount, None, None, f"{table.paytable}: no line won")
    ratio = pays[line]
    due = pay_ratio(stake.amount, ratio, rules)
    return SideVerdict(due, line, ratio, f"{table.paytable}: {line} pays {ratio_words(ratio)}")


def needs_dealer(stake: SideStake, box_cards: Sequence[str], dealer: Sequence[str]) -> bool:
    """Whether an open side bet still needs a dealer card (games.md §3): a Buster bet his
    complete hand, a Lucky Ladies QH pair his second card, as insurance does."""
    table = stake.table
    if table is None or stake.amount <= 0:
        return False
    if table.evaluator == BUSTER:
        return True
    return (
        table.evaluator == "twenty"
        and len(dealer) < 2
        and tuple(box_cards[:2]) == QH_PAIR
        and any(line == "queen_hearts_pair_dealer_blackjack" for line, _ in table.pays)
    )
