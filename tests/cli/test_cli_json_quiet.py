"""Issue 10.17: ``--json`` prints the summary as one JSON object; ``--quiet`` nothing else."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import SAMPLE, cli

WORKED = Path(__file__).resolve().parents[1] / "data" / "worked_example.jsonl"


def one_object(stdout: str) -> dict[str, Any]:
    assert stdout.endswith("\n") and stdout.count("\n") == 1, stdout
    obj = json.loads(stdout)
    assert isinstance(obj, dict)
    return obj


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(WORKED, folder / "T07.jsonl")
    return folder


def test_ingest_and_run_json(tmp_path: Path, logs: Path) -> None:
    db = str(tmp_path / "a.duckdb")
    result = cli("ingest", "--json", "--db", db, str(logs))
    assert result.exit_code == 0, result.output
    summary = one_object(result.stdout)
    assert {k: summary[k] for k in ("files", "events", "new", "duplicates", "rejected")} == {
        "files": 1, "events": 26, "new": 26, "duplicates": 0, "rejected": 0,
    }  # fmt: skip
    assert summary["gaming_days"] == ["2026-11-28"]
    assert summary["per_file"][0]["path"] == str(logs / "T07.jsonl")
    result = cli("run", "--db", db, "--json", "--workers", "1")
    assert result.exit_code == 0, result.output
    run = one_object(result.stdout)
    assert (run["shoes"], run["rounds"], run["findings"]) == (1, 1, 1)
    assert run["by_code"] == {"PAY_WRONG_OUTCOME": 1}


def test_validate_json(logs: Path) -> None:
    (logs / "bad.jsonl").write_text('{"id":"x"}\n', encoding="utf-8")
    result = cli("validate", "--json", str(logs))
    assert result.exit_code == 1
    report = one_object(result.stdout)
    assert report["ok"] is False and report["files"] == 2 and report["events"] == 26
    assert len(report["invalid"]) == 1 and report["invalid"][0].startswith(f"{logs}/bad.jsonl:1: ")
    assert result.stderr == ""


def test_nightly_json_with_fail_on(tmp_path: Path, logs: Path) -> None:
    db, out = str(tmp_path / "a.duckdb"), str(tmp_path / "report")
    result = cli("nightly", "--json", "--db", db, "--out", out, "--fail-on", "critical", str(logs))
    assert result.exit_code == 3
    summary = one_object(result.stdout)
    assert summary["ingest"]["new"] == 26 and summary["run"]["findings"] == 1
    assert summary["gaming_days"] == ["2026-11-28"]
    assert summary["report"] == str(Path(out) / "index.html")
    assert (summary["fail_on"], summary["failing_findings"]) == ("critical", 1)
    # issue 30, point 3: the counts by severity and review state, and the money moved wrongly
    assert summary["findings"] == {
        "by_severity": {"critical": 1, "major": 0, "minor": 0, "info": 0},
        "by_review": {
            "open": 1, "confirmed": 0, "needs_video": 0, "dismissal_pending": 0, "dismissed": 0
        },
        "not_dismissed_by_severity": {"critical": 1, "major": 0, "minor": 0, "info": 0},
        "moved_wrongly": "125",
    }  # fmt: skip
    assert result.stderr == (
        "Error: 1 findings of severity critical or worse not dismissed on review; "
        f"report: {Path(out) / 'index.html'}; findings: 1 critical, 0 major, 0 minor, 0 info; "
        "1 open, 0 confirmed, 0 needs video, 0 dismissal pending, 0 dismissed; "
        "125 moved wrongly\n"
    )


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_prints_nothing_but_errors(tmp_path: Path, where: str) -> None:
    db = str(tmp_path / "a.duckdb")

    def quiet(*args: str) -> Any:
        return cli("-q", *args) if where == "before" else cli(*args, "--quiet")

    for args in (["ingest", "--db", db, str(SAMPLE)], ["run", "--db", db], ["status", "--db", db]):
        result = quiet(*args)
        assert (result.exit_code, result.stdout, result.stderr) == (0, "", ""), args
    result = quiet("findings", "--db", db, "--format", "jsonl")  # the output asked for stays
    assert len(result.stdout.splitlines()) == 17
    result = quiet("run", "--db", str(tmp_path / "none.duckdb"))  # errors stay
    assert result.exit_code == 1 and result.stderr.startswith("Error: no database at ")
