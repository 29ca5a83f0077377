"""Injected errors: which classes exist, which apply to a round, and the manifest record.

An injected error must make the auditor raise exactly its code at the
manifest's place and nothing else (rules.md: "Settlements are judged against
what actually happened"): after a dealer error the round is settled as the
cards fell, a late bet is settled on the stake as it stands, a card added to
the shoe replaces one (so positions and the reconciliation still agree), a
skipped position is a card that left the shoe unrecorded (the cards drawn are
counted by the highest position).

Three kinds:

- *play* classes change how the round is played; a :class:`Directive` makes
  the round fire at the n-th opportunity found by a first, clean run of the
  same round (same random state, so the same cards and choices up to there);
- *settlement* classes rewrite, drop or repeat one settlement of the clean run;
- *shoe* classes (a short start burn, a round after the cut card, a banker
  who keeps the bank too long) are decided by the table session.
"""

from __future__ import annotations

import json
import random
from collections.abc import Collection
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from audit.errors import UsageError
from audit.findings import Code
from audit.profiles.model import Rules
from audit.simulate.base import ZERO, RoundResult, Wager, pay
from audit.simulate.games import due as _due
from audit.simulate.games import plays_beyond_italian
from audit.simulate.writer import Draft

__all__ = [
    "ALL_CLASSES",
    "GAMES_PLAY_CLASSES",
    "GAMES_SETTLE_CLASSES",
    "PLAY_CLASSES",
    "SETTLE_CLASSES",
    "SHOE_CLASSES",
    "InjectedError",
    "apply_settlement_error",
    "choose_error",
    "injectable_codes",
    "settlement_candidates",
]

PLAY_CLASSES: tuple[Code, ...] = (
    Code.BET_AFTER_NO_MORE_BETS,
    Code.SHOE_CARD_EXCESS,
    Code.SHOE_POSITION_GAP,
    Code.PLAY_MANDATORY_HIT,
    Code.PLAY_ILLEGAL_DOUBLE,
    Code.PLAY_SPLIT_ACES_CARDS,
    Code.PLAY_UNCONSENTED,
    Code.DEALER_DREW_ON_STAND,
    Code.DEALER_STOOD_ON_DRAW,
)
SETTLE_CLASSES: tuple[Code, ...] = (
    Code.PAY_SPLIT_BLACKJACK_AS_NATURAL,
    Code.PAY_BLACKJACK_SHORT,
    Code.PAY_WRONG_OUTCOME,
    Code.PAY_WRONG_AMOUNT,
    Code.PAY_INSURANCE,
    Code.PAY_MISSING,
    Code.PAY_DUPLICATE,
    Code.PAY_BONUS,
)
SHOE_CLASSES: tuple[Code, ...] = (
    Code.SHOE_BURN_COUNT,
    Code.SHOE_ROUND_AFTER_CUT_CARD,
    Code.DEALER_BANKER_ROTATION,
)
GAMES_PLAY_CLASSES: tuple[Code, ...] = (
    Code.DEAL_PEEK_MISSING,
    Code.DEAL_PEEK_NEEDLESS,
    Code.DEAL_HOLE_CARD_SHOWN,
    Code.PLAY_AFTER_DEALER_BLACKJACK,
    Code.PLAY_SURRENDER,
    Code.PLAY_ILLEGAL_SPLIT,
    Code.PLAY_ILLEGAL_INSURANCE,
    Code.PLAY_ILLEGAL_EVEN_MONEY,
    Code.PAY_TIMING,
    Code.BET_SIDE_NOT_OFFERED,
    Code.BET_LIMIT,
)
"""games.md §7's play classes: their opportunities arise only where a profile sets a
field of games.md §1 (a hole card, a peek, surrender, forbidden pairs, OBO), so an
Italian round counts none and its injected nights are dealt as before."""
GAMES_SETTLE_CLASSES: tuple[Code, ...] = (Code.PAY_TIMING, Code.PAY_SIDE_BET)
"""games.md §7's settlement classes beyond the v1 ones (a natural paid before the peek);
the v1 classes gain games.md's cases (a surrender, 6:5, rounding) on their own codes."""
ALL_CLASSES: tuple[Code, ...] = tuple(
    dict.fromkeys(
        PLAY_CLASSES + SETTLE_CLASSES + SHOE_CLASSES + GAMES_PLAY_CLASSES + GAMES_SETTLE_CLASSES
    )
)
"""Every class the simulator can inject, by the finding code the auditor must raise."""

RARE: frozenset[Code] = frozenset(
    {
        Code.PAY_SPLIT_BLACKJACK_AS_NATURAL,
        Code.PAY_INSURANCE,
        Code.PAY_BONUS,
        Code.PLAY_SPLIT_ACES_CARDS,
        Code.PLAY_MANDATORY_HIT,
        Code.PAY_BLACKJACK_SHORT,
        Code.PAY_WRONG_AMOUNT,
        Code.PLAY_UNCONSENTED,
        Code.PLAY_ILLEGAL_SPLIT,
        Code.PLAY_ILLEGAL_EVEN_MONEY,
        Code.PLAY_AFTER_DEALER_BLACKJACK,
        Code.PAY_TIMING,
    }
)
"""Classes whose opportunity is rare: preferred when they apply, so every class shows up."""


