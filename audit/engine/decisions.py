"""The players' decisions (rules.md, "Doubles", "Splits", "Surrender"; 000, 001, 004).

One owner per phase: :class:`~audit.engine.round.Round` keeps the round's state and
dispatches an ``action`` here; these functions check the decision against the profile
(the pure checks in :mod:`audit.engine.play`), flag what it breaks and apply it, as it
happened (an illegal double still doubles the stake).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.engine.dealer_turn import resolve_pending
from audit.engine.event import RoundEvent, money
from audit.engine.peek_window import after_blackjack, peek_made_late, player_acts, surrender_breach
from audit.engine.phase import Phase
from audit.engine.play import (
    consent_violation,
    double_violation,
    hit_violation,
    split_violation,
    surrender_violation,
)
from audit.engine.sink import Breach
from audit.engine.state import Hand, Late
from audit.events.cards import is_ace
from audit.findings import Code

if TYPE_CHECKING:
    from audit.engine.round import Round


def action(rnd: Round, e: RoundEvent, index: int) -> None:
    """A player decision: hit, stand, double, split, surrender (000, 001, 004)."""
    assert e.box is not None and e.word is not None
    rnd._cut_deal_short(e, index)
    early = e.word == "surrender" and rnd._early()
    if rnd.blackjack_found:
        after_blackjack(rnd, e, f"box {e.box} hand {e.hand or 0}: {e.word}")
    elif not early:
        peek_made_late(rnd, e, f"box {e.box} hand {e.hand or 0}: {e.word}")
    if rnd.reveal_watch is not None:
        player_acts(rnd, e, f"box {e.box} hand {e.hand or 0}'s {e.word}")
    if rnd.pending_dealer is not None:
        resolve_pending(rnd, as_hole_card=True)
    hand_no = e.hand or 0
    h = rnd._hand_for(e, e.box, hand_no, e.word)
    if h is None:
        if rnd.steps is not None:
            rnd.step(
                e,
                f"{e.word} for box {e.box} hand {hand_no}: no such hand",
                box=e.box,
                hand=hand_no,
                allowed=False,
                why_not="no such hand",
            )
        return
    rnd.last_play = index
    decided_before = (h.box, h.number) in rnd.acted
    rnd.acted.add((h.box, h.number))
    if not early:
        # games.md §3: an early surrender is no player decision: any box may make one,
        # in any order, before the peek; it neither opens play nor ends other turns
        if rnd.phase in (Phase.DEAL, Phase.INSURANCE):
            rnd.phase = Phase.PLAY
        rnd.played = True
        if rnd.first_decision is None:
            rnd.first_decision = index
        cur = rnd.current()
        if not h.ended and h is not cur and rnd._is_later(h, cur) and cur is not None:
            between = rnd.order[rnd.order.index(cur) : rnd.order.index(h)]
            if all(not x.needs_card for x in between if not x.ended):
                rnd._pass_to(h, e.id)
    allowed, why = True, None
    action = e.word
    if action == "stand":
        if not h.ended:
            rnd.stand(h, e.id)
    elif action == "hit":
        code = hit_violation(h, rnd.rules)
        if code is not None:
            allowed, why = False, code.value
    elif action == "surrender":
        wrong = surrender_violation(h, rnd.rules, rnd.upcard(), decided_before, early)
        if wrong is not None and early and wrong[0] == "surrender_kind":
            # early where only late is allowed, unless the peek comes late or never: then
            # it was a late surrender in turn (games.md §3); decided as the window closes
            wrong = None
            k = len(rnd.steps) if rnd.steps is not None else -1
            if rnd.early_pending is None:
                rnd.early_pending = []
            rnd.early_pending.append((h, e, k))
        if wrong is not None:
            rule, why = wrong
            allowed = False
            surrender_breach(rnd, e, rule, why)
        # judged as made (games.md §4): it stands or is forfeited as §3 says
        h.surrendered = True
        h.early_surrender = early
        h.ended = True
    elif action == "double":
        allowed, why = double(rnd, e, h)
    else:
        allowed, why = split(rnd, e, h)
    rnd.current()
    if rnd.steps is not None:
        rnd.step(
            e,
            f"box {e.box} hand {hand_no}: {action}"
            + (f" ({','.join(h.cards)} = {h.total})" if h.cards else ""),
            box=e.box,
            hand=hand_no,
            amount=money(e.amount),
            allowed=allowed,
            why_not=why,
            **rnd._hand_kw(h),
        )


def decision_breach(
    rnd: Round,
    e: RoundEvent,
    violation: tuple[str, str] | None,
    unconsented: tuple[str, str] | None,
    evidence: list[str],
    illegal: Code,
) -> tuple[bool, str | None]:
    """One finding per decision: the illegal one first, else the unconsented one."""
    hand_no = e.hand or 0
    if violation is not None:
        rule, reason = violation
        rnd.flag(
            Breach(
                illegal,
                f"box {e.box} hand {hand_no}: {e.word} not allowed: {reason}",
                (e.id,),
                box=e.box,
                hand=hand_no,
                rule=rule,
            )
        )
        return False, reason
    if unconsented is not None:
        rule, reason = unconsented
        rnd.flag(
            Breach(
                Code.PLAY_UNCONSENTED,
                f"box {e.box} hand {hand_no}: {e.word} went ahead though {reason}",
                (*(evidence if rule == "split_double_unanimity" else ()), e.id),
                box=e.box,
                hand=hand_no,
                rule=rule,
            )
        )
        return False, reason
    return True, None


def decision_spots(rnd: Round, e: RoundEvent, h: Hand) -> list[int]:
    """The spots a decision names, or else every staked spot of its hand."""
    return list(e.spots) if e.spots is not None else h.staked_spots()


def split_ace_one_card(rnd: Round, h: Hand) -> bool:
    """A hand from split aces that gets one card (000: «una sola carta»)."""
    return h.split_aces and rnd.rules.split_aces_one_card


def double(rnd: Round, e: RoundEvent, h: Hand) -> tuple[bool, str | None]:
    """A double: one more card, the extra stake at most the stake (000); applied as made.

    A double on a hand whose turn has passed is late: its card is out of turn.
    """
    assert e.box is not None
    spots = decision_spots(rnd, e, h)
    extras = {
        s: (e.amount if e.amount is not None else h.stakes[s]) for s in spots if s in h.stakes
    }
    objections = rnd.objections.pop((e.box, e.hand or 0, "double"), [])
    result = decision_breach(
        rnd,
        e,
        double_violation(h, rnd.rules, extras),
        consent_violation(rnd.rules, h, spots, objections),
        objections,
        Code.PLAY_ILLEGAL_DOUBLE,
    )
    # A split ace's turn ends with its one card: a double on it (PLAY_ILLEGAL_DOUBLE
    # alone, rules.md v1.2) takes its card in that turn, not late or out of turn.
    late = h.ended and not split_ace_one_card(rnd, h)
    for s, extra in extras.items():
        h.extra[s] = h.extra.get(s, 0) + extra
    h.doubled = True
    h.cards_after_double = 0
    if late:
        h.late = Late(e.id, "doubled", h.box, h.number, dict(extras))
        rnd.late.append(h.late)
    return result


def split(rnd: Round, e: RoundEvent, h: Hand) -> tuple[bool, str | None]:
    """A split of two equal cards into two hands (000); applied as made.

    event-log.md, "Hand": the first card stays in hand *h*, the second moves
    to a new hand numbered by the count of hands the box had; every taking
    part spot stakes its stake on *h* on the new hand. A split of a hand whose
    turn has passed is late: its hands' cards are out of turn.
    """
    assert e.box is not None
    b = rnd.boxes[e.box]
    spots = decision_spots(rnd, e, h)
    objections = rnd.objections.pop((e.box, e.hand or 0, "split"), [])
    result = decision_breach(
        rnd,
        e,
        split_violation(h, b, rnd.rules),
        consent_violation(rnd.rules, h, spots, objections),
        objections,
        Code.PLAY_ILLEGAL_SPLIT,
    )
    cards = h.cards
    aces = len(cards) >= 2 and is_ace(cards[0]) and is_ace(cards[1])
    # a split ace's one card ends its hand; a second ace may still be split again
    # (games.md §3, resplit_aces): that split is in turn, not late
    resplit = h.split_aces and aces and len(cards) == 2 and not h.doubled
    late = h.ended and not resplit
    kept = [*cards[:1], *cards[2:]]
    new = Hand(
        box=b.number,
        number=len(b.hands),
        stakes={s: h.stakes[s] for s in spots if s in h.stakes},
        from_split=True,
        split_aces=aces,
    )
    new.set_cards(list(cards[1:2]))
    h.set_cards(kept)
    h.from_split, h.split_aces, h.natural = True, aces, False
    b.hands.append(new)
    if late:
        h.late = new.late = Late(e.id, "split", h.box, h.number, dict(new.stakes), new)
        rnd.late.append(h.late)
        new.ended = True
    else:
        h.ended = False
        # games.md §3: hands are played in layout order; a new hand lies right after
        # the hand it came from (splitting 0, then 0 again: [0, 2, 1]). Where the
        # profile allows no resplit, an illegal one keeps v1's order (after the box's
        # last hand), so the Italian profiles judge their logs as before.
        if h in rnd.order:
            at = rnd.order.index(h)
            if rnd.rules.max_hands_per_box <= 2:
                at = max(i for i, x in enumerate(rnd.order) if x.box == b.number)
            rnd.order.insert(at + 1, new)
            rnd.turn = min(rnd.turn, rnd.order.index(h))
        # else: a box staked after betting closed has no turn (its stake is the
        # past-posting finding); its split hand stays outside the turn order like it
    return result
