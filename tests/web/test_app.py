"""The investigator web app over a real audited night, through a real uvicorn server and
HTTP (issue 12, points 1, 2 and 4): pages, filters, sorting, paging, reviews, security."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote

import pytest

from audit.errors import AuditError
from audit.review import ReviewTrail
from audit.review.accounts import add_account
from audit.store import open_store
from audit.web.app import ServeConfig, create_app
from audit.web.server import check_can_serve
from audit.web.urls import hand_url, shoe_url
from tests.accounts import add_accounts
from tests.reports.htmlcheck import Page
from tests.reports.nights import HOSTILE, HOSTILE_DEALER
from tests.web.client import PASSWORD, Client, running
from tests.web.conftest import DAY


@pytest.fixture
def client(db: Path) -> Iterator[Client]:
    with running(create_app(ServeConfig(db=db))) as port:
        yield Client(port)


def _rows(text: str, table: str = "findings") -> list[list[str]]:
    return Page(text).tables[table][1:]


def _ids(text: str) -> list[str]:
    return re.findall(r'<tr data-href="[^"]*" data-id="([0-9a-f]{16})"', text)


def _findings(db: Path) -> list:  # type: ignore[type-arg]
    with open_store(db, read_only=True) as s:
        return s.all_findings()


def test_every_page_has_a_stable_url_and_renders(client: Client, db: Path) -> None:
    f = next(f for f in _findings(db) if f.round is not None and f.table == "T90")
    for path in (
        "/findings",
        f"/findings/{f.id}",
        shoe_url(f.table, f.shoe),
        hand_url(f.table, f.shoe, f.round),
        f"/reports/{DAY}",
        f"/reports/{DAY}/flagged",
        "/reviews",
    ):
        r = client.get(path)
        assert r.status == 200, (path, r.text[-500:])
        assert Page(r.text).unbalanced == [], path
        assert "Content-Security-Policy" in {k.title() for k in r.headers} or (
            "content-security-policy" in r.headers
        )
    assert client.get("/reports").location == f"/reports/{DAY}"
    assert client.get("/").location == "/findings"


def test_the_days_report_carries_the_static_reports_statistics(
    client: Client, db: Path, tmp_path: Path
) -> None:
    from audit.batch.nightly import write_report

    with open_store(db, read_only=True) as store:
        out = write_report(store, [DAY], tmp_path / "report")
    static = out.read_text(encoding="utf-8")  # the report folder's index.html
    web = client.get(f"/reports/{DAY}").text
    section = re.compile(r'<section id="statistics">.*?</section>', re.S)
    assert section.findall(static)  # the night has audited rounds to test
    assert section.findall(web) == section.findall(static)
    assert section.findall(client.get(f"/reports/{DAY}").text) == section.findall(static)  # kept


def test_the_shoe_timeline_is_in_the_tables_local_time_and_order(client: Client, db: Path) -> None:
    text = client.get(shoe_url("T90", "T90-S")).text
    (body,) = re.findall(r'<table id="timeline-table">.*?</table>', text, re.S)
    times = re.findall(r'<tr[^>]*><td class="mono">(\d\d:\d\d:\d\d)</td>', body)
    assert len(times) > 5 and times == sorted(times)  # marks and rounds interleave in order
    with open_store(db, read_only=True) as store:
        (opened,) = store.con.execute(
            "SELECT ts_local FROM events WHERE table_id = 'T90' AND shoe = 'T90-S' "
            "AND round = 1 AND type = 'round_open'"
        ).fetchone()
    assert f'<td class="mono">{opened:%H:%M:%S}</td><td>round' in body


def test_the_list_sorts_by_money_impact_and_pages(client: Client, db: Path) -> None:
    every = _findings(db)
    page1 = client.get("/findings")
    total = int(re.search(r'id="total">([0-9,]+)<', page1.text).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert total == len(every)
    impacts = [
        abs(Decimal(r[0].replace(",", "").replace("+", "").replace("−", "-") or 0))
        for r in _rows(page1.text)
    ]
    assert impacts == sorted(impacts, reverse=True)
    assert impacts[0] == max(abs(f.impact or 0) for f in every)
    past = client.get("/findings?page=9999").text
    last = -(-total // 50)
    assert f'id="page-no">{last}<' in past and _ids(past)  # past the end: the last page
    if total > 50:
        page2 = client.get("/findings?page=2")
        assert set(_ids(page1.text)).isdisjoint(_ids(page2.text))
        assert 'id="page-no">2<' in page2.text


def test_the_list_filters_by_table_dealer_code_severity_and_day(client: Client, db: Path) -> None:
    every = _findings(db)
    got = _ids(client.get("/findings?table=T90").text)
    assert sorted(got) == sorted(f.id for f in every if f.table == "T90")
    crit = _ids(client.get("/findings?severity=critical").text)
    assert crit and all(f.severity == "critical" for f in every if f.id in crit)
    code = every[0].code
    assert set(_ids(client.get(f"/findings?code={code}").text)) == {
        f.id for f in every if f.code == code
    }
    relief = _ids(client.get("/findings?dealer=D-RELIEF").text)
    assert relief and all(f.table == "T90" and (f.round or 0) >= 3 for f in every if f.id in relief)
    assert _ids(client.get("/findings?day=2026-11-27").text)  # the day before has its own
    assert not set(_ids(client.get("/findings?day=2026-11-27").text)) & set(
        _ids(client.get(f"/findings?day={DAY}").text)
    )
    assert client.get("/findings?day=yesterday").status == 400
    assert client.get("/findings?code=NOPE").status == 400


def test_the_list_filters_by_a_range_of_gaming_days(client: Client) -> None:
    before, night = "2026-11-27", DAY
    first = set(_ids(client.get(f"/findings?day={before}").text))
    second = set(_ids(client.get(f"/findings?day={night}").text))
    assert first and second and not first & second
    both = set(_ids(client.get(f"/findings?from={before}&to={night}").text))
    assert both == first | second
    assert set(_ids(client.get(f"/findings?from={night}").text)) == second  # open-ended
    assert set(_ids(client.get(f"/findings?to={before}").text)) == first
    assert not _ids(client.get(f"/findings?from={night}&to={before}").text)  # empty range
    assert client.get("/findings?from=2026-13-01").status == 400


def test_a_review_from_the_browser_is_recorded_and_shown(client: Client, db: Path) -> None:
    f = next(f for f in _findings(db) if f.severity == "major" and f.round is not None)
    add_accounts(ReviewTrail.beside(db), "ana", password=PASSWORD)
    assert client.sign_in("ana").status == 303
    token = client.csrf(f"/findings/{f.id}")
    r = client.post(
        f"/findings/{f.id}/review",
        {"csrf": token, "verdict": "dismiss", "note": "log error <b>", "next": "/x"},
    )
    assert r.status == 303 and r.location == f"/x?recorded={f.id}"  # the flash (issue 30)
    (d,) = ReviewTrail.beside(db).history(f.id)
    assert (d.verdict, d.by, d.via, d.note) == ("dismiss", "ana", "web", "log error <b>")
    assert d.account == "ana"
    page = client.get(f"/findings/{f.id}").text
    assert "log error &lt;b&gt;" in page and "log error <b>" not in page
    assert "<td><b>dismiss</b></td><td>ana</td>" in page  # the history row
    assert 'id="review-state"><span class="review review-dismissed"' in page
    assert f.id in _ids(client.get("/findings?review=dismissed").text)
    assert f.id not in _ids(client.get("/findings?review=unreviewed").text)


def test_a_post_without_the_sessions_csrf_token_is_refused(client: Client, db: Path) -> None:
    f = _findings(db)[0]
    add_accounts(ReviewTrail.beside(db), "ana", password=PASSWORD)
    assert client.sign_in("ana").status == 303
    client.csrf(f"/findings/{f.id}")
    r = client.post(f"/findings/{f.id}/review", {"verdict": "confirm", "note": "x", "by": "a"})
    assert r.status == 403
    other = Client(client.port)
    stolen = other.csrf("/login")  # a token of another session
    r = client.post(
        f"/findings/{f.id}/review", {"csrf": stolen, "verdict": "confirm", "note": "x", "by": "a"}
    )
    assert r.status == 403
    assert not ReviewTrail.beside(db).decisions()


def test_a_forged_session_cookie_is_a_new_anonymous_session(db: Path) -> None:
    trail = ReviewTrail.beside(db)
    add_accounts(trail, "ana", password="long enough password")
    with running(create_app(ServeConfig(db=db))) as port:
        c = Client(port)
        c.csrf("/login")
        payload, sig = c.cookies["shoe_audit_session"].rsplit(".", 1)
        c.cookies["shoe_audit_session"] = payload[:-2] + "xx." + sig
        page = c.get("/findings").text
        assert "signed in as" not in page


def _signed_in(port: int, name: str = "ana") -> Client:
    c = Client(port)
    token = c.csrf("/login")
    r = c.post("/login", {"csrf": token, "name": name, "password": "long enough password"})
    assert r.status == 303, r.text
    return c


def test_accounts_sign_in_and_only_then_see_player_ids(db: Path) -> None:
    trail = ReviewTrail.beside(db)
    add_accounts(trail, "ana", password="long enough password")
    with open_store(db, read_only=True) as s:
        (t, sh, rnd, player) = s.con.execute(
            "SELECT w.table_id, w.shoe, w.round, w.player FROM wagers w JOIN rounds r "
            "USING (table_id, shoe, round) WHERE w.player IS NOT NULL AND r.findings > 0 "
            "AND length(w.player) > 4 ORDER BY ALL LIMIT 1"
        ).fetchone()
    path = hand_url(t, sh, rnd)
    with running(create_app(ServeConfig(db=db))) as port:
        anon = Client(port)
        page = anon.get(path).text
        assert player not in page and player[-2:] in page
        assert "Sign in</a> to review" in page
        bad = Client(port)
        token = bad.csrf("/login")
        r = bad.post("/login", {"csrf": token, "name": "ana", "password": "wrong password!"})
        assert r.status == 401
        ana = _signed_in(port)
        assert player in ana.get(path).text
        f = _findings(db)[0]
        r = anon.post(
            f"/findings/{f.id}/review",
            {"csrf": anon.csrf("/login"), "verdict": "confirm", "note": "x", "by": "mallory"},
        )
        assert r.status == 403
        r = ana.post(
            f"/findings/{f.id}/review",
            {"csrf": ana.csrf(), "verdict": "confirm", "note": "seen", "by": "mallory"},
        )
        assert r.status == 303
        (d,) = trail.history(f.id)
        assert d.by == "ana"  # the account, never the form's name


def test_another_address_needs_accounts_and_a_signed_in_user(db: Path) -> None:
    with pytest.raises(AuditError, match="without reviewer accounts"):
        check_can_serve(ServeConfig(db=db, host="0.0.0.0"))
    with pytest.raises(AuditError, match="no audit database"):
        check_can_serve(ServeConfig(db=db.with_name("missing.duckdb")))
    add_account(ReviewTrail.beside(db), "ana", "manager", "long enough password")
    check_can_serve(ServeConfig(db=db, host="0.0.0.0"))
    with running(create_app(ServeConfig(db=db, host="0.0.0.0"))) as port:
        anon = Client(port, host="audit.casino.example")
        r = anon.get("/findings")
        assert r.status == 303 and r.location.startswith("/login?next=")
        assert anon.get(f"/reports/{DAY}").status == 303
        assert _signed_in(port).get("/findings").status == 200


def test_on_loopback_another_host_name_is_refused(client: Client) -> None:
    assert Client(client.port, host="evil.example").get("/findings").status == 400


def test_ids_from_the_logs_are_escaped_everywhere(client: Client, db: Path) -> None:
    f = next(f for f in _findings(db) if f.table == HOSTILE and f.round is not None)
    pages = [
        client.get(p).text
        for p in (
            f"/findings?table={quote(HOSTILE)}",
            shoe_url(HOSTILE, f.shoe),
            hand_url(HOSTILE, f.shoe, f.round),
            f"/findings/{f.id}",
            f"/reports/{DAY}",
            f"/findings?dealer={quote(HOSTILE_DEALER)}",
        )
    ]
    for text in pages:
        assert "<script>alert(1)" not in text and "<marquee>" not in text
        assert "49" not in re.findall(r"\{\{ 7\*7 \}\}|49(?=</)", text)
    assert "T&lt;script&gt;alert(1)&lt;/script&gt;" in pages[0]
    assert f.id in _ids(pages[0])  # the filter found the hostile table by its id
    # the filter's choices carry the id itself as their value (an option's text would be
    # whitespace-folded by the browser), escaped inside the attribute
    (select,) = re.findall(r'<select name="table" id="f-table">.*?</select>', pages[0], re.S)
    assert 'value="T&lt;script&gt;alert(1)&lt;/script&gt;|&#34;&#39;{{ 7*7 }}" selected' in select


def test_a_redirect_after_a_post_stays_inside_the_app() -> None:
    from audit.web.urls import safe_next

    assert safe_next("/findings?page=2") == "/findings?page=2"
    for outside in ("https://evil.example/", "//evil.example/x", "/\\evil.example", "evil", ""):
        assert safe_next(outside, "/findings/x") == "/findings/x", outside


def test_no_url_reads_a_file_outside_the_app(client: Client) -> None:
    for path in (
        "/hands/..%2F..%2F..%2Fetc%2Fpasswd/x/1",
        "/shoes/../../etc/passwd",
        "/static/../../etc/passwd",
        "/reports/..%2F..%2Fetc%2Fpasswd",
        "/findings/..%2F..%2Fetc%2Fpasswd",
        "/etc/passwd",
    ):
        r = client.get(path)
        assert r.status in (404, 400), path
        assert "root:" not in r.text


def test_reviews_page_shows_findings_no_longer_raised(client: Client, db: Path) -> None:
    from audit.findings import Code, Finding

    gone = Finding(
        Code.PAY_WRONG_AMOUNT,
        "paid 15, due 10",
        "T90",
        "T90-S",
        99,
        1,
        0,
        0,
        "10",
        "15",
        Decimal(5),
        id="ffffffffffffffff",
    )
    ReviewTrail.beside(db).record(
        gone, "confirm", note="filed in last month's report", by="ana", via="cli"
    )
    page = client.get("/reviews?show=gone").text
    rows = Page(page).tables["trail"][1:]
    assert [r[0] for r in rows] == ["ffffffffffffffff"] and "no longer raised" in rows[0][3]
    assert 'id="chain">intact' in page
    finding = client.get("/findings/ffffffffffffffff").text
    assert 'id="gone"' in finding and "filed in last month" in finding
