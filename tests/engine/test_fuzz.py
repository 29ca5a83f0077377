"""Never crash on nonsense: random but well-formed TEL/1 events replay without raising.

The engine's contract (``replay_shoe``): "Never raises on well-formed events".
Hypothesis writes shoes of any event types in any order, with small boxes,
hands, spots and positions so that events collide with each other often
(splits of hands that do not exist, settles for hands never dealt, cards to
the dealer mid-deal, shuffles between rounds, rounds out of order, ...).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.engine import ShoeContext, replay_shoe
from audit.events.cards import full_deck
from audit.events.parse import parse_object
from tests.engine.builders import REGISTRY
from tests.engine.legal import legal_shoe

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]
CARDS = st.sampled_from(sorted(set(full_deck())))
BOX = st.integers(min_value=1, max_value=4)
HAND = st.integers(min_value=0, max_value=3)
SPOT = st.integers(min_value=0, max_value=3)
MONEY = st.sampled_from([Decimal(x) for x in ("0", "5", "10", "12.5", "15", "20", "100")])
SIGNED = st.sampled_from([Decimal(x) for x in ("-40", "-20", "-10", "0", "10", "15", "20", "30")])
POS = st.one_of(st.none(), st.integers(min_value=1, max_value=40))


def _opt(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


SHOE_EVENTS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "shoe_open": st.fixed_dictionaries(
        {
            "profile": st.sampled_from(PROFILES),
            "decks": st.integers(min_value=1, max_value=6),
            "dealer": st.sampled_from(["D1", "D2"]),
        },
        optional={"min_bet": MONEY, "max_bet": MONEY},
    ),
    "inspection": st.fixed_dictionaries(
        {"decks": st.integers(min_value=1, max_value=6), "ok": st.booleans()}
    ),
    "shuffle": st.fixed_dictionaries(
        {"method": st.sampled_from(["wash", "riffle", "machine"])},
        optional={"order": st.lists(CARDS, max_size=12)},
    ),
    "cut": st.one_of(
        st.fixed_dictionaries({"by": st.just("box"), "box": BOX}),
        st.fixed_dictionaries({"by": st.just("dealer")}),
    ),
    "cut_card": st.fixed_dictionaries({"position": st.integers(min_value=0, max_value=320)}),
    "burn": st.one_of(
        st.fixed_dictionaries(
            {"cards": st.lists(CARDS, max_size=6), "face_down": st.booleans()},
            optional={"pos": st.integers(min_value=1, max_value=40)},
        ),
        st.fixed_dictionaries({"cards": st.just([]), "count": st.integers(0, 6)}),
    ),
    "dealer_change": st.fixed_dictionaries({"dealer": st.sampled_from(["D1", "D2", "D3"])}),
    "shoe_close": st.fixed_dictionaries(
        {"reason": st.sampled_from(["cut_card", "reshuffle", "other"])},
        optional={"remaining": st.integers(min_value=0, max_value=320)},
    ),
}

ROUND_EVENTS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "round_open": st.just({}),
    "bet": st.fixed_dictionaries({"box": BOX, "spot": SPOT, "amount": MONEY}),
    "no_more_bets": st.just({}),
    "card": st.one_of(
        st.fixed_dictionaries(
            {"card": CARDS, "to": st.just("box"), "box": BOX, "hand": HAND},
            optional={"face_up": st.booleans(), "pos": st.integers(min_value=1, max_value=40)},
        ),
        st.fixed_dictionaries(
            {"card": CARDS, "to": st.just("dealer")},
            optional={"face_up": st.booleans(), "pos": st.integers(min_value=1, max_value=40)},
        ),
    ),
    "action": st.fixed_dictionaries(
        {
            "box": BOX,
            "hand": HAND,
            "action": st.sampled_from(["hit", "stand", "double", "split", "surrender"]),
        },
        optional={"spots": st.lists(SPOT, max_size=3), "amount": MONEY},
    ),
    "objection": st.fixed_dictionaries(
        {"box": BOX, "hand": HAND, "spot": SPOT, "action": st.sampled_from(["double", "split"])}
    ),
    "insurance": st.fixed_dictionaries({"box": BOX, "spot": SPOT, "amount": MONEY}),
    "even_money": st.fixed_dictionaries({"box": BOX, "spot": SPOT}),
    "exposed_card": st.fixed_dictionaries({"card": CARDS}),
    "offer": st.one_of(
        st.fixed_dictionaries(
            {"card": CARDS, "to": st.just("box"), "box": BOX, "accepted": st.booleans()}
        ),
        st.fixed_dictionaries({"card": CARDS, "to": st.just("dealer"), "accepted": st.booleans()}),
    ),
    "cut_card_out": st.just({}),
    "settle": st.fixed_dictionaries(
        {
            "box": BOX,
            "hand": HAND,
            "spot": SPOT,
            "kind": st.sampled_from(["main", "insurance", "bonus"]),
            "amount": SIGNED,
        }
    ),
    "void": st.fixed_dictionaries({"reason": st.just("misdeal")}),
    "round_close": st.just({}),
    "chip_count": st.just({}),
}

# Round events are drawn more often: that is where the rules live.
EVENT = st.one_of(
    st.tuples(st.sampled_from(sorted(SHOE_EVENTS)), st.none()).flatmap(
        lambda t: st.tuples(st.just(t[0]), SHOE_EVENTS[t[0]], st.just(None))
    ),
    *[
        st.tuples(
            st.sampled_from(sorted(ROUND_EVENTS)), st.integers(min_value=1, max_value=3)
        ).flatmap(lambda t: st.tuples(st.just(t[0]), ROUND_EVENTS[t[0]], st.just(t[1])))
        for _ in range(4)
    ],
)


def _shoe(
    profile: str, events: list[tuple[str, dict[str, Any], int | None]], open_first: bool
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if open_first:
        events = [("shoe_open", {"profile": profile, "decks": 6, "dealer": "D1"}, None), *events]
    for i, (type_, fields, rnd) in enumerate(events, start=1):
        obj: dict[str, Any] = {
            "id": f"F-{i}",
            "seq": i,
            "ts": "2026-11-28T20:00:00+01:00",
            "table": "F",
            "shoe": "F-1",
            "type": type_,
            **fields,
        }
        if rnd is not None:
            obj["round"] = rnd
        out.append(obj)
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    profile=st.sampled_from(PROFILES),
    events=st.lists(EVENT, max_size=60),
    open_first=st.booleans(),
    first_shoe=st.booleans(),
    banker=st.sampled_from([None, "D1", "D2"]),
)
def test_random_well_formed_events_never_crash(
    profile: str,
    events: list[tuple[str, dict[str, Any], int | None]],
    open_first: bool,
    first_shoe: bool,
    banker: str | None,
) -> None:
    parsed = [parse_object(e) for e in _shoe(profile, events, open_first)]
    context = ShoeContext(
        first_shoe_of_gaming_day=first_shoe, banker=banker, banker_rounds_before=9
    )
    replay = replay_shoe(parsed, REGISTRY.get(profile), context)
    replay.to_dict()
    for f in replay.findings:
        f.to_dict()
    assert replay.findings == replay_shoe(parsed, REGISTRY.get(profile), context).findings


MUTATIONS = st.lists(
    st.tuples(
        st.sampled_from(["drop", "repeat", "swap", "retarget", "reround"]),
        st.integers(min_value=0, max_value=10_000),
        st.integers(min_value=1, max_value=3),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    profile=st.sampled_from(PROFILES),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    mutations=MUTATIONS,
)
def test_mutated_legal_shoes_never_crash(
    profile: str, seed: int, mutations: list[tuple[str, int, int]]
) -> None:
    """A legal shoe (the independent oracle) with events dropped, repeated, swapped or moved."""
    log, _ = legal_shoe(profile, seed)
    events = [dict(e) for e in log.events]
    for kind, where, n in mutations:
        k = where % len(events)
        if kind == "drop" and len(events) > 1:
            events.pop(k)
        elif kind == "repeat":
            events.insert(k, dict(events[k]))
        elif kind == "swap" and k + 1 < len(events):
            events[k], events[k + 1] = events[k + 1], events[k]
        elif kind == "retarget" and "box" in events[k]:
            events[k]["box"] = n
            if "hand" in events[k]:
                events[k]["hand"] = n - 1
        elif kind == "reround" and "round" in events[k]:
            events[k]["round"] = n
    for i, e in enumerate(events, start=1):
        e["seq"], e["id"] = i, f"M-{i}"
    parsed = [parse_object(e) for e in events]
    replay = replay_shoe(parsed, REGISTRY.get(profile), ShoeContext())
    replay.to_dict()
