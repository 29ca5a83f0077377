"""``stats`` and ``report`` on a real database with books: a simulated night ingested and
run, and periods stored beside its rounds with :func:`audit.store.periods.store_periods`
(``run`` does not reconcile yet): T01's books hold half its handle less than its hands,
T02's agree,
and T03 kept 60 days of books whose last 30 paid out 5 points less than its lifetime."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal as D
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.books.house import load_house
from audit.books.model import Figures, Period
from audit.cli import app
from audit.simulate import simulate
from audit.store import open_store
from audit.store.periods import store_periods
from tests.reports.htmlcheck import Page
from tests.stats.nights import audited_db

DAY = dt.date(2026, 11, 28)
LAST = DAY + dt.timedelta(days=2)
"""Thirty shoes a table run past two mornings' day start: the night spans three days."""
SPAN = ("--from", str(DAY), "--to", str(LAST))


def _period(table: str, day: dt.date, *, win: D, drop: D, result: D, handle: D) -> Period:
    figures = Figures(sessions=1, rounds=1, handle=handle, hands_result=result,
                      drop_cash=drop, buy_ins_cash=drop, win=win, tray_win=result)  # fmt: skip
    return Period(table, day, "day", None, "reconciled", figures, currency="EUR")


@pytest.fixture(scope="module")
def books_night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("books-stats")
    simulate(root / "logs", tables=2, shoes=30, profiles=["it-casino-6d"], seed=7)
    db = audited_db(root / "logs", root / "audit.duckdb")
    with open_store(db) as store:
        sums = store.con.execute(
            "SELECT table_id, gaming_day, -sum(settled), sum(handle) FROM rounds "
            "GROUP BY ALL ORDER BY 1"
        ).fetchall()
        assert {d for _, d, _, _ in sums} == {DAY, DAY + dt.timedelta(days=1), LAST}
        periods = [
            _period(t, d, win=r - (h / 2 if t == "T01" else 0), drop=h / 4, result=r, handle=h)
            for t, d, r, h in sums
        ]
        for back in range(60):  # T03: a table whose books only the payout test reads
            hold = D("0.25") if back < 30 else D("0.15")
            periods.append(_period("T03", LAST - dt.timedelta(days=back), win=1000 * hold,
                                   drop=D(1000), result=1000 * hold, handle=D(5000)))  # fmt: skip
        with store.transaction():
            store_periods(
                store.con,
                periods,
                digests={(p.table, p.gaming_day, p.shift): "d" for p in periods},
                house_sha256=load_house().sha256,
            )
    return db


def _rows(runner: CliRunner, db: Path, *args: str) -> tuple[int, dict[tuple[str, str, str], dict]]:
    result = runner.invoke(app, ["stats", "--db", str(db), "--format", "jsonl", *args])
    rows = {}
    for line in result.output.splitlines():
        r = json.loads(line)
        rows[r["test"], r["scope"], r["subject"]] = r
    return result.exit_code, rows


def test_stats_jsonl_has_the_books_rows(runner: CliRunner, books_night: Path) -> None:
    code, rows = _rows(runner, books_night, *SPAN)
    assert code == 0
    short, even = rows["hold_drop", "table", "T01"], rows["hold_drop", "table", "T02"]
    assert short["flag"] is True and short["observed"] < short["expected"]
    assert "handle over drop 4.00" in short["message"]
    assert rows["house_result", "table", "T01"]["flag"] is False  # the game is fine
    assert even["flag"] is False
    assert even["statistic"] == pytest.approx(rows["house_result", "table", "T02"]["statistic"])
    assert ("hold_drop", "day", str(DAY)) in rows and ("hold_drop", "day", str(LAST)) in rows
    ohio = rows["payout_30d", "table", "T03"]
    assert ohio["flag"] is True and ohio["p_value"] is None and ohio["adjusted_p"] is None
    assert (ohio["observed"], ohio["expected"], ohio["statistic"]) == (75.0, 80.0, -5.0)
    # T01 and T02 kept books for one day only: their payout is not judged yet
    assert rows["payout_30d", "table", "T01"]["flag"] is False
    assert "not judged: only 0 counted days" in rows["payout_30d", "table", "T01"]["message"]


def test_fail_on_flag_counts_the_payout_test_outside_the_correction(
    runner: CliRunner, books_night: Path
) -> None:
    code, rows = _rows(runner, books_night, *SPAN, "--alpha", "1e-300", "--fail-on-flag")
    assert code == 3
    assert [k for k, r in rows.items() if r["flag"]] == [("payout_30d", "table", "T03")]
    table = runner.invoke(app, ["stats", "--db", str(books_night), *SPAN, "--format", "table"])
    assert table.exit_code == 0
    assert "FLAG payout_30d: Table T03: a payout of 75.00%" in table.output


def test_books_reconciled_under_another_house_file_are_not_judged(
    runner: CliRunner, books_night: Path, tmp_path: Path
) -> None:
    # accounting.md: a period whose house file changed since run judged it is not_audited,
    # so neither books test has a reconciled day to read until run reconciles it again
    house = tmp_path / "house.toml"
    house.write_text(
        'payout_points = { value = "6", source = "ours", house_default = true }\n', encoding="utf-8"
    )
    code, rows = _rows(runner, books_night, *SPAN, "--house", str(house), "--fail-on-flag")
    assert code == 0
    assert not any(k[0] == "hold_drop" for k in rows)
    ohio = rows["payout_30d", "table", "T03"]
    assert ohio["flag"] is False and "not judged: no drop counted" in ohio["message"]


def test_the_report_shows_the_books_tests(
    runner: CliRunner, books_night: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    args = ["report", "--db", str(books_night), *SPAN, "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    page = Page((out / "index.html").read_text(encoding="utf-8"))
    assert not page.unbalanced and "script" not in {t for t, _ in page.tags}
    books = {r[0]: r for r in page.body_rows("statistics-holds-by-books")}
    assert set(books) == {"T01", "T02"}
    assert books["T01"][-1] == "FLAG" and books["T02"][-1] == "–"
    assert "chart-holds-by-books" in {a.get("id") for _, a in page.tags}
    ohio = {r[0]: r for r in page.body_rows("statistics-payout")}
    assert ohio["T03"][1:6] == [str(LAST), "30", "75.00%", "80.00%", "-5.00"]
    assert ohio["T03"][-1] == "FLAG"
    flags = [f for f in page.text if "payout_30d" in f]
    assert flags, "the payout flag is among the section's flags"
    text = " ".join(page.text)
    assert "a regulator's fixed threshold, outside the correction" in text
    md = tmp_path / "md"
    result = runner.invoke(app, [*args[:-1], str(md), "--format", "md"])
    assert result.exit_code == 0, result.output
    report = (md / "report.md").read_text(encoding="utf-8")
    assert "| T03 | 2026-11-30 | 30 | 75.00% | 80.00% | -5.00 | FLAG |" in report


def test_the_report_gives_ohio_rows_at_each_months_end(
    runner: CliRunner, books_night: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    args = ["report", "--db", str(books_night), "--from", "2026-10-01", "--to", str(LAST)]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    page = Page((out / "index.html").read_text(encoding="utf-8"))
    ohio = [(r[0], r[1]) for r in page.body_rows("statistics-payout")]
    assert ohio.index(("T03", str(LAST))) < ohio.index(("T03", "2026-10-31"))
    assert [r for r in ohio if r[0] == "T03"] == [("T03", str(LAST)), ("T03", "2026-10-31")]
