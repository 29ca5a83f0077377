"""The browser check really runs (issue 10.23): Playwright drives Debian's Chromium.

These are the infrastructure's own tests; the report's page-level checks use the
same ``browser_page`` fixture. Screenshots: ``test-artifacts/screenshots/``.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser_support import CHROMIUM_FLAGS, VIEWPORT, screenshot
from tests.cli.helpers import SAMPLE, cli

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _first_screen(page: Page, report: Path, name: str) -> Path:
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    assert page.title()
    assert page.locator("h1").first.is_visible()
    shot = screenshot(page, name)
    assert _png_size(shot) == (VIEWPORT["width"], VIEWPORT["height"])
    assert shot.stat().st_size > 20_000  # a blank page compresses to a few kB
    assert all(url.startswith(("file:", "data:", "about:")) for url in fetched), fetched
    return shot


def test_the_sample_report_in_chromium(browser_page: Page, tmp_path: Path) -> None:
    db, out = tmp_path / "a.duckdb", tmp_path / "report"
    result = cli("nightly", "--db", str(db), "--out", str(out), str(SAMPLE))
    assert result.exit_code == 0, result.output
    _first_screen(browser_page, out / "index.html", "sample-report-first-screen")


@pytest.mark.slow
def test_a_20_table_night_report_in_chromium(browser_page: Page, tmp_path: Path) -> None:
    """The first screen of the report on a 20-table simulated night (issue 10's closing note)."""
    logs, db, out = tmp_path / "night", tmp_path / "a.duckdb", tmp_path / "report"
    args = ["--tables", "20", "--shoes", "8", "--seed", "20", "--error-rate", "0.02"]
    assert cli("simulate", *args, "--out", str(logs)).exit_code == 0
    result = cli("nightly", "--db", str(db), "--out", str(out), *map(str, logs.glob("2*")))
    assert result.exit_code == 0, result.output
    _first_screen(browser_page, out / "index.html", "night-20-tables-first-screen")


def test_the_flags_this_machine_needs() -> None:
    assert {"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic"} <= set(CHROMIUM_FLAGS)
