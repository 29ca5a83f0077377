"""Frozen records of a replay: what the engine saw, step by step, and what it judged.

The ``shoe-audit hand`` dispute report renders these without re-implementing
any rule, so every record carries the facts a person needs (cards, totals, the
rule that applied) and converts to plain JSON values with ``to_dict()`` (money
as strings, via :func:`audit.findings.money_str`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from audit.findings import Finding, money_str

__all__ = [
    "DealerRecord",
    "HandRecord",
    "RoundReplay",
    "ShoeContext",
    "ShoeReplay",
    "Step",
    "WagerRecord",
]


@dataclass(frozen=True, slots=True)
class ShoeContext:
    """Cross-shoe facts the caller computes from the database.

    ``first_shoe_of_gaming_day``: the first shoe this table deals in its gaming
    day (card inspection, 001; house default in rules.md). ``banker`` and
    ``banker_rounds_before``: who held the bank at the end of the previous shoe
    of this table and for how many consecutive rounds (banker rotation, 002).
    """

    first_shoe_of_gaming_day: bool = True
    banker: str | None = None
    banker_rounds_before: int = 0

    def __reduce__(self) -> tuple[type[ShoeContext], tuple[bool, str | None, int]]:
        # run hands contexts to worker processes. Compiled (mypyc), a frozen dataclass
        # unpickles by assigning its fields, which it refuses: rebuild it instead.
        return ShoeContext, (self.first_shoe_of_gaming_day, self.banker, self.banker_rounds_before)


@dataclass(frozen=True, slots=True)
class Step:
    """One event of a round (or of the shoe), as the replay understood it.

    For a card: its shoe position, where it went, and the cards, total and
    softness of that hand (or the dealer's) after it; for the dealer also what
    the dealer rule required before it (``dealer_rule``: ``draw``, ``stand``,
    ``may_stop`` or ``free``). For a decision: whether the profile allowed it
    (``allowed``) and, if not, why (``why_not``). ``codes`` are the findings
    this event is evidence of.
    """

    event_id: str
    seq: int
    type: str
    description: str
    round: int | None = None
    pos: int | None = None
    card: str | None = None
    target: str | None = None
    box: int | None = None
    hand: int | None = None
    spot: int | None = None
    amount: Decimal | None = None
    cards: tuple[str, ...] = ()
    total: int | None = None
    soft: bool | None = None
    allowed: bool | None = None
    why_not: str | None = None
    dealer_rule: str | None = None
    codes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values; money as a string."""
        return {
            "event_id": self.event_id,
            "seq": self.seq,
            "type": self.type,
            "description": self.description,
            "round": self.round,
            "pos": self.pos,
            "card": self.card,
            "target": self.target,
            "box": self.box,
            "hand": self.hand,
            "spot": self.spot,
            "amount": money_str(self.amount),
            "cards": list(self.cards),
            "total": self.total,
            "soft": self.soft,
            "allowed": self.allowed,
            "why_not": self.why_not,
            "dealer_rule": self.dealer_rule,
            "codes": list(self.codes),
        }


@dataclass(frozen=True, slots=True)
class WagerRecord:
    """One wager of a round: its stake, its correct and its actual settlement.

    ``kind`` is ``main``, ``insurance``, ``bonus`` or a side-bet id (v1.2); ``stake`` includes a
    double's extra stake (``base_stake`` is the stake before it); ``expected`` is
    the correct net settlement (None when the round is not over); ``actual`` the
    amounts of every ``settle`` event for it, in order; ``outcome`` says why in
    words ("blackjack wins 3:2", "bust", "push", ...).
    """

    box: int
    hand: int
    spot: int
    kind: str
    stake: Decimal
    base_stake: Decimal
    player: str | None
    expected: Decimal | None
    actual: tuple[Decimal, ...]
    settle_events: tuple[str, ...]
    outcome: str
    verdict: str | None = None
    line: str | None = None
    """A side bet (games.md §1): the pay-table line its cards won, None where none did."""
    ratio: str | None = None
    """What that line pays to 1, as the pay table writes it (``9/1``)."""

    @property
    def side_bet(self) -> bool:
        """A side bet (games.md §2): a kind other than ``main``, ``insurance``, ``bonus``."""
        return self.kind not in ("main", "insurance", "bonus")

    @property
    def settled(self) -> bool:
        return bool(self.actual)

    @property
    def extra_stake(self) -> Decimal:
        """A double's extra stake (the stake less the stake before the double)."""
        return self.stake - self.base_stake

    @property
    def settled_total(self) -> Decimal | None:
        """The sum of its settlements, or None when it was never settled."""
        return sum(self.actual, Decimal(0)) if self.actual else None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values; money as strings."""
        return {
            "box": self.box,
            "hand": self.hand,
            "spot": self.spot,
            "kind": self.kind,
            "stake": money_str(self.stake),
            "base_stake": money_str(self.base_stake),
            "player": self.player,
            "expected": money_str(self.expected),
            "actual": [money_str(a) for a in self.actual],
            "settle_events": list(self.settle_events),
            "outcome": self.outcome,
            "verdict": self.verdict,
            "line": self.line,
            "ratio": self.ratio,
        }


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A player hand as it ended."""

    box: int
    hand: int
    cards: tuple[str, ...]
    total: int
    soft: bool
    natural: bool
    bust: bool
    doubled: bool
    from_split: bool
    surrendered: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "box": self.box,
            "hand": self.hand,
            "cards": list(self.cards),
            "total": self.total,
            "soft": self.soft,
            "natural": self.natural,
            "bust": self.bust,
            "doubled": self.doubled,
            "from_split": self.from_split,
            "surrendered": self.surrendered,
        }


