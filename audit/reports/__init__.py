"""Reports: the disputed-hand packet and the nightly compliance report.

Each page renders one documented context object (:mod:`audit.reports.context`)
through a Jinja2 template from the project's ``reports/`` folder (shipped with
the package; ``templates_dir`` overrides any template it holds)::

    ctx = build_hand_context(shoe_replay, 14, profile)   # or render_hand(...) directly
    text = render_hand(shoe_replay, 14, "text", color=True, profile=profile)

    rctx = build_report_context(store, ["2026-11-28"], replayer=replay_one_shoe)
    path = render_report(rctx, Path("audit-reports"), "html")
"""

from audit.reports.context import HandContext, ReportContext
from audit.reports.hand import build_hand_context, render_hand, render_hand_context
from audit.reports.report import build_report_context, render_report

__all__ = [
    "HandContext",
    "ReportContext",
    "build_hand_context",
    "build_report_context",
    "render_hand",
    "render_hand_context",
    "render_report",
]
