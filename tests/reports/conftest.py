"""One audited night per test session (per xdist worker), shared read-only by the report
tests: building it (simulate, ingest, run) is the slow part, rendering is not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.batch.nightly import write_report
from audit.reports import ReportContext, build_report_context
from audit.store import Store, open_store
from tests.reports.nights import DAY, build_night

STAMP = "2026-11-29T07:00:00+00:00"


@pytest.fixture(scope="session")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_night(tmp_path_factory.mktemp("night"))


@pytest.fixture(scope="session")
def store(night: Path) -> Iterator[Store]:
    with open_store(night, read_only=True) as s:
        yield s


@pytest.fixture(scope="session")
def report_ctx(store: Store) -> ReportContext:
    """The report context of :data:`DAY`, as ``nightly`` builds it (pages linked)."""
    return build_report_context(store, [DAY], generated_at=STAMP, with_pages=True)


@pytest.fixture(scope="session")
def html_out(store: Store, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the HTML report of :data:`DAY` was written to, as ``report`` writes it."""
    out = tmp_path_factory.mktemp("html") / "report"
    write_report(store, [DAY], out, "html", generated_at=STAMP, workers=1)
    return out


@pytest.fixture(scope="session")
def md_out(store: Store, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the Markdown report of :data:`DAY` was written to (report.md, hands/)."""
    out = tmp_path_factory.mktemp("md") / "report"
    write_report(store, [DAY], out, "md", generated_at=STAMP, workers=1)
    return out
