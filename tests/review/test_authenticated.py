"""Four eyes are two authenticated accounts; typed names are shown, never counted (issue 29,
point 2), and a finding is named by a unique prefix of its id."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import duckdb
from typer.testing import CliRunner

from audit.cli import app
from audit.review import ReviewTrail, Snapshot
from audit.store import open_store
from tests.accounts import add_accounts
from tests.reports.htmlcheck import Page
from tests.web.conftest import DAY

PASSWORD = "long enough password"
REFUSED = "Error: unknown account or wrong password"


def _findings(runner: CliRunner, db: Path, *args: str) -> dict[str, dict[str, Any]]:
    res = runner.invoke(app, ["findings", "--db", str(db), "--format", "jsonl", *args])
    assert res.exit_code == 0, res.output
    return {r["id"]: r for r in map(json.loads, res.stdout.splitlines())}


def _critical(runner: CliRunner, db: Path) -> dict[str, Any]:
    rows = _findings(runner, db, "--date", DAY).values()
    return next(r for r in rows if r["severity"] == "critical" and r["round"] is not None)


def _review(
    runner: CliRunner, db: Path, fid: str, by: str, password: str = PASSWORD, *extra: str
) -> Any:
    return runner.invoke(
        app,
        [
            "review",
            fid,
            "--dismiss",
            "--note",
            "log error",
            "--by",
            by,
            "--db",
            str(db),
            "--password-stdin",
            *extra,
        ],
        input=f"{password}\n",
    )


def _reviewers(db: Path, *names: str) -> None:
    add_accounts(ReviewTrail.beside(db), *names, password=PASSWORD)


def test_typed_names_dismiss_nothing_two_accounts_do(runner: CliRunner, db: Path) -> None:
    """The issue's reproduction: ``--by ana`` then ``--by bob`` from one shell, and names
    that are no account (mallory), dismissed a critical finding."""
    fid = _critical(runner, db)["id"]
    trail = ReviewTrail.beside(db)
    for who in ("ana", "bob", "mallory"):  # no account exists yet
        res = _review(runner, db, fid, who)
        assert res.exit_code == 1
        assert res.output.strip().splitlines()[-1].startswith(REFUSED)
    assert trail.decisions() == []
    _reviewers(db, "ana", "bob")
    wrong = _review(runner, db, fid, "ana", "not the password")
    unknown = _review(runner, db, fid, "mallory")
    assert (wrong.exit_code, unknown.exit_code) == (1, 1)
    # the same line for both: a name cannot be probed
    assert wrong.output.strip().splitlines()[-1] == REFUSED
    assert unknown.output.strip().splitlines()[-1] == REFUSED
    assert trail.decisions() == []
    for _ in range(2):  # one account twice is one pair of eyes
        assert _review(runner, db, fid, "ana").exit_code == 0
    assert _findings(runner, db)[fid]["review"]["status"] == "dismissal_pending"
    res = _review(runner, db, fid, "bob")
    assert res.exit_code == 0 and "now dismissed" in res.stdout
    review = _findings(runner, db)[fid]["review"]
    assert (review["status"], review["by"], review["unauthenticated"]) == (
        "dismissed",
        ["ana", "bob"],
        [],
    )
    assert [d.account for d in trail.history(fid)] == ["ana", "ana", "bob"]
    assert trail.verify().ok


def test_the_password_is_asked_for_unechoed(runner: CliRunner, db: Path) -> None:
    fid = _critical(runner, db)["id"]
    _reviewers(db, "ana")
    args = ["review", fid, "--confirm", "--note", "seen", "--by", "ana", "--db", str(db)]
    res = runner.invoke(app, args, input=f"{PASSWORD}\n")
    assert res.exit_code == 0, res.output
    assert "password for ana" in res.output and PASSWORD not in res.output
    assert runner.invoke(app, args, input="wrong password\n").exit_code == 1
    assert [d.account for d in ReviewTrail.beside(db).history(fid)] == ["ana"]


# --------------------------------------------------------------------------- an older trail

OLD_DDL = """
CREATE TABLE decisions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    finding_id TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('confirm', 'dismiss', 'needs_video')),
    note TEXT NOT NULL,
    by_name TEXT NOT NULL,
    os_user TEXT,
    via TEXT NOT NULL,
    at TEXT NOT NULL,
    snapshot TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE
);
CREATE INDEX decisions_by_finding ON decisions (finding_id, seq);
CREATE TRIGGER decisions_never_updated BEFORE UPDATE ON decisions
BEGIN SELECT RAISE(ABORT, 'the review trail is append-only: decisions are never updated'); END;
CREATE TRIGGER decisions_never_deleted BEFORE DELETE ON decisions
BEGIN SELECT RAISE(ABORT, 'the review trail is append-only: decisions are never deleted'); END;
CREATE TABLE accounts (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('reviewer', 'manager')),
    kdf TEXT NOT NULL,
    salt TEXT NOT NULL,
    hash TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def _old_trail(db: Path, decisions: list[tuple[str, str, str]]) -> None:
    """A review file as the code before issue 29 wrote it: typed names, no account column,
    each decision hashed over its canonical JSON (computed here, independently)."""
    with open_store(db, read_only=True) as s:
        found = {f.id: f for f in s.all_findings(ids=[fid for fid, _, _ in decisions])}
    con = sqlite3.connect(ReviewTrail.beside(db).path)
    con.executescript(OLD_DDL)
    prev = "0" * 64
    for seq, (fid, verdict, by) in enumerate(decisions, start=1):
        snap = Snapshot.of(found[fid]).to_dict()
        at = f"2026-11-29T0{seq}:00:00+00:00"
        body = [prev, seq, fid, verdict, "typed", by, "root", "cli", at, snap]
        h = hashlib.sha256(
            json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
        ).hexdigest()
        con.execute(
            "INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [seq, fid, verdict, "typed", by, "root", "cli", at, json.dumps(snap), prev, h],
        )
        prev = h
    con.commit()
    con.close()


