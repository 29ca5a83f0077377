"""The exposed-card procedure (000; house default for 001 and 004).

«dovrà offrirla al giocatore di turno, che però può rifiutarla. La carta è
offerta allora, a turno, a tutti gli altri giocatori fino ad arrivare ... al
banchiere. Solo se tutti l'avranno rifiutata, la carta verrà bruciata. Ed è
questo l'unico caso in cui al Black Jack è lecito bruciare una carta.»
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from audit.events import models as m
from audit.findings import Code

if TYPE_CHECKING:
    from audit.engine.round import RoundState

Target = tuple[str, int | None]
"""("box", n) or ("dealer", None)."""


def _where(t: Target | None) -> str:
    if t is None:
        return "no more cards"
    return "the dealer" if t[0] == "dealer" else f"box {t[1]}"


@dataclass
class Exposed:
    """An exposed card going through the offer procedure (000)."""

    card: str
    event_id: str
    candidates: list[Target]
    offers: list[tuple[Target, bool]] = field(default_factory=list)
    accepted: Target | None = None
    flagged: bool = False


def on_exposed(rs: RoundState, e: m.ExposedCard) -> None:
    """An exposed card (000): offered to the player in turn, each later box, the dealer."""
    if rs.rules.exposed_card_procedure:
        cands: list[Target] = []
        for h in rs.turn_order():
            if not h.done and ("box", h.box) not in cands:
                cands.append(("box", h.box))
        cands.append(("dealer", None))
        rs.exposed = Exposed(card=e.card, event_id=e.id, candidates=cands)
    rs._step(e, f"{e.card} exposed", card=e.card)


def _exposed_finding(rs: RoundState, ex: Exposed | None, message: str, event_id: str) -> None:
    if ex is not None:
        if ex.flagged:
            return
        ex.flagged = True
    rs._add(
        Code.PLAY_EXPOSED_CARD,
        message,
        events=[*([ex.event_id] if ex else []), event_id],
        rule="exposed_card_procedure",
    )


def _first_offer_shows_the_turn(rs: RoundState, ex: Exposed, target: Target, evidence: str) -> None:
    """A first offer to a later box shows the boxes before it stood (hit and stand are optional).

    Like a card to a later box (event-log.md), it moves the turn there, unless a
    hand in between still needed a card; the candidates then start at that box.
    """
    if target[0] != "box" or target not in ex.candidates:
        return
    order = rs.turn_order()
    cur = rs.current()
    first = next((h for h in order if h.box == target[1] and not h.done), None)
    if first is None or cur is None:
        return
    between = order[order.index(cur) : order.index(first)]
    if any(h.needs_card for h in between if not h.done):
        return
    rs._advance_to(first, evidence)
    ex.candidates = ex.candidates[ex.candidates.index(target) :]


def on_offer(rs: RoundState, e: m.Offer) -> None:
    """An offer of the exposed card, checked against the order of the procedure (000)."""
    target: Target = ("dealer", None) if e.to == "dealer" else ("box", e.box)
    ex = rs.exposed
    ok = True
    if rs.rules.exposed_card_procedure:
        if ex is None or ex.card != e.card:
            ok = False
            _exposed_finding(rs, None, f"{e.card} offered, but it is not the exposed card", e.id)
        else:
            if not ex.offers and target != ex.candidates[0]:
                _first_offer_shows_the_turn(rs, ex, target, e.id)
            k = len(ex.offers)
            expected = ex.candidates[k] if k < len(ex.candidates) else None
            if target != expected:
                ok = False
                _exposed_finding(
                    rs,
                    ex,
                    f"exposed {e.card} offered to {_where(target)}; {_where(expected)} was next",
                    e.id,
                )
            ex.offers.append((target, e.accepted))
            if e.accepted:
                ex.accepted = target
    verb = "accepts" if e.accepted else "refuses"
    rs._step(
        e,
        f"{e.card} offered: {_where(target)} {verb}",
        card=e.card,
        target=e.to,
        box=e.box,
        allowed=ok,
    )


def on_burn(rs: RoundState, e: m.Burn, index: int) -> None:
    """A burn during the round: only an exposed card refused by all may be burned (000)."""
    rs.draws.append(index)
    ok = True
    if rs.rules.exposed_card_procedure:
        ex = rs.exposed
        if ex is not None and ex.card in e.cards:
            refused = [t for t, acc in ex.offers if not acc]
            if refused != ex.candidates:
                ok = False
                missing = [_where(t) for t in ex.candidates if t not in refused]
                _exposed_finding(
                    rs,
                    ex,
                    f"exposed {ex.card} burned without being offered to {', '.join(missing)}",
                    e.id,
                )
            rs.exposed = None
        else:
            ok = False
            _exposed_finding(
                rs,
                None,
                f"{','.join(e.cards) or e.n_cards} card(s) burned mid-shoe outside the "
                "exposed-card procedure",
                e.id,
            )
    rs._step(e, f"burn {','.join(e.cards) or e.n_cards}", allowed=ok)
