"""The exposed-card procedure (000; house default for 001 and 004).

«dovrà offrirla al giocatore di turno, che però può rifiutarla. La carta è
offerta allora, a turno, a tutti gli altri giocatori fino ad arrivare ... al
banchiere. Solo se tutti l'avranno rifiutata, la carta verrà bruciata. Ed è
questo l'unico caso in cui al Black Jack è lecito bruciare una carta.»

:class:`Exposed` is the procedure's record; the round keeps it and changes
it, these functions only read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from audit.engine.deal import where


@dataclass(slots=True, eq=False)
class Exposed:
    """An exposed card going through the offer procedure (000).

    ``candidates`` are the seats it must be offered to, in order: the player
    in turn, each following box that has not yet played, then the dealer
    (seat 0); ``offers`` the offers made, as (seat, accepted).
    """

    card: str
    event_id: str
    candidates: list[int]
    offers: list[tuple[int, bool]] = field(default_factory=list)
    accepted: int | None = None
    flagged: bool = False

    def next_candidate(self) -> int | None:
        """The seat the next offer must go to (None: every candidate had it)."""
        k = len(self.offers)
        return self.candidates[k] if k < len(self.candidates) else None

    def unoffered(self) -> list[str]:
        """The candidates that did not refuse it yet, in words (a burn needs none)."""
        refused = [seat for seat, accepted in self.offers if not accepted]
        return [where(seat) for seat in self.candidates if seat not in refused]

    def refused_by_all(self) -> bool:
        return [seat for seat, accepted in self.offers if not accepted] == self.candidates
