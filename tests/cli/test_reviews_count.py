"""Reviews count (issue 30, point 3): ``status`` by review state, ``nightly --fail-on``
counting the critical findings not dismissed on review, ``nightly --json``'s counts and
the money moved wrongly, the one-line error naming the report, ``--quiet`` on success.

The sample night: 14 critical findings, 3 major; 143.5 moved wrongly in all, 50 of it
by ``5ff7cbb1`` (PAY_WRONG_AMOUNT at T01).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from audit.review import ReviewTrail
from tests.accounts import add_accounts
from tests.cli.helpers import SAMPLE, cli

PASSWORD = "long enough password"
BIG = "5ff7cbb1"
"""The critical PAY_WRONG_AMOUNT of 50 at T01."""


@pytest.fixture
def db(sample_db: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "audit.duckdb"
    shutil.copy(sample_db, copy)
    ledger = sample_db.with_name(sample_db.name + ".ledger")
    if ledger.exists():
        shutil.copy(ledger, copy.with_name(copy.name + ".ledger"))
    for name in ("ana", "bob"):
        add_accounts(ReviewTrail.beside(copy), name, password=PASSWORD)
    return copy


def review(db: Path, fid: str, verdict: str, by: str) -> None:
    res = cli("review", fid, "--db", str(db), "--by", by, "--password-stdin", verdict,
              "--note", "seen on video", input=f"{PASSWORD}\n")  # fmt: skip
    assert res.exit_code == 0, res.output


def status_line(db: Path) -> str:
    res = cli("status", "--db", str(db))
    assert res.exit_code == 0, res.output
    return next(line for line in res.stdout.splitlines() if line.startswith("  by review"))


def test_status_shows_findings_by_review_state(db: Path) -> None:
    assert status_line(db) == (
        "  by review  17 open, 0 confirmed, 0 needs video, 0 dismissal pending, 0 dismissed"
    )
    review(db, "943ae283", "--confirm", "ana")
    review(db, "1c64c86b", "--needs-video", "ana")
    review(db, BIG, "--dismiss", "ana")  # critical: one account is not enough
    assert status_line(db) == (
        "  by review  14 open, 1 confirmed, 1 needs video, 1 dismissal pending, 0 dismissed"
    )
    review(db, BIG, "--dismiss", "bob")
    assert status_line(db) == (
        "  by review  14 open, 1 confirmed, 1 needs video, 0 dismissal pending, 1 dismissed"
    )
    res = cli("status", "--db", str(db), "--json")
    assert json.loads(res.stdout)["reviews"] == {
        "open": 14, "confirmed": 1, "needs_video": 1, "dismissal_pending": 0, "dismissed": 1
    }  # fmt: skip


def nightly(db: Path, tmp_path: Path, *args: str) -> tuple[int, str, str, Path]:
    out = tmp_path / "report"
    res = cli("nightly", str(SAMPLE), "--db", str(db), "--out", str(out), *args)
    return res.exit_code, res.stdout, res.stderr, out / "index.html"


def test_fail_on_critical_counts_what_review_did_not_dismiss(db: Path, tmp_path: Path) -> None:
    code, out, err, report = nightly(db, tmp_path, "--fail-on", "critical", "--json")
    assert code == 3
    got = json.loads(out)
    assert got["failing_findings"] == 14 and got["report"] == str(report)
    assert got["findings"] == {
        "by_severity": {"critical": 14, "major": 3, "minor": 0, "info": 0},
        "by_review": {
            "open": 17, "confirmed": 0, "needs_video": 0, "dismissal_pending": 0, "dismissed": 0
        },
        "not_dismissed_by_severity": {"critical": 14, "major": 3, "minor": 0, "info": 0},
        "moved_wrongly": "143.5",
    }  # fmt: skip
    assert err == (
        "Error: 14 findings of severity critical or worse not dismissed on review; "
        f"report: {report}; findings: 14 critical, 3 major, 0 minor, 0 info; "
        "17 open, 0 confirmed, 0 needs video, 0 dismissal pending, 0 dismissed; "
        "143.5 moved wrongly\n"
    )
    # One account's dismissal of a critical finding is pending: it still counts.
    review(db, BIG, "--dismiss", "ana")
    code, out, _, _ = nightly(db, tmp_path, "--fail-on", "critical", "--json")
    got = json.loads(out)
    assert (code, got["failing_findings"], got["findings"]["moved_wrongly"]) == (3, 14, "143.5")
    assert got["findings"]["by_review"]["dismissal_pending"] == 1
    # The second account's: dismissed, out of the count and of the money.
    review(db, BIG, "--dismiss", "bob")
    code, out, _, _ = nightly(db, tmp_path, "--fail-on", "critical", "--json")
    got = json.loads(out)
    assert (code, got["failing_findings"], got["findings"]["moved_wrongly"]) == (3, 13, "93.5")
    assert got["findings"]["by_severity"]["critical"] == 14
    assert got["findings"]["not_dismissed_by_severity"]["critical"] == 13
    assert got["findings"]["by_review"]["dismissed"] == 1


def test_quiet_stays_quiet_on_success(db: Path, tmp_path: Path) -> None:
    code, out, err, report = nightly(db, tmp_path, "--quiet", "--fail-on", "critical")
    assert code == 3 and out == "" and err.startswith("Error: 14 findings")
    code, out, err, report = nightly(db, tmp_path, "--quiet")
    assert (code, out, err) == (0, "", "")
    assert report.is_file()
