"""Nights of TEL/1 drawn from the format itself, for the differential test (issue 28, point 3).

A night is a few tables of many shoes, each shoe made from a :class:`ShoeSpec`
(profile, seed, rounds, hostility) that hypothesis draws: hypothesis shrinks
the list of specs and each spec's numbers, and one ``random.Random`` per shoe
makes its events (thousands of hypothesis draws per shoe cost more than the
replay they feed). A plausible shoe is dealt and paid much as a table would
(so the engine gets deep into play): every event type of ``event-log.md`` with
every optional field, ``spots`` full, partial, empty and naming an unknown
spot, doubles for less, explicit ``hit``/``stand``, ``face_up``, ``10`` for
``T`` and lower-case cards, cards with and without ``pos``, exposed cards
offered and burned, voids, three sevens, unknown fields and types. A hostile
shoe then has some of its events moved (out of turn, settles before cards,
late after ``round_close``), copied, dropped, changed to other legal or
illegal values, or replaced by an invalid line.

What the grammar must draw is derived from the models
(:data:`audit.events.models.EVENT_TYPES`, the format's one definition):
:func:`model_vocabulary` lists every type, field and literal value, and a test
fails until the grammar draws a new one (:func:`drawn_vocabulary`).
"""

from __future__ import annotations

import datetime as dt
import json
import random
import types
import typing
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any, Literal

from audit.events.cards import full_deck
from audit.events.models import EVENT_TYPES, ROUND_EVENT_TYPES, TABLE_EVENT_TYPES, Envelope
from audit.profiles import Rules, load_registry

REGISTRY = load_registry()
PROFILES = sorted(p.id for p in REGISTRY.all())
UNKNOWN_PROFILE = "it-casino-unknown"

FORMS = frozenset(
    {
        "card 10", "card lower case", "card without pos", "card of another box",
        "spots full", "spots partial", "spots empty", "spots unknown",
        "double for less", "unknown field", "unknown type", "invalid line",
        "late event", "settle before cards", "bound value", "edge time",
        "event moved", "event copied", "event dropped",
        "value changed", "id repeated", "id conflict", "seq gap", "seq repeated",
        "other shoe's event", "void round", "three sevens", "exposed card burned",
        "exposed card accepted", "cut card out", "shoe without close", "late settle",
    }
)  # fmt: skip
"""Shapes beyond a field and its values that the grammar must draw (and reports drawing)."""

Event = dict[str, Any]
"""One event as a JSON object, without its envelope (``id``, ``seq``, ``ts``, ``table``,
``shoe``: :func:`night_lines` adds them), money as ``Decimal``."""


@dataclass(frozen=True, slots=True)
class ShoeSpec:
    """What hypothesis draws for one shoe."""

    profile: str
    seed: int
    rounds: int
    hostility: int
    """0: plausible; 1: a few events moved, copied, dropped or changed; 2: many, and
    invalid lines."""


# --------------------------------------------------------------------------- the vocabulary


def _literals(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return list(typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType, typing.Annotated):
        return [v for a in typing.get_args(annotation) for v in _literals(a)]
    return []


ENVELOPE = frozenset(Envelope.model_fields) - {"type"}
"""Fields every event has (``v`` among them): drawn once for all types."""


def _where(event_type: str, f: str) -> str:
    return "envelope" if f in ENVELOPE else event_type


def model_vocabulary() -> set[tuple[str, ...]]:
    """Every event type, every field of its model, and every literal value a field takes:
    ``(type,)``, ``(type, field)``, ``(type, field, value)`` (``type`` is ``envelope`` for
    the envelope's fields)."""
    out: set[tuple[str, ...]] = set()
    for name, model in EVENT_TYPES.items():
        if name in TABLE_EVENT_TYPES:
            continue  # the books (TEL/1 v1.2) are not replayed: tests/books and the bulk test
        out.add((name,))
        for f, info in model.model_fields.items():
            if f == "type":
                continue
            out.add((_where(name, f), f))
            out.update((_where(name, f), f, json.dumps(v)) for v in _literals(info.annotation))
    return out


def drawn_vocabulary(lines: list[Event]) -> set[tuple[str, ...]]:
    """What of :func:`model_vocabulary` the lines hold (written values only)."""
    out: set[tuple[str, ...]] = set()
    for e in lines:
        t = e.get("type")
        if t not in EVENT_TYPES:
            continue
        out.add((t,))
        for f, v in e.items():
            if f == "type":
                continue
            out.add((_where(t, f), f))
            if isinstance(v, str | bool | int):
                out.add((_where(t, f), f, json.dumps(v)))
    return out


# --------------------------------------------------------------------------- cards and money

TEN = frozenset("TJQK")


def total(cards: list[str]) -> int:
    hard = sum(1 if c[0] == "A" else 10 if c[0] in TEN else int(c[0]) for c in cards)
    return hard + 10 if any(c[0] == "A" for c in cards) and hard + 10 <= 21 else hard


def natural(cards: list[str]) -> bool:
    return len(cards) == 2 and total(cards) == 21


def money(cents: int | Fraction) -> Decimal:
    """Cents as TEL/1 money, a fraction of a cent rounded half away from zero."""
    d = (
        Decimal(cents.numerator) / Decimal(cents.denominator)
        if isinstance(cents, Fraction)
        else Decimal(cents)
    )
    return (d / 100).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP).normalize()


