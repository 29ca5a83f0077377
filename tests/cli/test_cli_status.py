"""Issue 10.18: ``shoe-audit status`` says what the database holds (cli.md)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

from tests.cli.helpers import cli

WORKED = Path(__file__).resolve().parents[1] / "data" / "worked_example.jsonl"
EXTRA = (
    '{"id":"T07-27","seq":27,"ts":"2026-11-28T20:05:00+01:00","table":"T07",'
    '"shoe":"T07-20261128-01","type":"shoe_close","reason":"end_of_session"}\n'
)


def status(db: Path) -> dict[str, object]:
    result = cli("status", "--db", str(db), "--json")
    assert result.exit_code == 0, result.output
    obj: dict[str, object] = json.loads(result.stdout)
    return obj


def test_status_follows_ingest_run_and_a_changed_shoe(tmp_path: Path) -> None:
    db, log = tmp_path / "a.duckdb", tmp_path / "T07.jsonl"
    shutil.copy(WORKED, log)
    assert cli("ingest", "--db", str(db), str(log)).exit_code == 0
    s = status(db)
    assert s["gaming_days"] == ["2026-11-28"] and s["tables"] == ["T07"]
    assert (s["files"], s["events"], s["quarantined"]) == (1, 26, 0)
    assert s["shoes"] == {
        "total": 1,
        "audited": 0,
        "not_audited": 1,
        "out_of_date": 0,
        "open": 1,
        "failed": 0,
    }
    assert s["rounds"] == {"total": 1, "audited": 0}
    assert s["findings"] == {"critical": 0, "major": 0, "minor": 0, "info": 0}
    assert s["last_ingest"] is not None and s["last_run"] is None

    assert cli("run", "--db", str(db), "--workers", "1").exit_code == 0
    s = status(db)
    assert s["shoes"] == {
        "total": 1,
        "audited": 1,
        "not_audited": 0,
        "out_of_date": 0,
        "open": 1,
        "failed": 0,
    }
    assert s["rounds"] == {"total": 1, "audited": 1}
    assert s["findings"] == {"critical": 1, "major": 0, "minor": 0, "info": 0}
    assert s["last_run"] is not None
    assert s["audited_with"] == {s["engine_version"]: 1}

    with log.open("a", encoding="utf-8") as fh:  # the shoe closes in a later file
        fh.write(EXTRA)
    assert cli("ingest", "--db", str(db), str(log)).exit_code == 0
    s = status(db)
    assert s["shoes"] == {
        "total": 1,
        "audited": 0,
        "not_audited": 0,
        "out_of_date": 1,
        "open": 0,
        "failed": 0,
    }


def test_status_text(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    assert cli("ingest", "--db", str(db), str(WORKED)).exit_code == 0
    assert cli("run", "--db", str(db), "--workers", "1").exit_code == 0
    result = cli("status", "--db", str(db))
    assert result.exit_code == 0
    from audit.books.house import PACKAGED_HOUSE
    from audit.engine import ENGINE_VERSION

    house_sha = hashlib.sha256(PACKAGED_HOUSE.read_bytes()).hexdigest()
    when = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"
    text = re.sub(when, "<when>", result.stdout)
    assert text == (
        f"database     {db} (schema {status(db)['schema_version']})\n"
        "gaming days  1 (2026-11-28 .. 2026-11-28)\n"
        "tables       1 (T07)\n"
        "files        1 ingested, 26 events, 0 lines quarantined\n"
        "shoes        1: 1 audited, 0 not yet audited, 0 out of date, 1 still open\n"
        "rounds       1 stored, 1 audited\n"
        "findings     1 critical, 0 major, 0 minor, 0 info\n"
        "  by review  1 open, 0 confirmed, 0 needs video, 0 dismissal pending, 0 dismissed\n"
        "last ingest  <when>\n"
        "last run     <when>\n"
        f"engine       {ENGINE_VERSION} (shoes audited with: {ENGINE_VERSION} 1)\n"
        "books        no periods (no table keeps books, or `run` has not reconciled them)\n"
        f"house file   {PACKAGED_HOUSE} (sha256 {house_sha})\n"
        f"day start    06:00 for 2026-11-28 (from house file sha256 {house_sha[:12]})\n"
    )


def test_status_without_a_database_exits_1(tmp_path: Path) -> None:
    result = cli("status", "--db", str(tmp_path / "none.duckdb"))
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: no database at ")
    assert list(tmp_path.iterdir()) == []
