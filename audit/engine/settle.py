"""Settlements: what each wager should net, which ``PAY_`` code a wrong one gets, timing, order.

rules.md, "Findings": settlements are judged against what actually happened
(the hands as dealt, the stakes as placed); a dealer error or a late bet is its
own finding and never cascades into payout findings. "How many findings": one
finding per wrong wager, chosen by :func:`pay_code`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from audit.engine.dealer import dealer_natural
from audit.engine.hands import best_total
from audit.engine.play import PlayHand
from audit.engine.result import WagerRecord
from audit.events.cards import is_ace, is_ten_value
from audit.findings import Code, money_str
from audit.profiles.model import Rules

if TYPE_CHECKING:
    from audit.engine.round import RoundState, SettleRec

ZERO = Decimal(0)
CENT = Decimal("0.01")


def payout(stake: Decimal, ratio: Fraction) -> Decimal:
    """The win on ``stake`` at ``ratio`` (3/2 for a blackjack, 1/1 for a win), exactly."""
    return stake * ratio.numerator / ratio.denominator


def amounts_match(actual: Decimal, expected: Decimal) -> bool:
    """Exact money comparison; a due amount finer than a cent may be paid rounded to cents."""
    if actual == expected:
        return True
    return expected != expected.quantize(CENT) and abs(actual - expected) < CENT


def _ratio(r: Fraction) -> str:
    return f"{r.numerator}:{r.denominator}"


def _sign(d: Decimal) -> int:
    return (d > 0) - (d < 0)


def expected_main(
    hand: PlayHand, spot: int, dealer: list[str], rules: Rules
) -> tuple[Decimal, str, str]:
    """The correct net settlement of a main wager, why in words, and the rule it follows.

    000/001/004: a natural wins 3:2 (also against the dealer's 21 in 3+ cards),
    pushes against the dealer's blackjack; a bust loses at once; the dealer's
    blackjack takes the whole stake, doubles and splits included (rules.md house
    default); other wins 1:1, ties push. 002: a natural 1:1; the banker's
    two-card 21 takes every stake but another two-card 21. Even money (001):
    +stake. A surrender (never allowed; judged as it happened): half the stake.
    """
    stake = hand.stake(spot)
    base = hand.stakes.get(spot, ZERO)
    d_nat = dealer_natural(dealer)
    d_total = best_total(dealer)
    if hand.surrendered:
        return -stake / 2, "surrendered: half the stake", "surrender_allowed"
    if spot in hand.even_money:
        return base, "even money 1:1", "even_money_offered"
    if hand.natural:
        if d_nat:
            return ZERO, "blackjack v dealer blackjack: push", "blackjack_pays"
        if d_total == 21 and not rules.blackjack_beats_dealer_21:
            return ZERO, "blackjack v dealer 21: push", "blackjack_beats_dealer_21"
        return (
            payout(stake, rules.blackjack_pays),
            f"blackjack wins {_ratio(rules.blackjack_pays)}",
            "blackjack_pays",
        )
    total = hand.state.total
    if hand.bust:
        return -stake, f"bust {total}", "win_pays"
    if d_nat:
        if rules.dealer_blackjack_takes_all:
            return (
                -stake,
                f"{total} v dealer blackjack: the whole stake",
                "dealer_blackjack_takes_all",
            )
        kept = -base if not hand.state.from_split or hand.number == 0 else ZERO
        return kept, f"{total} v dealer blackjack: the original stake", "dealer_blackjack_takes_all"
    if d_total > 21:
        return payout(stake, rules.win_pays), f"{total} v dealer bust {d_total}", "win_pays"
    if total > d_total:
        return payout(stake, rules.win_pays), f"{total} v dealer {d_total}: win", "win_pays"
    if total == d_total:
        return ZERO, f"{total} v dealer {d_total}: push", "win_pays"
    return -stake, f"{total} v dealer {d_total}: loss", "win_pays"


def pay_code(
    hand: PlayHand | None, stake: Decimal, expected: Decimal, actual: Decimal, rules: Rules
) -> Code:
    """Which ``PAY_`` code a wrong main settlement gets (rules.md, "How many findings").

    A two-card 21 after a split paid the blackjack payout of its stake:
    ``PAY_SPLIT_BLACKJACK_AS_NATURAL``; a natural paid 0 < A < C:
    ``PAY_BLACKJACK_SHORT``; a different sign: ``PAY_WRONG_OUTCOME``; else
    ``PAY_WRONG_AMOUNT``.
    """
    if (
        hand is not None
        and hand.split_21
        and amounts_match(actual, payout(stake, rules.blackjack_pays))
    ):
        return Code.PAY_SPLIT_BLACKJACK_AS_NATURAL
    if hand is not None and hand.natural and ZERO < actual < expected:
        return Code.PAY_BLACKJACK_SHORT
    if _sign(actual) != _sign(expected):
        return Code.PAY_WRONG_OUTCOME
    return Code.PAY_WRONG_AMOUNT


@dataclass
class Wager:
    """A wager being judged."""

    box: int
    hand: int
    spot: int
    kind: str
    stake: Decimal
    base: Decimal
    player: str | None
    expected: Decimal
    outcome: str
    rule: str
    play_hand: PlayHand | None = None
    settles: list[SettleRec] = field(default_factory=list)
    paid_at_once: bool = False

    @property
    def key(self) -> tuple[int, int, int, str]:
        return (self.box, self.hand, self.spot, self.kind)


def _build_wagers(rs: RoundState) -> list[Wager]:
    rules = rs.rules
    d = rs.dealer
    no_cards = not rs.dealt
    wagers: list[Wager] = []
    for h in rs.wager_hands():
        box = rs.boxes[h.box]
        for spot in sorted(h.stakes):
            base = h.stakes[spot]
            if base <= 0:
                continue
            if rs.voided or no_cards:
                exp, words, rule = (
                    ZERO,
                    "void: stake returned" if rs.voided else "no cards: returned",
                    "win_pays",
                )
            else:
                exp, words, rule = expected_main(h, spot, d, rules)
            w = Wager(
                h.box,
                h.number,
                spot,
                "main",
                h.stake(spot),
                base,
                box.players.get(spot),
                exp,
                words,
                rule,
                h,
            )
            w.paid_at_once = _paid_at_once(h, spot, d, rules) and not rs.voided
            wagers.append(w)
            if rules.three_sevens_pays is not None and h.three_sevens and not rs.voided:
                prize = payout(base, rules.three_sevens_pays)
                wagers.append(
                    Wager(
                        h.box,
                        h.number,
                        spot,
                        "bonus",
                        base,
                        base,
                        box.players.get(spot),
                        prize,
                        f"21 with three sevens: {_ratio(rules.three_sevens_pays)}",
                        "three_sevens_pays",
                        h,
                    )
                )
    d_nat = dealer_natural(d)
    for (box_no, spot), (amount, _ids) in sorted(rs.insurance.items()):
        if rs.voided:
            exp, words = ZERO, "void: stake returned"
        elif d_nat:
            exp, words = (
                payout(amount, rules.insurance_pays),
                f"dealer blackjack: insurance wins {_ratio(rules.insurance_pays)}",
            )
        else:
            exp, words = -amount, "no dealer blackjack: insurance lost"
        b = rs.boxes.get(box_no)
        player = b.players.get(spot) if b is not None else None
        wagers.append(
            Wager(
                box_no, 0, spot, "insurance", amount, amount, player, exp, words, "insurance_pays"
            )
        )
    return wagers


def _paid_at_once(h: PlayHand, spot: int, d: list[str], rules: Rules) -> bool:
    """A natural paid before the final pass: 001 on the spot (no dealer ace), 002 at once."""
    if not h.natural or spot in h.even_money or dealer_natural(d):
        return False
    if rules.blackjack_paid == "at_once":
        return True
    return rules.blackjack_paid == "on_the_spot" and bool(d) and not is_ace(d[0])


def _timing(rs: RoundState, w: Wager, s: SettleRec) -> tuple[str, str] | None:
    """Whether a correct settlement came at the moment the profile requires; (rule, why) if not.

    Busts «immediatamente» (000, 001): before the next card leaves the shoe.
    Blackjacks (rules.md, "When things must happen"): 001 with a dealer 2-9 and
    002 when play reaches the box, before any card to a later box or the dealer;
    001 with a ten-value after the dealer's second card and before the third;
    otherwise at settlement, after the last card. Even money before the
    dealer's second card.
    """
    h = w.play_hand
    if h is None or w.kind != "main":
        return None
    rules = rs.rules
    d = rs.dealer
    if h.bust and h.bust_index is not None and not h.natural:
        nxt = next((i for i in rs.draws if i > h.bust_index), None)
        if nxt is not None and s.index > nxt:
            return ("settlement_order", "a bust is collected before the next card leaves the shoe")
        return None
    if w.spot in h.even_money:
        if len(rs.dealer_indexes) >= 2 and s.index > rs.dealer_indexes[1]:
            return ("blackjack_paid", "even money is paid before the dealer's second card")
        return None
    if not h.natural or w.expected <= 0:
        return None
    formed = h.card_indexes[1] if len(h.card_indexes) >= 2 else -1
    if w.paid_at_once and (rules.blackjack_paid == "at_once" or not is_ten_value(d[0])):
        later = next(
            (
                i
                for i, t in rs.play_cards
                if t[0] == "dealer" or (t[1] is not None and t[1] > h.box)
            ),
            None,
        )
        if s.index < formed or (later is not None and s.index > later):
            return (
                "blackjack_paid",
                "a blackjack is paid at once, before any card to a later box or the dealer",
            )
        return None
    if w.paid_at_once:
        second = rs.dealer_indexes[1] if len(rs.dealer_indexes) >= 2 else None
        third = rs.dealer_indexes[2] if len(rs.dealer_indexes) >= 3 else None
        if second is None or s.index < second or (third is not None and s.index > third):
            return (
                "blackjack_paid",
                "against a ten-value, a blackjack is paid after the dealer's second card, "
                "before the third",
            )
        return None
    last = max(rs.draws, default=-1)
    if s.index < last:
        return (
            "blackjack_paid",
            "a blackjack is paid at settlement, once the dealer's hand is complete",
        )
    return None


def judge_round(rs: RoundState) -> list[WagerRecord]:
    """Judge every wager of a finished round; raise the ``PAY_`` findings (rules.md).

    ``PAY_MISSING`` (never settled; a missing prize is ``PAY_BONUS``),
    ``PAY_DUPLICATE``, the amount codes, ``PAY_INSURANCE``, ``PAY_BONUS``,
    ``PAY_UNKNOWN_WAGER``, ``PAY_TIMING`` (correct amount, wrong moment) and
    ``PAY_ORDER`` (once per round, ``settlement_order`` high_to_low).
    """
    rules = rs.rules
    wagers = _build_wagers(rs)
    by_key = {w.key: w for w in wagers}
    unknown: dict[tuple[int, int, int, str], list[SettleRec]] = {}
    for s in rs.settles:
        w = by_key.get(s.key)
        if w is None:
            unknown.setdefault(s.key, []).append(s)
        else:
            w.settles.append(s)
    if not rs.dealt and not rs.voided and wagers:
        rs.sink.add(
            Code.LOG_INCOMPLETE,
            f"round {rs.number} ended with stakes and no card dealt",
            events=rs.event_ids[-1:],
            round=rs.number,
        )
    for w in wagers:
        _judge_wager(rs, w, quiet_missing=not rs.dealt and not rs.voided)
    for key, ss in unknown.items():
        box, hand, spot, kind = key
        total = sum((s.amount for s in ss), ZERO)
        main = by_key.get((box, hand, spot, "main"))
        if kind == "bonus" and main is not None:
            code, msg, rule = (
                Code.PAY_BONUS,
                f"a three-sevens prize of {total} paid on "
                f"{','.join(main.play_hand.cards if main.play_hand else ())}, not three sevens",
                "three_sevens_pays",
            )
        else:
            code, msg, rule = (
                Code.PAY_UNKNOWN_WAGER,
                f"settle {total} for box {box} hand {hand} spot {spot} {kind}: no such wager",
                None,
            )
        rs.sink.add_pay(
            code,
            msg,
            expected=ZERO,
            actual=total,
            events=[s.event_id for s in ss],
            round=rs.number,
            box=box,
            hand=hand,
            spot=spot,
            rule=rule,
        )
    if rules.settlement_order == "high_to_low" and not rs.voided:
        _check_order(rs, wagers)
    for w in wagers:
        for s in w.settles:
            st = rs.steps[s.step]
            rs.steps[s.step] = replace(
                st,
                description=f"{st.description} (due {money_str(w.expected)}: {w.outcome})",
                allowed=amounts_match(s.amount, w.expected) and len(w.settles) == 1,
            )
    return [
        WagerRecord(
            box=w.box,
            hand=w.hand,
            spot=w.spot,
            kind=w.kind,
            stake=w.stake,
            base_stake=w.base,
            player=w.player,
            expected=w.expected,
            actual=tuple(s.amount for s in w.settles),
            settle_events=tuple(s.event_id for s in w.settles),
            outcome=w.outcome,
        )
        for w in wagers
    ]


def _judge_wager(rs: RoundState, w: Wager, quiet_missing: bool) -> None:
    where = f"box {w.box} hand {w.hand} spot {w.spot}"
    common: dict[str, Any] = {"round": rs.number, "box": w.box, "hand": w.hand, "spot": w.spot}
    if not w.settles:
        if quiet_missing:
            return
        code = Code.PAY_BONUS if w.kind == "bonus" else Code.PAY_MISSING
        rs.sink.add_pay(
            code,
            f"{where} {w.kind}: never settled; due {money_str(w.expected)} ({w.outcome})",
            expected=w.expected,
            actual=ZERO,
            events=[*rs.event_ids[-1:]],
            rule=w.rule,
            **common,
        )
        return
    ids = [s.event_id for s in w.settles]
    if len(w.settles) > 1:
        total = sum((s.amount for s in w.settles), ZERO)
        rs.sink.add_pay(
            Code.PAY_DUPLICATE,
            f"{where} {w.kind}: settled {len(w.settles)} times "
            f"({', '.join(money_str(s.amount) or '' for s in w.settles)}); "
            f"due once {money_str(w.expected)}",
            expected=w.expected,
            actual=total,
            events=ids,
            rule=w.rule,
            **common,
        )
        return
    s = w.settles[0]
    if not amounts_match(s.amount, w.expected):
        if w.kind == "insurance":
            code = Code.PAY_INSURANCE
        elif w.kind == "bonus":
            code = Code.PAY_BONUS
        else:
            code = pay_code(w.play_hand, w.stake, w.expected, s.amount, rs.rules)
        cards = ",".join(w.play_hand.cards) if w.play_hand is not None else ""
        rs.sink.add_pay(
            code,
            f"{where} {w.kind} ({cards} v dealer {','.join(rs.dealer) or '-'}, "
            f"stake {money_str(w.stake)}): "
            f"settled {money_str(s.amount)}, due {money_str(w.expected)} ({w.outcome})",
            expected=w.expected,
            actual=s.amount,
            events=[*(w.play_hand.card_events[-1:] if w.play_hand else []), s.event_id],
            rule=w.rule,
            **common,
        )
        return
    if rs.voided:
        return
    late = _timing(rs, w, s)
    if late is not None:
        rule, why = late
        rs.sink.add(
            Code.PAY_TIMING,
            f"{where}: settled {money_str(s.amount)} at the wrong moment: {why}",
            events=[s.event_id],
            expected=why,
            actual=f"settled at event {s.event_id}",
            rule=rule,
            **common,
        )


def _check_order(rs: RoundState, wagers: list[Wager]) -> None:
    """001/004: the final pass runs from the highest box to the lowest («da destra a sinistra»).

    Busts, blackjacks paid at once and even money are not part of that pass.
    One ``PAY_ORDER`` per round.
    """
    skip: set[tuple[int, int, int, str]] = set()
    for w in wagers:
        h = w.play_hand
        if w.kind != "main" or h is None or h.bust or w.spot in h.even_money or w.paid_at_once:
            skip.add(w.key)
    known = {w.key for w in wagers}
    seen: set[tuple[int, int, int, str]] = set()
    prev: SettleRec | None = None
    for s in rs.settles:
        if s.key not in known or s.key in skip or s.key in seen:
            continue
        seen.add(s.key)
        if prev is not None and s.key[0] > prev.key[0]:
            rs.sink.add(
                Code.PAY_ORDER,
                f"box {s.key[0]} settled after box {prev.key[0]}: the final pass runs from the "
                "highest box to the lowest",
                events=[prev.event_id, s.event_id],
                round=rs.number,
                expected="highest box to lowest",
                actual=f"box {prev.key[0]} then box {s.key[0]}",
                rule="settlement_order",
            )
            return
        prev = s
