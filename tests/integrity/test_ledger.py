"""Tamper evidence (issue 14, point 15; rules.md LOG_TAMPERED; cli.md verify).

Done when ``verify`` detects an edited, inserted and deleted event, a deleted
finding and an edited input file, including after the attacker recomputed
every hash inside the database. Each test takes a clean audited night (real
DuckDB file, real ledger file), tampers with it the way an attacker with
write access to the database would, and runs the real CLI.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.ingest import ingest_paths
from audit.integrity import check_before
from audit.simulate import simulate
from audit.store import open_store
from audit.store.evidence import (
    LineDigest,
    audit_entries,
    line_digests,
    quarantine_digest,
    recorded_audits,
    typed_fingerprints,
)
from audit.store.ledger import KEY_ENV, canonical, chain_hash

KEY = "correct horse battery staple"


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("night")
    simulate(out, tables=2, shoes=1, rounds=40, profiles=["it-casino-6d"], seed=11, error_rate=0.3)
    (out / "injected.ndjson").unlink()  # not TEL/1
    return out


def _audited(base: Path, night: Path, key: str | None) -> Path:
    db = base / "audit.duckdb"
    mp = pytest.MonkeyPatch()
    if key:
        mp.setenv(KEY_ENV, key)
    else:
        mp.delenv(KEY_ENV, raising=False)
    try:
        assert cli("ingest", "--db", str(db), str(night)).exit_code == 0
        assert cli("run", "--db", str(db), "--workers", "1").exit_code == 0
    finally:
        mp.undo()
    return db


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory, night: Path) -> Path:
    return _audited(tmp_path_factory.mktemp("pristine"), night, None)


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory, night: Path) -> Path:
    return _audited(tmp_path_factory.mktemp("sealed"), night, KEY)


def _copy(db: Path, to: Path) -> Path:
    to.mkdir(parents=True, exist_ok=True)
    for suffix in ("", ".ledger"):
        shutil.copy(f"{db}{suffix}", f"{to / db.name}{suffix}")
    return to / db.name


@pytest.fixture
def db(pristine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv(KEY_ENV, raising=False)
    return _copy(pristine, tmp_path / "db")


@pytest.fixture
def sealed_db(sealed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(KEY_ENV, KEY)
    return _copy(sealed, tmp_path / "db")


def sql(db: Path, statement: str, params: list[Any] | None = None) -> list[Any]:
    con = duckdb.connect(str(db))
    try:
        return con.execute(statement, params or []).fetchall()
    finally:
        con.close()


def verify(db: Path, *paths: Path) -> tuple[int, list[str]]:
    result = cli("verify", "--db", str(db), *map(str, paths))
    lines = [x for x in result.output.splitlines() if x.startswith("LOG_TAMPERED")]
    return result.exit_code, lines


def a_settle(db: Path) -> tuple[str, str, str]:
    """(id, table, shoe) of a settle that pays something."""
    rows = sql(
        db,
        "SELECT id, table_id, shoe FROM events WHERE type = 'settle' AND amount > 0 ORDER BY id",
    )
    return rows[0]


# --------------------------------------------------------------------------- intact


def test_a_clean_night_is_intact(db: Path, night: Path) -> None:
    assert verify(db) == (0, [])
    assert verify(db, night) == (0, [])
    records = [json.loads(x) for x in Path(f"{db}.ledger").read_text().splitlines()]
    kinds = [r.get("kind", "commit") for r in records]
    assert kinds.count("ingest") == len(list(night.rglob("*.jsonl")))
    assert "audit" in kinds and "commit" in kinds
    assert all("hmac" not in r for r in records)


def test_the_audit_records_fingerprint_the_rows_as_stored(db: Path) -> None:
    """``run`` fingerprints the rows its inserts return, not re-read ones: the same values."""
    with open_store(db) as store:
        stored = audit_entries(store.con)
        recorded = recorded_audits(store.con)
    assert sum(len(findings) for _, findings in stored.values()) > 10
    assert {k: (e[2], [tuple(f) for f in e[3]]) for k, (_, e) in recorded.items()} == {
        k: (audit, list(findings)) for k, (audit, findings) in stored.items()
    }


def test_the_sql_audit_fingerprint_is_the_python_one(db: Path) -> None:
    """``run`` and ``report`` tell the plainly unchanged shoes apart in SQL
    (``changed_audits``): its fingerprint must be the ledger's, or every shoe would be
    compared in Python (right, but slow)."""
    from audit.store.evidence import AUDIT_FINGERPRINT_SQL, AUDIT_ROW, changed_audits
    from audit.store.ledger import fingerprint

    with open_store(db) as store:
        con = store.con
        rows = con.execute(f"SELECT {AUDIT_ROW}, {AUDIT_FINGERPRINT_SQL} FROM shoe_audits")
        pairs = [(fingerprint(r[2:-1]), r[-1]) for r in rows.fetchall()]
        flagged = {
            tuple(k)
            for k in con.execute(
                "SELECT DISTINCT table_id, shoe FROM findings WHERE origin = 'replay'"
            ).fetchall()
        }
        changed, recorded = changed_audits(con)
        assert pairs and all(py == sql_ for py, sql_ in pairs)
        assert {tuple(k) for k in changed} == flagged and recorded.keys() == changed
        con.execute("UPDATE shoe_audits SET rounds = rounds + 1 WHERE rowid = 0")
        (edited,) = con.execute("SELECT table_id, shoe FROM shoe_audits WHERE rowid = 0").fetchall()
        again, _ = changed_audits(con)
        assert {tuple(k) for k in again} == flagged | {edited}
        found = check_before(store, None, record=False)
    assert [(d.where, d.table, d.shoe) for d in found.differences] == [("shoe_audits", *edited)]
    assert "the audit row differs from ledger record" in found.differences[0].message


def test_a_sealed_night_is_intact_and_the_key_never_enters_the_database(
    sealed_db: Path, night: Path
) -> None:
    assert verify(sealed_db, night) == (0, [])
    records = [json.loads(x) for x in Path(f"{sealed_db}.ledger").read_text().splitlines()]
    assert all("hmac" in r for r in records)
    assert KEY.encode() not in sealed_db.read_bytes()
    assert KEY.encode() not in Path(f"{sealed_db}.ledger").read_bytes()


# --------------------------------------------------------------------------- events


def test_an_update_of_amount_that_leaves_raw_alone(db: Path, tmp_path: Path) -> None:
    """The issue's attack: a payout edited in ``events``; ``run --all`` used to drop the
    findings silently and ``hand`` to show the edited payout as correct."""
    eid, table, shoe = a_settle(db)
    sql(db, "UPDATE events SET amount = amount + 1000 WHERE id = ?", [eid])
    assert cli("run", "--db", str(db), "--all", "--workers", "1").exit_code == 0
    found = cli("findings", "--db", str(db), "--code", "LOG_TAMPERED", "--format", "jsonl")
    rows = [json.loads(x) for x in found.output.splitlines()]
    assert [(r["table"], r["shoe"], r["severity"]) for r in rows] == [(table, shoe, "critical")]
    code, lines = verify(db)
    assert code == 4
    assert any(f"id {eid}: amount is" in x and "by its raw line" in x for x in lines), lines
    out = tmp_path / "report"
    assert cli("report", "--db", str(db), "--out", str(out)).exit_code == 0
    html = (out / "index.html").read_text()
    first_screen = html[: html.index('id="summary"')]
    assert 'id="tampered"' in first_screen and "LOG_TAMPERED" in first_screen


def recompute_every_hash(db: Path) -> None:
    """What an attacker who knows the scheme can do inside the database: make every
    ledger record of the database say what the tables now hold, and re-chain it."""
    con = duckdb.connect(str(db))
    try:
        lines = line_digests(con)
        typed = typed_fingerprints(con)
        rows = con.execute("SELECT no, kind, body FROM ledger ORDER BY no").fetchall()
        prev = ""
        for no, kind, text in rows:
            body = json.loads(text)
            if kind == "ingest" and body.get("ingest") is not None:
                i = body["ingest"]
                body["lines"] = lines.get(i, LineDigest().hexdigest())
                body["shoes"] = [
                    [t, s, n, fp] for (j, t, s), (n, fp) in sorted(typed.items()) if j == i
                ]
                body["quarantine"] = quarantine_digest(con, i)
            text = canonical(body)
            con.execute(
                "UPDATE ledger SET body = ?, prev = ?, hash = ? WHERE no = ?",
                [text, prev, chain_hash(prev, text), no],
            )
            prev = chain_hash(prev, text)
    finally:
        con.close()


def test_an_edited_event_after_every_hash_inside_the_database_was_recomputed(
    db: Path, night: Path
) -> None:
    eid, _, _ = a_settle(db)
    sql(
        db,
        """UPDATE events SET amount = amount + 1000,
             raw = regexp_replace(raw, '"amount":[-0-9.]+', '"amount":' || (amount + 1000))
           WHERE id = ?""",
        [eid],
    )
    recompute_every_hash(db)
    code, lines = verify(db)
    assert code == 4
    assert any(
        x.startswith("LOG_TAMPERED ledger: record") and "differs from the ledger file" in x
        for x in lines
    )
    assert any("are no longer those it read" in x for x in lines)  # from the file's record
    code, lines = verify(db, night)
    assert code == 4
    assert any(f"event id {eid} differs from the stored event" in x for x in lines), lines


def test_an_inserted_event(db: Path, night: Path) -> None:
    eid, _, _ = a_settle(db)
    sql(
        db,
        """INSERT INTO events SELECT * REPLACE (id || '-forged' AS id, seq + 100000 AS seq)
           FROM events WHERE id = ?""",
        [eid],
    )
    assert cli("run", "--db", str(db), "--all", "--workers", "1").exit_code == 0
    tampered = cli("findings", "--db", str(db), "--code", "LOG_TAMPERED").output
    assert "1 event inserted" in tampered
    code, lines = verify(db, night)
    assert code == 4
    assert any(f"id {eid}-forged" in x and "(inserted)" in x for x in lines), lines


def test_an_event_no_ingest_added(db: Path) -> None:
    eid, _, _ = a_settle(db)
    sql(
        db,
        """INSERT INTO events SELECT * REPLACE (id || '-forged' AS id, NULL AS ingest_id)
           FROM events WHERE id = ?""",
        [eid],
    )
    code, lines = verify(db)
    assert code == 4
    assert any("no ingest added" in x and f"{eid}-forged" in x for x in lines), lines


def test_a_deleted_event(db: Path, night: Path) -> None:
    eid, _, _ = a_settle(db)
    sql(db, "DELETE FROM events WHERE id = ?", [eid])
    assert cli("run", "--db", str(db), "--all", "--workers", "1").exit_code == 0
    assert "1 event removed" in cli("findings", "--db", str(db), "--code", "LOG_TAMPERED").output
    code, lines = verify(db, night)
    assert code == 4
    assert any(f"event id {eid} is not in the database (removed after ingest)" in x for x in lines)


def test_a_deleted_event_after_every_hash_was_recomputed(db: Path, night: Path) -> None:
    eid, _, _ = a_settle(db)
    sql(db, "DELETE FROM events WHERE id = ?", [eid])
    recompute_every_hash(db)
    code, lines = verify(db, night)
    assert code == 4
    assert any(f"event id {eid} is not in the database" in x for x in lines)


# --------------------------------------------------------------------------- findings


def test_a_deleted_finding(db: Path, tmp_path: Path) -> None:
    (code_,) = sql(db, "SELECT code FROM findings ORDER BY code, table_id LIMIT 1")[0]
    sql(
        db,
        "DELETE FROM findings WHERE rowid = (SELECT min(rowid) FROM findings WHERE code = ?)",
        [code_],
    )
    code, lines = verify(db)
    assert code == 4
    assert any(f"finding {code_}" in x and "was removed" in x for x in lines), lines
    out = tmp_path / "report"
    assert cli("report", "--db", str(db), "--out", str(out)).exit_code == 0
    html = (out / "index.html").read_text()
    assert f"finding {code_}" in html[: html.index('id="summary"')]
    # run --all checks before it re-audits (and would regenerate the finding)
    assert cli("run", "--db", str(db), "--all", "--workers", "1").exit_code == 0
    assert f"finding {code_}" in cli("findings", "--db", str(db), "--code", "LOG_TAMPERED").output


def test_an_edited_audit_row(db: Path) -> None:
    sql(db, "UPDATE shoe_audits SET rounds = rounds - 1 WHERE rowid = 0")
    code, lines = verify(db)
    assert code == 4 and any("the audit row differs" in x for x in lines)


def test_a_deleted_quarantine_row(db: Path, night: Path, tmp_path: Path) -> None:
    bad = night.parent / f"{night.name}-bad"
    shutil.copytree(night, bad)
    f = sorted(bad.rglob("*.jsonl"))[0]
    f.write_text(f.read_text() + "not json\n")
    assert cli("ingest", "--db", str(db), str(bad)).exit_code == 0
    assert verify(db) == (0, [])
    sql(db, "DELETE FROM quarantine")
    code, lines = verify(db)
    assert code == 4 and any("rejected lines of ingest" in x for x in lines)
    shutil.rmtree(bad)


# --------------------------------------------------------------------------- files


def test_an_edited_input_file(db: Path, night: Path, tmp_path: Path) -> None:
    copy = tmp_path / "night"
    shutil.copytree(night, copy)
    logs = sorted(night.rglob("*.jsonl"))
    edited = copy / logs[0].relative_to(night)
    lines = edited.read_text().splitlines()
    target = next(i for i, x in enumerate(lines) if '"type":"settle"' in x)
    lines[target] = lines[target].replace('"amount":', '"amount":1', 1)
    edited.write_text("\n".join(lines) + "\n")
    # The ledger knows the files by the paths they were ingested from: edit them there.
    backup = tmp_path / "backup"
    shutil.copytree(night, backup)
    try:
        shutil.copy(edited, logs[0])
        code, found = verify(db, night)
        assert code == 4
        assert any(f"{logs[0]}: SHA-256" in x and "the file changed since" in x for x in found)
        assert any(f"{logs[0]}:{target + 1}: event id" in x for x in found), found
    finally:
        shutil.copy(backup / logs[0].relative_to(night), logs[0])
    assert verify(db, night) == (0, [])


# --------------------------------------------------------------------------- the ledger itself


def test_the_ledger_file_removed(db: Path, tmp_path: Path) -> None:
    """``run`` refuses to write past a lost ledger file (issue 29, point 7: it ran and
    started a new one); ``verify`` names it."""
    Path(f"{db}.ledger").unlink()
    refused = cli("run", "--db", str(db), "--workers", "1")
    assert refused.exit_code == 1
    assert "is missing" in refused.output and "shoe-audit ledger restart" in refused.output
    assert not Path(f"{db}.ledger").exists()
    code, lines = verify(db)
    assert code == 4 and any("is missing" in x for x in lines)


def test_the_last_ingest_removed_from_the_database(db: Path) -> None:
    last = sql(db, "SELECT max(no) FROM ledger")[0][0]
    ingest = sql(db, "SELECT max(ingest_id) FROM events")[0][0]
    sql(db, "DELETE FROM events WHERE ingest_id = ?", [ingest])
    sql(db, "DELETE FROM ledger WHERE no > ?", [last - 2])
    code, lines = verify(db)
    assert code == 4
    assert any("were committed (ledger file) but are missing from the database" in x for x in lines)


def test_a_ledger_line_rewritten_without_the_key(sealed_db: Path) -> None:
    """Database and file rewritten consistently by someone without the key: only the
    HMAC tells, and it does."""
    path = Path(f"{sealed_db}.ledger")
    lines = path.read_text().splitlines()
    obj = json.loads(lines[0])
    obj["body"]["path"] = "somewhere/else.jsonl"
    text = canonical(obj["body"])
    obj["hash"] = chain_hash(obj["prev"], text)
    lines[0] = canonical(obj)
    path.write_text("\n".join(lines) + "\n")
    code, found = verify(sealed_db)
    assert code == 4
    assert any(":1: HMAC does not match" in x for x in found), found


def test_an_interrupted_ingest_leaves_no_false_alarm(
    db: Path, night: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ledger file is written before the commit: an ingest that dies between the two
    leaves records without a commit marker, which are not tampering."""
    from audit.ingest import pipeline

    more = tmp_path / "more"
    simulate(more, tables=1, shoes=1, rounds=5, profiles=["it-casino-6d"], seed=99)

    def die(*_: Any) -> list[Any]:
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "refresh_derived", die)
    with open_store(db) as store, pytest.raises(KeyboardInterrupt):
        ingest_paths(store, [more])
    monkeypatch.undo()
    code, lines = verify(db)
    assert (code, lines) == (0, [])
    with open_store(db) as store:
        ingest_paths(store, [more])
    assert verify(db) == (0, [])


