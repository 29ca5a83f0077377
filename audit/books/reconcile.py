"""Reconcile a casino's books with the audited hands (accounting.md "The identity",
"Gaming day, shift, session, period", "A period's figures", "When a period is
judged", "Findings", "How many findings").

:func:`reconcile` is pure: the stored records of the books and the hands' money
in, every :class:`~audit.books.model.Period` (figures, sessions, status
``pending``, ``incomplete`` or ``reconciled``; ``not_audited`` is the store's)
and every ``ACCT_`` finding out. The findings judge the books as counted; the
adjustments are attached to their periods and applied by :func:`adjusted`.

What the store passes
---------------------

Every record of the tables to reconcile (every stream), and every cage copy,
void and count of any table (the slip sequence, "a later gaming day" and the
cage's day close read them); what it leaves out of the latter it says in a
:class:`Horizon`. The hands' money may be summed by the store into one
:class:`~audit.books.model.HandsMoney` per run of one table's settlements (and
round opens) that lies (a) between the same two of the table's inventories, by
the placement rule of :class:`~audit.books.timeline.Timeline`, and (b) in one
gaming day and shift by ``ts``; the item's ``at`` is the run's first event (its
id is the evidence an ``ACCT_NO_INVENTORY`` names). Summing per round, or per
(table, inventory gap, gaming day, shift), are both such runs. The store should
sum per (table, gap, gaming day, shift): a night of a million rounds is then a few
hundred items and reconciles in well under a second; one item per round costs
about 10 microseconds each (a million rounds: 10 to 14 s on a loaded 2-core box).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal

from audit.books.house import House
from audit.books.judging import Judge
from audit.books.model import (
    ZERO,
    Adjustment,
    BuyIn,
    DropCount,
    Figures,
    HandsFinding,
    HandsMoney,
    Inventory,
    Period,
    Place,
    Session,
    SlipCopy,
    SlipVoid,
)
from audit.books.slips import Slip, match_slips
from audit.books.timeline import (
    Lie,
    PeriodKey,
    Sessions,
    Timeline,
    build_sessions,
    gaming_day_of,
    period_at,
)
from audit.findings import Finding, finding_id


@dataclass(frozen=True, slots=True)
class Horizon:
    """What the store holds beyond the records passed (of tables not reconciled now):
    each bound is combined with what the records themselves show."""

    last_count_day: dt.date | None = None
    """The latest ``gaming_day`` of any stored ``drop_count``."""
    first_cage_day: dt.date | None = None
    """The first gaming day (of its ``ts``) of any stored cage copy."""
    last_cage_day: dt.date | None = None
    """The latest gaming day (of its ``ts``) of any stored cage copy or cage void."""


@dataclass(slots=True)
class Books:
    """The reconciliation's result: every period, every ``ACCT_`` finding (ids set),
    the adjustments that name no period (listed, applied to none) and the counts
    that match no period."""

    periods: list[Period] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    unapplied: list[Adjustment] = field(default_factory=list)
    strays: list[DropCount] = field(default_factory=list)

    def period(self, table: str, gaming_day: dt.date, shift: str) -> Period | None:
        """The period of ``table`` on ``gaming_day`` in ``shift``, if the books have one."""
        for p in self.periods:
            if (p.table, p.gaming_day, p.shift) == (table, gaming_day, shift):
                return p
        return None

    def findings_of(self, period: Period) -> list[Finding]:
        """The findings on ``period``."""
        key = (period.table, period.gaming_day, period.shift)
        return [f for f in self.findings if (f.table, f.gaming_day, f.shift) == key]


@dataclass(slots=True)
class TableBooks:
    """One table's timeline, sessions, and where each of its records lies."""

    table: str
    timeline: Timeline
    sessions: Sessions
    session_period: list[PeriodKey]
    last_day: dt.date
    """The latest gaming day of any record placed at the table (or inventory)."""
    positions: list[int] = field(default_factory=list)
    """Each placed record's position in the timeline, in the order placed."""


