"""Judging a finished round's wagers: what each should net, and every ``PAY_`` finding.

rules.md, "Findings": settlements are judged against what actually happened
(the hands as dealt, the stakes as placed); a dealer error or a late bet is its
own finding and never cascades into payout findings. "How many findings": one
finding per wrong wager (:func:`audit.engine.payout.pay_code`); a wager settled
both wrongly and late is its amount code only; the order check covers the final
pass only.

:func:`judge_round` reads the round and changes nothing; it returns the
judged wagers, each with the engine's verdict, and the breaches, which the
round records.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from audit.engine.deal import DEALER
from audit.engine.dealer import dealer_natural
from audit.engine.event import Cents, money
from audit.engine.hands import best_total
from audit.engine.payout import (
    amounts_match,
    due_main,
    forfeitable,
    paid_at_once,
    pay_code,
    pay_ratio,
    ratio_words,
)
from audit.engine.result import WagerRecord
from audit.engine.sidebets import BUSTER, side_verdict
from audit.engine.sink import Breach, pay_breach
from audit.engine.state import Hand, Late
from audit.events.cards import is_ten_value
from audit.findings import Code, money_str

if TYPE_CHECKING:
    from audit.engine.round import Round, SettleRec

WagerKey = tuple[int, int, int, str]
_NONE_REFUSED: frozenset[WagerKey] = frozenset()


class Wager:
    """A wager being judged: its stake, what it is due and why, and its settlements.

    A plain class with slots and its own ``__init__``, as :class:`~audit.engine.state.Hand`:
    a round makes one per staked spot, and the ``__init__`` a dataclass writes is
    Python the compiled engine cannot compile (it was 6% of an Italian night's replay,
    and each field the side bets added cost more of it, issue 32).
    """

    __slots__ = (
        "at_once", "base", "box", "decided", "due", "hand", "kind", "line", "outcome",
        "play_hand", "player", "ratio", "rule", "settles", "side", "spot", "stake", "verdict",
    )  # fmt: skip

    def __init__(
        self,
        box: int,
        hand: int,
        spot: int,
        kind: str,
        stake: int,
        base: int,
        player: str | None,
        due: Cents,
        outcome: str,
        rule: str,
        play_hand: Hand | None = None,
    ) -> None:
        self.box = box
        self.hand = hand
        self.spot = spot
        self.kind = kind
        self.stake = stake
        self.base = base
        self.player = player
        self.due = due
        self.outcome = outcome
        self.rule = rule
        self.play_hand = play_hand
        self.settles: list[SettleRec] = []
        self.at_once = False
        self.verdict = "ok"
        self.line: str | None = None
        """A side bet's paid line (games.md §1), None where none won (or not a side bet)."""
        self.ratio: Fraction | None = None
        """What that line pays to 1."""
        self.decided: int | None = None
        """A side bet: the index of the event that decided it (§1's "decided"), if it came."""
        self.side = False

    def __repr__(self) -> str:
        return (
            f"Wager({self.where()} {self.kind}: stake {self.stake}, due {self.due}, "
            f"{self.outcome!r}, settled {[s.amount for s in self.settles]}, {self.verdict})"
        )

    @property
    def key(self) -> WagerKey:
        return (self.box, self.hand, self.spot, self.kind)

    def where(self) -> str:
        return f"box {self.box} hand {self.hand} spot {self.spot}"


