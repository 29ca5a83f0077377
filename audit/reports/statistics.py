"""The report's statistics section (issue 11): what ``shoe-audit stats`` found, drawn.

:func:`statistics_section` turns a :class:`~audit.stats.StatsResult` into the
immutable context that ``_partials/statistics.html.j2`` renders: each flag in
one sentence with its numbers; the dealer's bust rate by up card against the
exact expectation with its 95% band; the house result per table and per
dealer inside its band, with what Maryland (COMAR 36.05.03.25: outside the 95%
band) and Kansas (K.A.R. 112-108-51: over 3 points) would mark, as reference
bands, each only on the sample it needs (else "too few rounds to judge"); where the
books are reconciled, the hold through the books (win over drop, ``hold_drop``) per
table in its band, and Ohio's payout of the last 30 days against each table's
lifetime (``payout_30d``), on the last gaming day and at each month's end; the ranks of
the cards seen against a full shoe. Chart geometry is given in percent of the
plot (0-100), so templates only place it. Nothing is recomputed from rounds:
every figure comes from the rows the tests wrote.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from audit.reports.masking import mask_id
from audit.stats import RANKS, StatRow
from audit.stats.cards import SHARE
from audit.stats.house import KANSAS_POINTS, KANSAS_RULE, MARYLAND_RULE, REFERENCE, Z95, too_few
from audit.stats.suite import StatsResult

__all__ = [
    "Bar",
    "FlagLine",
    "HoldRow",
    "PayoutRow",
    "StatisticsSection",
    "TestCount",
    "mask_id",
    "statistics_section",
]


@dataclass(frozen=True, slots=True)
class FlagLine:
    test: str
    scope: str
    subject: str
    message: str
    adjusted_p: str
    """"" for a test outside the correction (``payout_30d``: a fixed threshold)."""


@dataclass(frozen=True, slots=True)
class PayoutRow:
    """One table's Ohio comparison (3772-10-08) on one gaming day: the payout of the window
    ending on it against the table's lifetime, in percent and points."""

    table: str
    day: str
    days: int
    window: str
    lifetime: str
    points: str
    judged: bool
    flag: bool
    says: str


@dataclass(frozen=True, slots=True)
class TestCount:
    test: str
    rows: int
    judged: int
    flagged: int


@dataclass(frozen=True, slots=True)
class Bar:
    """One column of a chart: an up card's bust rate, or a rank's share of the cards
    seen, observed against expected with the expected's 95% band; ``n`` what it counts."""

    label: str
    n: int
    observed: str
    expected: str
    outside: bool
    y_observed: float
    y_expected: float
    y_low: float
    y_high: float


@dataclass(frozen=True, slots=True)
class HoldRow:
    """One table's (or dealer's) hold inside, or outside, its 95% band.

    ``maryland``/``kansas``: the band marks it (only ever on the sample the band needs,
    ``maryland_needed``/``kansas_needed`` rounds); ``maryland_says``/``kansas_says`` the
    cell's words: the mark, ``–``, or "too few rounds to judge (N of the M needed)".
    """

    scope: str
    subject: str
    rounds: int
    hold: str
    edge: str
    band: str
    maryland: bool
    kansas: bool
    maryland_needed: int
    kansas_needed: int
    maryland_says: str
    kansas_says: str
    flag: bool
    x_hold: float
    x_edge: float
    x_low: float
    x_high: float


@dataclass(frozen=True, slots=True)
class StatisticsSection:
    """Everything the statistics section shows.

    Attributes:
        tests, judged, flagged: rows written, rows that met their minimum sample, flags.
        alpha, correction: how they were judged (``holm`` or ``bh``).
        guarantee: what the correction promises, in words.
        flags: every flag, one sentence each, most significant first.
        counts: rows, judged and flagged per test.
        upcards: the bust rate by up card over the period (hands the dealer had to
            play out), with ``axis`` the top of its y axis (a percentage).
        holds_by_table, holds_by_dealer: the house result per subject, with
            ``hold_axis`` the half-width of the x axis around zero (percentage points).
        regulator_marks: the house-result rows (tables and gaming days) that Maryland
            or Kansas would mark, whether or not the corrected test flags them (a band
            marks only a row with the rounds it needs).
        maryland_rule, kansas_rule, reference: how the marks name their rules (US state
            rules shown as reference bands, not the casino's jurisdiction).
        ranks: the cards seen over the period against a full shoe, with ``rank_axis``.
        note: why a part is empty, or None.
    """

    tests: int
    judged: int
    flagged: int
    alpha: str
    correction: str
    guarantee: str
    flags: tuple[FlagLine, ...]
    counts: tuple[TestCount, ...]
    upcards: tuple[Bar, ...]
    axis: int
    holds_by_table: tuple[HoldRow, ...]
    holds_by_dealer: tuple[HoldRow, ...]
    hold_axis: float
    regulator_marks: tuple[HoldRow, ...]
    ranks: tuple[Bar, ...]
    rank_axis: int
    note: str | None = None
    holds_by_books: tuple[HoldRow, ...] = ()
    """``hold_drop`` per table: the win over the drop in its band (reconciled books only)."""
    books_axis: float = 0.0
    """Half the x axis of the books' hold chart, in percentage points around zero."""
    payouts: tuple[PayoutRow, ...] = ()
    """``payout_30d`` per table on the selection's last day, then at each month's end in it."""
    payout_points: str = ""
    maryland_rule: str = MARYLAND_RULE
    kansas_rule: str = KANSAS_RULE
    reference: str = REFERENCE


