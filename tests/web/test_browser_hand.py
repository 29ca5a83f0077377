"""The web app's hand page leads with the verdict too (issue 30, point 4): at 1280×800
the round's findings, the wagers' due, settled and verdict, and the cards come before
the story, above the review panel. Positions asserted in headless Chromium; a
screenshot in ``test-artifacts/screenshots/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from audit.store import open_store
from audit.web.app import ServeConfig, create_app
from audit.web.urls import hand_url
from tests.browser_support import CHROMIUM, CHROMIUM_FLAGS, VIEWPORT, missing_chromium, screenshot
from tests.reports.test_browser_hand import assert_verdict_leads, first_screen_boxes
from tests.web.client import running

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


@pytest.fixture
def online_page() -> Iterator[Page]:
    """A 1280×800 page that may reach ``serve`` on loopback (``online_page`` is offline)."""
    why = missing_chromium()
    if why is not None:
        pytest.fail(why)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            yield browser.new_page(viewport=VIEWPORT)  # type: ignore[arg-type]
        finally:
            browser.close()


def test_web_hand_page_leads_with_the_verdict(online_page: Page, db: Path) -> None:
    with open_store(db, read_only=True) as s:
        rounds = sorted(
            {(f.table, f.shoe, f.round) for f in s.all_findings() if f.round is not None},
            key=lambda r: -int(r[2] or 0),
        )
    assert rounds
    with running(create_app(ServeConfig(db=db))) as port:
        for i, (table, shoe, rnd) in enumerate(rounds[:6]):
            assert table is not None and shoe is not None and rnd is not None
            online_page.goto(f"http://127.0.0.1:{port}{hand_url(table, shoe, rnd)}")
            if i == 0:
                screenshot(online_page, "hand-first-screen-web")
            boxes = first_screen_boxes(online_page)
            assert_verdict_leads(boxes)
            review = online_page.locator("#review").bounding_box()
            assert review is not None and review["y"] > boxes["#story"]["y"]
