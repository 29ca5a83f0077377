"""Side-bet money of a set of shoes (games.md §2: a side bet is a wager whose ``kind`` is its
side-bet id), for the report's totals and per-bet breakdown (issue 32, point 6).

The engine's wager records, stored one row each in ``wagers``, carry every side bet with
its stake and its settlements (net amounts on the player's side, as TEL/1 writes them);
this sums them by currency and side-bet id.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, NamedTuple

NOT_SIDE_BETS = ("main", "insurance", "bonus")
"""The wager kinds that are no side bet (games.md §2: reserved)."""

_SIDE_BET_MONEY_SQL = """
SELECT s.currency, w.kind,
       count(*) AS wagers,
       sum(w.stake) AS staked,
       coalesce(sum(w.settled) FILTER (WHERE w.settled > 0), 0) AS paid,
       coalesce(-sum(w.settled) FILTER (WHERE w.settled < 0), 0) AS taken,
       count(*) FILTER (WHERE w.settles = 0) AS unsettled,
       coalesce(sum(w.stake) FILTER (WHERE w.settles > 0), 0) AS staked_settled,
       list(DISTINCT s.profile ORDER BY s.profile) AS profiles
FROM wagers w JOIN {shoes} s USING (table_id, shoe)
WHERE s.replayed AND w.kind NOT IN ('main', 'insurance', 'bonus')
GROUP BY ALL
ORDER BY s.currency NULLS LAST, w.kind
"""


class SideBetMoney(NamedTuple):
    """One side bet's money in one currency.

    ``paid`` is what the house paid winning bets (their positive settlements), ``taken``
    what it took from losing ones (their negative settlements, as a positive amount): the
    house result is ``taken - paid``. ``unsettled`` counts the bets never settled (each a
    ``PAY_MISSING``), in ``wagers`` and ``staked`` but in neither ``paid`` nor ``taken``;
    ``staked_settled`` is the stake of the others, the base of the hold; ``profiles``
    the profiles of the shoes it was placed in.
    """

    currency: str | None
    side_bet: str
    wagers: int
    staked: Decimal
    paid: Decimal
    taken: Decimal
    unsettled: int
    staked_settled: Decimal
    profiles: tuple[str, ...]


def side_bet_money(con: Any, shoes: str) -> list[SideBetMoney]:
    """Every side bet's money over the replayed shoes of the table ``shoes`` (one row per
    shoe: ``table_id, shoe, currency, replayed``, as the report's ``report_shoes``), by
    currency then side-bet id. Empty where no side bet was placed."""
    rows = con.execute(_SIDE_BET_MONEY_SQL.format(shoes=shoes)).fetchall()
    return [
        SideBetMoney(
            currency=c,
            side_bet=str(k),
            wagers=int(n),
            staked=Decimal(st),
            paid=Decimal(p),
            taken=Decimal(t),
            unsettled=int(u),
            staked_settled=Decimal(ss),
            profiles=tuple(str(x) for x in pr if x is not None),
        )
        for c, k, n, st, p, t, u, ss, pr in rows
    ]
