"""One shoe costs only itself (issue 28, point 2; cli.md ``run``, exit 6).

A shoe whose replay raises is named with its error, counted as not audited,
keeps its earlier audit's results, and is tried again by the next ``run``; a
worker that dies costs its batch only until the batch is replayed shoe by shoe to
name the culprit. The faults come from ``SHOE_AUDIT_FAULT`` (audit/batch/faults.py),
a hook in the batch runner, outside the engine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audit.batch import run_audit
from audit.batch.faults import FAULT_ENV
from audit.cli import app
from audit.profiles import load_registry
from audit.store import ShoeKey, Store, open_store

Ingested = Callable[[int], Store]
REPO = Path(__file__).resolve().parents[2]


def findings_by_shoe(store: Store) -> Counter[ShoeKey]:
    return Counter(ShoeKey(str(f.table), str(f.shoe)) for f in store.all_findings())


def two_shoes(store: Store) -> tuple[ShoeKey, ShoeKey]:
    """A shoe with findings and another shoe, of different tables."""
    found = findings_by_shoe(store)
    first = sorted(found)[0]
    other = next(k for k in sorted(store.shoe_info()) if k.table != first.table)
    return first, other


def fault(*items: tuple[str, ShoeKey]) -> str:
    return ",".join(f"{action}:{k.table}/{k.shoe}" for action, k in items)


def test_a_shoe_whose_replay_raises_costs_only_itself(
    ingested: Ingested, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = load_registry()
    with ingested(1) as store:
        run_audit(store, registry, workers=1)
        before = findings_by_shoe(store)
        bad, _ = two_shoes(store)
        monkeypatch.setenv(FAULT_ENV, fault(("raise", bad)))
        summary = run_audit(store, registry, workers=1, all_shoes=True)
        assert [(f.key, f.error) for f in summary.failed] == [
            (bad, "RuntimeError: a fault injected by SHOE_AUDIT_FAULT (raise)")
        ]
        assert summary.shoes == len(store.shoe_info()) - 1  # every other shoe audited
        # the failed shoe keeps its earlier results; the others were re-audited alike
        assert findings_by_shoe(store) == before
        assert store.shoes_to_audit(
            "x", {}, all=False, table=bad.table
        )  # it is listed for the next run
        monkeypatch.delenv(FAULT_ENV)
        again = run_audit(store, registry, workers=1)
        assert again.shoes == 1 and not again.failed  # tried again, and only it
        assert findings_by_shoe(store) == before
        assert store.con.execute("SELECT count(*) FROM shoe_failures").fetchall() == [(0,)]


def test_a_failed_shoe_without_an_earlier_audit_is_not_audited(
    ingested: Ingested, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = load_registry()
    with ingested(1) as store:
        bad = sorted(store.shoe_info())[0]
        monkeypatch.setenv(FAULT_ENV, fault(("raise", bad)))
        summary = run_audit(store, registry, workers=1)
        assert [f.key for f in summary.failed] == [bad]
        audited = {ShoeKey(t, s) for t, s in store.con.execute(
            "SELECT table_id, shoe FROM shoe_audits").fetchall()}  # fmt: skip
        assert bad not in audited and len(audited) == len(store.shoe_info()) - 1


def test_run_names_the_failed_shoe_on_stderr_lists_it_in_json_and_exits_6(
    ingested: Ingested, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    with ingested(1) as store:
        db = store.path
        bad = sorted(store.shoe_info())[1]
    monkeypatch.setenv(FAULT_ENV, fault(("raise", bad)))
    result = runner.invoke(app, ["run", "--db", db, "--json", "--workers", "1"])
    assert result.exit_code == 6, result.output
    error = "RuntimeError: a fault injected by SHOE_AUDIT_FAULT (raise)"
    assert json.loads(result.stdout)["failed"] == [
        {"table": bad.table, "shoe": bad.shoe, "error": error}
    ]
    assert f"Error: shoe {bad.table}/{bad.shoe} could not be audited: {error}\n" in result.stderr
    status = json.loads(runner.invoke(app, ["status", "--db", db, "--json"]).stdout)
    assert status["shoes"]["failed"] == 1 and status["shoes"]["not_audited"] == 1
    [entry] = status["failed"]
    assert (entry["table"], entry["shoe"], entry["error"]) == (bad.table, bad.shoe, error)
    assert entry["kept_audit"] is None
    text = runner.invoke(app, ["status", "--db", db]).stdout
    assert f"  failed     {bad.table}/{bad.shoe}: {error}\n" in text
    monkeypatch.delenv(FAULT_ENV)
    again = runner.invoke(app, ["run", "--db", db, "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["failed"] == []
    assert json.loads(again.stdout)["shoes"] == 1


def test_the_reports_first_screen_says_in_red_which_shoes_could_not_be_audited(
    ingested: Ingested, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.reports.htmlcheck import Page

    runner = CliRunner()
    with ingested(1) as store:
        db = store.path
        bad = sorted(store.shoe_info())[2]
    monkeypatch.setenv(FAULT_ENV, fault(("raise", bad)))
    assert runner.invoke(app, ["run", "--db", db, "--workers", "1"]).exit_code == 6
    out = tmp_path / "report"
    assert runner.invoke(app, ["report", "--db", db, "--out", str(out)]).exit_code == 0
    html = (out / "index.html").read_text()
    page = Page(html)
    ids = [a.get("id") for _, a in page.tags]
    # on the first screen: before the flagged rounds, in a red banner
    assert ids.index("failed-shoes") < ids.index("first")
    assert page.count("div", id="failed-shoes", **{"class": "bad"}) == 1
    start = html.index(">", html.index('id="failed-shoes"')) + 1
    banner = " ".join("".join(Page(html[start : html.index("</div>", start)]).text).split())
    assert banner.startswith("1 shoe could not be audited: its replay failed")
    assert f"{bad.table} / {bad.shoe}" in banner
    assert "RuntimeError: a fault injected by SHOE_AUDIT_FAULT (raise)" in banner


@pytest.mark.slow  # starts worker processes, twice after a kill
def test_a_worker_killed_by_a_shoe_costs_only_that_shoe(
    ingested: Ingested, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = load_registry()
    with ingested(2) as store:
        run_audit(store, registry, workers=1)
        before = findings_by_shoe(store)
        killer, raiser = two_shoes(store)
        monkeypatch.setenv(FAULT_ENV, fault(("kill", killer), ("raise", raiser)))
        summary = run_audit(store, registry, workers=2, all_shoes=True, batch_events=600)
        failed = {f.key: f.error for f in summary.failed}
        assert set(failed) == {killer, raiser}
        assert failed[killer].startswith("its worker process died while replaying it (")
        assert summary.shoes == len(store.shoe_info()) - 2
        assert findings_by_shoe(store) == before  # the others re-audited, the two kept
        monkeypatch.delenv(FAULT_ENV)
        again = run_audit(store, registry, workers=2)
        assert again.shoes == 2 and not again.failed
        assert findings_by_shoe(store) == before


@pytest.mark.slow  # a Dask LocalCluster of two worker processes
def test_on_a_dask_cluster_a_shoe_that_raises_or_kills_costs_only_itself(
    ingested: Ingested, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed", reason="Dask is not installed")
    from audit.batch.cluster import open_cluster

    registry = load_registry()
    with ingested(1) as store:
        run_audit(store, registry, workers=1)
        before = findings_by_shoe(store)
        killer, raiser = two_shoes(store)
        # set before the cluster starts: its worker processes inherit it
        monkeypatch.setenv(FAULT_ENV, fault(("kill", killer), ("raise", raiser)))
        with open_cluster("local:2") as executor:
            summary = run_audit(
                store, registry, all_shoes=True, executor=executor, batch_events=600
            )
        failed = {f.key: f.error for f in summary.failed}
        assert set(failed) == {killer, raiser}
        assert "KilledWorker" in failed[killer]
        assert summary.shoes == len(store.shoe_info()) - 2
        assert findings_by_shoe(store) == before


def test_nightly_exits_6_when_a_shoe_could_not_be_replayed_and_3_before_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, repo: Path
) -> None:
    """cli.md ``nightly``: 3 with --fail-on, else 6, else 5."""
    runner = CliRunner()
    night = repo / "sample_logs" / "2026-11-28"
    monkeypatch.setenv(FAULT_ENV, "raise:T01/T01-20261128-01")
    args = ["nightly", str(night), "--db", str(tmp_path / "a.duckdb")]
    plain = runner.invoke(app, [*args, "--out", str(tmp_path / "r1")])
    assert plain.exit_code == 6, plain.output
    assert "Error: shoe T01/T01-20261128-01 could not be audited" in plain.stderr
    failing = runner.invoke(app, [*args, "--out", str(tmp_path / "r2"), "--fail-on", "critical"])
    assert failing.exit_code == 3, failing.output


def test_a_stopped_run_names_the_shoes_it_did_not_re_audit_in_its_one_line() -> None:
    from audit.cli.commands import NOTE_PREFIX, not_done_text
    from audit.cli.common import explain

    keys = [ShoeKey("T01", f"T01-20261128-{i:02}") for i in range(1, 8)]
    stop = KeyboardInterrupt()
    stop.add_note(NOTE_PREFIX + not_done_text(keys, 9))
    stop.add_note("a note of someone else's")
    assert explain(stop) == (
        130,
        "interrupted; the database is left as of the last finished transaction; "
        "7 of 9 shoes were not re-audited and keep their earlier results, if any "
        "(T01/T01-20261128-01, T01/T01-20261128-02, T01/T01-20261128-03, "
        "T01/T01-20261128-04, T01/T01-20261128-05 and 2 more): run again to finish",
    )


class _StopAfter:
    """A progress callback that stops the run (as Ctrl-C would) once ``n`` shoes are written."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __call__(self, done: int, total: int) -> None:
        if done >= self.n:
            raise KeyboardInterrupt


