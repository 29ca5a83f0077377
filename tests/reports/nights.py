"""Audit databases for the report tests, built the way production builds them:
TEL/1 files -> :func:`audit.ingest.ingest_paths` -> :func:`audit.batch.run_audit`.

A night is a small simulated night (:func:`audit.simulate.simulate`, for volume and
every kind of injected error) plus one hand-written TEL/1 file (:func:`handwritten`):

- table :data:`HOSTILE` (an id made to break HTML, Jinja and Markdown tables), dealer
  :data:`HOSTILE_DEALER`: the worked example round of event-log.md (one critical
  ``PAY_WRONG_OUTCOME``, box 1 hand 1 overpaid 125); the shoe is never closed, and one
  of its lines is quarantined;
- table ``T90``: a shoe opened by ``D-OPEN`` and dealt from without a player's cut
  (``SHOE_NO_CUT``, a shoe-level finding); rounds 1-2 by ``D-OPEN``, then a
  ``dealer_change`` to ``D-RELIEF`` for rounds 3-5; rounds 2 and 4 each overpay 5;
  after the change, a line reuses the id of round 1's ``round_open`` with other content
  (``LOG_ID_CONFLICT``: critical, and without a round);
- table ``T09``: a shoe of the gaming day before, with an error, that no report of
  :data:`DAY` may count;
- a line that is not JSON at all.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from audit.batch import replay_stored_shoe, run_audit
from audit.engine import ShoeReplay
from audit.events.models import AnyEvent
from audit.ingest import ingest_paths
from audit.profiles import ProfileRegistry, load_registry
from audit.simulate import simulate
from audit.store import ShoeKey, Store, open_store
from tests.reports import DATA

DAY = "2026-11-28"
HOSTILE = "T<script>alert(1)</script>|\"'{{ 7*7 }}"
HOSTILE_DEALER = "D<marquee>|{{ 6*7 }}\"'"
NOT_JSON = "{not json <script>alert(2)</script> | {{ 7*7 }}"


class ShoeLog:
    """Writes one shoe's TEL/1 lines: ids, ``seq``, timestamps and card positions."""

    def __init__(self, table: str, shoe: str, start: str) -> None:
        self.table, self.shoe = table, shoe
        self.clock = dt.datetime.fromisoformat(start)
        self.seq = 0
        self.pos = 0
        self.lines: list[str] = []

    def emit(self, type_: str, round_no: int | None = None, **fields: Any) -> None:
        self.seq += 1
        self.clock += dt.timedelta(seconds=5)
        event: dict[str, Any] = {
            "id": f"{self.table}-{self.seq}",
            "seq": self.seq,
            "ts": self.clock.isoformat(),
            "table": self.table,
            "shoe": self.shoe,
        }
        if round_no is not None:
            event["round"] = round_no
        event |= {"type": type_, **fields}
        self.lines.append(json.dumps(event, ensure_ascii=False))

    def open(self, dealer: str, *, cut_by: str = "box") -> None:
        """shoe_open, shuffle, cut, cut card, and the five burned cards of it-casino-6d."""
        self.emit("shoe_open", profile="it-casino-6d", decks=6, dealer=dealer, currency="EUR")
        self.emit("shuffle", method="riffle")
        self.emit("cut", by=cut_by, **({"box": 3} if cut_by == "box" else {}))
        self.emit("cut_card", position=234)
        self.emit("burn", cards=["7H", "KD", "2C", "9S", "QH"], face_down=True)
        self.pos = 5

    def card(self, round_no: int, card: str, to: str, **fields: Any) -> None:
        self.pos += 1
        self.emit("card", round_no, card=card, to=to, pos=self.pos, **fields)

    def round(self, round_no: int, *, paid: int = 10) -> None:
        """Box 1 bets 10 and makes 19; the dealer makes 17: a win due +10, paid ``paid``."""
        self.emit("round_open", round_no)
        self.emit("bet", round_no, box=1, spot=0, amount=10)
        self.emit("no_more_bets", round_no)
        self.card(round_no, "TS", "box", box=1)
        self.card(round_no, "7D", "dealer")
        self.card(round_no, "9H", "box", box=1)
        self.emit("action", round_no, box=1, hand=0, action="stand")
        self.card(round_no, "TC", "dealer")
        self.emit("settle", round_no, box=1, hand=0, spot=0, kind="main", amount=paid)
        self.emit("round_close", round_no)