def _build_wagers(rnd: Round) -> list[Wager]:
    """Every wager of the round: one per spot per staked hand, bonuses, insurance."""
    rules = rnd.rules
    d = rnd.dealer
    d_nat, d_total = dealer_natural(d), best_total(d)
    upcard = rnd.offer_card()
    no_cards = not rnd.dealt
    wagers: list[Wager] = []
    hands = rnd.wager_hands()
    # BB+1 (games.md §3): of a box's hands not busted, the lowest number pays one unit
    lowest_standing: dict[int, int] = {}
    for h in hands:
        if not h.bust and h.number < lowest_standing.get(h.box, h.number + 1):
            lowest_standing[h.box] = h.number
    for h in hands:
        box = rnd.boxes[h.box]
        for spot in sorted(h.stakes):
            base = h.stakes[spot]
            if base <= 0:
                continue
            due: Cents
            if rnd.voided or no_cards:
                words = "void: stake returned" if rnd.voided else "no cards: returned"
                due, rule = 0, "win_pays"
            else:
                lowest = lowest_standing.get(h.box) == h.number
                due, words, rule = due_main(h, spot, d_nat, d_total, rules, lowest)
            player = box.players.get(spot)
            w = Wager(
                h.box, h.number, spot, "main", h.stake(spot), base, player, due, words, rule, h
            )
            w.at_once = paid_at_once(h, spot, d_nat, upcard, rules) and not rnd.voided
            wagers.append(w)
            if rules.three_sevens_pays is not None and h.three_sevens and not rnd.voided:
                prize = pay_ratio(base, rules.three_sevens_pays, rules)
                words = f"21 with three sevens: {ratio_words(rules.three_sevens_pays)}"
                wagers.append(
                    Wager(h.box, h.number, spot, "bonus", base, base, player, prize, words,
                          "three_sevens_pays", h)
                )  # fmt: skip
    for (box_no, spot), (amount, _ids) in sorted(rnd.insurance.items()):
        if rnd.voided:
            due, words = 0, "void: stake returned"
        elif d_nat:
            due = pay_ratio(amount, rules.insurance_pays, rules)
            words = f"dealer blackjack: insurance wins {ratio_words(rules.insurance_pays)}"
        else:
            due, words = -amount, "no dealer blackjack: insurance lost"
        b = rnd.boxes.get(box_no)
        player = b.players.get(spot) if b is not None else None
        wagers.append(
            Wager(
                box_no, 0, spot, "insurance", amount, amount, player, due, words, "insurance_pays"
            )
        )
    if rnd.side:
        wagers += _side_wagers(rnd)
    return wagers


def _side_wagers(rnd: Round) -> list[Wager]:
    """The round's side bets the profile offers, each with its verdict (games.md §3)."""
    out: list[Wager] = []
    up = rnd.offer_card()
    for (box, spot, kind), st in sorted(rnd.side.items()):
        if st.table is None or st.amount <= 0:
            continue  # not offered: BET_SIDE_NOT_OFFERED, its settlement not judged
        first = rnd.box_first.get(box, [])
        v = side_verdict(st, [c for c, _ in first], up, rnd.dealer, rnd.rules, voided=rnd.voided)
        w = Wager(box, 0, spot, kind, st.amount, st.amount, st.player, v.due, v.words, "side_bets")
        w.line, w.ratio, w.side = v.line, v.ratio, True
        w.decided = _decided_at(rnd, st.table.evaluator, first)
        out.append(w)
    return out


def _decided_at(rnd: Round, evaluator: str, first: list[tuple[str, int]]) -> int | None:
    """Where a side bet was decided (games.md §1, "decided"); None where it never was."""
    if evaluator == BUSTER:
        # his hand complete: his last card, and his hole card turned (if any); a blackjack
        # a peek finds decides it at once
        if rnd.blackjack_found and rnd.known_index is not None:
            return rnd.known_index
        marks = [*rnd.dealer_indexes[-1:], rnd.last_play]
        known = rnd.known_at()
        if known is not None:
            marks.append(known)
        if rnd.reveal_index is not None:
            marks.append(rnd.reveal_index)
        return max(marks)
    if len(first) < 2:
        return None
    at = first[1][1]
    if evaluator == "three_card":
        i = rnd.deal.upcard_index
        i = 0 if i is None or rnd.hole_index is None else i
        if len(rnd.dealer_indexes) <= i:
            return None
        return max(at, rnd.dealer_indexes[i])
    if evaluator == "twenty" and first[0][0] == first[1][0] == "QH":
        known = rnd.known_at()  # a QH pair waits for the dealer's blackjack to be known
        return None if known is None else max(at, known)
    return at


