"""The compliance report in a real headless Chromium (Playwright, Debian's /usr/bin/chromium,
never a downloaded browser): the first screen shows the ranked flagged rounds, the links
work, and the report prints to A4. Screenshots go to ``test-artifacts/screenshots/``.

Chromium's path, flags and the screenshot folder are the shared ones of
``tests/browser_support.py``; one browser serves the whole module.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import CHROMIUM
from tests.browser_support import CHROMIUM_FLAGS as ARGS
from tests.browser_support import SCREENSHOTS as SHOTS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium"),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    pg = browser.new_page(viewport={"width": 1280, "height": 900})
    yield pg
    pg.close()


def test_first_screen_shows_the_ranked_flagged_rounds(page: Any, html_out: Path) -> None:
    page.goto((html_out / "index.html").as_uri())
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "report-first-screen.png"))
    table = page.locator("#flagged")
    box = table.bounding_box()
    assert box is not None and box["y"] < 400  # on the first screen, not 3,400 px down
    first_chart = page.locator("svg.chart").first.bounding_box()
    assert first_chart is not None and first_chart["y"] > box["y"]
    rows = page.locator("#flagged tbody tr")
    assert rows.count() == 20
    assert page.locator("#flagged tbody tr").first.locator("a.hand-link").count() == 1


def test_a_flagged_round_link_opens_its_hand_page_and_comes_back(page: Any, html_out: Path) -> None:
    page.goto((html_out / "index.html").as_uri())
    page.locator("#flagged a.hand-link").first.click()
    assert "/hands/" in page.url
    assert page.locator("#step-table tbody tr").count() > 3
    # a step's clock time on one line ("20:43:54" wrapped after the minutes once)
    lines = page.evaluate(
        """() => [...document.querySelectorAll('#step-table tbody td.time')].map(td => {
             const r = document.createRange(); r.selectNodeContents(td);
             return r.getClientRects().length; })"""
    )
    assert lines and set(lines) == {1}, lines
    page.screenshot(path=str(SHOTS / "hand-page.png"), full_page=True)
    page.locator("#to-report").click()
    assert page.url.endswith("/index.html")


def test_report_prints_to_a4(page: Any, html_out: Path, tmp_path: Path) -> None:
    page.goto((html_out / "index.html").as_uri())
    pdf = tmp_path / "report.pdf"
    page.pdf(path=str(pdf), format="A4")
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF")
    assert b"/MediaBox [0 0 595" in data or b"/MediaBox [0 0 594.95" in data
    shutil.copy(pdf, SHOTS / "report.pdf") if SHOTS.exists() else None
