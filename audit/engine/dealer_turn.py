"""The dealer's turn (rules.md, "The dealer"; games.md §3): his cards after the initial deal.

One owner per phase: :class:`~audit.engine.round.Round` keeps the round's state and
dispatches a dealer card here; these functions check it against the dealer rule
(:mod:`audit.engine.dealer`), flag what it breaks and apply it to the round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.engine.deal import DEALER
from audit.engine.dealer import dealer_must_draw, dealer_rule_word
from audit.engine.event import RoundEvent
from audit.engine.hands import best_total, is_soft
from audit.engine.peek_window import early_surrenders_decided
from audit.engine.phase import Phase
from audit.engine.sink import Breach
from audit.engine.state import Skip
from audit.findings import Code

if TYPE_CHECKING:
    from audit.engine.round import Round


def dealer_card(rnd: Round, e: RoundEvent, index: int, pos: int, exempt: bool) -> None:
    """A dealer card after the initial deal.

    Where the deal gives the dealer one card, his second card before anyone
    has played is either his first draw (every player stood) or a hole card
    the deal should not have given (``DEAL_ORDER``, rules.md: «no hole
    card»): a face-down one is a hole card at once; a face-up one is decided
    by the next event (:func:`resolve_pending`). Otherwise the players'
    turns are over: ``DEAL_OUT_OF_TURN`` when a player hand still needed a
    card, ``DEALER_DREW_ON_STAND`` when the dealer rule said stand.
    """
    rnd.play_cards.append((index, DEALER))
    deal = rnd.rules.initial_deal
    if (
        not rnd.played
        and rnd.phase == Phase.INSURANCE
        and deal.dealer_cards == 1
        and len(rnd.dealer) == 1
    ):
        rnd._add_dealer_card(e, index)
        if deal.dealer_face_up and not e.face_up:
            hole_card(rnd, e)
        else:
            rnd.pending_dealer = e
        dealer_step(rnd, e, pos, None, None)
        return
    out_of_turn = False
    if rnd.phase < Phase.DEALER:
        skip = Skip(e.id, None, None, e.card or "")
        out_of_turn = False if exempt else rnd._pass_to(None, e.id, skip) is not None
        rnd.phase = Phase.DEALER
    before = list(rnd.dealer)
    word = None
    if rnd.steps is not None:
        word = dealer_rule_word(before, rnd.rules, rnd.all_decided()) if before else "draw"
    why = None
    if out_of_turn:
        why = "a player hand still needed its card"
    elif (
        not rnd.rules.dealer_plays_freely
        and before
        and not dealer_must_draw(before, rnd.rules)
        and not rnd.drew_flagged
    ):
        rnd.drew_flagged = True
        total = best_total(before)
        soft = " soft" if is_soft(before) else ""
        why = f"the dealer stands on{soft} {total}"
        rnd.flag(
            Breach(
                Code.DEALER_DREW_ON_STAND,
                f"the dealer drew {e.card} on{soft} {total} ({','.join(before)}); "
                f"the profile says stand on {rnd.rules.dealer_stands_on}",
                (*rnd.dealer_events[-1:], e.id),
                expected="stand",
                actual=f"drew on {total}",
                rule="dealer_stands_on_soft_17" if soft and total == 17 else "dealer_stands_on",
            )
        )
    rnd._add_dealer_card(e, index)
    if not rnd.rules.dealer_plays_freely and not dealer_must_draw(rnd.dealer, rnd.rules):
        rnd.phase = Phase.SETTLEMENT
    dealer_step(rnd, e, pos, word, why)


def dealer_step(rnd: Round, e: RoundEvent, pos: int, word: str | None, why: str | None) -> None:
    """With ``trace`` on, the step a dealer card leaves: his hand and what his rule said."""
    if rnd.steps is None:
        return
    rule = f"; the rule said {word}" if word else ""
    rnd.step(
        e,
        f"{e.card} to the dealer (pos {pos}){rule}",
        pos=pos,
        card=e.card,
        target="dealer",
        cards=tuple(rnd.dealer),
        total=best_total(rnd.dealer),
        soft=is_soft(rnd.dealer),
        dealer_rule=word,
        allowed=why is None,
        why_not=why,
    )


def hole_card(rnd: Round, e: RoundEvent) -> None:
    """The dealer's second card came in the initial deal: this game deals no hole card."""
    if rnd.deal_flagged:
        return
    rnd.deal_flagged = True
    face = "face up" if e.face_up else "face down"
    rnd.flag(
        Breach(
            Code.DEAL_ORDER,
            f"initial deal, {e.card}: the dealer took a second card ({face}) before anyone "
            "played; the profile deals the dealer no hole card",
            (e.id,),
            expected="no hole card",
            actual=f"a hole card {face}",
            rule="initial_deal",
        )
    )


def resolve_pending(rnd: Round, *, as_hole_card: bool) -> None:
    """Decide what the dealer's second card was, by what came after it.

    Play going on (a card to a player hand, a decision) shows it was dealt
    before the players' turns: a hole card (``DEAL_ORDER``), and play goes on
    as the cards show. Anything else shows it was the dealer's first draw:
    the players' turns ended there.
    """
    e = rnd.pending_dealer
    assert e is not None
    rnd.pending_dealer = None
    if as_hole_card:
        hole_card(rnd, e)
        return
    skip = Skip(e.id, None, None, e.card or "")
    rnd._pass_to(None, e.id, skip)
    rnd.phase = Phase.DEALER


def finish_dealer(rnd: Round) -> None:
    """At the end of the round: ``DEALER_STOOD_ON_DRAW`` if the dealer stopped too soon.

    The dealer may stop once every player hand is decided (rules.md); open
    insurance needs the second card.
    """
    if rnd.voided:
        return
    if rnd.peek_window and rnd.last_event is not None:
        # nothing made it late, and it never came: play ended without it
        rnd.peek_window = False
        early_surrenders_decided(rnd, False)
        rnd.flag(
            Breach(
                Code.DEAL_PEEK_MISSING,
                f"the dealer never peeked under his {rnd.upcard()}",
                (),
                expected="peek",
                actual="none",
                rule=rnd.peek_rule,
            )
        )
    rnd._owed_cards_at_end()
    if rnd.rules.dealer_plays_freely or not rnd.deal_done:
        return
    for h in rnd.order:
        if not h.ended:
            rnd.stand(h, h.card_events[-1] if h.card_events else rnd.last_event or "")
    d = rnd.dealer
    if not d or rnd.all_decided() or not dealer_must_draw(d, rnd.rules):
        return
    open_bet = rnd.side_open_for_dealer() if rnd.side else None
    undecided = (
        "player hands were undecided"
        if open_bet is None
        else f"box {open_bet.box} spot {open_bet.spot}'s {open_bet.kind} side bet was open"
    )
    rnd.flag(
        Breach(
            Code.DEALER_STOOD_ON_DRAW,
            f"the dealer stopped on {best_total(d)} ({','.join(d)}) while {undecided}; "
            f"the profile says draw below {rnd.rules.dealer_stands_on}",
            tuple(rnd.dealer_events[-1:]),
            expected="draw",
            actual=f"stand on {best_total(d)}",
            rule="dealer_stands_on",
        )
    )
