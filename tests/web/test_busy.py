"""``serve`` never gets in the nightly job's way (issue 12, point 3).

The database is held for writing by another process (as ``nightly`` holds it): a page
read before shows its last data marked "audit in progress, data as of HH:MM", a page
never read answers 503, and a review is still recorded (the review file is SQLite). And
the other way round: ``serve`` holds no connection between requests, so a writer opens
the database while the app is up, and ``nightly`` itself runs while ``serve`` answers.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from audit.review import ReviewTrail
from audit.store import open_store
from audit.web.app import ServeConfig, create_app
from tests.accounts import add_accounts
from tests.web.client import PASSWORD, Client, free_port, running
from tests.web.conftest import DAY

HOLD = (
    "import duckdb, sys; c = duckdb.connect(sys.argv[1]); print('held', flush=True); "
    "sys.stdin.read()"
)


@contextmanager
def held_for_writing(db: Path) -> Iterator[None]:
    """Another process holds the database open for writing until the block ends."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.wait(10)
        proc.stdout.close()


def test_while_the_database_is_held_pages_show_their_last_data_marked(db: Path) -> None:
    with open_store(db, read_only=True) as s:
        f = next(f for f in s.all_findings() if f.round is not None)
    add_accounts(ReviewTrail.beside(db), "ana", password=PASSWORD)
    with running(create_app(ServeConfig(db=db, retry_s=0.3))) as port:
        c = Client(port)
        assert c.sign_in("ana").status == 303
        fresh = c.get(f"/findings/{f.id}")
        assert fresh.status == 200 and "audit in progress" not in fresh.text
        token = c.csrf(f"/findings/{f.id}")
        with held_for_writing(db):
            t0 = time.monotonic()
            stale = c.get(f"/findings/{f.id}")
            assert time.monotonic() - t0 < 5
            assert stale.status == 200
            assert 'id="busy-banner"' in stale.text
            assert "audit in progress, data as of " in stale.text
            assert f.message.split(":")[0] in stale.text
            never = c.get(f"/reports/{DAY}")
            assert never.status == 503 and "audit in progress" in never.text
            # a review while nightly holds the database: recorded from the data last shown
            r = c.post(
                f"/findings/{f.id}/review",
                {"csrf": token, "verdict": "needs_video", "note": "ask for the tape"},
            )
            assert r.status == 303
        (d,) = ReviewTrail.beside(db).history(f.id or "")
        assert d.verdict == "needs_video" and d.snapshot.code == str(f.code)
        after = c.get(f"/findings/{f.id}")
        assert "audit in progress" not in after.text and "needs video" in after.text


def test_serve_holds_no_connection_between_requests(db: Path) -> None:
    with running(create_app(ServeConfig(db=db))) as port:
        c = Client(port)
        assert c.get("/findings").status == 200
        assert c.get(f"/reports/{DAY}").status == 200
        # another process can now take the database for writing at once
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                "import duckdb, sys; duckdb.connect(sys.argv[1]).close()",
                str(db),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ},
        )
        assert out.returncode == 0, out.stderr


def _write_logs(folder: Path) -> Path:
    from audit.simulate import simulate

    simulate(
        folder, tables=2, shoes=1, rounds=30, profiles=["it-casino-6d"], seed=5, error_rate=0.2
    )
    return folder


@pytest.mark.slow
def test_nightly_runs_while_serve_is_up_and_answering(tmp_path: Path) -> None:
    """The issue's case: ``shoe-audit serve`` up, a tab polling it, ``shoe-audit nightly`` run."""
    exe = Path(sys.executable).with_name("shoe-audit")
    db = tmp_path / "audit.duckdb"
    first = _write_logs(tmp_path / "night1")
    env = {**os.environ, "SHOE_AUDIT_DB": str(db)}
    subprocess.run(
        [str(exe), "nightly", str(first), "--out", str(tmp_path / "r1")],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    port = free_port()
    serve = subprocess.Popen(
        [str(exe), "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        c = Client(port)
        deadline = time.monotonic() + 30
        while True:
            try:
                assert c.get("/findings").status == 200
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        second = tmp_path / "night2"
        from audit.simulate import simulate

        simulate(
            second, tables=3, shoes=1, rounds=40, profiles=["it-casino-6d"], seed=9, error_rate=0.2
        )
        nightly = subprocess.Popen(
            [str(exe), "nightly", str(second), "--out", str(tmp_path / "r2")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        statuses: list[int] = []
        banners = 0
        while nightly.poll() is None:  # a browser tab reloading all the while
            r = c.get("/findings")
            statuses.append(r.status)
            banners += "audit in progress" in r.text
            time.sleep(0.05)
        _out, err = nightly.communicate()
        assert nightly.returncode == 0, err
        assert statuses and set(statuses) <= {200, 503}
        assert c.get("/findings").status == 200
        assert "audit in progress" not in c.get("/findings").text
        assert "T03" in c.get("/findings?table=T03").text  # the new night's data is served
    finally:
        serve.terminate()
        serve.wait(10)
