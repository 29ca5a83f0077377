"""What ``run`` stores of each round and wager: plain rows, built from the judged round.

The dispute report renders a :class:`~audit.engine.result.ShoeReplay`;
``run`` does not need its frozen records and step trace, only the outcome of
every round and the verdict on every wager, for the report's figures and the
statistics. These rows are those facts, in the columns of the store's
``rounds`` and ``wagers`` tables, money in cents (``due`` in hundredths of a
cent, the column's unit since dues were exact; rules.md v1.2 judges them rounded
to the cent). Both come from the
same judged :class:`~audit.engine.round.Round`: a test checks that the rows
say what the records say.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any, NamedTuple

from audit.engine.dealer import dealer_natural
from audit.engine.event import Cents
from audit.engine.hands import best_total
from audit.engine.round import Round
from audit.findings import Finding, Severity

__all__ = ["RoundRow", "ShoeOutcome", "WagerRow", "due_units", "round_rows", "staked_boxes"]


def due_units(value: Cents | None) -> int | None:
    """An amount in cents as hundredths of a cent, rounded half to even past that (exact for
    every ratio whose denominator divides 100: 3:2, 6:5, 2:1)."""
    if value is None:
        return None
    if type(value) is int:
        return value * 100
    return round(Fraction(value) * 100)


class RoundRow(NamedTuple):
    """One round's outcome (the ``rounds`` table; see docs/architecture.md)."""

    table_id: str | None
    shoe: str | None
    round: int
    status: str
    dealer: str | None
    opened_us: int | None
    first_seq: int | None
    last_seq: int | None
    boxes: int
    wagers: int
    handle: int
    due: int | None
    settled: int
    dealer_upcard: str | None
    dealer_cards: list[str]
    dealer_total: int
    dealer_natural: bool
    dealer_bust: bool
    dealer_completed: bool
    ranks_before_round: list[int] | None
    unseen_before_round: int
    ranks_before_dealer: list[int] | None
    unseen_before_dealer: int
    findings: int
    worst_severity: str | None
    impact: int | None


class WagerRow(NamedTuple):
    """One wager and the engine's verdict on it (the ``wagers`` table)."""

    table_id: str | None
    shoe: str | None
    round: int
    box: int
    hand: int
    spot: int
    kind: str
    player: str | None
    stake: int
    base_stake: int
    due: int | None
    settled: int | None
    settles: int
    verdict: str | None
    outcome: str
    cards: list[str]
    total: int
    natural: bool
    bust: bool
    doubled: bool
    from_split: bool
    surrendered: bool
    line: str | None
    """A side bet's paid line (games.md §1); None where none won, or not a side bet."""
    ratio: str | None
    """What that line pays to 1 (``9/1``): the verdict a hand page shows beside the due."""


class ShoeOutcome(NamedTuple):
    """What ``run`` keeps of one shoe's replay."""

    findings: tuple[Finding, ...]
    rounds: list[RoundRow]
    wagers: list[WagerRow]
    banker: str | None
    banker_streak: int
    replayed: bool
    prefix_ranks: list[int] | None = None
    """The ranks seen in the shoe's prefix (:meth:`audit.engine.shoe.ShoeTracker.prefix_ranks`);
    None for a shoe not replayed."""


_RANK = {s: s.rank for s in Severity}


def staked_boxes(rnd: Round) -> int:
    """The boxes of a round with a stake (a box the log dealt to without a bet, made up to
    follow its cards, has none)."""
    boxes = 0
    for b in rnd.boxes.values():
        if b.spots and not b.phantom:
            boxes += 1
    return boxes


def round_rows(
    table: str | None, shoe: str | None, rnd: Round, findings: Iterable[Finding]
) -> tuple[RoundRow, list[WagerRow]]:
    """The stored outcome of one replayed round and its wagers.

    Rows are built as plain tuples in the field order of :class:`RoundRow` and
    :class:`WagerRow` (a test checks that order against the store's columns):
    a night has millions of them.
    """
    judged = rnd.judged
    wagers: list[Any] = []
    handle = settled = 0
    due: int | None = 0 if judged else None
    n_main = 0
    number = rnd.number
    for w in rnd.wagers if judged else ():
        h = w.play_hand
        settles = w.settles
        total = settles[0].amount if len(settles) == 1 else sum(s.amount for s in settles)
        wdue = w.due
        units = wdue * 100 if type(wdue) is int else due_units(wdue)
        if h is not None:
            hand_facts: tuple[Any, ...] = (
                list(h.cards), h.total, h.natural, h.bust, h.doubled, h.from_split,
                h.surrendered,
            )  # fmt: skip
        else:
            hand_facts = _NO_HAND
        wagers.append(
            (
                table, shoe, number, w.box, w.hand, w.spot, w.kind, w.player, w.stake, w.base,
                units, total if settles else None, len(settles), w.verdict, w.outcome,
                *hand_facts, w.line, _ratio(w.ratio),
            )
        )  # fmt: skip
        settled += total
        if due is not None and units is not None:
            due += units
        if w.kind == "main":
            handle += w.stake
            n_main += 1
    count = 0
    worst: Severity | None = None
    impact: Fraction | int | None = None
    for f in findings:
        count += 1
        if worst is None or _RANK[f.severity] > _RANK[worst]:
            worst = f.severity
        if f.impact is not None and str(f.code).startswith("PAY_"):
            impact = (impact or 0) + Fraction(f.impact) * 100
    d = rnd.dealer
    d_total = best_total(d)
    boxes = staked_boxes(rnd)
    row = (
        table, shoe, number, rnd.status if judged else "open", rnd.banker,
        rnd.first_ts_us, rnd.first_seq, rnd.last_seq, boxes, n_main, handle, due, settled,
        rnd.offer_card(), list(d), d_total, dealer_natural(d), d_total > 21,
        rnd.dealer_completed(), rnd.ranks_before_round, rnd.unseen_before_round,
        rnd.ranks_before_dealer, rnd.unseen_before_dealer, count,
        str(worst) if worst is not None else None,
        None if impact is None else due_units(impact),
    )  # fmt: skip
    return row, wagers  # type: ignore[return-value]


_NO_HAND: tuple[Any, ...] = ([], 0, False, False, False, False, False)


def _ratio(ratio: Fraction | None) -> str | None:
    return None if ratio is None else f"{ratio.numerator}/{ratio.denominator}"
