"""Betting: stakes, no more bets, table limits, spots per box (rules.md, "The profiles").

000: standing players bet with the seated one «sempre che la somma delle puntate
non superi il massimo»; 004: «nessuna puntata può essere aggiunta, tolta o
spostata» once the first card leaves the shoe; 001 closes the game before the
start burn. Functions take the round's :class:`~audit.engine.round.RoundState`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from audit.engine.play import PlayBox, PlayHand
from audit.events import models as m
from audit.findings import Code

if TYPE_CHECKING:
    from audit.engine.round import RoundState


def on_bet(rs: RoundState, e: m.Bet) -> None:
    """A stake placed, changed or withdrawn (``amount`` 0).

    After betting closed it is past-posting, ``BET_AFTER_NO_MORE_BETS``
    (004: «nessuna puntata può essere aggiunta, tolta o spostata»); the
    stake still counts as placed (rules.md: settlements follow the stakes
    as they were placed).
    """
    key = (e.box, e.spot)
    late = rs.betting_closed
    if late:
        rule = "bets_close_before_start_burn" if rs.closed_by_burn else None
        rs._add(
            Code.BET_AFTER_NO_MORE_BETS,
            f"box {e.box} spot {e.spot}: stake set to {e.amount} after betting closed",
            events=[x for x in (rs.close_event, e.id) if x],
            box=e.box,
            spot=e.spot,
            actual=str(e.amount),
            rule=rule,
        )
    rs.bets[key] = e.amount
    rs.players[key] = e.player
    rs.bet_events.setdefault(e.box, []).append(e.id)
    if rs.boxes_made:
        _late_stake(rs, e)
    who = f" ({e.player})" if e.player else ""
    verb = "withdraws" if e.amount == 0 else "bets"
    rs._step(
        e,
        f"box {e.box} spot {e.spot}{who} {verb} {e.amount}"
        + (" after no more bets" if late else ""),
        box=e.box,
        spot=e.spot,
        amount=e.amount,
        allowed=not late,
        why_not="betting was closed" if late else None,
    )


def _late_stake(rs: RoundState, e: m.Bet) -> None:
    box = rs.boxes.get(e.box)
    if box is None or box.phantom:
        cards = box.hands if box is not None else []
        box = PlayBox(number=e.box, late=True)
        box.hands = [PlayHand(box=e.box, number=0)]
        for old in cards:
            if old.number == 0:
                box.hands[0].state = old.state
        rs.boxes[e.box] = box
    box.spots[e.spot] = e.amount
    box.players[e.spot] = e.player
    h0 = box.hand(0)
    if h0 is not None:
        if e.amount > 0:
            h0.stakes[e.spot] = e.amount
        else:
            h0.stakes.pop(e.spot, None)


def close_betting(rs: RoundState, event_id: str, by_burn: bool = False) -> None:
    """Betting closes (no more bets, the first card, or 001's start burn).

    Checks the stakes as they stand: ``BET_LIMIT`` (a spot under
    ``min_bet``, a box total over ``max_bet``; 000: «la somma delle puntate
    non superi il massimo») and ``BET_SPOTS`` (``max_spots_per_box``; bets
    behind with no box holder).
    """
    if rs.betting_closed:
        return
    rs.betting_closed = True
    rs.close_event = event_id
    rs.closed_by_burn = by_burn
    boxes: dict[int, dict[int, Decimal]] = {}
    for (box, spot), amount in sorted(rs.bets.items()):
        if amount > 0:
            boxes.setdefault(box, {})[spot] = amount
    lo, hi = rs.limits.min_bet, rs.limits.max_bet
    for box, spots in boxes.items():
        ev = rs.bet_events.get(box, [])
        for spot, amount in spots.items():
            if lo is not None and amount < lo:
                rs._add(
                    Code.BET_LIMIT,
                    f"box {box} spot {spot}: stake {amount} under the table minimum {lo}",
                    events=ev,
                    box=box,
                    spot=spot,
                    expected=f">= {lo}",
                    actual=str(amount),
                    rule="min_bet",
                )
        total = sum(spots.values(), Decimal(0))
        if hi is not None and total > hi:
            rs._add(
                Code.BET_LIMIT,
                f"box {box}: stakes total {total}, over the table maximum {hi}",
                events=ev,
                box=box,
                expected=f"<= {hi}",
                actual=str(total),
                rule="max_bet",
            )
        mx = rs.rules.max_spots_per_box
        if mx is not None and (len(spots) > mx or max(spots) >= mx):
            rs._add(
                Code.BET_SPOTS,
                f"box {box}: stakes on spots {sorted(spots)}; the profile allows {mx} "
                f"spot(s) per box (0 to {mx - 1})",
                events=ev,
                box=box,
                expected=str(mx),
                actual=str(len(spots)),
                rule="max_spots_per_box",
            )
        elif 0 not in spots:
            rs._add(
                Code.BET_SPOTS,
                f"box {box}: bets behind on spots {sorted(spots)} with no box holder (spot 0)",
                events=ev,
                box=box,
                expected="a stake on spot 0",
                actual="none",
                rule="box_holder_decides",
            )


def on_no_more_bets(rs: RoundState, e: m.NoMoreBets) -> None:
    """«Rien ne va plus»: from here no stake may change."""
    already = rs.betting_closed
    close_betting(rs, e.id)
    rs._step(e, "no more bets" + (" (betting had already closed)" if already else ""))


def start_burn(rs: RoundState, e: m.Burn) -> None:
    """001: «A puntate effettuate, il banchiere chiude il gioco, bruciando 5 carte».

    With ``bets_close_before_start_burn``, a start burn during round 1's betting
    closes it. rules.md: «the burn may come before or after round 1's betting»:
    a burn before any stake is placed (round_open logged first) closes nothing.
    """
    if rs.rules.bets_close_before_start_burn and any(v > 0 for v in rs.bets.values()):
        close_betting(rs, e.id, by_burn=True)
