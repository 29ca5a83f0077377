"""A small hand-written night for the ``rounds`` tests: rounds at known local times.

Every round is one bet on box 1 (a ten and a nine against the dealer's 6, 10, 2:
the player's 19 beats 18, paid 1:1) opened at a given local time and closed a minute
later. The offsets are written as given, so a night can cross a DST change.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class PlannedRound:
    """One round: when it opened (local, with its offset), who bet, what was paid."""

    opened: str
    """``2026-11-28T21:30:00+01:00``."""
    player: str = "P-1001"
    paid: int = 50
    dealer_change: str | None = None
    """A new dealer takes over just before this round."""


def night_events(
    table: str, shoe: str, rounds: list[PlannedRound], dealer: str = "D001"
) -> list[dict[str, Any]]:
    """The events of one shoe dealt at the planned times."""
    out: list[dict[str, Any]] = []

    def add(ts: dt.datetime, type: str, **fields: Any) -> None:
        seq = len(out) + 1
        out.append(
            {
                "id": f"{shoe}-{seq}",
                "seq": seq,
                "ts": ts.isoformat(),
                "table": table,
                "shoe": shoe,
                "type": type,
                **fields,
            }
        )

    first = dt.datetime.fromisoformat(rounds[0].opened) - dt.timedelta(minutes=2)
    add(first, "shoe_open", profile="it-casino-6d", decks=6, dealer=dealer)
    add(first + dt.timedelta(seconds=10), "shuffle", method="wash")
    add(first + dt.timedelta(seconds=20), "cut", by="box", box=1)
    add(first + dt.timedelta(seconds=30), "burn", cards=["7H", "KD", "2C", "9S", "QH"])
    for no, planned in enumerate(rounds, start=1):
        t = dt.datetime.fromisoformat(planned.opened)
        if planned.dealer_change:
            add(t - dt.timedelta(seconds=5), "dealer_change", dealer=planned.dealer_change)

        def at(seconds: int, t: dt.datetime = t) -> dt.datetime:
            return t + dt.timedelta(seconds=seconds)

        add(at(0), "round_open", round=no)
        add(at(5), "bet", round=no, box=1, spot=0, amount=50, player=planned.player)
        add(at(10), "card", round=no, card="TS", to="box", box=1)
        add(at(15), "card", round=no, card="6D", to="dealer")
        add(at(20), "card", round=no, card="9C", to="box", box=1)
        add(at(25), "action", round=no, box=1, hand=0, action="stand")
        add(at(30), "card", round=no, card="TH", to="dealer")
        add(at(35), "card", round=no, card="2C", to="dealer")
        add(at(40), "settle", round=no, box=1, hand=0, spot=0, kind="main", amount=planned.paid)
        add(at(60), "round_close", round=no)
    return out


def write_night(path: Path, events: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events))
    return path


EVENING = [
    PlannedRound("2026-11-28T21:30:00+01:00"),
    PlannedRound("2026-11-28T21:35:00+01:00", player="P-2002"),
    PlannedRound("2026-11-28T21:40:00+01:00", paid=100, dealer_change="D002"),
    PlannedRound("2026-11-29T02:29:30+01:00", player="=HYPERLINK(1)"),
]
"""Table T03, gaming day 2026-11-28: three rounds from 21:30 (the third overpaid by 50,
under a new dealer) and one at 02:29:30 the next morning."""

DST_NIGHT = [
    PlannedRound("2026-10-25T02:20:00+02:00"),
    PlannedRound("2026-10-25T02:40:00+02:00"),
    PlannedRound("2026-10-25T02:20:00+01:00", player="P-2002"),
    PlannedRound("2026-10-25T03:10:00+01:00"),
]
"""Table T05, gaming day 2026-10-24, the night summer time ends (last Sunday of October,
03:00 +02:00 becomes 02:00 +01:00): 02:20 happened twice, and a round was in play both
times."""