@dataclass(slots=True)
class Ledger:
    """Figures being summed: per period and per session, and where records lie."""

    periods: dict[PeriodKey, Figures] = field(default_factory=dict)
    period_records: dict[PeriodKey, Period] = field(default_factory=dict)
    outside: dict[PeriodKey, list[str]] = field(default_factory=dict)
    """Per period, the ids of the records lying outside every session."""

    def figures(self, key: PeriodKey) -> Figures:
        f = self.periods.get(key)
        if f is None:
            f = self.periods[key] = Figures()
        return f


def reconcile(
    *,
    house: House,
    inventories: Iterable[Inventory] = (),
    slips: Iterable[SlipCopy] = (),
    voids: Iterable[SlipVoid] = (),
    buy_ins: Iterable[BuyIn] = (),
    counts: Iterable[DropCount] = (),
    adjustments: Iterable[Adjustment] = (),
    hands: Iterable[HandsMoney] = (),
    horizon: Horizon = Horizon(),
    hands_findings: Iterable[HandsFinding] = (),
) -> Books:
    """Build every session and period of the books given, compute their figures, judge
    what can be judged, and raise the ``ACCT_`` findings (accounting.md).

    Gaming day and shift of a record come from its ``ts`` in its own offset with the
    house file's ``day_start`` and shifts. A table keeps books from the gaming day
    of its first ``inventory`` on, or, with ``books_required``, whenever it has
    hands; the records of a table on a day it keeps none make no period.
    """
    invs = list(inventories)
    copies = list(slips)
    void_list = list(voids)
    buys = list(buy_ins)
    count_list = list(counts)
    hand_list = list(hands)

    start = _books_start(invs, hand_list, house)

    def keeps(table: str, day: dt.date) -> bool:
        first = start.get(table)
        return first is not None and day >= first

    matched, void_defects, void_key = match_slips(copies, void_list, house)
    slip_list = list(matched.values())

    ledger = Ledger()
    tables: dict[str, TableBooks] = {}
    placed = _place_all(house, invs, slip_list, void_list, buys, hand_list, keeps, start)
    for table, items in placed.items():
        tables[table] = _table_books(table, invs, items, house)

    # sessions, and the periods they open
    session_figs: dict[tuple[str, int], Figures] = {}
    for table, tb in tables.items():
        for i, s in enumerate(tb.sessions.sessions):
            f = Figures(sessions=1, opener=s.opener.chips.value)
            f.closer = None if s.closer is None else s.closer.chips.value
            session_figs[(table, i)] = f
            s.figures = f
            ledger.figures(tb.session_period[i])

    # every placed record, into its session and period
    lie: dict[str, Lie] = {}
    """Record id -> where it lies (a slip: by its first copy's id)."""
    for table, items in placed.items():
        tb = tables[table]
        gap_session = tb.sessions.gap_session
        # the hands' money inside a session is summed per session first (most records)
        summed: dict[int, list[Decimal | int]] = {}
        for (rec, at), pos in zip(items, tb.positions, strict=True):
            s_idx = gap_session[pos]
            if s_idx is not None and type(rec) is HandsMoney:
                acc = summed.get(s_idx)
                if acc is None:
                    acc = summed[s_idx] = [ZERO, 0, ZERO]
                acc[0] += rec.result
                acc[1] += rec.rounds
                acc[2] += rec.handle
                continue
            if s_idx is None:
                key = period_at(table, at.ts, house)
                sf: Figures | None = None
            else:
                key = tb.session_period[s_idx]
                sf = session_figs[(table, s_idx)]
            lie[rec.at.id] = Lie(key, s_idx, pos)
            pf = ledger.figures(key)
            if isinstance(rec, SlipVoid):
                continue
            if s_idx is None:
                out_ids = ledger.outside.setdefault(key, [])
                if at.id not in out_ids:
                    out_ids.append(at.id)
            _add(pf, rec)
            if sf is not None:
                _add(sf, rec)
        for s_idx, (result, rounds, handle) in summed.items():
            opener = tb.sessions.sessions[s_idx].opener.at
            whole = HandsMoney(opener, table, result, rounds, handle)  # type: ignore[arg-type]
            _add(ledger.figures(tb.session_period[s_idx]), whole)
            _add(session_figs[(table, s_idx)], whole)

    # counts, into their periods (or stray)
    strays: list[DropCount] = []
    period_counts: dict[PeriodKey, list[DropCount]] = {}
    names = house.shift_names()
    for c in sorted(count_list, key=lambda c: (c.at.ts, c.at.stream, c.at.seq)):
        if not keeps(c.table, c.gaming_day):
            continue
        shift = c.shift if c.shift is not None else (names[0] if len(names) == 1 else None)
        if shift is None or shift not in names:
            strays.append(c)
            continue
        key = PeriodKey(c.table, c.gaming_day, shift)
        period_counts.setdefault(key, []).append(c)
        ledger.figures(key)
    for key, cs in period_counts.items():
        _add_counts(ledger.figures(key), cs)

    # the periods' own figures from their sessions
    sessions_of: dict[PeriodKey, list[tuple[int, Session]]] = {}
    for tb in tables.values():
        for i, s in enumerate(tb.sessions.sessions):
            sessions_of.setdefault(tb.session_period[i], []).append((i, s))
    periods: dict[PeriodKey, Period] = {}
    for key in sorted(ledger.periods):
        f = ledger.periods[key]
        ss = sessions_of.get(key, [])
        _close_figures(f, [s for _, s in ss], bool(ledger.outside.get(key)))
        for _, s in ss:
            _tray(s.figures, s.closer is not None)
        periods[key] = Period(
            table=key.table,
            gaming_day=key.gaming_day,
            shift=key.shift,
            pit=house.pit_of(key.table),
            status="pending",
            figures=f,
            sessions=[s for _, s in ss],
            counts=period_counts.get(key, []),
        )

    judge = Judge(
        house=house,
        horizon_last_count=_latest(horizon.last_count_day, (c.gaming_day for c in count_list)),
        first_cage_day=_earliest(
            horizon.first_cage_day,
            (gaming_day_of(c.at.ts, house) for c in copies if c.side == "cage"),
        ),
        last_cage_day=_latest(
            horizon.last_cage_day,
            [
                *(gaming_day_of(c.at.ts, house) for c in copies if c.side == "cage"),
                *(gaming_day_of(v.at.ts, house) for v in void_list if v.side == "cage"),
            ],
        ),
        periods=periods,
        tables=tables,
        lie=lie,
        outside=ledger.outside,
        period_counts=period_counts,
        hands_findings=_by_table(hands_findings),
    )
    for slip in slip_list:
        where = lie.get(slip.first.at.id)
        if where is not None:
            p = periods[where.period]
            p.slips += slip.copies["table"] + slip.copies["cage"]
            p.voids += slip.voids["table"] + slip.voids["cage"]
    for d in void_defects:
        where = lie.get(d.void.at.id)
        if where is not None:
            periods[where.period].voids.append(d.void)
    for b in buys:
        where = lie.get(b.at.id)
        if where is not None:
            periods[where.period].buy_ins.append(b)

    found: list[Finding] = []
    found += judge.inventories(invs)
    found += judge.slips(slip_list, void_defects, void_key)
    found += judge.trays()
    found += judge.drops(strays)
    unapplied = _attach_adjustments(list(adjustments), periods, house)
    found += judge.adjustments(list(adjustments))
    judge.statuses(found)

    found.sort(key=_finding_order)
    ids: dict[tuple[object, ...], int] = {}
    out: list[Finding] = []
    for finding in found:
        ident = finding.identity()
        n = ids.get(ident, 0)
        ids[ident] = n + 1
        out.append(replace(finding, id=finding_id(ident, n)))
    return Books(
        periods=[periods[k] for k in sorted(periods)],
        findings=out,
        unapplied=unapplied,
        strays=strays,
    )


