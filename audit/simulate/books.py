"""A table's books as it deals (``simulate --books``, accounting.md "The simulator").

:class:`TableBooks` takes a casino table's shoes, in order, and writes into
the table's own stream what its tray and drop box saw: an opener (first the
float, :data:`~audit.simulate.tray.FLOAT_COUNT` of each house denomination,
then the previous closer exactly), a ``buy_in`` before a player's first stake
and whenever their chips run short (cash, one in ten by marker), a fill or a
credit when a denomination runs low or high (the table's copy in its stream,
the cage's in stream ``CAGE``), a closer and the next opener at each shift
change and at each evening's close, between rounds. Every settlement moves
the tray's chips by denomination (:class:`~audit.simulate.tray.Tray`), so
closer − opener = fills − credits + R − B holds for every session exactly.
After the gaming day, one ``drop_count`` per table and shift (stream
``COUNT``) equals the period's buy-ins by method.

A *rich* table (``--rich-share``) also writes the books' optional fields: an
inventory's ``slip``, a slip's ``requested_by``, ``stream`` naming the table
itself, now and then a buy-in by another instrument (``other``, a voucher's
``ref``) and the count's ``other``, and a small adjustment made in error with its
reversal (``reverses``); an adjustment names what it rests on (``ref``). Its
choices come from a random stream of their own, so a plain table's books are
what they were.

With an error rate, a period carries one accounting error
(:mod:`audit.simulate.books_inject` lists them), each recorded as a
:class:`BooksInjected` with the impact its finding must show. The books draw
from random streams of their own: the hands are dealt exactly as without them.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal
from typing import Any

from audit.books.house import House
from audit.findings import money_str
from audit.simulate.books_inject import (
    SLIP_CODES,
    BooksInjected,
    BooksPlan,
    chips_worth,
    choose_code,
)
from audit.simulate.table import CasinoTable, ShoeOutput
from audit.simulate.tray import Tray, chip_list, chips_value
from audit.simulate.writer import Compact

__all__ = ["BooksConfig", "StreamRecord", "TableBooks", "period_of"]

ZERO = Decimal(0)
IDLE = dt.timedelta(hours=1)
"""Rounds further apart than this are two openings of the table: a closer, then an opener."""
P_MARKER = 0.1
P_TIP = 0.05
P_OTHER = 0.05
"""At a rich table, the chance a cash buy-in is by another instrument (a voucher)."""
P_STREAM = 0.1
"""At a rich table, the chance a book event names its own table as its ``stream``."""
P_REVERSED = 0.25
"""At a rich table, the chance a period's count is followed by a small adjustment made
in error and its reversal (``reverses``): together they change nothing."""
REVERSED_AMOUNT = Decimal(20)
COUNT_AFTER = dt.timedelta(hours=4)
"""The count room counts a gaming day's boxes this long after the next day starts."""


@dataclass(frozen=True)
class BooksConfig:
    """What ``--books`` asks for: the house, the error rate and codes, tips, the days."""

    house: House
    last_day: dt.date
    """The last gaming day simulated (a count left out is judged only before it)."""
    error_rate: float = 0.0
    codes: frozenset[str] = frozenset()
    tips: bool = False
    prefix: str = ""

    def stream(self, name: str) -> str:
        """A stream not a table's (``CAGE``, ``COUNT``, ``ACCOUNTING``), with ``--prefix``."""
        return f"{self.prefix}{name}"


@dataclass(frozen=True)
class StreamRecord:
    """An event of a stream that is not a table's, before its ``seq``: written by
    :func:`~audit.simulate.session.simulate` once every table is dealt."""

    stream: str
    ts: dt.datetime
    table_index: int
    order: int
    day: dt.date
    """The folder it is written to: its period's gaming day."""
    event: dict[str, Any]


def period_of(ts: dt.datetime, house: House) -> tuple[dt.date, str]:
    """The gaming day and shift a table-local time falls in, by the house file."""
    start = dt.timedelta(hours=house.day_start.hour, minutes=house.day_start.minute)
    return (ts - start).date(), house.shift_at(ts)


