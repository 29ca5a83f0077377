"""Shoe integrity: positions, the shuffle order, card counts, the cut card, reconciliation.

Every card that leaves the shoe (a dealt card or a burned one) passes through
:meth:`ShoeTracker.draw`. Positions count from 1, burns included (event-log.md,
``card.pos`` / ``burn.pos``); a card without ``pos`` takes the position after
the previous one. rules.md, "Findings": with ``pos`` the cards drawn are
counted by the highest position reached, so a card left unrecorded, or one
recorded twice (v1.2), is one ``SHOE_POSITION_GAP`` and not a reconciliation
error too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from audit.engine.hands import RANK_INDEX
from audit.engine.sink import Breach, FindingSink
from audit.events.models import CutCard, ShoeClose
from audit.findings import Code
from audit.profiles.model import Rules

CARDS_PER_DECK = 52


def _times(n: int | None) -> str:
    """How many times, in words a report reads: once, twice, 3 times."""
    if n == 1:
        return "once"
    if n == 2:
        return "twice"
    return f"{n} times"


@dataclass(slots=True)
class ShoeTracker:
    """The physical shoe as the events show it.

    ``ranks`` counts the cards drawn so far by rank (A, 2, ..., 9, ten-values;
    :data:`audit.engine.hands.RANK_INDEX`) and ``unseen`` those drawn unseen (a
    burn without card codes): the composition the next card comes from.
    """

    rules: Rules
    sink: FindingSink
    decks: int | None
    order: tuple[str, ...] | None = None
    cut_card_position: int | None = None
    cut_card_event: str | None = None
    next_pos: int = 1
    max_pos: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    excess_flagged: set[str] = field(default_factory=set)
    cut_card_out_round: int | None = None
    cut_card_out_event: str | None = None
    ranks: list[int] = field(default_factory=lambda: [0] * 10)
    unseen: int = 0
    out: list[int] = field(default_factory=list)
    """Every card out, in order: its rank index, or ``-n`` for ``n`` cards drawn unseen."""
    first_card_out: int | None = None
    last_cut_card_position: int | None = None

    def draw(self, card: str | None, pos: int | None, event_id: str, round_no: int | None) -> int:
        """One card leaves the shoe; returns its position.

        Raises ``SHOE_POSITION_GAP`` (a ``pos`` that skips or repeats),
        ``SHOE_ORDER_MISMATCH`` (against the last shuffle's ``order``) and
        ``SHOE_CARD_EXCESS`` (a card drawn more than ``decks`` times); notes the
        round in which the cut card came out (rules.md, "When things must happen").
        """
        if pos is not None and pos != self.next_pos:
            what = (
                f"skips {pos - self.next_pos} position(s): a card left the shoe unrecorded"
                if pos > self.next_pos
                else "repeats an earlier position: a card recorded twice"
            )
            self.sink.add(
                Breach(
                    Code.SHOE_POSITION_GAP,
                    f"card at pos {pos} where pos {self.next_pos} was next; the shoe {what}",
                    (event_id,),
                    expected=str(self.next_pos),
                    actual=str(pos),
                ),
                round_no,
            )
        position = pos if pos is not None else self.next_pos
        self.next_pos = position + 1
        if position > self.max_pos:
            self.max_pos = position
        if card is not None:
            rank = RANK_INDEX[card[0]]
            self.ranks[rank] += 1
            self.out.append(rank)
            if self.order is not None:
                self._check_order(card, position, event_id, round_no)
            counts = self.counts
            n = counts.get(card, 0) + 1
            counts[card] = n
            if self.decks is not None and n > self.decks:
                self._card_added(card, n, event_id, round_no)
        else:
            self.unseen += 1
            self.out.append(-1)
        if (
            self.cut_card_position is not None
            and position > self.cut_card_position
            and self.cut_card_out_round is None
            and round_no is not None
        ):
            self.cut_card_out_round = round_no
            self.cut_card_out_event = event_id
        return position

    def draw_unseen(self, n: int, pos: int | None, event_id: str, round_no: int | None) -> None:
        """``n`` cards leave the shoe unseen, from ``pos`` on: as ``n`` calls of :meth:`draw`
        with no card, in constant time (a burn's ``count`` may be up to 2^53 - 1, TEL/1 v1.1)."""
        if n <= 0:
            return
        first = self.draw(None, pos, event_id, round_no)
        if n == 1:
            return
        last = first + n - 1
        self.next_pos = last + 1
        self.max_pos = max(self.max_pos, last)
        self.unseen += n - 1
        self.out.append(1 - n)
        if (
            self.cut_card_position is not None
            and last > self.cut_card_position
            and self.cut_card_out_round is None
            and round_no is not None
        ):
            self.cut_card_out_round = round_no
            self.cut_card_out_event = event_id

    def _check_order(self, card: str, position: int, event_id: str, round_no: int | None) -> None:
        if self.order is None or position > len(self.order):
            return
        recorded = self.order[position - 1]
        if recorded != card:
            self.sink.add(
                Breach(
                    Code.SHOE_ORDER_MISMATCH,
                    f"pos {position}: {card} left the shoe, the shuffle recorded {recorded} there",
                    (event_id,),
                    expected=recorded,
                    actual=card,
                ),
                round_no,
            )

    def _card_added(self, card: str, n: int, event_id: str, round_no: int | None) -> None:
        """``SHOE_CARD_EXCESS``: a card left the shoe more times than it holds it (once a card)."""
        if card in self.excess_flagged:
            return
        self.excess_flagged.add(card)
        self.sink.add(
            Breach(
                Code.SHOE_CARD_EXCESS,
                f"{card} has left the shoe {n} times; "
                f"a {self.decks}-deck shoe holds it {_times(self.decks)}: a card was added",
                (event_id,),
                expected=str(self.decks),
                actual=str(n),
                rule="decks",
            ),
            round_no,
        )

    @property
    def cards_drawn(self) -> int:
        """Cards that left the shoe: the highest position reached (rules.md, "Findings")."""
        return self.max_pos

    def shuffled(self, order: list[str] | None) -> None:
        """A shuffle step: the last one's ``order`` (if any) is the order to check against.

        With ``shuffle_every_round`` (002) it is a full reshuffle «di tutte le carte
        (comprese quelle giocate)»: every card is back in the pack, so the count
        behind ``SHOE_CARD_EXCESS`` (and the composition) starts again.
        """
        self.order = tuple(order) if order is not None else None
        if self.rules.shuffle_every_round:
            self.counts.clear()
            self.excess_flagged.clear()
            self.ranks = [0] * 10
            self.unseen = 0

    def cut_card(self, event: CutCard) -> None:
        """The cut card is placed: check the cards left behind it (rules.md, "cut card depth").

        Cards behind = 52 x decks - position. One ``SHOE_CUT_CARD_DEPTH`` per shoe.
        """
        self.last_cut_card_position = event.position
        if self.cut_card_position is not None:
            return
        self.cut_card_position = event.position
        self.cut_card_event = event.id
        r = self.rules
        if not r.cut_card_used or self.decks is None:
            return
        behind = CARDS_PER_DECK * self.decks - event.position
        low, high = r.cut_card_min_behind, r.cut_card_max_behind
        if (low is not None and behind < low) or (high is not None and behind > high):
            rule = (
                "cut_card_min_behind" if low is not None and behind < low else "cut_card_max_behind"
            )
            self.sink.add(
                Breach(
                    Code.SHOE_CUT_CARD_DEPTH,
                    f"the cut card at position {event.position} leaves {behind} cards behind "
                    f"it; the profile allows {low} to {high}",
                    (event.id,),
                    expected=f"{low}-{high}",
                    actual=str(behind),
                    rule=rule,
                )
            )

    def cut_card_came_out(self, round_no: int, event_id: str) -> None:
        """A ``cut_card_out`` event: this round is the last of the shoe (001)."""
        if self.cut_card_out_round is None:
            self.cut_card_out_round = round_no
            self.cut_card_out_event = event_id

    def dealing_begins(self) -> None:
        """The shoe's first dealt card is next: note how many cards are out before it."""
        if self.first_card_out is None:
            self.first_card_out = sum(1 if x >= 0 else -x for x in self.out)

    def prefix_ranks(self, round_one_boxes: int | None) -> list[int]:
        """The ranks (A, 2, ..., 9, ten-values) of the cards seen in the shoe's prefix.

        Not a rule: what ``run`` stores for the statistics' ``card_ranks`` test
        (:mod:`audit.stats.cards`; docs/decisions.md, "Card ranks"), whose sample
        is a prefix of fixed length. The cards out (burns included, counted in the
        order they came out) up to the last cut card's ``position``; with no cut
        card, those out before round 1 and its initial deal of two cards to each
        box with a stake and two to the dealer (``round_one_boxes``). Empty when no
        card of the prefix was seen, or the shoe has neither a cut card nor a
        round 1.
        """
        limit = self.last_cut_card_position
        if limit is None:
            if self.first_card_out is None or round_one_boxes is None:
                return []
            limit = self.first_card_out + 2 * (round_one_boxes + 1)
        counts = [0] * 10
        pos = 0
        seen = False
        for x in self.out:
            if x < 0:
                pos -= x
            else:
                pos += 1
                if pos > limit:
                    break
                counts[x] += 1
                seen = True
            if pos >= limit:
                break
        return counts if seen else []

    def reconcile(self, event: ShoeClose, burned: int, evidence: list[str]) -> None:
        """At ``shoe_close``: cards drawn (burns included) + ``remaining`` = 52 x decks.

        ``SHOE_RECONCILIATION`` once per shoe, only when ``remaining`` is recorded;
        judged once every event is read, since a late card still left the shoe
        (rules.md v1.2). Cards drawn are the highest position reached: a card recorded
        twice is not counted twice (its ``SHOE_POSITION_GAP`` is the finding).
        """
        if event.remaining is None or self.decks is None:
            return
        total = CARDS_PER_DECK * self.decks
        drawn = self.cards_drawn
        if drawn + event.remaining != total:
            self.sink.add(
                Breach(
                    Code.SHOE_RECONCILIATION,
                    f"at shoe_close: {drawn} cards drawn ({burned} burned at start, "
                    f"{drawn - burned} after) + {event.remaining} remaining = "
                    f"{drawn + event.remaining}, not {total} ({self.decks} decks)",
                    (*evidence, event.id),
                    expected=str(total),
                    actual=str(drawn + event.remaining),
                    rule="decks",
                )
            )