def _by_table(found: Iterable[HandsFinding]) -> dict[str, list[HandsFinding]]:
    out: dict[str, list[HandsFinding]] = {}
    for h in sorted(found, key=lambda h: (h.ts, h.code, h.id)):
        out.setdefault(h.table, []).append(h)
    return out


# --------------------------------------------------------------------------- placing


@dataclass(frozen=True, slots=True)
class SlipLie:
    """Where a slip lies (its first table copy, else its first cage copy): a record of
    its table that moves no figure, for its findings and for the recount rule."""

    slip: Slip

    @property
    def at(self) -> Place:
        return self.slip.first.at


Record = HandsMoney | BuyIn | SlipCopy | SlipVoid | SlipLie


def _books_start(
    invs: Sequence[Inventory], hands: Sequence[HandsMoney], house: House
) -> dict[str, dt.date]:
    start: dict[str, dt.date] = {}
    for i in invs:
        d = gaming_day_of(i.at.ts, house)
        if i.table not in start or d < start[i.table]:
            start[i.table] = d
    if house.books_required:
        for h in hands:
            start[h.table] = dt.date.min
    return start


def _place_all(
    house: House,
    invs: Sequence[Inventory],
    slips: Sequence[Slip],
    voids: Sequence[SlipVoid],
    buys: Sequence[BuyIn],
    hands: Sequence[HandsMoney],
    keep: Callable[[str, dt.date], bool],
    start: dict[str, dt.date],
) -> dict[str, list[tuple[Record, Place]]]:
    """Each table's records with the place each lies at: a counted slip copy lies where
    the slip's first copy naming its table lies (a slip counts where it lies)."""
    out: dict[str, list[tuple[Record, Place]]] = {}

    def put(table: str, rec: Record, at: Place) -> None:
        if keep(table, gaming_day_of(at.ts, house)):
            out.setdefault(table, []).append((rec, at))

    # the hands are most records: a time 14 hours past the books' first day's start (in
    # UTC) is on or after that day in any offset, so most need no gaming day computed
    sure: dict[str, dt.datetime | None] = {}
    for h in hands:
        if h.table not in sure:
            first = start.get(h.table)
            sure[h.table] = (
                None
                if first is None
                else dt.datetime.min.replace(tzinfo=dt.UTC)
                if first == dt.date.min
                else dt.datetime.combine(first, house.day_start, dt.UTC) + dt.timedelta(hours=14)
            )
        bound = sure[h.table]
        if bound is not None and h.at.ts >= bound:
            out.setdefault(h.table, []).append((h, h.at))
        elif bound is not None:
            put(h.table, h, h.at)
    for b in buys:
        put(b.table, b, b.at)
    for v in voids:
        put(v.table, v, v.at)
    for s in slips:
        put(s.first.table, SlipLie(s), s.first.at)
        for c in s.counted():
            put(c.table, c, _lie_at(s, c.table).at)
    for i in invs:
        if keep(i.table, gaming_day_of(i.at.ts, house)):
            out.setdefault(i.table, [])
    return out


