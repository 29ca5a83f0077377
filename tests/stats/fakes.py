"""Small nights of rounds and wagers, as ``run`` stores them, dealt from real shuffled shoes.

Not the simulator (that writes TEL/1 for the whole pipeline): a few lines of
play that give the statistics frames with the stored outcomes' columns, with
knobs to deal them wrong on purpose (a dealer who stops a card short, tens
stripped from the shoe, players who bet with the count).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import polars as pl

from audit.stats.dealer import RANKS, rank_index
from audit.stats.frames import StatsData

DAY = dt.date(2026, 11, 28)
RANK_CARDS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")


@dataclass
class Knobs:
    decks: int = 6
    boxes: int = 3
    penetration: int = 230
    short_dealer: float = 0.0
    """chance that the dealer stops one card before his rule lets him."""
    stripped_tens: int = 0
    counter: bool = False
    """the box 1 player bets 1 unit, and 8 at a true count of +2 or more."""
    stands_soft_17: bool = True


def _total(cards: list[str]) -> tuple[int, bool]:
    hard = sum(min(rank_index(c) + 1, 10) for c in cards)
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


def night(
    shoes: int,
    *,
    seed: int = 1,
    table: str = "T01",
    dealer: str = "D100",
    profile: str = "it-casino-6d",
    knobs: Knobs | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows of ``rounds`` and ``wagers`` for ``shoes`` shoes at one table."""
    k = knobs or Knobs()
    rng = random.Random(f"{seed}/{table}")
    rounds: list[dict[str, Any]] = []
    wagers: list[dict[str, Any]] = []
    for s in range(shoes):
        shoe_id = f"{table}-{DAY:%Y%m%d}-{s + 1:02d}"
        cards = [r + "S" for r in RANK_CARDS] * (4 * k.decks)
        for _ in range(k.stripped_tens):
            cards.remove(next(c for c in cards if c[0] in "TJQK"))
        rng.shuffle(cards)
        out: list[str] = cards[:5]  # the start burn, seen
        pos = 5
        rnd = 0
        while pos < k.penetration:
            rnd += 1
            before_round = _counts(out)
            running = sum((1 if c[0] in "23456" else -1 if c[0] in "ATJQK" else 0) for c in out)
            true_count = running / max((len(cards) - len(out)) / 52, 0.5)

            def draw(cards: list[str] = cards, out: list[str] = out) -> str:
                nonlocal pos
                c = cards[pos]
                pos += 1
                out.append(c)
                return c

            hands = {b: [draw()] for b in range(1, k.boxes + 1)}
            up = draw()
            for b in hands:
                hands[b].append(draw())
            for h in hands.values():
                natural = _total(h)[0] == 21
                while not natural and _total(h)[0] < (12 if up[0] in "23456" else 17):
                    h.append(draw())
            open_hands = any(_total(h)[0] < 21 or len(h) > 2 for h in hands.values()) and any(
                _total(h)[0] <= 21 and not (len(h) == 2 and _total(h)[0] == 21)
                for h in hands.values()
            )
            dealer_cards = [up]
            before_dealer = None
            if open_hands:
                while _must_draw(dealer_cards, k):
                    if len(dealer_cards) == 1:
                        before_dealer = _counts(out)
                    nxt = cards[pos]
                    ends = not _must_draw([*dealer_cards, nxt], k)
                    if ends and rng.random() < k.short_dealer:
                        break
                    dealer_cards.append(draw())
            total, _ = _total(dealer_cards)
            natural_d = len(dealer_cards) == 2 and total == 21
            stake = Decimal(8 if k.counter and true_count >= 2 else 1)
            rounds.append(
                {
                    "table_id": table,
                    "shoe": shoe_id,
                    "round": rnd,
                    "gaming_day": DAY,
                    "profile_id": profile,
                    "decks": k.decks,
                    "status": "closed",
                    "dealer": dealer,
                    "handle": Decimal(k.boxes - 1) + stake,
                    "settled": Decimal(rng.choice((-1, 0, 1))) * (k.boxes - 1 + stake),
                    "dealer_upcard": up,
                    "dealer_total": total,
                    "dealer_natural": natural_d,
                    "dealer_bust": total > 21,
                    "ranks_before_round": before_round,
                    "ranks_before_dealer": before_dealer,
                }
            )
            for b, h in hands.items():
                t, _ = _total(h)
                wagers.append(
                    {
                        "table_id": table,
                        "shoe": shoe_id,
                        "round": rnd,
                        "box": b,
                        "hand": 0,
                        "spot": 0,
                        "kind": "main",
                        "player": f"P-{b}",
                        "base_stake": stake if b == 1 else Decimal(1),
                        "natural": len(h) == 2 and t == 21,
                        "bust": t > 21,
                        "surrendered": False,
                        "from_split": False,
                    }
                )
    return rounds, wagers


def data(
    *tables: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> StatsData:
    rounds = [r for t in tables for r in t[0]]
    wagers = [w for t in tables for w in t[1]]
    from audit.stats.frames import ROUND_SCHEMA, WAGER_SCHEMA

    return StatsData.of(
        pl.DataFrame(rounds, schema=ROUND_SCHEMA), pl.DataFrame(wagers, schema=WAGER_SCHEMA)
    )
