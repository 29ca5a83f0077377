"""Collecting findings: one place that stamps table and shoe on every finding."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from audit.findings import Code, Finding, money_str


class FindingSink:
    """The findings of one shoe, in the order they were raised (deterministic)."""

    def __init__(self, table: str | None, shoe: str | None) -> None:
        self.table = table
        self.shoe = shoe
        self.items: list[Finding] = []

    def add(
        self,
        code: Code,
        message: str,
        *,
        events: Iterable[str] = (),
        round: int | None = None,
        box: int | None = None,
        hand: int | None = None,
        spot: int | None = None,
        expected: str | None = None,
        actual: str | None = None,
        impact: Decimal | None = None,
        rule: str | None = None,
    ) -> Finding:
        """Record one finding (``source`` is None: the ingest layer sets file:line ones)."""
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

    def add_pay(
        self,
        code: Code,
        message: str,
        *,
        expected: Decimal,
        actual: Decimal,
        events: Iterable[str],
        round: int,
        box: int | None,
        hand: int | None,
        spot: int | None,
        rule: str | None,
    ) -> Finding:
        """A ``PAY_`` finding: expected and actual as money strings, impact = actual - expected."""
        return self.add(
            code,
            message,
            events=events,
            round=round,
            box=box,
            hand=hand,
            spot=spot,
            expected=money_str(expected),
            actual=money_str(actual),
            impact=actual - expected,
            rule=rule,
        )