def test_a_re_audit_stopped_part_way_keeps_every_earlier_result_and_names_the_rest(
    ingested: Ingested,
) -> None:
    """Issue 28, point 7: a batch's old results are replaced in the transaction that writes
    its new ones, so `run --all` stopped after its first batch leaves the shoes it had not
    reached as they were, and says which they are."""
    registry = load_registry()
    told: list[tuple[list[ShoeKey], int]] = []
    with ingested(1) as store:
        run_audit(store, registry, workers=1)
        before = findings_by_shoe(store)
        audited = store.con.execute("SELECT count(*) FROM shoe_audits").fetchall()
        with pytest.raises(KeyboardInterrupt):
            run_audit(
                store, registry, workers=1, all_shoes=True, batch_events=300,
                progress=_StopAfter(1), on_stop=lambda keys, n: told.append((list(keys), n)),
            )  # fmt: skip
        assert findings_by_shoe(store) == before
        assert store.con.execute("SELECT count(*) FROM shoe_audits").fetchall() == audited
        [(not_done, selected)] = told
        assert selected == len(store.shoe_info()) and 0 < len(not_done) < selected


def test_a_plain_run_notices_an_event_updated_since_its_audit(ingested: Ingested) -> None:
    """An UPDATE of `amount` that leaves `raw` alone: a plain run re-audits the shoe and
    raises LOG_TAMPERED (today's `run --all` and `report` did; a plain run said "audited
    0 shoes")."""
    registry = load_registry()
    with ingested(1) as store:
        run_audit(store, registry, workers=1)
        assert run_audit(store, registry, workers=1).shoes == 0
        table, shoe, event = store.con.execute(
            """SELECT table_id, shoe, id FROM events WHERE type = 'settle'
               ORDER BY table_id, shoe, seq LIMIT 1"""
        ).fetchall()[0]
        store.con.execute("UPDATE events SET amount = amount + 1 WHERE id = ?", [event])
        summary = run_audit(store, registry, workers=1)
        assert summary.shoes == 1 and summary.by_code.get("LOG_TAMPERED") == 1
        tampered = [f for f in store.all_findings() if str(f.code) == "LOG_TAMPERED"]
        assert [(f.table, f.shoe) for f in tampered] == [(table, shoe)]


