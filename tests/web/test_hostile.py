"""Every route of the web app answers hostile input with a 4xx page, never a 500 (issue 29,
point 10): the routes are read from ``app.routes``, so a route added later is covered."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from starlette.routing import Route

from audit.review import ReviewTrail
from audit.store import open_store
from audit.web.app import ServeConfig, create_app
from tests.accounts import add_accounts
from tests.web.client import Client, Response, running
from tests.web.conftest import DAY

WEB = Path(__file__).resolve().parents[2] / "audit" / "web"

QUERY = ("page", "sort", "day", "from", "to", "table", "dealer", "code", "severity", "review")
QUERY += ("show", "next", "at", "date", "player")
"""Every query parameter the app reads (a test below finds them in its source)."""

FIELDS = ("csrf", "verdict", "note", "next", "name", "password")
FIELDS += ("line", "amount", "reason", "ref", "reverses")  # a manager's adjustment (books)
"""Every form field the app reads."""

NUMBERS = ("1e38", "9" * 40, "-1", "-9" * 20, "0", "NaN", "inf", "1.5", "0x10", "abc", "")
TEXTS = ("..", "%00", "\x00", "x" * 10_000, "1999-01-01", "2026-02-30", "x", "%ff", "é", "<b>")
HOSTILE = NUMBERS + TEXTS
QUICK = ("1e38", "9" * 40, "-1", "NaN", "..", "%00", "x" * 10_000, "1999-01-01", "2026-02-30")
QUICK += ("%ff", "é")
"""The values every run tries (each costs a database read per route and parameter, and a
request per form field); the slow run tries all of :data:`HOSTILE`, paths and queries from
both an anonymous and a signed-in client."""

ALLOWED_5XX = {503}
"""The one 5xx allowed: "audit in progress" while a writer holds the database."""


def _ok(r: Response, what: str) -> None:
    assert r.status < 500 or r.status in ALLOWED_5XX, (what[:200], r.status, r.text[-300:])


@pytest.fixture
def app_and_client(db: Path) -> Iterator[tuple[list[Route], Client, Client]]:
    add_accounts(ReviewTrail.beside(db), "ana", password="long enough password")
    app = create_app(ServeConfig(db=db))
    routes = [r for r in app.routes if isinstance(r, Route)]
    with running(app) as port:
        signed = Client(port)
        assert signed.sign_in("ana").status == 303
        yield routes, Client(port), signed


def _real(db: Path) -> dict[str, str]:
    with open_store(db, read_only=True) as s:
        f = next(f for f in s.all_findings() if f.round is not None and f.id is not None)
    assert f.table is not None and f.shoe is not None and f.id is not None
    return {"table": f.table, "shoe": f.shoe, "round": str(f.round), "id": f.id}


def _rests(real: dict[str, str], values: tuple[str, ...]) -> list[str]:
    """Path rests: hostile alone, and in each place after real ids, so each route's deeper
    code (the shoe of a real table, the round of a real shoe) is reached too."""
    out: list[str] = []
    t, s, i = (quote(real[k], safe="") for k in ("table", "shoe", "id"))
    for h in values:
        q = h if h.startswith("%") else quote(h, safe="")
        out += [q, f"{t}/{q}", f"{t}/{s}/{q}", f"{q}/flagged", f"{DAY}/{q}", f"{i}/{q}"]
    out += ["", "/", "//", "a/b/c/d/e", "..%2f..%2fetc%2fpasswd", "%2e%2e/%2e%2e", f"{t}/{s}/1/2"]
    return out


def _sweep(
    routes: list[Route], clients: tuple[Client, ...], real: dict[str, str], values: tuple[str, ...]
) -> int:
    """Every route with hostile path rests, and each query parameter with each hostile value
    (one at a time: one bad value must not hide another); the number of requests made."""
    calls: list[tuple[Client, str, str]] = []
    for route in routes:
        methods = sorted(route.methods or {"GET"})
        if "{" in route.path:
            head = route.path.split("{", 1)[0]
            calls += [
                (c, m, head + rest)
                for rest in _rests(real, values)
                for m in methods
                for c in clients
            ]
            continue
        method = "GET" if "GET" in methods else methods[0]
        calls += [(c, m, route.path) for m in methods for c in clients]
        calls += [
            (clients[-1], method, f"{route.path}?{urlencode({name: value})}")
            for name in QUERY
            for value in values
        ]
        calls += [
            (clients[0], method, f"{route.path}?{raw}")
            for raw in ("page=1&page=" + "9" * 40, "%zz=%zz", "page", "&&&", "a=" + "%ff" * 100)
        ]

    def call(c: Client, method: str, url: str) -> None:
        _ok(c.request(method, url), f"{method} {url}")

    with ThreadPoolExecutor(4) as pool:  # the server answers several at once, as it would
        list(pool.map(lambda args: call(*args), calls))
    return len(calls)


def test_every_route_answers_hostile_paths_and_queries_without_a_500(
    app_and_client: tuple[list[Route], Client, Client], db: Path
) -> None:
    routes, _anon, signed = app_and_client
    assert _sweep(routes, (signed,), _real(db), QUICK) > 500


@pytest.mark.slow
def test_every_route_answers_every_hostile_value_signed_in_or_not(
    app_and_client: tuple[list[Route], Client, Client], db: Path
) -> None:
    routes, anon, signed = app_and_client
    assert _sweep(routes, (anon, signed), _real(db), HOSTILE) > 2000


def _post_sweep(
    routes: list[Route], clients: tuple[Client, ...], real: dict[str, str], values: tuple[str, ...]
) -> int:
    """Every POST route with forms missing each field, or with each field set to each of
    ``values`` (one at a time) and to 60,000 characters; the number of requests made."""
    posts = [r for r in routes if "POST" in (r.methods or set())]
    assert {r.path for r in posts} >= {"/login", "/logout", "/findings/{rest:path}"}
    made = 0
    for route in posts:
        path = route.path.replace("{rest:path}", f"{quote(real['id'], safe='')}/review")
        for client in clients:
            token = client.csrf("/login")
            good = {"csrf": token, "verdict": "confirm", "note": "seen", "next": "/findings"}
            good |= {"name": "ana", "password": "wrong password"}
            good |= {"line": "closer", "amount": "25", "reason": "recount", "ref": "S-1"}
            bodies: list[bytes] = [
                b"",
                b"\xff\xfe\x00",
                b"csrf=" + b"x" * 70_000,  # over the form's cap
                urlencode({k: v for k, v in good.items() if k != "csrf"}).encode(),
                urlencode(good | {"csrf": "0" * 32}).encode(),
            ]
            for field in FIELDS:
                for value in (*values, "y" * 60_000):
                    bodies.append(urlencode(good | {field: value}).encode())
                bodies.append(urlencode({k: v for k, v in good.items() if k != field}).encode())
            for body in bodies:
                r = client.request(
                    "POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"}
                )
                _ok(r, f"POST {path} {body[:80]!r}")
            r = client.request("POST", path, b'{"a": 1}', {"Content-Type": "application/json"})
            _ok(r, f"POST {path} json")
            made += len(bodies) + 1
    return made


def test_every_post_answers_hostile_forms_without_a_500(
    app_and_client: tuple[list[Route], Client, Client], db: Path
) -> None:
    """Every field with :data:`QUICK`'s values, from both clients (issue 33: the default
    suite's share; the slow test below sends every value of :data:`HOSTILE`)."""
    routes, anon, signed = app_and_client
    assert _post_sweep(routes, (anon, signed), _real(db), QUICK) > 500