STAKES = [500, 1000, 1000, 1003, 1050, 2000, 2500, 5000, 10000]
SIDE_BETS = ["21plus3", "perfect_pairs", "buster", "lucky_ladies"]
"""games.md §2: side-bet ids a log may write (v1.2); the Italian profiles offer none."""


# --------------------------------------------------------------------------- one shoe


@dataclass
class _Wager:
    box: int
    hand: int
    spot: int
    stake: int
    base: int


@dataclass
class _Shoe:
    """A shoe being dealt: its rules, its cards, how it writes them."""

    rnd: random.Random
    rules: Rules | None
    decks: int
    cards: list[str]
    tags: set[str]
    pos_mode: str
    explicit: float
    """How often optional fields (``face_up``, ``hand``, ``hit``, ``stand``) are written."""
    drawn: int = 0
    cut_at: int | None = None
    cut_out: bool = False

    def card(
        self, to: str, box: int | None = None, hand: int | None = None, up: bool = True
    ) -> Event:
        """The next card of the shoe, placed, written in one of its forms."""
        rnd = self.rnd
        code = self.cards[self.drawn % len(self.cards)]
        self.drawn += 1
        e: Event = {"type": "card", "card": self.form(code), "to": to}
        if box is not None:
            e["box"] = box
        if hand is not None and (hand or to == "dealer" or rnd.random() < self.explicit):
            e["hand"] = hand
        if not up or rnd.random() < self.explicit:
            e["face_up"] = up
        if self.pos_mode == "all" or (self.pos_mode == "some" and rnd.random() < 0.7):
            e["pos"] = self.drawn
        else:
            self.tags.add("card without pos")
        return e

    def form(self, code: str) -> str:
        r = self.rnd.random()
        if r < 0.04 and code[0] == "T":
            self.tags.add("card 10")
            return "10" + (code[1].lower() if r < 0.02 else code[1])
        if r < 0.08:
            self.tags.add("card lower case")
            return code.lower()
        return code

    def peek(self) -> str:
        return self.cards[self.drawn % len(self.cards)]


def _preamble(s: _Shoe, spec: ShoeSpec, dealer: str) -> tuple[list[Event], list[Event]]:
    """The shoe events before round 1, and the start burn if it comes after the bets."""
    rnd, rules = s.rnd, s.rules
    open_: Event = {
        "type": "shoe_open",
        "profile": spec.profile,
        "decks": s.decks,
        "dealer": dealer,
    }
    if rnd.random() < 0.5:
        open_["currency"] = rnd.choice(["EUR", "CHF", "USD"])
    if rnd.random() < 0.5:
        open_["min_bet"] = money(rnd.choice([0, 500, 1000, 1001]))
    if rnd.random() < 0.5:
        open_["max_bet"] = money(rnd.choice([10000, 100000, 5000, 1000]))
    if rnd.random() < 0.2:  # v1.2 (games.md §2): side-bet limits, each optional
        open_["side_limits"] = {
            k: {n: money(rnd.choice([100, 500, 10000])) for n in ("min_bet", "max_bet")
                if rnd.random() < 0.6}
            for k in rnd.sample(SIDE_BETS, rnd.randint(0, 2))
        }  # fmt: skip
    out = [open_]
    if (rules is not None and rules.inspection_required) or rnd.random() < 0.1:
        out.append({"type": "inspection", "decks": s.decks, "ok": rnd.random() < 0.9})
    methods = ["wash", "riffle", "strip", "box", "machine", "other"]
    for _ in range(rnd.choice([0, 1, 1, 2, 3]) if rnd.random() < 0.97 else 0):
        out.append({"type": "shuffle", "method": rnd.choice(methods)})
    if out[-1]["type"] == "shuffle" and rnd.random() < 0.3:
        order = list(s.cards)
        if rnd.random() < 0.2:  # a machine that recorded another order
            i = rnd.randrange(len(order))
            order[i] = rnd.choice(full_deck())
        out[-1]["order"] = [s.form(c) for c in order]
    if (rules is None or rules.cut_required or rnd.random() < 0.3) and rnd.random() < 0.95:
        if rnd.random() < 0.8:
            cut: Event = {"type": "cut", "by": "box", "box": rnd.randint(1, 7)}
            if rnd.random() < 0.5:
                cut["position"] = rnd.randint(0, 52 * s.decks)
        else:
            cut = {"type": "cut", "by": "dealer"}
        out.append(cut)
    if rules is None or rules.cut_card_used:
        behind = rnd.choice([52, 60, 80, 100, 130, 156, 200, 20])
        s.cut_at = max(0, 52 * s.decks - behind)
        if rnd.random() < 0.3:  # a cut card near the front: the shoe ends within the test's rounds
            s.cut_at = rnd.randint(10, 60)
        out.append({"type": "cut_card", "position": s.cut_at})
    late_burn: list[Event] = []
    n = rules.burn_count if rules is not None else rnd.choice([0, 5])
    if rnd.random() < 0.1:
        n = rnd.randint(0, 7)
    if n:
        first = s.drawn + 1
        cards = [s.cards[s.drawn + i] for i in range(n)]
        s.drawn += n
        burn: Event = {"type": "burn"}
        r = rnd.random()
        if r < 0.5:
            burn["cards"] = [s.form(c) for c in cards]
        elif r < 0.8:
            burn["count"] = n
        else:
            burn.update(cards=[], count=n)
        if rnd.random() < 0.5:
            burn["face_down"] = rnd.random() < 0.9
        if s.pos_mode != "none" and rnd.random() < 0.7:
            burn["pos"] = first
        if rules is not None and rules.bets_close_before_start_burn and rnd.random() < 0.9:
            late_burn.append(burn)
        else:
            out.append(burn)
    return out, late_burn


