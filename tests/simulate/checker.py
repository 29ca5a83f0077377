"""An independent re-reading of simulated logs, for the simulator's own tests.

It rebuilds every round from the events alone (no simulator state) and
checks the invariants a clean log must keep whatever the engine says: ids and
``seq``, card positions and counts, the shoe reconciliation, and that every
wager is settled exactly once at the amount rules.md gives. It reads what a
rich table writes (event-log.md's optional fields: card codes in any case or
with ``10``, cards without ``pos`` at the position after the previous one,
``spots`` on doubles and splits, void rounds). It is not an auditor: it
reports the first problems it sees, as text.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from audit.events.cards import hand_total, is_ace, is_ten_value, normalise_card
from audit.profiles import load_registry

_REG = load_registry()


def _bj(cards: list[str]) -> bool:
    return len(cards) >= 2 and (
        (is_ace(cards[0]) and is_ten_value(cards[1]))
        or (is_ace(cards[1]) and is_ten_value(cards[0]))
    )


@dataclass
class _Hand:
    cards: list[str] = field(default_factory=list)
    stakes: dict[int, Decimal] = field(default_factory=dict)
    extra: dict[int, Decimal] = field(default_factory=dict)
    from_split: bool = False


def _ratio(r: Any, stake: Decimal) -> Decimal:
    return stake * r.numerator / r.denominator


def check_shoe(events: list[dict[str, Any]]) -> list[str]:
    """Problems found in one shoe's events (``seq`` order); empty for a clean shoe."""
    problems: list[str] = []
    opened = events[0]
    assert opened["type"] == "shoe_open", opened
    rules = _REG.get(opened["profile"]).rules
    decks = opened["decks"]
    where = f"{opened['shoe']}"
    positions: list[int] = []
    seen: Counter[str] = Counter()
    burned = dealt = 0
    rnd: dict[str, Any] | None = None
    next_pos = 1

    def place(e: dict[str, Any], n: int) -> None:
        nonlocal next_pos
        first = e.get("pos", next_pos)
        positions.extend(range(first, first + n))
        next_pos = first + n

    def new_round() -> dict[str, Any]:
        return {
            "bets": {},
            "hands": {},
            "dealer": [],
            "ins": {},
            "em": set(),
            "settles": [],
            "nmb": False,
            "void": False,
        }

    for e in events:
        t = e["type"]
        if t == "burn":
            n = len(e["cards"]) or e.get("count", 0)
            burned += n
            seen.update(normalise_card(c) for c in e["cards"])
            place(e, n)
        elif t == "round_open":
            rnd = new_round()
        elif rnd is None:
            continue
        elif t == "bet":
            if rnd["nmb"]:
                problems.append(f"{where} r{e['round']}: bet after no more bets")
            key = (e["box"], e["spot"])
            if e["amount"] == 0:
                rnd["bets"].pop(key, None)
            else:
                rnd["bets"][key] = e["amount"]
        elif t == "no_more_bets":
            rnd["nmb"] = True
            for (box, spot), amount in rnd["bets"].items():
                rnd["hands"].setdefault((box, 0), _Hand()).stakes[spot] = amount
                if amount < opened["min_bet"]:
                    problems.append(f"{where} r{e['round']}: stake {amount} under the minimum")
            totals: Counter[int] = Counter()
            for (box, _), amount in rnd["bets"].items():
                totals[box] += amount
            if any(v > opened["max_bet"] for v in totals.values()):
                problems.append(f"{where} r{e['round']}: a box over the maximum")
        elif t == "card":
            dealt += 1
            card = normalise_card(e["card"])
            seen[card] += 1
            place(e, 1)
            if e["to"] == "dealer":
                rnd["dealer"].append(card)
            else:
                rnd["hands"][(e["box"], e.get("hand", 0))].cards.append(card)
        elif t == "action" and e["action"] == "split":
            h = rnd["hands"][(e["box"], e["hand"])]
            n = sum(1 for (b, _) in rnd["hands"] if b == e["box"])
            spots = e.get("spots", list(h.stakes))
            stakes = {s: st for s, st in h.stakes.items() if s in spots}
            rnd["hands"][(e["box"], n)] = _Hand([h.cards.pop()], stakes, {}, True)
            h.from_split = True
        elif t == "action" and e["action"] == "double":
            h = rnd["hands"][(e["box"], e["hand"])]
            spots = e.get("spots", list(h.stakes))
            for s, st in h.stakes.items():
                if s in spots:
                    h.extra[s] = e.get("amount", st)
        elif t == "void":
            rnd["void"] = True
        elif t == "insurance":
            rnd["ins"][(e["box"], e["spot"])] = e["amount"]
        elif t == "even_money":
            rnd["em"].add((e["box"], e["spot"]))
        elif t == "settle":
            rnd["settles"].append(e)
        elif t == "round_close":
            problems += _check_round(where, e["round"], rnd, rules)
            rnd = None
    close = events[-1]
    if close["type"] != "shoe_close":
        problems.append(f"{where}: not closed")
    else:
        reached = max(positions) if positions else burned + dealt
        if positions and sorted(positions) != list(range(1, len(positions) + 1)):
            problems.append(f"{where}: positions are not 1..n")
        if reached + close["remaining"] != 52 * decks:
            problems.append(f"{where}: {reached} drawn + {close['remaining']} left != {52 * decks}")
    over = [c for c, n in seen.items() if n > decks]
    if over:
        problems.append(f"{where}: cards seen more than {decks} times: {over}")
    return problems


