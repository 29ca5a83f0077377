"""The compliance report in a real (headless) browser: it renders, and prints to A4."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

CHROMIUM = next(
    (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p),
    None,
)
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary found"),
]


def _chromium(tmp_path: Path, *args: str) -> None:
    profile = tmp_path / "chromium-profile"
    profile.mkdir(exist_ok=True)
    subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            *args,
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )


@pytest.fixture
def report(html_out: Path) -> Path:
    """The report of the shared night (hostile ids and hand pages included)."""
    return html_out / "index.html"


def test_report_screenshot(report: Path, tmp_path: Path) -> None:
    png = tmp_path / "report.png"
    _chromium(tmp_path, f"--screenshot={png}", "--window-size=1280,2000", report.as_uri())
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 2000)
    assert len(data) > 50_000  # a blank page compresses to a few kB


def test_report_prints_to_a4(report: Path, tmp_path: Path) -> None:
    pdf = tmp_path / "report.pdf"
    _chromium(tmp_path, f"--print-to-pdf={pdf}", "--no-pdf-header-footer", report.as_uri())
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF")
    # A4 is 595 x 842 points
    assert b"/MediaBox [0 0 595" in data or b"/MediaBox [0 0 594.95" in data
