"""Insurance and even money (rules.md, "Insurance"; games.md §3): the insurance window.

One owner per phase: :class:`~audit.engine.round.Round` keeps the round's state and
dispatches an insurance or even-money event here; these functions check it against the
up card, the window and the profile, flag what it breaks and apply it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.engine.event import RoundEvent, money
from audit.engine.sink import Breach
from audit.events.cards import is_ace
from audit.findings import Code

if TYPE_CHECKING:
    from audit.engine.round import Round


def insurance_bet(rnd: Round, e: RoundEvent, index: int) -> None:
    """Insurance against a dealer ace (000): at most half the stake, before any third card.

    000: «prima che i giocatori abbiano ricevuto una terza carta»; rules.md:
    «placed before any card is dealt after the initial deal», so it may come
    during the initial deal (once the dealer's ace is out) and does not end
    it, and a card to the dealer after the deal makes it late as much as a
    player's third card.
    """
    assert e.box is not None and e.spot is not None and e.amount is not None
    b = rnd.boxes.get(e.box)
    if b is None or b.phantom:
        rnd.flag(
            Breach(
                Code.LOG_INCOMPLETE,
                f"insurance for box {e.box}, which has no stake in this round",
                (e.id,),
                box=e.box,
                spot=e.spot,
            )
        )
        _insurance_step(rnd, e, "no such box", ": no such box")
        return
    stake = b.hands[0].stakes.get(e.spot, 0) if b.hands else 0
    r = rnd.rules
    reasons: list[tuple[str, str]] = []
    if not r.insurance_offered:
        reasons.append(("insurance_offered", "the profile offers no insurance"))
    up = rnd.offer_card()
    if up is None or not is_ace(up):
        reasons.append(("insurance_offered", f"the dealer's card is {up or 'none'}, not an ace"))
    if rnd.play_cards or rnd.pending_dealer is not None:
        reasons.append(("insurance_offered", "placed after a card dealt after the initial deal"))
    elif rnd.peeks and rnd.peek_rule is not None:
        reasons.append(("insurance_offered", "placed after the peek"))
    ratio = r.insurance_max_ratio
    if e.amount * ratio.denominator > stake * ratio.numerator:
        reasons.append(
            (
                "insurance_max_ratio",
                f"{money(e.amount)} is over {ratio} of the stake {money(stake)}",
            )
        )
    if reasons:
        rnd.flag(
            Breach(
                Code.PLAY_ILLEGAL_INSURANCE,
                f"box {e.box} spot {e.spot} insurance {money(e.amount)}: "
                + "; ".join(why for _, why in reasons),
                (e.id,),
                box=e.box,
                hand=0,
                spot=e.spot,
                actual=str(money(e.amount)),
                rule=reasons[0][0],
            )
        )
    old, ids = rnd.insurance.get((e.box, e.spot), (0, []))
    rnd.insurance[(e.box, e.spot)] = (old + e.amount, [*ids, e.id])
    _insurance_step(rnd, e, "; ".join(why for _, why in reasons) or None)


def _insurance_step(rnd: Round, e: RoundEvent, why_not: str | None, note: str = "") -> None:
    """With ``trace`` on, the step an insurance bet leaves: allowed unless ``why_not``."""
    if rnd.steps is None:
        return
    assert e.amount is not None
    rnd.step(
        e,
        f"box {e.box} spot {e.spot} insures {money(e.amount)}{note}",
        box=e.box,
        spot=e.spot,
        amount=money(e.amount),
        allowed=why_not is None,
        why_not=why_not,
    )


def even_money(rnd: Round, e: RoundEvent, index: int) -> None:
    """Even money (001): a blackjack against a dealer ace taken 1:1 at once.

    «potrà richiedere l'immediato pagamento»: as soon as the blackjack is out,
    which may be before the initial deal is over; it does not end the deal.
    """
    assert e.box is not None and e.spot is not None
    h = rnd._hand_for(e, e.box, 0, "even money")
    reasons: list[str] = []
    if h is not None:
        if not rnd.rules.even_money_offered:
            reasons.append("the profile offers no even money")
        if not h.natural:
            reasons.append(f"box {e.box} holds {','.join(h.cards) or 'no cards'}, not a blackjack")
        up = rnd.offer_card()
        if up is None or not is_ace(up):
            reasons.append("the dealer's card is not an ace")
        if rnd.peeks and rnd.peek_rule is not None:
            reasons.append("taken after the peek")
        if reasons:
            rnd.flag(
                Breach(
                    Code.PLAY_ILLEGAL_EVEN_MONEY,
                    f"box {e.box} spot {e.spot} even money: " + "; ".join(reasons),
                    (e.id,),
                    box=e.box,
                    hand=0,
                    spot=e.spot,
                    rule="even_money_offered",
                )
            )
        # What happened is judged: even money on a real blackjack against an ace is
        # binding whatever the profile says (the breach is its own finding).
        if h.natural and up is not None and is_ace(up):
            h.even_money.add(e.spot)
    if rnd.steps is not None:
        rnd.step(
            e,
            f"box {e.box} spot {e.spot} takes even money",
            box=e.box,
            hand=0,
            spot=e.spot,
            allowed=h is not None and not reasons,
            why_not="; ".join(reasons) or ("no such hand" if h is None else None),
        )