def _ts(event: dict[str, Any]) -> dt.datetime:
    return dt.datetime.fromisoformat(event["ts"])


@dataclass
class _Period:
    day: dt.date
    shift: str
    cash: Decimal = ZERO
    markers: Decimal = ZERO
    other: Decimal = ZERO
    tips: Decimal = ZERO
    plan: BooksPlan | None = None


@dataclass
class _Session:
    period: _Period
    opened: dt.datetime
    rounds: int = 0


@dataclass
class _Round:
    """A round's bets as the log has them, read before it is dealt for the buy-ins."""

    players: dict[tuple[int, int], str | None] = field(default_factory=dict)
    stakes: dict[tuple[int, int], Decimal] = field(default_factory=dict)
    insurance: dict[tuple[int, int], Decimal] = field(default_factory=dict)
    splits: dict[int, int] = field(default_factory=dict)


def _read_round(events: list[dict[str, Any]], start: int) -> _Round:
    r = _Round()
    for e in events[start:]:
        t = e["type"]
        if t == "bet":
            # a stake changed or withdrawn was still put down: the largest counts
            key = (e["box"], e["spot"])
            r.stakes[key] = max(r.stakes.get(key, ZERO), e["amount"])
            if e.get("player") is not None or key not in r.players:
                r.players[key] = e.get("player")
        elif t == "insurance":
            r.insurance[(e["box"], e["spot"])] = e["amount"]
        elif t == "action" and e.get("action") == "split":
            r.splits[e["box"]] = r.splits.get(e["box"], 0) + 1
        elif t == "round_close":
            break
    return r