@dataclass(frozen=True, slots=True)
class DealerRecord:
    """The dealer's (or home banker's) hand as it ended.

    ``completed``: he played it out by the profile's rule (he stands by it);
    false where he stopped early because every player hand was decided
    (rules.md allows it), or the profile has no dealer rule (002).
    """

    cards: tuple[str, ...]
    total: int
    soft: bool
    natural: bool
    bust: bool
    completed: bool = False

    @property
    def upcard(self) -> str | None:
        return self.cards[0] if self.cards else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "cards": list(self.cards),
            "total": self.total,
            "soft": self.soft,
            "natural": self.natural,
            "bust": self.bust,
            "completed": self.completed,
        }


@dataclass(frozen=True, slots=True)
class RoundReplay:
    """One round, replayed: every event as a step, every wager judged.

    ``status`` is ``closed`` (a ``round_close`` ended it), ``void`` (declared
    void, then closed), ``incomplete`` (the next round or the shoe's close began
    first; ``LOG_INCOMPLETE``) or ``open`` (still open at the end of the data:
    not judged yet, no payout findings). ``banker`` is who dealt it: the dealer
    (home game: banker) in charge when it opened. ``ranks_before_round`` /
    ``ranks_before_dealer`` count the cards that had left the shoe by rank
    (A, 2, ..., 9, ten-values) before the round's first card and before the
    dealer's second card; ``unseen_*`` the cards that left unseen (burns
    without card codes). ``steps`` is empty unless the shoe was replayed with
    ``trace`` (the dispute report).
    """

    round: int
    status: str
    steps: tuple[Step, ...]
    wagers: tuple[WagerRecord, ...]
    hands: tuple[HandRecord, ...]
    dealer: DealerRecord
    findings: tuple[Finding, ...]
    banker: str | None = None
    first_seq: int | None = None
    last_seq: int | None = None
    ranks_before_round: tuple[int, ...] | None = None
    unseen_before_round: int = 0
    ranks_before_dealer: tuple[int, ...] | None = None
    unseen_before_dealer: int = 0

    @property
    def judged(self) -> bool:
        return self.status != "open"

    @property
    def handle(self) -> Decimal:
        """The main stakes of the round, doubles and splits included."""
        return sum((w.stake for w in self.wagers if w.kind == "main"), Decimal(0))

    @property
    def due(self) -> Decimal | None:
        """What every wager should net, summed (positive: the house pays); None if not judged."""
        if not self.judged:
            return None
        return sum((w.expected for w in self.wagers if w.expected is not None), Decimal(0))

    @property
    def settled(self) -> Decimal:
        """Every settlement of the round's wagers, summed (the house's win is minus this)."""
        return sum((a for w in self.wagers for a in w.actual), Decimal(0))

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "status": self.status,
            "banker": self.banker,
            "steps": [s.to_dict() for s in self.steps],
            "wagers": [w.to_dict() for w in self.wagers],
            "hands": [h.to_dict() for h in self.hands],
            "dealer": self.dealer.to_dict(),
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass(frozen=True, slots=True)
class ShoeReplay:
    """One shoe, replayed: its findings, its rounds and the shoe's story.

    ``cards_drawn`` counts every card that left the shoe, burns included (with
    ``pos``, the highest position reached); ``cards_dealt`` the cards placed in
    rounds; ``burned`` the cards burned at shoe start, ``burned_later`` those
    burned mid-shoe (exposed cards). ``banker`` and ``banker_streak`` are the
    next shoe's :class:`ShoeContext`.
    """

    table: str | None
    shoe: str | None
    profile_id: str | None
    findings: tuple[Finding, ...]
    rounds: tuple[RoundReplay, ...]
    shoe_steps: tuple[Step, ...] = ()
    decks: int | None = None
    shuffles: tuple[str, ...] = ()
    cut_by: str | None = None
    cut_box: int | None = None
    cut_card_position: int | None = None
    burned: int = 0
    burned_later: int = 0
    cards_dealt: int = 0
    cards_drawn: int = 0
    remaining: int | None = None
    is_closed: bool = False
    close_reason: str | None = None
    banker: str | None = None
    banker_streak: int = 0
    replayed: bool = True
    round_numbers: tuple[int, ...] = ()
    """Every round of the shoe, replayed or passed over (``replay_shoe(rounds=...)``), by number."""

    def next_context(self, first_shoe_of_gaming_day: bool = False) -> ShoeContext:
        """The :class:`ShoeContext` for the next shoe of this table."""
        return ShoeContext(
            first_shoe_of_gaming_day=first_shoe_of_gaming_day,
            banker=self.banker,
            banker_rounds_before=self.banker_streak,
        )

    def round_replay(self, number: int) -> RoundReplay | None:
        """The replay of round ``number``, or None."""
        for r in self.rounds:
            if r.round == number:
                return r
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "shoe": self.shoe,
            "profile_id": self.profile_id,
            "replayed": self.replayed,
            "decks": self.decks,
            "shuffles": list(self.shuffles),
            "cut_by": self.cut_by,
            "cut_box": self.cut_box,
            "cut_card_position": self.cut_card_position,
            "burned": self.burned,
            "burned_later": self.burned_later,
            "cards_dealt": self.cards_dealt,
            "cards_drawn": self.cards_drawn,
            "remaining": self.remaining,
            "is_closed": self.is_closed,
            "close_reason": self.close_reason,
            "banker": self.banker,
            "banker_streak": self.banker_streak,
            "findings": [f.to_dict() for f in self.findings],
            "shoe_steps": [s.to_dict() for s in self.shoe_steps],
            "rounds": [r.to_dict() for r in self.rounds],
        }
