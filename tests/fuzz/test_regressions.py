"""Every input that once broke something, replayed (issue 14: "keep a regression corpus").

``tests/data/regressions/expected.json`` names each file, what it broke, and
what must happen now: the lines rejected (each named file:line, with its
reason), the others ingested and audited, and the result verified intact.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.batch import run_audit
from audit.ingest import ingest_paths, validate_paths
from audit.integrity.verify import verify
from audit.profiles import load_registry
from audit.store import open_store

CORPUS = Path(__file__).resolve().parents[1] / "data" / "regressions"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))


def test_every_file_of_the_corpus_has_an_entry() -> None:
    assert sorted(p.stem for p in CORPUS.glob("*.jsonl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_regression(name: str, tmp_path: Path) -> None:
    path = CORPUS / f"{name}.jsonl"
    want = EXPECTED[name]
    report = validate_paths([path])
    assert len(report.invalid) == want["rejected"], report.invalid[:3]
    for line in report.invalid:
        assert line.startswith(f"{path}:")
        assert any(reason in line for reason in want["reasons"]), line
    with open_store(tmp_path / "audit.duckdb") as store:
        summary = ingest_paths(store, [path])
        assert summary.rejected == want["rejected"]
        assert summary.events == report.events
        run = run_audit(store, load_registry(), workers=1)
        assert run.shoes == len(store.shoe_info())
        assert not [f for f in store.all_findings() if f.code == "LOG_TAMPERED"]
        result = verify(store, [path])
        assert result.intact, [str(d) for d in result.differences]
