"""Shared fixtures: a CLI runner and paths into the repo."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from typer.testing import CliRunner

from audit.store import Store, open_store

if TYPE_CHECKING:
    from playwright.sync_api import Page

REPO = Path(__file__).resolve().parent.parent

# Reviewer accounts hash passwords with scrypt at n=2**14 (about 50 ms each): the suite signs
# in thousands of times, so its new hashes use the cheapest cost (audit/review/accounts.py).
# Set here, before any test runs, so the CLI's subprocesses inherit it too.
os.environ.setdefault("SHOE_AUDIT_SCRYPT_N", "2")


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh audit database in the test's own folder."""
    s = open_store(tmp_path / "audit.duckdb")
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def browser_page(tmp_path: Path) -> Iterator[Page]:
    """A page of headless Chromium (tests/browser_support.py); fails where there is none.

    Browser tests are deselected by default (``-m browser`` selects them; .ci/run
    does): a missing Chromium then is an error, not a silent skip.
    """
    from tests.browser_support import chromium_page, missing_chromium

    why = missing_chromium()
    if why is not None:
        pytest.fail(why)
    profile = tmp_path / "chromium-profile"
    profile.mkdir()
    with chromium_page(profile) as page:
        yield page


def pytest_sessionstart(session: pytest.Session) -> None:
    """Never test stale compiled code: stop when an engine source changed since the build."""
    from tests.engine_build import stale_engine

    reason = stale_engine()
    if reason is not None:
        pytest.exit(reason, returncode=4)


from tests.fuzz.summary import pytest_terminal_summary  # noqa: E402 - the fuzz example counts

__all__ = ["pytest_terminal_summary"]
