"""The hand page's first screen in a real headless Chromium (issue 30, point 4): at a
laptop's 1280×800 the verdict leads. The round's findings (rule and impact), each
wager's due, settled and verdict, and the cards sit on the first screen; the step by
step story and the shoe's opening follow. Positions are asserted, and screenshots go to
``test-artifacts/screenshots/`` to be looked at.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser_support import VIEWPORT, screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

FIRST_SCREEN = VIEWPORT["height"]


def first_screen_boxes(page: Page) -> dict[str, dict[str, float]]:
    """The bounding boxes (page coordinates: the page is not scrolled) of what the first
    screen must show and of what must come after it."""
    boxes = {}
    for sel in ("#findings", "#wager-table", "#hand-table", "#step-table", "#story"):
        box = page.locator(sel).bounding_box()
        assert box is not None, f"{sel} is not on the page"
        boxes[sel] = box
    return boxes


def assert_verdict_leads(boxes: dict[str, dict[str, float]]) -> None:
    """The findings' box ends on the first screen, the wagers table starts on it, and the
    story follows the verdict."""
    findings = boxes["#findings"]
    assert findings["y"] + findings["height"] <= FIRST_SCREEN, boxes
    assert boxes["#wager-table"]["y"] < FIRST_SCREEN, boxes
    assert boxes["#findings"]["y"] < boxes["#wager-table"]["y"] < boxes["#hand-table"]["y"]
    assert boxes["#hand-table"]["y"] < boxes["#step-table"]["y"] < boxes["#story"]["y"]


def flagged_pages(html_out: Path) -> list[Path]:
    """The report's hand pages, latest rounds of their shoes first (the longest story
    before the round: the old layout's worst case)."""
    pages = sorted((html_out / "hands").rglob("r*.html"), key=lambda p: -int(p.stem[1:]))
    assert pages, "the report wrote no hand page"
    return pages


def test_static_hand_page_leads_with_the_verdict(browser_page: Page, html_out: Path) -> None:
    pages = flagged_pages(html_out)
    for i, path in enumerate(pages):
        browser_page.goto(path.as_uri())
        if i == 0:
            screenshot(browser_page, "hand-first-screen-static")
        assert_verdict_leads(first_screen_boxes(browser_page))
        assert browser_page.locator("#findings .finding-line").count() >= 1
