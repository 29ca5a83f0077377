"""Accounts on the record (issue 29, point 2, the gap after it): account changes need a
manager, every account change is a record of the trail's ledger file, and an account
inserted, changed or removed behind the CLI's back makes the trail LOG_TAMPERED."""

from __future__ import annotations

import dataclasses
import json
import secrets
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.review import ReviewTrail, review_of
from audit.review.accounts import Kdf, accounts, check_password
from audit.review.roster import ACCOUNTS
from audit.review.trail import Verdict
from audit.web.app import ServeConfig, create_app
from tests.accounts import BOSS, BOSS_PASSWORD, add_accounts
from tests.review.test_authenticated import OLD_DDL
from tests.web.client import Client, running
from tests.web.conftest import DAY

PASSWORD = "long enough password"
REFUSED = "Error: unknown account or wrong password"


def cli(*args: str, stdin: str = "") -> Any:
    return CliRunner().invoke(app, list(args), input=stdin)


def users(db: Path, *args: str, stdin: str = "") -> Any:
    return cli("users", *args, "--db", str(db), "--password-stdin", stdin=stdin)


def last_line(res: Any) -> str:
    return str(res.output.strip().splitlines()[-1])


def critical_ids(db: Path) -> list[str]:
    res = cli("findings", "--db", str(db), "--date", DAY, "--format", "jsonl")
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    return [r["id"] for r in rows if r["severity"] == "critical" and r["round"] is not None]


def dismiss(db: Path, fid: str, by: str, password: str = PASSWORD) -> Any:
    return cli(
        "review", fid, "--dismiss", "--note", "log error", "--by", by, "--db", str(db),
        "--password-stdin", stdin=f"{password}\n",
    )  # fmt: skip


def status(db: Path, fid: str) -> str:
    res = cli("findings", "--db", str(db), "--format", "jsonl")
    row = next(r for r in map(json.loads, res.stdout.splitlines()) if r["id"] == fid)
    return str((row["review"] or {}).get("status"))


def verify(db: Path) -> tuple[int, list[str]]:
    res = cli("verify", "--db", str(db))
    return res.exit_code, [x for x in res.stdout.splitlines() if x.startswith("LOG_TAMPERED")]


def tampered(db: Path) -> list[str]:
    res = cli("findings", "--db", str(db), "--code", "LOG_TAMPERED", "--format", "jsonl")
    assert res.exit_code == 0, res.output
    return [json.loads(x)["message"] for x in res.stdout.splitlines()]


def raw(db: Path, *statements: str, params: list[Any] | None = None) -> None:
    """An insider with sqlite3 and no trigger in the way."""
    con = sqlite3.connect(ReviewTrail.beside(db).path)
    con.execute("DROP TRIGGER IF EXISTS accounts_never_deleted")
    for s in statements:
        con.execute(s, params or [])
    con.commit()
    con.close()


def account_lines(trail: ReviewTrail) -> list[dict[str, Any]]:
    lines = trail.ledger_path.read_text().splitlines()
    return [o for o in map(json.loads, lines) if o.get("chain") == ACCOUNTS and "no" in o]


# --------------------------------------------------------------------------- a manager


def test_account_changes_need_a_manager(db: Path) -> None:
    """The attack: anyone with the CLI made mallory1 and mallory2 and dismissed a critical
    finding with both. Now the first account is a manager, and every later one needs a
    manager's password."""
    help_text = cli("users", "add", "--help").output
    assert "first account of a review file must be a manager" in " ".join(help_text.split())
    first = users(db, "add", "ana", stdin=f"{PASSWORD}\n")
    assert first.exit_code == 2 and "must be a manager" in last_line(first)
    assert users(db, "add", BOSS, "--role", "manager", stdin=f"{BOSS_PASSWORD}\n").exit_code == 0

    for name in ("mallory1", "mallory2"):  # no manager, a wrong password, an unknown one
        for extra, stdin in (
            ((), f"{PASSWORD}\n"),
            (("--manager", BOSS), f"not the password\n{PASSWORD}\n"),
            (("--manager", "zed"), f"{BOSS_PASSWORD}\n{PASSWORD}\n"),
        ):
            res = users(db, "add", name, *extra, stdin=stdin)
            assert res.exit_code == 1, res.output
            assert last_line(res).startswith(REFUSED)
    trail = ReviewTrail.beside(db)
    assert [a.name for a in accounts(trail)] == [BOSS]

    ok = users(db, "add", "ana", "--manager", BOSS, stdin=f"{BOSS_PASSWORD}\n{PASSWORD}\n")
    assert ok.exit_code == 0, ok.output
    assert last_line(ok) == "added reviewer ana (authorised by boss)"
    # a reviewer authorises nothing
    res = users(db, "add", "mallory1", "--manager", "ana", stdin=f"{PASSWORD}\n{PASSWORD}\n")
    assert res.exit_code == 1 and last_line(res) == REFUSED
    assert [a.name for a in accounts(trail)] == ["ana", BOSS]
    recs = account_lines(trail)
    assert [(r["body"]["action"], r["body"]["account"], r["body"]["by"]) for r in recs] == [
        ("create", BOSS, None),
        ("create", "ana", BOSS),
    ]
    assert verify(db) == (0, [])


