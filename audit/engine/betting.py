"""The betting phase (rules.md, "Betting"; games.md §2 and §3 "Side bets"): stakes and side bets.

One owner per phase: :class:`~audit.engine.round.Round` keeps the round's state and
dispatches a ``bet`` here; these functions record the stake or side bet as it stands,
flag what it breaks (past-posting, a side bet not offered, the limits checked when
betting closes: :mod:`audit.engine.bets`) and close betting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.engine.bets import limit_breaches
from audit.engine.event import RoundEvent, money
from audit.engine.phase import Phase
from audit.engine.sidebets import SideStake
from audit.engine.sink import Breach
from audit.engine.state import Box, Hand
from audit.findings import Code

if TYPE_CHECKING:
    from audit.engine.round import Round


def bet(rnd: Round, e: RoundEvent, index: int) -> None:
    """A stake placed, changed or withdrawn (``amount`` 0).

    After betting closed it is past-posting, ``BET_AFTER_NO_MORE_BETS``
    (004: «nessuna puntata può essere aggiunta, tolta o spostata»); the
    stake still counts as placed (rules.md: settlements follow the stakes
    as they were placed).
    """
    assert e.box is not None and e.spot is not None and e.amount is not None
    late = rnd.phase > Phase.BETTING
    if e.word is not None and e.word != "main":
        side_bet(rnd, e, e.word, late)
        return
    if late:
        rnd.flag(
            Breach(
                Code.BET_AFTER_NO_MORE_BETS,
                f"box {e.box} spot {e.spot}: stake set to {money(e.amount)} after betting closed",
                tuple(x for x in (rnd.close_event, e.id) if x),
                box=e.box,
                spot=e.spot,
                actual=str(money(e.amount)),
                rule="bets_close_before_start_burn" if rnd.closed_by_burn else None,
            )
        )
    key = (e.box, e.spot)
    if late:
        rnd.late_bets = True
    rnd.bets[key] = e.amount
    rnd.players[key] = e.player
    rnd.bet_events.setdefault(e.box, []).append(e.id)
    rnd.spot_events.setdefault(key, []).append(e.id)
    if rnd.boxes_made:
        late_stake(rnd, e.box, e.spot, e.amount, e.player)
    if rnd.steps is not None:
        who = f" ({e.player})" if e.player else ""
        verb = "withdraws" if e.amount == 0 else "bets"
        if rnd.steps is not None:
            rnd.step(
                e,
                f"box {e.box} spot {e.spot}{who} {verb} {money(e.amount)}"
                + (" after no more bets" if late else ""),
                box=e.box,
                spot=e.spot,
                amount=money(e.amount),
                allowed=not late,
                why_not="betting was closed" if late else None,
            )


def side_bet(rnd: Round, e: RoundEvent, kind: str, late: bool) -> None:
    """A side bet placed, changed or withdrawn (games.md §2, §3 "Side bets").

    ``BET_SIDE_NOT_OFFERED`` where the profile does not offer ``kind`` (once per side
    bet; its settlement then not judged); after betting closed, past-posting
    (``BET_AFTER_NO_MORE_BETS``: a side bet is a stake). Its limits and its main stake
    are checked when betting closes (:func:`side_limits`); it counts toward neither
    the box's ``max_bet`` nor its spots.
    """
    assert e.box is not None and e.spot is not None and e.amount is not None
    key = (e.box, e.spot, kind)
    st = rnd.side.get(key)
    if st is None:
        table = rnd.side_tables.get(kind)
        st = SideStake(e.box, e.spot, kind, e.amount, e.player, table)
        rnd.side[key] = st
        if table is None:
            rnd.flag(
                Breach(
                    Code.BET_SIDE_NOT_OFFERED,
                    f"box {e.box} spot {e.spot}: a {kind} side bet of {money(e.amount)}; "
                    f"the profile offers " + (", ".join(sorted(rnd.side_tables)) or "no side bet"),
                    (e.id,),
                    box=e.box,
                    spot=e.spot,
                    expected=", ".join(sorted(rnd.side_tables)) or "none",
                    actual=kind,
                    rule="side_bets",
                )
            )
        if rnd.boxes_made:
            backfill_box_cards(rnd, e.box)
    st.amount = e.amount
    st.player = e.player
    st.events.append(e.id)
    if late and st.table is not None and not st.late:
        st.late = True
        rnd.flag(
            Breach(
                Code.BET_AFTER_NO_MORE_BETS,
                f"box {e.box} spot {e.spot}: {kind} side bet set to {money(e.amount)} "
                "after betting closed",
                tuple(x for x in (rnd.close_event, e.id) if x),
                box=e.box,
                spot=e.spot,
                actual=str(money(e.amount)),
            )
        )
    if rnd.steps is not None:
        who = f" ({e.player})" if e.player else ""
        verb = "withdraws" if e.amount == 0 else "bets"
        offered = st.table is not None
        rnd.step(
            e,
            f"box {e.box} spot {e.spot}{who} {verb} {money(e.amount)} on {kind}"
            + (" after no more bets" if late else "")
            + ("" if offered else " (not offered)"),
            box=e.box,
            spot=e.spot,
            amount=money(e.amount),
            allowed=offered and not late,
            why_not=None if offered and not late else (
                "betting was closed" if offered else "the profile does not offer it"
            ),
        )  # fmt: skip


def side_limits(rnd: Round) -> None:
    """Side bets as betting closes (games.md §3): within ``side_limits``, on a spot with
    a main stake; ``BET_LIMIT`` otherwise, settled as placed (one per side bet)."""
    limits = {kind: (lo, hi) for kind, lo, hi in rnd.limits.side}
    for (box, spot, kind), st in sorted(rnd.side.items()):
        if st.table is None or st.amount <= 0:
            continue
        lo, hi = limits.get(kind, (None, None))
        why = expected = None
        if rnd.bets.get((box, spot), 0) <= 0:
            why, expected = "on a spot with no main stake", "a main stake on the spot"
        elif lo is not None and st.amount < lo:
            why, expected = f"under its minimum {money(lo)}", f">= {money(lo)}"
        elif hi is not None and st.amount > hi:
            why, expected = f"over its maximum {money(hi)}", f"<= {money(hi)}"
        if why is not None:
            rnd.flag(
                Breach(
                    Code.BET_LIMIT,
                    f"box {box} spot {spot}: {kind} side bet {money(st.amount)} {why}",
                    tuple(st.events),
                    box=box,
                    spot=spot,
                    expected=expected,
                    actual=str(money(st.amount)),
                )
            )


def backfill_box_cards(rnd: Round, box_no: int) -> None:
    """A side bet placed once cards came: the box's first two cards, from its hand 0."""
    b = rnd.boxes.get(box_no)
    h = b.hand(0) if b is not None else None
    if h is not None and not h.from_split and box_no not in rnd.box_first:
        rnd.box_first[box_no] = list(zip(h.cards[:2], h.card_indexes[:2], strict=False))


