"""Breaches and findings: what a check returns, and the one place that stamps table and shoe.

A rule check returns a :class:`Breach` (or None) and changes nothing; the
round applies the event and hands the breach to the shoe's
:class:`FindingSink`, which makes it a :class:`~audit.findings.Finding` with
the table, shoe and round it belongs to.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import NamedTuple

from audit.engine.event import Cents, money
from audit.findings import Code, Finding, money_str


class Breach(NamedTuple):
    """One broken rule, as a check found it: a finding without its table, shoe and round."""

    code: Code
    message: str
    events: tuple[str, ...] = ()
    box: int | None = None
    hand: int | None = None
    spot: int | None = None
    expected: str | None = None
    actual: str | None = None
    impact: Decimal | None = None
    rule: str | None = None


def pay_breach(
    code: Code,
    message: str,
    *,
    expected: Cents,
    actual: Cents,
    events: Iterable[str],
    box: int | None,
    hand: int | None,
    spot: int | None,
    rule: str | None,
) -> Breach:
    """A ``PAY_`` breach: expected, actual as money strings; impact actual - expected (cli.md)."""
    return Breach(
        code,
        message,
        tuple(events),
        box,
        hand,
        spot,
        money_str(money(expected)),
        money_str(money(actual)),
        money(actual - expected),
        rule,
    )


class FindingSink:
    """The findings of one shoe, in the order they were raised (deterministic)."""

    def __init__(self, table: str | None, shoe: str | None) -> None:
        self.table = table
        self.shoe = shoe
        self.items: list[Finding] = []

    def add(self, breach: Breach, round: int | None = None) -> Finding:
        """Record one breach as a finding (``source`` None: ingest sets file:line ones)."""
        code, message, events, box, hand, spot, expected, actual, impact, rule = breach
        finding = Finding(
            code=code,
            message=message,
            table=self.table,
            shoe=self.shoe,
            round=round,
            box=box,
            hand=hand,
            spot=spot,
            expected=expected,
            actual=actual,
            impact=impact,
            rule=rule,
            events=tuple(dict.fromkeys(events)),
        )
        self.items.append(finding)
        return finding

    def add_first(self, breaches: Iterable[tuple[Breach, int | None]]) -> None:
        """Record breaches ahead of those already raised (ingest-like findings, e.g. unknown
        types, come before the replay's)."""
        mark = len(self.items)
        for breach, rnd in breaches:
            self.add(breach, rnd)
        if mark:
            self.items[:] = self.items[mark:] + self.items[:mark]
