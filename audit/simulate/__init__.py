"""Realistic TEL/1 table logs, with injected dealer errors (``shoe-audit simulate``).

:func:`simulate` writes gaming nights of logs and ``injected.ndjson``;
:func:`iter_shoes` yields the same shoes in memory; :mod:`audit.simulate.recall`
scores an auditor's findings against what was injected.
"""

from audit.simulate.inject import ALL_CLASSES, InjectedError
from audit.simulate.recall import (
    RecallReport,
    ShoeInfo,
    ShoeInfoTracker,
    match_findings,
    shoe_infos,
)
from audit.simulate.session import (
    DEFAULT_DATE,
    DEFAULT_START,
    MANIFEST_NAME,
    RICH_SHARE,
    SimulationSummary,
    iter_shoes,
    night_start,
    simulate,
)
from audit.simulate.table import ShoeOutput

__all__ = [
    "ALL_CLASSES",
    "DEFAULT_DATE",
    "DEFAULT_START",
    "MANIFEST_NAME",
    "RICH_SHARE",
    "InjectedError",
    "RecallReport",
    "ShoeInfo",
    "ShoeInfoTracker",
    "ShoeOutput",
    "SimulationSummary",
    "iter_shoes",
    "match_findings",
    "night_start",
    "shoe_infos",
    "simulate",
]
