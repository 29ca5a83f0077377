"""The review trail anchored (issue 29, point 3): every tampering caught by verify (exit 4,
naming the decision) and shown by findings and the report, whose dismissals then count
for nothing; an untouched trail and an interrupted decision are no tampering.

Each test takes a real audited night (DuckDB file, ledger file) with a real trail of
decisions beside it, tampers with the SQLite file as someone with write access would
(triggers dropped), and runs the real CLI.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.review import ReviewTrail
from audit.review.trail import GENESIS, rehash
from audit.simulate import simulate
from audit.store import open_store
from tests.accounts import add_accounts


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A night ingested and audited, then five decisions: three dismissals of major
    findings, a confirmation, a dismissal; then a run (which records the trail's head)."""
    base = tmp_path_factory.mktemp("reviewed")
    night = base / "night"
    simulate(night, tables=2, shoes=1, rounds=40, profiles=["it-casino-6d"], seed=11,
             error_rate=0.3)  # fmt: skip
    (night / "injected.ndjson").unlink()
    db = base / "audit.duckdb"
    assert cli("ingest", "--db", str(db), str(night)).exit_code == 0
    assert cli("run", "--db", str(db), "--workers", "1").exit_code == 0
    with open_store(db, read_only=True) as store:
        major = [f for f in store.all_findings() if str(f.severity) == "major"]
    assert len(major) >= 5
    trail = ReviewTrail.beside(db)
    add_accounts(trail, "ana", "bob", password="long enough password")
    # as `review --by NAME` records them: the account whose password was checked
    for f in major[:3]:
        trail.record(f, "dismiss", note="log error", by="ana", via="cli", account="ana")
    trail.record(major[3], "confirm", note="video: paid 15", by="bob", via="cli", account="bob")
    trail.record(major[4], "dismiss", note="log error", by="bob", via="cli", account="bob")
    assert cli("run", "--db", str(db), "--workers", "1").exit_code == 0
    return db


@pytest.fixture
def db(reviewed: Path, tmp_path: Path) -> Path:
    for p in reviewed.parent.iterdir():
        if p.is_file():
            shutil.copy(p, tmp_path / p.name)
    return tmp_path / reviewed.name


def tamper(db: Path, *statements: str, params: list[Any] | None = None) -> None:
    con = sqlite3.connect(db.with_name("audit.reviews.sqlite"))
    con.execute("DROP TRIGGER IF EXISTS decisions_never_updated")
    con.execute("DROP TRIGGER IF EXISTS decisions_never_deleted")
    for s in statements:
        con.execute(s, params or [])
    con.commit()
    con.close()


def verify(db: Path, *args: str) -> tuple[int, list[str]]:
    r = cli("verify", "--db", str(db), *args)
    return r.exit_code, [x for x in r.stdout.splitlines() if x.startswith("LOG_TAMPERED")]


def tampered_findings(db: Path) -> list[dict[str, Any]]:
    r = cli("findings", "--db", str(db), "--code", "LOG_TAMPERED", "--format", "jsonl")
    assert r.exit_code == 0, r.output
    return [json.loads(x) for x in r.stdout.splitlines()]


def dismissed_in_findings(db: Path) -> int:
    r = cli("findings", "--db", str(db), "--format", "jsonl")
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    return sum((row["review"] or {}).get("status") == "dismissed" for row in rows)


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, str] = {}
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs).get("id")
        if found:
            self.ids[found] = ""
            self._open.append(found)

    def handle_data(self, data: str) -> None:
        for i in self._open:
            self.ids[i] += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("p", "div") and self._open:
            self._open.pop()


def report(db: Path, out: Path) -> dict[str, str]:
    r = cli("report", "--db", str(db), "--out", str(out))
    assert r.exit_code == 0, r.output
    parser = _Ids()
    parser.feed((out / "index.html").read_text())
    return parser.ids


def assert_caught(db: Path, tmp_path: Path, *expected: str) -> None:
    """verify exits 4 naming each ``expected``; findings and the report show LOG_TAMPERED
    and count no dismissal."""
    code, lines = verify(db)
    assert code == 4, lines
    for text in expected:
        assert any(text in x for x in lines), (text, lines)
    rows = tampered_findings(db)
    assert rows and all(r["table"] is None and r["severity"] == "critical" for r in rows)
    assert any(r["message"].startswith("trail: ") for r in rows)
    assert dismissed_in_findings(db) == 0
    ids = report(db, tmp_path / "report")
    assert "dismissals count for nothing" in ids["trail-distrusted"]
    assert "tampered" in ids


# --------------------------------------------------------------------------- untouched


def test_an_untouched_trail_with_decisions_verifies_clean(db: Path, tmp_path: Path) -> None:
    code, lines = verify(db)
    assert (code, lines) == (0, [])
    assert tampered_findings(db) == []
    assert dismissed_in_findings(db) == 4
    ids = report(db, tmp_path / "report")
    assert "trail-distrusted" not in ids
    assert "5 decisions" in ids["trail-head"]
    heads = json.loads((tmp_path / "report" / "ledger-heads.json").read_text())
    assert heads["trail"]["decisions"] == 5
    sums = (tmp_path / "report" / "SHA256SUMS").read_text()
    assert "ledger-heads.json" in sums


