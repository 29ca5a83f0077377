"""The Master Game Report: periods and adjustments in, its rows out (accounting.md "The
Master Game Report"). Pure: no I/O, no clock.

One row per period (level ``shift``); then, per gaming day, each table's, each pit's and
the casino's totals, per currency. Every row has every column of :data:`MGR_COLUMNS`, in
that order, null where a figure is unknown. Money is written as ``findings`` writes it
(the shortest exact decimal string), holds as percentages rounded half-even to two
decimals. The adjustment log (``books --adjustments``) is :func:`adjustment_log`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from audit.books.house import House
from audit.books.model import ZERO, Adjustment, Period
from audit.findings import money_str

MGR_COLUMNS: tuple[str, ...] = (
    "level",
    "gaming_day",
    "shift",
    "pit",
    "table",
    "currency",
    "status",
    "sessions",
    "rounds",
    "opener",
    "fills",
    "credits",
    "closer",
    "buy_ins_cash",
    "buy_ins_markers",
    "buy_ins_other",
    "buy_ins",
    "drop_cash",
    "drop_markers",
    "drop_other",
    "drop",
    "tips",
    "win",
    "hold",
    "handle",
    "hands_result",
    "hands_hold",
    "variance",
    "drop_variance",
    "tray_variance",
    "adjustments",
    "win_adjusted",
    "drop_adjusted",
    "hold_adjusted",
    "win_mtd",
    "drop_mtd",
    "hold_mtd",
    "win_ytd",
    "drop_ytd",
    "hold_ytd",
    "findings",
)
"""The export's columns, in order (``books --format jsonl|csv``)."""

ADJUSTMENT_COLUMNS: tuple[str, ...] = (
    "id",
    "source",
    "event",
    "table",
    "gaming_day",
    "shift",
    "line",
    "amount",
    "effect",
    "reason",
    "by",
    "os_user",
    "recorded_at",
    "ref",
    "reverses",
    "reportable",
)
"""The adjustment log's columns, in order (``books --adjustments``)."""

LEVELS: tuple[str, ...] = ("shift", "table", "pit", "casino")
"""The MGR's levels, from a period up."""

STATUS_ORDER: tuple[str, ...] = ("not_audited", "incomplete", "pending")
"""A total's status: the first of these that one of its rows has, else ``reconciled``."""

VARIANCE_CODES = frozenset({"ACCT_WIN_MISMATCH", "ACCT_DROP_MISMATCH"})
"""The codes ``books --fail-on-variance`` fails on."""

_DROP_LINES = {"drop_cash": "drop_cash", "drop_markers": "drop_markers", "drop_other": "drop_other"}
_HUNDRED = Decimal(100)
_CENT = Decimal("0.01")


def hold_text(win: Decimal | None, drop: Decimal | None) -> str | None:
    """``win / drop`` as a percentage, half-even to two decimals (``"18.23"``); None on an
    unknown win or drop, or a drop of 0."""
    if win is None or drop is None or drop == 0:
        return None
    return str((win * _HUNDRED / drop).quantize(_CENT, rounding=ROUND_HALF_EVEN))


def period_shift(adjustment: Adjustment, house: House) -> str | None:
    """The shift an adjustment names: its own, or, without one, the only shift at a house
    with one; None (no period) at a house with several (accounting.md "Adjustments")."""
    if adjustment.shift is not None:
        return adjustment.shift
    names = house.shift_names()
    return names[0] if len(names) == 1 else None


@dataclass(slots=True)
class _Cells:
    """One period's figures as the MGR adds them up (before formatting)."""

    day: dt.date
    shift: str | None
    pit: str | None
    table: str | None
    currency: str | None
    status: str
    sessions: int
    rounds: int
    opener: Decimal | None
    fills: Decimal | None
    credits: Decimal | None
    closer: Decimal | None
    buy_ins_cash: Decimal | None
    buy_ins_markers: Decimal | None
    buy_ins_other: Decimal | None
    drop_cash: Decimal | None
    drop_markers: Decimal | None
    drop_other: Decimal | None
    tips: Decimal | None
    win: Decimal | None
    handle: Decimal | None
    hands_result: Decimal | None
    tray_win: Decimal | None
    adjustments: Decimal
    drop_adjustments: Decimal
    findings: int
    parts: tuple[_Cells, ...] = ()
    """The period rows a total adds up (empty for a period's own row)."""

    def leaves(self) -> tuple[_Cells, ...]:
        return self.parts or (self,)


