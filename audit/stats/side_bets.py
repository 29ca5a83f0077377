"""Exact line probabilities and house edge of a side bet's pay table (games.md §6).

The conventions are those of the published analyses (games.md §6): the cards
a bet reads come from a full shoe of N decks with nothing else removed
(``twenty``: the box's two, then the dealer's two); ``dealer_bust_cards``
deals the dealer's hand alone by the profile's soft-17 rule, a two-card 21 a
blackjack, no peek conditioning. The house edge is −(expected net result per
unit staked), in rationals.

Nothing is counted by a formula of its own: every combination of cards (as
card *types*, each of the 52 present N times, weighted by how many ways the
shoe deals it) is put to the bet's evaluator (:mod:`audit.sidebets.evaluators`),
so the odds and the engine's verdicts come from one definition. The result is
the chance of each set of lines the cards satisfy; a pay table then pays the
first it lists (:meth:`~audit.sidebets.paytables.PayTable.outcome`). The
dealer's hand is the graph of :mod:`audit.stats.dealer`, each of whose final
hands (standing, blackjack or bust) is put to the evaluator. The chances of
one bet's sets sum to exactly 1 (a test checks it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import comb, perm
from typing import Any

from audit.errors import ProfileError
from audit.events.cards import RANKS as CARD_RANKS
from audit.events.cards import SUITS, is_ace, is_ten_value
from audit.sidebets.evaluators import (
    EVALUATORS,
    dealer_bust_cards_lines,
    pair_lines,
    three_card_lines,
    twenty_lines,
)
from audit.sidebets.paytables import PayTable
from audit.stats.dealer import RANKS, DealerRule, dealer_graph

__all__ = ["LOSE", "SideBetOdds", "line_sets", "side_bet_odds"]

LOSE = "lose"
"""The key of the chance that no listed line is met (the bet loses its stake)."""
CARDS = tuple(r + s for r in CARD_RANKS for s in SUITS)
"""The 52 card types of one deck."""
_DEALER_BLACKJACK = ("AS", "KS")
_DEALER_NONE: tuple[str, ...] = ()

Distribution = dict[tuple[str, ...], Fraction]


def _tally(ways: dict[tuple[str, ...], int], lines: tuple[str, ...], n: int) -> None:
    if n:
        ways[lines] = ways.get(lines, 0) + n


def _shares(ways: dict[tuple[str, ...], int], total: int) -> Distribution:
    # integers while counting, one division at the end: exact and fast
    return {lines: Fraction(n, total) for lines, n in ways.items()}


def _ways(cards: tuple[str, ...], decks: int) -> int:
    """Unordered ways a full shoe of ``decks`` decks deals this multiset of card types."""
    ways = 1
    for card in set(cards):
        ways *= comb(decks, cards.count(card))
    return ways


def _pair(decks: int) -> Distribution:
    ways: dict[tuple[str, ...], int] = {}
    for a, b in combinations_with_replacement(CARDS, 2):
        _tally(ways, pair_lines(a, b), _ways((a, b), decks))
    return _shares(ways, comb(52 * decks, 2))


def _three_card(decks: int) -> Distribution:
    ways: dict[tuple[str, ...], int] = {}
    for a, b, c in combinations_with_replacement(CARDS, 3):
        _tally(ways, three_card_lines(a, b, c), _ways((a, b, c), decks))
    return _shares(ways, comb(52 * decks, 3))


def _twenty(decks: int) -> Distribution:
    # ordered: the box's two cards, then the dealer's two from what is left
    n = 52 * decks
    ways: dict[tuple[str, ...], int] = {}
    for a, b in product(CARDS, repeat=2):
        box = decks * (decks - 1) if a == b else decks * decks
        if not box:
            continue
        aces = 4 * decks - sum(map(is_ace, (a, b)))
        tens = 16 * decks - sum(map(is_ten_value, (a, b)))
        blackjack = 2 * aces * tens
        _tally(ways, twenty_lines(a, b, _DEALER_BLACKJACK), box * blackjack)
        _tally(ways, twenty_lines(a, b, _DEALER_NONE), box * ((n - 2) * (n - 3) - blackjack))
    return _shares(ways, n * (n - 1) * (n - 2) * (n - 3))


def _dealer_bust_cards(decks: int, rule: DealerRule) -> Distribution:
    # the dealer's hand alone from a full shoe: each up card, then the graph of his
    # draws, counting ordered deals; a hand of m cards is one of falling(N, m) deals
    shoe = [4 * decks] * 9 + [16 * decks]
    total = sum(shoe)
    ways: dict[tuple[tuple[str, ...], int], int] = {}
    for up in range(len(RANKS)):
        graph = dealer_graph(up, rule)
        remaining = list(shoe)
        remaining[up] -= 1
        counts = [shoe[up]]
        for k, layer in enumerate(graph.layers):
            nxt = [0] * (len(graph.layers[k + 1]) if k + 1 < len(graph.layers) else 0)
            for move in graph.moves[k]:
                drawn = layer[move.source]
                n = counts[move.source] * (remaining[move.rank] - drawn[move.rank])
                if n <= 0:
                    continue
                if move.outcome is None:
                    nxt[move.target] += n
                    continue
                hand = [RANKS[up] + "S"]
                hand += [RANKS[r] + "S" for r, c in enumerate(drawn) for _ in range(c)]
                hand.append(RANKS[move.rank] + "S")
                key = (dealer_bust_cards_lines(hand), len(hand))
                ways[key] = ways.get(key, 0) + n
            counts = nxt
    out: Distribution = {}
    for (lines, cards), n in ways.items():
        out[lines] = out.get(lines, Fraction(0)) + Fraction(n, perm(total, cards))
    return out


_DISTRIBUTIONS: dict[str, Callable[[int], Distribution]] = {
    "pair": _pair,
    "three_card": _three_card,
    "twenty": _twenty,
}


@lru_cache(maxsize=64)
def line_sets(evaluator: str, decks: int, rule: DealerRule | None = None) -> Distribution:
    """P of each set of lines the cards satisfy (games.md §6's conventions), exactly.

    The sets with a chance other than zero, the empty set (no line) included.
    ``rule`` is the dealer's draw rule, read by ``dealer_bust_cards`` only.
    """
    if decks < 1:
        raise ProfileError(f"a shoe holds at least one deck, got --decks {decks}")
    if evaluator not in EVALUATORS:
        raise ProfileError(f"unknown evaluator {evaluator!r}")
    if evaluator == "dealer_bust_cards":
        if rule is None:
            raise ProfileError("the dealer_bust_cards evaluator needs the dealer's draw rule")
        return _dealer_bust_cards(decks, rule)
    return _DISTRIBUTIONS[evaluator](decks)


@dataclass(frozen=True, slots=True)
class SideBetOdds:
    """One pay table's exact odds: each line's chance, the loss's, and the house edge."""

    paytable: PayTable
    decks: int
    dealer: str | None
    """``s17``/``h17`` for a bet on the dealer's draw, else None."""
    lines: tuple[tuple[str, Fraction], ...]
    """The chance that each listed line is the one paid, in the table's order; then ``lose``."""
    house_edge: Fraction

    def to_json(self) -> dict[str, Any]:
        """games.md §6's shape: ``paytable``, ``house_edge``, ``lines`` (with ``lose``).

        Added keys: ``evaluator``, ``decks``, ``dealer`` and ``pays`` (each line's ratio).
        """
        return {
            "paytable": self.paytable.id,
            "house_edge": float(self.house_edge),
            "lines": {line: float(p) for line, p in self.lines},
            "evaluator": self.paytable.evaluator,
            "decks": self.decks,
            "dealer": self.dealer,
            "pays": {line: f"{r.numerator}/{r.denominator}" for line, r in self.paytable.pays},
        }


def side_bet_odds(paytable: PayTable, decks: int, rule: DealerRule | None = None) -> SideBetOdds:
    """The exact odds of ``paytable`` for a full shoe of ``decks`` decks (games.md §6).

    ``rule`` (the profile's dealer rule) is read for a ``dealer_bust_cards`` table only.
    """
    reads_dealer = paytable.evaluator == "dealer_bust_cards"
    dist = line_sets(paytable.evaluator, decks, rule if reads_dealer else None)
    paid = dict.fromkeys([*paytable.lines, LOSE], Fraction(0))
    for satisfied, p in dist.items():
        paid[paytable.outcome(satisfied) or LOSE] += p
    expected = sum(
        (p * (-1 if line == LOSE else paytable.ratio(line)) for line, p in paid.items()),
        Fraction(0),
    )
    return SideBetOdds(
        paytable=paytable,
        decks=decks,
        dealer=rule.name if reads_dealer and rule is not None else None,
        lines=tuple(paid.items()),
        house_edge=-expected,
    )