def _lie_at(slip: Slip, table: str) -> SlipCopy:
    for c in (*slip.copies["table"], *slip.copies["cage"]):
        if c.table == table:
            return c
    return slip.first


def _table_books(
    table: str,
    invs: Sequence[Inventory],
    items: Sequence[tuple[Record, Place]],
    house: House,
) -> TableBooks:
    mine = [i for i in invs if i.table == table]
    timeline = Timeline(mine)
    position = timeline.position
    positions = [position(at) for _, at in items]
    sessions = build_sessions(timeline, set(positions))
    periods = [period_at(table, s.opener.at.ts, house) for s in sessions.sessions]
    # the gaming day grows with the table-local wall clock: the latest local time has it
    local = [at.ts.replace(tzinfo=None) for _, at in items]
    local += [i.at.ts.replace(tzinfo=None) for i in mine]
    start = dt.timedelta(hours=house.day_start.hour, minutes=house.day_start.minute)
    last = (max(local) - start).date() if local else dt.date.min
    return TableBooks(table, timeline, sessions, periods, last, positions)


def _add(f: Figures, rec: object) -> None:
    if isinstance(rec, HandsMoney):
        f.hands_result += rec.result
        f.rounds += rec.rounds
        f.handle += rec.handle
    elif isinstance(rec, BuyIn):
        if rec.method == "cash":
            f.buy_ins_cash += rec.amount
        elif rec.method == "marker":
            f.buy_ins_markers += rec.amount
        else:
            f.buy_ins_other += rec.amount
    elif isinstance(rec, SlipCopy):
        if rec.type == "fill":
            f.fills += rec.chips.value
        else:
            f.credits += rec.chips.value


