"""One audited night per test session (per xdist worker), shared read-only by the report
tests: building it (simulate, ingest, run) is the slow part, rendering is not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.reports import ReportContext, build_report_context, render_report
from audit.store import Store, open_store
from tests.reports.nights import DAY, build_night, replayer


@pytest.fixture(scope="session")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_night(tmp_path_factory.mktemp("night"))


@pytest.fixture(scope="session")
def store(night: Path) -> Iterator[Store]:
    with open_store(night, read_only=True) as s:
        yield s


@pytest.fixture(scope="session")
def report_ctx(store: Store) -> ReportContext:
    """The report of :data:`DAY` with its hand pages, as ``nightly`` builds it."""
    return build_report_context(store, [DAY], replayer=replayer(store))


@pytest.fixture(scope="session")
def html_out(report_ctx: ReportContext, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the HTML report of :data:`DAY` was written to (index.html, hands/)."""
    out = tmp_path_factory.mktemp("html")
    render_report(report_ctx, out, "html")
    return out


@pytest.fixture(scope="session")
def md_out(report_ctx: ReportContext, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the Markdown report of :data:`DAY` was written to (report.md, hands/)."""
    out = tmp_path_factory.mktemp("md")
    render_report(report_ctx, out, "md")
    return out