def _timing(rnd: Round, w: Wager, s: SettleRec) -> tuple[str, str] | None:
    """Whether a correct settlement came at the moment the profile requires; (rule, why) if not.

    Busts «immediatamente» (000, 001): before the next card leaves the shoe.
    Blackjacks (rules.md, "When things must happen"): 001 with a dealer 2-9 and
    002 when play reaches the box, before any card to a later box or the dealer;
    001 with a ten-value after the dealer's second card and before the third;
    otherwise at settlement, after the last card. Even money before the
    dealer's second card.
    """
    rules = rnd.rules
    known = rnd.known_at()
    if w.side:
        if w.decided is not None and s.at < w.decided:
            return ("side_bets", "a side bet is settled once it is decided (games.md §1)")
        return None
    if w.kind == "insurance" and rnd.hole_index is not None and (known is None or s.at < known):
        # games.md §4: insurance is decided once the dealer's blackjack is known
        return ("insurance_pays", "insurance is settled once the dealer's blackjack is known")
    h = w.play_hand
    if h is None or w.kind != "main":
        return None
    d = rnd.dealer
    if (
        h.surrendered
        and rules.surrender_allowed
        and forfeitable(h, rules)
        and (known is None or s.at < known)
    ):
        # a late surrender a blackjack could make forfeit waits for it (games.md §3); where
        # the profile allows none, an illegal one is settled when made (v1), its due still
        # the whole stake against a blackjack
        return (
            "surrender_kind",
            "a late surrender is settled once the dealer's blackjack is known",
        )
    if h.bust and h.bust_index is not None and not h.natural:
        if rules.dealer_blackjack_takes == "original":
            # games.md §3, OBO: a bust is collected once the dealer's blackjack is known
            if known is None or s.at < known:
                return (
                    rules.rule_name("dealer_blackjack_takes"),
                    "under OBO a bust is collected once the dealer's blackjack is known",
                )
            return None
        nxt = next((i for i in rnd.draws if i > h.bust_index), None)
        if nxt is not None and s.at > nxt:
            return ("settlement_order", "a bust is collected before the next card leaves the shoe")
        return None
    if w.spot in h.even_money:
        if rnd.hole_index is not None:
            # games.md §1: with a hole card (dealt before the offer), before the first
            # player decision (house default)
            first = rnd.first_play_index()
            if first is not None and s.at > first:
                return ("blackjack_paid", "even money is paid before the first player decision")
            return None
        if len(rnd.dealer_indexes) >= 2 and s.at > rnd.dealer_indexes[1]:
            return ("blackjack_paid", "even money is paid before the dealer's second card")
        return None
    if not h.natural or w.due <= 0:
        return None
    if rules.blackjack_paid == "when_known":
        if known is None or s.at < known:
            return (
                "blackjack_paid",
                "a blackjack is paid once the dealer's blackjack is ruled out",
            )
        return None
    formed = h.card_indexes[1] if len(h.card_indexes) >= 2 else -1
    if w.at_once and (rules.blackjack_paid == "at_once" or not is_ten_value(d[0])):
        later = next(
            (i for i, seat in rnd.play_cards if seat == DEALER or seat > h.box),
            None,
        )
        if s.at < formed or (later is not None and s.at > later):
            return (
                "blackjack_paid",
                "a blackjack is paid at once, before any card to a later box or the dealer",
            )
        return None
    if w.at_once:
        second = rnd.dealer_indexes[1] if len(rnd.dealer_indexes) >= 2 else None
        third = rnd.dealer_indexes[2] if len(rnd.dealer_indexes) >= 3 else None
        if second is None or s.at < second or (third is not None and s.at > third):
            return (
                "blackjack_paid",
                "against a ten-value, a blackjack is paid after the dealer's second card, "
                "before the third",
            )
        return None
    last = max(rnd.draws, default=-1)
    if s.at < last:
        return (
            "blackjack_paid",
            "a blackjack is paid at settlement, once the dealer's hand is complete",
        )
    return None


