"""How a *rich* table writes its log: every optional spelling TEL/1 allows.

Most simulated tables write the plainest TEL/1 (upper-case codes, ``T`` for
ten, every card's ``pos``, defaults left out). A rich table's equipment uses
the rest of event-log.md, as a reader from another vendor might: ``v``, ``10``
for ``T`` and lower-case card codes, an explicit ``face_up``, cards and burns
without ``pos``, ``stream`` naming the table's own (TEL/1 v1.2: the same as
leaving it out), and fields TEL/1 does not know (kept, ignored by the rules).
None of it changes what happened, so a clean log stays clean.

What a rich table *plays* differently (``spots`` on doubles and splits, void
rounds, doubles for less, explicit ``hit``/``stand``) is in its
:class:`~audit.simulate.base.TableStyle` and the rounds; this module only
rewrites events once they are stamped, from a random stream of its own.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = ["UNKNOWN_FIELDS", "Dresser"]

UNKNOWN_FIELDS: tuple[tuple[str, Any], ...] = (
    ("reader", "SR-4"),
    ("x_terminal", "DT-07"),
    ("vendor", {"name": "acme-shoe", "firmware": "4.2.1"}),
    ("checksum", "9f2c"),
    ("tags", ["audit", "sim"]),
)
"""Fields a vendor adds that TEL/1 does not define (event-log.md: kept, ignored)."""

_CARD_KEYS = ("card",)
_CARD_LIST_KEYS = ("cards", "order")

P_TEN = 0.5
"""Chance a ten is written ``10`` rather than ``T``."""
P_LOWER = 0.25
"""Chance a card code is written in lower case."""
P_FACE_UP = 0.5
"""Chance a face-up card says so (``face_up`` defaults to true)."""
P_UNKNOWN = 0.08
"""Chance an event carries a field TEL/1 does not define."""
P_STREAM = 0.3
"""Per shoe, the chance its events name their own table as their ``stream`` (the
default they may leave out): a reader that writes it, writes it on every event."""
POS_DROP = (0.0, 0.0, 0.3, 1.0)
"""Per shoe, the chance each card's ``pos`` is left out: most shoes write every
position, some leave some out, a few none (a shoe that does not read them)."""


class Dresser:
    """Rewrites a rich table's stamped events; one per table, fed its events in ``seq`` order."""

    def __init__(self, rng: random.Random, stream_rng: random.Random) -> None:
        self.rng = rng
        # ``stream`` is drawn apart, so that the rest of the dress is what it was before
        # TEL/1 v1.2 (the committed sample night's spellings stay put)
        self.stream_rng = stream_rng
        self.drop_pos = 0.0
        self.next_pos: int | None = None
        self.names_stream = False

    def dress(self, event: dict[str, Any]) -> dict[str, Any]:
        """The event as this table writes it (a new dict; envelope first, ``v`` leading)."""
        rng = self.rng
        t = event["type"]
        if t == "shoe_open":
            self.drop_pos = rng.choice(POS_DROP)
            self.next_pos = 1
            self.names_stream = self.stream_rng.random() < P_STREAM
        out: dict[str, Any] = {"v": 1, **event}
        for key in _CARD_KEYS:
            if isinstance(out.get(key), str):
                out[key] = self.spell(out[key])
        for key in _CARD_LIST_KEYS:
            if isinstance(out.get(key), list):
                out[key] = [self.spell(c) for c in out[key]]
        if t == "card" and "face_up" not in out and rng.random() < P_FACE_UP:
            out["face_up"] = True
        if t in ("card", "burn") and "pos" in out:
            self.maybe_drop_pos(out)
        if self.names_stream:
            out.setdefault("stream", out["table"])
        if rng.random() < P_UNKNOWN:
            name, value = rng.choice(UNKNOWN_FIELDS)
            out.setdefault(name, value)
        return out

    def spell(self, card: str) -> str:
        """One card code as this table writes it: ``10`` for ``T`` (event-log.md), any case."""
        rng = self.rng
        if card[0] == "T" and rng.random() < P_TEN:
            card = "10" + card[1:]
        if rng.random() < P_LOWER:
            card = card.lower()
        return card

    def maybe_drop_pos(self, event: dict[str, Any]) -> None:
        """Leave out a ``pos`` the reader can infer: only where it follows the previous one.

        A position that skips or repeats (an injected ``SHOE_POSITION_GAP``) is
        the evidence, and is always written.
        """
        pos = event["pos"]
        n = 1
        if event["type"] == "burn":
            n = len(event.get("cards") or ()) or event.get("count", 0)
        if pos == self.next_pos and self.rng.random() < self.drop_pos:
            del event["pos"]
        self.next_pos = pos + n
