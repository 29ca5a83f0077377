"""A chain cut back in both copies, and a lost ledger file (issue 29, points 6 and 7).

Real audited nights (DuckDB file, ledger file), tampered with as an insider would,
and the real CLI: ``verify --report DIR`` finds a chain cut back after a report and
says plainly when the database was re-created since; ``ingest``, ``run`` and
``nightly`` refuse a ledger file that is missing, foreign, or sealed with another
key; ``ledger restart`` records the break so that they work again.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.simulate import simulate
from audit.store.ledger import KEY_ENV

KEY = "correct horse battery staple"


def cli(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(app, list(args), env=env)


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("night")
    simulate(out, tables=2, shoes=1, rounds=30, profiles=["it-casino-6d"], seed=5, error_rate=0.2)
    (out / "injected.ndjson").unlink()
    return out


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory, night: Path) -> Path:
    db = tmp_path_factory.mktemp("audited") / "audit.duckdb"
    assert cli("ingest", "--db", str(db), str(night), env={KEY_ENV: ""}).exit_code == 0
    assert cli("run", "--db", str(db), "--workers", "1", env={KEY_ENV: ""}).exit_code == 0
    return db


@pytest.fixture
def db(audited: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv(KEY_ENV, raising=False)
    for p in audited.parent.iterdir():
        if p.is_file():
            shutil.copy(p, tmp_path / p.name)
    return tmp_path / audited.name


def ledger_file(db: Path) -> Path:
    return Path(f"{db}.ledger")


def verify(db: Path, *args: str) -> tuple[int, list[str], str]:
    """(exit code, LOG_TAMPERED lines, the verdict line on stdout and the notes on stderr)."""
    r = cli("verify", "--db", str(db), *args)
    lines = [x for x in r.stdout.splitlines() if x.startswith("LOG_TAMPERED")]
    verdict = [x for x in r.stdout.splitlines() if not x.startswith("LOG_TAMPERED")]
    return r.exit_code, lines, "\n".join([*verdict, r.stderr])


def cut_back(db: Path, keep: int) -> None:
    """Remove every record after ``keep`` from the ledger table and the ledger file, and
    leave both copies holding together (what the issue's attacker did)."""
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM ledger WHERE no > ?", [keep])
    con.close()
    path = ledger_file(db)
    kept = []
    for line in path.read_text().splitlines(keepends=True):
        obj = json.loads(line)
        if obj.get("no", obj.get("commit", 0)) <= keep:
            kept.append(line)
    path.write_text("".join(kept))


def events(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return int(con.execute("SELECT count(*) FROM events").fetchall()[0][0])
    finally:
        con.close()


def head(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return int(con.execute("SELECT max(no) FROM ledger").fetchall()[0][0])
    finally:
        con.close()


# --------------------------------------------------------------------------- point 6


def test_a_chain_cut_back_in_both_copies_is_found_by_an_archived_report(
    db: Path, tmp_path: Path, night: Path
) -> None:
    before = head(db)
    assert cli("ingest", "--db", str(db), str(night)).exit_code == 0  # records, no rows
    archive = tmp_path / "archive"
    assert cli("report", "--db", str(db), "--out", str(archive)).exit_code == 0
    pinned = json.loads((archive / "ledger-heads.json").read_text())["ledger"]
    assert pinned["no"] == head(db) > before
    assert verify(db, "--report", str(archive))[:2] == (0, [])
    cut_back(db, before)
    assert verify(db)[:2] == (0, [])  # both copies hold together: alone, verify cannot tell
    code, lines, _ = verify(db, "--report", str(archive))
    assert code == 4
    assert lines == [
        f"LOG_TAMPERED report: the report {str(archive)!r} pinned ledger record "
        f"#{pinned['no']} (hash {pinned['hash'][:16]}…), which is no longer in the chain: "
        "records were removed after it was written"
    ]


def test_verify_report_checks_the_reports_own_files_and_is_repeatable(
    db: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for out in (first, second):
        assert cli("report", "--db", str(db), "--out", str(out)).exit_code == 0
    index = second / "index.html"
    index.write_text(index.read_text().replace("</body>", "<p>edited</p></body>"))
    code, lines, stderr = verify(db, "--report", str(first), "--report", str(second))
    assert code == 4
    assert lines == [
        f"LOG_TAMPERED report: report {str(second)!r}: index.html changed since the report "
        "was written"
    ]
    assert "2 archived reports checked" in stderr


def test_a_sealed_reports_hmac_is_checked_with_the_key(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the database's ledger file is not sealed: a report made with a key is still sealed
    out = tmp_path / "sealed"
    assert cli("report", "--db", str(db), "--out", str(out), env={KEY_ENV: KEY}).exit_code == 0
    sums = out / "SHA256SUMS"
    sums.write_text(sums.read_text() + "")
    r = cli("verify", "--db", str(db), "--report", str(out), env={KEY_ENV: "another key"})
    assert "SHA256SUMS.hmac does not match its SHA256SUMS" in r.stdout


def test_a_database_re_created_since_the_report_is_said_plainly(
    db: Path, tmp_path: Path, night: Path
) -> None:
    archive = tmp_path / "archive"
    assert cli("report", "--db", str(db), "--out", str(archive)).exit_code == 0
    db.unlink()  # as `make nightly` does
    out = tmp_path / "new-report"
    assert cli("nightly", "--db", str(db), "--out", str(out), str(night)).exit_code == 0
    retired = list(db.parent.glob(db.name + ".ledger.retired-*"))
    assert len(retired) == 1
    code, lines, stderr = verify(db, "--report", str(archive))
    assert (code, lines) == (0, [])
    assert "the database was re-created on " in stderr
    assert f"its records are in {str(retired[0])!r}, where the pinned head" in stderr


# --------------------------------------------------------------------------- point 7


def test_ingest_refuses_a_missing_ledger_file_and_never_creates_one(db: Path, night: Path) -> None:
    ledger_file(db).unlink()
    r = cli("ingest", "--db", str(db), str(night))
    assert r.exit_code == 1
    assert r.stderr.count("\n") == 1
    assert str(ledger_file(db)) in r.stderr and "shoe-audit ledger restart" in r.stderr
    assert not ledger_file(db).exists()


def test_run_and_nightly_refuse_a_missing_ledger_file(
    db: Path, night: Path, tmp_path: Path
) -> None:
    ledger_file(db).unlink()
    before = events(db)
    assert cli("run", "--db", str(db), "--workers", "1").exit_code == 1
    r = cli("nightly", "--db", str(db), "--out", str(tmp_path / "r"), str(night))
    assert r.exit_code == 1 and "ledger restart" in r.stderr
    assert events(db) == before and not (tmp_path / "r").exists()


def test_the_report_renders_with_a_red_warning(db: Path, tmp_path: Path) -> None:
    ledger_file(db).unlink()
    out = tmp_path / "r"
    assert cli("report", "--db", str(db), "--out", str(out)).exit_code == 0
    html = (out / "index.html").read_text()
    assert 'class="bad" id="ledger-warning"' in html and "ledger restart" in html


def test_a_foreign_ledger_file_is_refused(db: Path, tmp_path: Path, night: Path) -> None:
    other = tmp_path / "other" / "audit.duckdb"
    other.parent.mkdir()
    assert cli("ingest", "--db", str(other), str(night)).exit_code == 0
    shutil.copy(ledger_file(other), ledger_file(db))
    r = cli("run", "--db", str(db), "--workers", "1")
    assert r.exit_code == 1 and "does not continue the database's chain" in r.stderr


def test_a_ledger_cut_back_in_the_file_alone_is_refused(db: Path) -> None:
    path = ledger_file(db)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:2]))
    r = cli("run", "--db", str(db), "--workers", "1")
    assert r.exit_code == 1 and "is not the database's head" in r.stderr


def test_a_sealed_ledger_file_needs_its_key(tmp_path: Path, night: Path) -> None:
    db = tmp_path / "sealed.duckdb"
    assert cli("ingest", "--db", str(db), str(night), env={KEY_ENV: KEY}).exit_code == 0
    r = cli("run", "--db", str(db), "--workers", "1", env={KEY_ENV: ""})
    assert r.exit_code == 1 and "is sealed (HMAC) and SHOE_AUDIT_KEY is not set" in r.stderr
    r = cli("run", "--db", str(db), "--workers", "1", env={KEY_ENV: "another key"})
    assert r.exit_code == 1 and "SHOE_AUDIT_KEY does not open the seals" in r.stderr
    assert cli("run", "--db", str(db), "--workers", "1", env={KEY_ENV: KEY}).exit_code == 0


def test_ledger_restart_records_the_break_and_ingest_and_run_work_again(
    db: Path, night: Path
) -> None:
    ledger_file(db).unlink()
    vouched = head(db)
    assert cli("ledger", "restart", "--db", str(db), "--by", "ana").exit_code == 2  # no --why
    r = cli("ledger", "restart", "--db", str(db), "--why", "disk replaced", "--by", "ana")
    assert r.exit_code == 0, r.output
    first = json.loads(ledger_file(db).read_text().splitlines()[0])
    assert first["kind"] == "break" and first["no"] == vouched + 1
    body = first["body"]
    assert body["by"] == "ana" and body["why"] == "disk replaced" and "os_user" in body
    assert body["vouches"]["no"] == vouched and body["lost_file"] == {
        "missing": str(ledger_file(db))
    }
    assert cli("ingest", "--db", str(db), str(night)).exit_code == 0
    assert cli("run", "--db", str(db), "--workers", "1", "--all").exit_code == 0
    code, lines, stderr = verify(db, str(night))
    assert (code, lines) == (0, [])
    assert "a known, recorded break" in stderr and "'disk replaced'" in stderr
    again = cli("ledger", "restart", "--db", str(db), "--why", "again", "--by", "ana")
    assert again.exit_code == 1 and "nothing to restart" in again.stderr
    # everything after the break is still checked
    con = duckdb.connect(str(db))
    con.execute("UPDATE ledger SET body = replace(body, 'disk replaced', 'x') WHERE kind = 'break'")
    con.close()
    assert verify(db)[0] == 4


def test_ledger_restart_moves_a_foreign_file_aside_never_deletes_it(db: Path) -> None:
    path = ledger_file(db)
    path.write_text(path.read_text().splitlines(keepends=True)[0])
    foreign = path.read_bytes()
    r = cli("ledger", "restart", "--db", str(db), "--why", "restored the wrong file", "--by", "bo")
    assert r.exit_code == 0, r.output
    moved = list(db.parent.glob(db.name + ".ledger.foreign-*"))
    assert len(moved) == 1 and moved[0].read_bytes() == foreign
    body = json.loads(path.read_text().splitlines()[0])["body"]
    assert body["lost_file"]["moved_to"] == str(moved[0])
    assert cli("run", "--db", str(db), "--workers", "1").exit_code == 0


def test_ledger_restart_refuses_to_hide_records_the_database_lost(db: Path) -> None:
    # The database cut back alone (its last records deleted), the file intact: verify
    # names the records missing from the database, ingest and run refuse, and `ledger
    # restart` then moved the file aside and vouched for the cut-back chain: verify said
    # "intact" and the lost records were named nowhere (a silent laundering).
    last = head(db)
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM ledger WHERE no = ?", [last])
    con.close()
    assert verify(db)[0] == 4
    before = ledger_file(db).read_bytes()
    r = cli("ledger", "restart", "--db", str(db), "--why", "restored from backup", "--by", "eve")
    assert r.exit_code == 1
    assert r.stderr.count("\n") == 1, r.stderr
    assert f"records #{last} to #{last}" in r.stderr and "--records-lost" in r.stderr, r.stderr
    assert ledger_file(db).read_bytes() == before  # nothing moved, nothing recorded
    assert head(db) == last - 1
    assert verify(db)[0] == 4
    # said on purpose, the loss is recorded in the break and named by every verify
    r = cli(
        "ledger", "restart", "--db", str(db), "--why", "restored from backup", "--by", "eve",
        "--records-lost",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert f"records #{last} to #{last}" in r.stdout + r.stderr
    body = json.loads(ledger_file(db).read_text().splitlines()[0])["body"]
    assert body["lost_records"] == {"from": last, "to": last}
    code, lines, stderr = verify(db)
    assert f"records #{last} to #{last}" in stderr and "lost" in stderr, stderr
    # what the lost record vouched for (here the run's findings) is still named
    assert code == 4 and lines and all("ledger record" not in x for x in lines), lines


def test_records_lost_is_refused_when_the_database_lost_nothing(db: Path) -> None:
    ledger_file(db).unlink()
    r = cli(
        "ledger", "restart", "--db", str(db), "--why", "disk", "--by", "eve", "--records-lost"
    )  # fmt: skip
    assert r.exit_code == 1 and "lost no record" in r.stderr, r.stderr
    assert not ledger_file(db).exists()
