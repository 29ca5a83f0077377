"""Players' decisions: hit, stand, double, split, surrender, objections, insurance, even money.

The checks themselves live in :mod:`audit.engine.play`; here each decision is
judged, applied as it was made (rules.md: what actually happened is judged)
and recorded as a step saying whether the profile allowed it and why not.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING

from audit.engine.play import PlayHand, double_violation, hit_violation, split_hand, split_violation
from audit.events import models as m
from audit.events.cards import is_ace
from audit.findings import Code

if TYPE_CHECKING:
    from audit.engine.round import RoundState


def on_action(rs: RoundState, e: m.Action, index: int) -> None:
    """A player decision: hit, stand, double, split, surrender (000, 001, 004)."""
    rs._finish_deal(e, index)
    h = rs._hand_for(e, e.box, e.hand, e.action)
    if h is None:
        rs._step(
            e,
            f"{e.action} for box {e.box} hand {e.hand}: no such hand",
            box=e.box,
            hand=e.hand,
            allowed=False,
            why_not="no such hand",
        )
        return
    cur = rs.current()
    if not h.done and h is not cur and rs._is_after(h, cur):
        order = rs.turn_order()
        between = order[order.index(cur) : order.index(h)] if cur is not None else []
        if all(not x.needs_card for x in between if not x.done):
            rs._advance_to(h, e.id)
    allowed = True
    why: str | None = None
    if e.action == "stand":
        rs._stand(h, e.id)
    elif e.action == "hit":
        code = hit_violation(h, rs.rules)
        if code is not None:
            allowed, why = False, code.value
    elif e.action == "surrender":
        if not rs.rules.surrender_allowed:
            allowed, why = False, "the profile allows no surrender"
            rs._add(
                Code.PLAY_SURRENDER,
                f"box {e.box} hand {e.hand} surrendered; the profile allows no surrender",
                events=[e.id],
                box=e.box,
                hand=e.hand,
                rule="surrender_allowed",
            )
        h.surrendered = True
        h.done = True
    elif e.action == "double":
        allowed, why = _double(rs, e, h)
    else:
        allowed, why = _split(rs, e, h)
    rs._step(
        e,
        f"box {e.box} hand {e.hand}: {e.action}"
        + (f" ({','.join(h.cards)} = {h.state.total})" if h.cards else ""),
        box=e.box,
        hand=e.hand,
        amount=e.amount,
        allowed=allowed,
        why_not=why,
        **rs._hand_step_kw(h),
    )


def _consent(
    rs: RoundState, e: m.Action, h: PlayHand, spots: list[int]
) -> tuple[str | None, list[str]]:
    """000: all who bet on the box must agree; one objection forbids it.

    With ``split_double_unanimity`` false the box holder binds the others
    (001, 004) and objections have no effect. Returns (why not, evidence ids).
    """
    objections = rs.objections.pop((e.box, e.hand, e.action), [])
    if not rs.rules.split_double_unanimity:
        return None, []
    if objections:
        return f"a bettor objected ({', '.join(objections)})", objections
    staked = sorted(s for s, v in h.stakes.items() if v > 0)
    missing = sorted(set(staked) - set(spots))
    if missing:
        return f"spot(s) {missing} did not take part", []
    return None, []


def _decision_findings(
    rs: RoundState,
    e: m.Action,
    violation: tuple[str, str] | None,
    consent: tuple[str | None, list[str]],
    illegal: Code,
) -> tuple[bool, str | None]:
    """One finding per decision: the illegal one first, else the unconsented one."""
    if violation is not None:
        rule, reason = violation
        rs._add(
            illegal,
            f"box {e.box} hand {e.hand}: {e.action} not allowed: {reason}",
            events=[e.id],
            box=e.box,
            hand=e.hand,
            rule=rule,
        )
        return False, reason
    unconsented, evidence = consent
    if unconsented is not None:
        rs._add(
            Code.PLAY_UNCONSENTED,
            f"box {e.box} hand {e.hand}: {e.action} went ahead though {unconsented}",
            events=[*evidence, e.id],
            box=e.box,
            hand=e.hand,
            rule="split_double_unanimity",
        )
        return False, unconsented
    return True, None


def _double(rs: RoundState, e: m.Action, h: PlayHand) -> tuple[bool, str | None]:
    """A double: one more card, the extra stake at most the stake (000); applied as made."""
    spots = e.spots if e.spots is not None else sorted(s for s, v in h.stakes.items() if v > 0)
    extras = {
        s: (e.amount if e.amount is not None else h.stakes[s]) for s in spots if s in h.stakes
    }
    violation = double_violation(h, rs.rules, extras)
    consent = _consent(rs, e, h, spots)
    result = _decision_findings(rs, e, violation, consent, Code.PLAY_ILLEGAL_DOUBLE)
    for s, extra in extras.items():
        h.extra[s] = h.extra.get(s, Decimal(0)) + extra
    h.state = replace(h.state, doubled=True)
    h.cards_after_double = 0
    h.done = False
    return result


def _split(rs: RoundState, e: m.Action, h: PlayHand) -> tuple[bool, str | None]:
    """A split of two equal cards into two hands (000); applied as made."""
    b = rs.boxes[e.box]
    spots = e.spots if e.spots is not None else sorted(s for s, v in h.stakes.items() if v > 0)
    violation = split_violation(h, b, rs.rules)
    consent = _consent(rs, e, h, spots)
    result = _decision_findings(rs, e, violation, consent, Code.PLAY_ILLEGAL_SPLIT)
    split_hand(b, h, spots)
    h.done = False
    return result


def on_objection(rs: RoundState, e: m.Objection) -> None:
    """A bettor refuses the next double or split of the hand (000)."""
    h = rs._hand_for(e, e.box, e.hand, "objection")
    if h is not None:
        rs.objections.setdefault((e.box, e.hand, e.action), []).append(e.id)
    effect = "" if rs.rules.split_double_unanimity else " (no effect under this profile)"
    rs._step(
        e,
        f"box {e.box} hand {e.hand} spot {e.spot} objects to a {e.action}{effect}",
        box=e.box,
        hand=e.hand,
        spot=e.spot,
    )


def on_insurance(rs: RoundState, e: m.Insurance, index: int) -> None:
    """Insurance against a dealer ace (000): at most half the stake, before any third card.

    000: «prima che i giocatori abbiano ricevuto una terza carta»; rules.md: «placed
    before any card is dealt after the initial deal», so it may come during the
    initial deal (once the dealer's ace is out) and does not end it, and a card
    to the dealer after the deal makes it late as much as a player's third card.
    """
    b = rs.boxes.get(e.box)
    reasons: list[tuple[str, str]] = []
    if b is None or b.phantom:
        rs._add(
            Code.LOG_INCOMPLETE,
            f"insurance for box {e.box}, which has no stake in this round",
            events=[e.id],
            box=e.box,
            spot=e.spot,
        )
        rs._step(
            e,
            f"box {e.box} spot {e.spot} insures {e.amount}: no such box",
            box=e.box,
            spot=e.spot,
            amount=e.amount,
            allowed=False,
            why_not="no such box",
        )
        return
    stake = b.hands[0].stakes.get(e.spot, Decimal(0)) if b.hands else Decimal(0)
    r = rs.rules
    if not r.insurance_offered:
        reasons.append(("insurance_offered", "the profile offers no insurance"))
    if not rs.dealer or not is_ace(rs.dealer[0]):
        up = rs.dealer[0] if rs.dealer else "none"
        reasons.append(("insurance_offered", f"the dealer's card is {up}, not an ace"))
    if rs.play_cards:
        reasons.append(("insurance_offered", "placed after a card dealt after the initial deal"))
    ratio = r.insurance_max_ratio
    if e.amount * ratio.denominator > stake * ratio.numerator:
        reasons.append(("insurance_max_ratio", f"{e.amount} is over {ratio} of the stake {stake}"))
    if reasons:
        rs._add(
            Code.PLAY_ILLEGAL_INSURANCE,
            f"box {e.box} spot {e.spot} insurance {e.amount}: "
            + "; ".join(why for _, why in reasons),
            events=[e.id],
            box=e.box,
            hand=0,
            spot=e.spot,
            actual=str(e.amount),
            rule=reasons[0][0],
        )
    old, ids = rs.insurance.get((e.box, e.spot), (Decimal(0), []))
    rs.insurance[(e.box, e.spot)] = (old + e.amount, [*ids, e.id])
    rs._step(
        e,
        f"box {e.box} spot {e.spot} insures {e.amount}",
        box=e.box,
        spot=e.spot,
        amount=e.amount,
        allowed=not reasons,
        why_not="; ".join(why for _, why in reasons) or None,
    )


def on_even_money(rs: RoundState, e: m.EvenMoney, index: int) -> None:
    """Even money (001): a blackjack against a dealer ace taken 1:1 at once.

    «potrà richiedere l'immediato pagamento»: as soon as the blackjack is out,
    which may be before the initial deal is over; it does not end the deal.
    """
    h = rs._hand_for(e, e.box, 0, "even money")
    reasons: list[str] = []
    if h is not None:
        if not rs.rules.even_money_offered:
            reasons.append("the profile offers no even money")
        if not h.natural:
            reasons.append(f"box {e.box} holds {','.join(h.cards) or 'no cards'}, not a blackjack")
        if not rs.dealer or not is_ace(rs.dealer[0]):
            reasons.append("the dealer's card is not an ace")
        if reasons:
            rs._add(
                Code.PLAY_ILLEGAL_EVEN_MONEY,
                f"box {e.box} spot {e.spot} even money: " + "; ".join(reasons),
                events=[e.id],
                box=e.box,
                hand=0,
                spot=e.spot,
                rule="even_money_offered",
            )
        # What happened is judged: even money on a real blackjack against an ace is
        # binding whatever the profile says (the breach is its own finding).
        if h.natural and rs.dealer and is_ace(rs.dealer[0]):
            h.even_money.add(e.spot)
    rs._step(
        e,
        f"box {e.box} spot {e.spot} takes even money",
        box=e.box,
        hand=0,
        spot=e.spot,
        allowed=h is not None and not reasons,
        why_not="; ".join(reasons) or ("no such hand" if h is None else None),
    )