# --------------------------------------------------------------------------- tampering


@pytest.fixture
def dismissed(db: Path) -> tuple[Path, str]:
    """boss, ana and bob on the record; a critical finding dismissed by ana and bob."""
    add_accounts(ReviewTrail.beside(db), "ana", "bob", password=PASSWORD)
    fid = critical_ids(db)[0]
    assert dismiss(db, fid, "ana").exit_code == 0
    assert dismiss(db, fid, "bob").exit_code == 0
    assert status(db, fid) == "dismissed"
    assert verify(db) == (0, [])
    return db, fid


def _forged_hash(db: Path, name: str, password: str) -> str:
    con = sqlite3.connect(ReviewTrail.beside(db).path)
    salt, kdf = con.execute("SELECT salt, kdf FROM accounts WHERE name = ?", [name]).fetchone()
    con.close()
    got = Kdf.parse(kdf)
    assert got is not None
    return got.derive(password, bytes.fromhex(salt)).hex()


def test_an_account_taken_over_by_an_update_of_its_hash_is_named(
    dismissed: tuple[Path, str],
) -> None:
    db, fid = dismissed
    raw(
        db,
        "UPDATE accounts SET hash = ? WHERE name = 'bob'",
        params=[_forged_hash(db, "bob", "x" * 12)],
    )
    code, lines = verify(db)
    assert code == 4
    assert any("account 'bob': password hash changed after it was recorded" in x for x in lines)
    assert any("account 'bob': password hash changed" in m for m in tampered(db))
    assert status(db, fid) != "dismissed"  # a tampered trail's dismissals count for nothing
    # and the new password signs in nowhere: the account is not as its record says
    trail = ReviewTrail.beside(db)
    assert check_password(trail, "bob", "x" * 12) is None
    res = dismiss(db, critical_ids(db)[1], "bob", "x" * 12)
    assert res.exit_code == 1 and last_line(res) == REFUSED


def test_an_account_inserted_behind_the_clis_back_is_named(dismissed: tuple[Path, str]) -> None:
    db, fid = dismissed
    salt = secrets.token_bytes(16)
    kdf = Kdf.current()
    raw(
        db,
        "INSERT INTO accounts (name, role, kdf, salt, hash, created_at) VALUES "
        "('mallory', 'manager', ?, ?, ?, '2026-11-29T00:00:00+00:00')",
        params=[str(kdf), salt.hex(), kdf.derive("mallory's password", salt).hex()],
    )
    code, lines = verify(db)
    assert code == 4
    assert any("account 'mallory': not on the record" in x for x in lines)
    assert any("account 'mallory'" in m for m in tampered(db))
    assert status(db, fid) != "dismissed"
    assert check_password(ReviewTrail.beside(db), "mallory", "mallory's password") is None
    # nor can the inserted manager authorise anything
    res = users(db, "add", "m2", "--manager", "mallory", stdin="mallory's password\n" + "y" * 12)
    assert res.exit_code == 1 and last_line(res).startswith(REFUSED)


@pytest.mark.parametrize(
    ("statement", "named"),
    [
        ("DELETE FROM accounts WHERE name = 'bob'", "account 'bob': removed after it was recorded"),
        ("UPDATE accounts SET role = 'manager' WHERE name = 'ana'", "account 'ana': role changed"),
        (
            "UPDATE accounts SET disabled_at = NULL, disabled_after = NULL WHERE name = 'ana'",
            None,  # nothing changed: ana was never disabled
        ),
    ],
)
def test_an_account_removed_or_changed_by_hand_is_named(
    dismissed: tuple[Path, str], statement: str, named: str | None
) -> None:
    db, fid = dismissed
    raw(db, statement)
    code, lines = verify(db)
    if named is None:
        assert (code, lines) == (0, [])
        return
    assert code == 4 and any(named in x for x in lines), lines
    assert status(db, fid) != "dismissed"


