"""Nights shared by the statistics tests (each is dealt and tested once per worker)."""

from __future__ import annotations

import pytest

from audit.stats.frames import StatsData
from audit.stats.suite import StatsResult, run_stats
from tests.stats import fakes
from tests.stats.fakes import BIASED, EDGE, registry


@pytest.fixture(scope="session")
def clean() -> StatsResult:
    night = fakes.Night()
    for i in range(1, 5):
        knobs = fakes.Knobs(edge=EDGE)
        fakes.night(40, seed=11, table=f"T0{i}", dealer=f"D{i}", knobs=knobs, into=night)
    # books that agree with the hands: hold_drop and payout_30d have rows, and flag nothing
    return run_stats(fakes.data(night, fakes.books(night)), registry())


@pytest.fixture(scope="session")
def biased_night() -> StatsData:
    night = fakes.Night()
    for i, (table, knobs) in enumerate(BIASED.items()):
        fakes.night(40, seed=12, table=table, dealer=f"D{i}", knobs=knobs, into=night)
    return fakes.data(night)


@pytest.fixture(scope="session")
def biased(biased_night: StatsData) -> StatsResult:
    return run_stats(biased_night, registry())
