"""A table through a gaming night: shoes, rounds, seats, dealers and the clock.

:class:`CasinoTable` deals shoes under a casino profile (000, 001, 004):
inspection on the first shoe of a gaming day where required, wash, riffle or
machine shuffles (a machine sometimes records the order), a cut by a box, the
cut card at a depth the profile allows, the start burn (for 001 after round
1's bets), rounds until the cut card comes out, dealer changes between rounds.
:class:`HomeTable` plays the home game (002): one round per shoe, a shuffle
before each, the bank passing on before it has dealt ``banker_max_rounds``.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

from audit.findings import Code
from audit.profiles.model import Profile
from audit.simulate.base import BoxPlan, Directive, Fired, RoundBase, RoundResult, TableStyle, Wager
from audit.simulate.bias import NO_BIAS, Bias, strip_tens
from audit.simulate.casino import CasinoRound, start_burn_fields
from audit.simulate.dress import Dresser
from audit.simulate.games import SideBet, plays_beyond_italian, rig_cards, rig_for_line
from audit.simulate.inject import (
    GAMES_PLAY_CLASSES,
    GAMES_SETTLE_CLASSES,
    PLAY_CLASSES,
    SETTLE_CLASSES,
    InjectedError,
    apply_settlement_error,
    choose_error,
)
from audit.simulate.shoe import Shoe, ShoeExhausted, new_shoe
from audit.simulate.ventuno import VentunoRound
from audit.simulate.writer import Compact, Draft, TableClock, gaming_day

if TYPE_CHECKING:
    from audit.simulate.books import StreamRecord
    from audit.simulate.books_inject import BooksInjected

__all__ = ["CasinoTable", "HomeTable", "ShoeOutput", "TableSession"]

RICH_PLAY: dict[str, Any] = {"writes_spots": True, "p_double_for_less": 0.3, "p_exposed": 0.02}
"""How a rich casino table plays differently (:class:`TableStyle`): it lists the
``spots`` of every double and split, doubles for less more often (with bets
behind too) and sees more exposed cards, so that every optional field shows up."""
P_VOID = 0.02
"""Chance a round at a rich table is declared void (a misdeal) after the initial deal."""

DAY_START = dt.time(6, 0)
SESSION = dt.timedelta(hours=8)
CURRENCY = "EUR"


@dataclass
class ShoeOutput:
    """One shoe as written: its events in ``seq`` order and the errors injected into it."""

    table: str
    shoe: str
    profile: str
    day: dt.date
    events: list[dict[str, Any]]
    injected: list[InjectedError]
    features: Counter[str] = field(default_factory=Counter)
    side: list[StreamRecord] = field(default_factory=list)
    """``simulate --books``, on a table's last shoe: its cage, count and accounting records."""
    books_injected: list[BooksInjected] = field(default_factory=list)
    """``simulate --books``, on a table's last shoe: the accounting errors injected."""


@dataclass
class Seat:
    player: str | None
    base: Decimal