def _judge_wager(rnd: Round, w: Wager, quiet_missing: bool) -> Breach | None:
    """The one finding a wager gets, if any; sets its verdict."""
    where = w.where()
    common = {"box": w.box, "hand": w.hand, "spot": w.spot, "rule": w.rule}
    if not w.settles:
        if quiet_missing:
            return None
        code = Code.PAY_BONUS if w.kind == "bonus" else Code.PAY_MISSING
        w.verdict = str(code)
        return pay_breach(
            code,
            f"{where} {w.kind}: never settled; due {money_str(money(w.due))} ({w.outcome})",
            expected=w.due,
            actual=0,
            events=[x for x in (rnd.last_event,) if x],
            **common,  # type: ignore[arg-type]
        )
    ids = [s.event_id for s in w.settles]
    if len(w.settles) > 1:
        total = sum(s.amount for s in w.settles)
        w.verdict = str(Code.PAY_DUPLICATE)
        return pay_breach(
            Code.PAY_DUPLICATE,
            f"{where} {w.kind}: settled {len(w.settles)} times "
            f"({', '.join(money_str(money(s.amount)) or '' for s in w.settles)}); "
            f"due once {money_str(money(w.due))}",
            expected=w.due,
            actual=total,
            events=ids,
            **common,  # type: ignore[arg-type]
        )
    s = w.settles[0]
    if not amounts_match(s.amount, w.due):
        h = w.play_hand
        if w.kind == "insurance":
            code = Code.PAY_INSURANCE
            what = f"insurance (dealer {','.join(rnd.dealer) or '-'}"
        elif w.kind == "bonus":
            code = Code.PAY_BONUS
            what = f"bonus ({','.join(h.cards) if h else ''}"
        elif w.side:
            code = Code.PAY_SIDE_BET
            cards = ",".join(rnd.box_cards(w.box))
            what = f"{w.kind} side bet ({cards or '-'} v dealer {','.join(rnd.dealer) or '-'}"
        else:
            code = pay_code(h, w.stake, w.due, s.amount, rnd.rules)
            cards = ",".join(h.cards) if h is not None else ""
            what = f"{w.kind} ({cards} v dealer {','.join(rnd.dealer) or '-'}"
        w.verdict = str(code)
        return pay_breach(
            code,
            f"{where} {what}, stake {money_str(money(w.stake))}): "
            f"settled {money_str(money(s.amount))}, due {money_str(money(w.due))} ({w.outcome})",
            expected=w.due,
            actual=s.amount,
            events=[*(h.card_events[-1:] if h else []), s.event_id],
            **common,  # type: ignore[arg-type]
        )
    if s.late:
        # rules.md v1.2: right amount after the round was over
        return _timing_breach(w, s, where, f"after round {rnd.number} was over", None)
    if rnd.voided:
        return None
    late = _timing(rnd, w, s)
    if late is None:
        return None
    rule, why = late
    return _timing_breach(w, s, where, f"at the wrong moment: {why}", rule)


def _timing_breach(w: Wager, s: SettleRec, where: str, when: str, rule: str | None) -> Breach:
    """``PAY_TIMING`` (rules.md): the right amount, settled at the wrong moment; ``expected``
    and ``actual`` are both the amount settled, ``impact`` is 0 (cli.md)."""
    paid = money_str(money(s.amount))
    w.verdict = str(Code.PAY_TIMING)
    return Breach(
        Code.PAY_TIMING,
        f"{where}: settled {paid} {when}",
        (s.event_id,),
        box=w.box,
        hand=w.hand,
        spot=w.spot,
        expected=paid,
        actual=paid,
        impact=money(0),
        rule=rule,
    )


