"""The compliance report: a span of gaming days, aggregated in DuckDB SQL."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any, Literal

from audit.reports.context import ReportContext

ReportFormat = Literal["html", "md"]


def build_report_context(
    store: Any,
    gaming_days: Sequence[date | str],
    *,
    generated_at: str | None = None,
) -> ReportContext:
    """Aggregate the store's findings, shoes and inputs for ``gaming_days``.

    ``store`` is the :mod:`audit.store` object or a raw DuckDB connection.
    Every figure is computed in SQL. ``generated_at`` is printed in the report
    when given; leave it None (the default) for byte-identical output.
    """
    raise NotImplementedError


def render_report(
    ctx: ReportContext,
    out_dir: Path,
    fmt: ReportFormat = "html",
    templates_dir: Path | None = None,
    *,
    store: Any = None,
) -> Path:
    """Write ``out_dir/index.html`` (or ``out_dir/report.md``) and return its path.

    With ``store`` given, every round that holds a critical finding also gets
    its hand page (HTML) beside the report, at the link the report gives
    (``hands/<table>/<shoe>/r<round>.html``, file names made safe).
    """
    raise NotImplementedError
