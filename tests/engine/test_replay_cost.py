"""What a round costs the compiled engine: no Python it cannot compile, once a round (issue 32).

mypyc compiles ``audit/engine``; what the engine calls outside it runs interpreted, a
Python frame each time: a pydantic model's property, a helper of ``audit.events``, the
``__init__`` a dataclass writes at import time. Called once a round or once a wager,
such calls made an Italian night's ``run`` slower than the build before the games engine
(callgrind over 300 shoes: 455M instructions before, 475M with them). These tests count
the calls with a profile hook, which sees every Python frame whether a compiled or an
interpreted caller made it, so they hold for the pure-Python engine as well.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import audit.engine
from audit.engine import ShoeContext, replay_shoe
from audit.engine.round import upcard_can_bj
from audit.events.cards import RANKS, SUITS, is_ace, is_ten_value
from audit.events.parse import parse_object
from audit.profiles import load_registry
from audit.simulate import iter_shoes

ENGINE = Path(audit.engine.__file__).resolve().parent


def _outside_calls(fn: Callable[[], Any]) -> Counter[str]:
    """The Python functions outside ``audit/engine`` that ``fn()`` runs, by name, with how
    often; a dataclass-written ``__init__`` (no file of its own) as ``<Class>.__init__``."""
    seen: Counter[str] = Counter()

    def hook(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if code.co_filename == __file__ or Path(code.co_filename).resolve().parent == ENGINE:
            return  # this test's own frames; the engine itself (compiled in the build users run)
        if code.co_filename == "<string>" and code.co_name == "__init__":
            seen[f"<{type(frame.f_locals.get('self')).__name__}>.__init__"] += 1
        else:
            seen[code.co_qualname] += 1

    sys.setprofile(hook)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


def _replay_calls(profile: str, rounds: int) -> tuple[int, Counter[str]]:
    """The rounds of the first clean simulated shoe of ``profile`` dealt ``rounds`` rounds
    (a shoe's cut card may end it sooner), and the calls its replay makes outside the engine."""
    registry = load_registry()
    shoe = next(iter_shoes(tables=1, shoes=1, rounds=rounds, profiles=[profile], seed=32))
    events = [parse_object(e) for e in shoe.events]
    replay = replay_shoe(events, registry.get(profile), ShoeContext())
    assert not replay.findings
    calls = _outside_calls(lambda: replay_shoe(events, registry.get(profile), ShoeContext()))
    return len(replay.rounds), calls


@pytest.mark.parametrize("profile", ["it-casino-6d", "uk-6d-enhc", "us-strip-6d-s17"])
def test_a_shoe_reads_its_deal_once_whatever_its_rounds(profile: str) -> None:
    """The deal's properties (``Deal.upcard_index``, ``hole_card_index``, ``has_hole_card``,
    pydantic's) are read once a shoe (``DealShape``): as often for many rounds as for 2."""
    (two, few), (many, more) = _replay_calls(profile, 2), _replay_calls(profile, 30)
    assert two == 2 and many >= 10
    deal = {k: n for k, n in more.items() if k.startswith("Deal.")}
    assert deal == {k: n for k, n in few.items() if k.startswith("Deal.")}
    assert deal, "the shoe reads its deal at least once (else this test counts nothing)"


@pytest.mark.parametrize("profile", ["it-casino-6d", "us-strip-6d-s17"])
def test_no_wager_is_made_by_a_dataclass_init(profile: str) -> None:
    """A round's wagers are made by ``Wager``'s own ``__init__`` (compiled with the engine),
    not one a dataclass writes at import time, which runs interpreted once a wager."""
    rounds, calls = _replay_calls(profile, 12)
    assert rounds >= 10
    assert calls["<Wager>.__init__"] == 0


def test_a_blackjack_up_card_is_told_without_leaving_the_engine() -> None:
    """``upcard_can_bj``, asked at least once a round, calls no uncompiled helper, and says
    what :func:`is_ace` and :func:`is_ten_value` say of every rank."""
    cards = [f"{rank}{suit}" for rank in RANKS for suit in SUITS]
    calls = _outside_calls(lambda: [upcard_can_bj(c) for c in cards])
    assert not calls
    assert [upcard_can_bj(c) for c in cards] == [is_ace(c) or is_ten_value(c) for c in cards]