def worked_example(table: str, dealer: str) -> list[str]:
    """The event-log.md example round, at ``table`` with ``dealer`` (the shoe stays open)."""
    out = []
    for line in (DATA / "example_T07.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        event["table"] = table
        event["shoe"] = f"{table}-S"
        event["id"] = event["id"].replace("T07", table)
        if event["type"] == "shoe_open":
            event["dealer"] = dealer
        out.append(json.dumps(event, ensure_ascii=False))
    return out


def handwritten() -> list[str]:
    """The hand-written lines of every night (see the module docstring)."""
    t90 = ShoeLog("T90", "T90-S", "2026-11-28T22:00:00+01:00")
    t90.open("D-OPEN", cut_by="dealer")
    t90.round(1)
    t90.round(2, paid=15)
    t90.emit("dealer_change", dealer="D-RELIEF")
    t90.round(3)
    t90.round(4, paid=15)
    t90.round(5)
    t90.emit("shoe_close", reason="end_of_session")
    conflict = json.loads(t90.lines[5])
    conflict["ts"] = "2026-11-28T23:59:00+01:00"
    t90.lines.append(json.dumps(conflict | {"round": 9}))

    t09 = ShoeLog("T09", "T09-S", "2026-11-27T22:00:00+01:00")
    t09.open("D-YESTERDAY")
    t09.round(1, paid=15)
    t09.emit("shoe_close", reason="end_of_session")

    hostile = worked_example(HOSTILE, HOSTILE_DEALER)
    # a bet without its box: well-formed JSON, invalid TEL/1, so it is quarantined
    bad_bet = json.loads(hostile[7])
    bad_bet |= {"id": f"{HOSTILE}-99", "seq": 99}
    del bad_bet["box"]
    return [*hostile, json.dumps(bad_bet), *t90.lines, *t09.lines, NOT_JSON]


def build_night(
    folder: Path,
    *,
    tables: int = 3,
    rounds: int = 30,
    error_rate: float = 0.25,
    seed: int = 11,
    extra: Sequence[str] | None = None,
) -> Path:
    """Simulate a night, add the hand-written file, ingest both, audit; return the database.

    ``extra`` replaces the hand-written lines (``[]`` for a simulated night alone).
    """
    logs = folder / "logs"
    simulate(
        logs / "sim",
        tables=tables,
        shoes=1,
        rounds=rounds,
        profiles=["it-casino-6d", "it-casino-5d", "ventuno-family"],
        seed=seed,
        error_rate=error_rate,
    )
    paths = sorted(p for p in (logs / "sim").iterdir() if p.is_dir())  # one per gaming day
    lines = handwritten() if extra is None else list(extra)
    if lines:
        (logs / "hand").mkdir(parents=True)
        (logs / "hand" / "night.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(logs / "hand")
    db = folder / "audit.duckdb"
    with open_store(db) as store:
        ingest_paths(store, paths)
        run_audit(store, load_registry(), workers=1)
    return db


def replayer(
    store: Store, registry: ProfileRegistry | None = None
) -> Callable[[str, str], tuple[ShoeReplay, Sequence[AnyEvent]]]:
    """The batch runner's replay of a stored shoe, as ``nightly`` passes it to the report."""
    reg = registry or load_registry()
    return lambda table, shoe: replay_stored_shoe(store, reg, ShoeKey(table, shoe))
