"""The pieces of a round's working state: boxes, hands, and the marks play leaves on them.

These are plain mutable records. Only :class:`audit.engine.round.Round`
changes them (the rule checks in :mod:`audit.engine.play` and
:mod:`audit.engine.judge` only read them), so where a round stands is one
question with one answer: the round's phase and these records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from audit.engine.hands import Count, is_three_sevens


@dataclass(slots=True, eq=False)
class Skip:
    """A card that went past a hand still owed a card (a split hand, a double).

    rules.md, "How many findings": one breach, one finding. The skip is judged
    once it is known how it ended: the owed card came later (one
    ``DEAL_OUT_OF_TURN``), or never (a double or split ace left without its one
    card is ``PLAY_DOUBLE_CARDS`` / ``PLAY_SPLIT_ACES_CARDS``, else
    ``DEAL_OUT_OF_TURN``).
    """

    event_id: str
    box: int | None
    hand: int | None
    card: str
    reported: bool = False


@dataclass(slots=True, eq=False)
class Late:
    """A double or split made on a hand whose turn had passed (rules.md: a card to a hand
    that is not the one being played is ``DEAL_OUT_OF_TURN``).

    ``extra`` is the late extra stake by spot (a double's extra, a split's new
    hand's stake); its ``DEAL_OUT_OF_TURN`` is priced at settlement with what
    that stake was paid. ``card_event`` is the first card the late decision drew.
    """

    event_id: str
    action: str
    box: int
    hand: int
    extra: dict[int, int]
    new_hand: Hand | None = None
    card_event: str | None = None
    card: str | None = None
    superseded: bool = False
    """The card broke a rule that comes first (rules.md precedence): no second finding."""


@dataclass(slots=True, eq=False)
class Hand:
    """One hand of a box while its round is replayed.

    ``stakes`` are the spots' stakes on it (cents), ``extra`` a double's extra
    stakes. ``ended``: its turn is over (it stood, busted, made a natural, took
    a double's card, or play went past it). ``phantom``: a hand that carries no
    stake (a card dealt to it is a breach).
    """

    box: int
    number: int
    cards: list[str] = field(default_factory=list)
    count: Count = field(default_factory=Count)
    stakes: dict[int, int] = field(default_factory=dict)
    extra: dict[int, int] = field(default_factory=dict)
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False
    natural: bool = False
    ended: bool = False
    surrendered: bool = False
    cards_after_double: int = 0
    phantom: bool = False
    card_events: list[str] = field(default_factory=list)
    card_indexes: list[int] = field(default_factory=list)
    bust_index: int | None = None
    even_money: set[int] = field(default_factory=set)
    skipped: Skip | None = None
    late: Late | None = None

    @property
    def total(self) -> int:
        return self.count.total

    @property
    def soft(self) -> bool:
        return self.count.soft

    @property
    def bust(self) -> bool:
        """Over 21, unless it is a natural (a hit natural is still settled as one)."""
        return not self.natural and self.count.hard > 21

    @property
    def needs_card(self) -> bool:
        """A hand that cannot end yet: fewer than two cards, or a double awaiting its card."""
        if self.surrendered:
            return False
        return len(self.cards) < 2 or (self.doubled and self.cards_after_double == 0)

    @property
    def three_sevens(self) -> bool:
        return is_three_sevens(self.cards)

    @property
    def split_21(self) -> bool:
        """A two-card 21 after a split: an ordinary 21, paid even money (000).

        Exactly two cards (rules.md, the PAY_ code choice): a third card makes it
        another total, whatever the first two were.
        """
        return self.from_split and len(self.cards) == 2 and self.count.total == 21

    def stake(self, spot: int) -> int:
        """The spot's stake on this hand in cents, a double's extra included."""
        return self.stakes.get(spot, 0) + self.extra.get(spot, 0)

    def staked_spots(self) -> list[int]:
        return sorted(s for s, v in self.stakes.items() if v > 0)


@dataclass(slots=True, eq=False)
class Box:
    """A betting box: its spots' stakes and players, and its hands by number.

    ``late``: staked only after the cards came (past-posting); it is judged but
    takes no turn. ``phantom``: no stake at all (cards dealt to it are breaches).
    """

    number: int
    spots: dict[int, int] = field(default_factory=dict)
    players: dict[int, str | None] = field(default_factory=dict)
    hands: list[Hand] = field(default_factory=list)
    phantom: bool = False
    late: bool = False

    def hand(self, number: int) -> Hand | None:
        for h in self.hands:
            if h.number == number:
                return h
        return None