def injectable_codes(names: Collection[str]) -> frozenset[Code]:
    """The classes ``simulate --error CODE`` names, or a usage error naming the ones it
    knows (cli.md: an option value that is not allowed is exit 2)."""
    known = {str(c): c for c in ALL_CLASSES}
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise UsageError(
            f"--error {', '.join(unknown)}: the injectable codes are {', '.join(sorted(known))}"
        )
    return frozenset(known[n] for n in names)


@dataclass(frozen=True, slots=True)
class InjectedError:
    """One line of ``injected.ndjson`` (cli.md v1.2): the finding to raise, and where."""

    code: Code
    table: str
    shoe: str
    round: int | None
    box: int | None
    hand: int | None
    note: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": str(self.code),
            "table": self.table,
            "shoe": self.shoe,
            "round": self.round,
            "box": self.box,
            "hand": self.hand,
            "note": self.note,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> InjectedError:
        return cls(
            Code(d["code"]), d["table"], d["shoe"], d["round"], d["box"], d["hand"], d["note"]
        )


def settlement_candidates(result: RoundResult, rules: Rules) -> dict[Code, list[Wager]]:
    """The wagers of a clean round that each settlement class could mis-settle."""
    main = [w for w in result.wagers if w.kind == "main"]
    paid_naturals = [w for w in main if w.natural and not w.even_money and w.amount > 0]
    out: dict[Code, list[Wager]] = {
        Code.PAY_SPLIT_BLACKJACK_AS_NATURAL: [
            w for w in main if w.split21 and w.amount > 0 and rules.blackjack_pays != rules.win_pays
        ],
        Code.PAY_BLACKJACK_SHORT: paid_naturals,
        Code.PAY_WRONG_OUTCOME: [w for w in main if not w.natural and w.amount != 0],
        # games.md §7: a surrender settled as the whole stake, a 6:5 natural paid 3:2 or a
        # due rounded up where it rounds down (never in an Italian round: no surrender,
        # 3:2 to the cent)
        Code.PAY_WRONG_AMOUNT: [w for w in main if w.extra > 0 and w.amount != 0]
        + [w for w in main if w.surrendered and w.amount != -w.stake]
        + [w for w in paid_naturals if _natural_overpaid(w, rules) is not None],
        Code.PAY_INSURANCE: [w for w in result.wagers if w.kind == "insurance"],
        # games.md §7: a side bet never settled too (no side bet in an Italian round)
        Code.PAY_MISSING: [w for w in main if w.final_pass] + _side(result),
        Code.PAY_DUPLICATE: list(main),
        Code.PAY_BONUS: [w for w in result.wagers if w.kind == "bonus"],
    }
    timing: list[Wager] = []
    if result.peek_index is not None and not result.peek_found:
        # games.md §7: a natural paid before the peek (that found none)
        timing = [w for w in paid_naturals if w.draft in result.drafts]
    # a side bet settled before its deciding card
    timing += [w for w in _side(result) if w.decided_at is not None]
    if timing:
        out[Code.PAY_TIMING] = timing
    side = _side(result)
    if side:
        out[Code.PAY_SIDE_BET] = side
    return {code: ws for code, ws in out.items() if ws}


def _side(result: RoundResult) -> list[Wager]:
    return [w for w in result.wagers if w.paytable is not None]


def _side_bet_wrong(w: Wager, rules: Rules) -> tuple[Decimal, str]:
    """games.md §7's wrong side-bet settlements: a win paid at another line's ratio (a
    mixed pair as coloured, a straight as a straight flush), else taken; a loss paid."""
    table = w.paytable
    if w.amount > 0:
        ratios = sorted({r for _, r in table.pays})
        paid = [r for r in ratios if _due(w.stake, r, rules) != w.amount]
        if paid:
            ratio = paid[-1]
            line = next(n for n, r in table.pays if r == ratio)
            return _due(w.stake, ratio, rules), f"paid as {line}"
        return -w.stake, "a winning side bet taken"
    ratio = min(r for _, r in table.pays)
    return _due(w.stake, ratio, rules), "a losing side bet paid"


def _natural_overpaid(w: Wager, rules: Rules) -> Decimal | None:
    """What a natural is paid too much in games.md §7's cases, or None: 6:5 paid 3:2, or
    a due rounded up (to the unit above) where the profile rounds it down."""
    if rules.blackjack_pays == Fraction(6, 5):
        return _due(w.stake, Fraction(3, 2), rules)
    exact = pay(w.stake, rules.blackjack_pays)
    if exact % rules.payout_unit and w.amount < exact:
        return w.amount + rules.payout_unit
    return None