# --------------------------------------------------------------------------- the report


def test_the_report_pins_its_ledger_head_and_its_own_files(sealed_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert cli("report", "--db", str(sealed_db), "--out", str(out)).exit_code == 0
    head = sql(sealed_db, "SELECT no, hash FROM ledger ORDER BY no DESC LIMIT 1")[0]
    html = (out / "index.html").read_text()
    assert f"record {head[0]}, sha256 {head[1]}" in html
    assert "HMACs checked" in html
    sums = (out / "SHA256SUMS").read_text().splitlines()
    listed = {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in sums}
    assert "index.html" in listed
    # the hand pages too, whose digests their workers took of the bytes they wrote
    assert any(name.startswith("hands/") for name in listed)
    written = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert set(listed) == written - {"SHA256SUMS", "SHA256SUMS.hmac", ".shoe-audit-report"}
    for name, digest in listed.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    import hmac as hmac_module

    mac = (out / "SHA256SUMS.hmac").read_text()
    expected = hmac_module.new(KEY.encode(), (out / "SHA256SUMS").read_bytes(), hashlib.sha256)
    assert mac.strip().endswith(expected.hexdigest())


def test_the_report_says_once_that_the_key_is_not_set(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SHOE_AUDIT_KEY", raising=False)
    for fmt in ("html", "md"):
        out = tmp_path / fmt
        assert cli("report", "--db", str(db), "--out", str(out), "--format", fmt).exit_code == 0
        text = (out / ("index.html" if fmt == "html" else "report.md")).read_text()
        assert text.count("SHOE_AUDIT_KEY") == 1, fmt
        assert "HMACs not checked (SHOE_AUDIT_KEY not set)" in text


@pytest.fixture
def migrated(tmp_path: Path, night: Path) -> Iterator[Path]:
    """A database as schema 3 left it, with a night in it and no ledger. The night is
    a v1.1 one (``old-night/``: the simulator's rich tables write v1.2's ``stream``,
    which a schema-3 database could not have typed; see decisions.md, "Known gaps")."""
    from tests.store.test_migration import V4_ONLY

    v11 = tmp_path / "old-night"
    for path in night.rglob("*.jsonl"):
        target = v11 / path.relative_to(night)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(re.sub(r',"stream":"[^"]*"', "", path.read_text("utf-8")), "utf-8")
    db = tmp_path / "old.duckdb"
    with open_store(db) as store:
        ingest_paths(store, [v11])
    Path(f"{db}.ledger").unlink()
    con = duckdb.connect(str(db))
    con.execute(V4_ONLY)
    con.close()
    yield db


def test_a_migrated_database_records_a_baseline(migrated: Path) -> None:
    assert cli("run", "--db", str(migrated), "--workers", "1").exit_code == 0
    assert verify(migrated, migrated.parent / "old-night") == (0, [])
    kinds = sql(migrated, "SELECT DISTINCT body->>'baseline' FROM ledger WHERE kind = 'ingest'")
    assert kinds == [("true",)]
    sql(
        migrated,
        """UPDATE events SET amount = 1 WHERE rowid =
             (SELECT min(rowid) FROM events WHERE type = 'settle')""",
    )
    assert verify(migrated)[0] == 4


def test_a_re_audit_interrupted_after_its_first_batch_is_no_tampering(db: Path) -> None:
    """A `run --all` over an audited night, stopped after one batch, then a plain run: each
    batch replaced its shoes' results in the transaction that wrote them, so the shoes it
    did not reach keep their earlier results (issue 28, point 7): the next run has nothing
    to redo, and neither it nor verify sees "results removed by hand"."""
    from audit.batch import run_audit
    from audit.profiles import load_registry

    def stop_after_the_first_batch(done: int, total: int) -> None:
        if done:
            raise KeyboardInterrupt

    with open_store(db) as store:
        before = store.con.execute("SELECT count(*) FROM findings").fetchall()
        with pytest.raises(KeyboardInterrupt):
            run_audit(
                store,
                load_registry(),
                all_shoes=True,
                workers=1,
                batch_events=300,
                progress=stop_after_the_first_batch,
            )
        assert store.con.execute("SELECT count(*) FROM findings").fetchall() == before
        resumed = run_audit(store, load_registry(), workers=1)
    assert resumed.shoes == 0 and "LOG_TAMPERED" not in resumed.by_code
    assert verify(db) == (0, [])
