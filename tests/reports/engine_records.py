"""The event-log.md example round as the engine's own record types (ShoeReplay, RoundReplay,
Step, ...), built by hand: tests the adapter from engine records to the hand context without
depending on the engine's rules. Real replays: test_engine_golden.py, test_report.py."""

from __future__ import annotations

from decimal import Decimal as D

from audit.engine import DealerRecord, HandRecord, RoundReplay, ShoeReplay, Step, WagerRecord
from audit.events.models import AnyEvent
from audit.events.parse import parse_line
from audit.findings import Code, Finding
from tests.reports import DATA

T, S = "T07", "T07-20261128-01"


def example_events() -> list[AnyEvent]:
    return [parse_line(line) for line in (DATA / "example_T07.jsonl").read_text().splitlines()]


def _card(
    seq: int,
    card: str,
    pos: int,
    target: str,
    box: int | None,
    hand: int | None,
    cards: tuple[str, ...],
    total: int,
    soft: bool,
    rule: str | None = None,
) -> Step:
    return Step(
        event_id=f"T07-{seq}",
        seq=seq,
        type="card",
        description=f"{card} to {target}",
        round=1,
        pos=pos,
        card=card,
        target=target,
        box=box,
        hand=hand,
        cards=cards,
        total=total,
        soft=soft,
        dealer_rule=rule,
    )


def example_replay(extra_rounds: tuple[int, ...] = ()) -> ShoeReplay:
    finding = Finding(
        code=Code.PAY_WRONG_OUTCOME,
        table=T,
        shoe=S,
        round=1,
        box=1,
        hand=1,
        spot=0,
        expected="-50",
        actual="75",
        impact=D(125),
        rule="win_pays",
        events=("T07-24",),
        message="box 1 hand 1: 19 loses to the dealer's 21; paid 75, due -50",
    )
    steps = (
        Step("T07-7", 7, "round_open", "round 1 opens", round=1),
        Step("T07-8", 8, "bet", "box 1 spot 0 bets 50", round=1, box=1, spot=0, amount=D(50)),
        Step("T07-9", 9, "bet", "box 4 spot 0 bets 20", round=1, box=4, spot=0, amount=D(20)),
        Step("T07-10", 10, "no_more_bets", "no more bets", round=1),
        _card(11, "8S", 6, "box 1 hand 0", 1, 0, ("8S",), 8, False),
        _card(12, "AH", 7, "box 4 hand 0", 4, 0, ("AH",), 11, True),
        _card(13, "6D", 8, "dealer", None, None, ("6D",), 6, False, "draw"),
        _card(14, "8C", 9, "box 1 hand 0", 1, 0, ("8S", "8C"), 16, False),
        _card(15, "KS", 10, "box 4 hand 0", 4, 0, ("AH", "KS"), 21, True),
        Step("T07-16", 16, "action", "box 1 hand 0 splits", round=1, box=1, hand=0, allowed=True),
        _card(17, "3D", 11, "box 1 hand 0", 1, 0, ("8S", "3D"), 11, False),
        Step("T07-18", 18, "action", "box 1 hand 0 doubles", round=1, box=1, hand=0, allowed=True),
        _card(19, "TS", 12, "box 1 hand 0", 1, 0, ("8S", "3D", "TS"), 21, False),
        _card(20, "AC", 13, "box 1 hand 1", 1, 1, ("8C", "AC"), 19, True),
        _card(21, "TD", 14, "dealer", None, None, ("6D", "TD"), 16, False, "draw"),
        _card(22, "5H", 15, "dealer", None, None, ("6D", "TD", "5H"), 21, False, "draw"),
        Step(
            "T07-23",
            23,
            "settle",
            "box 4 hand 0 spot 0 main +30",
            round=1,
            box=4,
            hand=0,
            spot=0,
            amount=D(30),
        ),
        Step(
            "T07-24",
            24,
            "settle",
            "box 1 hand 1 spot 0 main +75",
            round=1,
            box=1,
            hand=1,
            spot=0,
            amount=D(75),
            codes=("PAY_WRONG_OUTCOME",),
        ),
        Step(
            "T07-25",
            25,
            "settle",
            "box 1 hand 0 spot 0 main 0",
            round=1,
            box=1,
            hand=0,
            spot=0,
            amount=D(0),
        ),
        Step("T07-26", 26, "round_close", "round 1 closes", round=1),
    )
    wagers = (
        WagerRecord(
            1,
            0,
            0,
            "main",
            D(100),
            D(50),
            "P-1881",
            D(0),
            (D(0),),
            ("T07-25",),
            "21 v dealer 21: push",
        ),
        WagerRecord(
            1,
            1,
            0,
            "main",
            D(50),
            D(50),
            "P-1881",
            D(-50),
            (D(75),),
            ("T07-24",),
            "19 v dealer 21: loses",
        ),
        WagerRecord(
            4, 0, 0, "main", D(20), D(20), None, D(30), (D(30),), ("T07-23",), "blackjack wins 3:2"
        ),
    )
    hands = (
        HandRecord(1, 0, ("8S", "3D", "TS"), 21, False, False, False, True, True, False),
        HandRecord(1, 1, ("8C", "AC"), 19, True, False, False, False, True, False),
        HandRecord(4, 0, ("AH", "KS"), 21, True, True, False, False, False, False),
    )
    rnd = RoundReplay(
        1,
        "closed",
        steps,
        wagers,
        hands,
        DealerRecord(("6D", "TD", "5H"), 21, False, False, False),
        (finding,),
    )
    others = tuple(
        RoundReplay(n, "closed", (), (), (), DealerRecord((), 0, False, False, False), ())
        for n in extra_rounds
    )
    shoe_steps = (
        Step("T07-1", 1, "shoe_open", "shoe opens: it-casino-6d, 6 decks, dealer D042"),
        Step("T07-2", 2, "shuffle", "shuffle (wash)"),
        Step("T07-3", 3, "shuffle", "shuffle (riffle)"),
        Step("T07-4", 4, "cut", "cut by box 3"),
        Step("T07-5", 5, "cut_card", "cut card at 234"),
        Step("T07-6", 6, "burn", "5 cards burned", cards=("7H", "KD", "2C", "9S", "QH")),
    )
    return ShoeReplay(
        table=T,
        shoe=S,
        profile_id="it-casino-6d",
        findings=(),
        rounds=(rnd, *others),
        shoe_steps=shoe_steps,
        decks=6,
        shuffles=("wash", "riffle"),
        cut_by="box",
        cut_box=3,
        cut_card_position=234,
        burned=5,
        cards_dealt=10,
        cards_drawn=15,
    )