def test_run_records_the_trails_head_in_the_ledger_only_when_it_moved(db: Path) -> None:
    import duckdb

    def trail_records() -> list[Any]:
        con = duckdb.connect(str(db), read_only=True)
        try:
            return con.execute("SELECT body FROM ledger WHERE kind = 'trail'").fetchall()
        finally:
            con.close()

    before = trail_records()
    assert json.loads(before[-1][0])["decisions"] == 5
    assert cli("run", "--db", str(db), "--workers", "1").exit_code == 0
    assert trail_records() == before


def test_an_interrupted_decision_is_no_tampering(db: Path) -> None:
    """A record line written and fsync'ed, then no COMMIT (the process died): no marker,
    no row; not tampering, and the next decision takes its number."""
    trail = ReviewTrail.beside(db)
    d = trail.decisions()[-1]
    from audit.review.trail import ledger_record
    from audit.store.ledger import read_tail, record_line

    tail = read_tail(trail.ledger_path, None)
    assert tail.marker is not None
    ghost = ledger_record(
        type(d)(6, d.finding_id, d.verdict, "never committed", "ana", None, "cli", d.at,
                d.snapshot, d.hash, "f" * 64),
        tail.marker[1],
    )  # fmt: skip
    with trail.ledger_path.open("a") as fh:
        fh.write(record_line(ghost, None))
    code, lines = verify(db)
    assert (code, lines) == (0, [])
    assert tampered_findings(db) == []
    with open_store(db, read_only=True) as store:
        f = store.all_findings(ids=[d.finding_id])[0]
    assert trail.record(f, "confirm", note="after all", by="ana", via="cli").seq == 6
    assert verify(db) == (0, [])


# --------------------------------------------------------------------------- tampering


def test_an_update_of_the_reviewers_name(db: Path, tmp_path: Path) -> None:
    tamper(db, "UPDATE decisions SET by_name = 'mallory' WHERE seq = 2")
    assert_caught(db, tmp_path, "decision #2 (finding ")
    assert any("by changed after it was recorded" in x for x in verify(db)[1])


def test_an_update_of_a_note(db: Path, tmp_path: Path) -> None:
    tamper(db, "UPDATE decisions SET note = 'the video shows nothing' WHERE seq = 4")
    assert_caught(db, tmp_path, "note changed after it was recorded")


def test_the_last_decision_deleted(db: Path, tmp_path: Path) -> None:
    tamper(db, "DELETE FROM decisions WHERE seq = 5")
    assert_caught(db, tmp_path, "decision #5 (finding ")
    assert any("#5 (finding" in x and "removed after it was recorded" in x for x in verify(db)[1])


def test_an_edit_with_every_hash_recomputed(db: Path, tmp_path: Path) -> None:
    trail = ReviewTrail.beside(db)
    tamper(db, "UPDATE decisions SET verdict = 'dismiss', note = 'fine' WHERE seq = 4")
    prev = GENESIS
    for d in trail.decisions():
        h = rehash(d, prev)
        tamper(db, "UPDATE decisions SET prev_hash = ?, hash = ? WHERE seq = " + str(d.seq),
               params=[prev, h])  # fmt: skip
        prev = h
    assert trail.verify().ok  # the trail's own chain holds: only the anchors tell
    assert_caught(db, tmp_path, "decision #4 (finding ", "note and verdict changed")
    _, lines = verify(db)
    assert not any("#5" in x for x in lines)  # only the decision changed, not those after


def test_the_trail_ledger_file_deleted(db: Path, tmp_path: Path) -> None:
    ReviewTrail.beside(db).ledger_path.unlink()
    assert_caught(db, tmp_path, "ledger file")
    with open_store(db, read_only=True) as store:
        f = store.all_findings()[0]
    from audit.review import ReviewError

    with pytest.raises(ReviewError, match="ledger restart --trail"):
        ReviewTrail.beside(db).record(f, "confirm", note="x", by="ana", via="cli")


def test_the_trail_ledger_file_truncated(db: Path, tmp_path: Path) -> None:
    path = ReviewTrail.beside(db).ledger_path
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:4]))  # decisions 1 and 2 with their markers
    assert_caught(db, tmp_path, "decision #3 (finding ", "is not in the trail's ledger file")


def test_verify_report_finds_a_decision_removed_after_a_report(db: Path, tmp_path: Path) -> None:
    report(db, tmp_path / "archive")
    assert verify(db, "--report", str(tmp_path / "archive")) == (0, [])
    tamper(db, "DELETE FROM decisions WHERE seq = 5")
    path = ReviewTrail.beside(db).ledger_path
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:8]))
    _, lines = verify(db, "--report", str(tmp_path / "archive"))
    assert any("pinned review decision #5" in x and "removed" in x for x in lines)


