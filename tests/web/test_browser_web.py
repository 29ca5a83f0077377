"""The investigator in a real headless Chromium (issue 12, point 5): Playwright drives
Debian's /usr/bin/chromium (never a downloaded browser) against ``serve`` on a loopback
port. Open the list, filter it, open a hand, move with the keyboard, dismiss a critical
finding with a note (two reviewers: four eyes), see the report's counts change and the
finding's history. Screenshots of the main pages go to ``test-artifacts/screenshots/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest

from audit.review import ReviewTrail
from audit.store import open_store
from audit.web.app import ServeConfig, create_app
from tests.accounts import add_accounts
from tests.web.client import PASSWORD, running
from tests.web.conftest import DAY

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium"),
]


@pytest.fixture
def base(db: Path) -> Iterator[str]:
    with running(create_app(ServeConfig(db=db))) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def page(base: str) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        yield pg
        browser.close()


def _shot(page: Any, name: str, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=full)


def _after_review(url: str) -> re.Pattern[str]:
    """The page a review redirects to: ``url``, with the ``recorded`` banner's query."""
    return re.compile(re.escape(url) + r"(\?recorded=[^#]*)?$")


def _sign_in(page: Any, base: str, name: str, back: str) -> None:
    """Sign in as ``name`` through the login form (reviewing needs an account, issue 29)."""
    page.goto(f"{base}/login?next={quote(back, safe='')}")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form[action='/login'] button")
    page.wait_for_url(f"{base}{back}")


def _reviewers(db: Path) -> None:
    add_accounts(ReviewTrail.beside(db), "ana", "bob", password=PASSWORD)


def _count(page: Any, selector: str) -> int:
    return int(page.locator(selector).inner_text().replace(",", ""))


def test_a_reviewer_works_through_a_night_in_chromium(page: Any, base: str, db: Path) -> None:
    with open_store(db, read_only=True) as s:
        rounds = {
            r: n
            for r, n in s.con.execute(
                "SELECT round, findings FROM rounds WHERE table_id = 'T90' ORDER BY round"
            ).fetchall()
        }
    assert rounds[2] and rounds[4] and not rounds[3]

    # the report's counts before
    page.goto(f"{base}/reports/{DAY}")
    total_before = _count(page, "#findings-total")
    critical_before = _count(page, "#critical-total")
    _shot(page, "web-report.png")

    # the list, sorted by money impact; filter it to one table
    page.goto(f"{base}/findings")
    assert page.locator("#findings tbody tr").count() > 10
    _shot(page, "web-findings.png")
    page.select_option("#f-table", "T90")
    page.click("#apply")
    page.wait_for_url(re.compile(r"table=T90"))
    tables = page.locator("#findings tbody tr td:nth-child(5)").all_inner_texts()
    assert tables and all(t.startswith("T90") for t in tables)
    _shot(page, "web-findings-filtered.png")

    # open a hand from the list with the keyboard (j selects, Enter opens)
    page.locator("body").press("j")
    row = page.locator("#findings tbody tr.sel")
    assert row.count() == 1
    target = row.get_attribute("data-href")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}{target}")

    # round 2 of T90: previous and next round with the arrows, next finding with n
    page.goto(f"{base}/hands/T90/T90-S/2")
    assert page.locator("#step-table tbody tr").count() > 5
    _shot(page, "web-hand.png", full=True)
    page.keyboard.press("ArrowRight")
    page.wait_for_url(f"{base}/hands/T90/T90-S/3")
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(f"{base}/hands/T90/T90-S/2")
    page.keyboard.press("n")
    page.wait_for_url(f"{base}/hands/T90/T90-S/4")  # 3 is clean: the next round with findings
    page.keyboard.press("p")
    page.wait_for_url(f"{base}/hands/T90/T90-S/2")

    # dismiss the round's critical finding with a note: pending until a second reviewer
    _reviewers(db)
    _sign_in(page, base, "ana", "/hands/T90/T90-S/2")
    panel = page.locator("#review .finding").first
    fid = panel.get_attribute("id").removeprefix("review-")  # type: ignore[union-attr]
    panel.locator("textarea[name=note]").fill("video: the dealer paid 10, the log is wrong")
    panel.locator("button[value=dismiss]").click()
    page.wait_for_url(_after_review(f"{base}/hands/T90/T90-S/2"))
    assert "dismissal pending" in page.locator(f"#review-{fid} .review-state").inner_text()
    page.goto(f"{base}/reports/{DAY}")
    assert _count(page, "#findings-total") == total_before  # four eyes: still counted
    _sign_in(page, base, "bob", "/hands/T90/T90-S/2")
    panel = page.locator(f"#review-{fid}")
    panel.locator("textarea[name=note]").fill("agreed after the video")
    panel.locator("button[value=dismiss]").click()
    page.wait_for_url(_after_review(f"{base}/hands/T90/T90-S/2"))
    assert page.locator(f"#review-{fid} .review-state").inner_text().strip() == "dismissed"
    _shot(page, "web-hand-reviewed.png", full=True)

    # the report's counts change; the dismissed finding stays listed
    page.goto(f"{base}/reports/{DAY}")
    assert _count(page, "#findings-total") == total_before - 1
    assert _count(page, "#critical-total") == critical_before - 1
    assert _count(page, "#dismissed-total") == 1
    assert "ana, bob" in page.locator("#dismissed-findings").inner_text()
    _shot(page, "web-report-after.png")

    # the finding's whole history
    page.goto(f"{base}/findings/{fid}")
    history = page.locator("#history tbody tr")
    assert history.count() == 2
    assert "ana" in history.nth(0).inner_text() and "bob" in history.nth(1).inner_text()
    _shot(page, "web-finding-history.png")

    # the shoe's timeline: the dealer change and the rounds
    page.goto(f"{base}/shoes/T90/T90-S")
    assert page.locator("#timeline-table tr.mark-dealer_change").count() == 1
    _shot(page, "web-shoe.png", full=True)


