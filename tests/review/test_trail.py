"""The review trail (issue 12, point 2): append-only, chained, superseding, four eyes."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from audit.errors import InputError
from audit.findings import Code, Finding
from audit.review import ReviewState, ReviewTrail, Verdict, against, review_of, trail_path
from audit.review.accounts import KDF, SCRYPT_N_ENV, Role, accounts, add_account, check_password
from tests.accounts import add_accounts


def _finding(
    code: Code = Code.PAY_WRONG_AMOUNT, fid: str = "a1b2c3d4e5f60718", **kw: object
) -> Finding:
    base: dict[str, object] = dict(
        code=code,
        message="box 1 hand 0: paid 15, due 10",
        table="T07",
        shoe="T07-S",
        round=14,
        box=1,
        hand=0,
        spot=0,
        expected="10",
        actual="15",
        impact=Decimal(5),
        id=fid,
    )
    base.update(kw)
    return Finding(**base)  # type: ignore[arg-type]


@pytest.fixture
def trail(tmp_path: Path) -> ReviewTrail:
    return ReviewTrail(tmp_path / "audit.reviews.sqlite")


def test_the_trail_lives_beside_the_database() -> None:
    assert trail_path(Path("/x/audit.duckdb")) == Path("/x/audit.reviews.sqlite")


def test_decisions_are_kept_in_order_with_author_time_and_os_user(trail: ReviewTrail) -> None:
    f = _finding()
    trail.record(f, Verdict.NEEDS_VIDEO, note="cannot tell", by="ana", via="cli", user="ana-os")
    trail.record(f, "confirm", note="video: paid 15", by="bob", via="web", user="www")
    h = trail.history(f.id or "")
    assert [(d.seq, d.verdict, d.by, d.os_user, d.via) for d in h] == [
        (1, Verdict.NEEDS_VIDEO, "ana", "ana-os", "cli"),
        (2, Verdict.CONFIRM, "bob", "www", "web"),
    ]
    assert all(d.at.endswith("+00:00") for d in h)
    assert h[1].prev_hash == h[0].hash and h[0].prev_hash == "0" * 64
    assert review_of(h).state is ReviewState.CONFIRMED  # the later decision supersedes


def test_a_decision_is_never_updated_or_deleted(trail: ReviewTrail) -> None:
    trail.record(_finding(), Verdict.CONFIRM, note="seen", by="ana", via="cli")
    con = sqlite3.connect(trail.path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        con.execute("UPDATE decisions SET verdict = 'dismiss'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        con.execute("DELETE FROM decisions")
    con.close()
    assert trail.verify().ok


def test_a_decision_changed_behind_the_trails_back_breaks_the_chain(trail: ReviewTrail) -> None:
    f = _finding()
    for who in ("ana", "bob", "cy"):
        trail.record(f, Verdict.CONFIRM, note=f"seen by {who}", by=who, via="cli")
    assert trail.verify().ok and trail.verify().decisions == 3
    con = sqlite3.connect(trail.path)
    con.execute("DROP TRIGGER decisions_never_updated")  # what a tamperer would have to do
    con.execute("UPDATE decisions SET note = 'nothing to see' WHERE seq = 2")
    con.commit()
    con.close()
    check = trail.verify()
    assert not check.ok and check.broken_at == 2


def test_a_review_needs_a_note_and_a_name(trail: ReviewTrail) -> None:
    with pytest.raises(InputError, match="note"):
        trail.record(_finding(), Verdict.DISMISS, note="  ", by="ana", via="cli")
    with pytest.raises(InputError, match="name"):
        trail.record(_finding(), Verdict.DISMISS, note="why", by=" ", via="cli")
    assert not trail.exists or trail.decisions() == []


def test_dismissing_a_critical_finding_takes_two_different_reviewers(trail: ReviewTrail) -> None:
    add_accounts(trail, "ana", "bob", password="long enough password")
    f = _finding()  # PAY_WRONG_AMOUNT is critical
    assert f.severity == "critical"
    trail.record(f, Verdict.DISMISS, note="log error", by="ana", via="cli", account="ana")
    assert review_of(trail.history(f.id or "")).state is ReviewState.DISMISSAL_PENDING
    trail.record(f, Verdict.DISMISS, note="agree", by="ANA", via="web", account="ana")  # the same
    r = review_of(trail.history(f.id or ""))
    assert r.state is ReviewState.DISMISSAL_PENDING and r.counted
    for typed in ("bob", "mallory"):  # typed names, no account's password: no pair of eyes
        trail.record(f, Verdict.DISMISS, note="agree", by=typed, via="cli")
    r = review_of(trail.history(f.id or ""))
    assert r.state is ReviewState.DISMISSAL_PENDING and r.counted
    assert r.unauthenticated == ("bob", "mallory")
    assert r.label == "dismissal pending (unauthenticated: bob, mallory)"
    trail.record(f, Verdict.DISMISS, note="agree", by="bob", via="web", account="bob")
    r = review_of(trail.history(f.id or ""))
    assert r.state is ReviewState.DISMISSED and not r.counted
    assert [n.strip().casefold() for n in r.by] == ["ana", "mallory", "bob"]
    assert r.signers[1:] == ("mallory (unauthenticated)", "bob")  # bob signed: one entry


def test_a_confirmation_between_dismissals_restarts_the_four_eyes(trail: ReviewTrail) -> None:
    f = _finding()
    trail.record(f, Verdict.DISMISS, note="log error", by="ana", via="cli")
    trail.record(f, Verdict.CONFIRM, note="no: video", by="cy", via="cli")
    trail.record(f, Verdict.DISMISS, note="log error after all", by="bob", via="cli")
    assert review_of(trail.history(f.id or "")).state is ReviewState.DISMISSAL_PENDING


def test_a_major_finding_is_dismissed_by_one_reviewer(trail: ReviewTrail) -> None:
    add_accounts(trail, "ana", "bob", password="long enough password")
    f = _finding(Code.PLAY_ILLEGAL_DOUBLE, expected=None, actual=None, impact=None)
    trail.record(f, Verdict.DISMISS, note="the double was on 10", by="ana", via="cli")
    typed = review_of(trail.history(f.id or ""))  # a typed name dismisses nothing, even here
    assert typed.state is ReviewState.DISMISSAL_PENDING and typed.counted
    trail.record(
        f, Verdict.DISMISS, note="the double was on 10", by="ana", via="cli", account="ana"
    )
    assert review_of(trail.history(f.id or "")).state is ReviewState.DISMISSED


def test_a_rerun_with_other_figures_or_none_is_shown_never_lost(trail: ReviewTrail) -> None:
    add_accounts(trail, "ana", "bob", password="long enough password")
    f = _finding()
    trail.record(f, Verdict.CONFIRM, note="paid 15", by="ana", via="cli", account="ana")
    r = review_of(trail.history(f.id or ""))
    assert not against(r, f).changed and not against(r, f).gone
    other = _finding(actual="20", impact=Decimal(10), message="paid 20, due 10")
    assert against(r, other).changed
    assert against(r, other).label == "confirmed (changed since review)"
    gone = against(r, None)
    assert gone.gone and gone.label == "confirmed (no longer raised)"
    assert gone.snapshot.message == f.message  # the review keeps what was reviewed


def test_accounts_keep_a_scrypt_hash_never_the_password(trail: ReviewTrail) -> None:
    add_account(trail, "ana", Role.MANAGER, "correct horse battery")
    assert [(a.name, a.role) for a in accounts(trail)] == [("ana", Role.MANAGER)]
    raw = trail.path.read_bytes()
    assert b"correct horse battery" not in raw
    con = sqlite3.connect(trail.path)
    kdf, salt, digest = con.execute("SELECT kdf, salt, hash FROM accounts").fetchone()
    con.close()
    assert kdf == "scrypt:n=2,r=8,p=1" and len(bytes.fromhex(salt)) == 16  # tests/conftest.py
    assert len(digest) == 64
    assert check_password(trail, "ana", "correct horse battery") is not None
    assert check_password(trail, "ana", "correct horse batterY") is None
    assert check_password(trail, "nobody", "correct horse battery") is None


def test_a_hash_keeps_its_cost_and_verifies_under_another_setting(
    trail: ReviewTrail, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default cost stands unless the tests' variable names a power of two >= 2; each
    hash is checked under the cost it names, whatever the setting is now."""
    monkeypatch.delenv(SCRYPT_N_ENV)
    add_account(trail, "ana", Role.MANAGER, "correct horse battery")
    ana = ("ana", "correct horse battery")
    for bad in ("3", "1", "0", "-4", "abc", "2**4", "4.0", str(2**21)):
        monkeypatch.setenv(SCRYPT_N_ENV, bad)
        name = f"x{abs(hash(bad)) % 10**6}"
        add_account(trail, name, Role.REVIEWER, "correct horse battery", manager=ana)
    monkeypatch.setenv(SCRYPT_N_ENV, "4")
    add_account(trail, "bob", Role.REVIEWER, "correct horse battery", manager=ana)
    con = sqlite3.connect(trail.path)
    kdfs = dict(con.execute("SELECT name, kdf FROM accounts").fetchall())
    con.close()
    assert kdfs.pop("ana") == KDF == "scrypt:n=16384,r=8,p=1"
    assert kdfs.pop("bob") == "scrypt:n=4,r=8,p=1"
    assert set(kdfs.values()) == {KDF}  # every value that is no power of two >= 2: ignored
    for setting in ("2", "16384"):
        monkeypatch.setenv(SCRYPT_N_ENV, setting)
        assert check_password(trail, "ana", "correct horse battery") is not None
        assert check_password(trail, "bob", "correct horse battery") is not None
        assert check_password(trail, "bob", "correct horse batterY") is None


def test_a_stored_hash_naming_an_outlandish_cost_is_refused_not_obeyed(
    trail: ReviewTrail,
) -> None:
    add_account(trail, "ana", Role.MANAGER, "correct horse battery")
    con = sqlite3.connect(trail.path)
    con.execute("UPDATE accounts SET kdf = 'scrypt:n=1073741824,r=8,p=1'")
    con.commit()
    con.close()
    assert check_password(trail, "ana", "correct horse battery") is None


def test_accounts_refuse_short_passwords_bad_names_and_doubles(trail: ReviewTrail) -> None:
    with pytest.raises(InputError, match="at least"):
        add_account(trail, "ana", "reviewer", "short")
    with pytest.raises(InputError, match="account name"):
        add_account(trail, "<b>ana</b>", "reviewer", "long enough password")
    add_account(trail, "ana", "manager", "long enough password")
    ana = ("ana", "long enough password")
    with pytest.raises(InputError, match="exists"):
        add_account(trail, "ana", "reviewer", "another long password", manager=ana)
    with pytest.raises(InputError, match="'ana' exists"):  # one person, one vote
        add_account(trail, "ANA", "reviewer", "another long password", manager=ana)
