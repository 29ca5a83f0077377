"""The books in ``serve`` (accounting.md: ``serve`` shows the MGR and lets a manager adjust):
the MGR page, a period's page, and the adjustment form, over real HTTP to a real server,
on a real audited night with books (:mod:`tests.reports.books_night`)."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.review import ReviewTrail
from audit.review.adjustments import stored
from audit.web.app import ServeConfig, create_app
from tests.accounts import add_accounts
from tests.cli.helpers import SAMPLE, cli
from tests.reports.books_night import books_night
from tests.reports.htmlcheck import Page
from tests.web.client import PASSWORD, Client, running

PERIOD = "/books/2026-11-28/T01/day"


@pytest.fixture(scope="module")
def books_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("sample") / "audit.duckdb"
    for args in (["ingest", "--db", str(db), str(SAMPLE)], ["run", "--db", str(db)]):
        result = cli(*args)
        assert result.exit_code == 0, result.output
    made, _ = books_night(db, tmp_path_factory.mktemp("books"))
    return made


@pytest.fixture
def db(books_db: Path, tmp_path: Path) -> Path:
    for p in books_db.parent.iterdir():
        if p.is_file():
            shutil.copy(p, tmp_path / p.name)
    return tmp_path / "audit.duckdb"


@pytest.fixture
def client(db: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Client]:
    add_accounts(ReviewTrail.beside(db), "mia", password=PASSWORD, role="manager")
    add_accounts(ReviewTrail.beside(db), "ana", password=PASSWORD)
    monkeypatch.setenv("SHOE_AUDIT_HOUSE", str(db.parent / "house.toml"))
    with running(create_app(ServeConfig(db=db))) as port:
        yield Client(port)


def _digest(db: Path) -> str:
    return hashlib.sha256(db.read_bytes()).hexdigest()


def test_the_mgr_page_shows_the_day_by_pit_with_every_period_linked(client: Client) -> None:
    assert client.get("/books").location == "/books/2026-11-29"  # the latest day with books
    got = client.get("/books/2026-11-28")
    assert got.status == 200, got.text
    p = Page(got.text)
    rows = [r for r in p.body_rows("mgr-P1") if r[0][:4].isdigit()]
    assert [r[1] for r in rows] == ["T01", "T02", "T01 total", "T02 total", "pit total"]
    assert PERIOD in p.links and "/books/2026-11-28/T02/day" in p.links
    findings = p.body_rows("acct-findings")
    assert [f[-1].split()[0] for f in findings] == [
        "ACCT_INVENTORY_REPORTABLE",
        "ACCT_DROP_MISMATCH",
    ]


def test_a_period_page_links_its_rounds_to_their_hand_pages(client: Client) -> None:
    got = client.get(PERIOD)
    assert got.status == 200, got.text
    p = Page(got.text)
    hands = [link for link in p.links if link.startswith("/hands/T01/")]
    assert len(hands) == 80
    assert client.get(hands[0]).status == 200
    assert p.body_rows("identity-table")
    # not signed in: no form, the reason instead
    assert p.count("form", id="adjust-form") == 0


def test_a_manager_records_an_adjustment_in_the_trail_never_in_duckdb(
    client: Client, db: Path
) -> None:
    before = _digest(db)
    assert client.sign_in("mia").status == 303
    page = Page(client.get(PERIOD).text)
    assert page.count("form", id="adjust-form") == 1
    form = {
        "csrf": client.csrf(PERIOD),
        "line": "drop_cash",
        "amount": "100",
        "reason": "count sheet re-added: 100 in the second bag",
    }
    got = client.post(PERIOD + "/adjust", form)
    assert got.status == 303, got.text
    assert got.location.startswith(PERIOD)
    made = stored(ReviewTrail.beside(db))
    assert [
        (a.table_id, a.gaming_day, a.shift, a.line, a.amount, a.account, a.via) for a in made
    ] == [("T01", "2026-11-28", "day", "drop_cash", "100", "mia", "web")]
    assert _digest(db) == before  # the books as counted never change
    after = Page(client.get(PERIOD).text).body_rows("adjustment-table")
    assert after[0][0] == made[0].id and after[0][4] == "100"
    mgr = Page(client.get("/books/2026-11-28").text)
    t01 = next(r for r in mgr.body_rows("mgr-P1") if r[1] == "T01")
    assert t01[11] == "-100" and t01[12] == "100"  # variance as counted, adjustments
    # a reversal cancels it
    got = client.post(
        PERIOD + "/adjust",
        {"csrf": client.csrf(PERIOD), "reverses": made[0].id, "reason": "the bag was T02's"},
    )
    assert got.status == 303, got.text
    last = stored(ReviewTrail.beside(db))[-1]
    assert (last.line, last.amount, last.reverses) == ("drop_cash", "-100", made[0].id)


def test_a_reviewer_is_refused_with_403_and_the_reason(client: Client, db: Path) -> None:
    assert client.sign_in("ana").status == 303
    page = Page(client.get(PERIOD).text)
    assert page.count("form", id="adjust-form") == 0
    got = client.post(
        PERIOD + "/adjust",
        {"csrf": client.csrf(PERIOD), "line": "fills", "amount": "5", "reason": "x"},
    )
    assert got.status == 403
    assert "manager account only" in got.text
    assert stored(ReviewTrail.beside(db)) == []


def test_no_session_or_a_forged_csrf_token_records_nothing(client: Client, db: Path) -> None:
    form = {"line": "fills", "amount": "5", "reason": "x"}
    assert client.post(PERIOD + "/adjust", {**form, "csrf": "0" * 40}).status == 403
    assert client.sign_in("mia").status == 303
    assert client.post(PERIOD + "/adjust", {**form, "csrf": "0" * 40}).status == 403
    assert client.post(PERIOD + "/adjust", form).status == 403
    assert stored(ReviewTrail.beside(db)) == []


def test_bad_form_values_are_400_and_an_unknown_period_404(client: Client, db: Path) -> None:
    assert client.sign_in("mia").status == 303
    csrf = client.csrf(PERIOD)
    for bad in (
        {"line": "float", "amount": "5", "reason": "x"},
        {"line": "fills", "amount": "0", "reason": "x"},
        {"line": "fills", "amount": "1.005", "reason": "x"},
        {"line": "fills", "amount": "5", "reason": "  "},
    ):
        assert client.post(PERIOD + "/adjust", {**bad, "csrf": csrf}).status == 400, bad
    got = client.post(
        "/books/2026-11-28/T09/day/adjust",
        {"csrf": csrf, "line": "fills", "amount": "5", "reason": "x"},
    )
    assert got.status == 404
    assert stored(ReviewTrail.beside(db)) == []
