"""Prints how many examples each fuzz test ran (issue 14, point 19 asks for a count), and
how many shoes each differential test compared (issue 28, point 3).

A hook of the root ``tests/conftest.py``, which imports it: pytest-xdist's
controller loads no conftest below the root, so one here would never print.

Each test in :mod:`tests.fuzz.test_fuzz` records ``fuzz_examples`` (the calls
of the code under test it made) and ``fuzz_cpu_seconds`` with
``record_property`` (``test_atheris.py``: ``atheris_runs``); the records
travel with the test reports, pytest-xdist's workers included, and are summed
here with each test's wall time.
"""

from __future__ import annotations

from typing import Any

COUNTS = ("fuzz_examples", "atheris_runs")


SHOES = "differential_shoes"
"""What the differential test (:mod:`tests.differential`) counts: shoes, not examples."""


def pytest_terminal_summary(terminalreporter: Any) -> None:
    _differential_summary(terminalreporter)
    rows = []
    for report in terminalreporter.stats.get("passed", []):
        props = dict(getattr(report, "user_properties", ()))
        count = next((props[k] for k in COUNTS if k in props), None)
        if count is not None and report.when == "call":
            cpu = props.get("fuzz_cpu_seconds")
            rows.append((report.nodeid.rsplit("::", 1)[-1], count, report.duration, cpu))
    if not rows:
        return
    terminalreporter.section("fuzz examples")
    terminalreporter.write_line(f"{'examples':>9}  {'wall':>7}  {'cpu':>7}  test")
    for test, n, wall, cpu in sorted(rows):
        cpu_text = f"{cpu:5.1f} s" if cpu is not None else "      -"
        terminalreporter.write_line(f"{n:>9,}  {wall:5.1f} s  {cpu_text}  {test}")
    hyp = [r for r in rows if not r[0].startswith("test_atheris")]
    terminalreporter.write_line(
        f"{sum(r[1] for r in hyp):>9,}  {sum(r[2] for r in hyp):5.1f} s  "
        f"{sum(r[3] or 0 for r in hyp):5.1f} s  hypothesis examples in all"
    )


def _differential_summary(terminalreporter: Any) -> None:
    """How many shoes each differential test replayed both ways (compiled, and from sources)."""
    rows = []
    for report in terminalreporter.stats.get("passed", []):
        props = dict(getattr(report, "user_properties", ()))
        if SHOES in props and report.when == "call":
            test = report.nodeid.rsplit("::", 1)[-1]
            nights, cpu = props.get("differential_nights", 0), props.get("differential_cpu_seconds")
            rows.append((test, props[SHOES], nights, report.duration, cpu))
    if not rows:
        return
    terminalreporter.section("differential shoes")
    terminalreporter.write_line(f"{'shoes':>9}  {'nights':>6}  {'wall':>7}  {'cpu':>7}  test")
    for test, n, nights, wall, cpu in sorted(rows):
        cpu_text = f"{cpu:5.1f} s" if cpu is not None else "      -"
        terminalreporter.write_line(f"{n:>9,}  {nights:>6,}  {wall:5.1f} s  {cpu_text}  {test}")
    if len(rows) > 1:
        terminalreporter.write_line(f"{sum(r[1] for r in rows):>9,}  shoes in all")