def _period_cells(p: Period, adjustments: Sequence[Adjustment], findings: int) -> _Cells:
    f = p.figures
    return _Cells(
        day=p.gaming_day,
        shift=p.shift,
        pit=p.pit,
        table=p.table,
        currency=p.currency,
        status=p.status,
        sessions=f.sessions,
        rounds=f.rounds,
        opener=f.opener,
        fills=f.fills,
        credits=f.credits,
        closer=f.closer,
        buy_ins_cash=f.buy_ins_cash,
        buy_ins_markers=f.buy_ins_markers,
        buy_ins_other=f.buy_ins_other,
        drop_cash=f.drop_cash,
        drop_markers=f.drop_markers if f.drop_cash is not None else None,
        drop_other=f.drop_other if f.drop_cash is not None else None,
        tips=f.tips,
        win=f.win,
        handle=f.handle,
        hands_result=f.hands_result,
        tray_win=f.tray_win,
        adjustments=sum((a.effect for a in adjustments), ZERO),
        drop_adjustments=sum((a.amount for a in adjustments if a.line in _DROP_LINES), ZERO),
        findings=findings,
    )


def _known_sum(values: Iterable[Decimal | None]) -> Decimal | None:
    """The sum of the known values; None when none is."""
    got = [v for v in values if v is not None]
    return sum(got, ZERO) if got else None


def _drop(c: _Cells) -> Decimal | None:
    if c.drop_cash is None:
        return None
    return c.drop_cash + (c.drop_markers or ZERO) + (c.drop_other or ZERO)


def _win_adjusted(c: _Cells) -> Decimal | None:
    return None if c.win is None else c.win + c.adjustments


def _drop_adjusted(c: _Cells) -> Decimal | None:
    d = _drop(c)
    return None if d is None else d + c.drop_adjustments


def _total(parts: Sequence[_Cells], **subject: Any) -> _Cells:
    statuses = {p.status for p in parts}
    status = next((s for s in STATUS_ORDER if s in statuses), "reconciled")

    def add(name: str) -> Decimal | None:
        return _known_sum(getattr(p, name) for p in parts)

    leaves = tuple(leaf for p in parts for leaf in p.leaves())
    return _Cells(
        day=parts[0].day,
        status=status,
        sessions=sum(p.sessions for p in parts),
        rounds=sum(p.rounds for p in parts),
        opener=add("opener"),
        fills=add("fills"),
        credits=add("credits"),
        closer=add("closer"),
        buy_ins_cash=add("buy_ins_cash"),
        buy_ins_markers=add("buy_ins_markers"),
        buy_ins_other=add("buy_ins_other"),
        drop_cash=add("drop_cash"),
        drop_markers=add("drop_markers"),
        drop_other=add("drop_other"),
        tips=add("tips"),
        win=add("win"),
        handle=add("handle"),
        hands_result=add("hands_result"),
        tray_win=add("tray_win"),
        adjustments=sum((p.adjustments for p in parts), ZERO),
        drop_adjustments=sum((p.drop_adjustments for p in parts), ZERO),
        findings=sum(p.findings for p in parts),
        parts=leaves,
        **subject,
    )


def _ratio_over_known_win(
    leaves: Sequence[_Cells],
    win: Callable[[_Cells], Decimal | None],
    drop: Callable[[_Cells], Decimal | None],
) -> str | None:
    """Win over drop over the rows whose win is known (accounting.md: ratios recomputed)."""
    known = [c for c in leaves if win(c) is not None]
    if not known:
        return None
    return hold_text(_known_sum(win(c) for c in known), _known_sum(drop(c) for c in known))


@dataclass(frozen=True, slots=True)
class _ToDate:
    win: Decimal | None
    drop: Decimal | None


def _to_date(leaves: Iterable[_Cells]) -> _ToDate:
    """MTD/YTD: the adjusted win and drop of the rows whose win is known."""
    known = [c for c in leaves if _win_adjusted(c) is not None]
    if not known:
        return _ToDate(None, None)
    return _ToDate(
        _known_sum(_win_adjusted(c) for c in known), _known_sum(_drop_adjusted(c) for c in known)
    )


