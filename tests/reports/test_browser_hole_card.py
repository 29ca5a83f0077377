"""A hole-card hand page in a real headless Chromium (issue 32, point 6): games.md §2's
example round, its hole card drawn face down in its step and named in the dealer's cards,
the peek's cards beside the announcement. Screenshot in ``test-artifacts/screenshots/``
(``hand-hole-card``) to be looked at."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser_support import screenshot
from tests.cli.helpers import cli
from tests.reports.holecard_night import PROFILES, SHOE, TABLE, audited_night
from tests.reports.test_browser_hand import assert_verdict_leads, first_screen_boxes

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def test_a_hole_card_hand_page_in_chromium(browser_page: Page, tmp_path: Path) -> None:
    db = audited_night(tmp_path)
    page = tmp_path / "r9.html"
    result = cli(
        "hand", "--db", str(db), "--profiles", str(PROFILES), "--format", "html",
        "--out", str(page), TABLE, SHOE, "9",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    browser_page.goto(page.as_uri())
    assert_verdict_leads(first_screen_boxes(browser_page))
    hole = browser_page.locator("#e-10 svg.card")
    assert hole.get_attribute("aria-label") == "jack of diamonds (face down)"
    assert hole.is_visible()
    assert browser_page.locator("#e-10 .hole-down").inner_text() == "hole card face down"
    peek = browser_page.locator("#e-12 .peek")
    assert peek.is_visible()
    assert "the dealer announced: blackjack" in peek.inner_text()
    roles = browser_page.locator("#dealer-row .card-role").all_inner_texts()
    assert roles == ["up card", "hole card"]
    browser_page.locator("#e-10").scroll_into_view_if_needed()
    screenshot(browser_page, "hand-hole-card")
    screenshot(browser_page, "hand-hole-card-full", full_page=True)
