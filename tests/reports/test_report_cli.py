"""The report through the real CLI (issue 10, points 3, 6, 9, 10, 11): empty days, masking,
the hand pages' time, source and links, the folder refused or swapped."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.reports.hand import mask_player
from audit.reports.paths import hand_href
from tests.reports.htmlcheck import Page

WORKED = Path(__file__).resolve().parents[1] / "data" / "worked_example.jsonl"


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The event-log.md worked example (its shoe closed), ingested and run."""
    folder = tmp_path_factory.mktemp("cli")
    logs = folder / "logs"
    logs.mkdir()
    lines = WORKED.read_text().splitlines()
    shutil.copy(WORKED, logs / "T07.jsonl")
    assert lines
    db = folder / "audit.duckdb"
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", "--db", str(db), str(logs)]).exit_code == 0
    assert runner.invoke(app, ["run", "--db", str(db), "--workers", "1"]).exit_code == 0
    return db


def report(db: Path, out: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["report", "--db", str(db), "--out", str(out), *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_day_with_nothing_audited_is_an_error_not_a_clean_report(
    audited: Path, tmp_path: Path
) -> None:
    """Point 6: exit 1 with the reason on stderr, and no folder written."""
    code, stdout, stderr = report(audited, tmp_path / "out", "--date", "2026-11-27")
    assert code == 1 and stdout == ""
    assert "nothing audited for gaming day(s) 2026-11-27" in stderr
    assert not (tmp_path / "out").exists()


def test_shoes_not_yet_audited_are_named_on_the_page(tmp_path: Path) -> None:
    """Point 6: a second shoe ingested after the run is pending; the page says so."""
    db = tmp_path / "audit.duckdb"
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(WORKED, logs / "T07.jsonl")
    runner = CliRunner()
    runner.invoke(app, ["ingest", "--db", str(db), str(logs)])
    runner.invoke(app, ["run", "--db", str(db), "--workers", "1"])
    later = [
        line.replace("T07-20261128-01", "T07-20261128-02").replace('"T07-', '"T07-b')
        for line in WORKED.read_text().splitlines()
    ]
    (logs / "T07-later.jsonl").write_text("\n".join(later) + "\n")
    runner.invoke(app, ["ingest", "--db", str(db), str(logs)])
    code, _, stderr = report(db, tmp_path / "out", "--date", "2026-11-28")
    assert code == 0, stderr
    page = Page((tmp_path / "out" / "index.html").read_text())
    text = " ".join("".join(page.text).split())
    assert "1 shoe of this period is not counted as audited: 1 not yet audited" in text
    assert page.body_rows("pending-shoes") == [
        ["T07", "T07-b20261128-02", "2026-11-28", "not audited"]
    ]


def test_player_ids_are_masked_unless_asked(audited: Path, tmp_path: Path) -> None:
    """Point 3: the worked example's box 1 names P-1881."""
    href = hand_href("T07", "T07-20261128-01", 1)
    assert report(audited, tmp_path / "a", "--date", "2026-11-28")[0] == 0
    masked = (tmp_path / "a" / href).read_text()
    assert "P-1881" not in masked and mask_player("P-1881") == "••••81"
    assert "••••81" in masked
    assert report(audited, tmp_path / "b", "--date", "2026-11-28", "--show-players")[0] == 0
    assert "P-1881" in (tmp_path / "b" / href).read_text()


def test_the_hand_page_shows_time_and_source_and_links_back(audited: Path, tmp_path: Path) -> None:
    """Points 10 and 11: every event's time and file:line; a link back to the report."""
    assert report(audited, tmp_path / "out", "--date", "2026-11-28")[0] == 0
    out = tmp_path / "out"
    page_path = out / hand_href("T07", "T07-20261128-01", 1)
    page = Page(page_path.read_text())
    steps = page.body_rows("step-table")
    assert len(steps) == 20
    # seq 8 is the bet of box 1: line 8 of the file, at 20:03:10
    bet = next(r for r in steps if r[1] == "8")
    assert bet[2] == "20:03:10" and bet[-1].endswith("T07.jsonl:8")
    back = [a for t, a in page.tags if t == "a" and a.get("id") == "to-report"]
    assert (
        len(back) == 1
        and (page_path.parent / str(back[0]["href"])).resolve() == (out / "index.html").resolve()
    )
    wagers = page.body_rows("wager-table")
    verdicts = {(r[0], r[1]): r[8] for r in wagers}
    assert verdicts[("1", "1")].startswith("PAY_WRONG_OUTCOME")
    assert verdicts[("1", "0")] == "ok" and verdicts[("4", "0")] == "ok"
    assert next(r for r in wagers if (r[0], r[1]) == ("1", "0"))[5] == "50.00 + 50.00 double split"


def test_out_pointing_at_a_foreign_folder_is_refused(audited: Path, tmp_path: Path) -> None:
    """Point 9; a refused --out is a usage error (issue 29, point 11b)."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    code, _, stderr = report(audited, out, "--date", "2026-11-28")
    assert code == 2 and "holds no shoe-audit report" in stderr
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_the_hand_command_keeps_the_words_on_utf8_and_folds_on_ascii(audited: Path) -> None:
    """Point 13, through the real CLI: a UTF-8 output keeps «...», an ASCII one folds."""
    import os
    import subprocess
    import sys

    args = [sys.executable, "-m", "audit", "hand", "T07", "T07-20261128-01", "1", "--db"]
    for enc, quote in (("utf-8", "«Il mazziere"), ("ascii", '"Il mazziere')):
        env = {**os.environ, "PYTHONIOENCODING": enc}
        done = subprocess.run([*args, str(audited)], capture_output=True, env=env, check=True)
        assert quote.encode(enc) in done.stdout


def test_a_seq_logged_twice_still_lists_its_round_once(audited: Path, tmp_path: Path) -> None:
    """``report_flagged`` takes a round's opening time from its first event (``seq`` =
    ``first_seq``): a second event stored with that seq does not list the round twice."""
    import duckdb

    from audit.profiles import load_registry
    from audit.reports.report import report_sources
    from audit.reports.sources import FLAGGED
    from audit.store import open_store

    db = tmp_path / "audit.duckdb"
    shutil.copy(audited, db)
    con = duckdb.connect(str(db))
    try:
        con.execute(
            """INSERT INTO events SELECT * REPLACE (id || '-again' AS id) FROM events
               WHERE seq = (SELECT first_seq FROM rounds WHERE round = 1)"""
        )
    finally:
        con.close()
    with open_store(db, read_only=True) as store:
        days = [
            d for (d,) in store.con.execute("SELECT DISTINCT gaming_day FROM rounds").fetchall()
        ]
        with report_sources(store, days, load_registry(), {}) as src:
            rows = src.all(f"SELECT table_id, shoe, round, opened_local FROM {FLAGGED}")
    assert len(rows) == 1 and rows[0][2] == 1 and rows[0][3] is not None