def _pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def _scale(x: float, top: float) -> float:
    return round(max(0.0, min(100.0, 100 * x / top)), 2) if top > 0 else 0.0


def statistics_section(
    result: StatsResult,
    *,
    mask: Callable[[str], str] | None = None,
    month_ends: Iterable[StatRow] = (),
) -> StatisticsSection:
    """The section for one ``stats`` run; ``mask`` hides player ids (default: shown);
    ``month_ends``: ``payout_30d`` rows of each month's end in the selection (Ohio's
    monthly comparison), shown after the last day's."""
    hide = mask or (lambda s: s)
    rows = result.rows
    flags = sorted(
        (r for r in rows if r.flag),
        key=lambda r: (r.adjusted_p is None, r.adjusted_p or 0.0, r.test),
    )
    lines = tuple(
        FlagLine(
            r.test,
            r.scope,
            hide(r.subject) if r.scope == "player" else r.subject,
            r.message.replace(r.subject, hide(r.subject)) if r.scope == "player" else r.message,
            f"{r.adjusted_p:.2g}" if r.adjusted_p is not None else "",
        )
        for r in flags
    )
    books = [r for r in rows if r.test == "hold_drop"]
    books_half = _hold_axis(books, floor=0.0)
    payouts = [r for r in rows if r.test == "payout_30d"]
    upcards, axis = _upcards(r for r in rows if r.test == "dealer_bust_by_upcard")
    holds = [r for r in rows if r.test == "house_result"]
    half = _hold_axis(holds)
    ranks, rank_axis = _ranks(r for r in rows if r.test == "card_ranks" and r.scope == "day")
    return StatisticsSection(
        tests=len(rows),
        judged=result.judged,
        flagged=len(flags),
        alpha=f"{result.alpha:g}",
        correction=result.correction.value,
        guarantee=_guarantee(result),
        flags=lines,
        counts=_counts(rows),
        upcards=upcards,
        axis=axis,
        holds_by_table=tuple(_hold(r, half) for r in holds if r.scope == "table"),
        holds_by_dealer=tuple(_hold(r, half) for r in holds if r.scope == "dealer"),
        hold_axis=round(100 * half, 2),
        regulator_marks=tuple(
            _hold(r, half)
            for r in holds
            if r.scope in ("table", "day") and (r.detail.get("maryland") or r.detail.get("kansas"))
        )
        + tuple(
            _hold(r, books_half)
            for r in books
            if r.detail.get("maryland") or r.detail.get("kansas")
        ),
        ranks=ranks,
        rank_axis=rank_axis,
        note=None if rows else "no test had rounds to look at",
        holds_by_books=tuple(_hold(r, books_half) for r in books if r.scope == "table"),
        books_axis=round(100 * books_half, 2),
        payouts=tuple(_payout(r) for r in [*payouts, *month_ends]),
        payout_points=next((f"{r.detail['points']:g}" for r in payouts), ""),
    )


def _guarantee(result: StatsResult) -> str:
    if result.correction.value == "holm":
        return (
            f"on a night with nothing wrong, chance alone raises any flag at most once in "
            f"{1 / result.alpha:,.0f} nights"
        )
    return f"at most {result.alpha:.2%} of the flags are expected to be false alarms"


def _counts(rows: Iterable[StatRow]) -> tuple[TestCount, ...]:
    n: Counter[str] = Counter()
    judged: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    for r in rows:
        n[r.test] += 1
        judged[r.test] += r.adjusted_p is not None
        flagged[r.test] += r.flag
    return tuple(TestCount(t, n[t], judged[t], flagged[t]) for t in n)


