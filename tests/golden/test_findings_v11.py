"""The findings of every existing log, as the v1.1 engine made them (issue 32, point 1).

games.md: every new profile field defaults to what the engine did before it, so the
four Italian profiles "keep every rule" and every log valid before v1.2 "reads the
same". These goldens were written by the engine before the hole card, the peek,
surrender kinds, resplit rules and side bets came in (``tests/golden/v11/``); each
log is ingested, audited and listed again, and its findings must be the same, key
for key, but for the keys v1.2 adds to a finding (cli.md: ``dealer``, ``opened``,
``gaming_day``, ``shift``), which a golden does not hold against.

Regenerate (only for a change the spec makes on purpose, said in docs/decisions.md):
``SHOE_AUDIT_REGEN_GOLDEN=1 pytest tests/golden``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.helpers import REPO, cli

GOLDEN = Path(__file__).with_name("v11")
CONFORMANCE = REPO.parent / "shared" / "conformance"

V12_KEYS = frozenset({"dealer", "opened", "gaming_day", "shift"})
"""Keys cli.md v1.2 adds to a finding: not held against the golden."""


def _days(night: str) -> list[Path]:
    root = CONFORMANCE / night
    if not root.is_dir():  # as .ci/conformance.py: missing nights fail loudly
        pytest.fail(f"the conformance nights are missing ({root}): the golden cannot be checked")
    return sorted(root.glob("20*/"))


LOGS: dict[str, tuple[Path, list[Path] | None]] = {
    # name: (the folder its paths are written relative to, what is ingested; None: the folder)
    "sample-2026-11-28": (REPO / "sample_logs" / "2026-11-28", None),
    "worked-example": (REPO / "tests" / "data", [REPO / "tests" / "data" / "worked_example.jsonl"]),
    "t07-round": (REPO / "tests" / "data" / "ingest", None),
    "conformance-clean": (CONFORMANCE / "clean", []),
    "conformance-faults": (CONFORMANCE / "faults", []),
    "conformance-messy": (CONFORMANCE / "messy", []),
}


def _findings(name: str, tmp_path: Path) -> list[dict[str, object]]:
    root, inputs = LOGS[name]
    if inputs == []:
        inputs = _days(root.name)
    paths = [str(p) for p in (inputs if inputs is not None else [root])]
    db = str(tmp_path / "audit.duckdb")
    ingested = cli("-q", "ingest", "--db", db, *paths)
    assert ingested.exit_code in (0, 5), ingested.output
    ran = cli("-q", "run", "--db", db, "--all")
    assert ran.exit_code == 0, ran.output
    listed = cli("findings", "--db", db, "--format", "jsonl")
    assert listed.exit_code == 0, listed.stderr
    # a file's place is written relative to the log's folder, so the golden holds anywhere
    text = listed.stdout.replace(str(root) + "/", "")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _comparable(finding: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in finding.items() if k not in V12_KEYS}


@pytest.mark.parametrize("name", list(LOGS))
def test_findings_of_existing_logs_are_unchanged(name: str, tmp_path: Path) -> None:
    found = sorted((_comparable(f) for f in _findings(name, tmp_path)), key=lambda f: str(f["id"]))
    golden_file = GOLDEN / f"{name}.jsonl"
    if os.environ.get("SHOE_AUDIT_REGEN_GOLDEN"):
        golden_file.parent.mkdir(exist_ok=True)
        golden_file.write_text("".join(json.dumps(f, sort_keys=True) + "\n" for f in found))
    golden = [json.loads(x) for x in golden_file.read_text().splitlines() if x.strip()]
    # keys a golden does not hold (added after it was written) are left out; every key it
    # holds must be there with the same value
    now = [{k: f.get(k, "<missing>") for k in g} for f, g in zip(found, golden, strict=False)]
    assert len(found) == len(golden), f"{len(found)} findings, the golden has {len(golden)}"
    for f, g in zip(now, golden, strict=True):
        assert f == g
