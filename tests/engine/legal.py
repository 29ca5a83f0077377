"""Random *legal* shoes for property tests, written by an oracle independent of the engine.

The oracle plays and pays by the rule book in the simplest possible way (no
splits; doubles, insurance and even money left out; bets behind sometimes), so
that a disagreement with the engine points at one of the two.
"""

from __future__ import annotations

import random
from decimal import Decimal

from audit.events.cards import full_deck
from tests.engine.builders import PROFILE_DECKS, REGISTRY, RoundLog, ShoeLog

TEN = set("TJQK")


def total(cards: list[str]) -> tuple[int, bool]:
    hard = sum(1 if c[0] == "A" else 10 if c[0] in TEN else int(c[0]) for c in cards)
    if any(c[0] == "A" for c in cards) and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def natural(cards: list[str]) -> bool:
    return (
        len(cards) == 2
        and {cards[0][0] == "A", cards[1][0] == "A"} == {True, False}
        and (cards[0][0] in TEN or cards[1][0] in TEN)
    )


class Dealer:
    """Draws cards from a shuffled shoe, positions included."""

    def __init__(self, rng: random.Random, decks: int) -> None:
        self.cards = full_deck() * decks
        rng.shuffle(self.cards)

    def pop(self) -> str:
        return self.cards.pop()


def legal_shoe(profile: str, seed: int, rounds: int = 3) -> tuple[ShoeLog, Decimal]:
    """A legal shoe and the house's net result (sum of every settlement)."""
    rng = random.Random(seed)
    rules = REGISTRY.get(profile).rules
    decks = PROFILE_DECKS[profile]
    shoe = Dealer(rng, decks)
    log = ShoeLog(profile)
    log.with_pos = True
    if rules.inspection_required:
        log.inspection().shuffle("wash")
    log.shuffle("riffle")
    if rules.cut_required:
        log.cut()
    if rules.cut_card_used:
        log.cut_card(52 * decks - 80)
    start_burn = [shoe.pop() for _ in range(rules.burn_count)]
    if start_burn and not rules.bets_close_before_start_burn:
        log.burn(start_burn)
    paid = Decimal(0)
    n_rounds = 1 if rules.shuffle_every_round else rounds
    for n in range(1, n_rounds + 1):
        r = log.round(n)
        paid += _round(r, rng, shoe, start_burn if n == 1 else [])
        r.close()
    return log, paid


def _round(r: RoundLog, rng: random.Random, shoe: Dealer, burn: list[str]) -> Decimal:
    rules = r.rules
    boxes = sorted(rng.sample(range(1, 8), rng.randint(1, 4)))
    stakes: dict[tuple[int, int], Decimal] = {}
    for b in boxes:
        stakes[(b, 0)] = Decimal(rng.choice([10, 20, 25, 50]))
        if (rules.max_spots_per_box or 3) > 1 and rng.random() < 0.3:
            stakes[(b, 1)] = Decimal(rng.choice([10, 15]))
    for (b, s), amount in stakes.items():
        r.bet(b, amount, spot=s)
    r.no_more_bets()
    if burn and rules.bets_close_before_start_burn:
        r.log.burn(burn)
    hands: dict[int, list[str]] = {b: [] for b in boxes}
    dealer: list[str] = []
    passes = rules.initial_deal.dealer_cards
    for k in range(2):
        for b in boxes:
            c = shoe.pop()
            hands[b].append(c)
            r.card(c, b, face_up=passes == 1)
        if k < passes:
            c = shoe.pop()
            dealer.append(c)
            r.card(c, face_up=passes == 1)
    paid = Decimal(0)
    settled: set[int] = set()
    bj_ratio = rules.blackjack_pays
    win = rules.win_pays

    def settle(box: int, factor: Decimal) -> Decimal:
        nonlocal paid
        total_paid = Decimal(0)
        for (b, s), stake in sorted(stakes.items()):
            if b == box:
                amount = stake * factor
                r.settle(b, amount, spot=s)
                total_paid += amount
        settled.add(box)
        paid += total_paid
        return total_paid

    bj = Decimal(bj_ratio.numerator) / Decimal(bj_ratio.denominator)
    one = Decimal(win.numerator) / Decimal(win.denominator)
    home = rules.dealer_plays_freely
    if home and natural(dealer):
        for b in reversed(boxes):
            settle(b, Decimal(0) if natural(hands[b]) else Decimal(-1))
        return paid
    up = dealer[0][0]
    staged = rules.blackjack_paid == "on_the_spot"
    if staged and up not in TEN and up != "A":
        for b in boxes:
            if natural(hands[b]):
                settle(b, bj)
    for b in boxes:
        cards = hands[b]
        if natural(cards):
            if rules.blackjack_paid == "at_once":
                settle(b, bj)
            continue
        threshold = rng.randint(12, 18)
        mx = rules.mandatory_hit_max or 0
        while total(cards)[0] < 21 and (total(cards)[0] <= mx or total(cards)[0] < threshold):
            c = shoe.pop()
            cards.append(c)
            r.card(c, b)
        if (
            rules.three_sevens_pays is not None
            and len(cards) == 3
            and all(c[0] == "7" for c in cards)
        ):
            prize = Decimal(rules.three_sevens_pays.numerator) / rules.three_sevens_pays.denominator
            for (bb, s), stake in sorted(stakes.items()):
                if bb == b:
                    r.settle(b, stake * prize, spot=s, kind="bonus")
                    paid += stake * prize
        if total(cards)[0] > 21:
            settle(b, Decimal(-1))
        elif rules.mandatory_hit_max is None and rng.random() < 0.5:
            r.stand(b)
    live = [b for b in boxes if b not in settled]
    if not home:
        decided = all(natural(hands[b]) for b in live) and up not in TEN and up != "A"
        if not decided or rng.random() < 0.5:
            c = shoe.pop()
            dealer.append(c)
            r.card(c)
            if staged and up in TEN and not natural(dealer):
                for b in live:
                    if natural(hands[b]):
                        settle(b, bj)
            if live and not natural(dealer):
                while total(dealer)[0] < 17:
                    c = shoe.pop()
                    dealer.append(c)
                    r.card(c)
    else:
        while total(dealer)[0] < rng.randint(12, 18):
            c = shoe.pop()
            dealer.append(c)
            r.card(c)
    d_total = total(dealer)[0]
    order = [b for b in boxes if b not in settled]
    if rules.settlement_order == "high_to_low":
        order.reverse()
    else:
        rng.shuffle(order)
    for b in order:
        cards = hands[b]
        p = total(cards)[0]
        if natural(cards):
            factor = Decimal(0) if natural(dealer) else bj
        elif natural(dealer):
            factor = Decimal(-1)
        elif d_total > 21 or p > d_total:
            factor = one
        elif p == d_total:
            factor = Decimal(0)
        else:
            factor = Decimal(-1)
        settle(b, factor)
    return paid
