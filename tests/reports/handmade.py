"""A hand-built HandContext (the example round of event-log.md), for template tests
that must not depend on the engine."""

from __future__ import annotations

from audit.reports.cards import card_view
from audit.reports.context import (
    FindingView,
    HandContext,
    HandView,
    ProfileView,
    RoundLink,
    ShoeStory,
    StepView,
    StoryLine,
    TotalView,
    WagerView,
)


def _total(who: str, box: int | None, hand: int | None, cards: list[str], label: str) -> TotalView:
    total = int("".join(ch for ch in label if ch.isdigit()) or 21)
    return TotalView(
        who=who,
        box=box,
        hand=hand,
        cards=tuple(card_view(c) for c in cards),
        total=total,
        soft=label.startswith("soft"),
        label=label,
    )


def example_round(
    table: str = "T07", shoe: str = "T07-20261128-01", player: str = "P-1881"
) -> HandContext:
    steps: list[StepView] = []

    def step(type_: str, desc: str, **kw: object) -> None:
        n = len(steps) + 1
        steps.append(
            StepView(
                n=n,
                event_id=f"{table}-{n + 6}",
                seq=n + 6,
                ts=f"2026-11-28T20:03:{n:02d}+01:00",
                type=type_,
                description=desc,
                card=kw.get("card"),  # type: ignore[arg-type]
                pos=kw.get("pos"),  # type: ignore[arg-type]
                target=kw.get("target"),  # type: ignore[arg-type]
                total=kw.get("total"),  # type: ignore[arg-type]
                decision=kw.get("decision"),  # type: ignore[arg-type]
                decision_allowed=kw.get("allowed"),  # type: ignore[arg-type]
                rule_note=kw.get("note"),  # type: ignore[arg-type]
                finding_codes=tuple(kw.get("codes", ())),  # type: ignore[call-overload]
            )
        )

    step("round_open", "round 1 opens")
    step("bet", f"box 1 spot 0 ({player}) bets 50")
    step("bet", "box 4 spot 0 bets 20")
    step("no_more_bets", "no more bets")
    step(
        "card",
        "8S to box 1",
        card=card_view("8S"),
        pos=6,
        target="box 1 hand 0",
        total=_total("box 1 hand 0", 1, 0, ["8S"], "hard 8"),
    )
    step(
        "card",
        "AH to box 4",
        card=card_view("AH"),
        pos=7,
        target="box 4 hand 0",
        total=_total("box 4 hand 0", 4, 0, ["AH"], "soft 11"),
    )
    step(
        "card",
        "6D to the dealer",
        card=card_view("6D"),
        pos=8,
        target="dealer",
        total=_total("dealer", None, None, ["6D"], "hard 6"),
    )
    step(
        "card",
        "8C to box 1",
        card=card_view("8C"),
        pos=9,
        target="box 1 hand 0",
        total=_total("box 1 hand 0", 1, 0, ["8S", "8C"], "hard 16"),
    )
    step(
        "card",
        "KS to box 4: blackjack",
        card=card_view("KS"),
        pos=10,
        target="box 4 hand 0",
        total=_total("box 4 hand 0", 4, 0, ["AH", "KS"], "blackjack"),
    )
    step(
        "action",
        "box 1 splits 8,8",
        target="box 1 hand 0",
        decision="split",
        allowed=True,
        note="two equal cards may split",
    )
    step(
        "card",
        "3D to box 1 hand 0",
        card=card_view("3D"),
        pos=11,
        target="box 1 hand 0",
        total=_total("box 1 hand 0", 1, 0, ["8S", "3D"], "hard 11"),
    )
    step(
        "action",
        "box 1 hand 0 doubles",
        target="box 1 hand 0",
        decision="double",
        allowed=True,
        note="double on 9, 10 or 11",
    )
    step(
        "card",
        "TS to box 1 hand 0",
        card=card_view("TS"),
        pos=12,
        target="box 1 hand 0",
        total=_total("box 1 hand 0", 1, 0, ["8S", "3D", "TS"], "hard 21"),
    )
    step(
        "card",
        "AC to box 1 hand 1",
        card=card_view("AC"),
        pos=13,
        target="box 1 hand 1",
        total=_total("box 1 hand 1", 1, 1, ["8C", "AC"], "soft 19"),
    )
    step(
        "card",
        "TD to the dealer",
        card=card_view("TD"),
        pos=14,
        target="dealer",
        total=_total("dealer", None, None, ["6D", "TD"], "hard 16"),
        note="dealer 16: must draw",
    )
    step(
        "card",
        "5H to the dealer",
        card=card_view("5H"),
        pos=15,
        target="dealer",
        total=_total("dealer", None, None, ["6D", "TD", "5H"], "hard 21"),
        note="dealer 21: stands",
    )
    step("settle", "box 4 hand 0 spot 0 main: +30")
    step("settle", "box 1 hand 1 spot 0 main: +75", codes=["PAY_WRONG_OUTCOME"])
    step("settle", "box 1 hand 0 spot 0 main: 0")
    step("round_close", "round 1 closes")

    finding = FindingView(
        code="PAY_WRONG_OUTCOME",
        severity="critical",
        message="box 1 hand 1 spot 0: 19 loses to the dealer's 21; paid 75, due -50",
        table=table,
        shoe=shoe,
        round=1,
        box=1,
        hand=1,
        spot=0,
        expected="-50",
        actual="75",
        impact="125",
        rule="win_pays",
        rule_source="000: «Il mazziere paga sempre le poste alla pari»",
        rule_house_default=False,
        events=(f"{table}-24",),
        source=None,
    )
    return HandContext(
        table=table,
        shoe=shoe,
        round=1,
        profile=ProfileView(
            id="it-casino-6d",
            title="Casino Black Jack, 6 decks",
            seed="000",
            digest="0123456789abcdef",
        ),
        engine_version="handmade",
        story=ShoeStory(
            decks=6,
            dealer="D042",
            currency="EUR",
            min_bet="10",
            max_bet="1000",
            opened_at="2026-11-28T20:00:00+01:00",
            lines=(
                StoryLine(
                    f"{table}-1",
                    1,
                    "2026-11-28T20:00:00+01:00",
                    "shoe_open",
                    "shoe opens: it-casino-6d, 6 decks, dealer D042",
                ),
                StoryLine(f"{table}-2", 2, "2026-11-28T20:00:05+01:00", "shuffle", "shuffle: wash"),
                StoryLine(
                    f"{table}-3", 3, "2026-11-28T20:01:05+01:00", "shuffle", "shuffle: riffle"
                ),
                StoryLine(f"{table}-4", 4, "2026-11-28T20:02:00+01:00", "cut", "cut by box 3"),
                StoryLine(
                    f"{table}-5",
                    5,
                    "2026-11-28T20:02:10+01:00",
                    "cut_card",
                    "cut card at position 234",
                ),
                StoryLine(
                    f"{table}-6",
                    6,
                    "2026-11-28T20:02:30+01:00",
                    "burn",
                    "5 cards burned",
                    tuple(card_view(c, face_up=False) for c in ["7H", "KD", "2C", "9S", "QH"]),
                ),
            ),
            cut_card_position=234,
            burned=5,
            rounds_before=0,
            cards_before=5,
        ),
        steps=tuple(steps),
        hands=(
            HandView(
                "box 1 hand 0",
                1,
                0,
                tuple(card_view(c) for c in ["8S", "3D", "TS"]),
                21,
                False,
                "hard 21",
                ("from a split", "doubled"),
            ),
            HandView(
                "box 1 hand 1",
                1,
                1,
                tuple(card_view(c) for c in ["8C", "AC"]),
                19,
                True,
                "soft 19",
                ("from a split",),
            ),
            HandView(
                "box 4 hand 0",
                4,
                0,
                tuple(card_view(c) for c in ["AH", "KS"]),
                21,
                True,
                "blackjack",
                (),
            ),
        ),
        dealer=HandView(
            "dealer",
            None,
            None,
            tuple(card_view(c) for c in ["6D", "TD", "5H"]),
            21,
            False,
            "hard 21",
            (),
        ),
        dealer_rule="draws to 16, stands on all 17s",
        wagers=(
            WagerView(1, 0, 0, "main", player, "100", "0", "0", "0", True, "21 v dealer 21: push"),
            WagerView(
                1, 1, 0, "main", player, "50", "-50", "75", "125", False, "19 v dealer 21: loses"
            ),
            WagerView(
                4,
                0,
                0,
                "main",
                None,
                "20",
                "30",
                "30",
                "0",
                True,
                "blackjack v dealer 21 in 3 cards: wins 3:2",
            ),
        ),
        findings=(finding,),
        worst_severity="critical",
        net_impact="125",
        previous_round=None,
        next_round=RoundLink(round=2, n_findings=0),
    )
