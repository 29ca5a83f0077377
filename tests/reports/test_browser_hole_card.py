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
    hole = browser_page.locator("#e-11 svg.card")
    assert hole.get_attribute("aria-label") == "jack of diamonds (face down)"
    assert hole.is_visible()
    assert browser_page.locator("#e-11 .hole-down").inner_text() == "hole card face down"
    peek = browser_page.locator("#e-13 .peek")
    assert peek.is_visible()
    assert "the dealer announced: blackjack" in peek.inner_text()
    roles = browser_page.locator("#dealer-row .card-role").all_inner_texts()
    assert roles == ["up card", "hole card"]
    browser_page.locator("#e-11").scroll_into_view_if_needed()
    screenshot(browser_page, "hand-hole-card")
    screenshot(browser_page, "hand-hole-card-full", full_page=True)


def test_side_bets_beside_their_spots_in_chromium(browser_page: Page, tmp_path: Path) -> None:
    """Round 15's side bets on the first screen, each under its box's main wager with its
    line and pay; screenshot ``hand-side-bets``."""
    db = audited_night(tmp_path)
    page = tmp_path / "r15.html"
    result = cli(
        "hand", "--db", str(db), "--profiles", str(PROFILES), "--format", "html",
        "--out", str(page), TABLE, SHOE, "15",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    browser_page.goto(page.as_uri())
    assert_verdict_leads(first_screen_boxes(browser_page))
    lines = browser_page.locator("#wager-table .side-line")
    assert lines.all_inner_texts()[:2] == ["perfect, pays 25 to 1", "coloured, pays 12 to 1"]
    box = lines.nth(1).bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800  # on the first screen
    screenshot(browser_page, "hand-side-bets")
