"""Regulators' bands on small samples (issue 30, point 7): a band is judged only on the
rounds it needs. A table of 85 rounds whose hold is 20 points off is "too few rounds to
judge (85 of the M needed)", not pink "over 3 points (Kansas)"; a table of thousands is
judged; the marks name their rule as a reference band, not the casino's jurisdiction.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from audit.reports.statistics import statistics_section
from audit.reports.templating import render
from audit.stats.house import HOUSE_RESULT, KANSAS_POINTS, Z95, kansas_needed
from audit.stats.rows import StatRow
from audit.stats.suite import StatsResult, run_stats
from tests.reports.htmlcheck import Page
from tests.stats import fakes
from tests.stats.fakes import EDGE, registry


@pytest.fixture(scope="module")
def small_and_large() -> StatsResult:
    """T01: four shoes (85 rounds); T02: 260 shoes (5,524 rounds), both dealt fair."""
    night = fakes.Night()
    fakes.night(4, seed=3, table="T01", dealer="D1", knobs=fakes.Knobs(edge=EDGE), into=night)
    fakes.night(260, seed=3, table="T02", dealer="D2", knobs=fakes.Knobs(edge=EDGE), into=night)
    return run_stats(fakes.data(night), registry())


def _house(result: StatsResult, table: str) -> StatRow:
    return next(
        r
        for r in result.rows
        if r.test == "house_result" and r.scope == "table" and r.subject == table
    )


def test_kansas_needs_the_rounds_that_make_its_band_narrower_than_3_points() -> None:
    # se falls as 1/sqrt(n): at n(z·se/0.03)² rounds the 95% half-width is 3 points
    n, se = 100, 0.05
    needed = kansas_needed(n, se)
    assert needed == math.ceil(n * (Z95 * se / KANSAS_POINTS) ** 2) == 1_068
    assert Z95 * se * math.sqrt(n / needed) <= KANSAS_POINTS
    assert kansas_needed(100_000, 0.001) == HOUSE_RESULT.min_n  # never below the test's own


def test_a_small_table_is_too_few_rounds_to_judge(small_and_large: StatsResult) -> None:
    row = _house(small_and_large, "T01")
    assert row.n == 85
    assert abs(row.detail["hold"] - row.detail["edge"]) > KANSAS_POINTS  # the old pink mark
    assert not row.detail["kansas"] and not row.detail["maryland"]
    needed = row.detail["kansas_needed"]
    assert needed > row.n
    assert f"the Kansas 3-point band: too few rounds to judge (85 of the {needed:,} needed)" in (
        row.message
    )
    assert "the Maryland 95% band: too few rounds to judge (85 of the 500 needed)" in row.message


def test_a_large_table_is_judged(small_and_large: StatsResult) -> None:
    row = _house(small_and_large, "T02")
    assert row.n >= row.detail["kansas_needed"] >= HOUSE_RESULT.min_n
    assert row.adjusted_p is not None
    assert "too few rounds" not in row.message


def test_the_report_prints_the_needed_sample_and_names_the_rule_as_a_reference(
    small_and_large: StatsResult,
) -> None:
    section = statistics_section(small_and_large)
    ctx = SimpleNamespace(statistics=section, gaming_days=("2026-11-28",))
    html = render("_partials/statistics.html.j2", "html", ctx)
    page = Page(html)
    head, *rows = page.tables["statistics-holds-by-table"]
    assert head[5:7] == ["Maryland band (reference)", "Kansas band (reference)"]
    by_table = {r[0]: r for r in rows}
    small, large = by_table["T01"], by_table["T02"]
    needed = _house(small_and_large, "T01").detail["kansas_needed"]
    assert small[5] == "too few rounds to judge (85 of the 500 needed)"
    assert small[6] == f"too few rounds to judge (85 of the {needed:,} needed)"
    assert "too few" not in large[5] and "too few" not in large[6]
    assert "Kansas K.A.R. 112-108-51" in html
    assert "reference bands, not the casino's jurisdiction" in " ".join(page.text)
    flagged = {a.get("class") for t, a in page.tags if t == "tr"}
    assert "flag" not in flagged  # a fair night: nothing pink
    assert not section.regulator_marks