def test_an_older_trail_still_verifies_and_its_typed_names_are_marked_not_counted(
    runner: CliRunner, db: Path, tmp_path: Path
) -> None:
    rows = _findings(runner, db, "--date", DAY)
    crit = [r for r in rows.values() if r["severity"] == "critical" and r["round"] is not None]
    major = next(r for r in rows.values() if r["severity"] == "major" and r["round"] is not None)
    a, b = crit[0]["id"], crit[1]["id"]
    _old_trail(
        db,
        [
            (a, "dismiss", "ana"),  # the two typed names on one critical finding
            (a, "dismiss", "bob"),
            (b, "dismiss", "mallory"),
            (major["id"], "dismiss", "zed"),
            (major["id"], "confirm", "zed"),
        ],
    )
    trail = ReviewTrail.beside(db)
    assert trail.verify().ok and trail.verify().decisions == 5  # read before any migration
    now = _findings(runner, db)
    assert now[a]["review"]["status"] == "dismissal_pending"  # no pair of eyes at all
    assert now[a]["review"]["unauthenticated"] == ["ana", "bob"]
    assert now[major["id"]]["review"]["status"] == "confirmed"  # a confirmation stands, marked
    assert now[major["id"]]["review"]["unauthenticated"] == ["zed"]
    table = runner.invoke(
        app, ["findings", "--db", str(db), "--format", "table"], env={"COLUMNS": "400"}
    )
    assert "dismissal pending (unauthenticated: ana, bob)" in table.stdout

    # two accounts on the second one: it leaves the totals; the typed name stays shown
    _reviewers(db, "ana", "carol")
    assert _review(runner, db, b, "ana").exit_code == 0  # the first write migrates the file
    assert _review(runner, db, b, "carol").exit_code == 0
    check = trail.verify()
    assert check.ok and check.decisions == 7
    old, new = trail.history(b)[0], trail.history(b)[-1]
    assert (old.account, new.account) == (None, "carol")
    got = _findings(runner, db)[b]["review"]
    assert (got["status"], got["by"]) == ("dismissed", ["mallory", "ana", "carol"])
    res = runner.invoke(
        app, ["report", "--db", str(db), "--date", DAY, "--out", str(tmp_path / "r")]
    )
    assert res.exit_code == 0, res.output
    html = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    (listed,) = Page(html).tables["dismissed-findings"][1:]  # typed names dismissed nothing
    assert crit[1]["code"] in listed and "mallory (unauthenticated), ana, carol" in listed

    con = sqlite3.connect(trail.path)
    con.execute("DROP TRIGGER decisions_never_updated")  # a tamperer "authenticating" it
    con.execute("UPDATE decisions SET account = by_name WHERE seq = 1")
    con.commit()
    con.close()
    assert trail.verify().broken_at == 1
    after = _findings(runner, db)
    # a tampered trail's dismissals count for nothing (issue 29, point 3) and it is named
    assert after[b]["review"] is None and after[a]["review"]["status"] == "dismissal_pending"
    assert any(
        r["code"] == "LOG_TAMPERED" and "decision #1 " in r["message"] for r in after.values()
    )


# --------------------------------------------------------------------------- id prefixes


def test_a_unique_prefix_of_six_names_a_finding(runner: CliRunner, db: Path) -> None:
    fid = _critical(runner, db)["id"]
    _reviewers(db, "ana")
    assert _review(runner, db, fid[:6], "ana").exit_code == 0
    assert ReviewTrail.beside(db).history(fid)[0].finding_id == fid
    short = _review(runner, db, fid[:5], "ana")
    assert short.exit_code == 2 and "at least 6" in short.output
    none = _review(runner, db, "zzzzzz", "ana")
    assert none.exit_code == 1 and "no finding with id 'zzzzzz'" in none.output


def test_an_ambiguous_prefix_names_the_candidates(runner: CliRunner, db: Path) -> None:
    # seven findings whose ids share their first 8 characters (DuckDB edited directly: no
    # real night has such ids, but a real database holds them)
    con = duckdb.connect(str(db))
    con.execute(
        """INSERT INTO findings SELECT * EXCLUDE (n) REPLACE ('abcdef12' || lpad(CAST(n AS
           VARCHAR), 8, '0') AS id) FROM (SELECT *, row_number() OVER () AS n FROM findings
           LIMIT 7)"""
    )
    ids = sorted(
        r[0] for r in con.execute("SELECT id FROM findings WHERE id LIKE 'abc%'").fetchall()
    )
    con.close()
    _reviewers(db, "ana")
    res = _review(runner, db, "abcdef1", "ana")
    assert res.exit_code == 1
    (line,) = res.output.strip().splitlines()
    assert line.startswith("Error: finding id 'abcdef1' is ambiguous: 7 findings start so: ")
    assert all(i in line for i in ids[:5]) and not any(i in line for i in ids[5:])
    assert line.endswith(" and 2 more") and "(" in line  # each id with its code
    assert _review(runner, db, ids[6], "ana").exit_code == 0  # the whole id is never ambiguous
    assert not ReviewTrail.beside(db).history("abcdef1")
