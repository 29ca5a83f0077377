"""Small nights of rounds and wagers, as ``run`` stores them, dealt from real shuffled shoes.

Not the simulator (that writes TEL/1 for the whole pipeline): a few lines of
play that give the statistics frames with the stored outcomes' columns, with
knobs to deal them wrong on purpose (a dealer who stops a card short, tens
stripped from the shoe, a weak shuffle, players who bet with the count, a
house that wins more than it should).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import polars as pl

from audit.events.cards import full_deck
from audit.profiles import ProfileRegistry, load_registry
from audit.stats.dealer import RANKS, rank_index
from audit.stats.frames import (
    ORDER_SCHEMA,
    PERIOD_SCHEMA,
    ROUND_SCHEMA,
    SHOE_CARDS_SCHEMA,
    WAGER_SCHEMA,
    StatsData,
)

DAY = dt.date(2026, 11, 28)


@dataclass
class Knobs:
    decks: int = 6
    boxes: int = 3
    cut_card: int = 230
    """cards in front of the cut card: the round that passes it is the last."""
    short_dealer: float = 0.0
    """chance that the dealer stops one card before his rule lets him."""
    stripped_tens: int = 0
    stripped_aces: int = 0
    second_deal: float = 0.0
    """chance that a dealer with an ace or ten-value up deals himself the card that makes
    his blackjack from deeper in the shoe (a second deal)."""
    weak_shuffle: bool = False
    """each shoe's order is the previous one cut once and riffled once."""
    counter: bool = False
    """the box 1 player bets 1 unit, and 8 at a true count of +2 or more."""
    stands_soft_17: bool = True
    edge: float = 0.0
    """the house's true edge: it wins a round's handle with chance (1 + edge) / 2."""


@dataclass
class Night:
    rounds: list[dict[str, Any]] = field(default_factory=list)
    wagers: list[dict[str, Any]] = field(default_factory=list)
    shoes: list[dict[str, Any]] = field(default_factory=list)
    orders: list[dict[str, Any]] = field(default_factory=list)


def _total(cards: list[str]) -> tuple[int, bool]:
    hard = sum(rank_index(c) + 1 for c in cards)
    soft = any(c[0] == "A" for c in cards) and hard + 10 <= 21
    return (hard + 10, True) if soft else (hard, False)


def _must_draw(cards: list[str], knobs: Knobs) -> bool:
    t, soft = _total(cards)
    return t < 17 or (t == 17 and soft and not knobs.stands_soft_17)


def _counts(cards: list[str]) -> list[int]:
    out = [0] * len(RANKS)
    for c in cards:
        out[rank_index(c)] += 1
    return out


def _riffle(order: list[str], rng: random.Random) -> list[str]:
    cut = len(order) // 2 + rng.randint(-10, 10)
    left, right = order[:cut], order[cut:]
    out: list[str] = []
    while left or right:
        from_left = left and (not right or rng.random() < len(left) / (len(left) + len(right)))
        take = left if from_left else right
        out.append(take.pop(0))
    k = rng.randint(52, len(out) - 52)
    return out[k:] + out[:k]


def night(
    shoes: int,
    *,
    seed: int = 1,
    table: str = "T01",
    dealer: str = "D100",
    profile: str = "it-casino-6d",
    knobs: Knobs | None = None,
    into: Night | None = None,
) -> Night:
    """``shoes`` shoes at one table (added to ``into`` when given)."""
    k = knobs or Knobs()
    rng = random.Random(f"{seed}/{table}")
    n = into or Night()
    order: list[str] | None = None
    for s in range(shoes):
        shoe_id = f"{table}-{DAY:%Y%m%d}-{s + 1:02d}"
        if k.weak_shuffle and order is not None:
            cards = _riffle(order, rng)
        else:
            cards = full_deck() * k.decks
            for _ in range(k.stripped_tens):
                cards.remove(next(c for c in cards if c[0] in "TJQK"))
            for _ in range(k.stripped_aces):
                cards.remove(next(c for c in cards if c[0] == "A"))
            rng.shuffle(cards)
        order = list(cards)
        n.orders.append(
            {"table_id": table, "shoe": shoe_id, "gaming_day": DAY, "first_seq": s, "order": order}
        )
        n.shoes.append(
            {
                "table_id": table,
                "shoe": shoe_id,
                "gaming_day": DAY,
                "decks": k.decks,
                "ranks": _counts(cards[: k.cut_card]),
            }
        )
        _deal_shoe(n, cards, rng, k, table, shoe_id, dealer, profile)
    return n