def _add_counts(f: Figures, counts: Sequence[DropCount]) -> None:
    f.drop_cash = sum((c.cash for c in counts), ZERO)
    f.drop_markers = sum((c.markers for c in counts), ZERO)
    f.drop_other = sum((c.other for c in counts), ZERO)
    tips = [c.tips for c in counts if c.tips is not None]
    f.tips = sum(tips, ZERO) if tips else None


def _tray(f: Figures, bounded: bool) -> None:
    """T = closer - opener + credits - fills + B, when the tray is bounded."""
    if bounded and f.closer is not None and f.opener is not None:
        f.tray_win = f.closer - f.opener + f.credits - f.fills + f.buy_ins
    else:
        f.tray_win = None


def _close_figures(f: Figures, sessions: Sequence[Session], outside: bool) -> None:
    f.sessions = len(sessions)
    if sessions:
        f.opener = sum((s.opener.chips.value for s in sessions), ZERO)
        if all(s.closer is not None for s in sessions):
            f.closer = sum((s.closer.chips.value for s in sessions if s.closer), ZERO)
    bounded = bool(sessions) and f.closer is not None and not outside
    _tray(f, bounded)
    drop = f.drop
    f.win = None if f.tray_win is None or drop is None else f.tray_win + drop - f.buy_ins


def _attach_adjustments(
    adjustments: Sequence[Adjustment], periods: dict[PeriodKey, Period], house: House
) -> list[Adjustment]:
    names = house.shift_names()
    unapplied: list[Adjustment] = []
    for a in adjustments:
        shift = a.shift if a.shift is not None else (names[0] if len(names) == 1 else None)
        p = None if shift is None else periods.get(PeriodKey(a.table, a.gaming_day, shift))
        if p is None:
            unapplied.append(a)
        else:
            p.adjustments.append(a)
    return unapplied


def adjusted(period: Period) -> Figures:
    """The period's figures as adjusted (accounting.md "Adjustments"): each adjustment
    added to its line; a figure unknown as counted stays unknown, and the win moves
    by the adjustments' net effect when it is known."""
    f = replace(period.figures)
    effect = ZERO
    for a in period.adjustments:
        effect += a.effect
        line = a.line
        if line in ("fills", "credits"):
            setattr(f, line, getattr(f, line) + a.amount)
        elif line in ("opener", "closer", "drop_cash", "drop_markers", "drop_other", "tips"):
            now = getattr(f, line)
            if now is not None:
                setattr(f, line, now + a.amount)
    if f.win is not None:
        f.win = period.figures.win + effect if period.figures.win is not None else None
    return f


def _latest(bound: dt.date | None, days: Iterable[dt.date]) -> dt.date | None:
    return max((d for d in (bound, *days) if d is not None), default=None)


def _earliest(bound: dt.date | None, days: Iterable[dt.date]) -> dt.date | None:
    return min((d for d in (bound, *days) if d is not None), default=None)


def _finding_order(f: Finding) -> tuple[object, ...]:
    return (
        f.gaming_day or dt.date.min,
        f.table or "",
        f.shift or "",
        str(f.code),
        f.key or "",
    )


__all__ = ["Books", "Horizon", "adjusted", "reconcile"]