def _night(kind: str, folder: Path) -> Path:
    """The sample night of the repo, or a simulated 20-table night, ingested and audited."""
    from audit.batch import run_audit
    from audit.ingest import ingest_paths
    from audit.profiles import load_registry
    from audit.simulate import simulate

    if kind == "sample":
        logs = Path(__file__).resolve().parents[2] / "sample_logs" / "2026-11-28"
    else:
        logs = folder / "logs"
        simulate(
            logs,
            tables=20,
            shoes=1,
            profiles=["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"],
            seed=20,
            error_rate=0.03,
        )
    db = folder / "audit.duckdb"
    with open_store(db) as store:
        ingest_paths(store, [logs])
        run_audit(store, load_registry())
    return db


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sample", "twenty-tables"])
def test_the_same_work_on_the_sample_and_a_20_table_night(kind: str, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    db = _night(kind, tmp_path)
    with (
        running(create_app(ServeConfig(db=db))) as port,
        sync_api.sync_playwright() as p,
    ):
        base = f"http://127.0.0.1:{port}"
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        # the costliest finding of a round (some are of a whole shoe, with no hand):
        # its table and severity are the filter, whatever the night holds
        page.goto(f"{base}/findings")
        day = page.locator("#f-day option").nth(1).get_attribute("value")
        row = page.locator("#findings tbody tr:has(a.hand-link)").first
        href = row.locator("a.hand-link").get_attribute("href") or ""
        table = unquote(href.split("/")[2])
        severity = (row.locator(".sev").first.text_content() or "").strip()  # not CSS-cased
        page.goto(f"{base}/reports/{day}")
        before = _count(page, "#findings-total")
        page.goto(f"{base}/findings")
        page.select_option("#f-table", table)
        page.select_option("#f-severity", severity)
        page.click("#apply")
        page.wait_for_url(re.compile(rf"severity={severity}"))
        assert page.locator("#findings tbody tr").count() >= 1
        _shot(page, f"web-{kind}-findings.png")
        page.locator("#findings a.hand-link").first.click()
        page.wait_for_url(re.compile(r"/hands/"))
        url = page.url
        round_no = int(url.rsplit("/", 1)[1])
        if page.locator("#nav a[rel=next]").count():
            page.keyboard.press("ArrowRight")
            page.wait_for_url(re.compile(rf"/{round_no + 1}$"))
            page.keyboard.press("ArrowLeft")
            page.wait_for_url(url)
        # a critical finding takes two reviewers to leave the totals (four eyes)
        _reviewers(db)
        for by in ["ana", "bob"] if severity == "critical" else ["ana"]:
            _sign_in(page, base, by, url.removeprefix(base))
            panel = page.locator(f"#review .finding.{severity}").first
            panel.locator("textarea[name=note]").fill("checked against the video")
            panel.locator("button[value=dismiss]").click()
            page.wait_for_url(_after_review(url))
            state = page.locator(f"#review .finding.{severity} .review-state").first.inner_text()
            assert ("pending" in state) == (by == "ana" and severity == "critical"), state
        assert "dismissed" in state
        _shot(page, f"web-{kind}-hand.png", full=True)
        page.goto(f"{base}/reports/{day}")
        assert _count(page, "#findings-total") == before - 1
        assert _count(page, "#dismissed-total") == 1
        browser.close()
