"""A tiny DSL that writes TEL/1 logs for engine tests, so each rule test is a few lines.

    log = ShoeLog("it-casino-6d").start()          # open, shuffle, cut, cut card, burn 5
    r = log.round(1).bets({1: 50, 4: 20})           # round_open, bets, no_more_bets
    r.deal({1: "8S 8C", 4: "AH KS"}, dealer="6D")   # the initial deal in the profile's order
    r.hit(1, "TD").dealer("TD", "5H").settle(4, 30).settle(1, -50).close()
    replay = log.replay()

Events are TEL/1 dicts, parsed with the real models (``parse_object``), so a test
cannot feed the engine anything the ingest path would reject.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from audit.engine import ShoeContext, ShoeReplay, replay_shoe
from audit.events.models import AnyEvent
from audit.events.parse import parse_object
from audit.findings import Finding
from audit.profiles import load_registry

TEST_PROFILES = Path(__file__).with_name("profiles")
"""Profiles only the engine tests replay (the US game's hole card and peek, games.md §3)."""
REGISTRY = load_registry(extra_dir=TEST_PROFILES)
PROFILE_DECKS = {
    "it-casino-6d": 6,
    "it-casino-5d": 5,
    "it-casino-6d-mandatory": 6,
    "ventuno-family": 1,
}

Money = int | str | Decimal


def _money(v: Money) -> Any:
    return Decimal(v) if isinstance(v, str) else v


def _cards(spec: str | Iterable[str]) -> list[str]:
    return spec.split() if isinstance(spec, str) else list(spec)


class ShoeLog:
    """One shoe's events, written in order with ids and seqs."""

    def __init__(
        self,
        profile: str = "it-casino-6d",
        *,
        decks: int | None = None,
        table: str = "T07",
        shoe: str = "T07-20261128-01",
        dealer: str = "D042",
        min_bet: Money | None = None,
        max_bet: Money | None = None,
        side_limits: Mapping[str, Mapping[str, Money]] | None = None,
        open_shoe: bool = True,
        seq_start: int = 1,
    ) -> None:
        self.profile = profile
        self.decks = decks if decks is not None else PROFILE_DECKS.get(profile, 6)
        self.table = table
        self.shoe = shoe
        self.events: list[dict[str, Any]] = []
        self.seq = seq_start - 1
        self.pos = 0
        self.with_pos = False
        if open_shoe:
            fields: dict[str, Any] = {"profile": profile, "decks": self.decks, "dealer": dealer}
            if min_bet is not None:
                fields["min_bet"] = _money(min_bet)
            if max_bet is not None:
                fields["max_bet"] = _money(max_bet)
            if side_limits is not None:  # TEL/1 v1.2 (games.md §2)
                fields["side_limits"] = {
                    k: {n: _money(v) for n, v in lim.items()} for k, lim in side_limits.items()
                }
            self.ev("shoe_open", **fields)

    # -------------------------------------------------------------- raw events

    def ev(self, type: str, round: int | None = None, **fields: Any) -> str:
        """Append one event; returns its id."""
        self.seq += 1
        eid = f"{self.table}-{self.seq}"
        obj: dict[str, Any] = {
            "id": eid,
            "seq": self.seq,
            "ts": f"2026-11-28T20:{self.seq // 60 % 60:02d}:{self.seq % 60:02d}+01:00",
            "table": self.table,
            "shoe": self.shoe,
            "type": type,
        }
        if round is not None:
            obj["round"] = round
        obj.update({k: v for k, v in fields.items() if v is not None})
        self.events.append(obj)
        return eid

    def next_pos(self, n: int = 1) -> int | None:
        first = self.pos + 1
        self.pos += n
        return first if self.with_pos else None

    # -------------------------------------------------------------- shoe events

    def shuffle(self, method: str = "riffle", order: list[str] | None = None) -> ShoeLog:
        self.ev("shuffle", method=method, order=order)
        return self

    def inspection(self, ok: bool = True) -> ShoeLog:
        self.ev("inspection", decks=self.decks, ok=ok)
        return self

    def cut(self, by: str = "box", box: int | None = 3) -> ShoeLog:
        self.ev("cut", by=by, box=box if by == "box" else None)
        return self

    def cut_card(self, position: int) -> ShoeLog:
        self.ev("cut_card", position=position)
        return self

    def burn(
        self,
        cards: str | Iterable[str] = "7H KD 2C 9S QH",
        *,
        count: int | None = None,
        face_down: bool = True,
    ) -> ShoeLog:
        listed = _cards(cards) if count is None else []
        n = len(listed) if count is None else count
        self.ev("burn", cards=listed, count=count, face_down=face_down, pos=self.next_pos(n))
        return self

    def dealer_change(self, dealer: str) -> ShoeLog:
        self.ev("dealer_change", dealer=dealer)
        return self

    def close(self, remaining: int | None = None, reason: str = "cut_card") -> ShoeLog:
        self.ev("shoe_close", remaining=remaining, reason=reason)
        return self

    def unknown(self, type: str = "chip_count", **fields: Any) -> ShoeLog:
        self.ev(type, **fields)
        return self

    def start(
        self, *, positions: bool = False, cut_card: int | None = None, burn: bool = True
    ) -> ShoeLog:
        """The profile's legal shoe start: inspection, shuffle, cut, cut card, burn, as required."""
        self.with_pos = positions
        rules = REGISTRY.get(self.profile).rules
        if rules.inspection_required:
            self.inspection()
        if rules.inspection_required:
            self.shuffle("wash")
        self.shuffle("riffle")
        if rules.cut_required:
            self.cut()
        if rules.cut_card_used:
            lo = rules.cut_card_min_behind or 52
            self.cut_card(cut_card if cut_card is not None else 52 * self.decks - lo - 26)
        if burn and rules.burn_count and not rules.bets_close_before_start_burn:
            self.burn(["7H", "KD", "2C", "9S", "QH"][: rules.burn_count])
        return self

    # -------------------------------------------------------------- rounds

    def round(self, number: int) -> RoundLog:
        return RoundLog(self, number)

    def late(self, number: int) -> RoundLog:
        """Events of round ``number`` written after it is over (no ``round_open``)."""
        return RoundLog(self, number, open_round=False)

    def parsed(self) -> list[AnyEvent]:
        return [parse_object(e) for e in self.events]

    def replay(
        self, profile: str | None = None, context: ShoeContext | None = None, known: bool = True
    ) -> ShoeReplay:
        prof = REGISTRY.get(profile or self.profile) if known else None
        return replay_shoe(self.parsed(), prof, context or ShoeContext())


class RoundLog:
    """The events of one round, chained: ``log.round(1).bets({1: 10}).deal(...)...``."""

    def __init__(self, log: ShoeLog, number: int, open_round: bool = True) -> None:
        self.log = log
        self.n = number
        self.rules = REGISTRY.get(log.profile).rules
        if open_round:
            log.ev("round_open", round=number)

    def ev(self, type: str, **fields: Any) -> str:
        return self.log.ev(type, round=self.n, **fields)

    def bet(
        self,
        box: int,
        amount: Money,
        spot: int = 0,
        player: str | None = None,
        kind: str | None = None,
    ) -> RoundLog:
        """A stake; with ``kind`` (TEL/1 v1.2) a side bet's."""
        self.ev("bet", box=box, spot=spot, amount=_money(amount), player=player, kind=kind)
        return self

    def side(self, box: int, kind: str, amount: Money, spot: int = 0) -> RoundLog:
        """A side bet (games.md §2): a ``bet`` of its ``kind``."""
        return self.bet(box, amount, spot, kind=kind)

    def bets(self, stakes: Mapping[int, Money], close: bool = True) -> RoundLog:
        """One stake on spot 0 of each box, then no more bets (and 001's start burn in round 1)."""
        for box, amount in stakes.items():
            self.bet(box, amount)
        if close:
            self.no_more_bets()
            if self.n == 1 and self.rules.bets_close_before_start_burn and self.rules.burn_count:
                self.log.burn()
        return self

    def no_more_bets(self) -> RoundLog:
        self.ev("no_more_bets")
        return self

    def card(
        self, card: str, box: int | None = None, hand: int = 0, *, face_up: bool | None = None
    ) -> RoundLog:
        to = "dealer" if box is None else "box"
        self.ev(
            "card",
            card=card,
            to=to,
            box=box,
            hand=hand if box is not None else None,
            face_up=face_up,
            pos=self.log.next_pos(),
        )
        return self

    def deal(
        self, hands: Mapping[int, str | Iterable[str]], dealer: str | Iterable[str]
    ) -> RoundLog:
        """The initial deal in the profile's order, face up or down as it requires."""
        boxes = sorted(hands)
        cards = {b: _cards(hands[b]) for b in boxes}
        d = _cards(dealer)
        deal = self.rules.initial_deal
        faces = (deal.dealer_face_up, deal.hole_card_face_up)
        for k in range(2):
            for b in boxes:
                self.card(cards[b][k], b, face_up=None if deal.face_up else False)
            if k < deal.dealer_cards:
                self.card(d[k], face_up=None if faces[k] else False)
        return self

    def hit(self, box: int, *cards: str, hand: int = 0) -> RoundLog:
        for c in cards:
            self.card(c, box, hand)
        return self

    def dealer(self, *cards: str) -> RoundLog:
        for c in cards:
            self.card(c)
        return self

    def action(self, box: int, action: str, hand: int = 0, **fields: Any) -> RoundLog:
        if "amount" in fields and fields["amount"] is not None:
            fields["amount"] = _money(fields["amount"])
        self.ev("action", box=box, hand=hand, action=action, **fields)
        return self

    def stand(self, box: int, hand: int = 0) -> RoundLog:
        return self.action(box, "stand", hand)

    def double(self, box: int, card: str | None = None, hand: int = 0, **fields: Any) -> RoundLog:
        self.action(box, "double", hand, **fields)
        if card is not None:
            self.card(card, box, hand)
        return self

    def split(self, box: int, hand: int = 0, **fields: Any) -> RoundLog:
        return self.action(box, "split", hand, **fields)

    def objection(self, box: int, spot: int, action: str = "double", hand: int = 0) -> RoundLog:
        self.ev("objection", box=box, hand=hand, spot=spot, action=action)
        return self

    def insurance(self, box: int, amount: Money, spot: int = 0) -> RoundLog:
        self.ev("insurance", box=box, spot=spot, amount=_money(amount))
        return self

    def even_money(self, box: int, spot: int = 0) -> RoundLog:
        self.ev("even_money", box=box, spot=spot)
        return self

    def exposed(self, card: str) -> RoundLog:
        self.ev("exposed_card", card=card)
        return self

    def offer(self, card: str, box: int | None, accepted: bool) -> RoundLog:
        self.ev(
            "offer", card=card, to="dealer" if box is None else "box", box=box, accepted=accepted
        )
        return self

    def peek(self, blackjack: bool | None = None) -> RoundLog:
        """``peek`` (TEL/1 v1.2): the dealer checks his hole card."""
        self.ev("peek", blackjack=blackjack)
        return self

    def reveal(self) -> RoundLog:
        """``reveal`` (TEL/1 v1.2): the dealer turns his hole card."""
        self.ev("reveal")
        return self

    def cut_card_out(self) -> RoundLog:
        self.ev("cut_card_out")
        return self

    def settle(
        self, box: int, amount: Money, hand: int = 0, spot: int = 0, kind: str = "main"
    ) -> RoundLog:
        self.ev("settle", box=box, hand=hand, spot=spot, kind=kind, amount=_money(amount))
        return self

    def void(self, reason: str = "misdeal") -> RoundLog:
        self.ev("void", reason=reason)
        return self

    def close(self) -> ShoeLog:
        self.ev("round_close")
        return self.log


def codes(replay: ShoeReplay) -> list[str]:
    """The finding codes of a replay, in order."""
    return [str(f.code) for f in replay.findings]


def where(f: Finding) -> tuple[str, int | None, int | None, int | None]:
    """(code, round, box, hand) of a finding."""
    return (str(f.code), f.round, f.box, f.hand)


def only(replay: ShoeReplay) -> Finding:
    """The one finding of a replay (fails with the list when there is not exactly one)."""
    assert len(replay.findings) == 1, [f.to_dict() for f in replay.findings]
    return replay.findings[0]


def clean(replay: ShoeReplay) -> None:
    """Assert a replay raised no finding (showing them when it did)."""
    assert replay.findings == (), [f.to_dict() for f in replay.findings]
