"""End to end through the real CLI, a real DuckDB file, the real engine and reports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app

DATA = Path(__file__).resolve().parents[1] / "data"
WORKED = DATA / "worked_example.jsonl"

EXPECTED_KEYS = [
    "code", "severity", "table", "shoe", "round", "box", "hand", "spot", "expected",
    "actual", "impact", "rule", "events", "source", "message", "id", "review",
    "gaming_day", "dealer", "opened", "shift",
]  # fmt: skip


def invoke(runner: CliRunner, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "audit.duckdb"


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "logs" / "2026-11-28"
    folder.mkdir(parents=True)
    shutil.copy(WORKED, folder / "T07.jsonl")
    return folder.parent


def test_worked_example_yields_exactly_one_finding(runner: CliRunner, db: Path, logs: Path) -> None:
    """event-log.md's worked example: one PAY_WRONG_OUTCOME, box 1 hand 1, nothing else."""
    code, out = invoke(runner, "ingest", "--db", str(db), str(logs))
    assert code == 0, out
    assert "files 1  events 26  new 26  duplicates 0  rejected 0" in out
    code, out = invoke(runner, "run", "--db", str(db), "--workers", "1")
    assert code == 0, out
    code, out = invoke(runner, "findings", "--db", str(db), "--format", "jsonl")
    assert code == 0, out
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert len(rows) == 1, rows
    f = rows[0]
    assert list(f) == EXPECTED_KEYS
    assert (f["code"], f["table"], f["shoe"], f["round"], f["box"], f["hand"], f["spot"]) == (
        "PAY_WRONG_OUTCOME", "T07", "T07-20261128-01", 1, 1, 1, 0,
    )  # fmt: skip
    assert (f["expected"], f["actual"], f["impact"]) == ("-50", "75", "125")
    assert f["severity"] == "critical" and f["source"] is None
    assert "T07-24" in f["events"]


def test_rerun_is_idempotent(runner: CliRunner, db: Path, logs: Path) -> None:
    invoke(runner, "ingest", "--db", str(db), str(logs))
    invoke(runner, "run", "--db", str(db), "--workers", "1")
    code, out = invoke(runner, "ingest", "--db", str(db), str(logs))
    assert code == 0
    assert "new 0  duplicates 26" in out
    code, out = invoke(runner, "run", "--db", str(db), "--workers", "1")
    assert "audited 0 shoes" in out
    code, out = invoke(runner, "run", "--db", str(db), "--workers", "1", "--all")
    assert "audited 1 shoe," in out
    _, out = invoke(runner, "findings", "--db", str(db), "--format", "jsonl")
    assert len(out.splitlines()) == 1


def test_findings_csv_and_filters(runner: CliRunner, db: Path, logs: Path) -> None:
    invoke(runner, "ingest", "--db", str(db), str(logs))
    invoke(runner, "run", "--db", str(db), "--workers", "1")
    _, out = invoke(runner, "findings", "--db", str(db), "--format", "csv")
    lines = out.splitlines()
    assert lines[0].split(",") == EXPECTED_KEYS
    assert len(lines) == 2
    _, out = invoke(runner, "findings", "--db", str(db), "--format", "jsonl", "--severity", "minor")
    assert out.strip() == ""
    _, out = invoke(
        runner, "findings", "--db", str(db), "--format", "jsonl", "--date", "2026-11-28"
    )
    assert len(out.splitlines()) == 1
    code, out = invoke(runner, "findings", "--db", str(db), "--format", "jsonl", "--table", "T99")
    assert (code, out.strip()) == (1, "Error: no table 'T99' in the database; tables: T07")
    code, out = invoke(runner, "findings", "--db", str(db), "--code", "PAY_NOPE")
    assert code == 2 and "unknown finding code" in out


def test_findings_reports_malformed_lines_with_their_source(
    runner: CliRunner, db: Path, logs: Path
) -> None:
    bad = logs / "2026-11-28" / "T08.jsonl"
    bad.write_text('{"id": "x", "seq": 1}\nnot json\n', encoding="utf-8")
    code, out = invoke(runner, "ingest", "--db", str(db), str(logs))
    assert code == 0, out
    assert "rejected 2" in out
    _, out = invoke(runner, "findings", "--db", str(db), "--format", "jsonl",
                    "--code", "LOG_MALFORMED")  # fmt: skip
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["source"].rsplit(":", 1)[1] for r in rows] == ["1", "2"]
    assert all(r["source"].startswith(str(bad)) or "T08.jsonl" in r["source"] for r in rows)


