"""The report's hand pages, written beside the report's other work (audit.batch.nightly)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from audit.batch import run_audit
from audit.batch.nightly import write_report
from audit.profiles import load_registry
from audit.store import Store


def test_a_report_that_fails_while_its_pages_are_written_leaves_nothing_behind(
    ingested: Callable[[int], Store], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page thread is stopped and waited for before the staging folder is removed:
    no page lands in a folder that is gone, and ``--out`` is left as it was (cli.md).
    (The evidence check fails, in the caller's thread while the pages are written: the
    statistics come before anything is staged, issue 33.)"""
    import audit.reports.evidence as evidence

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("the evidence check failed")

    out = tmp_path / "reports" / "night"
    with ingested(2) as store:
        run_audit(store, load_registry(), workers=1)
        monkeypatch.setattr(evidence, "report_evidence", broken)
        with pytest.raises(RuntimeError, match="the evidence check failed"):
            write_report(store, None, out, registry=load_registry(), workers=2)
        time.sleep(0.5)  # a page thread left running would write on
        assert list((tmp_path / "reports").iterdir()) == []
        monkeypatch.undo()
        path = write_report(store, None, out, registry=load_registry(), workers=2)
    pages = sorted(p.relative_to(out).as_posix() for p in (out / "hands").rglob("*.html"))
    assert pages and path == out / "index.html"
    assert all(f'href="{p}"' in (out / "flagged.html").read_text() for p in pages)
