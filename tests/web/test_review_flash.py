"""After a review in the browser, the page says what was recorded (issue 30, point 3):
the redirect after the POST names the finding, and the page reads the decision back
from the trail."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from audit.review import ReviewTrail
from audit.store import open_store
from audit.web.app import ServeConfig, create_app
from tests.accounts import add_accounts
from tests.reports.htmlcheck import Page
from tests.web.client import PASSWORD, Client, running


@pytest.fixture
def client(db: Path) -> Iterator[Client]:
    for name in ("ana", "bob"):
        add_accounts(ReviewTrail.beside(db), name, password=PASSWORD)
    with running(create_app(ServeConfig(db=db))) as port:
        yield Client(port)


def _critical(db: Path) -> str:
    with open_store(db, read_only=True) as s:
        return next(f.id for f in s.all_findings() if f.severity == "critical" and f.id)


class _ById(HTMLParser):
    """The text of the element with one id (the page parsed, not searched as text)."""

    def __init__(self, wanted: str, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.wanted = wanted
        self.depth = 0
        self.found: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth:
            self.depth += 1
        elif dict(attrs).get("id") == self.wanted:
            self.depth, self.found = 1, []

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and self.found is not None:
            self.found.append(data)


def _flash(text: str) -> str | None:
    assert Page(text).unbalanced == []
    got = _ById("flash", text).found
    return None if got is None else "".join(got).strip()


def _review(client: Client, fid: str, verdict: str) -> str:
    token = client.csrf(f"/findings/{fid}")
    r = client.post(f"/findings/{fid}/review", {"csrf": token, "verdict": verdict, "note": "n"})
    assert r.status == 303 and r.location == f"/findings/{fid}?recorded={fid}"
    return r.location


def test_the_page_after_a_review_says_what_was_recorded(client: Client, db: Path) -> None:
    fid = _critical(db)
    assert client.sign_in("ana").status == 303
    back = _review(client, fid, "dismiss")
    page = client.get(back)
    assert page.status == 200
    assert _flash(page.text) == "recorded: dismiss by ana; now dismissal pending"
    assert _flash(client.get(f"/findings/{fid}").text) is None  # once, not on every visit
    client.post("/logout", {"csrf": client.csrf(f"/findings/{fid}")})
    assert client.sign_in("bob").status == 303
    # Another account's link shows nothing of ana's decision as if it were bob's.
    assert _flash(client.get(back).text) is None
    back = _review(client, fid, "dismiss")
    assert _flash(client.get(back).text) == "recorded: dismiss by bob; now dismissed"


def test_a_link_cannot_make_a_page_claim_a_decision(client: Client, db: Path) -> None:
    fid = _critical(db)
    assert client.sign_in("ana").status == 303
    assert _flash(client.get(f"/findings/{fid}?recorded={fid}").text) is None  # never reviewed
    assert _flash(client.get("/findings?recorded=recorded%3A%20x").text) is None
