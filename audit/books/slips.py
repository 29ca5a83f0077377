"""Fill and credit slips: both sides' copies matched on the slip key, voids applied,
which side counts, and the issuing side's sequence (accounting.md "Slips: copies,
voids, sequence").

Pure: copies and voids in, :class:`Slip` s out; the reconciliation judges them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import pairwise
from typing import NamedTuple

from audit.books.house import House
from audit.books.model import Chips, Side, SlipCopy, SlipVoid
from audit.books.timeline import gaming_day_of


class SlipKey(NamedTuple):
    """A slip's key: series, year (of the gaming day of the copy's ``ts``) and serial."""

    series: str
    year: int
    serial: int

    def __str__(self) -> str:
        return f"{self.series}/{self.year}/{self.serial}"


def _order(at: SlipCopy | SlipVoid) -> tuple[dt.datetime, str, int]:
    return (at.at.ts, at.at.stream, at.at.seq)


@dataclass(slots=True)
class Slip:
    """One slip: each side's copies and voids, in ``ts`` order (ties by stream, seq)."""

    key: SlipKey
    copies: dict[Side, list[SlipCopy]] = field(default_factory=lambda: {"table": [], "cage": []})
    voids: dict[Side, list[SlipVoid]] = field(default_factory=lambda: {"table": [], "cage": []})

    @property
    def counting_side(self) -> Side:
        """The cage's copies count when the cage recorded the slip, else the table's."""
        return "cage" if self.copies["cage"] else "table"

    def voided(self, side: Side) -> bool:
        """Whether a void acts on ``side``'s copies (one of a slip it recorded)."""
        return bool(self.copies[side]) and bool(self.voids[side])

    def counts_on(self, side: Side) -> bool:
        """Recorded on ``side`` and not voided there."""
        return bool(self.copies[side]) and not self.voided(side)

    def counted(self) -> list[SlipCopy]:
        """The copies whose chips move the books: every event of the counting side
        (a duplicate included), none when that side voided it."""
        side = self.counting_side
        return [] if self.voided(side) else list(self.copies[side])

    @property
    def first(self) -> SlipCopy:
        """The copy the slip lies by: its first table copy, else its first cage copy."""
        return (self.copies["table"] or self.copies["cage"])[0]

    @property
    def duplicated_side(self) -> Side | None:
        """The side holding two events of the slip (the cage's when both)."""
        for side in ("cage", "table"):
            if len(self.copies[side]) > 1:
                return side
        return None

    def all_events(self) -> list[str]:
        """Every copy's and void's id, table side first."""
        return [
            *(c.at.id for c in self.copies["table"]),
            *(c.at.id for c in self.copies["cage"]),
            *(v.at.id for v in self.voids["table"]),
            *(v.at.id for v in self.voids["cage"]),
        ]


@dataclass(slots=True)
class VoidDefect:
    """A void that changes nothing: of a slip its side never recorded, or already voided."""

    void: SlipVoid
    why: str


def same_chips(a: Chips, b: Chips) -> bool:
    """Two chip lists holding the same count of every denomination."""
    denoms = {c.denomination for c in (*a.chips, *b.chips)}
    return all(a.count_of(d) == b.count_of(d) for d in denoms)


def chips_text(chips: Chips) -> str:
    """``"40 x 25 = 1000"``: a chip list as a line of a message."""
    from audit.findings import money_str

    parts = [f"{c.count} x {money_str(c.denomination)}" for c in chips.chips if c.count]
    return f"{' + '.join(parts) or 'no chips'} = {money_str(chips.value)}"