def _row(level: str, c: _Cells, mtd: _ToDate, ytd: _ToDate) -> dict[str, Any]:
    m = money_str
    leaves = c.leaves()
    drop = _drop(c)
    buy_ins = _known_sum((c.buy_ins_cash, c.buy_ins_markers, c.buy_ins_other))
    if level == "shift":
        hold = hold_text(c.win, drop)
        hold_adjusted = hold_text(_win_adjusted(c), _drop_adjusted(c))
        variance = None if c.win is None or c.hands_result is None else c.win - c.hands_result
        drop_variance = None if drop is None or buy_ins is None else drop - buy_ins
        tray = c.tray_win
        tray_variance = None if tray is None or c.hands_result is None else tray - c.hands_result
    else:
        hold = _ratio_over_known_win(leaves, lambda x: x.win, _drop)
        hold_adjusted = _ratio_over_known_win(leaves, _win_adjusted, _drop_adjusted)
        variance = _known_sum(_variance(x) for x in leaves)
        drop_variance = _known_sum(_drop_variance(x) for x in leaves)
        tray_variance = _known_sum(_tray_variance(x) for x in leaves)
    win_adjusted = _known_sum(_win_adjusted(x) for x in leaves)
    drop_adjusted = _known_sum(_drop_adjusted(x) for x in leaves)
    row: dict[str, Any] = {
        "level": level,
        "gaming_day": c.day.isoformat(),
        "shift": c.shift,
        "pit": c.pit,
        "table": c.table,
        "currency": c.currency,
        "status": c.status,
        "sessions": c.sessions,
        "rounds": c.rounds,
        "opener": m(c.opener),
        "fills": m(c.fills),
        "credits": m(c.credits),
        "closer": m(c.closer),
        "buy_ins_cash": m(c.buy_ins_cash),
        "buy_ins_markers": m(c.buy_ins_markers),
        "buy_ins_other": m(c.buy_ins_other),
        "buy_ins": m(buy_ins),
        "drop_cash": m(c.drop_cash),
        "drop_markers": m(c.drop_markers),
        "drop_other": m(c.drop_other),
        "drop": m(drop),
        "tips": m(c.tips),
        "win": m(c.win),
        "hold": hold,
        "handle": m(c.handle),
        "hands_result": m(c.hands_result),
        "hands_hold": hold_text(c.hands_result, c.handle),
        "variance": m(variance),
        "drop_variance": m(drop_variance),
        "tray_variance": m(tray_variance),
        "adjustments": m(c.adjustments),
        "win_adjusted": m(win_adjusted),
        "drop_adjusted": m(drop_adjusted),
        "hold_adjusted": hold_adjusted,
        "win_mtd": m(mtd.win),
        "drop_mtd": m(mtd.drop),
        "hold_mtd": hold_text(mtd.win, mtd.drop),
        "win_ytd": m(ytd.win),
        "drop_ytd": m(ytd.drop),
        "hold_ytd": hold_text(ytd.win, ytd.drop),
        "findings": c.findings,
    }
    assert tuple(row) == MGR_COLUMNS
    return row


def _variance(c: _Cells) -> Decimal | None:
    return None if c.win is None or c.hands_result is None else c.win - c.hands_result


def _drop_variance(c: _Cells) -> Decimal | None:
    d = _drop(c)
    buy = _known_sum((c.buy_ins_cash, c.buy_ins_markers, c.buy_ins_other))
    return None if d is None or buy is None else d - buy


def _tray_variance(c: _Cells) -> Decimal | None:
    return None if c.tray_win is None or c.hands_result is None else c.tray_win - c.hands_result


def _subject(level: str, c: _Cells) -> tuple[Any, ...]:
    """What MTD and YTD add up over: the same subject at the same level, per currency (at
    level ``shift``: the table and shift)."""
    if level == "shift":
        return (c.table, c.shift, c.currency)
    if level == "table":
        return (c.table, c.currency)
    if level == "pit":
        return (c.pit, c.currency)
    return (c.currency,)


def _none_last(v: str | None) -> tuple[int, str]:
    return (1, "") if v is None else (0, v)


