"""Side-bet money in the compliance report (issue 32, point 6): the totals per currency
(staked, paid, house result, hold) and a row per side-bet id, from the store's wagers
(:func:`audit.store.side_bets.side_bet_money`), each bet named with the pay tables the
period's profiles pay it by."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from itertools import groupby

from audit.findings import money_str
from audit.profiles import ProfileRegistry
from audit.reports.context import SideBetRow, SideBetTotal
from audit.reports.sources import SHOES, Sources
from audit.store.side_bets import SideBetMoney, side_bet_money


def side_bet_totals(src: Sources, profiles: ProfileRegistry) -> tuple[SideBetTotal, ...]:
    """The period's side-bet money, one :class:`SideBetTotal` per currency; empty where
    no side bet was placed. Amounts are as settled: a wrong settlement is the finding's
    to price, here it is money that moved."""
    rows = side_bet_money(src.con, SHOES)
    return tuple(
        _total(currency, list(group), profiles)
        for currency, group in groupby(rows, key=lambda r: r.currency)
    )


def _total(
    currency: str | None, rows: Sequence[SideBetMoney], profiles: ProfileRegistry
) -> SideBetTotal:
    staked = sum((r.staked for r in rows), Decimal(0))
    paid = sum((r.paid for r in rows), Decimal(0))
    taken = sum((r.taken for r in rows), Decimal(0))
    base = sum((r.staked_settled for r in rows), Decimal(0))
    return SideBetTotal(
        currency=currency,
        wagers=sum(r.wagers for r in rows),
        staked=_money(staked),
        paid=_money(paid),
        house_result=_money(taken - paid),
        hold=_hold(taken - paid, base),
        unsettled=sum(r.unsettled for r in rows),
        bets=tuple(_row(r, profiles) for r in rows),
    )


def _row(r: SideBetMoney, profiles: ProfileRegistry) -> SideBetRow:
    return SideBetRow(
        side_bet=r.side_bet,
        paytables=_paytables(r, profiles),
        wagers=r.wagers,
        staked=_money(r.staked),
        paid=_money(r.paid),
        house_result=_money(r.taken - r.paid),
        hold=_hold(r.taken - r.paid, r.staked_settled),
        unsettled=r.unsettled,
    )


def _paytables(r: SideBetMoney, profiles: ProfileRegistry) -> str:
    """The pay tables the shoes' profiles pay this bet by (a profile no longer known names
    none)."""
    tables = sorted(
        {
            table
            for pid in r.profiles
            if pid in profiles
            for sid, table in profiles.get(pid).rules.side_bets.items()
            if sid == r.side_bet
        }
    )
    return ", ".join(tables) or "not offered"


def _hold(result: Decimal, base: Decimal) -> str | None:
    """``result`` over ``base`` in percent, two decimals; None over nothing."""
    if not base:
        return None
    # half away from zero, as every amount the project rounds (rules.md)
    return str((result * 100 / base).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _money(v: Decimal) -> str:
    return money_str(v) or "0"