@pytest.mark.slow  # starts worker processes that die, then a run that audits the night
def test_workers_that_cannot_run_stop_the_run_in_one_line_and_fail_no_shoe(
    ingested: Ingested, tmp_path: Path
) -> None:
    """A worker that dies as it starts (a broken install, a script without the main guard)
    dies under every shoe: replaying each alone cost a process started in vain a shoe and
    marked the whole night as failed. The run stops at once instead (cli.md: exit 1)."""
    ingested(1).close()
    db = str(tmp_path / "audit.duckdb")
    env = {**os.environ, FAULT_ENV: "die-at-start"}
    run = [sys.executable, "-m", "audit", "run", "--db", db, "--workers", "2"]
    got = subprocess.run(run, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert got.returncode == 1, got.stderr
    assert got.stderr.startswith(
        "Error: the worker processes cannot run: a batch's worker died ("
    ), got.stderr
    assert "and so did a fresh one given no shoe to replay; check the install" in got.stderr
    assert "Traceback" not in got.stderr, got.stderr
    assert "shoes were not re-audited" in got.stderr  # each named as any stopped run's
    with open_store(Path(db)) as store:
        total = len(store.shoe_info())
        assert store.con.execute("SELECT count(*) FROM shoe_failures").fetchall() == [(0,)]
        assert store.con.execute("SELECT count(*) FROM shoe_audits").fetchall() == [(0,)]
    again = subprocess.run(run, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    with open_store(Path(db)) as store:
        assert store.con.execute("SELECT count(*) FROM shoe_audits").fetchall() == [(total,)]


def test_a_lost_batch_is_replayed_shoe_by_shoe_only_when_a_worker_can_run() -> None:
    """Before the first lost batch is replayed, one job that replays nothing runs alone: if
    its worker dies too, the run stops there; if not, the shoes are replayed, and the
    check is not made again for the other batches lost with it."""
    from types import SimpleNamespace

    from audit.batch import runner
    from audit.batch.runner import BatchResult, LostBatch, replay_batches
    from audit.errors import AuditError
    from audit.store.batches import outcome_tables

    class Pool:
        """Every batch lost; the isolating executor's check dies or lives."""

        def __init__(self, check_dies: bool) -> None:
            self.check_dies = check_dies
            self.checks = 0
            self.singles: list[Any] = []

        def isolating(self) -> Pool:
            return self

        def map(self, fn: Any, jobs: Any, registry: Any) -> Any:
            for job in jobs:
                if fn is runner._replays_nothing:
                    self.checks += 1
                    yield LostBatch(job, "died") if self.check_dies else fn(job, registry)
                elif fn is runner.audit_batch and isinstance(job, SimpleNamespace):
                    yield LostBatch(job, "BrokenProcessPool: terminated abruptly")
                else:
                    self.singles.append(job)
                    yield BatchResult([], *outcome_tables([], []), [])

    shoes = (SimpleNamespace(key="a"), SimpleNamespace(key="b"))
    batches = [SimpleNamespace(shoes=shoes), SimpleNamespace(shoes=shoes)]
    broken = Pool(check_dies=True)
    with pytest.raises(AuditError, match=r"worker died \(BrokenProcessPool: terminated abr"):
        list(replay_batches(broken, runner.audit_batch, batches, load_registry()))
    assert broken.checks == 1 and broken.singles == []  # no shoe replayed, none failed
    sound = Pool(check_dies=False)
    out = list(replay_batches(sound, runner.audit_batch, batches, load_registry()))
    assert sound.checks == 1  # once a run, not once a lost batch
    assert len(sound.singles) == 4 and len(out) == 2  # each lost batch's two shoes