def late_stake(rnd: Round, box_no: int, spot: int, amount: int, player: str | None) -> None:
    """Record a stake placed or changed after betting closed: its box, spot and amount."""
    box = rnd.boxes.get(box_no)
    if box is None or box.phantom:
        cards = box.hands if box is not None else []
        box = Box(number=box_no, late=True)
        h0 = Hand(box=box_no, number=0)
        for old in cards:
            if old.number == 0:
                h0.cards, h0.hard, h0.aces = old.cards, old.hard, old.aces
                h0.natural = old.natural
                h0.card_events, h0.card_indexes = old.card_events, old.card_indexes
        box.hands = [h0]
        rnd.boxes[box_no] = box
    box.spots[spot] = amount
    box.players[spot] = player
    h = box.hand(0)
    if h is not None:
        if amount > 0:
            h.stakes[spot] = amount
        else:
            h.stakes.pop(spot, None)


def close_betting(rnd: Round, event_id: str, by_burn: bool = False) -> None:
    """Betting closes (no more bets, the first card, or 001's start burn): the deal begins.

    Checks the stakes as they stand (:func:`audit.engine.bets.limit_breaches`).
    """
    if rnd.phase > Phase.BETTING:
        return
    rnd.phase = Phase.DEAL
    rnd.close_event = event_id
    rnd.closed_by_burn = by_burn
    boxes: dict[int, dict[int, int]] = {}
    for (box, spot), amount in sorted(rnd.bets.items()):
        if amount > 0:
            boxes.setdefault(box, {})[spot] = amount
    rnd.staked = boxes
    for b in limit_breaches(
        boxes,
        rnd.limits.min_bet,
        rnd.limits.max_bet,
        rnd.rules,
        rnd.bet_events,
        rnd.spot_events,
    ):
        rnd.flag(b)
    if rnd.side:
        side_limits(rnd)
