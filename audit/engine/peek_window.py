"""The peek window (rules.md, "The peek"; games.md §3 and §4): the dealer's look at his hole card.

One owner per phase: :class:`~audit.engine.round.Round` keeps the hole card's state
(the window, the watch on a reveal) and dispatches a ``peek`` or ``reveal`` here;
these functions ask :mod:`audit.engine.peek` what it breaks, flag it and apply it, and
close the window when play shows the peek came late or never.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.engine.dealer import dealer_natural
from audit.engine.event import RoundEvent
from audit.engine.hands import best_total, is_soft
from audit.engine.peek import needless_peek, needless_rule
from audit.engine.sink import Breach
from audit.findings import Code

if TYPE_CHECKING:
    from audit.engine.round import Round


def peek(rnd: Round, e: RoundEvent, index: int) -> None:
    """``peek`` (TEL/1 v1.2): the dealer checks his hole card (games.md §3, "The peek").

    Due over a face-down hole card under an up card the profile peeks on, once,
    after the insurance and even-money offers and before the first decision, card
    or ``reveal``; later it is ``DEAL_PEEK_MISSING`` (raised when the window
    closed); where none is due ``DEAL_PEEK_NEEDLESS``. The cards decide, whatever
    ``blackjack`` says: a blackjack found ends play.
    """
    upcard = rnd.upcard()
    hole_down = rnd.hole_index is not None and not rnd.hole_turned and rnd.deal_done
    why = needless_peek(rnd.rules, upcard, hole_down, rnd.peeks)
    due = why is None
    late = due and not rnd.peek_window
    rnd.peeks += 1
    if not due:
        rnd.flag(
            Breach(
                Code.DEAL_PEEK_NEEDLESS,
                f"a peek where none is due: {why}",
                (e.id,),
                expected="no peek",
                actual="peek",
                rule=needless_rule(upcard),
            )
        )
    else:
        rnd.peek_window = False
        early_surrenders_decided(rnd, True)
        if rnd.known_index is None:
            rnd.known_index = index
        # a late peek was DEAL_PEEK_MISSING when the window closed; what it finds stands
        if dealer_natural(rnd.dealer[:2]):
            rnd.blackjack_found = True
    if rnd.steps is not None:
        finds = "a blackjack" if rnd.blackjack_found else "no blackjack"
        said = "" if e.blackjack is None else f" (announced: {'yes' if e.blackjack else 'no'})"
        rnd.step(
            e,
            f"the dealer peeks under {upcard or 'no up card'}: "
            + (f"finds {finds}{said}" if due else f"needless{said}")
            + ("; late" if late else ""),
            allowed=due and not late,
            why_not=why if not due else ("late" if late else None),
        )


def reveal(rnd: Round, e: RoundEvent, index: int) -> None:
    """``reveal`` (TEL/1 v1.2): the dealer turns his hole card (games.md §2, §3).

    With no face-down card to turn it turns nothing and is no finding. In the
    peek's window it takes the peek's place (its cards decide as a peek's). It is
    ``DEAL_HOLE_CARD_SHOWN`` while a player hand is still to be played, but right
    after a peek that found a blackjack; ``hit`` and ``stand`` being optional
    (event-log.md), a hand is shown still to be played only by acting after the
    reveal, a decision or a card (:func:`player_acts`): one with no further
    action when the reveal comes had ended its turn.
    """
    if rnd.hole_index is None or rnd.hole_turned:
        rnd.step(e, "the dealer turns his hole card: none face down (nothing to turn)")
        return
    rnd.hole_turned = True
    rnd.reveal_index = index
    if rnd.known_index is None:
        rnd.known_index = index
    in_window = rnd.peek_window
    rnd.peek_window = False
    if in_window:
        early_surrenders_decided(rnd, True)  # the reveal took the peek's place
        if dealer_natural(rnd.dealer[:2]):
            rnd.blackjack_found = True
    if not rnd.blackjack_found:
        # play after a blackjack found is PLAY_AFTER_DEALER_BLACKJACK's (games.md §4)
        rnd.reveal_watch = e
    rnd.reveal_step = rnd.step(
        e,
        f"the dealer turns his hole card: {','.join(rnd.dealer)}",
        cards=tuple(rnd.dealer),
        total=best_total(rnd.dealer),
        soft=is_soft(rnd.dealer),
        allowed=True,
    )


def player_acts(rnd: Round, e: RoundEvent, what: str) -> None:
    """A player hand acts after the ``reveal``: the hole card was shown while it was
    still to be played (``DEAL_HOLE_CARD_SHOWN``, games.md §4, once per round)."""
    shown = rnd.reveal_watch
    assert shown is not None
    rnd.reveal_watch = None
    hole = rnd.dealer[rnd.hole_index] if rnd.hole_index is not None else "?"
    rnd.flag(
        Breach(
            Code.DEAL_HOLE_CARD_SHOWN,
            f"the dealer turned his hole card {hole} while box {e.box} hand "
            f"{e.hand or 0} was still to be played: {what} came after it",
            (shown.id, e.id),
            expected="hole card face down",
            actual="turned",
            rule="initial_deal",
        )
    )
    steps = rnd.steps
    if steps is not None and rnd.reveal_step >= 0:
        from dataclasses import replace

        steps[rnd.reveal_step] = replace(
            steps[rnd.reveal_step],
            allowed=False,
            why_not=f"a player hand was still to be played ({what} came after it)",
        )


def peek_made_late(rnd: Round, e: RoundEvent, what: str) -> None:
    """A decision, a card from the shoe or a ``reveal`` before the due peek."""
    if not rnd.peek_window:
        return
    rnd.peek_window = False
    early_surrenders_decided(rnd, False)
    rnd.flag(
        Breach(
            Code.DEAL_PEEK_MISSING,
            f"the dealer did not peek under his {rnd.upcard()} before {what} {e.id!r}",
            (e.id,),
            expected="peek",
            actual=what,
            rule=rnd.peek_rule,
        )
    )


def after_blackjack(rnd: Round, e: RoundEvent, what: str) -> None:
    """Play after a due peek (or the hole card in its place) found the dealer's blackjack."""
    if not rnd.blackjack_found or rnd.after_blackjack:
        return
    rnd.flag(
        Breach(
            Code.PLAY_AFTER_DEALER_BLACKJACK,
            f"{what} after the dealer's blackjack ({','.join(rnd.dealer[:2])}) was found: "
            "play was over",
            (e.id,),
            box=e.box,
            hand=e.hand if e.box is not None else None,
            expected="play over",
            actual=what,
            rule=rnd.peek_rule,
        )
    )
    rnd.after_blackjack = True


def early_surrenders_decided(rnd: Round, early: bool) -> None:
    """The surrenders made in the peek's window where only ``late`` is allowed, once it
    closes (games.md §3): the due peek (or a ``reveal`` in its place) came next, so they
    were early (``PLAY_SURRENDER``, and they stand); or it came late or never, so they
    were late surrenders in turn (the missing peek is the finding; forfeitable)."""
    pending = rnd.early_pending
    if not pending:
        return
    rnd.early_pending = None
    why = "an early surrender (before the peek) where only late is allowed"
    for h, e, k in pending:
        if not early:
            h.early_surrender = False
            continue
        surrender_breach(rnd, e, "surrender_kind", why)
        steps = rnd.steps
        if steps is not None and 0 <= k < len(steps):
            from dataclasses import replace

            steps[k] = replace(steps[k], allowed=False, why_not=why)


def surrender_breach(rnd: Round, e: RoundEvent, rule: str, why: str) -> None:
    """Flag a surrender the profile does not allow (``PLAY_SURRENDER``)."""
    rnd.flag(
        Breach(
            Code.PLAY_SURRENDER,
            f"box {e.box} hand {e.hand or 0} surrendered; {why}",
            (e.id,),
            box=e.box,
            hand=e.hand or 0,
            rule=rule,
        )
    )