def test_account_records_cut_from_both_copies_are_seen(dismissed: tuple[Path, str]) -> None:
    """bob removed from the table and his record lines from the file: the review file's
    head of the accounts' chain still says where the chain ended."""
    db, _ = dismissed
    trail = ReviewTrail.beside(db)
    lines = trail.ledger_path.read_text().splitlines(keepends=True)
    bob = [i for i, x in enumerate(lines) if '"chain":"accounts"' in x and "bob" in x]
    bob_no = json.loads(lines[bob[0]])["no"]
    objs = [json.loads(x) for x in lines]
    kept = [
        x
        for x, o in zip(lines, objs, strict=True)
        if not (o.get("chain") == ACCOUNTS and bob_no in (o.get("no"), o.get("commit")))
    ]
    trail.ledger_path.write_text("".join(kept))
    raw(db, "DELETE FROM accounts WHERE name = 'bob'")
    code, found = verify(db)
    assert code == 4
    assert any(f"account record #{bob_no}" in x for x in found), found


# --------------------------------------------------------------------------- disabling


def test_a_disabled_account_cannot_review_nor_sign_in_its_earlier_decisions_stand(
    dismissed: tuple[Path, str],
) -> None:
    db, fid = dismissed
    trail = ReviewTrail.beside(db)
    other = critical_ids(db)[1]
    with running(create_app(ServeConfig(db=db))) as port:
        web = Client(port)
        assert web.sign_in("bob").status == 303  # signed in before bob leaves

        refused = users(db, "disable", "bob", stdin=f"{PASSWORD}\n")
        assert refused.exit_code == 1 and last_line(refused).startswith(REFUSED)
        res = users(db, "disable", "bob", "--manager", BOSS, stdin=f"{BOSS_PASSWORD}\n")
        assert res.exit_code == 0, res.output
        assert last_line(res) == "disabled reviewer bob (authorised by boss)"

        assert Client(port).sign_in("bob").status == 401
        token = web.csrf(f"/findings/{other}")
        post = web.post(
            f"/findings/{other}/review",
            {"verdict": "dismiss", "note": "log error", "csrf": token},
        )
        assert post.status in (400, 403)  # the session outlived the account: refused
    res = dismiss(db, other, "bob")
    assert res.exit_code == 1 and last_line(res) == REFUSED
    assert [d.account for d in trail.history(other)] == []
    assert status(db, fid) == "dismissed"  # decided while bob was active: it stands
    assert verify(db) == (0, [])
    assert "disabled" in cli("users", "list", "--db", str(db)).stdout

    # a decision under bob taken after he was disabled (if one ever got in) is no pair
    # of eyes; the one before still is
    before = trail.history(fid)
    assert [d.counts for d in before] == [True, True]
    late = dataclasses.replace(before[-1], seq=before[-1].seq + 100)
    con = sqlite3.connect(trail.path)
    (after,) = con.execute("SELECT disabled_after FROM accounts WHERE name = 'bob'").fetchone()
    con.close()
    assert after == before[-1].seq  # bob was disabled after the last decision
    from audit.review import roster

    with trail.connect() as c:
        bob = next(a for a in roster.rows(c) if a.name == "bob")
    assert bob.active_at(before[-1].seq) and not bob.active_at(late.seq)
    lapsed = review_of([before[0], dataclasses.replace(late, active=False)])
    assert lapsed.state.value == "dismissal_pending" and lapsed.inactive == ("bob",)
    assert "account not active then: bob" in lapsed.label


def test_the_last_manager_is_never_disabled(db: Path) -> None:
    add_accounts(ReviewTrail.beside(db), "ana", password=PASSWORD)
    res = users(db, "disable", BOSS, "--manager", BOSS, stdin=f"{BOSS_PASSWORD}\n")
    assert res.exit_code == 1 and "last active manager" in last_line(res)


def test_a_new_password_is_on_the_record(db: Path) -> None:
    add_accounts(ReviewTrail.beside(db), "ana", password=PASSWORD)
    res = users(db, "passwd", "ana", "--manager", BOSS, stdin=f"{BOSS_PASSWORD}\n{'n' * 12}\n")
    assert res.exit_code == 0, res.output
    trail = ReviewTrail.beside(db)
    assert check_password(trail, "ana", PASSWORD) is None
    assert check_password(trail, "ana", "n" * 12) is not None
    assert verify(db) == (0, [])