def _deal_shoe(
    n: Night,
    cards: list[str],
    rng: random.Random,
    k: Knobs,
    table: str,
    shoe_id: str,
    dealer: str,
    profile: str,
) -> None:
    out: list[str] = cards[:5]  # the start burn, seen
    pos = 5
    rnd = 0

    def draw() -> str:
        nonlocal pos
        c = cards[pos]
        pos += 1
        out.append(c)
        return c

    while pos < k.cut_card:
        rnd += 1
        before_round = _counts(out)
        running = sum(1 if c[0] in "23456" else -1 if c[0] in "ATJQK" else 0 for c in out)
        true_count = running / max((len(cards) - len(out)) / 52, 0.5)
        hands = {b: [draw()] for b in range(1, k.boxes + 1)}
        up = draw()
        for h in hands.values():
            h.append(draw())
        for h in hands.values():
            while _total(h)[0] < (12 if up[0] in "23456" else 17):
                h.append(draw())
        naturals = {b: len(h) == 2 and _total(h)[0] == 21 for b, h in hands.items()}
        open_hands = any(_total(h)[0] <= 21 and not naturals[b] for b, h in hands.items())
        dealer_cards = [up]
        before_dealer = None
        if open_hands:
            while _must_draw(dealer_cards, k):
                ends = not _must_draw([*dealer_cards, cards[pos]], k)
                if ends and rng.random() < k.short_dealer:
                    break
                if len(dealer_cards) == 1:
                    before_dealer = _counts(out)
                    match = "TJQK" if up[0] == "A" else "A" if up[0] in "TJQK" else ""
                    if match and rng.random() < k.second_deal:
                        j = next((j for j in range(pos, len(cards)) if cards[j][0] in match), pos)
                        cards[pos], cards[j] = cards[j], cards[pos]
                dealer_cards.append(draw())
        total, _ = _total(dealer_cards)
        if k.counter:
            stake = Decimal(8 if true_count >= 2 else 1)
        else:
            stake = Decimal(rng.choice((1, 1, 2, 5)))
        handle = Decimal(k.boxes - 1) + stake
        house_wins = rng.random() < (1 + k.edge) / 2
        n.rounds.append(
            {
                "table_id": table,
                "shoe": shoe_id,
                "round": rnd,
                "gaming_day": DAY,
                "profile_id": profile,
                "decks": k.decks,
                "status": "closed",
                "dealer": dealer,
                "handle": handle,
                "settled": -handle if house_wins else handle,
                "dealer_upcard": up,
                "dealer_total": total,
                "dealer_natural": len(dealer_cards) == 2 and total == 21,
                "dealer_bust": total > 21,
                "ranks_before_round": before_round,
                "ranks_before_dealer": before_dealer,
            }
        )
        for b, h in hands.items():
            n.wagers.append(
                {
                    "table_id": table,
                    "shoe": shoe_id,
                    "round": rnd,
                    "box": b,
                    "hand": 0,
                    "spot": 0,
                    "kind": "main",
                    "player": f"P-{table}-{b}",
                    "base_stake": stake if b == 1 else Decimal(1),
                    "natural": naturals[b],
                    "bust": _total(h)[0] > 21,
                    "surrendered": False,
                    "from_split": False,
                }
            )


def books(
    n: Night,
    *,
    short: dict[str, Decimal] | None = None,
    status: str = "reconciled",
    handle_over_drop: Decimal = Decimal(5),
) -> list[dict[str, Any]]:
    """One reconciled period per table and gaming day of the night whose books agree with
    its hands (W = R, the hands' result), but ``short[table]`` missing from the win; the
    drop is the handle over ``handle_over_drop``."""
    short = short or {}
    sums: dict[tuple[str, dt.date], list[Decimal]] = {}
    for r in n.rounds:
        acc = sums.setdefault((r["table_id"], r["gaming_day"]), [Decimal(0), Decimal(0)])
        acc[0] -= r["settled"]
        acc[1] += r["handle"]
    return [
        {
            "table_id": table,
            "gaming_day": day,
            "shift": "day",
            "status": status,
            "win": result - short.get(table, Decimal(0)),
            "drop": (handle / handle_over_drop).quantize(Decimal("0.01")),
        }
        for (table, day), (result, handle) in sorted(sums.items())
    ]


def data(n: Night, periods: list[dict[str, Any]] | None = None) -> StatsData:
    """The night as the statistics read it (with the books' ``periods`` when given)."""
    return StatsData.of(
        pl.DataFrame(n.rounds, schema=ROUND_SCHEMA),
        pl.DataFrame(n.wagers, schema=WAGER_SCHEMA),
        pl.DataFrame(n.shoes, schema=SHOE_CARDS_SCHEMA),
        pl.DataFrame(n.orders, schema=ORDER_SCHEMA),
        periods=None if periods is None else pl.DataFrame(periods, schema=PERIOD_SCHEMA),
    )


EDGE = 0.02
BIASED = {
    "T01": Knobs(short_dealer=0.6),
    "T02": Knobs(stripped_tens=16),
    "T03": Knobs(weak_shuffle=True, counter=True),
    "T04": Knobs(edge=0.3),
    "T05": Knobs(stripped_aces=12),
    "T06": Knobs(second_deal=0.25),
    "T07": Knobs(edge=EDGE),
}
CLEAN_TABLE = "T07"


def registry(edge: float = EDGE) -> ProfileRegistry:
    p = load_registry().get("it-casino-6d")
    rules = p.rules.model_copy(update={"house_edge": Decimal(str(edge))})
    return ProfileRegistry([p.model_copy(update={"rules": rules})])