def _order_breach(rnd: Round, wagers: list[Wager]) -> Breach | None:
    """001/004: the final pass runs from the highest box to the lowest («da destra a sinistra»).

    rules.md: the order applies once the dealer's hand is complete, to the
    final pass: busts, blackjacks paid at once, even money, and anything
    settled before the dealer's last card are not part of it. One ``PAY_ORDER``
    per round; ``expected``/``actual`` null (cli.md), the order in the message.
    """
    skip: set[WagerKey] = set()
    for w in wagers:
        h = w.play_hand
        if w.kind != "main" or h is None or h.bust or w.spot in h.even_money or w.at_once:
            skip.add(w.key)
    known = {w.key for w in wagers}
    complete = max(rnd.dealer_indexes, default=-1)
    seen: set[WagerKey] = set()
    prev: SettleRec | None = None
    for s in rnd.settles:
        key = (s.box, s.hand, s.spot, s.kind)
        if s.late or s.at < complete or key not in known or key in skip or key in seen:
            continue
        seen.add(key)
        if prev is not None and s.box > prev.box:
            return Breach(
                Code.PAY_ORDER,
                f"box {s.box} settled after box {prev.box}: the final pass runs from the "
                "highest box to the lowest",
                (prev.event_id, s.event_id),
                rule="settlement_order",
            )
        prev = s
    return None


def _late_breach(rnd: Round, late: Late, by_key: dict[WagerKey, Wager]) -> Breach:
    """A double or split after its turn: one ``DEAL_OUT_OF_TURN``, priced with what it was paid.

    ``impact``: what the late extra stake was paid (a double's share of the
    hand's settlement; a split's new hand's settlement); null when a wager it
    needs was not settled exactly once.
    """
    paid: Cents | None = 0
    for spot, extra in sorted(late.extra.items()):
        if late.new_hand is not None:
            w = by_key.get((late.box, late.new_hand.number, spot, "main"))
            share: Fraction | int = 1
        else:
            w = by_key.get((late.box, late.hand, spot, "main"))
            share = Fraction(extra, w.stake) if w is not None and w.stake else 0
        if w is None or len(w.settles) != 1 or paid is None:
            paid = None
            continue
        part = w.settles[0].amount * share
        paid += part if not isinstance(part, Fraction) or part.denominator != 1 else int(part)
    words = "" if paid is None else f"; the late stake was paid {money_str(money(paid))}"
    return Breach(
        Code.DEAL_OUT_OF_TURN,
        f"box {late.box} hand {late.hand} {late.action} after its turn had passed; "
        f"{late.card} went to it out of turn{words}",
        (late.event_id, *([late.card_event] if late.card_event else [])),
        box=late.box,
        hand=late.hand,
        actual=late.card,
        impact=money(paid),
    )