class TableSession:
    """What casino and home tables share: random streams, the clock, shoe ids, injection."""

    def __init__(
        self,
        *,
        table: str,
        index: int,
        profile: Profile,
        seed: int,
        error_rate: float,
        enabled: frozenset[Code],
        start: dt.datetime,
        bias: Bias = NO_BIAS,
        rich_share: float = 0.0,
    ) -> None:
        self.table = table
        self.index = index
        self.bias = bias
        self.bias_rng = random.Random(f"{seed}/{table}/bias")
        self.profile = profile
        self.rules = profile.rules
        self.rng = random.Random(f"{seed}/{table}/play")
        self.err_rng = random.Random(f"{seed}/{table}/errors")
        self.error_rate = error_rate
        self.enabled = enabled
        self.round_classes = enabled & frozenset(
            PLAY_CLASSES + SETTLE_CLASSES + GAMES_PLAY_CLASSES + GAMES_SETTLE_CLASSES
        )
        stagger = dt.timedelta(minutes=index * 4 + self.rng.randint(0, 3))
        self.opening = start - dt.datetime.combine(gaming_day(start), DAY_START, start.tzinfo)
        self.stagger = stagger
        self.session = min(SESSION, dt.timedelta(hours=23, minutes=30) - self.opening)
        self.clock = TableClock(table, f"{table}-{start:%Y%m%d}", start + stagger)
        self.shoe_numbers: Counter[dt.date] = Counter()
        self.last_day: dt.date | None = None
        self.rounds_dealt = 0
        self.features: Counter[str] = Counter()
        self.style = TableStyle()
        # A rich table's choices come from streams of their own, and a plain table
        # draws nothing from them: its log is byte for byte what it was before
        # rich tables existed, whatever the share.
        self.fields_rng = random.Random(f"{seed}/{table}/fields")
        self.rich = rich_share > 0 and self.fields_rng.random() < rich_share
        self.dresser = (
            Dresser(random.Random(f"{seed}/{table}/dress"), random.Random(f"{seed}/{table}/stream"))
            if self.rich
            else None
        )
        # games.md §7's dealing (side bets, cents, reveals) draws from a stream of its own,
        # and only for a profile that sets one of its fields: an Italian table never does
        self.games_rng = random.Random(f"{seed}/{table}/games")
        self.games = plays_beyond_italian(self.rules)

    # ------------------------------------------------------------------ time and ids

    def _open_time(self, day: dt.date) -> dt.datetime:
        tz = self.clock.now.tzinfo
        return dt.datetime.combine(day, DAY_START, tz) + self.opening

    def next_shoe(self, delay: int) -> tuple[str, dt.date, bool]:
        """The id, gaming day and first-of-the-day flag of a shoe opened ``delay`` s from now.

        Past the end of the evening's session the table closes and opens again
        the next evening.
        """
        ts = self.clock.now + dt.timedelta(seconds=delay)
        day = gaming_day(ts)
        if ts > self._open_time(day) + self.session:
            reopen = self._open_time(day + dt.timedelta(days=1)) + self.stagger
            self.clock.now = reopen - dt.timedelta(seconds=delay)
            ts = reopen
            day = gaming_day(ts)
        self.shoe_numbers[day] += 1
        first = day != self.last_day
        self.last_day = day
        return f"{self.table}-{day:%Y%m%d}-{self.shoe_numbers[day]:02d}", day, first

    def shoe_class_chosen(self, code: Code) -> bool:
        """Whether a shoe-level class takes this error slot (always when it is the only one)."""
        if code not in self.enabled:
            return False
        return not self.round_classes or self.err_rng.random() < 0.2

    # ------------------------------------------------------------------ a round, maybe an error

    def play_round(
        self, make: Callable[[Directive], RoundBase], shoe: Shoe, has_error: bool
    ) -> RoundResult:
        if not has_error or not self.round_classes:
            return make(Directive()).play()
        rng_state = self.rng.getstate()
        games_state = self.games_rng.getstate()
        shoe_state = shoe.snapshot()
        clean = make(Directive()).play()
        pick = choose_error(clean, self.rules, self.err_rng, self.round_classes)
        if pick is None:
            return clean
        code, where = pick
        if isinstance(where, Wager):
            note = apply_settlement_error(code, where, clean, self.rules)
            clean.fired = Fired(code, where.box, where.hand, note)
            return clean
        self.rng.setstate(rng_state)
        self.games_rng.setstate(games_state)  # the replay draws the games' choices again
        shoe.restore(shoe_state)
        result = make(Directive(code, where)).play()
        if result.fired is None or result.fired.code is not code:
            raise AssertionError(f"{self.table}: {code} did not fire at opportunity {where}")
        return result

    def stamp(self, out: ShoeOutput, draft: Draft, round_no: int | None = None) -> None:
        event = self.clock.stamp(draft, out.shoe, round_no)
        if self.dresser is not None:
            event = self.dresser.dress(event)
        out.events.append(event)

    def record(self, out: ShoeOutput, result: RoundResult, round_no: int) -> None:
        for d in result.drafts:
            self.stamp(out, d, round_no)
        out.features.update(result.features)
        self.features.update(result.features)
        self.rounds_dealt += 1
        if result.fired is not None:
            f = result.fired
            out.injected.append(
                InjectedError(f.code, self.table, out.shoe, round_no, f.box, f.hand, f.note)
            )

    def next_evening(self, start: dt.datetime) -> None:
        """The table opens again on a later gaming day's evening (``simulate --days``).

        Its ``seq`` and event ids run on, so that the days are one stream; its
        ``rounds`` count starts again. A table whose last shoe ran past this
        evening's opening goes on from where it is.
        """
        opens = start + self.stagger
        if self.clock.now < opens:
            self.clock.now = opens
        self.rounds_dealt = 0

    def run(self, shoes: int, rounds: int | None) -> Iterator[ShoeOutput]:
        """``shoes`` shoes dealt to their end, or with ``rounds`` exactly that many rounds."""
        n = 0
        while (rounds is None and n < shoes) or (rounds is not None and self.rounds_dealt < rounds):
            n += 1
            yield self.play_shoe(rounds)

    def play_shoe(self, rounds: int | None) -> ShoeOutput:
        raise NotImplementedError


