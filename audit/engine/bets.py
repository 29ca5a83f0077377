"""Betting: table limits and spots per box, checked when betting closes (rules.md, "The profiles").

000: standing players bet with the seated one «sempre che la somma delle puntate
non superi il massimo»; 004: three circles per box. Table limits come from
``shoe_open``: each spot's stake at least ``min_bet``, a box's total at most
``max_bet``, counting the stakes as they stand at ``no_more_bets`` (doubles,
splits and insurance are not counted). Those limits are ``shoe_open`` fields,
not profile fields, so ``BET_LIMIT`` cites no ``rule``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from audit.engine.event import money
from audit.engine.sink import Breach
from audit.findings import Code
from audit.profiles.model import Rules


def limit_breaches(
    boxes: Mapping[int, Mapping[int, int]],
    min_bet: int | None,
    max_bet: int | None,
    rules: Rules,
    evidence: Mapping[int, Sequence[str]],
    spot_evidence: Mapping[tuple[int, int], Sequence[str]],
) -> list[Breach]:
    """``BET_LIMIT`` and ``BET_SPOTS`` for the stakes as they stand when betting closes.

    ``boxes`` maps each box to its spots' positive stakes (cents); ``evidence``
    each box to its bet events, ``spot_evidence`` each (box, spot) to its own: a
    spot under the minimum cites its own bets (10,000 spots of a box citing all
    10,000 bets each made 10^8 ids), the box's total and spots all of the box's.
    ``BET_SPOTS``: more spots than ``max_spots_per_box`` (004: «tre
    cerchietti»), or bets behind with no box holder (000: the seated player
    decides).
    """
    out: list[Breach] = []
    for box, spots in boxes.items():
        ev = tuple(evidence.get(box, ()))
        for spot, amount in spots.items():
            if min_bet is not None and amount < min_bet:
                out.append(
                    Breach(
                        Code.BET_LIMIT,
                        f"box {box} spot {spot}: stake {money(amount)} under the table "
                        f"minimum {money(min_bet)}",
                        tuple(spot_evidence.get((box, spot), ())),
                        box=box,
                        spot=spot,
                        expected=f">= {money(min_bet)}",
                        actual=str(money(amount)),
                    )
                )
        total = sum(spots.values())
        if max_bet is not None and total > max_bet:
            out.append(
                Breach(
                    Code.BET_LIMIT,
                    f"box {box}: stakes total {money(total)}, over the table maximum "
                    f"{money(max_bet)}",
                    ev,
                    box=box,
                    expected=f"<= {money(max_bet)}",
                    actual=str(money(total)),
                )
            )
        mx = rules.max_spots_per_box
        if mx is not None and (len(spots) > mx or max(spots) >= mx):
            out.append(
                Breach(
                    Code.BET_SPOTS,
                    f"box {box}: stakes on spots {sorted(spots)}; the profile allows {mx} "
                    f"spot(s) per box (0 to {mx - 1})",
                    ev,
                    box=box,
                    expected=str(mx),
                    actual=str(len(spots)),
                    rule="max_spots_per_box",
                )
            )
        elif 0 not in spots:
            out.append(
                Breach(
                    Code.BET_SPOTS,
                    f"box {box}: bets behind on spots {sorted(spots)} with no box holder (spot 0)",
                    ev,
                    box=box,
                    expected="a stake on spot 0",
                    actual="none",
                    rule="box_holder_decides",
                )
            )
    return out