def _round(s: _Shoe, n: int, late_burn: list[Event]) -> list[Event]:
    """One round, mostly as the rules want it."""
    rnd, rules = s.rnd, s.rules
    ev: list[Event] = [{"type": "round_open"}]
    boxes = sorted(rnd.sample(range(1, 8), rnd.choice([1, 1, 2, 2, 3, 4, 7])))
    max_spots = (rules.max_spots_per_box if rules else None) or 3
    stakes: dict[int, dict[int, int]] = {}
    side_bets: list[tuple[int, int, str, int]] = []
    for b in boxes:
        spots = [0] + [k for k in (1, 2) if rnd.random() < 0.25 and k < max_spots + 1]
        if rnd.random() < 0.02:
            spots = [1]  # a bet behind with no holder
        stakes[b] = {}
        for sp in spots:
            cents = rnd.choice(STAKES)
            bet: Event = {"type": "bet", "box": b, "spot": sp, "amount": money(cents)}
            if rnd.random() < 0.3:
                bet["player"] = f"P-{rnd.randint(1, 9999)}"
            ev.append(bet)
            if rnd.random() < 0.08:  # v1.2 (games.md §2): a side bet beside the stake
                kind = rnd.choice(SIDE_BETS)
                side = rnd.choice(STAKES)
                ev.append({"type": "bet", "box": b, "spot": sp, "kind": kind,
                           "amount": money(side)})  # fmt: skip
                side_bets.append((b, sp, kind, side))
            if rnd.random() < 0.05:  # changed before no more bets, or withdrawn
                cents = rnd.choice([0, *STAKES])
                ev.append({"type": "bet", "box": b, "spot": sp, "amount": money(cents)})
            if cents:
                stakes[b][sp] = cents
    boxes = [b for b in boxes if stakes[b]]
    if rnd.random() < 0.95:
        ev.append({"type": "no_more_bets"})
    ev += late_burn
    if rnd.random() < 0.03:  # a misdeal: void, every stake returned
        s.tags.add("void round")
        for b in boxes[:1]:
            ev.append(s.card("box", b))
        ev.append({"type": "void", "reason": rnd.choice(["misdeal", "", "card fell"])})
        for b in boxes:
            for sp in stakes[b]:
                ev.append(_settle(b, 0, sp, "main", 0))
        ev.append({"type": "round_close"})
        return ev
    deal = rules.initial_deal if rules else None
    dealer_cards = deal.dealer_cards if deal else 1
    up = deal.face_up if deal else True
    if rules is not None and rules.three_sevens_pays and rnd.random() < 0.1:
        # three sevens for the first box: its two cards and its first hit
        first = [s.drawn, s.drawn + len(boxes) + 1, s.drawn + 2 * len(boxes) + dealer_cards]
        for k in first:
            s.cards[k % len(s.cards)] = rnd.choice(["7S", "7H", "7D", "7C"])
    hands: dict[tuple[int, int], list[str]] = {(b, 0): [] for b in boxes}
    dealer: list[str] = []
    for k in range(2):
        for b in boxes:
            c = s.card("box", b, 0, up)
            hands[(b, 0)].append(s.cards[(s.drawn - 1) % len(s.cards)])
            ev.append(c)
        if k < dealer_cards:
            ev.append(s.card("dealer", None, 0, deal.dealer_face_up if deal else True))
            dealer.append(s.cards[(s.drawn - 1) % len(s.cards)])
    wagers: dict[tuple[int, int, int], _Wager] = {
        (b, 0, sp): _Wager(b, 0, sp, c, c) for b in boxes for sp, c in stakes[b].items()
    }
    settled: set[tuple[int, int, int]] = set()
    out: list[Event] = []
    if dealer and dealer[0][0] == "A":
        for b in boxes:
            for sp, c in stakes[b].items():
                if natural(hands[(b, 0)]) and rnd.random() < 0.5:
                    ev.append({"type": "even_money", "box": b, "spot": sp})
                    ev.append(_settle(b, 0, sp, "main", c))
                    settled.add((b, 0, sp))
                elif rnd.random() < 0.3:
                    amount = c // 2 if rnd.random() < 0.9 else c
                    ev.append({"type": "insurance", "box": b, "spot": sp, "amount": money(amount)})
                    wagers[(b, 0, -1 - sp)] = _Wager(b, 0, sp, amount, amount)
    if rnd.random() < 0.05:
        # v1.2 (games.md §2): no shipped profile deals a hole card, so a peek is needless
        # and a reveal turns nothing; both must still replay alike
        ev.append({"type": "peek", "blackjack": rnd.random() < 0.5})
    if rnd.random() < 0.05:
        ev += _exposed(s, boxes)
    for b in boxes:
        h = 0
        while (b, h) in hands:
            ev += _play_hand(s, b, h, hands, wagers, stakes[b], settled)
            h += 1
    live = [k for k in wagers if k not in settled and k[2] >= 0]
    free = rules.dealer_plays_freely if rules else False
    stands = rules.dealer_stands_on if rules else 17
    if live or rnd.random() < 0.3:
        limit = rnd.randint(12, 19) if free else stands
        if rnd.random() < 0.05:
            limit += rnd.choice([-1, 1])
        while len(dealer) < 2 or total(dealer) < limit:
            ev.append(s.card("dealer", None, 0))
            dealer.append(s.cards[(s.drawn - 1) % len(s.cards)])
            if s.cut_at is not None and s.drawn > s.cut_at and not s.cut_out:
                s.cut_out = True
                if rnd.random() < 0.5:
                    s.tags.add("cut card out")
                    ev.insert(-1, {"type": "cut_card_out"})
    # insurance, then the main wagers, highest box first (mostly)
    for (b, h, sp), w in sorted(wagers.items(), key=lambda kv: (-kv[0][0], kv[0][1], kv[0][2])):
        if (b, h, sp) in settled:
            continue
        if sp < 0:
            won = natural(dealer)
            ev.append(_settle(b, 0, -1 - sp, "insurance", 2 * w.stake if won else -w.stake))
            continue
        split = (b, 1) in hands
        out.append(_settle(b, h, sp, "main", _due(hands[(b, h)], dealer, w, split, rules)))
        if rnd.random() < 0.04:  # a wrong payout
            out[-1]["amount"] = out[-1]["amount"] + money(rnd.choice([-500, 1, 500, 1000]))
    if (rules is not None and rules.settlement_order == "any") or rnd.random() < 0.1:
        rnd.shuffle(out)
    ev += out
    for b, sp, kind, side in side_bets:  # settled by a guess: the two engines must agree
        ev.append(_settle(b, 0, sp, kind, rnd.choice([-side, 0, side * 9, side * 2])))
    if rnd.random() < 0.97:
        ev.append({"type": "round_close"})
    if boxes and rnd.random() < 0.02:
        s.tags.add("late settle")
        ev.append(_settle(boxes[0], 0, min(stakes[boxes[0]]), "main", 0))
    return ev


