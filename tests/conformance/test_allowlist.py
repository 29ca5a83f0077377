"""The conformance step of CI (.ci/conformance.py) honours its reviewed allow-list exactly."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def conformance() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ci_conformance", REPO / ".ci" / "conformance.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ENTRY = {
    "night": "faults", "at": "2026-11-28/T01.jsonl.gz:120", "spec": "rules.md: ...",
    "why": "a test entry", "kind": "extra", "code": "PAY_TIMING", "table": "T01",
    "shoe": "T01-20261128-01", "round": 4,
}  # fmt: skip


def test_the_repos_allow_list_reads_and_every_entry_is_complete() -> None:
    entries = conformance().load_allowlist()
    assert all(e["spec"] and e["at"] for e in entries)


def test_an_entry_excuses_its_place_in_its_night_and_nothing_else(tmp_path: Path) -> None:
    c = conformance()
    lines = [
        json.dumps({"code": "PAY_TIMING", "table": "T01", "shoe": "T01-20261128-01", "round": 4}),
        json.dumps({"code": "PAY_TIMING", "table": "T01", "shoe": "T01-20261128-01", "round": 5}),
        json.dumps({"code": "PAY_MISSING", "table": "T01", "shoe": "T01-20261128-01", "round": 4}),
    ]
    assert c.excuse(lines, [ENTRY], "faults", "extra") == lines[1:]
    assert c.excuse(lines, [ENTRY], "messy", "extra") == lines  # another night
    assert c.excuse(lines, [ENTRY], "faults", "missed") == lines  # another kind


def test_an_incomplete_entry_stops_the_check(tmp_path: Path) -> None:
    path = tmp_path / "allow.jsonl"
    path.write_text("# a comment\n" + json.dumps({**ENTRY, "spec": ""}) + "\n")
    with pytest.raises(SystemExit, match=r"allow\.jsonl:2: an allow-list entry needs"):
        conformance().load_allowlist(path)


def test_missing_nights_fail_loudly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert conformance().main(["shoe-audit", str(tmp_path)]) == 1
    assert "CONFORMANCE CHECK FAILED: the conformance nights are missing" in capsys.readouterr().err