def judge_round(rnd: Round) -> tuple[list[Wager], list[Breach]]:
    """Judge every wager of a finished round (rules.md, the ``PAY_`` codes).

    ``PAY_MISSING`` (never settled; a missing prize is ``PAY_BONUS``),
    ``PAY_DUPLICATE``, the amount codes, ``PAY_INSURANCE``, ``PAY_BONUS`` (a prize
    paid where none is due, under a profile with the prize; v1.2),
    ``PAY_UNKNOWN_WAGER`` (no such wager, or any bonus under a profile without the
    prize; v1.2), ``PAY_TIMING`` (correct amount, wrong moment, or after the round; v1.2) and
    ``PAY_ORDER`` (once per round, ``settlement_order`` high_to_low); and the
    ``DEAL_OUT_OF_TURN`` of a late double or split, priced here.
    """
    rules = rnd.rules
    wagers = _build_wagers(rnd)
    by_key = {w.key: w for w in wagers}
    unknown: dict[WagerKey, list[SettleRec]] = {}
    refused = (
        {(b, 0, sp, k) for (b, sp, k), st in rnd.side.items() if st.table is None}
        if rnd.side
        else _NONE_REFUSED
    )
    for s in rnd.settles:
        key = (s.box, s.hand, s.spot, s.kind)
        w = by_key.get(key)
        if w is None:
            if key in refused:
                continue  # games.md §4: BET_SIDE_NOT_OFFERED, its settlement not judged
            unknown.setdefault(key, []).append(s)
        else:
            w.settles.append(s)
    breaches: list[Breach] = []
    if not rnd.dealt and not rnd.voided and wagers:
        breaches.append(
            Breach(
                Code.LOG_INCOMPLETE,
                f"round {rnd.number} ended with stakes and no card dealt",
                tuple(x for x in (rnd.last_event,) if x),
            )
        )
    quiet = not rnd.dealt and not rnd.voided
    for w in wagers:
        b = _judge_wager(rnd, w, quiet)
        if b is not None:
            breaches.append(b)
    for key, ss in unknown.items():
        box, hand, spot, kind = key
        total = sum(s.amount for s in ss)
        main = by_key.get((box, hand, spot, "main"))
        # rules.md v1.2: a bonus where no prize is due is PAY_BONUS where the profile has
        # the prize; under a profile without it, any bonus names no wager (PAY_UNKNOWN_WAGER)
        if kind == "bonus" and main is not None and rules.three_sevens_pays is not None:
            cards = ",".join(main.play_hand.cards if main.play_hand else ())
            code, msg, rule = (
                Code.PAY_BONUS,
                f"a three-sevens prize of {money_str(money(total))} paid on {cards}, "
                "not three sevens",
                "three_sevens_pays",
            )
        else:
            code, msg, rule = (
                Code.PAY_UNKNOWN_WAGER,
                f"settle {money_str(money(total))} for box {box} hand {hand} spot {spot} {kind}: "
                "no such wager",
                None,
            )
        breaches.append(
            pay_breach(
                code, msg, expected=0, actual=total, events=[s.event_id for s in ss],
                box=box, hand=hand, spot=spot, rule=rule,
            )
        )  # fmt: skip
    for late in rnd.late:
        if late.card_event is not None and not late.superseded and not rnd.voided:
            breaches.append(_late_breach(rnd, late, by_key))
    if rules.settlement_order == "high_to_low" and not rnd.voided:
        order = _order_breach(rnd, wagers)
        if order is not None:
            breaches.append(order)
    if rnd.steps is not None:
        _annotate_settle_steps(rnd, wagers)
    return wagers, breaches


def settle_words(box: int, hand: int, spot: int, kind: str, amount: int) -> str:
    """A settlement's step, as the trace tells it before it is judged."""
    return f"settle box {box} hand {hand} spot {spot} {kind}: {money(amount)}"


def _annotate_settle_steps(rnd: Round, wagers: list[Wager]) -> None:
    from dataclasses import replace

    assert rnd.steps is not None
    for w in wagers:
        for s in w.settles:
            if s.step < 0:
                continue
            st = rnd.steps[s.step]
            words = settle_words(s.box, s.hand, s.spot, s.kind, s.amount)
            rnd.steps[s.step] = replace(
                st,
                description=f"{words} (due {money_str(money(w.due))}: {w.outcome})",
                allowed=w.verdict == "ok",
            )


def wager_record(w: Wager) -> WagerRecord:
    """The judged wager as the frozen record pages render (money as ``Decimal``)."""
    return WagerRecord(
        box=w.box,
        hand=w.hand,
        spot=w.spot,
        kind=w.kind,
        stake=money(w.stake),  # type: ignore[arg-type]
        base_stake=money(w.base),  # type: ignore[arg-type]
        player=w.player,
        expected=money(w.due),
        actual=tuple(money(s.amount) for s in w.settles),  # type: ignore[misc]
        settle_events=tuple(s.event_id for s in w.settles),
        outcome=w.outcome,
        verdict=w.verdict,
        line=w.line,
        ratio=None if w.ratio is None else f"{w.ratio.numerator}/{w.ratio.denominator}",
    )
