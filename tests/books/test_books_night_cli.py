"""A casino accountant's night with books through the real CLI (accounting.md "Command
line", "When a period is judged", "Adjustments"): ``simulate --books`` over three gaming
days at a house of three shifts whose cage exports before the count, ``ingest`` of two
days, ``run``, then the third day; what ``books``, ``status``, ``findings``, ``nightly``
and ``export`` say of it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from audit.cli import app

DAYS = ("2026-11-28", "2026-11-29", "2026-11-30")
HOUSE = """\
day_start = { value = "06:00", source = "cli.md" }
shifts = { value = [{ name = "day" }, { name = "swing", start = "14:00" }, \
{ name = "grave", start = "22:00" }], source = "the casino's three shifts" }
pits = { value = { P1 = ["T01", "T02"] }, source = "the floor plan" }
cage_day_close = { value = "count", source = "the cage exports each day before the count" }
"""


def cli(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(app, list(args), input=input)


def jsonl(result: Result) -> list[dict[str, Any]]:
    assert result.exit_code == 0, result.output
    return [json.loads(x) for x in result.stdout.splitlines() if x.strip()]


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The simulated night (``injected.ndjson`` beside its day folders) and its house."""
    root = tmp_path_factory.mktemp("books-night")
    house = root / "house.toml"
    house.write_text(HOUSE)
    out = root / "night"
    made = cli(
        "simulate", "--books", "--days", "3", "--tables", "3", "--shoes", "2", "--seed", "7",
        "--books-error-rate", "0.5", "--house", str(house), "--out", str(out),
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    return out, house


@pytest.fixture(scope="module")
def two_days(night: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of the night's first two days, ingested and run (copy it to change it)."""
    out, house = night
    db = tmp_path_factory.mktemp("two-days") / "audit.duckdb"
    ing = cli("ingest", "--db", str(db), str(out / DAYS[0]), str(out / DAYS[1]))
    assert ing.exit_code == 0, ing.output
    ran = cli("run", "--db", str(db), "--house", str(house))
    assert ran.exit_code == 0, ran.output
    return db


def copy_db(db: Path, to: Path) -> Path:
    """A copy of ``db`` with what lies beside it (the ledger, the review trail)."""
    to.mkdir(parents=True, exist_ok=True)
    for p in db.parent.iterdir():
        if p.is_file():
            shutil.copy(p, to / p.name)
    return to / db.name


def period_status(db: Path, house: Path, *days: str) -> dict[tuple[str, str, str], str]:
    rows = jsonl(
        cli("books", "--db", str(db), "--house", str(house), "--format", "jsonl",
            "--level", "shift", "--from", days[0], "--to", days[-1])
    )  # fmt: skip
    return {(r["gaming_day"], r["table"], r["shift"]): r["status"] for r in rows}


def test_period_not_audited_once_a_later_file_is_ingested_until_run(
    night: tuple[Path, Path], two_days: Path, tmp_path: Path
) -> None:
    """accounting.md: a period is ``not_audited`` when its events, counts or cage copies
    changed since ``run`` judged it. The third day's files (the next openers, the cage's
    and the count room's records) reach the second day's periods."""
    out, house = night
    db = copy_db(two_days, tmp_path)
    before = period_status(db, house, DAYS[0], DAYS[1])
    assert before and "not_audited" not in before.values()
    assert cli("ingest", "--db", str(db), str(out / DAYS[2])).exit_code == 0
    after = period_status(db, house, DAYS[0], DAYS[1])
    second = {k: v for k, v in after.items() if k[0] == DAYS[1]}
    assert second and set(second.values()) == {"not_audited"}, after
    # the report reads the same periods
    rep = cli("report", "--db", str(db), "--house", str(house), "--date", DAYS[1],
              "--out", str(tmp_path / "rep"))  # fmt: skip
    assert rep.exit_code == 0, rep.output
    assert "not_audited" in (tmp_path / "rep" / "index.html").read_text()
    assert cli("run", "--db", str(db), "--house", str(house)).exit_code == 0
    again = period_status(db, house, *DAYS)
    assert "not_audited" not in again.values(), again
    assert any(k[0] == DAYS[2] for k in again)
    # ingesting the same files again adds nothing, and changes no status
    assert cli("ingest", "--db", str(db), str(out / DAYS[2])).exit_code == 0
    assert period_status(db, house, *DAYS) == again


def test_log_adjustments_are_applied_by_books_as_by_run(tmp_path: Path) -> None:
    """accounting.md "Adjustments": adjustments come from the casino's accounting system
    as ``adjustment`` events, or from the trail; ``books`` shows the books as adjusted and
    the log, and a period ``run`` reconciled with its adjustment reads ``reconciled``."""
    house = tmp_path / "house.toml"
    house.write_text(HOUSE)
    out = tmp_path / "night"
    made = cli(
        "simulate", "--books", "--days", "2", "--tables", "2", "--shoes", "2", "--seed", "3",
        "--books-error-rate", "1", "--books-error", "ACCT_ADJUSTMENT_REPORTABLE",
        "--house", str(house), "--out", str(out),
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    db = tmp_path / "audit.duckdb"
    assert cli("ingest", "--db", str(db), str(out)).exit_code == 0
    assert cli("run", "--db", str(db), "--house", str(house)).exit_code == 0
    injected = [json.loads(x) for x in (out / "injected.ndjson").read_text().splitlines()]
    assert injected
    base = ("books", "--db", str(db), "--house", str(house), "--format", "jsonl",
            "--from", DAYS[0], "--to", DAYS[1])  # fmt: skip
    rows = [r for r in jsonl(cli(*base, "--level", "shift"))]
    assert rows and {r["status"] for r in rows} == {"reconciled"}, rows
    adjusted = [r for r in rows if r["adjustments"] != "0"]
    assert len(adjusted) == len(injected)
    for r in adjusted:
        assert r["drop_adjusted"] != r["drop"]
    log = jsonl(cli(*base, "--adjustments"))
    assert len(log) == len(injected)
    assert {r["source"] for r in log} == {"log"} and all(r["reportable"] for r in log)


def test_status_counts_periods_by_status(
    night: tuple[Path, Path], two_days: Path, tmp_path: Path
) -> None:
    """accounting.md "Command line": ``status`` adds periods by status (``--json``: a
    ``books`` key), not_audited included once a later file is ingested."""
    out, house = night
    db = copy_db(two_days, tmp_path)
    shown = jsonl(cli("books", "--db", str(db), "--house", str(house), "--format", "jsonl",
                      "--level", "shift", "--from", DAYS[0], "--to", DAYS[1]))  # fmt: skip
    want = {s: sum(r["status"] == s for r in shown) for s in
            ("reconciled", "pending", "incomplete", "not_audited")}  # fmt: skip
    got = json.loads(cli("status", "--db", str(db), "--house", str(house), "--json").stdout)
    assert got["books"] == want and sum(want.values()) == len(shown) > 0
    text = cli("status", "--db", str(db), "--house", str(house))
    assert text.exit_code == 0
    (line,) = [x for x in text.stdout.splitlines() if x.startswith("books ")]
    assert f"{len(shown)} periods: {want['reconciled']} reconciled" in line
    assert cli("ingest", "--db", str(db), str(out / DAYS[2])).exit_code == 0
    later = json.loads(cli("status", "--db", str(db), "--house", str(house), "--json").stdout)
    assert later["books"]["not_audited"] >= sum(r["gaming_day"] == DAYS[1] for r in shown) > 0


def test_nightly_of_the_count_room_file_alone_judges_its_gaming_day(
    night: tuple[Path, Path], two_days: Path, tmp_path: Path
) -> None:
    """cli.md (v1.2): for ``nightly``, a ``drop_count``'s gaming day is its ``gaming_day``
    (the count room counts the 28th's boxes on the morning of the 29th), and ``--fail-on``
    counts the ``ACCT_`` findings of those days raised so far."""
    out, house = night
    db = copy_db(two_days, tmp_path / "db")
    count_file = out / DAYS[0] / "COUNT.jsonl"
    got = cli("nightly", str(count_file), "--db", str(db), "--house", str(house),
              "--out", str(tmp_path / "rep"), "--fail-on", "critical", "--json")  # fmt: skip
    summary = json.loads(got.stdout)
    assert summary["gaming_days"] == [DAYS[0]]
    listed = jsonl(cli("findings", "--db", str(db), "--date", DAYS[0], "--format", "jsonl"))
    critical = [f for f in listed if f["severity"] == "critical"]
    assert critical and all(f["code"].startswith("ACCT_") for f in critical), listed
    assert {f["gaming_day"] for f in listed} == {DAYS[0]}
    assert summary["failing_findings"] == len(critical)
    assert got.exit_code == 3
    # the cage's file alone: its copies' period's day, the day of their ts
    cage = cli("nightly", str(out / DAYS[1] / "CAGE.jsonl"), "--db", str(db), "--house",
               str(house), "--out", str(tmp_path / "rep2"), "--json")  # fmt: skip
    assert cage.exit_code == 0, cage.output
    assert json.loads(cage.stdout)["gaming_days"] == [DAYS[1]]


def test_acct_finding_reviewed_by_id_shows_on_its_period_page(
    night: tuple[Path, Path], two_days: Path, tmp_path: Path
) -> None:
    """accounting.md "In the compliance report": a flagged period's page shows its findings
    and reviews; an ``ACCT_`` finding is reviewed by its stable id (a prefix), like any."""
    from html.parser import HTMLParser

    from audit.review import ReviewTrail
    from tests.accounts import BOSS, BOSS_PASSWORD, add_accounts

    _, house = night
    db = copy_db(two_days, tmp_path / "db")
    add_accounts(ReviewTrail.beside(db), password=BOSS_PASSWORD)  # the manager alone
    listed = jsonl(cli("findings", "--db", str(db), "--format", "jsonl"))
    acct = next(f for f in listed if f["code"].startswith("ACCT_"))
    done = cli(
        "review", acct["id"][:10], "--confirm", "--note", "tray short, see video",
        "--by", BOSS, "--password-stdin", "--db", str(db), input=BOSS_PASSWORD + "\n",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    again = {f["id"]: f for f in jsonl(cli("findings", "--db", str(db), "--format", "jsonl"))}
    assert again[acct["id"]]["review"]["status"] == "confirmed"
    out = tmp_path / "rep"
    rep = cli("report", "--db", str(db), "--house", str(house), "--date", acct["gaming_day"],
              "--out", str(out))  # fmt: skip
    assert rep.exit_code == 0, rep.output
    page = out / "periods" / acct["table"] / f"{acct['gaming_day']}-{acct['shift']}.html"

    class Reviews(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.found: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            cls = dict(attrs).get("class") or ""
            if "review-confirmed" in cls.split():
                self.found.append(tag)

    parser = Reviews()
    parser.feed(page.read_text())
    assert parser.found, "the confirmed review is on the period's page"