def _upcards(rows: Iterable[StatRow]) -> tuple[tuple[Bar, ...], int]:
    # the period's figure: the gaming days' cells added up (counts and variances add)
    cells: dict[str, list[float]] = {}
    for r in rows:
        if r.scope != "day":
            continue
        for up, c in r.detail.get("upcards", {}).items():
            acc = cells.setdefault(up, [0.0, 0.0, 0.0, 0.0])
            for i, k in enumerate(("n", "o", "e", "v")):
                acc[i] += c[k]
    figures = []
    for up in RANKS:
        if up not in cells or cells[up][0] == 0:
            continue
        n, o, e, v = cells[up]
        half = Z95 * math.sqrt(v) / n
        figures.append((up, int(n), o / n, e / n, half))
    return _bars(figures, step=10)


Figure = tuple[str, int, float, float, float]
"""label, n, observed, expected, the half-width of the expected's 95% band."""


def _bars(figures: list[Figure], step: int) -> tuple[tuple[Bar, ...], int]:
    """The bars, and the top of their y axis (a percentage, a multiple of ``step``)."""
    if not figures:
        return (), 0
    top = max(max(obs, exp + half) for _, _, obs, exp, half in figures)
    axis = max(10, math.ceil(100 * top / step) * step)
    bars = tuple(
        Bar(
            label,
            n,
            _pct(obs),
            _pct(exp),
            not exp - half <= obs <= exp + half,
            _scale(obs, axis / 100),
            _scale(exp, axis / 100),
            _scale(exp - half, axis / 100),
            _scale(exp + half, axis / 100),
        )
        for label, n, obs, exp, half in figures
    )
    return bars, axis


def _hold_axis(rows: list[StatRow], floor: float = KANSAS_POINTS) -> float:
    """Half the x axis: what the judged rows reach (a small table's wide band is cut)."""
    shown = [r for r in rows if r.scope in ("table", "dealer")]
    judged = [r for r in shown if r.adjusted_p is not None] or shown
    reach = [floor]
    for r in judged:
        low, high = r.detail["band"]
        reach += [abs(x) for x in (low, high, r.detail["hold"]) if math.isfinite(x)]
    return math.ceil(max(reach) * 100 + 0.5) / 100


def _payout(r: StatRow) -> PayoutRow:
    d = r.detail
    observed, expected = r.observed, r.expected
    return PayoutRow(
        table=r.subject,
        day=str(d["day"]),
        days=r.n,
        window=f"{observed:.2f}%" if isinstance(observed, float) else "–",
        lifetime=f"{expected:.2f}%" if isinstance(expected, float) else "–",
        points=f"{r.statistic:+.2f}" if r.statistic is not None else "–",
        judged=r.judged,
        flag=r.flag,
        says=r.message.split("; ", 1)[-1],
    )


def _hold(r: StatRow, half: float) -> HoldRow:
    d = r.detail
    low, high = d["band"]

    def x(v: float) -> float:
        return _scale(v + half, 2 * half)

    md_needed, ks_needed = int(d["maryland_needed"]), int(d["kansas_needed"])
    maryland, kansas = bool(d["maryland"]), bool(d["kansas"])
    return HoldRow(
        scope=r.scope,
        subject=r.subject,
        rounds=r.n,
        hold=_pct(d["hold"], 2),
        edge=_pct(d["edge"], 2),
        band=f"{_pct(low, 2)} to {_pct(high, 2)}",
        maryland=maryland,
        kansas=kansas,
        maryland_needed=md_needed,
        kansas_needed=ks_needed,
        maryland_says=(
            too_few(r.n, md_needed)
            if r.n < md_needed
            else ("outside the band" if maryland else "–")
        ),
        kansas_says=(
            too_few(r.n, ks_needed)
            if r.n < ks_needed
            else (f"{100 * abs(d['hold'] - d['edge']):.1f} points off: over 3" if kansas else "–")
        ),
        flag=r.flag,
        x_hold=x(d["hold"]),
        x_edge=x(d["edge"]),
        x_low=x(low),
        x_high=x(high),
    )


def _ranks(rows: Iterable[StatRow]) -> tuple[tuple[Bar, ...], int]:
    seen: Counter[str] = Counter()
    n = 0
    w = 0.0
    for r in rows:
        seen.update(r.detail["observed"])
        n += r.detail["n"]
        w += r.detail["w"]
    if n == 0:
        return (), 0
    figures = [
        (rank, seen[rank], seen[rank] / n, p, Z95 * math.sqrt(p * (1 - p) * w) / n)
        for rank, p in zip(RANKS, SHARE, strict=True)
    ]
    return _bars(figures, step=5)
