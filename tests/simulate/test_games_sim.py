"""games.md §7: the simulator deals the four new profiles and a casino's own by their fields.

Each test re-reads the events the simulator wrote (no simulator state) and tallies what
the profile's fields say must happen: the hole card in its pass, a peek exactly where
one is due, surrender only where allowed, 6:5 paid and rounded, every pay-table line
reached, and the same seed dealing the same bytes.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from audit.events.cards import hand_total, is_ace, is_ten_value, normalise_card
from audit.profiles import load_registry
from audit.sidebets.paytables import load_paytables
from audit.simulate import iter_shoes, simulate
from audit.simulate.games import due
from tests.cli.helpers import cli as run

GAMES = ["us-strip-6d-s17", "us-6d-h17-6to5", "uk-6d-enhc", "au-6d-obbo"]
TEST_PROFILES = Path(__file__).resolve().parents[1] / "data" / "games-profiles"
OWN = ["test-hole-obo-early", "test-bb1-22-halves"]


def _rounds(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = []
    for e in events:
        if e["type"] == "round_open":
            out.append([])
        if out and e.get("round") is not None and e["type"] != "round_open":
            out[-1].append(e)
    return out


def _night(pid: str, *, tables: int = 2, shoes: int = 1, seed: int = 7) -> list[Any]:
    reg = load_registry(TEST_PROFILES)
    return list(iter_shoes(tables=tables, shoes=shoes, profiles=[pid], seed=seed, registry=reg))


@pytest.mark.parametrize("pid", GAMES + OWN)
def test_hole_card_and_peek_follow_the_profile(pid: str) -> None:
    """The hole card comes face down last in the second pass where ``initial_deal`` has
    one, never elsewhere; a ``peek`` comes exactly under the up cards the profile peeks
    on, after insurance and even money and before any decision (games.md §3)."""
    rules = load_registry(TEST_PROFILES).get(pid).rules
    hole = rules.initial_deal.has_hole_card
    seen: Counter[str] = Counter()
    for shoe in _night(pid):
        for rnd in _rounds(shoe.events):
            if any(e["type"] == "void" for e in rnd):
                continue
            cards = [e for e in rnd if e["type"] == "card"]
            boxes = len({e["box"] for e in rnd if e["type"] == "bet"})
            dealer = [e for e in cards if e["to"] == "dealer"]
            face_down = [e for e in dealer if e.get("face_up") is False]
            up = dealer[0]["card"]
            if hole:
                assert face_down == [cards[2 * boxes + 1]], rnd
                seen["hole"] += 1
            else:
                assert not face_down
            peeks = [i for i, e in enumerate(rnd) if e["type"] == "peek"]
            due_ = hole and (
                (is_ace(up) and rules.peek_on_ace) or (is_ten_value(up) and rules.peek_on_ten)
            )
            assert len(peeks) == (1 if due_ else 0), (pid, up, rnd)
            if peeks:
                seen["peek"] += 1
                first_action = next(
                    (
                        i
                        for i, e in enumerate(rnd)
                        if e["type"] == "action"
                        and (e["action"] != "surrender" or rules.surrender_kind != "early")
                    ),
                    len(rnd),
                )
                last_offer = max(
                    (i for i, e in enumerate(rnd) if e["type"] in ("insurance", "even_money")),
                    default=-1,
                )
                assert last_offer < peeks[0] < first_action
                bj = hand_total((up, face_down[0]["card"]))[0] == 21
                assert rnd[peeks[0]]["blackjack"] is bj
                if bj:
                    seen["peek_blackjack"] += 1
                    later = rnd[peeks[0] + 1 :]
                    assert not any(e["type"] in ("card", "action") for e in later), rnd
    if hole:
        assert seen["hole"] > 20 and seen["peek"] > 0


@pytest.mark.parametrize("pid", GAMES + OWN)
def test_surrender_only_where_the_profile_allows_it(pid: str) -> None:
    rules = load_registry(TEST_PROFILES).get(pid).rules
    surrendered = 0
    for shoe in _night(pid, tables=4):
        for rnd in _rounds(shoe.events):
            for e in rnd:
                if e["type"] == "action" and e["action"] == "surrender":
                    surrendered += 1
                    up = next(c["card"] for c in rnd if c["type"] == "card" and c["to"] == "dealer")
                    rank = "T" if is_ten_value(up) else up[0]
                    assert rules.surrender_allowed and rank in rules.surrender_against
                    assert e["hand"] == 0
    assert (surrendered > 0) == rules.surrender_allowed


@pytest.mark.parametrize("pid", ["us-6d-h17-6to5", "test-bb1-22-halves", "us-strip-6d-s17"])
def test_naturals_paid_by_blackjack_pays_and_rounded_to_the_unit(pid: str) -> None:
    """6:5 of 7 is 8.40 (8.50 at unit 0.50); 3:2 of 10.01 15.02 (games.md §3)."""
    rules = load_registry(TEST_PROFILES).get(pid).rules
    paid = 0
    for shoe in _night(pid, tables=4):
        for rnd in _rounds(shoe.events):
            stakes = {
                (e["box"], e["spot"]): Decimal(str(e["amount"]))
                for e in rnd
                if e["type"] == "bet" and e.get("kind", "main") == "main"
            }
            first: dict[int, list[str]] = {}
            for e in rnd:
                if e["type"] == "card" and e["to"] == "box" and "hand" not in e:
                    first.setdefault(e["box"], []).append(e["card"])
            for e in rnd:
                if e["type"] != "settle" or e["kind"] != "main" or e["hand"] != 0:
                    continue
                two = first[e["box"]][:2]
                if hand_total(tuple(two))[0] == 21 and Decimal(str(e["amount"])) > 0:
                    stake = stakes[(e["box"], e["spot"])]
                    amount = Decimal(str(e["amount"]))
                    if amount == stake:  # even money
                        continue
                    assert amount == due(stake, rules.blackjack_pays, rules), (stake, amount)
                    assert amount % rules.payout_unit == 0
                    paid += 1
    assert paid > 0
    assert due(Decimal(7), Fraction(6, 5), rules) in (Decimal("8.40"), Decimal("8.5"))


@pytest.mark.parametrize("pid", GAMES + OWN)
def test_every_pay_table_line_is_reached_in_a_night(pid: str) -> None:
    """8 tables x 3 shoes: every line of every side bet offered is paid at least once,
    the rare ones by the rigged first round whose shoe order the ``shuffle`` records."""
    reg = load_registry(TEST_PROFILES)
    rules = reg.get(pid).rules
    tables = load_paytables(reg.folder)
    features: Counter[str] = Counter()
    for shoe in _night(pid, tables=8, shoes=3):
        features.update(shoe.features)
        limits = shoe.events[0].get("side_limits")
        assert set(limits or {}) == set(rules.side_bets)
        if shoe.features["rigged_shoes"]:
            order = next(e["order"] for e in shoe.events if e["type"] == "shuffle")
            dealt = [e["card"] for e in shoe.events if e["type"] == "card"]
            assert normalise_card(dealt[0]) == normalise_card(order[rules.burn_count])
    for kind, pid_ in rules.side_bets.items():
        for line in tables.get(pid_).lines:
            assert features[f"side_line:{kind}:{line}"] > 0, (kind, line)


@pytest.mark.parametrize("pid", ["us-strip-6d-s17", "test-hole-obo-early"])
def test_the_same_seed_deals_the_same_bytes(tmp_path: Path, pid: str) -> None:
    reg = load_registry(TEST_PROFILES)
    kw: dict[str, Any] = {"tables": 2, "shoes": 1, "profiles": [pid], "seed": 11, "registry": reg}
    simulate(tmp_path / "a", error_rate=0.0, **kw)
    simulate(tmp_path / "b", error_rate=0.0, **kw)
    a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.jsonl"))
    assert a
    for rel in a:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()


@pytest.mark.parametrize("pid", GAMES)
def test_a_new_profile_night_is_valid_tel1(tmp_path: Path, pid: str) -> None:
    """Every line passes ``validate`` with TEL/1 v1.2 (``peek``, ``reveal``, side-bet
    ``kind``s on ``bet`` and ``settle``)."""
    out = tmp_path / "night"
    simulate(out, tables=2, shoes=1, profiles=[pid], seed=5, error_rate=0.0)
    result = run("validate", str(out))
    assert result.exit_code == 0, result.stdout + result.stderr
