"""The simulator writes every field of the format: a field it never writes is a blind spot.

The shipped build once crashed on valid logs the simulator never wrote (a back
bettor's ``spots`` on a double, issue 28): every test built on simulated nights
was blind to them. The field list is derived from the models in
:mod:`audit.events.models`, the format's one definition, so a field added there
and never simulated fails here.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.events.cards import normalise_card
from audit.events.models import EVENT_TYPES
from audit.findings import Code
from audit.simulate import MANIFEST_NAME, iter_shoes
from audit.simulate.dress import UNKNOWN_FIELDS

PROFILES = [
    "it-casino-6d",
    "it-casino-5d",
    "it-casino-6d-mandatory",
    "ventuno-family",
    "us-strip-6d-s17",
]
"""The four Italian profiles and the US game of games.md §5: its hole card (``peek``,
``reveal``) and its side bets (``bet.kind``, ``shoe_open.side_limits``)."""

PINNED = [
    "simulate",
    "--tables", "5",
    "--rounds", "400",
    *(x for p in PROFILES for x in ("--profile", p)),
    "--seed", "2",
    "--error-rate", "0.05",
    "--rich-share", "1",
    "--books", "--tips", "--days", "2",
    "--books-error-rate", "1",
]  # fmt: skip
"""All five profiles and every option that adds events: ``--rounds`` (enough for
the rare ones: even money, exposed cards, void rounds), ``--error-rate`` (objections
that go ahead, late bets, partial ``spots``), ``--rich-share 1`` (every table
writes every optional field, ``stream`` and the books' included), ``--books``
with ``--tips`` over two days (the table-level types of TEL/1 v1.2, in the tables'
streams and in ``CAGE``, ``COUNT`` and ``ACCOUNTING``), ``--books-error-rate 1``
(a void slip and an accounting adjustment are only ever injected). ``--bias``
deals differently but writes no other field, and ``--gzip`` only compresses."""

EXCLUDED: dict[tuple[str, str], str] = {}
"""(type, field) pairs the pinned command may leave unused, each with the reason.

Empty: a clean night already writes every field of every event type (the
objection of 000 included, which bettors raise without any injected error), and
``LOG_UNKNOWN_TYPE`` events are not in the models' list of types (an unknown
``type`` is a finding, which a clean night must not raise). An entry here is
for a field only an injected error may carry, and is checked to be unused."""


def _model_fields() -> set[tuple[str, str]]:
    return {(t, name) for t, model in EVENT_TYPES.items() for name in model.model_fields}


@pytest.fixture(scope="module")
def pinned_night(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("pinned")
    result = CliRunner().invoke(app, [*PINNED, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / MANIFEST_NAME).exists()
    return [
        json.loads(line, parse_float=Decimal)
        for path in sorted(out.rglob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def test_pinned_simulate_command_writes_every_field_of_the_models(
    pinned_night: list[dict[str, Any]],
) -> None:
    written = {(e["type"], key) for e in pinned_night for key in e}
    wanted = _model_fields()
    assert set(EXCLUDED) <= wanted, "an exclusion names no field of the models"
    assert not set(EXCLUDED) & written, "an excluded field is written after all: drop it"
    unused = sorted(wanted - set(EXCLUDED) - written)
    assert unused == [], f"fields of audit/events/models.py the simulator never writes: {unused}"


def test_unknown_fields_are_the_only_fields_outside_the_models(
    pinned_night: list[dict[str, Any]],
) -> None:
    known = {name for _, name in _model_fields()}
    extra = {key for e in pinned_night for key in e} - known
    assert extra == {name for name, _ in UNKNOWN_FIELDS}


def test_rich_tables_write_every_optional_form(pinned_night: list[dict[str, Any]]) -> None:
    """The forms event-log.md allows besides the plain one, each at least once."""
    cards = [e for e in pinned_night if e["type"] == "card"]
    codes = [e["card"] for e in cards]
    assert any(c.startswith("10") for c in codes), "10 for T"
    assert any(c != c.upper() for c in codes), "lower-case card codes"
    assert any(e.get("face_up") is True for e in cards), "an explicit face_up"
    casino = {e["table"] for e in pinned_night if e["type"] == "cut_card"}
    assert any("pos" not in e for e in cards if e["table"] in casino), "a card without pos"
    assert any("pos" in e for e in pinned_night if e["type"] == "burn"), "burn.pos"
    assert any("position" in e for e in pinned_night if e["type"] == "cut"), "cut.position"
    assert all(e.get("v", 1) == 1 for e in pinned_night) and any("v" in e for e in pinned_night)
    actions = Counter(e["action"] for e in pinned_night if e["type"] == "action")
    assert actions["hit"] and actions["stand"], "explicit hit and stand"
    assert any("spots" in e for e in pinned_night if e["type"] == "action"), "spots"


def _rounds(events: list[dict[str, Any]]) -> dict[tuple[str, str, int], list[dict[str, Any]]]:
    out: dict[tuple[str, str, int], list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        if "round" in e:
            out[(e["table"], e["shoe"], e["round"])].append(e)
    return out


def test_spots_list_every_staked_spot_but_where_injected(tmp_path: Path) -> None:
    """Clean doubles and splits list every staked spot of the hand; a partial list
    is only ever the injected ``PLAY_UNCONSENTED``, at its manifest's place."""
    shoes = list(
        iter_shoes(
            tables=3, shoes=1, rounds=400, profiles=PROFILES[:3], seed=7, error_rate=0.2,
            rich_share=1.0,
        )
    )  # fmt: skip
    unconsented = {
        (i.table, i.shoe, i.round, i.box, i.hand)
        for s in shoes
        for i in s.injected
        if i.code is Code.PLAY_UNCONSENTED
    }
    listed = partial = 0
    for s in shoes:
        for (table, shoe, rnd), events in _rounds(s.events).items():
            stakes: dict[tuple[int, int], set[int]] = defaultdict(set)
            for e in events:
                if e["type"] == "bet":
                    spots = stakes[(e["box"], 0)]
                    (spots.add if e["amount"] > 0 else spots.discard)(e["spot"])
                if e["type"] != "action" or e["action"] not in ("double", "split"):
                    continue
                staked = stakes[(e["box"], e["hand"])]
                assert "spots" in e
                listed += 1
                if set(e["spots"]) != staked:
                    partial += 1
                    assert set(e["spots"]) < staked
                    assert (table, shoe, rnd, e["box"], e["hand"]) in unconsented
                if e["action"] == "split":
                    n = len({h for (b, h) in stakes if b == e["box"]})
                    stakes[(e["box"], n)] = set(e["spots"])
    assert listed > 100
    assert 0 < partial <= len(unconsented)