def _due(
    cards: list[str], dealer: list[str], w: _Wager, split: bool, rules: Rules | None
) -> int | Fraction:
    bj = rules.blackjack_pays if rules else Fraction(3, 2)
    p, d = total(cards), total(dealer)
    if p > 21:
        return -w.stake
    if natural(cards) and not split:
        return 0 if natural(dealer) else w.stake * bj
    if natural(dealer):
        return -w.stake
    if d > 21 or p > d:
        return w.stake
    return 0 if p == d else -w.stake


def _settle(box: int, hand: int, spot: int, kind: str, cents: int | Fraction) -> Event:
    return {
        "type": "settle",
        "box": box,
        "hand": hand,
        "spot": spot,
        "kind": kind,
        "amount": money(cents),
    }


def _spots(s: _Shoe, spots: list[int]) -> list[int] | None:
    """What an ``action`` lists as ``spots``: nothing (all), all, some, none, or a stranger."""
    r = s.rnd.random()
    if r < 0.5:
        return None
    if r < 0.75:
        s.tags.add("spots full")
        return list(spots)
    if r < 0.88:
        s.tags.add("spots partial")
        return spots[: max(1, len(spots) - 1)] if len(spots) > 1 else [0]
    if r < 0.94:
        s.tags.add("spots empty")
        return []
    s.tags.add("spots unknown")
    return [*spots, 7]


