"""Tables dealt wrong on purpose (``simulate --bias``): only where asked, never by default."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.errors import InputError
from audit.events.cards import hand_total, normalise_card
from audit.simulate import iter_shoes
from audit.simulate.bias import Bias, parse_biases

PROFILES = ["it-casino-6d"]


def _dealer_hands(events: list[dict[str, object]]) -> list[list[str]]:
    hands: dict[object, list[str]] = {}
    for e in events:
        if e["type"] == "card" and e["to"] == "dealer":
            hands.setdefault(e["round"], []).append(normalise_card(str(e["card"])))
    return list(hands.values())


def _shoe_cards(events: list[dict[str, object]]) -> int:
    out = 0
    for e in events:
        if e["type"] == "card":
            out += 1
        elif e["type"] == "burn":
            out += len(e.get("cards") or []) or int(e.get("count") or 0)  # type: ignore[call-overload]
        elif e["type"] == "shoe_close":
            out += int(e["remaining"])  # type: ignore[call-overload]
    return out


def test_parse_biases() -> None:
    assert parse_biases(["T01:short-dealer=0.5", "T01:strip-tens=4", "T02:strip-tens"]) == {
        "T01": Bias(0.5, 4),
        "T02": Bias(0.0, 8),
    }
    assert parse_biases(["T03:short-dealer"]) == {"T03": Bias(1.0, 0)}
    for bad in ["T01", "T01:nothing", ":strip-tens", "T01:strip-tens=0", "T01:short-dealer=2"]:
        with pytest.raises(InputError, match="--bias"):
            parse_biases([bad])


def test_no_bias_deals_the_same_night() -> None:
    plain = [s.events for s in iter_shoes(tables=2, shoes=2, profiles=PROFILES, seed=4)]
    empty = [s.events for s in iter_shoes(tables=2, shoes=2, profiles=PROFILES, seed=4, biases={})]
    assert plain == empty


def test_a_short_dealer_stands_below_17_at_his_table_only() -> None:
    biases = {"T01": Bias(short_dealer=1.0)}
    shoes = list(iter_shoes(tables=2, shoes=3, profiles=PROFILES, seed=4, biases=biases))
    short = {
        s.table: sum(1 for h in _dealer_hands(s.events) if len(h) >= 2 and hand_total(h)[0] < 17)
        for s in shoes
    }
    assert short["T01"] > 5
    assert short["T02"] == 0


def test_stripped_tens_leave_every_shoe_of_the_table_short() -> None:
    biases = {"T02": Bias(stripped_tens=6)}
    shoes = list(iter_shoes(tables=2, shoes=2, profiles=PROFILES, seed=4, biases=biases))
    assert {(s.table, _shoe_cards(s.events)) for s in shoes} == {("T01", 312), ("T02", 306)}


def test_simulate_cli_bias_option(runner: CliRunner, tmp_path: Path) -> None:
    args = ["simulate", "--tables", "2", "--shoes", "1", "--out", str(tmp_path)]
    result = runner.invoke(app, [*args, "--bias", "T02:strip-tens=3"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, [*args, "--bias", "T07:strip-tens=3"])
    assert result.exit_code == 1
    assert "--bias names tables ['T07'] beyond T01..T02" in result.output