def test_shuffle_order_is_the_order_the_cards_leave_the_shoe(
    pinned_night: list[dict[str, Any]],
) -> None:
    """``order[0]`` is the card at pos 1, the first burn (event-log.md, ``shuffle``)."""
    checked = 0
    order: list[str] | None = None
    pos = 1
    for e in sorted(pinned_night, key=lambda e: (e["table"], e["seq"])):
        if e["type"] == "shoe_open":
            order, pos = None, 1
        elif e["type"] == "shuffle":
            order = [normalise_card(c) for c in e["order"]] if "order" in e else None
        elif e["type"] in ("burn", "card"):
            cards = e["cards"] if e["type"] == "burn" else [e["card"]]
            n = len(cards) or e.get("count", 0)
            pos = e.get("pos", pos)
            for i, card in enumerate(cards):
                if order is not None:
                    assert normalise_card(card) == order[pos + i - 1], (e["id"], pos + i)
                    checked += 1
            pos += n
    assert checked > 500


def test_void_rounds_return_every_stake(pinned_night: list[dict[str, Any]]) -> None:
    """A void round (misdeal): every stake, side bets' too, settled 0, then the round closes."""
    voids = 0
    for events in _rounds(pinned_night).values():
        types = [e["type"] for e in events]
        if "void" not in types:
            continue
        voids += 1
        after = events[types.index("void") + 1 :]
        assert [e["type"] for e in after][-1] == "round_close"
        settles = [e for e in after if e["type"] == "settle"]
        assert settles and all(e["amount"] == 0 for e in settles)
        staked = {
            (e["box"], e["spot"], e.get("kind", "main"))
            for e in events
            if e["type"] == "bet" and e["amount"] > 0
        }
        assert {(e["box"], e["spot"], e["kind"]) for e in settles} == staked
    assert voids > 0


def test_a_double_for_less_than_the_stake(pinned_night: list[dict[str, Any]]) -> None:
    doubles = [e for e in pinned_night if e["type"] == "action" and "amount" in e]
    assert doubles and all(e["action"] == "double" and e["amount"] > 0 for e in doubles)
    assert any(len(e.get("spots", [0])) > 1 for e in doubles), "for less, with bets behind"


def test_rich_share_is_a_share(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", "--rich-share", "1.5", "--out", str(tmp_path)])
    assert result.exit_code == 2
