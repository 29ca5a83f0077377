"""The report's Master Game Report and a period page in a real headless Chromium, at 1280
and 390 px wide: the section shows, no page overflows sideways (wide tables scroll in
their own box), and the period link opens its page. Screenshots in
``test-artifacts/screenshots/``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import CHROMIUM
from tests.browser_support import CHROMIUM_FLAGS as ARGS
from tests.browser_support import SCREENSHOTS as SHOTS
from tests.cli.helpers import SAMPLE, cli
from tests.reports.books_night import books_night

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium"),
]

WIDTHS = (1280, 390)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("sample") / "audit.duckdb"
    for args in (["ingest", "--db", str(db), str(SAMPLE)], ["run", "--db", str(db)]):
        assert cli(*args).exit_code == 0
    made, _ = books_night(db, tmp_path_factory.mktemp("books"))
    out = made.parent / "report"
    result = cli(
        "report", "--db", str(made), "--date", "2026-11-28", "--out", str(out),
        "--house", str(made.parent / "house.toml"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def _no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.evaluate("window.innerWidth")
    assert width <= viewport, f"the page is {width} px wide in a {viewport} px window"


def _fits(page: Any, selector: str) -> None:
    """Nothing of ``selector`` reaches past the window but inside a box that scrolls (the
    report's flagged-rounds table, older than the books, is not judged here)."""
    wide = page.evaluate(
        """(sel) => [...document.querySelectorAll(sel + ' *')]
             .filter(e => !e.closest('.scroll') && e.getBoundingClientRect().right
                          > window.innerWidth + 1)
             .map(e => e.tagName + '.' + e.className)""",
        selector,
    )
    assert wide == [], wide
    for box in page.locator(f"{selector} .scroll").all():
        b = box.bounding_box()
        assert b is not None and b["x"] + b["width"] <= page.evaluate("window.innerWidth") + 1


@pytest.mark.parametrize("width", WIDTHS)
def test_the_master_game_report_fits_and_links_its_periods(
    browser: Any, report: Path, width: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    try:
        page.goto((report / "index.html").as_uri())
        section = page.locator("#mgr")
        section.scroll_into_view_if_needed()
        SHOTS.mkdir(parents=True, exist_ok=True)
        section.screenshot(path=str(SHOTS / f"report-mgr-{width}.png"))
        page.locator("#periods-tile").screenshot(
            path=str(SHOTS / f"report-periods-tile-{width}.png")
        )
        _fits(page, "#mgr")
        _fits(page, "#periods-tile")
        assert page.locator("#mgr-P1 tbody tr").count() == 5
        assert page.locator("#mgr-P1").is_visible()
        # the first screen's top row is the books' 150, linked to its period
        first = page.locator("#flagged tbody tr").first
        assert "ACCT_INVENTORY_REPORTABLE" in first.inner_text()
        first.locator("a.period-link").click()
        page.wait_for_load_state()
        assert page.url.endswith("periods/T01/2026-11-28-day.html")
        page.screenshot(path=str(SHOTS / f"report-period-{width}.png"), full_page=True)
        _no_sideways_scroll(page)
        assert page.locator("#identity-table").is_visible()
        assert page.locator("tr.differs").count() == 2
        page.locator("#back").click()
        page.wait_for_load_state()
        assert page.url.endswith("index.html")
    finally:
        page.close()
