"""``shoe-audit review`` and the review status in ``findings`` and ``report`` (issue 12)."""

from __future__ import annotations

import csv
import getpass
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.review import ReviewTrail
from tests.accounts import add_accounts
from tests.reports.htmlcheck import Page
from tests.web.conftest import DAY


def _findings(runner: CliRunner, db: Path, *args: str) -> list[dict[str, Any]]:
    res = runner.invoke(app, ["findings", "--db", str(db), "--format", "jsonl", *args])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.stdout.splitlines()]


def _pick(rows: list[dict[str, Any]], severity: str) -> dict[str, Any]:
    return next(r for r in rows if r["severity"] == severity and r["round"] is not None)


PASSWORD = "long enough password"


@pytest.fixture(autouse=True)
def reviewers(db: Path) -> None:
    """Reviews are taken by accounts (issue 29): ana and bob, with the same password."""
    add_accounts(ReviewTrail.beside(db), "ana", "bob", password=PASSWORD)


def _review(runner: CliRunner, db: Path, fid: str, *args: str) -> Any:
    return runner.invoke(
        app, ["review", fid, "--db", str(db), "--password-stdin", *args], input=f"{PASSWORD}\n"
    )


def test_review_records_the_decision_with_the_os_user(runner: CliRunner, db: Path) -> None:
    f = _pick(_findings(runner, db), "major")
    res = _review(runner, db, f["id"], "--confirm", "--note", "video checked", "--by", "ana")
    assert res.exit_code == 0, res.output
    assert f"confirm {f['id']}" in res.stdout and "now confirmed" in res.stdout
    (d,) = ReviewTrail.beside(db).history(f["id"])
    assert (d.by, d.os_user, d.via, d.note) == ("ana", getpass.getuser(), "cli", "video checked")
    assert d.snapshot.code == f["code"] and d.snapshot.message == f["message"]


def test_review_of_an_unknown_finding_exits_1(runner: CliRunner, db: Path) -> None:
    res = _review(runner, db, "0000000000000000", "--dismiss", "--note", "x", "--by", "ana")
    assert res.exit_code == 1
    assert "no finding with id '0000000000000000'" in res.output
    assert not ReviewTrail.beside(db).decisions()


def test_review_takes_exactly_one_decision_a_note_and_a_name(runner: CliRunner, db: Path) -> None:
    fid = _findings(runner, db)[0]["id"]
    assert _review(runner, db, fid, "--note", "x", "--by", "a").exit_code == 2
    assert (
        _review(runner, db, fid, "--confirm", "--dismiss", "--note", "x", "--by", "a").exit_code
        == 2
    )
    assert _review(runner, db, fid, "--confirm", "--by", "a").exit_code == 2
    assert _review(runner, db, fid, "--confirm", "--note", "x").exit_code == 2


def test_findings_carry_a_review_key_in_every_format(runner: CliRunner, db: Path) -> None:
    rows = _findings(runner, db)
    assert all("review" in r and "id" in r for r in rows)
    assert all(r["review"] is None for r in rows)
    crit = _pick(rows, "critical")
    _review(runner, db, crit["id"], "--dismiss", "--note", "log error", "--by", "ana")
    got = {r["id"]: r for r in _findings(runner, db)}[crit["id"]]
    assert got["review"]["status"] == "dismissal_pending"
    assert got["review"]["by"] == ["ana"] and got["review"]["note"] == "log error"
    assert got["review"]["changed_since_review"] is False
    _review(runner, db, crit["id"], "--dismiss", "--note", "agreed", "--by", "bob")
    got = {r["id"]: r for r in _findings(runner, db)}[crit["id"]]
    assert got["review"]["status"] == "dismissed" and got["review"]["by"] == ["ana", "bob"]
    res = runner.invoke(app, ["findings", "--db", str(db), "--format", "csv"])
    table = list(csv.DictReader(io.StringIO(res.stdout)))
    assert {r["id"]: r["review"] for r in table}[crit["id"]] == "dismissed"


def test_the_trail_survives_run_all(runner: CliRunner, db: Path) -> None:
    rows = _findings(runner, db)
    major = _pick(rows, "major")
    _review(runner, db, major["id"], "--needs-video", "--note", "ask surveillance", "--by", "ana")
    res = runner.invoke(app, ["run", "--all", "--db", str(db), "--workers", "1"])
    assert res.exit_code == 0, res.output
    again = _findings(runner, db)
    assert sorted(r["id"] for r in again) == sorted(r["id"] for r in rows)  # stable ids
    assert {r["id"]: r for r in again}[major["id"]]["review"]["status"] == "needs_video"


def _report(runner: CliRunner, db: Path, out: Path) -> str:
    res = runner.invoke(app, ["report", "--db", str(db), "--date", DAY, "--out", str(out)])
    assert res.exit_code == 0, res.output
    return (out / "index.html").read_text(encoding="utf-8")


def _count(html: str, id_: str) -> int:
    m = re.search(rf'id="{id_}">([0-9,]+)<', html)
    assert m is not None, id_
    return int(m.group(1).replace(",", ""))


def _table(html: str, id_: str) -> list[list[str]]:
    return Page(html).tables[id_]


def _by_code(html: str) -> dict[str, tuple[int, str]]:
    return {r[0]: (int(r[2].replace(",", "")), r[3]) for r in _table(html, "by-code")[1:]}


def test_dismissed_findings_leave_the_reports_counts_but_stay_visible(
    runner: CliRunner, db: Path, tmp_path: Path
) -> None:
    before = _report(runner, db, tmp_path / "r1")
    total, critical = _count(before, "findings-total"), _count(before, "critical-total")
    rows = _findings(runner, db, "--date", DAY)
    major = _pick(rows, "major")
    crit = _pick(rows, "critical")
    _review(runner, db, major["id"], "--dismiss", "--note", "log error", "--by", "ana")
    _review(runner, db, crit["id"], "--dismiss", "--note", "log error", "--by", "ana")
    mid = _report(runner, db, tmp_path / "r2")
    # the major one is out; the critical one waits for a second reviewer and still counts
    assert (_count(mid, "findings-total"), _count(mid, "critical-total")) == (total - 1, critical)
    assert "dismissal pending" in " ".join(" ".join(r) for r in _table(mid, "flagged"))
    _review(runner, db, crit["id"], "--dismiss", "--note", "agreed", "--by", "bob")
    after = _report(runner, db, tmp_path / "r3")
    assert _count(after, "findings-total") == total - 2
    assert _count(after, "critical-total") == critical - 1
    assert _count(after, "dismissed-total") == 2
    listed = " ".join(" ".join(r) for r in _table(after, "dismissed-findings"))
    assert major["code"] in listed and crit["code"] in listed and "ana, bob" in listed
    codes = _by_code(after)
    assert codes[crit["code"]][1].startswith("1")  # per code, how many were dismissed
    assert "%" in codes[crit["code"]][1]