def test_a_lost_trail_ledger_file_is_restarted_on_the_record(db: Path) -> None:
    trail = ReviewTrail.beside(db)
    trail.ledger_path.unlink()
    assert verify(db)[0] == 4
    r = cli("ledger", "restart", "--trail", "--db", str(db), "--why", "deleted", "--by", "ana")
    assert r.exit_code == 0, r.output
    code, lines = verify(db)
    assert (code, lines) == (0, [])
    with open_store(db, read_only=True) as store:
        f = store.all_findings()[0]
    assert trail.record(f, "confirm", note="after the break", by="ana", via="cli").seq == 6
    assert verify(db) == (0, [])
    tamper(db, "UPDATE decisions SET note = 'x' WHERE seq = 6")
    assert any("decision #6" in x for x in verify(db)[1])


def test_a_decision_appended_unsealed_to_a_sealed_trail_is_caught_without_the_key(
    reviewed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The trail's file is sealed (SHOE_AUDIT_KEY was set for every decision). Someone
    # without the key adds a second dismissal under another account straight into SQLite
    # and appends its record, unsealed, to the file. With the key every check caught it;
    # read without the key (serve, or `findings` run from a shell without it) the file's
    # lines were not looked at for seals at all and the forged dismissal counted.
    import dataclasses

    from audit.integrity.trail import check_trail
    from audit.review.trail import ledger_record
    from audit.store.ledger import KEY_ENV, append_durably, record_line, sealed_line

    with open_store(reviewed, read_only=True) as store:
        finding = next(f for f in store.all_findings() if str(f.severity) == "critical")
    monkeypatch.setenv(KEY_ENV, "the casino's key")
    trail = ReviewTrail.beside(tmp_path / "sealed.duckdb")
    add_accounts(trail, "ana", "bob", password="long enough password")
    trail.record(finding, "dismiss", note="log error", by="ana", via="cli", account="ana")
    assert check_trail(trail).intact
    monkeypatch.delenv(KEY_ENV)
    assert check_trail(trail).intact  # an untouched sealed file read without the key
    last = trail.decisions()[-1]
    forged = dataclasses.replace(
        last, seq=2, by="bob", account="bob", note="ok", prev_hash=last.hash, hash=""
    )
    forged = dataclasses.replace(forged, hash=rehash(forged, last.hash))
    con = sqlite3.connect(trail.path)
    con.execute(
        "INSERT INTO decisions SELECT 2, finding_id, verdict, ?, ?, os_user, via, at, snapshot,"
        " ?, ?, ? FROM decisions WHERE seq = 1",
        [forged.note, forged.by, forged.prev_hash, forged.hash, forged.account],
    )
    con.commit()
    con.close()
    prev = [json.loads(x) for x in trail.ledger_path.read_text().splitlines()][-2]["hash"]
    rec = ledger_record(forged, prev)
    append_durably(trail.ledger_path, record_line(rec, None))
    append_durably(trail.ledger_path, sealed_line({"commit": rec.no, "hash": rec.hash}, None))
    assert [d.account for d in trail.decisions()] == ["ana", "bob"]
    found = check_trail(trail)
    assert not found.intact
    assert any("no HMAC" in d.message and "sealed" in d.message for d in found.differences), [
        d.message for d in found.differences
    ]


def test_review_refuses_to_add_to_a_sealed_trail_without_the_key(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A reviewer whose shell lacks SHOE_AUDIT_KEY appended an unsealed line to a sealed
    # trail file: every check with the key (and, now, without) then calls it tampering
    # and the trail's dismissals count for nothing. Refused instead, as ingest and run
    # refuse a sealed database ledger without its key.
    from audit.store.ledger import KEY_ENV

    trail = ReviewTrail.beside(db)
    add_accounts(trail, "carol", password="carol's password")
    for p in (trail.path, trail.ledger_path):
        p.unlink()  # a trail sealed from its first decision: start one afresh
    monkeypatch.setenv(KEY_ENV, "the casino's key")
    add_accounts(trail, "carol", password="carol's password")
    with open_store(db, read_only=True) as store:
        ids = [f.id for f in store.all_findings()][:2]
    first = CliRunner().invoke(
        app,
        ["review", ids[0], "--confirm", "--note", "x", "--by", "carol", "--password-stdin",
         "--db", str(db)],
        input="carol's password\n",
    )  # fmt: skip
    assert first.exit_code == 0, first.output
    before = trail.ledger_path.read_bytes()
    monkeypatch.delenv(KEY_ENV)
    second = CliRunner().invoke(
        app,
        ["review", ids[1], "--confirm", "--note", "x", "--by", "carol", "--password-stdin",
         "--db", str(db)],
        input="carol's password\n",
    )  # fmt: skip
    assert second.exit_code == 1 and "is sealed" in second.stderr, second.output
    assert trail.ledger_path.read_bytes() == before
    assert len(trail.decisions()) == 1