def _check_round(where: str, round_no: int, rnd: dict[str, Any], rules: Any) -> list[str]:
    problems: list[str] = []
    dealer: list[str] = rnd["dealer"]
    home = rules.dealer_plays_freely
    d_total = hand_total(dealer)[0] if dealer else 0
    d_bj = len(dealer) >= 2 and _bj(dealer[:2])
    expected: dict[tuple[int, int, int, str], Decimal] = {}
    for (box, hi), h in rnd["hands"].items():
        total = hand_total(h.cards)[0]
        natural = not h.from_split and _bj(h.cards[:2])
        for spot, stake in h.stakes.items():
            whole = stake + h.extra.get(spot, Decimal(0))
            if home:
                if d_bj:
                    amount = Decimal(0) if natural else -stake
                elif natural:
                    amount = _ratio(rules.blackjack_pays, stake)
                elif total > 21:
                    amount = -stake
                elif d_total > 21 or total > d_total:
                    amount = stake
                else:
                    amount = -stake if total < d_total else Decimal(0)
            elif (box, spot) in rnd["em"] and natural:
                amount = _ratio(rules.win_pays, stake)
            elif natural:
                amount = Decimal(0) if d_bj else _ratio(rules.blackjack_pays, stake)
            elif total > 21 or d_bj:
                amount = -whole
            elif d_total > 21 or total > d_total:
                amount = whole
            else:
                amount = -whole if total < d_total else Decimal(0)
            if rnd["void"]:
                amount = Decimal(0)
            expected[(box, hi, spot, "main")] = amount
            sevens = len(h.cards) == 3 and all(c[0] == "7" for c in h.cards)
            if rules.three_sevens_pays is not None and sevens and not rnd["void"]:
                expected[(box, hi, spot, "bonus")] = _ratio(rules.three_sevens_pays, stake)
    for (box, spot), amount in rnd["ins"].items():
        expected[(box, 0, spot, "insurance")] = 2 * amount if d_bj else -amount
    got: dict[tuple[int, int, int, str], list[Decimal]] = defaultdict(list)
    for s in rnd["settles"]:
        got[(s["box"], s["hand"], s["spot"], s["kind"])].append(s["amount"])
    for key, amount in expected.items():
        if got.get(key) != [amount]:
            problems.append(f"{where} r{round_no} {key}: settled {got.get(key)}, due {amount}")
    for key in got.keys() - expected.keys():
        problems.append(f"{where} r{round_no} {key}: settled a wager that does not exist")
    return problems


def shoes_of(events: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Events grouped per (table, shoe), each in ``seq`` order."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for e in sorted(events, key=lambda e: (e["table"], e["seq"])):
        out[(e["table"], e["shoe"])].append(e)
    return dict(out)