def test_hand_replays_the_disputed_round(runner: CliRunner, db: Path, logs: Path) -> None:
    invoke(runner, "ingest", "--db", str(db), str(logs))
    invoke(runner, "run", "--db", str(db), "--workers", "1")
    code, out = invoke(runner, "hand", "--db", str(db), "T07", "T07-20261128-01", "1")
    assert code == 0, out
    assert "PAY_WRONG_OUTCOME" in out
    code, out = invoke(runner, "hand", "--db", str(db), "--format", "json",
                       "T07", "T07-20261128-01", "1")  # fmt: skip
    assert code == 0
    json.loads(out)


def test_hand_unknown_round_names_the_nearest(runner: CliRunner, db: Path, logs: Path) -> None:
    invoke(runner, "ingest", "--db", str(db), str(logs))
    code, out = invoke(runner, "hand", "--db", str(db), "T07", "T07-20261128-01", "9")
    assert code == 1
    assert "no round 9" in out and "nearest" in out
    code, out = invoke(runner, "hand", "--db", str(db), "T07", "T07-20261128-0X", "1")
    assert code == 1 and "T07-20261128-01" in out


def test_nightly_fails_on_critical_with_exit_3(
    runner: CliRunner, db: Path, logs: Path, tmp_path: Path
) -> None:
    out_dir = tmp_path / "report"
    code, out = invoke(runner, "nightly", "--db", str(db), "--out", str(out_dir), str(logs))
    assert code == 0, out
    assert (out_dir / "index.html").exists()
    assert f"report: {out_dir / 'index.html'}" in out
    code, out = invoke(runner, "nightly", "--db", str(db), "--out", str(out_dir),
                       "--fail-on", "critical", str(logs))  # fmt: skip
    assert code == 3, out


def test_validate_exit_codes(runner: CliRunner, logs: Path, tmp_path: Path) -> None:
    code, out = invoke(runner, "validate", str(logs))
    assert code == 0, out
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id":"x"}\n', encoding="utf-8")
    code, out = invoke(runner, "validate", str(bad))
    assert code == 1
    assert f"{bad}:1: " in out


def test_ingest_of_a_missing_path_fails_clearly(runner: CliRunner, db: Path) -> None:
    code, out = invoke(runner, "ingest", "--db", str(db), "/no/such/place")
    assert code == 1
    assert "Error:" in out and "/no/such/place" in out


def test_run_records_wagers_and_handle_for_the_report(
    runner: CliRunner, db: Path, logs: Path
) -> None:
    """Worked example: box 4 stakes 20; box 1 splits 50 into 50 + 50 and doubles hand 0."""
    from decimal import Decimal

    from audit.store import open_store

    invoke(runner, "ingest", "--db", str(db), str(logs))
    invoke(runner, "run", "--db", str(db), "--workers", "1")
    with open_store(db, read_only=True) as store:
        row = store.con.execute("SELECT rounds, wagers, handle FROM shoe_audits").fetchall()
    assert row == [(1, 3, Decimal("170.00"))]


def test_unknown_type_is_kept_and_reported_once_with_its_round(
    runner: CliRunner, db: Path, logs: Path
) -> None:
    """event-log.md: an unknown type is stored, not replayed, and reported LOG_UNKNOWN_TYPE."""
    extra = (
        '{"id":"T07-99","seq":27,"ts":"2026-11-28T20:04:31+01:00","table":"T07",'
        '"shoe":"T07-20261128-01","round":1,"type":"chip_count","n":3}\n'
    )
    with (logs / "2026-11-28" / "T07.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(extra)
    code, out = invoke(runner, "ingest", "--db", str(db), str(logs))
    assert code == 0 and "rejected 0" in out
    invoke(runner, "run", "--db", str(db), "--workers", "1")
    _, out = invoke(runner, "findings", "--db", str(db), "--format", "jsonl")
    rows = [json.loads(line) for line in out.splitlines()]
    assert sorted(r["code"] for r in rows) == ["LOG_UNKNOWN_TYPE", "PAY_WRONG_OUTCOME"]
    (unknown,) = [r for r in rows if r["code"] == "LOG_UNKNOWN_TYPE"]
    assert (unknown["round"], unknown["events"]) == (1, ["T07-99"])