# --------------------------------------------------------------------------- older files


def test_an_old_review_file_migrates_and_verifies(db: Path) -> None:
    """A review file from before accounts had records: its accounts are recorded as a
    baseline on its first write, and its earlier decisions keep counting."""
    trail = ReviewTrail.beside(db)
    con = sqlite3.connect(trail.path)
    con.executescript(OLD_DDL)
    kdf = Kdf.current()
    for name in ("ana", "bob"):
        salt = secrets.token_bytes(16)
        con.execute(
            "INSERT INTO accounts VALUES (?, 'reviewer', ?, ?, ?, '2026-11-01T00:00:00+00:00')",
            [name, str(kdf), salt.hex(), kdf.derive(PASSWORD, salt).hex()],
        )
    con.commit()
    con.close()
    assert verify(db) == (0, [])  # before any write: vouched as they are
    fid = critical_ids(db)[0]
    assert dismiss(db, fid, "ana").exit_code == 0  # the first write: the baseline
    (base,) = account_lines(trail)
    assert base["body"]["kind"] == "baseline" and sorted(base["body"]["accounts"]) == [
        "ana",
        "bob",
    ]
    assert dismiss(db, fid, "bob").exit_code == 0
    assert status(db, fid) == "dismissed"
    assert verify(db) == (0, [])

    # no manager yet: any account's password adds the first one, and only a manager
    res = users(db, "add", "mallory", "--manager", "ana", stdin=f"{PASSWORD}\n{PASSWORD}\n")
    assert res.exit_code == 1 and last_line(res) == REFUSED
    res = users(
        db, "add", BOSS, "--role", "manager", "--manager", "ana",
        stdin=f"{PASSWORD}\n{BOSS_PASSWORD}\n",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    res = users(db, "add", "carol", "--manager", "ana", stdin=f"{PASSWORD}\n{PASSWORD}\n")
    assert res.exit_code == 1  # a manager exists now: only a manager authorises
    assert verify(db) == (0, [])

    # the baseline anchors the old accounts from now on
    raw(
        db,
        "UPDATE accounts SET hash = ? WHERE name = 'bob'",
        params=[_forged_hash(db, "bob", "z" * 12)],
    )
    code, lines = verify(db)
    assert code == 4 and any("account 'bob': password hash changed" in x for x in lines)
    assert status(db, fid) != "dismissed"


def test_a_decision_counts_only_after_its_account_was_created(db: Path) -> None:
    """``since`` orders accounts and decisions: a decision numbered before its account was
    created is no pair of eyes (an account recreated under an old name could not claim
    an old decision)."""
    add_accounts(ReviewTrail.beside(db), "ana", password=PASSWORD)
    fid = critical_ids(db)[0]
    assert dismiss(db, fid, "ana").exit_code == 0
    trail = ReviewTrail.beside(db)
    from audit.review import roster

    with trail.connect() as c:
        ana = next(a for a in roster.rows(c) if a.name == "ana")
    (d,) = trail.history(fid)
    assert ana.since == 0 and ana.active_at(d.seq) and d.counts
    later = dataclasses.replace(ana, since=d.seq)
    assert not later.active_at(d.seq)
    assert review_of([dataclasses.replace(d, active=False)]).state.value == "dismissal_pending"
    assert Verdict(d.verdict) is Verdict.DISMISS


# --------------------------------------------------------------------------- chain ends


def test_a_decision_is_refused_while_the_ledger_file_does_not_end_at_the_last_one(
    dismissed: tuple[Path, str],
) -> None:
    """The ledger file lost its last decision (bob's): the next decision would chain on to a
    record that is not there, so it is refused, naming the break and how to record it
    (audit.review.trail.chain_end, shared with the adjustments' chain)."""
    db, _ = dismissed
    trail = ReviewTrail.beside(db)
    lines = trail.ledger_path.read_text().splitlines(keepends=True)
    objs = [json.loads(x) for x in lines]
    last = max(o["no"] for o in objs if "chain" not in o and "no" in o)
    kept = [
        x
        for x, o in zip(lines, objs, strict=True)
        if "chain" in o or last not in (o.get("no"), o.get("commit"))
    ]
    assert len(kept) < len(lines)
    trail.ledger_path.write_text("".join(kept))
    res = dismiss(db, critical_ids(db)[1], "ana")
    assert res.exit_code != 0
    assert f"does not end at decision #{last}" in res.output, res.output
    assert "shoe-audit verify" in res.output
