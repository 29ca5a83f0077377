"""The web sign-in under attack (issue 29, point 10): failed attempts back off per account and
per client address, and signing out revokes the session."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.review import ReviewTrail
from audit.store import open_store
from audit.web import throttle
from audit.web.app import ServeConfig, create_app
from audit.web.throttle import Attempt, SignInThrottle
from tests.accounts import add_accounts
from tests.web.client import PASSWORD, Client, Response, running

WRONG = "not the password"


@pytest.fixture
def port(db: Path) -> Iterator[int]:
    add_accounts(ReviewTrail.beside(db), "ana", "bob", password=PASSWORD)
    with running(create_app(ServeConfig(db=db))) as p:
        yield p


def _post(c: Client, name: str, password: str, headers: dict[str, str] | None = None) -> Response:
    token = c.csrf("/login")
    form = f"csrf={token}&name={name}&password={password.replace(' ', '+')}".encode()
    hdrs = {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
    return c.request("POST", "/login", form, hdrs)


def _try(c: Client, name: str, password: str) -> int:
    return _post(c, name, password).status


def test_300_wrong_passwords_then_the_right_one_are_refused_with_the_wait(port: int) -> None:
    """The issue's reproduction: 300 wrong passwords in 8 s, then the right one, were all
    answered. Now 5 are checked; the rest, the right one included, wait (429)."""
    c = Client(port)
    got = [
        _post(c, "ana", WRONG, {"X-Forwarded-For": f"10.0.{i // 250}.{i % 250}"})  # ignored
        for i in range(300)
    ]
    assert [r.status for r in got[:5]] == [401] * 5 and {r.status for r in got[5:]} == {429}
    assert all(int(r.headers["retry-after"]) >= 1 for r in got[5:])
    # between two waits one guess is checked; in a wait, the right password is refused too
    while int(_post(c, "ana", WRONG).headers["retry-after"]) < 2:
        pass
    r = _post(c, "ana", PASSWORD, {"X-Forwarded-For": "127.0.0.9"})
    assert r.status == 429 and "signed in as" not in r.text
    wait = int(r.headers["retry-after"])
    assert 1 <= wait <= throttle.ADDRESS_CAP_S
    message = re.search(r'id="error-message"[^>]*>([^<]*)<', r.text)
    assert message is not None and "try again in" in message.group(1)
    assert "X-Forwarded-For" not in r.text


def test_fresh_loopback_addresses_give_a_guesser_no_fresh_guesses(port: int) -> None:
    # Any local user can connect from any of 127.0.0.0/8's 16 million addresses, and an
    # address that never failed had its password checked while the account waited: the
    # answer (429 wrong, 303 right) was one free guess per fresh address. Loopback is one
    # client, as an IPv6 /64 is (tested below, on the throttle itself).
    guesser = Client(port, source="127.0.0.2")
    for _ in range(throttle.FREE_FAILURES + 1):
        _try(guesser, "ana", WRONG)
    assert _try(guesser, "ana", PASSWORD) == 429  # the guesser's address waits
    assert _try(guesser, "bob", PASSWORD) == 429  # whichever account it tries
    for i in range(3, 9):
        fresh = Client(port, source=f"127.0.{i}.{i}")
        assert _try(fresh, "ana", PASSWORD) == 429  # the right password: refused unchecked
    assert "signed in as" not in fresh.get("/findings").text


def test_addresses_are_counted_by_the_network_one_client_holds() -> None:
    assert throttle.client_key("127.0.0.1") == throttle.client_key("127.45.6.7")
    assert throttle.client_key("::1") == throttle.client_key("127.0.0.1")
    assert throttle.client_key("::ffff:10.0.0.7") == throttle.client_key("10.0.0.7")
    assert throttle.client_key("2001:db8:1:2::5") == throttle.client_key("2001:db8:1:2:ffff::9")
    assert throttle.client_key("2001:db8:1:2::5") != throttle.client_key("2001:db8:1:3::5")
    assert throttle.client_key("10.0.0.7") != throttle.client_key("10.0.0.8")
    assert throttle.client_key("not an address") == "not an address"
    t = SignInThrottle(Clock())
    for i in range(throttle.FREE_FAILURES + 1):
        assert isinstance(t.begin("ana", f"2001:db8::{i + 1}"), Attempt)
    assert isinstance(t.begin("ana", "2001:db8::ff"), int)  # the same /64 waits


def test_logout_revokes_the_session_even_after_a_restart(port: int, db: Path) -> None:
    ana = Client(port)
    assert ana.sign_in("ana").status == 303
    with open_store(db, read_only=True) as s:
        f = next(f for f in s.all_findings() if f.id is not None)
    old_cookie = dict(ana.cookies)
    token = ana.csrf(f"/findings/{f.id}")
    assert ana.post("/logout", {"csrf": token}).status == 303
    replay = Client(port, cookies=dict(old_cookie))  # the cookie and the form's token
    r = replay.post(f"/findings/{f.id}/review", {"csrf": token, "verdict": "dismiss", "note": "x"})
    assert r.status == 403  # the session is gone, and its token with it
    assert "signed in as" not in Client(port, cookies=dict(old_cookie)).get("/findings").text
    assert not ReviewTrail.beside(db).decisions()
    with running(create_app(ServeConfig(db=db))) as again:  # a restarted serve
        r = Client(again, cookies=dict(old_cookie)).post(
            f"/findings/{f.id}/review", {"csrf": token, "verdict": "dismiss", "note": "x"}
        )
        assert r.status == 403
    assert not ReviewTrail.beside(db).decisions()
    fresh = Client(port)  # signing in again works, and reviews
    assert fresh.sign_in("ana").status == 303
    r = fresh.post(
        f"/findings/{f.id}/review",
        {"csrf": fresh.csrf(f"/findings/{f.id}"), "verdict": "confirm", "note": "seen"},
    )
    assert r.status == 303 and len(ReviewTrail.beside(db).decisions()) == 1


# --------------------------------------------------------------------------- the counters


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_each_failure_past_five_doubles_the_wait_up_to_the_caps() -> None:
    clock = Clock()
    t = SignInThrottle(clock)
    for _ in range(throttle.FREE_FAILURES):
        assert isinstance(t.begin("ana", "10.0.0.1"), Attempt)
    waits: list[int] = []
    for _ in range(16):
        assert isinstance(t.begin("ana", "10.0.0.1"), Attempt)  # the wait ran out: one guess
        got = t.begin("ana", "10.0.0.1")  # and the next waits twice as long
        assert isinstance(got, int)
        waits.append(got)
        clock.now += got
    assert waits[:6] == [1, 2, 4, 8, 16, 32]
    assert waits[-1] == max(waits) == throttle.ADDRESS_CAP_S  # the address: 15 min at most
    fresh = t.begin("ana", "10.0.0.99")  # an address that never failed is still checked
    assert isinstance(fresh, Attempt)
    assert t.failed_during_wait(fresh) == throttle.ACCOUNT_CAP_S  # the account: 60 s at most
    assert t.begin("ana", "10.0.0.99") == throttle.ACCOUNT_CAP_S  # it failed: it waits now


def test_counters_are_forgotten_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    t = SignInThrottle(clock)
    for _ in range(throttle.FREE_FAILURES + 3):
        t.begin("ana", "10.0.0.1")
    assert isinstance(t.begin("ana", "10.0.0.1"), int)
    clock.now += throttle.FORGET_S + 1
    assert isinstance(t.begin("ana", "10.0.0.1"), Attempt)  # forgotten: starts again
    monkeypatch.setattr(throttle, "MAX_ENTRIES", 50)
    for i in range(500):
        t.begin(f"user{i}", f"10.1.{i // 200}.{i % 200}")
    assert len(t) <= 50


def test_a_success_clears_the_account_but_not_the_addresses_earlier_failures() -> None:
    t = SignInThrottle(Clock())
    for _ in range(throttle.FREE_FAILURES):
        t.begin("victim", "10.0.0.1")
    ok = t.begin("me", "10.0.0.1")  # the guesser signs in as herself
    assert isinstance(ok, Attempt)
    t.succeeded(ok)
    assert isinstance(t.begin("victim", "10.0.0.1"), Attempt)  # the 6th failure: counted
    assert isinstance(t.begin("victim", "10.0.0.1"), int)  # and now it waits
