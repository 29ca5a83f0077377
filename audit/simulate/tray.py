"""A table's chip tray, by denomination, for ``simulate --books``.

Every settlement, buy-in, fill and credit moves chips of the house's
denominations (``house.toml``'s ``denominations``) in or out of the tray, so
that each inventory the simulator writes is the tray as it stands. Change is
made greedily, largest chip first; where the tray's own chips cannot make an
amount, the tray hands over the smallest chip above what is still due and
takes the difference back from the player (whose chips are not counted).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from audit.errors import InputError
from audit.simulate.writer import Compact

__all__ = ["CREDIT_ABOVE", "FILL_BELOW", "FLOAT_COUNT", "Tray", "chip_list", "chips_value"]

FLOAT_COUNT = 100
"""A table's first opener: this many chips of each of the house's denominations."""
FILL_BELOW = 25
"""A denomination with fewer chips than this is filled back to the float's count."""
CREDIT_ABOVE = 300
"""A denomination with more chips than this is credited back to the float's count."""

ZERO = Decimal(0)


def chips_value(chips: dict[Decimal, int]) -> Decimal:
    """Σ denomination × count."""
    return sum((d * n for d, n in chips.items()), ZERO)


def chip_list(chips: dict[Decimal, int]) -> list[Compact]:
    """A TEL/1 v1.2 chip list, denominations ascending, zero counts left out."""
    return [Compact(denomination=d, count=n) for d, n in sorted(chips.items()) if n]


def _greedy(
    amount: Decimal, denominations: Iterable[Decimal], have: dict[Decimal, int] | None
) -> tuple[dict[Decimal, int], Decimal]:
    """Chips making ``amount`` largest first (``have`` bounds the counts; None: unbounded),
    and what is left over."""
    out: dict[Decimal, int] = {}
    left = amount
    for d in sorted(denominations, reverse=True):
        n = int(left // d)
        if have is not None:
            n = min(n, have.get(d, 0))
        if n > 0:
            out[d] = n
            left -= d * n
    return out, left


@dataclass
class Tray:
    """The chips in a table's tray, by denomination (counts never below 0)."""

    denominations: tuple[Decimal, ...]
    chips: dict[Decimal, int] = field(default_factory=dict)

    @classmethod
    def float_of(cls, denominations: tuple[Decimal, ...]) -> Tray:
        """The first opener's tray: :data:`FLOAT_COUNT` of each denomination."""
        return cls(denominations, {d: FLOAT_COUNT for d in denominations})

    @property
    def value(self) -> Decimal:
        return chips_value(self.chips)

    def snapshot(self) -> dict[Decimal, int]:
        return {d: n for d, n in self.chips.items() if n}

    def add(self, chips: dict[Decimal, int]) -> None:
        for d, n in chips.items():
            self.chips[d] = self.chips.get(d, 0) + n

    def take(self, chips: dict[Decimal, int]) -> None:
        for d, n in chips.items():
            left = self.chips.get(d, 0) - n
            if left < 0:
                raise AssertionError(f"the tray holds {self.chips.get(d, 0)} of {d}, not {n}")
            self.chips[d] = left

    def settle(self, amount: Decimal) -> None:
        """A settlement as the log writes it: ``amount`` > 0 paid from the tray, < 0 collected."""
        if amount > 0:
            self.pay(amount)
        elif amount < 0:
            self.collect(-amount)

    def pay(self, amount: Decimal) -> None:
        """Chips worth ``amount`` leave the tray (a payout, or a buy-in's chips)."""
        give, left = _greedy(amount, self.denominations, self.chips)
        back: dict[Decimal, int] = {}
        if left:
            for d in sorted(self.denominations):
                if d > left and self.chips.get(d, 0) > give.get(d, 0):
                    back, rest = _greedy(d - left, self.denominations, None)
                    if not rest:
                        give[d] = give.get(d, 0) + 1
                        left = ZERO
                        break
        if left:
            raise InputError(
                f"cannot pay {amount} from the tray in the house's chips "
                f"{[str(d) for d in self.denominations]}"
            )
        self.take(give)
        self.add(back)

    def collect(self, amount: Decimal) -> None:
        """Chips worth ``amount`` enter the tray (a losing wager), largest chip first."""
        take, left = _greedy(amount, self.denominations, None)
        if left:
            for d in sorted(self.denominations):
                if d > left:
                    change, rest = _greedy(d - left, self.denominations, self.chips)
                    if not rest:
                        take[d] = take.get(d, 0) + 1
                        self.add(take)
                        self.take(change)
                        return
            raise InputError(
                f"cannot collect {amount} into the tray in the house's chips "
                f"{[str(d) for d in self.denominations]}"
            )
        self.add(take)

    def fill_due(self) -> dict[Decimal, int]:
        """The chips a fill brings: each denomination below :data:`FILL_BELOW` back to the
        float's count."""
        return {
            d: FLOAT_COUNT - self.chips.get(d, 0)
            for d in self.denominations
            if self.chips.get(d, 0) < FILL_BELOW
        }

    def credit_due(self) -> dict[Decimal, int]:
        """The chips a credit returns: each denomination above :data:`CREDIT_ABOVE` down to
        the float's count."""
        return {
            d: self.chips[d] - FLOAT_COUNT
            for d in self.denominations
            if self.chips.get(d, 0) > CREDIT_ABOVE
        }