class TableBooks:
    """One casino table's books through the run: feed it the table's shoes in order."""

    def __init__(self, table: CasinoTable, seed: int, config: BooksConfig) -> None:
        self.table = table.table
        self.index = table.index
        self.id_prefix = table.clock.id_prefix
        self.min_bet = table.min_bet
        self.config = config
        self.house = config.house
        self.rng = random.Random(f"{seed}/{self.table}/books")
        self.err_rng = random.Random(f"{seed}/{self.table}/books-errors")
        self.rich = table.rich
        self.rich_rng = random.Random(f"{seed}/{self.table}/books-rich")
        self.inventory_slips = 0
        self.vouchers = 0
        self.tray = Tray.float_of(self.house.denominations)
        self.seq = 0
        self.session: _Session | None = None
        self.periods: dict[tuple[dt.date, str], _Period] = {}
        self.last_closer: dict[Decimal, int] | None = None
        self.closer_omitted = False
        self.stacks: dict[str, Decimal] = {}
        self.dealer = ""
        self.supervisors = [f"S-{self.rng.randint(100, 999)}" for _ in range(3)]
        self.supervisor = self.supervisors[0]
        self.cashier = f"C-{self.rng.randint(100, 999)}"
        self.guard = f"G-{self.rng.randint(100, 999)}"
        self.serials: dict[tuple[str, int], int] = {}
        self.last_cage_ts: dt.datetime | None = None
        self.records: list[StreamRecord] = []
        self.injected: list[BooksInjected] = []
        self.markers = 0
        self.held: ShoeOutput | None = None
        self.last_round_close: dt.datetime | None = None

    # ------------------------------------------------------------------ the stream

    def books(self, shoes: Iterable[ShoeOutput]) -> Iterator[ShoeOutput]:
        """The shoes with the table's book events in its stream, renumbered; the last one
        also carries the table's cage, count and accounting records."""
        for shoe in shoes:
            out = self._shoe(shoe)
            if self.held is not None:
                yield self._renumbered(self.held)
            self.held = out
        if self.held is None:
            return
        if self.session is not None:
            self._close(self.held.events, _ts(self.held.events[-1]))
        self._counts()
        self.held.side = list(self.records)
        self.held.books_injected = list(self.injected)
        yield self._renumbered(self.held)
        self.held = None

    def _renumbered(self, shoe: ShoeOutput) -> ShoeOutput:
        for e in shoe.events:
            self.seq += 1
            e["id"] = f"{self.id_prefix}-{self.seq}"
            e["seq"] = self.seq
        return shoe

    def _event(self, ts: dt.datetime, type_: str, **fields: Any) -> dict[str, Any]:
        """A table-stream event; its ``id`` and ``seq`` come when its shoe is written."""
        event: dict[str, Any] = {
            "id": None,
            "seq": None,
            "ts": ts.isoformat(),
            "table": self.table,
            "type": type_,
        }
        event.update(fields)
        if self.rich and self.rich_rng.random() < P_STREAM:
            event["stream"] = self.table
        return self._versioned(event)

    def _versioned(self, event: dict[str, Any]) -> dict[str, Any]:
        """At a rich table, the event with ``v`` leading, as its shoe's events have it."""
        return {"v": 1, **event} if self.rich else event

    def _shoe(self, shoe: ShoeOutput) -> ShoeOutput:
        events: list[dict[str, Any]] = []
        first_round = True
        keys: dict[tuple[int, int], str] = {}
        for i, e in enumerate(shoe.events):
            t = e["type"]
            if t in ("shoe_open", "dealer_change"):
                self.dealer = e["dealer"]
            elif t == "round_open":
                ts = _ts(e)
                self._between_rounds(shoe, events, ts, first_round)
                first_round = False
                keys = self._buy_ins(events, ts, _read_round(shoe.events, i))
            elif t == "settle":
                amount: Decimal = e["amount"]
                self.tray.settle(amount)
                key = keys.get((e["box"], e["spot"]))
                if key is not None:
                    self.stacks[key] = self.stacks.get(key, ZERO) + amount
            elif t == "round_close":
                assert self.session is not None
                self.session.rounds += 1
                self.last_round_close = _ts(e)
                if self.config.tips and self.rng.random() < P_TIP:
                    self.session.period.tips += self.min_bet
            events.append(e)
        shoe.events = events
        return shoe

    # ------------------------------------------------------------------ sessions

    def _between_rounds(
        self, shoe: ShoeOutput, events: list[dict[str, Any]], ts: dt.datetime, first: bool
    ) -> None:
        day, shift = period_of(ts, self.house)
        s = self.session
        if s is not None:
            idle = (
                first and self.last_round_close is not None and ts - self.last_round_close >= IDLE
            )
            if (s.period.day, s.period.shift) != (day, shift) or idle:
                if first and self.held is not None:
                    self._close(self.held.events, _ts(self.held.events[-1]))
                elif first and events:
                    self._close(events, _ts(events[-1]))
                else:
                    self._close(events, ts)
                s = None
        if s is None:
            self._open(events, ts, day, shift)
        self._step(events, ts)

    def _open(
        self, events: list[dict[str, Any]], ts: dt.datetime, day: dt.date, shift: str
    ) -> None:
        period = self.periods.get((day, shift))
        if period is None:
            period = _Period(day, shift)
            self.periods[(day, shift)] = period
            compared = self.last_closer is not None and not self.closer_omitted
            period.plan = choose_code(
                self.err_rng,
                self.config,
                compared=compared,
                before_last_day=day < self.config.last_day,
            )
        self.supervisor = self.rng.choice(self.supervisors)
        plan = period.plan
        if (
            plan is not None
            and plan.code
            in (
                "ACCT_OPENER_MISMATCH",
                "ACCT_INVENTORY_DISCREPANCY",
                "ACCT_INVENTORY_REPORTABLE",
            )
            and not plan.done
        ):
            self._locked_tray(plan, period)
        self.session = _Session(period, ts)
        self.closer_omitted = False
        events.append(self._inventory(ts, "opener"))

    def _close(self, events: list[dict[str, Any]], ts: dt.datetime) -> None:
        s = self.session
        assert s is not None
        plan = s.period.plan
        if plan is not None and not plan.done and plan.code in (*SLIP_CODES, "ACCT_WIN_MISMATCH"):
            self._inject_mid_session(events, ts, plan, s)
        self.session = None
        self.last_closer = self.tray.snapshot()
        if plan is not None and plan.code == "ACCT_NO_INVENTORY" and not plan.done:
            plan.done = True
            self.closer_omitted = True
            self._record(plan, s.period, None, "the closer left out; the next opener follows")
            return
        events.append(self._inventory(ts, "closer"))

    def _inventory(self, ts: dt.datetime, kind: str) -> dict[str, Any]:
        event = self._event(
            ts,
            "inventory",
            kind=kind,
            chips=chip_list(self.tray.snapshot()),
            signers=self._inventory_signers(),
        )
        if self.rich:
            self.inventory_slips += 1
            event["slip"] = self.inventory_slips
        return event

    def _inventory_signers(self) -> list[Compact]:
        out = []
        for role in self.house.inventory_roles:
            who = {"dealer": self.dealer, "supervisor": self.supervisor}.get(role)
            out.append(Compact(id=who or f"{role[:2].upper()}-{self.index + 1:02d}", role=role))
        return out

    def _table_signers(self) -> list[Compact]:
        out = [
            Compact(id=self.dealer, role="dealer"),
            Compact(id=self.supervisor, role="supervisor"),
        ]
        for k in range(2, self.house.slip_signers):
            out.append(Compact(id=f"R-{self.index + 1:02d}{k}", role="runner"))
        return out

    def _cage_signers(self) -> list[Compact]:
        out = [Compact(id=self.cashier, role="cashier"), Compact(id=self.guard, role="security")]
        for k in range(2, self.house.slip_signers):
            out.append(Compact(id=f"R-C{k}", role="runner"))
        return out

    # ------------------------------------------------------------------ between rounds

    def _step(self, events: list[dict[str, Any]], ts: dt.datetime) -> None:
        """Before a round: an injection that is due, then fills and credits the tray needs."""
        s = self.session
        assert s is not None
        plan = s.period.plan
        if (
            plan is not None
            and not plan.done
            and plan.code in (*SLIP_CODES, "ACCT_WIN_MISMATCH")
            and s.rounds >= plan.after_rounds
        ):
            self._inject_mid_session(events, ts, plan, s)
        self._restock(events, ts)

    def _restock(self, events: list[dict[str, Any]], ts: dt.datetime) -> None:
        fill = self.tray.fill_due()
        if fill:
            self._slip(events, ts, "fill", fill)
        credit = self.tray.credit_due()
        if credit:
            self._slip(events, ts, "credit", credit)

    def _serial(self, series: str, year: int) -> int:
        n = self.serials.get((series, year), 0) + 1
        self.serials[(series, year)] = n
        return n

    def _cage_ts(self, ts: dt.datetime) -> dt.datetime:
        """The cage issues a slip a few minutes before the table records it: never before
        the session's opener, always after the cage's previous record of this table."""
        s = self.session
        assert s is not None
        at = max(ts - dt.timedelta(seconds=self.rng.randint(60, 240)), s.opened)
        if self.last_cage_ts is not None and at <= self.last_cage_ts:
            at = self.last_cage_ts + dt.timedelta(seconds=1)
        self.last_cage_ts = at
        return at

    def _slip(
        self,
        events: list[dict[str, Any]],
        ts: dt.datetime,
        kind: str,
        chips: dict[Decimal, int],
        *,
        serial: int | None = None,
        table_copy: bool = True,
        table_signers: list[Compact] | None = None,
        void: bool = False,
    ) -> int:
        """A fill or credit, both copies (or as an injection says); the tray moves as the
        chips do. Returns the serial."""
        s = self.session
        assert s is not None
        series = f"{self.table}-{kind}"
        cage_ts = self._cage_ts(ts)
        year = period_of(cage_ts, self.house)[0].year
        n = self._serial(series, year) if serial is None else serial
        fields = {"series": series, "slip": n, "chips": chip_list(chips)}
        asked = {"requested_by": self.supervisor} if self.rich else {}
        cage = {
            "id": None,
            "seq": None,
            "ts": cage_ts.isoformat(),
            "stream": self.config.stream("CAGE"),
            "table": self.table,
            "type": kind,
            "side": "cage",
            **fields,
            "signers": self._cage_signers(),
            **asked,
        }
        self._stream(cage_ts, s.period.day, cage)
        if void:
            void_ts = self._cage_ts(cage_ts + dt.timedelta(seconds=30))
            self._stream(
                void_ts,
                s.period.day,
                {
                    "id": None,
                    "seq": None,
                    "ts": void_ts.isoformat(),
                    "stream": self.config.stream("CAGE"),
                    "table": self.table,
                    "type": "slip_void",
                    "side": "cage",
                    "series": series,
                    "slip": n,
                    "of": kind,
                    "reason": "issued for the wrong table, voided before delivery",
                    "signers": [Compact(id=self.cashier, role="cashier")],
                },
            )
            return n
        if table_copy:
            signers = self._table_signers() if table_signers is None else table_signers
            events.append(self._event(ts, kind, side="table", **fields, signers=signers, **asked))
        if kind == "fill":
            self.tray.add(chips)
        else:
            self.tray.take(chips)
        return n

    def _stream(self, ts: dt.datetime, day: dt.date, event: dict[str, Any]) -> dict[str, Any]:
        """Record an event of another stream; returns it as it will be written."""
        event = self._versioned(event)
        self.records.append(
            StreamRecord(event["stream"], ts, self.index, len(self.records), day, event)
        )
        return event

    def _buy_ins(
        self, events: list[dict[str, Any]], ts: dt.datetime, r: _Round
    ) -> dict[tuple[int, int], str]:
        """Each player whose chips cannot cover what the round may ask buys in first; returns
        the key each staked spot's chips are counted under."""
        keys: dict[tuple[int, int], str] = {}
        need: dict[str, Decimal] = {}
        first_box: dict[str, int] = {}
        for (box, spot), stake in sorted(r.stakes.items()):
            player = r.players.get((box, spot))
            key = player if player is not None else f"box {box} spot {spot}"
            keys[(box, spot)] = key
            exposure = stake * 2 * (1 + r.splits.get(box, 0)) + r.insurance.get((box, spot), ZERO)
            need[key] = need.get(key, ZERO) + exposure
            first_box.setdefault(key, box)
        players = {p for p in r.players.values() if p is not None}
        for key, box in first_box.items():
            have = self.stacks.get(key, ZERO)
            if have >= need[key]:
                continue
            short = max(need[key] - have, self.min_bet * 10)
            amount = (short / 10).to_integral_value(rounding=ROUND_CEILING) * 10
            method = "marker" if self.rng.random() < P_MARKER else "cash"
            if self.rich and method == "cash" and self.rich_rng.random() < P_OTHER:
                method = "other"
            self.tray.pay(amount)
            self.stacks[key] = have + amount
            period = self.session.period if self.session is not None else None
            assert period is not None
            fields: dict[str, Any] = {"amount": amount, "method": method, "box": box}
            if key in players:
                fields["player"] = key
            if method == "marker":
                self.markers += 1
                fields["ref"] = f"M-{self.table}-{self.markers:04d}"
                period.markers += amount
            elif method == "other":
                self.vouchers += 1
                fields["ref"] = f"V-{self.table}-{self.vouchers:04d}"
                period.other += amount
            else:
                period.cash += amount
            events.append(self._event(ts, "buy_in", **fields))
        return keys

    # ------------------------------------------------------------------ injections

    def _record(self, plan: BooksPlan, period: _Period, impact: Decimal | None, note: str) -> None:
        self.injected.append(
            BooksInjected(plan.code, self.table, period.day, period.shift, impact, note)
        )

    def _locked_tray(self, plan: BooksPlan, period: _Period) -> None:
        """Between the previous closer and this opener: a swap of equal value, or chips taken
        from the locked tray."""
        plan.done = True
        before = self.tray.value
        if plan.code == "ACCT_OPENER_MISMATCH":
            big, small, k = _swap_pair(self.tray)
            self.tray.take({big: 1})
            self.tray.add({small: k})
            self._record(plan, period, ZERO, f"the opener holds {k} × {small} for one {big}")
            return
        house = self.house
        if plan.code == "ACCT_INVENTORY_DISCREPANCY":
            wanted = [
                v
                for v in (Decimal(50), Decimal(30), Decimal(75))
                if house.discrepancy_report < v < house.discrepancy_regulator
            ]
        else:
            wanted = [house.discrepancy_regulator, house.discrepancy_regulator + 25]
        taken = chips_worth(self.tray, wanted, self.err_rng)
        self.tray.take(taken)
        value = Decimal(money_str(before - self.tray.value) or 0)
        self._record(
            plan, period, value, f"chips worth {value} taken from the locked tray before the opener"
        )

    def _inject_mid_session(
        self, events: list[dict[str, Any]], ts: dt.datetime, plan: BooksPlan, s: _Session
    ) -> None:
        plan.done = True
        period = s.period
        code = plan.code
        if code == "ACCT_WIN_MISMATCH":
            taken = chips_worth(
                self.tray, [Decimal(v) for v in (25, 50, 100, 125, 200)], self.err_rng
            )
            self.tray.take(taken)
            value = chips_value(taken)
            self._record(
                plan, period, value, f"chips worth {value} taken from the tray mid-session"
            )
            return
        chips = {self._fill_denomination(): 20}
        if code == "ACCT_SLIP_SEQUENCE":
            year = period_of(ts, self.house)[0].year
            series = f"{self.table}-fill"
            first = self._serial(series, year)
            second = self._serial(series, year)
            self._slip(events, ts, "fill", chips, serial=second)
            self._slip(events, ts, "fill", chips, serial=first)
            self._record(plan, period, None, f"fills issued as {second}, then {first}")
        elif code == "ACCT_SLIP_DUPLICATE":
            n = self._slip(events, ts, "fill", chips)
            self._slip(events, ts, "fill", chips, serial=n)
            self._record(plan, period, None, f"a second fill carries serial {n}, both copies")
        elif code == "ACCT_SLIP_VOID":
            n = self._slip(events, ts, "fill", chips, void=True)
            self._record(plan, period, None, f"fill {n} voided before delivery, one signer")
            self._slip(events, ts, "fill", chips)
        elif code == "ACCT_SLIP_SIGNATURES":
            n = self._slip(
                events, ts, "fill", chips, table_signers=[Compact(id=self.dealer, role="dealer")]
            )
            self._record(plan, period, None, f"fill {n}'s table copy signed by one person")
        elif code == "ACCT_SLIP_UNMATCHED":
            n = self._slip(events, ts, "fill", chips, table_copy=False)
            self._record(plan, period, None, f"fill {n} delivered, not recorded at the table")

    def _fill_denomination(self) -> Decimal:
        """The chip an injected fill brings: 25 where the house has it, else the middle one."""
        ds = self.house.denominations
        return Decimal(25) if Decimal(25) in ds else sorted(ds)[len(ds) // 2]

    # ------------------------------------------------------------------ after the day

    def _counts(self) -> None:
        """One count per period, in stream COUNT, the morning after its gaming day."""
        tz = self.held.events[-1]["ts"] if self.held is not None else None
        tzinfo = dt.datetime.fromisoformat(tz).tzinfo if tz else None
        shifts = self.house.shift_names()
        for (day, shift), p in sorted(self.periods.items()):
            at = dt.datetime.combine(day + dt.timedelta(days=1), self.house.day_start, tzinfo)
            at += COUNT_AFTER + dt.timedelta(minutes=self.index * 3 + shifts.index(shift))
            plan = p.plan
            code = plan.code if plan is not None and not plan.done else None
            if code == "ACCT_NO_DROP_COUNT":
                assert plan is not None
                plan.done = True
                self._record(plan, p, None, "the period's count left out")
                continue
            cash = p.cash
            if code == "ACCT_DROP_MISMATCH" and cash > 0:
                assert plan is not None
                plan.done = True
                missing = min(cash, Decimal(self.err_rng.choice((100, 200, 500))))
                cash -= missing
                self._record(plan, p, missing, f"cash worth {missing} taken from the box")
            count: dict[str, Any] = {
                "id": None,
                "seq": None,
                "ts": at.isoformat(),
                "stream": self.config.stream("COUNT"),
                "table": self.table,
                "type": "drop_count",
                "gaming_day": day.isoformat(),
                "shift": shift,
                "cash": cash,
                "markers": p.markers,
            }
            if self.rich:
                count["other"] = p.other
            if self.config.tips:
                count["tips"] = p.tips
            count["signers"] = [
                Compact(id=f"K-{10 + self.rng.randint(0, 9)}", role="count"),
                Compact(id=f"K-{20 + self.rng.randint(0, 9)}", role="count"),
            ]
            count["drop_box"] = f"{self.table}-{shift}"
            self._stream(at, day, count)
            sheet = f"CS-{self.table}-{day:%Y%m%d}-{shift}"
            if self.rich and self.rich_rng.random() < P_REVERSED:
                self._reversed_adjustment(at, day, shift, sheet)
            if code == "ACCT_ADJUSTMENT_REPORTABLE":
                assert plan is not None
                plan.done = True
                amount = self.house.adjustment_report + 500
                adj_at = at + dt.timedelta(hours=2)
                self._stream(
                    adj_at,
                    day,
                    {
                        "id": None,
                        "seq": None,
                        "ts": adj_at.isoformat(),
                        "stream": self.config.stream("ACCOUNTING"),
                        "table": self.table,
                        "type": "adjustment",
                        "gaming_day": day.isoformat(),
                        "shift": shift,
                        "line": "drop_markers",
                        "amount": amount,
                        "reason": "marker counted at the cage after the count",
                        "by": "ACC-07",
                        **({"ref": sheet} if self.rich else {}),
                    },
                )
                self._record(plan, p, None, f"an adjustment of {amount} (drop_markers)")

    def _adjustment(
        self, at: dt.datetime, day: dt.date, shift: str, **fields: Any
    ) -> dict[str, Any]:
        """An adjustment in stream ``ACCOUNTING``, its ``id`` and ``seq`` to come."""
        event: dict[str, Any] = {
            "id": None,
            "seq": None,
            "ts": at.isoformat(),
            "stream": self.config.stream("ACCOUNTING"),
            "table": self.table,
            "type": "adjustment",
            "gaming_day": day.isoformat(),
            "shift": shift,
            **fields,
        }
        return self._stream(at, day, event)

    def _reversed_adjustment(self, at: dt.datetime, day: dt.date, shift: str, sheet: str) -> None:
        """A small adjustment keyed against the wrong line, then its reversal: together 0,
        each under ``adjustment_report``, so a clean night stays clean. The reversal's
        ``reverses`` is the first one's id once its stream is numbered (the writer's)."""
        amount = min(REVERSED_AMOUNT, self.house.adjustment_report)
        first = self._adjustment(
            at + dt.timedelta(hours=1),
            day,
            shift,
            line="drop_cash",
            amount=amount,
            reason="keyed against the wrong table",
            by="ACC-07",
            ref=sheet,
        )
        self._adjustment(
            at + dt.timedelta(hours=1, minutes=5),
            day,
            shift,
            line="drop_cash",
            amount=-amount,
            reason="reverses an adjustment keyed against the wrong table",
            by="ACC-07",
            reverses=first,
        )


def _swap_pair(tray: Tray) -> tuple[Decimal, Decimal, int]:
    """A chip and the smaller ones of equal value (one 25 for five 5s where the house has
    them)."""
    ds = sorted(tray.denominations)
    pairs = [(b, a) for b in ds for a in ds if a < b and (b / a) == int(b / a)]
    pairs.sort(key=lambda p: (p != (Decimal(25), Decimal(5)), p[0]))
    for big, small in pairs:
        if tray.chips.get(big, 0) >= 1:
            return big, small, int(big / small)
    raise AssertionError("no chip in the tray to swap")
