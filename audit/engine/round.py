"""One round as a state machine: the only object that changes a round's state.

A round moves through explicit phases (:class:`Phase`): betting, the initial
deal, the insurance window, the players' turns in box order, the dealer, the
final settlement, closed. Each event is first checked against what the phase
and the profile allow (the checks in :mod:`audit.engine.play`,
:mod:`audit.engine.bets`, :mod:`audit.engine.deal` return breaches and change
nothing), then applied, as it happened: rules.md judges what actually happened
at the table, so an illegal double still doubles the stake.

With ``trace`` on (the dispute report), every event also leaves a frozen
:class:`~audit.engine.result.Step`; ``run`` replays with it off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from audit.engine.betting import bet, close_betting
from audit.engine.deal import DEALER, DealShape, deal_plan, deal_problems, expected_face, where
from audit.engine.dealer import dealer_must_draw, dealer_natural
from audit.engine.dealer_turn import dealer_card, finish_dealer, resolve_pending
from audit.engine.decisions import action, split_ace_one_card
from audit.engine.event import RoundEvent, money
from audit.engine.exposed import Exposed
from audit.engine.hands import VALUE, best_total, is_soft
from audit.engine.insurance import even_money, insurance_bet
from audit.engine.judge import judge_round, settle_words
from audit.engine.peek import needless_rule, peek_due
from audit.engine.peek_window import (
    after_blackjack,
    peek,
    peek_made_late,
    player_acts,
    reveal,
)
from audit.engine.phase import Phase
from audit.engine.play import (
    HIT_RULE,
    hand_is_over,
    hit_violation,
    mandatory_hit_breach,
)
from audit.engine.result import Step
from audit.engine.sidebets import SideStake, needs_dealer
from audit.engine.sink import Breach, FindingSink
from audit.engine.state import Box, Hand, Late, Skip
from audit.events import models as m
from audit.events.cards import TEN_VALUES
from audit.findings import Code, Finding
from audit.profiles.model import Rules, SideBetTable

if TYPE_CHECKING:
    from audit.engine.judge import Wager


def upcard_can_bj(card: str) -> bool:
    """An up card under which the dealer may still hold a blackjack: an ace or a ten-value.

    :func:`~audit.events.cards.is_ace` and :func:`~audit.events.cards.is_ten_value` read in
    place: they are not compiled, and a round asks this at least once (issue 32).
    """
    rank = card[0]
    return rank == "A" or rank in TEN_VALUES


class Limits(NamedTuple):
    """Table limits from ``shoe_open`` in cents: per spot minimum, per box maximum; and
    ``side``: each side bet's per-spot (id, minimum, maximum) (``side_limits``, v1.2)."""

    min_bet: int | None = None
    max_bet: int | None = None
    side: tuple[tuple[str, int | None, int | None], ...] = ()


class SettleRec(NamedTuple):
    """One ``settle`` event, kept until the round is judged."""

    box: int
    hand: int
    spot: int
    kind: str
    amount: int
    event_id: str
    at: int
    """The event's index in the shoe: settlements are timed against the cards."""
    step: int
    late: bool = False
    """Settled after the round was over (rules.md v1.2): ``PAY_TIMING``, or its amount code."""


PLAY_AFTER_BLACKJACK_QUIET = frozenset(
    c for c in Code if c.startswith(("PLAY_", "DEALER_", "DEAL_")) and c != Code.DEAL_PEEK_NEEDLESS
)
"""The codes of play, deal and dealer not raised again once a round has
``PLAY_AFTER_DEALER_BLACKJACK`` (games.md §4: "the play that follows not judged again")."""


