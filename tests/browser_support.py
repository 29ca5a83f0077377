"""Headless Chromium for the ``browser``-marked tests (issue 10.23).

Playwright's Python package drives Debian's own ``/usr/bin/chromium`` (never
a browser Playwright downloads), with the flags this machine needs, in a
fresh user-data folder per test. Screenshots go to ``test-artifacts/screenshots/``
at the top of the clone, where CI keeps them to be looked at.

Use the ``browser_page`` fixture (``tests/conftest.py``)::

    @pytest.mark.browser
    def test_first_screen(browser_page: Page) -> None:
        browser_page.goto(report.as_uri())
        shot = screenshot(browser_page, "report-first-screen")
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
VIEWPORT = {"width": 1280, "height": 800}
"""A laptop's first screen: what "the first screen of the report" means in tests."""


def missing_chromium() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"no {CHROMIUM}: `apt-get install chromium` (.ci/run does it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is missing: `pip install -e '.[dev]'`"
    return None


@contextmanager
def chromium_page(user_data_dir: Path) -> Iterator[Page]:
    """A page of a fresh headless Chromium whose profile lives in ``user_data_dir``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(user_data_dir),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport=VIEWPORT,  # type: ignore[arg-type]
            offline=True,  # a report must stand alone: nothing fetched from anywhere
        )
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


def screenshot(page: Page, name: str, *, full_page: bool = False) -> Path:
    """Save a PNG of ``page`` as ``test-artifacts/screenshots/NAME.png``; return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / (re.sub(r"[^A-Za-z0-9_.-]+", "-", name) + ".png")
    page.screenshot(path=str(path), full_page=full_page)
    return path