def _play_hand(
    s: _Shoe,
    b: int,
    h: int,
    hands: dict[tuple[int, int], list[str]],
    wagers: dict[tuple[int, int, int], _Wager],
    stakes: dict[int, int],
    settled: set[tuple[int, int, int]],
) -> list[Event]:
    rnd, rules = s.rnd, s.rules
    ev: list[Event] = []
    cards = hands[(b, h)]
    if len(cards) < 2:  # a split hand's second card
        ev.append(s.card("box", b, h))
        cards.append(s.cards[(s.drawn - 1) % len(s.cards)])
    max_hands = rules.max_hands_per_box if rules else 4
    n_hands = sum(1 for k in hands if k[0] == b)
    pair = len(cards) == 2 and (cards[0][0] == cards[1][0] or rnd.random() < 0.03)
    if pair and rnd.random() < 0.6 and (n_hands < max_hands or rnd.random() < 0.1):
        ev += _objection(s, b, h, "split", stakes)
        a: Event = {"type": "action", "box": b, "hand": h, "action": "split"}
        listed = _spots(s, sorted(stakes))
        if listed is not None:
            a["spots"] = listed
        ev.append(a)
        new = n_hands
        hands[(b, new)] = [cards.pop()]
        for sp in listed if listed is not None else stakes:
            if (b, h, sp) in wagers:
                wagers[(b, new, sp)] = _Wager(
                    b, new, sp, wagers[(b, h, sp)].base, wagers[(b, h, sp)].base
                )
        ev.append(s.card("box", b, h))
        cards.append(s.cards[(s.drawn - 1) % len(s.cards)])
    t = total(cards)
    if natural(cards) and h == 0 and n_hands == 1:
        return ev
    if len(cards) == 2 and (9 <= t <= 11 or rnd.random() < 0.03) and rnd.random() < 0.5:
        ev += _objection(s, b, h, "double", stakes)
        a = {"type": "action", "box": b, "hand": h, "action": "double"}
        listed = _spots(s, sorted(stakes))
        if listed is not None:
            a["spots"] = listed
        less = rnd.random() < 0.3
        if less:
            s.tags.add("double for less")
            a["amount"] = money(min(stakes.values()) // 2)
        ev.append(a)
        for sp in listed if listed is not None else stakes:
            w = wagers.get((b, h, sp))
            if w is not None:
                w.stake += min(w.base, min(stakes.values()) // 2) if less else w.base
        ev.append(s.card("box", b, h))
        cards.append(s.cards[(s.drawn - 1) % len(s.cards)])
        return ev + _bust(b, h, cards, wagers, settled)
    if len(cards) == 2 and t in (15, 16) and rnd.random() < 0.15:
        ev.append({"type": "action", "box": b, "hand": h, "action": "surrender"})
        for sp in stakes:
            if (b, h, sp) in wagers:
                ev.append(_settle(b, h, sp, "main", -(wagers[(b, h, sp)].stake // 2)))
                settled.add((b, h, sp))
        return ev
    mandatory = (rules.mandatory_hit_max if rules else None) or 0
    want = 15 if [c[0] for c in cards] == ["7", "7"] else rnd.randint(12, 18)
    while total(cards) < 21 and (total(cards) <= mandatory or total(cards) < want):
        if rnd.random() < s.explicit:
            ev.append({"type": "action", "box": b, "hand": h, "action": "hit"})
        ev.append(s.card("box", b, h))
        cards.append(s.cards[(s.drawn - 1) % len(s.cards)])
    if [c[0] for c in cards] == ["7", "7", "7"] and rules is not None and rules.three_sevens_pays:
        s.tags.add("three sevens")
        for sp in stakes:
            ev.append(
                _settle(
                    b,
                    h,
                    sp,
                    "bonus",
                    wagers[(b, h, sp)].base * rules.three_sevens_pays
                    if (b, h, sp) in wagers
                    else 0,
                )
            )
    if total(cards) <= 21 and rnd.random() < s.explicit:
        ev.append({"type": "action", "box": b, "hand": h, "action": "stand"})
    return ev + _bust(b, h, cards, wagers, settled)


def _bust(
    b: int,
    h: int,
    cards: list[str],
    wagers: dict[tuple[int, int, int], _Wager],
    settled: set[tuple[int, int, int]],
) -> list[Event]:
    if total(cards) <= 21:
        return []
    out = []
    for (wb, wh, sp), w in wagers.items():
        if (wb, wh) == (b, h) and sp >= 0:
            out.append(_settle(b, h, sp, "main", -w.stake))
            settled.add((wb, wh, sp))
    return out


def _objection(s: _Shoe, b: int, h: int, action: str, stakes: dict[int, int]) -> list[Event]:
    behind = [sp for sp in stakes if sp]
    if not behind or s.rnd.random() < 0.8:
        return []
    e: Event = {"type": "objection", "box": b, "spot": s.rnd.choice(behind), "action": action}
    if h or s.rnd.random() < s.explicit:
        e["hand"] = h
    return [e]


def _exposed(s: _Shoe, boxes: list[int]) -> list[Event]:
    """The exposed-card procedure: offered around, then placed or burned shown."""
    rnd = s.rnd
    code = s.peek()
    ev: list[Event] = [{"type": "exposed_card", "card": s.form(code)}]
    for b in boxes:
        accepted = rnd.random() < 0.3
        ev.append(
            {"type": "offer", "card": s.form(code), "to": "box", "box": b, "accepted": accepted}
        )
        if accepted:
            s.tags.add("exposed card accepted")
            ev.append(s.card("box", b, 0))
            return ev
    ev.append({"type": "offer", "card": s.form(code), "to": "dealer", "accepted": False})
    s.tags.add("exposed card burned")
    s.drawn += 1
    burn: Event = {"type": "burn", "cards": [s.form(code)], "face_down": False}
    if s.pos_mode != "none":
        burn["pos"] = s.drawn
    ev.append(burn)
    return ev


def shoe_events(spec: ShoeSpec, first_of_table: bool) -> tuple[list[Event], set[str]]:
    """One shoe's events in order (envelopes still to add), and the :data:`FORMS` it drew."""
    rnd = random.Random(spec.seed)
    profile = REGISTRY.get(spec.profile) if spec.profile in REGISTRY else None
    rules = profile.rules if profile else None
    decks = (rules.decks if rules else None) or rnd.choice([1, 2, 6])
    if rnd.random() < 0.05:
        decks = rnd.choice([1, 4, 8])
    cards = full_deck() * decks
    rnd.shuffle(cards)
    tags: set[str] = set()
    s = _Shoe(
        rnd, rules, decks, cards, tags,
        pos_mode=rnd.choice(["all", "all", "all", "some", "none"]),
        explicit=rnd.choice([0.0, 0.0, 0.3, 1.0]),
    )  # fmt: skip
    dealer = f"D{rnd.randint(1, 40):03d}"
    ev, late_burn = _preamble(s, spec, dealer)
    if (
        rules is not None
        and rules.inspection_required
        and not first_of_table
        and rnd.random() < 0.7
    ):
        ev = [e for e in ev if e["type"] != "inspection"]
    rounds = (
        1 if rules is not None and rules.shuffle_every_round and rnd.random() < 0.8 else spec.rounds
    )
    for n in range(1, rounds + 1):
        if n > 1 and rnd.random() < 0.1:
            ev.append({"type": "dealer_change", "dealer": f"D{rnd.randint(1, 40):03d}"})
        if n > 1 and rules is not None and rules.shuffle_every_round:
            ev.append({"type": "shuffle", "method": "wash"})
        ev += [{**e, "round": n} for e in _round(s, n, late_burn if n == 1 else [])]
        if s.cut_out:
            break
    if rnd.random() < 0.9:
        close: Event = {"type": "shoe_close", "reason": rnd.choice(
            ["cut_card", "reshuffle", "end_of_session", "integrity", "other"]
        )}  # fmt: skip
        if rnd.random() < 0.7:
            close["remaining"] = max(0, 52 * decks - s.drawn + rnd.choice([0, 0, 0, 1, -1]))
        ev.append(close)
    else:
        tags.add("shoe without close")
    if rnd.random() < 0.1:
        tags.add("unknown type")
        ev.insert(
            rnd.randrange(len(ev) + 1), {"type": rnd.choice(["tip_box", "peek_v9"]), "note": 1}
        )
    if rnd.random() < 0.1:
        tags.add("unknown field")
        rnd.choice(ev)["x_vendor"] = rnd.choice(["a", 1, None, [1, 2]])
    if rnd.random() < 0.05:
        ev[rnd.randrange(len(ev))]["v"] = 1
    for _ in range(_mutations(rnd, spec.hostility)):
        _mutate(rnd, ev, tags)
    return ev, tags


def _mutations(rnd: random.Random, hostility: int) -> int:
    if hostility == 0:
        return 0
    if hostility == 1:
        return rnd.randint(1, 3)
    return rnd.randint(3, 12)


def _mutate(rnd: random.Random, ev: list[Event], tags: set[str]) -> None:
    """One hostile change to a shoe's events."""
    if not ev:
        return
    i = rnd.randrange(len(ev))
    kind = rnd.choice(
        ["move", "move", "late", "settle first", "copy", "drop", "change", "change", "insert",
         "invalid", "out of turn"]
    )  # fmt: skip
    if kind == "move":
        tags.add("event moved")
        e = ev.pop(i)
        ev.insert(max(0, min(len(ev), i + rnd.randint(-6, 6))), e)
    elif kind == "late":
        closes = [k for k, e in enumerate(ev) if e["type"] == "round_close"]
        rounds = [k for k, e in enumerate(ev) if "round" in e and e["type"] != "round_close"]
        if closes and rounds:
            tags.add("late event")
            e = ev.pop(rnd.choice(rounds))
            ev.insert(min(len(ev), rnd.choice(closes) + rnd.randint(0, 3)), e)
    elif kind == "settle first":
        settles = [k for k, e in enumerate(ev) if e["type"] == "settle"]
        if settles:
            tags.add("settle before cards")
            k = rnd.choice(settles)
            e = ev.pop(k)
            same = [
                j
                for j, x in enumerate(ev)
                if x.get("round") == e.get("round") and x["type"] == "card"
            ]
            ev.insert(same[0] if same else 0, e)
    elif kind == "copy":
        tags.add("event copied")
        ev.insert(min(len(ev), i + rnd.randint(0, 4)), dict(ev[i]))
    elif kind == "drop":
        tags.add("event dropped")
        ev.pop(i)
    elif kind == "change":
        tags.add("value changed")
        _change(rnd, ev[i], tags)
    elif kind == "insert":
        rounds = [e["round"] for e in ev if "round" in e] or [1]
        ev.insert(i, random_event(rnd, rnd.choice(rounds)))
    elif kind == "invalid":
        tags.add("invalid line")
        e = dict(ev[i])
        key = rnd.choice(["box", "amount", "card", "seq", "spots", "round", "decks", "hand"])
        e[key] = rnd.choice([0, 8, -1, "3", Decimal("1.005"), "ZZ", None, [1.5], 2**60, True])
        ev.insert(i, e)
    else:
        cards = [k for k, e in enumerate(ev) if e["type"] == "card" and e.get("to") == "box"]
        if cards:
            tags.add("card of another box")
            e = ev[rnd.choice(cards)]
            e["box"] = rnd.randint(1, 7)
            if rnd.random() < 0.5:
                e["hand"] = rnd.randint(0, 2)


BOUNDS = [2**31, 2**32, 2**53 - 1]
"""Integers at TEL/1's bound (2^53 - 1) and at the bounds of machine integers below it."""


def _change(rnd: random.Random, e: Event, tags: set[str]) -> None:
    """One field of ``e`` given another value, legal or not for the rules (valid TEL/1)."""
    fields = [f for f in e if f not in ("type", "round")]
    if not fields:
        e["round"] = max(1, e.get("round", 1) + rnd.choice([-1, 1, 5]))
        return
    f = rnd.choice(fields)
    v = e[f]
    if f == "box":
        e[f] = rnd.randint(1, 7)
    elif f in ("hand", "spot"):
        e[f] = rnd.choice([0, 1, 2, 3, 9, *BOUNDS])
        if f == "hand" and e[f] > 9:
            tags.add("bound value")
    elif f in ("pos", "position", "remaining", "decks", "count"):
        # an invalid line's value ("ZZ", None, a list) is changed from 1
        base = v if isinstance(v, int) and not isinstance(v, bool) else 1
        e[f] = max(1, base + rnd.choice([-2, -1, 1, 2, 100]))
        if rnd.random() < 0.1 and f != "decks":  # a shoe of 2^53 decks is a test of memory
            e[f] = rnd.choice(BOUNDS)
            tags.add("bound value")
    elif isinstance(v, Decimal):
        e[f] = (
            abs(v * rnd.choice([0, 2, -1])) if e["type"] != "settle" else v * rnd.choice([0, 2, -1])
        )
    elif f == "card":
        e[f] = rnd.choice(full_deck())
    elif isinstance(v, bool):
        e[f] = not v
    elif f == "to":
        e[f] = "dealer" if v == "box" else "box"
        e.setdefault("box", rnd.randint(1, 7))
    elif f == "spots":
        e[f] = rnd.choice([[], [0], [0, 1], [1], [3, 0]])
    elif f == "kind":
        e[f] = rnd.choice(["main", "insurance", "bonus"])
    elif f == "action":
        e[f] = rnd.choice(
            ["hit", "stand", "double", "split", "surrender"]
            if e["type"] == "action"
            else ["double", "split"]
        )
    elif f == "cards":
        e[f] = [rnd.choice(full_deck()) for _ in range(rnd.randint(0, 6))]
    else:
        e.pop(f)


def random_event(rnd: random.Random, round_no: int) -> Event:
    """Any event type with any of its fields, legal or not for the rules, valid TEL/1."""
    card = lambda: rnd.choice(full_deck())  # noqa: E731
    box = lambda: rnd.randint(1, 7)  # noqa: E731
    small = lambda: rnd.choice([0, 0, 1, 2, 3, 7])  # noqa: E731
    stake = lambda: money(rnd.choice([0, 1, *STAKES, 99999999999999]))  # noqa: E731
    t = rnd.choice(sorted(EVENT_TYPES))
    e: Event = {"type": t}
    if t in ROUND_EVENT_TYPES:
        e["round"] = round_no
    if t == "bet":
        e.update(box=box(), spot=small(), amount=stake())
        if rnd.random() < 0.3:  # v1.2 (games.md §2)
            e["kind"] = rnd.choice(["main", *SIDE_BETS, "keno"])
    elif t == "card":
        e.update(card=card(), to="dealer")
        if rnd.random() < 0.7:
            e.update(to="box", box=box(), hand=small())
    elif t == "action":
        e.update(
            box=box(),
            hand=small(),
            action=rnd.choice(["hit", "stand", "double", "split", "surrender"]),
        )
        if rnd.random() < 0.5:
            e["spots"] = rnd.sample(range(4), rnd.randint(0, 3))
        if rnd.random() < 0.3:
            e["amount"] = stake()
    elif t == "objection":
        e.update(box=box(), hand=small(), spot=small(), action=rnd.choice(["double", "split"]))
    elif t == "insurance":
        e.update(box=box(), spot=small(), amount=stake())
    elif t == "even_money":
        e.update(box=box(), spot=small())
    elif t == "exposed_card":
        e["card"] = card()
    elif t == "peek":  # v1.2 (games.md §2): what the dealer announced, optional
        if rnd.random() < 0.7:
            e["blackjack"] = rnd.random() < 0.5
    elif t == "offer":
        e.update(card=card(), to="dealer", accepted=rnd.random() < 0.5)
        if rnd.random() < 0.7:
            e.update(to="box", box=box())
    elif t == "settle":
        amount = stake()
        kind = rnd.choice(["main", "insurance", "bonus", *SIDE_BETS])
        amount = -amount if rnd.random() < 0.5 else amount
        e.update(box=box(), hand=small(), spot=small(), kind=kind, amount=amount)
    elif t == "void":
        e["reason"] = rnd.choice(["misdeal", ""])
    elif t == "shoe_open":
        e.update(
            profile=rnd.choice([*PROFILES, UNKNOWN_PROFILE]), decks=rnd.randint(1, 8), dealer="D9"
        )
    elif t == "inspection":
        e.update(decks=rnd.randint(1, 8), ok=rnd.random() < 0.5)
    elif t == "shuffle":
        e["method"] = rnd.choice(["wash", "riffle", "strip", "box", "machine", "other"])
    elif t == "cut":
        e["by"] = "dealer"
        if rnd.random() < 0.5:
            e.update(by="box", box=box(), position=rnd.randint(0, 400))
    elif t == "cut_card":
        e["position"] = rnd.randint(0, 400)
    elif t == "burn":
        e.update(cards=[card() for _ in range(rnd.randint(0, 5))], face_down=rnd.random() < 0.5)
        if rnd.random() < 0.5:
            e["pos"] = rnd.randint(1, 400)
        if not e["cards"]:
            e["count"] = rnd.randint(0, 5)
    elif t == "dealer_change":
        e["dealer"] = f"D{rnd.randint(1, 40):03d}"
    elif t == "shoe_close":
        e.update(
            reason=rnd.choice(["cut_card", "reshuffle", "end_of_session", "integrity", "other"]),
            remaining=rnd.randint(0, 400),
        )
    return e


# --------------------------------------------------------------------------- a night


@dataclass
class Night:
    """A night's lines (JSON objects, envelopes included) and what its shoes drew."""

    lines: list[Event] = field(default_factory=list)
    tags: set[str] = field(default_factory=set)
    shoes: int = 0


EDGE_TIMES = [
    "0001-01-01T12:00:00Z",
    "9999-12-31T10:00:00-05:00",
    "2026-11-29T05:59:59.999999+14:00",
]


def night(specs: list[ShoeSpec], tables: int, seed: int) -> Night:
    """The shoes of ``specs`` dealt at ``tables`` tables one after the other, as a night's
    lines: ids, ``seq`` per table (now and then a gap or a repeat), times from 19:00 on."""
    rnd = random.Random(seed)
    out = Night()
    by_table: dict[str, list[ShoeSpec]] = {}
    for k, spec in enumerate(specs):
        by_table.setdefault(f"T{k % tables + 1:02d}", []).append(spec)
    day = dt.datetime(2026, 11, 28, 19, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    for table, shoes in by_table.items():
        seq, ts, n = 0, day + dt.timedelta(seconds=rnd.randint(0, 3600)), 0
        shoe_ids = [f"{table}-20261128-{i + 1:02d}" for i in range(len(shoes))]
        for i, spec in enumerate(shoes):
            events, tags = shoe_events(spec, first_of_table=i == 0)
            out.tags |= tags
            out.shoes += 1
            for e in events:
                n += 1
                seq += 1
                r = rnd.random()
                if r < 0.002 * spec.hostility:
                    seq += rnd.randint(1, 3)
                    out.tags.add("seq gap")
                elif r < 0.004 * spec.hostility and seq > 1:
                    seq -= 1
                    out.tags.add("seq repeated")
                ts += dt.timedelta(seconds=rnd.choice([1, 1, 2, 5, 30]))
                when = ts.isoformat()
                if spec.hostility == 2 and rnd.random() < 0.005:
                    when = rnd.choice(EDGE_TIMES)  # the ends of the calendar
                    out.tags.add("edge time")
                shoe = shoe_ids[i]
                if spec.hostility == 2 and rnd.random() < 0.01 and len(shoe_ids) > 1:
                    shoe = rnd.choice(shoe_ids)
                    out.tags.add("other shoe's event")
                line = {
                    "id": f"{table}-{n}",
                    "seq": seq,
                    "ts": when,
                    "table": table,
                    "shoe": shoe,
                    **e,
                }
                if rnd.random() < 0.01:
                    line["stream"] = table  # TEL/1 v1.2: the table's own stream, named
                    out.tags.add("stream named")
                out.lines.append(line)
                if spec.hostility and rnd.random() < 0.01:
                    out.tags.add("id repeated")
                    out.lines.append(dict(line))
                elif spec.hostility == 2 and rnd.random() < 0.005:
                    out.tags.add("id conflict")
                    out.lines.append({**line, "seq": line["seq"] + 1000})
        ts += dt.timedelta(hours=rnd.choice([0, 0, 12]))  # a table's next night, now and then
    return out


def dumps(e: Event) -> str:
    """One JSON line, money (``Decimal``) written as a JSON number."""
    return "{" + ",".join(f"{json.dumps(k)}:{_value(v)}" for k, v in e.items()) + "}"


def _value(v: Any) -> str:
    if isinstance(v, Decimal):
        return format(v, "f")
    if isinstance(v, list):
        return "[" + ",".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):  # shoe_open.side_limits: money inside an object
        return "{" + ",".join(f"{json.dumps(k)}:{_value(x)}" for k, x in v.items()) + "}"
    return json.dumps(v)


def write_night(n: Night, path: Any, seed: int) -> None:
    """The night as one JSON Lines file, the tables' lines interleaved (each in its order)."""
    rnd = random.Random(seed)
    lines = [dumps(e) for e in n.lines]
    if rnd.random() < 0.5:
        rnd.shuffle(lines)  # order within a file means nothing: seq does
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