def match_slips(
    copies: Iterable[SlipCopy], voids: Iterable[SlipVoid], house: House
) -> tuple[dict[SlipKey, Slip], list[VoidDefect], dict[str, SlipKey]]:
    """Group both sides' copies by slip key, join across a new year, apply the voids.

    Returns the slips, the voids that changed nothing (with why), and each void's
    slip key (those that acted, and those of defective voids whose slip exists).
    A copy whose key the other side lacks matches that side's lone copy of its
    series and serial on the adjacent gaming day across a new year: one slip, of
    the earlier year.
    """
    slips: dict[SlipKey, Slip] = {}
    for c in sorted(copies, key=_order):
        key = SlipKey(c.series, gaming_day_of(c.at.ts, house).year, c.slip)
        slips.setdefault(key, Slip(key)).copies[c.side].append(c)
    _join_across_new_year(slips, house)
    defects: list[VoidDefect] = []
    void_key: dict[str, SlipKey] = {}
    for v in sorted(voids, key=_order):
        year = gaming_day_of(v.at.ts, house).year
        found: Slip | None = None
        for y in (year, year - 1, year + 1):
            s = slips.get(SlipKey(v.series, y, v.slip))
            if s is not None and s.copies[v.side]:
                found = s
                break
        if found is None:
            defects.append(VoidDefect(v, f"its {v.side} side never recorded {v.of} slip {v.slip}"))
            continue
        void_key[v.at.id] = found.key
        if found.voids[v.side]:
            defects.append(VoidDefect(v, f"already voided on the {v.side} side"))
            continue
        found.voids[v.side].append(v)
    return slips, defects, void_key


def _join_across_new_year(slips: dict[SlipKey, Slip], house: House) -> None:
    for key in sorted(slips):
        s = slips.get(key)
        later = slips.get(SlipKey(key.series, key.year + 1, key.serial))
        if s is None or later is None:
            continue
        one: Side = "table" if s.copies["table"] and not s.copies["cage"] else "cage"
        other: Side = "cage" if one == "table" else "table"
        lone = s.copies[one] and not s.copies[other]
        if not (lone and later.copies[other] and not later.copies[one]):
            continue
        a = gaming_day_of(s.copies[one][-1].at.ts, house)
        b = gaming_day_of(later.copies[other][0].at.ts, house)
        if abs((b - a).days) == 1:
            s.copies[other] = later.copies[other]
            del slips[later.key]


@dataclass(frozen=True, slots=True)
class OutOfSequence:
    """A slip issued with a serial below the highest issued before it."""

    key: SlipKey
    due: int


@dataclass(frozen=True, slots=True)
class MissingRun:
    """With ``series_complete``: serials between two recorded ones, none recorded nor voided."""

    series: str
    year: int
    first: int
    after: int


def sequence_breaks(slips: Sequence[Slip]) -> list[OutOfSequence]:
    """Slips out of sequence on their series-and-year's issuing side: the cage when it
    holds any copy of the series and year, else the tables. Copies in ``ts`` order
    (ties by stream and seq) carry rising serials; a duplicated slip is not judged
    (it is ``ACCT_SLIP_DUPLICATE`` only) but was issued, as a voided one was."""
    by_series: dict[tuple[str, int], list[Slip]] = {}
    for s in slips:
        by_series.setdefault((s.key.series, s.key.year), []).append(s)
    out: list[OutOfSequence] = []
    for group in by_series.values():
        side: Side = "cage" if any(s.copies["cage"] for s in group) else "table"
        issued = [s for s in group if s.copies[side]]
        issued.sort(key=lambda s: _order(s.copies[side][0]))
        highest: int | None = None
        for s in issued:
            if highest is not None and s.key.serial < highest and s.duplicated_side is None:
                out.append(OutOfSequence(s.key, highest + 1))
            highest = s.key.serial if highest is None else max(highest, s.key.serial)
    return out


def missing_runs(slips: Sequence[Slip]) -> list[MissingRun]:
    """Runs of serials neither recorded nor voided between two recorded ones, per
    series and year (judged only where the house file sets ``series_complete``)."""
    serials: dict[tuple[str, int], set[int]] = {}
    for s in slips:
        serials.setdefault((s.key.series, s.key.year), set()).add(s.key.serial)
    out: list[MissingRun] = []
    for (series, year), got in sorted(serials.items()):
        ordered = sorted(got)
        for a, b in pairwise(ordered):
            if b - a > 1:
                out.append(MissingRun(series, year, a + 1, b))
    return out


def value_of(copies: Sequence[SlipCopy]) -> Decimal:
    """The chips' value of some copies, summed."""
    return sum((c.chips.value for c in copies), Decimal(0))
