"""The pieces of a round's working state: boxes, hands, and the marks play leaves on them.

These are plain mutable records. Only :class:`audit.engine.round.Round`
changes them (the rule checks in :mod:`audit.engine.play` and
:mod:`audit.engine.judge` only read them), so where a round stands is one
question with one answer: the round's phase and these records.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit.engine.hands import VALUE, is_three_sevens


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


class Hand:
    """One hand of a box while its round is replayed.

    ``stakes`` are the spots' stakes on it (cents), ``extra`` a double's extra
    stakes. ``hard`` is the total with aces counting 1, ``aces`` whether it
    holds one (:func:`audit.engine.hands.best_total` follows from both).
    ``ended``: its turn is over (it stood, busted, made a natural, took a
    double's card, or play went past it). ``phantom``: a hand that carries no
    stake (a card dealt to it is a breach).

    A plain class with slots (a round makes one per box, millions a night).
    """

    __slots__ = (
        "aces",
        "box",
        "bust_index",
        "card_events",
        "card_indexes",
        "cards",
        "cards_after_double",
        "doubled",
        "early_surrender",
        "ended",
        "even_money",
        "extra",
        "from_split",
        "hard",
        "late",
        "natural",
        "number",
        "phantom",
        "skipped",
        "split_aces",
        "stakes",
        "surrendered",
    )  # fmt: skip

    def __init__(
        self,
        box: int,
        number: int,
        *,
        stakes: dict[int, int] | None = None,
        from_split: bool = False,
        split_aces: bool = False,
        phantom: bool = False,
    ) -> None:
        self.box = box
        self.number = number
        self.cards: list[str] = []
        self.hard = 0
        self.aces = False
        self.stakes: dict[int, int] = {} if stakes is None else stakes
        self.extra: dict[int, int] = {}
        self.from_split = from_split
        self.split_aces = split_aces
        self.doubled = False
        self.natural = False
        self.ended = False
        self.surrendered = False
        self.early_surrender = False
        """Surrendered before the due peek (games.md §3): it stands against a blackjack."""
        self.cards_after_double = 0
        self.phantom = phantom
        self.card_events: list[str] = []
        self.card_indexes: list[int] = []
        self.bust_index: int | None = None
        self.even_money: set[int] = set()
        self.skipped: Skip | None = None
        self.late: Late | None = None

    def set_cards(self, cards: list[str]) -> None:
        """Replace the hand's cards (a split moves one away) and recount them."""
        self.cards = cards
        self.hard = sum(VALUE[c[0]] for c in cards)
        self.aces = any(c[0] == "A" for c in cards)

    @property
    def total(self) -> int:
        """The best total: an ace counts 11 when that does not bust (000, 001, 004)."""
        return self.hard + 10 if self.aces and self.hard <= 11 else self.hard

    @property
    def soft(self) -> bool:
        return self.aces and self.hard <= 11

    @property
    def bust(self) -> bool:
        """Over 21, unless it is a natural (a hit natural is still settled as one)."""
        return not self.natural and self.hard > 21

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
        return self.from_split and len(self.cards) == 2 and self.total == 21

    def stake(self, spot: int) -> int:
        """The spot's stake on this hand in cents, a double's extra included."""
        return self.stakes.get(spot, 0) + self.extra.get(spot, 0)

    def staked_spots(self) -> list[int]:
        return sorted(s for s, v in self.stakes.items() if v > 0)


class Box:
    """A betting box: its spots' stakes and players, and its hands by number.

    ``late``: staked only after the cards came (past-posting); it is judged but
    takes no turn. ``phantom``: no stake at all (cards dealt to it are breaches).
    """

    __slots__ = ("hands", "late", "number", "phantom", "players", "spots")

    def __init__(self, number: int, *, phantom: bool = False, late: bool = False) -> None:
        self.number = number
        self.spots: dict[int, int] = {}
        self.players: dict[int, str | None] = {}
        self.hands: list[Hand] = []
        self.phantom = phantom
        self.late = late

    def hand(self, number: int) -> Hand | None:
        hands = self.hands
        if number < len(hands) and hands[number].number == number:
            return hands[number]  # a box's hands are numbered as they are made
        for h in hands:
            if h.number == number:
                return h
        return None
