"""The round in play at a table-local time, for ``rounds --at`` and ``hand TABLE --at``.

The moment a player or a pit boss names ("T03, about 21:40") is read at the table's
own offset; at a DST change it may mean two instants (both are answered) or none
(both readings are answered, and named so). Each reading lists the round in play
then, with the rounds just before and after it; when no round was in play, the
neighbours alone, said so.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from audit.errors import AuditError, UsageError
from audit.store import Store
from audit.store.lookup import resolve_table
from audit.store.rounds import (
    AFTER,
    BEFORE,
    IN_PLAY,
    Reading,
    RoundRow,
    gaming_day_of,
    has_rounds,
    readings,
    rounds_around,
)

__all__ = ["AtAnswer", "NoRoundThen", "ReadingAnswer", "find_at", "in_play_round", "local_text"]


class NoRoundThen(AuditError):
    """No round was in play at the moment asked about (``hand --at``): names the neighbours."""


@dataclass(frozen=True, slots=True)
class ReadingAnswer:
    """The rounds around one reading of the local time."""

    reading: Reading
    rows: tuple[RoundRow, ...]

    @property
    def in_play(self) -> tuple[RoundRow, ...]:
        return tuple(r for r in self.rows if r.position == IN_PLAY)


@dataclass(frozen=True, slots=True)
class AtAnswer:
    """What ``rounds --table T --at TIME`` finds."""

    table: str
    local: dt.datetime
    gaming_day: dt.date
    answers: tuple[ReadingAnswer, ...]

    def notes(self) -> list[str]:
        """What the rows alone do not say: a DST reading, no round in play then."""
        out: list[str] = []
        for a in self.answers:
            if a.reading.note and a.reading.note not in out:
                out.append(a.reading.note)
        for a in self.answers:
            if not a.in_play:
                when = local_text(a.reading.at)
                if not a.rows:
                    out.append(f"no round was in play at {self.table} at {when}, nor near it")
                else:
                    out.append(f"no round was in play at {self.table} at {when}: {_around(a)}")
        return out


def _around(a: ReadingAnswer) -> str:
    sides = {r.position for r in a.rows}
    if sides == {BEFORE, AFTER}:
        return "the rounds just before and after it follow"
    if BEFORE in sides:
        return "the round just before it follows (none after it)"
    return "the round just after it follows (none before it)"


def local_text(t: dt.datetime) -> str:
    """A table-local time as ``rounds`` prints it: ``2026-11-28 21:40:05+01:00``."""
    return t.isoformat(sep=" ")


def find_at(store: Store, table: str, local: dt.datetime, day_start: str) -> AtAnswer:
    """The rounds of ``table`` (as typed: :func:`resolve_table`) around the table-local
    time ``local`` (naive; aware: that instant only).

    Raises :class:`AuditError` when the table is unknown or has no round on the gaming
    day ``local`` falls in.
    """
    table = resolve_table(store, table)
    naive = local.replace(tzinfo=None)
    day = gaming_day_of(naive, day_start)
    if not has_rounds(store, table, day):
        raise AuditError(f"table {table} has no audited round on gaming day {day}")
    found = [Reading(local)] if local.tzinfo is not None else readings(store, table, naive)
    answers = tuple(ReadingAnswer(r, tuple(rounds_around(store, table, day, r.at))) for r in found)
    return AtAnswer(table, naive, day, answers)


def in_play_round(answer: AtAnswer) -> RoundRow:
    """The one round in play at the moment ``answer`` is about (``hand --at``).

    Raises :class:`NoRoundThen` naming the neighbours when none was, or the rounds when
    the moment (a DST hour that happened twice) had two.
    """
    playing: list[RoundRow] = []
    for a in answer.answers:
        playing += [r for r in a.in_play if r not in playing]
    if len(playing) == 1:
        return playing[0]
    when = f"{answer.table} at {answer.local:%Y-%m-%d %H:%M:%S}"
    if playing:
        names = "; ".join(f"{_name(r)} opened {local_text(r.opened)}" for r in playing if r.opened)
        raise NoRoundThen(f"{len(playing)} rounds were in play at {when}: {names}")
    near = [r for a in answer.answers for r in a.rows]
    if not near:
        raise NoRoundThen(f"no round was in play at {when}, nor near it")
    names = "; ".join(f"{r.position}: {_name(r)} {_span(r)}" for r in near)
    raise NoRoundThen(f"no round was in play at {when} ({names})")


def _name(r: RoundRow) -> str:
    return f"{r.shoe} round {r.round}"


def _span(r: RoundRow) -> str:
    opened = local_text(r.opened) if r.opened else "?"
    closed = f"{r.closed:%H:%M:%S}" if r.closed else "?"
    return f"{opened} to {closed}"


_TIME = re.compile(r"\d{1,2}:\d{2}(:\d{2})?")


def parse_at(value: str, date: dt.date | None, day_start: str) -> dt.datetime:
    """``--at``: a table-local time, naive (or aware when an offset is given).

    ``HH:MM[:SS]`` needs ``--date``, a gaming day: a time before ``day_start`` is the
    next calendar day's (cli.md, "Gaming day").
    """
    from audit.store.store import day_start_minutes

    if _TIME.fullmatch(value):
        if date is None:
            raise UsageError(f"--at {value} names a time of day: give the gaming day with --date")
        try:
            clock = dt.time.fromisoformat(value if value.index(":") == 2 else "0" + value)
        except ValueError:
            raise UsageError(f"--at takes HH:MM[:SS], got {value!r}") from None
        minutes = clock.hour * 60 + clock.minute
        day = date + dt.timedelta(days=1) if minutes < day_start_minutes(day_start) else date
        return dt.datetime.combine(day, clock)
    if date is not None:
        raise UsageError("--at with a date and --date: give the date once")
    try:
        at = dt.datetime.fromisoformat(value)
    except ValueError:
        at = None
    if at is None or ("T" not in value.upper() and " " not in value):
        raise UsageError(
            f"--at takes YYYY-MM-DDTHH:MM[:SS], or HH:MM[:SS] with --date, got {value!r}"
        )
    return at