def _natural_short(w: Wager, rules: Rules) -> Decimal:
    """A natural paid short: 1:1 (v1); where games.md's fields apply, a due rounded down
    where it rounds up, or 3:2 paid 6:5."""
    exact = pay(w.stake, rules.blackjack_pays)
    if plays_beyond_italian(rules):
        if exact % rules.payout_unit and w.amount > exact:
            return w.amount - rules.payout_unit
        if rules.blackjack_pays == Fraction(3, 2):
            return _due(w.stake, Fraction(6, 5), rules)
    if rules.blackjack_pays > rules.win_pays:
        return pay(w.stake, rules.win_pays)
    return (w.amount / 2).quantize(Decimal("0.01"))


def choose_error(
    result: RoundResult,
    rules: Rules,
    rng: random.Random,
    enabled: frozenset[Code],
) -> tuple[Code, int] | tuple[Code, Wager] | None:
    """Pick one applicable class for a round: (play class, n-th opportunity) or (class, wager)."""
    options: list[tuple[Code, int | Wager]] = []
    weights: list[int] = []
    for code in PLAY_CLASSES + GAMES_PLAY_CLASSES:
        n = result.opportunities.get(code, 0)
        if code in enabled and n > 0:
            options.append((code, rng.randint(1, n)))
            weights.append(4 if code in RARE else 1)
    for code, wagers in settlement_candidates(result, rules).items():
        if code in enabled:
            options.append((code, rng.choice(wagers)))
            weights.append(4 if code in RARE else 1)
    if not options:
        return None
    code, where = rng.choices(options, weights=weights)[0]
    return (code, where)  # type: ignore[return-value]


def apply_settlement_error(code: Code, wager: Wager, result: RoundResult, rules: Rules) -> str:
    """Mis-settle one wager of a played round in place; returns the manifest note."""
    drafts = result.drafts
    place = f"box {wager.box} hand {wager.hand} spot {wager.spot}"
    due = wager.amount
    wrong: Decimal
    if code is Code.PAY_MISSING:
        drafts.remove(wager.draft)
        what = "" if wager.kind == "main" else f" {wager.kind}"
        return f"{place}{what}: settlement of {due} never made"
    if code is Code.PAY_DUPLICATE:
        i = drafts.index(wager.draft)
        drafts.insert(i + 1, Draft("settle", dict(wager.draft.fields), 2))
        return f"{place}: settled {due} twice"
    if code is Code.PAY_BONUS:
        drafts.remove(wager.draft)
        return f"{place}: three-sevens prize of {due} never paid"
    if code is Code.PAY_SPLIT_BLACKJACK_AS_NATURAL:
        wrong = pay(wager.stake, rules.blackjack_pays)
        note = f"{place}: two-card 21 after a split paid {wrong} (blackjack odds), due {due}"
    elif code is Code.PAY_TIMING and wager.paytable is not None:
        assert wager.decided_at is not None
        drafts.remove(wager.draft)
        drafts.insert(drafts.index(wager.decided_at), wager.draft)
        return f"{place} {wager.kind}: settled {due} before it was decided"
    elif code is Code.PAY_TIMING:
        peek = next(d for d in drafts if d.type == "peek")
        drafts.remove(wager.draft)
        drafts.insert(drafts.index(peek), wager.draft)
        return f"{place}: natural paid {due} before the peek"
    elif code is Code.PAY_SIDE_BET:
        wrong, what = _side_bet_wrong(wager, rules)
        note = f"{place} {wager.kind}: {what}: settled {wrong}, due {due}"
    elif code is Code.PAY_BLACKJACK_SHORT:
        wrong = _natural_short(wager, rules)
        note = f"{place}: natural paid {wrong}, due {due}"
    elif code is Code.PAY_WRONG_OUTCOME:
        wrong = -due
        note = f"{place}: {'win taken' if due > 0 else 'loss paid'}: settled {wrong}, due {due}"
    elif code is Code.PAY_WRONG_AMOUNT and wager.surrendered:
        wrong = -wager.stake
        note = f"{place}: surrender settled as the whole stake: {wrong}, due {due}"
    elif code is Code.PAY_WRONG_AMOUNT and wager.natural:
        over = _natural_overpaid(wager, rules)
        assert over is not None
        wrong = over
        note = f"{place}: natural paid {wrong}, due {due}"
    elif code is Code.PAY_WRONG_AMOUNT:
        wrong = due * wager.stake / (wager.stake + wager.extra)
        note = f"{place}: doubled stake settled as single: {wrong}, due {due}"
    elif code is Code.PAY_INSURANCE:
        wrong = ZERO if due < 0 else pay(wager.stake, rules.win_pays)
        note = f"box {wager.box} spot {wager.spot}: insurance settled {wrong}, due {due}"
    else:  # pragma: no cover - the caller passes settlement classes only
        raise ValueError(f"{code} is not a settlement class")
    wrong = _cents(wrong)
    wager.draft.fields["amount"] = wrong if wrong != 0 else ZERO
    return note


def _cents(amount: Decimal) -> Decimal:
    """A wrong amount as a dealer pays it: in cents (a stake with cents makes 3:2 of it,
    or a double's share, finer than TEL/1's money); whole cents are left as they are."""
    if amount == amount.quantize(Decimal("0.01")):
        return amount
    return amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