class Round:
    """The working state of one round while its events are replayed."""

    def __init__(
        self,
        number: int,
        rules: Rules,
        sink: FindingSink,
        limits: Limits,
        banker: str | None,
        *,
        trace: bool = False,
        plans: dict[tuple[int, ...], tuple[Any, ...]] | None = None,
        side_tables: dict[str, SideBetTable] | None = None,
        deal: DealShape | None = None,
    ) -> None:
        self.number = number
        self.rules = rules
        self.sink = sink
        self.limits = limits
        self.banker = banker
        self.deal = deal if deal is not None else DealShape(rules.initial_deal)
        """The profile's deal as plain values (read once a shoe and shared by its rounds)."""
        self.phase = Phase.BETTING
        self.status = "open"
        self.steps: list[Step] | None = [] if trace else None
        self.last_event: str | None = None
        self.first_seq: int | None = None
        self.first_ts_us: int | None = None
        self.last_seq: int | None = None
        # betting
        self.bets: dict[tuple[int, int], int] = {}
        self.players: dict[tuple[int, int], str | None] = {}
        self.bet_events: dict[int, list[str]] = {}
        self.spot_events: dict[tuple[int, int], list[str]] = {}
        self.close_event: str | None = None
        self.closed_by_burn = False
        # side bets (games.md §2-§4): by (box, spot, id), and the cards of each box they read
        self.side_tables: dict[str, SideBetTable] = {} if side_tables is None else side_tables
        self.side: dict[tuple[int, int, str], SideStake] = {}
        self.box_first: dict[int, list[tuple[str, int]]] = {}
        """The box's first two cards as dealt, with their indexes (tracked once a side bet
        is placed: a round without one pays nothing for it)."""
        # the deal
        self.boxes: dict[int, Box] = {}
        self.boxes_made = False
        self.staked: dict[int, dict[int, int]] = {}
        self.late_bets = False
        self.plans: dict[tuple[int, ...], tuple[Any, ...]] = {} if plans is None else plans
        self.plan: tuple[Any, ...] = ()
        self.deal_k = 0
        self.deal_needed = 0
        self.deal_flagged = False
        self.pending_dealer: RoundEvent | None = None
        self.played = False
        # the hole card and the peek (games.md §3)
        self.hole_index: int | None = None
        """Which of the dealer's cards is the hole card (dealt in the deal where the
        profile's deal has one), or None."""
        self.hole_turned = False
        """The hole card is seen: a ``reveal``, or dealt face up."""
        self.reveal_index: int | None = None
        """The index of the ``reveal`` that turned the hole card, if one did."""
        self.reveal_watch: RoundEvent | None = None
        """A ``reveal`` not yet known to be early: ``DEAL_HOLE_CARD_SHOWN`` once a player
        hand acts after it (:func:`~audit.engine.peek_window.player_acts`)."""
        self.reveal_step = -1
        self.peek_window = False
        """A peek is due and has not come, and nothing has yet made it late."""
        self.early_pending: list[tuple[Hand, RoundEvent, int]] | None = None
        """Surrenders in the peek's window where only ``late`` is allowed: early if the peek
        comes next, late if it comes late or never
        (:func:`~audit.engine.peek_window.early_surrenders_decided`)."""
        self.peek_rule: str | None = None
        """The field a due peek follows (``peek_on_ace`` or ``peek_on_ten``)."""
        self.peeks = 0
        self.blackjack_found = False
        """A due peek (or the hole card turned in its place) found the dealer's blackjack:
        play is over."""
        self.after_blackjack = False
        self.acted: set[tuple[int, int]] = set()
        self.known_index: int | None = None
        """The index of the event at which the dealer's blackjack became known (games.md §3,
        "Known"): a peek, the hole card turned, or his second card without a hole card."""
        self.last_play = -1
        """The index of the last player decision or card to a box after the deal: without a
        ``reveal``, the hole card counts as turned once the players' play is over."""
        self.first_decision: int | None = None
        """The index of the round's first player decision (an ``action``)."""
        """The hands a decision was logged for (a hand still to be played has none)."""
        """``PLAY_AFTER_DEALER_BLACKJACK`` was raised: the play that follows is not judged."""
        # play: the hands in turn order and the one being played
        self.order: list[Hand] = []
        self.turn = 0
        self.objections: dict[tuple[int, int, str], list[str]] = {}
        self.insurance: dict[tuple[int, int], tuple[int, list[str]]] = {}
        self.late: list[Late] = []
        self.exposed: Exposed | None = None
        # the dealer
        self.dealer: list[str] = []
        self.dealer_indexes: list[int] = []
        self.dealer_events: list[str] = []
        self.drew_flagged = False
        # cards that left the shoe during the round (indexes), and those after the deal
        self.draws: list[int] = []
        self.play_cards: list[tuple[int, int]] = []
        self.deal_end_index: int | None = None
        # composition snapshots (rank counts, unseen) for the stored outcomes
        self.ranks_before_round: list[int] | None = None
        self.unseen_before_round = 0
        self.ranks_before_dealer: list[int] | None = None
        self.unseen_before_dealer = 0
        # the end
        self.settles: list[SettleRec] = []
        self.void_event: str | None = None
        self.wagers: list[Wager] = []
        self.judged = False
        self.judge_findings: list[Finding] | None = None
        """The findings the judgement raised: a late settlement judges the round again."""
        self.late_logged = False
        """A round event after the round was over was flagged (``LOG_INCOMPLETE`` once)."""
        self.skipped = False
        """Replayed only as far as the shoe remembers it (:meth:`_Shoe.pass_over`): not judged."""

    # ================================================================== helpers

    def flag(self, breach: Breach) -> None:
        """Record a breach of this round as a finding.

        After ``PLAY_AFTER_DEALER_BLACKJACK`` the play that follows is not judged again
        (games.md §4): its wagers are, as placed.
        """
        if self.after_blackjack and breach.code in PLAY_AFTER_BLACKJACK_QUIET:
            return
        self.sink.add(breach, self.number)

    def step(self, e: RoundEvent | m.Envelope, description: str, **kw: Any) -> int:
        """A step of the trace (only with ``trace`` on); returns its index or -1."""
        if self.steps is None:
            return -1
        self.steps.append(
            Step(event_id=e.id, seq=e.seq, type=e.type, description=description, **kw)
        )
        return len(self.steps) - 1

    @property
    def voided(self) -> bool:
        return self.void_event is not None

    @property
    def dealt(self) -> bool:
        return bool(self.draws) or bool(self.dealer) or any(h.cards for h in self.all_hands())

    @property
    def deal_done(self) -> bool:
        return self.phase >= Phase.INSURANCE

    def all_hands(self) -> list[Hand]:
        return [h for b in self.boxes.values() for h in b.hands]

    def current(self) -> Hand | None:
        """The hand being played: the first in turn order whose turn is not over."""
        order = self.order
        while self.turn < len(order) and order[self.turn].ended:
            self.turn += 1
        return order[self.turn] if self.turn < len(order) else None

    def wager_hands(self) -> list[Hand]:
        """Every hand that carries a stake (late boxes included), in box and hand order."""
        return [
            h
            for b in sorted(self.boxes.values(), key=lambda b: b.number)
            if not b.phantom
            for h in sorted(b.hands, key=lambda h: h.number)
            if any(v > 0 for v in h.stakes.values())
        ]

    def all_decided(self) -> bool:
        """Every player hand decided: the dealer may stop drawing (rules.md, "Findings").

        Busted, surrendered, settled as even money, or a natural the dealer can
        no longer match; open insurance still needs the dealer's second card.
        """
        d = self.dealer
        if d and dealer_natural(d):
            return True
        if self.insurance and len(d) < 2:
            return False
        if self.side and self.side_open_for_dealer() is not None:
            return False  # games.md §3: an open Buster bet, or a QH pair, needs his cards
        for h in self.wager_hands():
            if h.bust or h.surrendered:
                continue
            if h.natural:
                if set(h.staked_spots()) <= h.even_money:
                    continue
                up = self.offer_card()
                if len(d) >= 2 or (len(d) == 1 and up is not None and not upcard_can_bj(up)):
                    continue
            return False
        return True

    def dealer_completed(self) -> bool:
        """Whether the dealer played his hand out by the profile's rule (he stands by it).

        False where he stopped early because every player hand was decided
        (rules.md allows it), or the profile has no dealer rule (002).
        """
        d = self.dealer
        return (
            not self.rules.dealer_plays_freely
            and len(d) >= 2
            and not dealer_must_draw(d, self.rules)
        )

    def _hand_kw(self, h: Hand) -> dict[str, Any]:
        return {"cards": tuple(h.cards), "total": h.total, "soft": h.soft}

    def _phantom(self, box: int, hand: int) -> Hand:
        b = self.boxes.get(box)
        if b is None:
            b = Box(number=box, phantom=True)
            self.boxes[box] = b
        h = b.hand(hand)
        if h is None:
            h = Hand(box=box, number=hand, phantom=True)
            b.hands.append(h)
        return h

    def _playing_hand(self, box: int | None, hand: int | None) -> Hand | None:
        """The staked hand ``box``/``hand`` that takes turns, or None."""
        b = self.boxes.get(box) if box is not None else None
        if b is None or b.phantom or b.late:
            return None
        return b.hand(hand or 0)

    def _hand_for(self, e: RoundEvent, box: int, hand: int, what: str) -> Hand | None:
        """A staked hand an event refers to; ``LOG_INCOMPLETE`` when it has none."""
        b = self.boxes.get(box)
        h = b.hand(hand) if b is not None and not b.phantom else None
        if h is None:
            self.flag(
                Breach(
                    Code.LOG_INCOMPLETE,
                    f"{what} for box {box} hand {hand}, which has no stake in this round",
                    (e.id,),
                    box=box,
                    hand=hand,
                )
            )
        return h

    # ================================================================== betting

    def open(self, e: RoundEvent, index: int) -> None:
        """``round_open``: a new round at this shoe."""
        if self.steps is not None:
            self.step(e, f"round {e.round} opens")

    def bet(self, e: RoundEvent, index: int) -> None:
        """A stake placed, changed or withdrawn (``amount`` 0) (:mod:`~audit.engine.betting`)."""
        bet(self, e, index)

    def box_cards(self, box_no: int) -> list[str]:
        """The box's first two cards as dealt (what ``pair``, ``three_card`` and ``twenty``
        read), as far as they came."""
        return [c for c, _ in self.box_first.get(box_no, ())]

    def side_open_for_dealer(self) -> SideStake | None:
        """An open side bet that still needs a dealer card (games.md §3), if any."""
        if self.voided:
            return None
        d = self.dealer
        for (box, _spot, _kind), st in self.side.items():
            if needs_dealer(st, self.box_cards(box), d):
                return st
        return None

    def close_betting(self, event_id: str, by_burn: bool = False) -> None:
        """Betting closes (no more bets, the first card, 001's start burn): see betting.py."""
        close_betting(self, event_id, by_burn)

    def no_more_bets(self, e: RoundEvent, index: int) -> None:
        """«Rien ne va plus»: from here no stake may change."""
        already = self.phase > Phase.BETTING
        self.close_betting(e.id)
        if self.steps is not None:
            self.step(e, "no more bets" + (" (betting had already closed)" if already else ""))

    def start_burn(self, e: m.Burn) -> None:
        """001: «A puntate effettuate, il banchiere chiude il gioco, bruciando 5 carte».

        With ``bets_close_before_start_burn``, a start burn during round 1's
        betting closes it. rules.md: «the burn may come before or after round
        1's betting»: a burn before any stake is placed closes nothing.
        """
        if self.rules.bets_close_before_start_burn and any(v > 0 for v in self.bets.values()):
            self.close_betting(e.id, by_burn=True)

    # ================================================================== the deal

    def make_boxes(self) -> None:
        """The staked boxes as betting closed them, each with its hand 0; the deal's plan."""
        self.boxes_made = True
        players = self.players
        boxes = self.boxes
        staked = self.staked
        if self.phase == Phase.BETTING or self.late_bets:
            # betting never closed (a round with no card), or stakes changed after it closed
            # and before any card (past-posting): the boxes are as the stakes stand (rules.md:
            # judged as placed)
            staked = {}
            for (box, spot), amount in sorted(self.bets.items()):
                if amount > 0:
                    staked.setdefault(box, {})[spot] = amount
            self.staked = staked
        for n, spots in staked.items():  # ascending box numbers
            b = Box(number=n)
            b.spots = spots
            b.players = {spot: players.get((n, spot)) for spot in spots}
            h = Hand(box=n, number=0, stakes=dict(spots))
            b.hands = [h]
            boxes[n] = b
            self.order.append(h)
        seats = tuple(staked)
        plan = self.plans.get(seats)
        if plan is None:
            plan = self.plans[seats] = deal_plan(self.rules.initial_deal, seats)
        self.plan = plan
        self.deal_needed = 2 * len(self.order) + self.deal.dealer_cards

    def _deal_complete(self) -> bool:
        """Every staked box has its two cards and the dealer his (the deal's plan is served)."""
        return self.deal_needed <= 0

    def _end_deal(self, index: int) -> None:
        self.phase = Phase.INSURANCE
        self.deal_end_index = index
        upcard = self.upcard()
        if upcard is None:
            return
        if self.known_index is None and not upcard_can_bj(upcard):
            # games.md §3 "Known": a 2-9 up card rules the blackjack out at once, with a
            # hole card or without one (his second card can no longer make it)
            self.known_index = self.dealer_indexes[
                0 if self.hole_index is None else self.deal.upcard_index or 0
            ]
        if self.hole_index is None:
            return  # no hole card (or a missing one): judged as a game without (games.md §3)
        if peek_due(self.rules, upcard, True):
            self.peek_rule = needless_rule(upcard)
            if self.hole_turned:
                # dealt face up: it takes the peek's place, its cards decide (under DEAL_ORDER)
                self.blackjack_found = dealer_natural(self.dealer[:2])
            else:
                self.peek_window = True

    def upcard(self) -> str | None:
        """The dealer's up card as the profile's deal places it (games.md §1), if dealt."""
        i = self.deal.upcard_index
        if i is None:
            return None
        if self.hole_index is None:
            i = 0  # no hole card in its place: his first card is the up card
        return self.dealer[i] if len(self.dealer) > i else None

    def offer_card(self) -> str | None:
        """The card insurance and even money are offered against: the dealer's up card
        (games.md §1: ``initial_deal``'s, with no hole card his first); where the deal gives
        him none face up (the home banker), his first card, as v1 read it."""
        if self.deal.upcard_index is None:
            return self.dealer[0] if self.dealer else None
        return self.upcard()

    def _cut_deal_short(self, e: RoundEvent, index: int) -> None:
        """A decision during the deal ends it: ``DEAL_ORDER`` if it was incomplete."""
        if self.phase != Phase.DEAL:
            return
        if self.boxes_made and not self._deal_complete() and not self.deal_flagged:
            self.deal_flagged = True
            self.flag(
                Breach(
                    Code.DEAL_ORDER,
                    f"the initial deal is incomplete when {e.type} {e.id!r} comes",
                    (e.id,),
                    rule="initial_deal",
                )
            )
        self._end_deal(index)

    def card(self, e: RoundEvent, index: int, pos: int) -> None:
        """One card leaves the shoe and is placed (betting closes at the first card)."""
        if not self.boxes_made:
            self.close_betting(e.id)
            self.make_boxes()
        self.draws.append(index)
        seat = DEALER if e.to == "dealer" else e.box
        assert seat is not None
        placing = None
        if self.exposed is not None and self.exposed.card == e.card:
            placing = self.exposed.accepted
            self.exposed = None
        exempt = placing is not None and placing == seat
        if self.phase == Phase.DEAL:
            self._deal_card(e, index, pos, seat)
            return
        if seat != DEALER:
            self.last_play = index
            if self.reveal_watch is not None:
                player_acts(self, e, f"a card ({e.card}) to box {e.box} hand {e.hand or 0}")
        if self.blackjack_found:
            after_blackjack(self, e, f"a card ({e.card}) to {where(seat)}")
        else:
            peek_made_late(self, e, f"a card ({e.card}) to {where(seat)}")
        if self.pending_dealer is not None:
            resolve_pending(self, as_hole_card=seat != DEALER)
        if seat == DEALER:
            dealer_card(self, e, index, pos, exempt)
        else:
            self._play_card(e, index, pos, exempt)

    def _deal_card(self, e: RoundEvent, index: int, pos: int, seat: int) -> None:
        """A card of the initial deal: ``DEAL_ORDER`` on the first departure (rules.md).

        The procedure is the profile's :class:`~audit.profiles.model.Deal`
        (:func:`audit.engine.deal.deal_plan`).
        """
        slot = self.plan[self.deal_k] if self.deal_k < len(self.plan) else None
        b = self.boxes.get(seat) if seat != DEALER else None
        staked = b is not None and not b.phantom
        problems: list[str] = []
        if slot is None or slot.seat != seat or slot.face_up != e.face_up or e.hand:
            want = expected_face(self.rules.initial_deal, seat, len(self.dealer))
            problems = deal_problems(slot, seat, e.face_up, want, staked, e.hand)
        self.deal_k += 1
        if problems and not self.deal_flagged:
            self.deal_flagged = True
            self.flag(
                Breach(
                    Code.DEAL_ORDER,
                    f"initial deal, {e.card}: " + "; ".join(problems),
                    (e.id,),
                    box=e.box if seat != DEALER else None,
                    hand=e.hand if seat != DEALER else None,
                    expected=where(slot.seat if slot is not None else None),
                    actual=where(seat),
                    rule="initial_deal",
                )
            )
        assert e.card is not None
        h: Hand | None = None
        if seat == DEALER:
            deal = self.deal
            if len(self.dealer) < deal.dealer_cards:
                self.deal_needed -= 1
            if deal.hole_card_index is not None and len(self.dealer) == deal.hole_card_index:
                # judged as dealt: out of place or face up is DEAL_ORDER (above), still his
                self.hole_index = len(self.dealer)
                self.hole_turned = e.face_up
            self._add_dealer_card(e, index)
        else:
            hand_no = e.hand or 0
            h = b.hand(hand_no) if b is not None and staked else None
            if h is None:
                h = self._phantom(seat, hand_no)
            elif hand_no == 0 and len(h.cards) < 2:
                self.deal_needed -= 1
            self._add_card(h, e.card, e.id, index)
        if self.steps is not None:
            if seat == DEALER:
                desc = f"{e.card} to the dealer"
                kw: dict[str, Any] = {"cards": tuple(self.dealer)}
                kw.update(total=best_total(self.dealer), soft=is_soft(self.dealer))
            else:
                desc = f"{e.card} to box {e.box} hand {e.hand}"
                assert h is not None
                kw = self._hand_kw(h)
            self.step(
                e,
                f"deal: {desc} (pos {pos})",
                pos=pos,
                card=e.card,
                target=e.to,
                box=e.box if seat != DEALER else None,
                hand=e.hand if seat != DEALER else None,
                allowed=not problems,
                why_not="; ".join(problems) or None,
                **kw,
            )
        if self.deal_needed <= 0:
            self._end_deal(index)

    # ================================================================== play

    def _add_card(self, h: Hand, card: str, event_id: str, index: int) -> None:
        """Place one card on a hand; the hand's turn ends where its cards end it."""
        cards = h.cards
        cards.append(card)
        if self.side and h.number == 0:
            first = self.box_first.setdefault(h.box, [])
            if len(first) < 2:
                first.append((card, index))
        v = VALUE[card[0]]
        h.hard += v
        if v == 1:
            h.aces = True
        h.card_events.append(event_id)
        h.card_indexes.append(index)
        if h.doubled:
            h.cards_after_double += 1
        if len(cards) == 2 and not h.from_split:
            a, b = VALUE[cards[0][0]], VALUE[cards[1][0]]
            h.natural = a + b == 11 and (a == 1 or b == 1)
        if h.hard > 21 and h.bust_index is None and not h.natural:
            h.bust_index = index
        if not h.ended and len(cards) >= 2 and hand_is_over(h, self.rules):
            h.ended = True

    def _add_dealer_card(self, e: RoundEvent, index: int) -> None:
        assert e.card is not None
        self.dealer.append(e.card)
        self.dealer_indexes.append(index)
        self.dealer_events.append(e.id)
        if len(self.dealer) == 2 and self.known_index is None and self.hole_index is None:
            self.known_index = index  # no hole card: his second card is seen

    def stand(self, h: Hand, evidence: str) -> None:
        """The hand ends by standing; 004's mandatory hit: best total <= 11 must hit."""
        h.ended = True
        if mandatory_hit_breach(h, self.rules):
            mx = self.rules.mandatory_hit_max
            self.flag(
                Breach(
                    Code.PLAY_MANDATORY_HIT,
                    f"box {h.box} hand {h.number} stopped at {h.total} "
                    f"({','.join(h.cards)}); at {mx} or less it must hit",
                    (*h.card_events[-1:], evidence),
                    box=h.box,
                    hand=h.number,
                    expected="hit",
                    actual=f"stand on {h.total}",
                    rule="mandatory_hit_max",
                )
            )

    def _pass_to(self, target: Hand | None, evidence: str, skip: Skip | None = None) -> Hand | None:
        """End the turns of the hands before ``target`` (None: all); return one that needed a card.

        Hit and stand are optional events (event-log.md): a card to a later hand
        shows the earlier ones stood. A skipped hand that still needed a card
        (a split hand, a double) is marked with ``skip``, judged when its card
        comes late or at the round's end.
        """
        skipped: Hand | None = None
        for h in self.order[self.turn :]:
            if h is target:
                break
            if h.ended:
                continue
            if h.needs_card:
                skipped = skipped or h
                h.ended = True
                h.skipped = h.skipped or skip
            else:
                self.stand(h, evidence)
        self.current()
        return skipped

    def _is_later(self, h: Hand, cur: Hand | None) -> bool:
        """Whether ``h`` takes its turn after the current hand ``cur``."""
        if h not in self.order:
            return False
        return cur is None or self.order.index(h) > self.order.index(cur)

    def _report_skip(self, skip: Skip, message: str, events: tuple[str, ...]) -> None:
        """One ``DEAL_OUT_OF_TURN`` per card that went past a hand owed a card."""
        if skip.reported:
            return
        skip.reported = True
        self.flag(
            Breach(
                Code.DEAL_OUT_OF_TURN,
                message,
                events,
                box=skip.box,
                hand=skip.hand,
                actual=skip.card,
            )
        )

    def _play_card(self, e: RoundEvent, index: int, pos: int, exempt: bool) -> None:
        """A card to a player hand after the initial deal.

        Precedence (rules.md, "How many findings"): ``PLAY_HIT_ON_BLACKJACK``,
        ``PLAY_SPLIT_ACES_CARDS``, ``PLAY_DOUBLE_CARDS``, ``PLAY_HIT_AFTER_BUST``,
        ``PLAY_HIT_ON_21``, ``DEAL_OUT_OF_TURN``. A card to a box with no stake,
        a hand that does not exist, or a hand whose turn is over is
        ``DEAL_OUT_OF_TURN``; the first card a late double or split draws is
        that decision's one ``DEAL_OUT_OF_TURN``, priced at settlement.
        """
        assert e.box is not None and e.card is not None
        hand_no = e.hand or 0
        self.play_cards.append((index, e.box))
        if self.phase == Phase.INSURANCE:
            self.phase = Phase.PLAY
        self.played = True
        h = self._playing_hand(e.box, hand_no)
        code: Code | None = None
        why = ""
        if h is None:
            late_box = self.boxes.get(e.box)
            lh = late_box.hand(hand_no) if late_box is not None and late_box.late else None
            h = lh if lh is not None else self._phantom(e.box, hand_no)
            code = Code.DEAL_OUT_OF_TURN
            why = f"box {e.box} hand {hand_no} has no stake in this round"
        else:
            code = hit_violation(h, self.rules)
            if code is not None:
                why = (
                    f"{code.value}: box {e.box} hand {hand_no} ({','.join(h.cards)}) takes no card"
                )
            cur = self.current()
            late = h.late
            if late is not None and late.card_event is None:
                late.card_event, late.card = e.id, e.card
                late.superseded = code is not None
                if code is None:
                    why = f"box {e.box} hand {hand_no} {late.action} after its turn had passed"
            elif not exempt:
                if h.ended and h.skipped is not None and h.needs_card:
                    if code is None:
                        self._owed_card_late(h, e)
                elif (
                    h.ended
                    and code is None
                    and late is None
                    and not (h.doubled and h.cards_after_double == 0)
                ):
                    code = Code.DEAL_OUT_OF_TURN
                    why = f"box {e.box} hand {hand_no} had already ended"
                elif h is not cur and self._is_later(h, cur):
                    skip = Skip(e.id, e.box, hand_no, e.card)
                    needing = self._pass_to(h, e.id, skip)
                    if needing is not None and code is None:
                        why = f"box {needing.box} hand {needing.number} still needed its card"
        if code is not None:
            self.flag(
                Breach(
                    code,
                    f"{e.card} to box {e.box} hand {hand_no}: {why}",
                    (*h.card_events[-1:], e.id),
                    box=e.box,
                    hand=hand_no,
                    actual=",".join((*h.cards, e.card)),
                    rule=HIT_RULE.get(code),
                )
            )
        self._add_card(h, e.card, e.id, index)
        self.current()
        if self.steps is not None:
            self.step(
                e,
                f"{e.card} to box {e.box} hand {hand_no} (pos {pos})",
                pos=pos,
                card=e.card,
                target="box",
                box=e.box,
                hand=hand_no,
                allowed=code is None and not why,
                why_not=why or None,
                **self._hand_kw(h),
            )

    def _owed_card_late(self, h: Hand, e: RoundEvent) -> None:
        """A skipped hand gets the card it was owed: the skip was one card out of turn."""
        skip = h.skipped
        assert skip is not None
        h.skipped = None
        where_ = "the dealer" if skip.box is None else f"box {skip.box} hand {skip.hand}"
        self._report_skip(
            skip,
            f"{skip.card} went to {where_} while box {h.box} hand {h.number} still needed "
            f"its card; it got it later ({e.card})",
            (skip.event_id, e.id),
        )

    def _owed_cards_at_end(self) -> None:
        """At the round's end: a double or split ace left without its one card (000).

        ``PLAY_DOUBLE_CARDS`` / ``PLAY_SPLIT_ACES_CARDS`` on that hand ("other than
        exactly one card"); another skipped hand never served is the card that
        went past it, ``DEAL_OUT_OF_TURN``.
        """
        for h in self.order:
            skip = h.skipped
            code: Code | None = None
            if not h.surrendered:
                if (
                    h.doubled
                    and h.cards_after_double == 0
                    and not (split_ace_one_card(self, h) and not self.rules.double_on_split_aces)
                ):
                    code = Code.PLAY_DOUBLE_CARDS
                elif split_ace_one_card(self, h) and len(h.cards) < 2:
                    code = Code.PLAY_SPLIT_ACES_CARDS
            if code is not None:
                self.flag(
                    Breach(
                        code,
                        f"box {h.box} hand {h.number} ({','.join(h.cards)}) never received "
                        "its one card",
                        (*h.card_events[-1:], *([skip.event_id] if skip else [])),
                        box=h.box,
                        hand=h.number,
                        expected="exactly one card",
                        actual=",".join(h.cards),
                        rule=HIT_RULE[code],
                    )
                )
            elif skip is not None and h.needs_card:
                where_ = "the dealer" if skip.box is None else f"box {skip.box} hand {skip.hand}"
                self._report_skip(
                    skip,
                    f"{skip.card} went to {where_} while box {h.box} hand {h.number} still "
                    "needed its card",
                    (skip.event_id,),
                )

    # ================================================================== decisions

    def action(self, e: RoundEvent, index: int) -> None:
        """A player decision: hit, stand, double, split, surrender (see decisions.py)."""
        action(self, e, index)

    def known_at(self) -> int | None:
        """Where the dealer's blackjack became known (games.md §3, "Known"); with a hole card
        never turned by a ``reveal`` nor a peek, the end of the players' play."""
        if self.known_index is not None:
            return self.known_index
        if self.hole_index is not None:
            return self.last_play
        return None

    def first_play_index(self) -> int | None:
        """The index of the first decision or card after the deal: play's start."""
        cards = [i for i, _seat in self.play_cards[:1]]
        marks = [*cards, *([self.first_decision] if self.first_decision is not None else [])]
        return min(marks) if marks else None

    def _early(self) -> bool:
        """No decision and no card from the shoe since the deal: an early surrender's moment."""
        return self.peek_window and not self.played and not self.play_cards

    # ================================================================== the peek

    def peek(self, e: RoundEvent, index: int) -> None:
        """``peek`` (TEL/1 v1.2): the dealer checks his hole card (see peek_window.py)."""
        peek(self, e, index)

    def reveal(self, e: RoundEvent, index: int) -> None:
        """``reveal`` (TEL/1 v1.2): the dealer turns his hole card (see peek_window.py)."""
        reveal(self, e, index)

    def objection(self, e: RoundEvent, index: int) -> None:
        """A bettor refuses the next double or split of the hand (000)."""
        assert e.box is not None and e.word is not None
        hand_no = e.hand or 0
        if self._hand_for(e, e.box, hand_no, "objection") is not None:
            self.objections.setdefault((e.box, hand_no, e.word), []).append(e.id)
        effect = "" if self.rules.split_double_unanimity else " (no effect under this profile)"
        if self.steps is not None:
            self.step(
                e,
                f"box {e.box} hand {hand_no} spot {e.spot} objects to a {e.word}{effect}",
                box=e.box,
                hand=hand_no,
                spot=e.spot,
            )

    def insurance_bet(self, e: RoundEvent, index: int) -> None:
        """Insurance against a dealer ace (000): see insurance.py."""
        insurance_bet(self, e, index)

    def even_money(self, e: RoundEvent, index: int) -> None:
        """Even money (001), a blackjack against an ace paid 1:1 at once: see insurance.py."""
        even_money(self, e, index)

    # ================================================================== the exposed card

    def exposed_card(self, e: RoundEvent, index: int) -> None:
        """An exposed card (000): offered to the player in turn, each later box, the dealer."""
        if self.rules.exposed_card_procedure:
            assert e.card is not None
            seats: list[int] = []
            cur = self.current()
            start = self.order.index(cur) if cur is not None else len(self.order)
            for h in self.order[start:]:
                if not h.ended and h.box not in seats:
                    seats.append(h.box)
            seats.append(DEALER)
            self.exposed = Exposed(card=e.card, event_id=e.id, candidates=seats)
        if self.steps is not None:
            self.step(e, f"{e.card} exposed", card=e.card)

    def _exposed_breach(self, ex: Exposed | None, message: str, event_id: str) -> None:
        if ex is not None:
            if ex.flagged:
                return
            ex.flagged = True
        self.flag(
            Breach(
                Code.PLAY_EXPOSED_CARD,
                message,
                (*([ex.event_id] if ex else []), event_id),
                rule="exposed_card_procedure",
            )
        )

    def _first_offer_shows_the_turn(self, ex: Exposed, seat: int, evidence: str) -> None:
        """A first offer to a later box shows the boxes before it stood (hit and stand optional).

        Like a card to a later box (event-log.md), it moves the turn there, unless a
        hand in between still needed a card; the candidates then start at that box.
        """
        if seat == DEALER or seat not in ex.candidates:
            return
        cur = self.current()
        first = next((h for h in self.order if h.box == seat and not h.ended), None)
        if first is None or cur is None:
            return
        between = self.order[self.order.index(cur) : self.order.index(first)]
        if any(h.needs_card for h in between if not h.ended):
            return
        self._pass_to(first, evidence)
        ex.candidates = ex.candidates[ex.candidates.index(seat) :]

    def offer(self, e: RoundEvent, index: int) -> None:
        """An offer of the exposed card, checked against the order of the procedure (000)."""
        seat = DEALER if e.to == "dealer" else e.box
        assert seat is not None
        ex = self.exposed
        ok = True
        if self.rules.exposed_card_procedure:
            if ex is None or ex.card != e.card:
                ok = False
                self._exposed_breach(
                    None, f"{e.card} offered, but it is not the exposed card", e.id
                )
            else:
                if not ex.offers and seat != ex.candidates[0]:
                    self._first_offer_shows_the_turn(ex, seat, e.id)
                expected = ex.next_candidate()
                if seat != expected:
                    ok = False
                    self._exposed_breach(
                        ex,
                        f"exposed {e.card} offered to {where(seat)}; {where(expected)} was next",
                        e.id,
                    )
                ex.offers.append((seat, bool(e.accepted)))
                if e.accepted:
                    ex.accepted = seat
        verb = "accepts" if e.accepted else "refuses"
        if self.steps is not None:
            self.step(
                e, f"{e.card} offered: {where(seat)} {verb}", card=e.card, target=e.to, box=e.box,
                allowed=ok,
            )  # fmt: skip

    def burn(self, e: m.Burn, index: int) -> None:
        """A burn during the round: only an exposed card refused by all may be burned (000)."""
        self.draws.append(index)
        ok = True
        if self.rules.exposed_card_procedure:
            ex = self.exposed
            if ex is not None and ex.card in e.cards:
                if not ex.refused_by_all():
                    ok = False
                    self._exposed_breach(
                        ex,
                        f"exposed {ex.card} burned without being offered to "
                        f"{', '.join(ex.unoffered())}",
                        e.id,
                    )
                self.exposed = None
            else:
                ok = False
                self._exposed_breach(
                    None,
                    f"{','.join(e.cards) or e.n_cards} card(s) burned mid-shoe outside the "
                    "exposed-card procedure",
                    e.id,
                )
        if self.steps is not None:
            self.step(e, f"burn {','.join(e.cards) or e.n_cards}", allowed=ok)

    # ================================================================== the dealer

    def finish_dealer(self) -> None:
        """``DEALER_STOOD_ON_DRAW`` if the dealer stopped too soon (see dealer_turn)."""
        finish_dealer(self)

    # ================================================================== the end

    def cut_card_out(self, e: RoundEvent, index: int) -> None:
        """``cut_card_out``: this round is the last of the shoe (the shoe notes it)."""
        if self.steps is not None:
            self.step(e, "the cut card came out: this round is the last")

    def settle(self, e: RoundEvent, index: int) -> None:
        """A settlement: recorded now, judged when the round is over (:mod:`audit.engine.judge`)."""
        assert e.box is not None and e.spot is not None and e.amount is not None
        if self.phase == Phase.DEALER:
            self.phase = Phase.SETTLEMENT
        hand_no = e.hand or 0
        kind = e.word or "main"
        step = -1
        if self.steps is not None:
            step = self.step(
                e,
                settle_words(e.box, hand_no, e.spot, kind, e.amount),
                box=e.box,
                hand=hand_no,
                spot=e.spot,
                amount=money(e.amount),
            )
        self.settles.append(SettleRec(e.box, hand_no, e.spot, kind, e.amount, e.id, index, step))

    def late_settle(self, e: RoundEvent, index: int) -> None:
        """A settlement after the round is over: judged with the round's own, and the round again.

        rules.md v1.2: a settlement after ``round_close``, the next ``round_open`` or
        the shoe's close is late: ``PAY_TIMING`` when its amount is right, its amount
        code otherwise; a wager settled in its round and again after it is
        ``PAY_DUPLICATE``; ``PAY_MISSING`` only for a wager never settled. Its step is
        the shoe's (the round's story is closed), so it is not annotated.
        """
        assert e.box is not None and e.spot is not None and e.amount is not None
        if self.skipped:
            return
        kind = e.word or "main"
        self.settles.append(
            SettleRec(e.box, e.hand or 0, e.spot, kind, e.amount, e.id, index, -1, late=True)
        )
        if self.judged:
            self.judge()

    def void(self, e: RoundEvent, index: int) -> None:
        """The round is declared void (misdeal): every stake returned, settle 0."""
        if self.void_event is None:
            self.void_event = e.id
        if self.steps is not None:
            self.step(e, f"round void: {e.word}")

    def close_event_step(self, e: RoundEvent, index: int) -> None:
        """``round_close``: the step only; the shoe closes the round."""
        if self.steps is not None:
            self.step(e, f"round {e.round} closes")

    def finish(self, status: str) -> None:
        """The round is over (``closed``, or ``incomplete``): the dealer's end, then judgement."""
        self.status = "void" if self.voided and status == "closed" else status
        if self.skipped:
            self.phase = Phase.CLOSED
            return
        if not self.boxes_made:
            self.make_boxes()
        if self.pending_dealer is not None:
            resolve_pending(self, as_hole_card=False)
        self.finish_dealer()
        self.judge()
        self.phase = Phase.CLOSED

    def judge(self) -> None:
        """Judge the round's wagers (:func:`audit.engine.judge.judge_round`), replacing the
        findings of an earlier judgement (a late settlement judges it again, v1.2)."""
        sink = self.sink
        old = self.judge_findings
        if old:
            gone = {id(f) for f in old}
            sink.items[:] = [f for f in sink.items if id(f) not in gone]
        wagers, breaches = judge_round(self)
        self.judge_findings = [sink.add(b, self.number) for b in breaches] if breaches else None
        self.wagers = wagers
        self.judged = True

    # ================================================================== composition

    def snapshot_round(self, ranks: list[int], unseen: int) -> None:
        """The shoe's cards drawn by rank before the round's first card (stored outcomes)."""
        if self.ranks_before_round is None:
            self.ranks_before_round = list(ranks)
            self.unseen_before_round = unseen

    def snapshot_dealer(self, ranks: list[int], unseen: int) -> None:
        """The cards drawn by rank just before the dealer's second card: what he drew from."""
        self.ranks_before_dealer = list(ranks)
        self.unseen_before_dealer = unseen
