"""``serve``'s hand page of the US game (issue 32, point 6): the same hole card, peek, reveal,
surrender steps and side bets as ``hand`` and ``report`` (one template), from the database
through a real uvicorn server, on the hand-written night of
:mod:`tests.reports.holecard_night`."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.web.app import ServeConfig, create_app
from audit.web.urls import hand_url
from tests.reports.holecard_night import PROFILES, SHOE, TABLE, audited_night
from tests.reports.test_hole_card_pages import ByClass, assert_example_round
from tests.web.client import Client, running


@pytest.fixture(scope="module")
def night_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return audited_night(tmp_path_factory.mktemp("holecard-web"))


def test_the_web_hand_page_shows_the_hole_card_the_peek_and_surrenders(night_db: Path) -> None:
    with running(create_app(ServeConfig(db=night_db, profiles=PROFILES))) as port:
        client = Client(port)
        example = client.get(hand_url(TABLE, SHOE, 9))
        late = client.get(hand_url(TABLE, SHOE, 10))
        side = client.get(hand_url(TABLE, SHOE, 15))
    assert example.status == 200 and late.status == 200 and side.status == 200
    assert_example_round(example.text)
    assert ByClass(late.text).texts("surrender") == [
        "late surrender , after the peek spot 0: stake 20.00, due -10.00 "
        "(surrendered: half the stake)"
    ]
    by = ByClass(side.text)
    assert by.texts("side-line")[:2] == ["perfect, pays 25 to 1", "coloured, pays 12 to 1"]
    assert by.texts("bet-code") == ["BET_LIMIT"]
