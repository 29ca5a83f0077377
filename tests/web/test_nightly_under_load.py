"""``nightly`` runs while ``serve`` is busy (issue 29, point 8).

A real ``shoe-audit serve`` process with 50 requests in flight all the while (threads
looping over the list, a shoe, a hand, the day's report and its flagged rounds), and a
real ``shoe-audit nightly`` on a second small night: before, the requests' read-only
connections overlapped so that the writer never got the file and ``nightly`` exited 1
("database is locked") after its ingest had committed. Now the writer announces itself
(``<db>.writing``, :mod:`audit.store.intent`), ``serve`` stops opening the database
while it is there and answers from what it has, or 503 "audit in progress" with
``Retry-After``: ``nightly`` exits 0 with its report written, and every request answers
200 or that 503, never a 500 or a dropped connection.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from audit.simulate import simulate
from audit.simulate.session import DEFAULT_START
from audit.store import open_store
from audit.web.app import ServeConfig, create_app
from tests.web.client import Client, free_port, running
from tests.web.conftest import DAY

IN_FLIGHT = 50


def _paths(db: Path) -> list[str]:
    """A list, a shoe, a hand, the day's report and its flagged rounds of the served night."""
    with open_store(db, read_only=True) as store:
        (table, shoe, rnd) = store.con.execute(
            """SELECT table_id, shoe, round FROM rounds WHERE table_id LIKE 'T0%'
               ORDER BY table_id, shoe, round LIMIT 1"""
        ).fetchone()
    t, s = quote(table, safe=""), quote(shoe, safe="")
    return [
        "/findings",
        "/findings?page=2",
        f"/shoes/{t}/{s}",
        f"/hands/{t}/{s}/{rnd}",
        f"/reports/{DAY}",
        f"/reports/{DAY}/flagged",
    ]


def _start_serve(db: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as err:
        serve = subprocess.Popen(
            [sys.executable, "-m", "audit", "serve", "--db", str(db), "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    c = Client(port)
    deadline = time.monotonic() + 30
    while True:
        try:
            assert c.get("/findings").status == 200
            return serve
        except OSError:
            if time.monotonic() > deadline or serve.poll() is not None:
                raise
            time.sleep(0.1)


def _hammer(
    port: int, paths: list[str], stop: threading.Event, seen: Counter[str], lock: threading.Lock
) -> None:
    """One browser tab reloading pages as fast as the server answers, until ``stop``."""
    i = 0
    while not stop.is_set():
        path = paths[i % len(paths)]
        method = "HEAD" if i % 7 == 6 else "GET"
        i += 1
        con = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            con.request(method, path, headers={"Host": f"127.0.0.1:{port}"})
            resp = con.getresponse()
            body = resp.read()
            outcome = str(resp.status)
            if resp.status == 503:
                if resp.getheader("Retry-After") is None:
                    outcome = "503 without Retry-After"
                elif method == "GET" and b"audit in progress" not in body.lower():
                    outcome = "503 without its page"
        except OSError as exc:
            outcome = f"{type(exc).__name__}: {exc}"
        finally:
            con.close()
        with lock:
            seen[outcome] += 1


def test_nightly_exits_0_with_50_requests_in_flight_against_serve(db: Path, tmp_path: Path) -> None:
    night = tmp_path / "night2"
    simulate(
        night, tables=2, shoes=1, rounds=20, profiles=["it-casino-6d"], seed=9,
        error_rate=0.2, start=DEFAULT_START + dt.timedelta(days=1),
    )  # fmt: skip
    paths = _paths(db)
    port = free_port()
    serve = _start_serve(db, port, tmp_path / "serve.log")
    stop = threading.Event()
    seen: Counter[str] = Counter()
    lock = threading.Lock()
    tabs = [
        threading.Thread(target=_hammer, args=(port, paths, stop, seen, lock), daemon=True)
        for _ in range(IN_FLIGHT)
    ]
    try:
        for tab in tabs:
            tab.start()
        time.sleep(0.5)  # every tab has a request in flight before the job starts
        env = {k: v for k, v in os.environ.items() if k != "SHOE_AUDIT_LOCK_WAIT"}
        nightly = subprocess.run(
            [sys.executable, "-m", "audit", "nightly", str(night), "--db", str(db),
             "--out", str(tmp_path / "report")],
            capture_output=True, text=True, timeout=300, env=env,
        )  # fmt: skip
        time.sleep(0.5)  # and the pages come back once it is done
    finally:
        stop.set()
        for tab in tabs:
            tab.join(90)
        serve.terminate()
        serve.wait(10)
    assert nightly.returncode == 0, nightly.stderr
    assert (tmp_path / "report" / "index.html").is_file()
    assert not db.with_name(db.name + ".writing").exists()
    assert set(seen) <= {"200", "503"}, (seen, (tmp_path / "serve.log").read_text()[-3000:])
    assert seen["200"] > IN_FLIGHT, seen
    # every shoe of the new night was audited: nothing left unaudited for a next run
    status = subprocess.run(
        [sys.executable, "-m", "audit", "status", "--db", str(db), "--json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert status.returncode == 0, status.stderr
    got = json.loads(status.stdout)
    assert "2026-11-29" in got["gaming_days"]
    assert got["shoes"]["not_audited"] == 0 and got["shoes"]["out_of_date"] == 0, got


TAKE = """
import sys, time
from audit.store import intent
intent.acquire(sys.argv[1], time.monotonic() + 10)
print("held", flush=True)
sys.stdin.read()
"""


def test_while_a_writer_intends_to_write_serve_opens_nothing_and_says_so(db: Path) -> None:
    """Deterministic, without the load: the announced writer alone keeps ``serve`` out."""
    from audit.store.intent import holder

    paths = _paths(db)
    with running(create_app(ServeConfig(db=db, retry_s=5.0))) as port:
        c = Client(port)
        assert c.get(paths[0]).status == 200
        proc = subprocess.Popen(
            [sys.executable, "-c", TAKE, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
            assert holder(db) is not None
            t0 = time.monotonic()
            kept = c.get(paths[0])  # read before: its last data, marked, at once
            assert kept.status == 200 and 'id="busy-banner"' in kept.text
            assert time.monotonic() - t0 < 2  # no retry: the writer said it is coming
            never = c.get(paths[2])
            assert never.status == 503
            assert never.headers["retry-after"] == "30"
            assert "<h1>Audit in progress</h1>" in never.text
            assert 'http-equiv="refresh" content="30"' in never.text
            assert "Traceback" not in never.text
            writer = re.search(r'<span id="busy-writer">([^<]*)</span>', never.text)
            assert writer is not None and writer.group(1)
            head = c.request("HEAD", paths[4])
            assert head.status == 503 and head.headers["retry-after"] == "30"
            assert head.text == ""
        finally:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.close()
            proc.wait(10)
            proc.stdout.close()
        back = c.get(paths[2])
        assert back.status == 200 and 'id="busy-banner"' not in back.text