def mgr_rows(
    periods: Sequence[Period],
    house: House,
    *,
    adjustments: Sequence[Adjustment] = (),
    findings: Mapping[tuple[str, dt.date, str], int] | None = None,
    first: dt.date | None = None,
    last: dt.date | None = None,
    levels: Iterable[str] = LEVELS,
) -> list[dict[str, Any]]:
    """The Master Game Report's rows for the gaming days ``first`` to ``last`` (all the
    periods' when None).

    ``periods`` should reach back to the first of January of ``first``'s year, so that
    MTD and YTD count every earlier day (a period before ``first`` only adds to them).
    ``adjustments`` apply to the period they name (:func:`period_shift`); ``findings``
    counts the ``ACCT_`` findings of each period. Per gaming day: its periods (by pit,
    table and the house's shift order), then each table's, pit's and the casino's total,
    per currency; ``levels`` keeps the levels asked for.
    """
    counts = findings or {}
    by_period: dict[tuple[str, dt.date, str | None], list[Adjustment]] = {}
    for a in adjustments:
        by_period.setdefault((a.table, a.gaming_day, period_shift(a, house)), []).append(a)
    order = {name: i for i, name in enumerate(house.shift_names())}

    def period_key(p: Period) -> tuple[Any, ...]:
        return (
            _none_last(p.pit),
            p.table,
            order.get(p.shift, len(order)),
            p.shift,
            _none_last(p.currency),
        )

    days: dict[dt.date, list[_Cells]] = {}
    for p in sorted(periods, key=lambda p: (p.gaming_day, *period_key(p))):
        key = (p.table, p.gaming_day, p.shift)
        cells = _period_cells(p, by_period.get(key, []), counts.get(key, 0))
        days.setdefault(p.gaming_day, []).append(cells)

    by_day: dict[dt.date, list[tuple[str, _Cells]]] = {}
    for day, shifts in sorted(days.items()):
        rows: list[tuple[str, _Cells]] = [("shift", c) for c in shifts]
        tables: dict[tuple[Any, ...], list[_Cells]] = {}
        pits: dict[tuple[Any, ...], list[_Cells]] = {}
        casino: dict[tuple[Any, ...], list[_Cells]] = {}
        for c in shifts:
            tables.setdefault((_none_last(c.pit), c.table, _none_last(c.currency)), []).append(c)
            pits.setdefault((_none_last(c.pit), _none_last(c.currency)), []).append(c)
            casino.setdefault((_none_last(c.currency),), []).append(c)
        for key in sorted(tables):
            parts = tables[key]
            subject = {"shift": None, "pit": parts[0].pit, "table": parts[0].table}
            rows.append(("table", _total(parts, currency=parts[0].currency, **subject)))
        for key in sorted(pits):
            parts = pits[key]
            subject = {"shift": None, "pit": parts[0].pit, "table": None}
            rows.append(("pit", _total(parts, currency=parts[0].currency, **subject)))
        for key in sorted(casino):
            parts = casino[key]
            subject = {"shift": None, "pit": None, "table": None}
            rows.append(("casino", _total(parts, currency=parts[0].currency, **subject)))
        by_day[day] = rows

    wanted = set(levels)
    history: dict[tuple[Any, ...], list[tuple[dt.date, _Cells]]] = {}
    out: list[dict[str, Any]] = []
    for day, rows in sorted(by_day.items()):
        for level, c in rows:
            history.setdefault((level, *_subject(level, c)), []).append((day, c))
        if (first is not None and day < first) or (last is not None and day > last):
            continue
        for level, c in rows:
            if level not in wanted:
                continue
            seen = history[(level, *_subject(level, c))]
            year = [(d, leaf) for d, x in seen if d.year == day.year for leaf in x.leaves()]
            month = [leaf for d, leaf in year if d.month == day.month]
            out.append(_row(level, c, _to_date(month), _to_date(leaf for _, leaf in year)))
    return out


def variance_periods(
    codes: Mapping[tuple[str, dt.date, str], Iterable[str]],
) -> list[tuple[str, dt.date, str]]:
    """The periods with an ``ACCT_WIN_MISMATCH`` or ``ACCT_DROP_MISMATCH`` (``books
    --fail-on-variance``)."""
    return sorted(k for k, cs in codes.items() if VARIANCE_CODES & set(cs))


def adjustment_log(adjustments: Sequence[Adjustment], house: House) -> list[dict[str, Any]]:
    """The adjustment log's rows (``books --adjustments``), by gaming day and table, each
    table's in the order given (the trail's: as recorded); ``reportable`` when the amount
    exceeds ``adjustment_report`` in absolute value (NJ 13:69D-1.34)."""

    out = []
    for a in sorted(adjustments, key=lambda a: (a.gaming_day, a.table)):
        recorded = a.recorded_at.astimezone(dt.UTC).isoformat() if a.recorded_at else None
        out.append(
            {
                "id": a.id,
                "source": a.source,
                "event": a.at.id if a.at is not None else None,
                "table": a.table,
                "gaming_day": a.gaming_day.isoformat(),
                "shift": a.shift,
                "line": a.line,
                "amount": money_str(a.amount),
                "effect": money_str(a.effect),
                "reason": a.reason,
                "by": a.by,
                "os_user": a.os_user,
                "recorded_at": recorded,
                "ref": a.ref,
                "reverses": a.reverses,
                "reportable": abs(a.amount) > house.adjustment_report,
            }
        )
    return out
