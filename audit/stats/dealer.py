"""The dealer's hand as a graph of draws, and its exact final-outcome distribution.

The dealer rule (rules.md, "dealer draws"; seeds 000, 001, 004): the dealer
draws below ``dealer_stands_on`` and stands on it and above; at exactly that
total a soft hand draws unless ``dealer_stands_on_soft_17``. No hole card is
dealt, so a two-card 21 (an ace and a ten-value) is the dealer's blackjack and
part of the up card's distribution ("before peek" in published tables).

Given the up card, which cards the dealer has drawn (as a multiset) decides
his total, whether it is soft and whether he must draw again; the order in
which they came does not matter for what follows. So the hands he can still
be drawing at are the multisets of cards drawn behind the up card at which the
rule says draw: :class:`DealerGraph` lists them by the number of cards drawn
(layer *k* holds the multisets of *k* cards) with every move to the next layer
or to a final outcome. The chance of a move is the composition-dependent
chance of its card, ``(n_r - d_r) / (N - k)``, where ``n`` is what the shoe
held when the dealer started drawing and ``d`` what he has drawn since: an
exact finite-shoe recursion, not a simulation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal, TypeVar, overload

from audit.profiles.model import Rules

__all__ = [
    "RANKS",
    "DealerGraph",
    "DealerRule",
    "Move",
    "dealer_graph",
    "outcome_probabilities",
    "rank_index",
]

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
"""The ten ranks as card value sees them (J, Q, K count as T), in this order everywhere."""
VALUES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
ACE, TEN = 0, 9
BLACKJACK, BUST = "blackjack", "bust"

Num = TypeVar("Num", float, Fraction)


def rank_index(card: str) -> int:
    """The index in :data:`RANKS` of a card code (``KD`` -> 9, ``AS`` -> 0)."""
    r = card[0]
    if r in "TJQK":
        return TEN
    if r == "A":
        return ACE
    return int(r) - 1


@dataclass(frozen=True, slots=True)
class DealerRule:
    """The dealer's draw rule as two profile fields say it."""

    stands_on: int
    stands_on_soft: bool

    @classmethod
    def of(cls, rules: Rules) -> DealerRule | None:
        """The profile's dealer rule, or None where the banker plays freely (002)."""
        if rules.dealer_plays_freely:
            return None
        return cls(rules.dealer_stands_on, rules.dealer_stands_on_soft_17)

    @property
    def name(self) -> str:
        """``s17`` (stands on soft 17) or ``h17`` (hits soft 17), as published tables say."""
        return f"{'s' if self.stands_on_soft else 'h'}{self.stands_on}"

    @property
    def outcomes(self) -> tuple[str, ...]:
        """The final outcomes: each standing total, ``blackjack``, ``bust``."""
        low = min(self.stands_on, 17)
        return (*(str(t) for t in range(low, 22)), BLACKJACK, BUST)

    def must_draw(self, best: int, soft: bool) -> bool:
        """Whether the rule says draw at this best total (the engine's ``dealer_must_draw``)."""
        if best < self.stands_on:
            return True
        return best == self.stands_on and soft and not self.stands_on_soft


@dataclass(frozen=True, slots=True)
class Move:
    """From state ``source`` of a layer, drawing ``rank`` leads to a state of the next
    layer (``outcome`` None, ``target`` its index) or ends the hand (``outcome``)."""

    source: int
    rank: int
    target: int
    outcome: int | None


@dataclass(frozen=True, slots=True)
class DealerGraph:
    """Every hand the dealer may still be drawing at, behind one up card, under one rule.

    ``layers[k]`` are the multisets of ``k`` cards drawn behind the up card (counts
    per rank, in :data:`RANKS` order) at which the rule says draw; ``moves[k]``
    the moves out of layer ``k``.
    """

    upcard: int
    rule: DealerRule
    layers: tuple[tuple[tuple[int, ...], ...], ...]
    moves: tuple[tuple[Move, ...], ...]

    @property
    def outcomes(self) -> tuple[str, ...]:
        return self.rule.outcomes

    @property
    def states(self) -> int:
        return sum(len(layer) for layer in self.layers)


@lru_cache(maxsize=64)
def dealer_graph(upcard: int, rule: DealerRule) -> DealerGraph:
    """Build the graph of the dealer's draws behind ``upcard`` (an index in :data:`RANKS`)."""
    outcomes = rule.outcomes
    index = {name: i for i, name in enumerate(outcomes)}
    layers: list[tuple[tuple[int, ...], ...]] = [((0,) * len(RANKS),)]
    moves: list[tuple[Move, ...]] = []
    while layers[-1]:
        k = len(layers) - 1
        nxt: dict[tuple[int, ...], int] = {}
        out: list[Move] = []
        for s, drawn in enumerate(layers[-1]):
            for r in range(len(RANKS)):
                d = list(drawn)
                d[r] += 1
                if k == 0 and {upcard, r} == {ACE, TEN}:
                    out.append(Move(s, r, -1, index[BLACKJACK]))
                    continue
                hard = VALUES[upcard] + sum(c * v for c, v in zip(d, VALUES, strict=True))
                soft = (upcard == ACE or d[ACE] > 0) and hard + 10 <= 21
                best = hard + 10 if soft else hard
                if best > 21:
                    out.append(Move(s, r, -1, index[BUST]))
                elif rule.must_draw(best, soft):
                    key = tuple(d)
                    out.append(Move(s, r, nxt.setdefault(key, len(nxt)), None))
                else:
                    out.append(Move(s, r, -1, index[str(best)]))
        moves.append(tuple(out))
        layers.append(tuple(nxt))
    return DealerGraph(upcard, rule, tuple(layers[:-1]), tuple(moves))


@overload
def outcome_probabilities(
    graph: DealerGraph, remaining: Sequence[int], *, exact: Literal[False] = False
) -> tuple[float, ...]: ...
@overload
def outcome_probabilities(
    graph: DealerGraph, remaining: Sequence[int], *, exact: Literal[True]
) -> tuple[Fraction, ...]: ...
def outcome_probabilities(
    graph: DealerGraph, remaining: Sequence[int], *, exact: bool = False
) -> tuple[float, ...] | tuple[Fraction, ...]:
    """P of each final outcome behind the graph's up card, the shoe holding ``remaining``.

    ``remaining`` counts the cards per rank (:data:`RANKS` order) left when the
    dealer starts drawing behind his up card (the up card itself already out).
    ``exact`` computes in fractions. Paths on which the shoe runs out carry no
    probability, so the outcomes sum to less than 1 only for a shoe too small
    to finish the hand.
    """
    if exact:
        return tuple(_propagate(graph, remaining, Fraction(1)))
    return tuple(_propagate(graph, remaining, 1.0))


def _propagate(graph: DealerGraph, remaining: Sequence[int], one: Num) -> list[Num]:
    total = sum(remaining)
    zero = one - one
    out = [zero] * len(graph.outcomes)
    probs = [one]
    for k, layer in enumerate(graph.layers):
        left = total - k
        nxt = [zero] * (len(graph.layers[k + 1]) if k + 1 < len(graph.layers) else 0)
        for move in graph.moves[k]:
            p = probs[move.source]
            count = remaining[move.rank] - layer[move.source][move.rank]
            if not p or count <= 0:
                continue
            q = p * count / left
            if move.outcome is None:
                nxt[move.target] += q
            else:
                out[move.outcome] += q
        probs = nxt
    return out