class CasinoTable(TableSession):
    """A casino table: a croupier, seven boxes, bets behind, shoes dealt to the cut card."""

    LIMITS = ((10, 1000), (5, 500), (25, 2500), (20, 2000))
    SIDE_LIMITS: ClassVar[dict[str, Decimal]] = {"min_bet": Decimal(1), "max_bet": Decimal(100)}
    """Every side bet's limits per spot (``shoe_open.side_limits``)."""
    P_SIDE_BET = 1 / 3
    """The share of staked spots that also play a side bet (games.md §7)."""
    P_CENTS = 0.12
    """The share of box holders' stakes with cents (10.01) or an odd amount (7)."""

    def __init__(self, paytables: Any = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.paytables = (
            {kind: paytables.get(pid) for kind, pid in sorted(self.rules.side_bets.items())}
            if self.rules.side_bets
            else {}
        )
        rng = self.rng
        rules = self.rules
        lo, hi = self.LIMITS[rng.randrange(len(self.LIMITS))]
        self.min_bet, self.max_bet = Decimal(lo), Decimal(hi)
        records_actions = rng.random() < 0.6
        writes_cut_card_out = rng.random() < 0.85
        burn_cards_seen = not rules.bets_close_before_start_burn and rng.random() < 0.7
        self.style = TableStyle(
            records_actions=records_actions or self.rich,
            writes_cut_card_out=writes_cut_card_out,
            burn_cards_seen=burn_cards_seen,
            **(RICH_PLAY if self.rich else {}),
        )
        self.dealers = [f"D{rng.randint(100, 999)}" for _ in range(4)]
        self.dealer_i = 0
        self.shift_end = self.clock.now + dt.timedelta(minutes=rng.randint(20, 40))
        self.occupancy = rng.uniform(0.4, 0.9)
        self.seats: dict[int, Seat | None] = {
            b: self.new_seat() if rng.random() < self.occupancy else None for b in range(1, 8)
        }

    def new_seat(self) -> Seat:
        rng = self.rng
        player = None if rng.random() < 0.15 else f"P-{rng.randint(1000, 9999)}"
        return Seat(player, self.min_bet * rng.choice((1, 1, 2, 2, 3, 5, 10)))

    @property
    def dealer(self) -> str:
        return self.dealers[self.dealer_i]

    def maybe_dealer_change(self, out: ShoeOutput) -> None:
        if self.clock.now < self.shift_end:
            return
        self.dealer_i = (self.dealer_i + 1) % len(self.dealers)
        self.stamp(
            out, Draft("dealer_change", {"dealer": self.dealer}, self.rng.randint(30, 90), False)
        )
        out.features["dealer_changes"] += 1
        self.features["dealer_changes"] += 1
        self.shift_end = self.clock.now + dt.timedelta(minutes=self.rng.randint(20, 40))

    def plan_round(self, max_boxes: int = 7) -> list[BoxPlan]:
        rng = self.rng
        rules = self.rules
        for b, seat in self.seats.items():
            if seat is not None and rng.random() < 0.03:
                self.seats[b] = None
            elif seat is None and rng.random() < 0.05 * self.occupancy:
                self.seats[b] = self.new_seat()
        active = [b for b, s in self.seats.items() if s is not None and rng.random() < 0.93]
        if not active:
            b = rng.randint(1, 7)
            if self.seats[b] is None:
                self.seats[b] = self.new_seat()
            active = [b]
        active = sorted(active)[:max_boxes]
        spots_cap = rules.max_spots_per_box if rules.max_spots_per_box is not None else 4
        plans = []
        for b in active:
            seat = self.seats[b]
            assert seat is not None
            stake = min(self.max_bet, seat.base * rng.choice((1, 1, 1, 1, 2)))
            stakes: dict[int, Decimal] = {0: stake}
            players: dict[int, str | None] = {0: seat.player}
            behind = rng.choices((0, 1, 2, 3), weights=(62, 24, 10, 4))[0]
            for s in range(1, min(behind, spots_cap - 1) + 1):
                amount = self.min_bet * rng.choice((1, 1, 2, 3, 5))
                if sum(stakes.values()) + amount > self.max_bet:
                    break
                stakes[s] = amount
                players[s] = None if rng.random() < 0.3 else f"P-{rng.randint(1000, 9999)}"
            bets = [(s, stakes[s], players[s]) for s in sorted(stakes)]
            if rng.random() < 0.04:
                room = self.max_bet - sum(v for s, v in stakes.items() if s != 0)
                new = min(room, stake + self.min_bet * rng.choice((-1, 1, 2)))
                if new >= self.min_bet and new != stake:
                    stakes[0] = new
                    bets.append((0, new, players[0]))
            if len(stakes) > 1 and rng.random() < 0.02:
                last = max(stakes)
                bets.append((last, Decimal(0), players[last]))
                del stakes[last]
            plans.append(BoxPlan(b, bets, stakes, {s: players[s] for s in stakes}))
        return plans

    def play_shoe(self, rounds: int | None) -> ShoeOutput:
        rng = self.rng
        rules = self.rules
        decks = rules.decks or 6
        total = 52 * decks
        delay = rng.randint(60, 180)
        shoe_id, day, first_of_day = self.next_shoe(delay)
        out = ShoeOutput(self.table, shoe_id, self.profile.id, day, [], [])
        shoe_open = {
            "profile": self.profile.id,
            "decks": decks,
            "dealer": self.dealer,
            "currency": CURRENCY,
            "min_bet": self.min_bet,
            "max_bet": self.max_bet,
        }
        if self.paytables:
            shoe_open["side_limits"] = Compact(
                {k: Compact(self.SIDE_LIMITS) for k in self.paytables}
            )
        self.stamp(out, Draft("shoe_open", shoe_open, delay, False))
        out.features["shoes"] += 1
        self.features["shoes"] += 1
        cards = new_shoe(rng, decks)
        rig = self.rig_line(self.features["shoes"] - 1)
        if rig is not None:
            _kind, evaluator, line = rig
            cards = rig_cards(cards, self.rules.burn_count, rig_for_line(evaluator, line))
        if self.bias.stripped_tens:
            cards = strip_tens(cards, self.bias.stripped_tens)
        inspected = rules.inspection_required and first_of_day
        if inspected:
            self.stamp(
                out, Draft("inspection", {"decks": decks, "ok": True}, rng.randint(120, 300), False)
            )
            self.stamp(out, Draft("shuffle", {"method": "wash"}, rng.randint(60, 150), False))
            out.features["inspections"] += 1
        record_order = False
        if rig is not None:  # a rigged shoe: its order recorded, so the log stays true
            record_order = True
            self.stamp(
                out, Draft("shuffle", {"method": "machine", "order": list(cards)}, 120, False)
            )
            out.features["shuffle_orders"] += 1
            out.features["rigged_shoes"] += 1
        elif not inspected and rng.random() < 0.3:  # the pit's shuffling machine
            record_order = rng.random() < 0.5
            fields: dict[str, Any] = {"method": "machine"}
            if record_order:
                fields["order"] = list(cards)
                out.features["shuffle_orders"] += 1
            self.stamp(out, Draft("shuffle", fields, rng.randint(90, 200), False))
        else:
            if not inspected and rng.random() < 0.3:
                self.stamp(out, Draft("shuffle", {"method": "wash"}, rng.randint(40, 90), False))
            self.stamp(out, Draft("shuffle", {"method": "riffle"}, rng.randint(50, 120), False))
            if rng.random() < 0.4:
                self.stamp(out, Draft("shuffle", {"method": "strip"}, rng.randint(15, 40), False))
                self.stamp(out, Draft("shuffle", {"method": "riffle"}, rng.randint(30, 60), False))
        cutters = [b for b, s in self.seats.items() if s is not None] or [rng.randint(1, 7)]
        cut: dict[str, Any] = {"by": "box", "box": rng.choice(cutters)}
        if rng.random() < 0.5:
            cut["position"] = rng.randint(52, total - 52)
        self.stamp(out, Draft("cut", cut, rng.randint(10, 30), False))
        cut_card = None
        if rules.cut_card_used:
            lo = rules.cut_card_min_behind or 52
            hi = min(rules.cut_card_max_behind or lo, lo + 60)
            cut_card = total - rng.randint(lo, hi)
            self.stamp(out, Draft("cut_card", {"position": cut_card}, rng.randint(5, 15), False))
        shoe = Shoe(cards, decks, cut_card=cut_card, has_pos=True, order_recorded=record_order)
        # round 1's error slot is decided before the start burn, which it may take
        r1_error = self.err_rng.random() < self.error_rate and rig is None
        burn = rules.burn_count
        if r1_error and burn > 0 and self.shoe_class_chosen(Code.SHOE_BURN_COUNT):
            burn -= 1
            r1_error = False
            out.injected.append(
                InjectedError(
                    Code.SHOE_BURN_COUNT,
                    self.table,
                    shoe_id,
                    None,
                    None,
                    None,
                    f"{burn} cards burned at shoe start, not {rules.burn_count}",
                )
            )
        if burn > 0 and not rules.bets_close_before_start_burn:
            fields = start_burn_fields(shoe, burn, seen=self.style.burn_cards_seen)
            self.stamp(out, Draft("burn", fields, rng.randint(10, 25), False))
        round_no = 0
        reason = "cut_card"
        while not shoe.cut_out:
            if rounds is not None and self.rounds_dealt >= rounds:
                reason = "end_of_session"
                break
            round_no += 1
            if round_no > 1:
                self.maybe_dealer_change(out)
            plans = self.plan_round()
            has_error = r1_error if round_no == 1 else self.err_rng.random() < self.error_rate
            start_burn = burn if round_no == 1 and rules.bets_close_before_start_burn else None
            void = self.rich and not has_error and self.fields_rng.random() < P_VOID
            side: list[SideBet] = []
            rigged = rig is not None and round_no == 1
            if rigged:
                assert rig is not None
                plans = plans[:1]
                stake = min(self.SIDE_LIMITS["max_bet"], Decimal(5))
                side = [SideBet(plans[0].box, 0, rig[0], self.paytables[rig[0]], stake)]
                void = False
            elif self.games:
                side = self.dress_plans(plans)
            result = self.play_round(
                self.round_maker(shoe, round_no, plans, start_burn, void, side, rigged),
                shoe,
                has_error,
            )
            self.record(out, result, round_no)
        if (
            reason == "cut_card"
            and rules.cut_card_last_round
            and shoe.remaining >= 40
            and (rounds is None or self.rounds_dealt < rounds)
            and self.err_rng.random() < self.error_rate
            and self.shoe_class_chosen(Code.SHOE_ROUND_AFTER_CUT_CARD)
        ):
            self.round_after_cut(out, shoe, round_no + 1)
        close = {"remaining": shoe.remaining, "reason": reason}
        self.stamp(out, Draft("shoe_close", close, rng.randint(10, 40), False))
        return out

    def round_maker(
        self,
        shoe: Shoe,
        round_no: int,
        plans: list[BoxPlan],
        start_burn: int | None,
        void: bool = False,
        side_bets: list[SideBet] | None = None,
        rigged: bool = False,
    ) -> Callable[[Directive], RoundBase]:
        def make(directive: Directive) -> RoundBase:
            return CasinoRound(
                rules=self.rules,
                shoe=shoe,
                rng=self.rng,
                err_rng=self.err_rng,
                directive=directive,
                style=self.style,
                boxes=plans,
                min_bet=self.min_bet,
                max_bet=self.max_bet,
                start_burn=start_burn,
                void=void,
                bias=self.bias,
                bias_rng=self.bias_rng,
                side_bets=[
                    SideBet(b.box, b.spot, b.kind, b.table, b.stake) for b in side_bets or []
                ],
                games_rng=self.games_rng,
                rigged=rigged,
                games=self.games,
                side_max=self.SIDE_LIMITS["max_bet"],
            )

        return make

    def rig_line(self, shoe_index: int) -> tuple[str, str, str] | None:
        """The pay-table line this shoe's first round is rigged to reach (games.md §7), in
        turn over every line of every side bet offered: table i's n-th shoe takes line
        ``i + 8n``, so 8 tables x 3 shoes reach up to 24 lines."""
        lines = [
            (kind, table.evaluator, line)
            for kind, table in self.paytables.items()
            for line in table.lines
        ]
        if not lines:
            return None
        return lines[(self.index + 8 * shoe_index) % len(lines)]

    def dress_plans(self, plans: list[BoxPlan]) -> list[SideBet]:
        """games.md §7 on a profile beyond the Italian ones: stakes with cents on a share of
        boxes, and side bets, within their limits, on a share of the staked spots."""
        g = self.games_rng
        side: list[SideBet] = []
        for plan in plans:
            if g.random() < self.P_CENTS and sum(1 for b in plan.bets if b[0] == 0) == 1:
                old = plan.stakes[0]
                new = (
                    Decimal(7) if self.min_bet <= 7 and g.random() < 0.3 else old + Decimal("0.01")
                )
                if sum(plan.stakes.values()) - old + new <= self.max_bet:
                    plan.stakes[0] = new
                    plan.bets = [(s, new if s == 0 else a, p) for s, a, p in plan.bets]
            for spot in sorted(plan.stakes):
                if not self.paytables or g.random() >= self.P_SIDE_BET:
                    continue
                kinds = sorted(self.paytables)
                for kind in g.sample(kinds, 1 if g.random() < 0.7 else len(kinds)):
                    stake = Decimal(g.choice((1, 5, 5, 10, 25)))
                    side.append(SideBet(plan.box, spot, kind, self.paytables[kind], stake))
        return side

    def round_after_cut(self, out: ShoeOutput, shoe: Shoe, round_no: int) -> None:
        """The injected error: one more round once the cut card has come out."""
        rng_state = self.rng.getstate()
        games_state = self.games_rng.getstate()
        shoe_state = shoe.snapshot()
        plans = self.plan_round(max_boxes=3)
        try:
            result = self.round_maker(shoe, round_no, plans, None)(Directive()).play()
        except ShoeExhausted:
            self.rng.setstate(rng_state)
            self.games_rng.setstate(games_state)
            shoe.restore(shoe_state)
            return
        result.fired = Fired(
            Code.SHOE_ROUND_AFTER_CUT_CARD,
            None,
            None,
            f"round {round_no} dealt after the cut card came out in round {round_no - 1}",
        )
        self.record(out, result, round_no)


class HomeTable(TableSession):
    """The family game (002): a rotating banker, a reshuffled deck for every round."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        rng = self.rng
        self.decks = 1 if rng.random() < 0.75 else 2
        self.min_bet, self.max_bet = Decimal(1), Decimal(10)
        records_actions = rng.random() < 0.5
        self.style = TableStyle(records_actions=records_actions or self.rich)
        size = rng.randint(3, 7)
        self.family = [f"P-{rng.randint(1000, 9999)}" for _ in range(size)]
        self.bases = {p: Decimal(rng.choice((1, 2, 2, 3, 5))) for p in self.family}
        self.banker_i = rng.randrange(size)
        self.stint = 0
        self.limit = self.rules.banker_max_rounds
        self.stint_target = self.new_target()
        self.rotation_error = False

    def new_target(self) -> int:
        if self.limit is None:
            return 10**9
        return self.rng.randint(min(3, self.limit), self.limit)

    @property
    def banker(self) -> str:
        return self.family[self.banker_i]

    def plan_round(self) -> list[BoxPlan]:
        rng = self.rng
        n = len(self.family)
        players = [self.family[(self.banker_i + k) % n] for k in range(1, n)]
        plans = []
        for box, player in enumerate(players, start=1):
            stake = min(self.max_bet, self.bases[player] * rng.choice((1, 1, 1, 2)))
            plans.append(BoxPlan(box, [(0, stake, player)], {0: stake}, {0: player}))
        return plans

    def play_shoe(self, rounds: int | None) -> ShoeOutput:
        rng = self.rng
        delay = rng.randint(20, 60)
        shoe_id, day, _ = self.next_shoe(delay)
        out = ShoeOutput(self.table, shoe_id, self.profile.id, day, [], [])
        open_fields: dict[str, Any] = {
            "profile": self.profile.id,
            "decks": self.decks,
            "dealer": self.banker,
            "currency": CURRENCY,
            "min_bet": self.min_bet,
            "max_bet": self.max_bet,
        }
        self.stamp(out, Draft("shoe_open", open_fields, delay, False))
        out.features["shoes"] += 1
        self.features["shoes"] += 1
        # the bank passes to the player on the banker's left after its stint
        has_error = self.err_rng.random() < self.error_rate
        if self.stint >= self.stint_target:
            if (
                has_error
                and self.limit is not None
                and self.stint < self.limit
                and self.shoe_class_chosen(Code.DEALER_BANKER_ROTATION)
            ):
                self.stint_target = self.limit + 1
                self.rotation_error = True
                has_error = False
            else:
                self.banker_i = (self.banker_i + 1) % len(self.family)
                self.stint = 0
                self.stint_target = self.new_target()
                self.stamp(
                    out, Draft("dealer_change", {"dealer": self.banker}, rng.randint(5, 20), False)
                )
                out.features["dealer_changes"] += 1
                self.features["dealer_changes"] += 1
        overstay = self.rotation_error and self.limit is not None and self.stint == self.limit
        if overstay:
            has_error = False
        self.stamp(out, Draft("shuffle", {"method": "riffle"}, rng.randint(20, 60), False))
        shoe = Shoe(new_shoe(rng, self.decks), self.decks, cut_card=None, has_pos=False)
        plans = self.plan_round()

        def make(directive: Directive) -> RoundBase:
            return VentunoRound(
                rules=self.rules,
                shoe=shoe,
                rng=self.rng,
                err_rng=self.err_rng,
                directive=directive,
                style=self.style,
                boxes=plans,
                min_bet=self.min_bet,
                max_bet=self.max_bet,
            )

        result = self.play_round(make, shoe, has_error)
        if overstay:
            assert result.fired is None
            result.fired = Fired(
                Code.DEALER_BANKER_ROTATION,
                None,
                None,
                f"banker {self.banker} deals a {self.stint + 1}th round in a row "
                f"(at most {self.limit})",
            )
            self.rotation_error = False
        self.record(out, result, 1)
        self.stint += 1
        close = {"remaining": shoe.remaining, "reason": "reshuffle"}
        self.stamp(out, Draft("shoe_close", close, rng.randint(5, 15), False))
        return out