@pytest.mark.slow
def test_every_post_answers_every_hostile_form_without_a_500(
    app_and_client: tuple[list[Route], Client, Client], db: Path
) -> None:
    routes, anon, signed = app_and_client
    assert _post_sweep(routes, (anon, signed), _real(db), HOSTILE) > 1000


def test_a_hostile_cookie_is_a_new_anonymous_session(
    app_and_client: tuple[list[Route], Client, Client],
) -> None:
    _, anon, _ = app_and_client
    for cookie in ("%%%", "a.b", "." * 5000, "eyJuIjpbXX0.x", "W10." + "0" * 64, "\x00"):
        c = Client(anon.port, cookies={"shoe_audit_session": cookie})
        _ok(c.get("/findings"), cookie)


def test_the_lists_of_parameters_and_fields_cover_what_the_app_reads() -> None:
    """A parameter or field the app starts reading must join QUERY or FIELDS above."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in WEB.glob("*.py"))
    read = set(re.findall(r'\b(?:one|get|form\.get)\("([a-z_]+)"', source))
    headers_and_cookies = {"host", "raw_path", "u", "r"}  # the cookie's own JSON keys too
    assert read - headers_and_cookies <= set(QUERY) | set(FIELDS), read - set(QUERY) - set(FIELDS)
