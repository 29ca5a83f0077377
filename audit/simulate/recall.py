"""Scoring an auditor against the simulator: did it find what was injected, and only that?

Nothing here imports the engine: the caller replays the shoes and passes the
findings in, so that the simulator and the engine stay independent and can
check each other.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from audit.simulate.inject import InjectedError
from audit.simulate.writer import gaming_day

__all__ = [
    "FindingLike",
    "RecallReport",
    "ShoeInfo",
    "ShoeInfoTracker",
    "match_findings",
    "shoe_infos",
]


class FindingLike(Protocol):
    @property
    def code(self) -> Any: ...
    @property
    def table(self) -> str | None: ...
    @property
    def shoe(self) -> str | None: ...
    @property
    def round(self) -> int | None: ...
    @property
    def box(self) -> int | None: ...
    @property
    def hand(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class ShoeInfo:
    """The cross-shoe facts a replay needs (the engine's ``ShoeContext``)."""

    first_shoe_of_gaming_day: bool
    banker: str | None
    banker_rounds_before: int


def _get(event: Any, name: str) -> Any:
    return event.get(name) if isinstance(event, dict) else getattr(event, name, None)


class ShoeInfoTracker:
    """Works out each shoe's :class:`ShoeInfo` as a table's shoes go by, in order.

    First shoe of the table's gaming day (a gaming day starts at 06:00 local
    time, cli.md); the banker at the end of the previous shoe of the table
    (its ``dealer``, or the latest ``dealer_change``) and how many rounds in a
    row that banker had dealt.
    """

    def __init__(self) -> None:
        self.last_day: dict[str, dt.date] = {}
        self.banker: dict[str, str | None] = {}
        self.count: Counter[str] = Counter()

    def see(self, events: Sequence[Any]) -> ShoeInfo:
        """The context of this shoe (its events in ``seq`` order), then take its events in."""
        table = _get(events[0], "table")
        day = None
        for e in events:
            if _get(e, "type") == "shoe_open":
                ts = _get(e, "ts")
                ts = dt.datetime.fromisoformat(ts) if isinstance(ts, str) else ts
                day = gaming_day(ts)
                break
        info = ShoeInfo(
            first_shoe_of_gaming_day=day is None or self.last_day.get(table) != day,
            banker=self.banker.get(table),
            banker_rounds_before=self.count[table],
        )
        if day is not None:
            self.last_day[table] = day
        for e in events:
            kind = _get(e, "type")
            if kind in ("shoe_open", "dealer_change"):
                who = _get(e, "dealer")
                if who != self.banker.get(table):
                    self.banker[table] = who
                    self.count[table] = 0
            elif kind == "round_open":
                self.count[table] += 1
        return info


def shoe_infos(shoes: Iterable[Sequence[Any]]) -> dict[tuple[str, str], ShoeInfo]:
    """Each shoe's context (shoes given in order per table; events in ``seq`` order)."""
    tracker = ShoeInfoTracker()
    return {(_get(ev[0], "table"), _get(ev[0], "shoe")): tracker.see(ev) for ev in shoes if ev}


@dataclass
class RecallReport:
    """Injected errors against findings: per code, how many were found and how many were extra."""

    injected: Counter[str] = field(default_factory=Counter)
    found: Counter[str] = field(default_factory=Counter)
    extra: Counter[str] = field(default_factory=Counter)
    missed: list[InjectedError] = field(default_factory=list)
    unexpected: list[Any] = field(default_factory=list)

    @property
    def perfect(self) -> bool:
        return not self.missed and not self.unexpected

    def recall(self, code: str) -> float:
        n = self.injected[code]
        return self.found[code] / n if n else 1.0

    def precision(self, code: str) -> float:
        n = self.found[code] + self.extra[code]
        return self.found[code] / n if n else 1.0

    def table(self) -> str:
        """A fixed-width table: code, injected, found, extra findings, recall, precision."""
        codes = sorted(set(self.injected) | set(self.extra))
        lines = [
            f"{'code':34} {'injected':>8} {'found':>6} {'extra':>6} {'recall':>7} {'prec.':>7}"
        ]
        for c in codes:
            lines.append(
                f"{c:34} {self.injected[c]:8d} {self.found[c]:6d} {self.extra[c]:6d} "
                f"{self.recall(c):7.3f} {self.precision(c):7.3f}"
            )
        total_i = sum(self.injected.values())
        total_f = sum(self.found.values())
        total_x = sum(self.extra.values())
        rec = total_f / total_i if total_i else 1.0
        prec = total_f / (total_f + total_x) if total_f + total_x else 1.0
        lines.append(f"{'all':34} {total_i:8d} {total_f:6d} {total_x:6d} {rec:7.3f} {prec:7.3f}")
        return "\n".join(lines)


def _fits(err: InjectedError, f: FindingLike) -> bool:
    if str(f.code) != str(err.code) or f.table != err.table or f.shoe != err.shoe:
        return False
    if f.round != err.round:
        return False
    if err.box is not None and f.box is not None and f.box != err.box:
        return False
    return err.hand is None or f.hand is None or f.hand == err.hand


def match_findings(
    injected: Iterable[InjectedError], findings: Iterable[FindingLike]
) -> RecallReport:
    """Pair each injected error with one finding of its code at its place (box and hand
    compared where both sides name them); every other finding is extra."""
    report = RecallReport()
    pool = list(findings)
    used = [False] * len(pool)
    for err in injected:
        report.injected[str(err.code)] += 1
        for i, f in enumerate(pool):
            if not used[i] and _fits(err, f):
                used[i] = True
                report.found[str(err.code)] += 1
                break
        else:
            report.missed.append(err)
    for i, f in enumerate(pool):
        if not used[i]:
            report.extra[str(f.code)] += 1
            report.unexpected.append(f)
    return report
