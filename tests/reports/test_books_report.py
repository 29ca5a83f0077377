"""The books in the compliance report (accounting.md "In the compliance report"), on a real
audited night with books stored beside it (:mod:`tests.reports.books_night`), through
``shoe-audit report``: the HTML parsed, never grepped."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.cli.helpers import SAMPLE, cli
from tests.reports.books_night import books_night
from tests.reports.htmlcheck import Page


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("sample") / "audit.duckdb"
    for args in (["ingest", "--db", str(db), str(SAMPLE)], ["run", "--db", str(db)]):
        result = cli(*args)
        assert result.exit_code == 0, result.output
    return db


@pytest.fixture(scope="module")
def night(audited: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db, _ = books_night(audited, tmp_path_factory.mktemp("books"))
    return db


@pytest.fixture(scope="module")
def report(night: Path) -> Path:
    out = night.parent / "report"
    house = night.parent / "house.toml"
    result = cli(
        "report", "--db", str(night), "--date", "2026-11-28", "--out", str(out), "--house",
        str(house),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def page(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def test_acct_findings_rank_among_the_flagged_rounds_by_money_each_linked_to_its_period(
    report: Path,
) -> None:
    """accounting.md: ``ACCT_`` findings among "Look at these first", by |impact| then
    severity; the 150 missing between closer and opener outranks every round's money."""
    p = page(report / "index.html")
    rows = p.body_rows("flagged")
    whats = [r[-1] for r in rows]
    first = next(i for i, w in enumerate(whats) if "ACCT_INVENTORY_REPORTABLE" in w)
    drop = next(i for i, w in enumerate(whats) if "ACCT_DROP_MISMATCH" in w)
    assert first < drop
    assert "150" in rows[first][1] and "100" in rows[drop][1]
    # every row above the 100 has more money than 100; every row below, no more
    for r in rows[drop + 1 :]:
        money = r[1].replace("EUR", "").replace("+", "").replace(",", "").strip()
        assert money == "–" or float(money) <= 100
    assert p.links.count("periods/T01/2026-11-28-day.html") >= 2
    assert (report / "periods" / "T01" / "2026-11-28-day.html").is_file()


def test_the_tile_counts_periods_by_status_and_those_differing(report: Path) -> None:
    # T01 and T02 of 2026-11-28 are reconciled, T01 differs (two ACCT_ findings)
    values = by_id(report / "index.html")
    assert values["periods-reconciled"] == "2"
    assert values["periods-differing"] == "1"
    assert values["periods-pending"] == "0"
    assert values["periods-incomplete"] == "0"


def test_the_master_game_report_shows_pit_rows_counted_adjusted_mtd_ytd_and_pins_the_house(
    report: Path,
) -> None:
    p = page(report / "index.html")
    rows = [r for r in p.body_rows("mgr-P1") if r[0][:4].isdigit()]  # under two header rows
    subjects = [(r[0], r[1], r[2]) for r in rows]
    assert subjects == [
        ("2026-11-28", "T01", "day"),
        ("2026-11-28", "T02", "day"),
        ("2026-11-28", "T01 total", "–"),
        ("2026-11-28", "T02 total", "–"),
        ("2026-11-28", "pit total", "–"),
    ]
    t01 = rows[0]
    # opener, fills, credits, closer, drop, win, hold, variance, adjustments, adjusted win/hold,
    # MTD win/hold, YTD win/hold, ACCT_ count
    assert t01[4] == "37025.5" and t01[5] == "1000" and t01[8] == "4900"
    assert t01[11] == "-100"  # W − R: the drop 100 short
    assert t01[13] == t01[9] and t01[15] == t01[9] and t01[17] == t01[9]
    assert t01[-1] == "2"
    assert p.body_rows("mgr-casino")
    house = (report.parent / "house.toml").read_bytes()
    import hashlib

    sha = hashlib.sha256(house).hexdigest()
    ids = by_id(report / "index.html")
    assert ids["house-sha256"] == sha
    assert ids["pin-house"] == sha[:12]
    assert sha in ids["house-file"]


def test_discrepancies_over_the_report_threshold_are_marked_copy_to_the_regulator(
    report: Path,
) -> None:
    rows = page(report / "index.html").body_rows("discrepancies")
    assert rows == [
        ["T01 · 2026-11-28 · day", "17175.5", "17025.5", "150", "copy to the regulator"]
    ]


def test_a_period_page_works_the_identity_and_shows_the_records(report: Path) -> None:
    p = page(report / "periods" / "T01" / "2026-11-28-day.html")
    lines = {r[0]: r[-1] for r in p.body_rows("identity-table")}
    assert lines["buy-ins recorded (B)"] == "5000"
    assert lines["drop (D)"] == "4900"
    assert lines["drop variance"] == "-100"
    assert lines["tray variance"] == "0"
    assert lines["variance"] == "-100"
    differences = by_id(report / "periods" / "T01" / "2026-11-28-day.html")["differences"]
    assert "D < B by 100: cash or markers missing from the box" in differences
    # both copies of the fill, with signers
    slip = p.body_rows("slip-table")
    assert slip[0][0] == "fill/88412" and slip[0][3] == slip[0][6] == "1000"
    assert "cashier" in slip[0][7] and "supervisor" in slip[0][4]
    # the second session's opener beside the previous closer: the 25s differ
    assert [r[2] for r in p.body_rows("buy-in-table")] == ["3000", "2000"]
    assert p.body_rows("count-table")[0][5] == "4900"
    rounds = p.body_rows("round-table")
    assert len(rounds) == 80  # T01's rounds of the night, all inside its two sessions
    links = [link for link in p.links if link.startswith("../../hands/")]
    assert links, "the flagged rounds link to their hand pages"
    for link in links:
        assert (report / "periods" / "T01" / link).resolve().is_file()
    findings = by_id(report / "periods" / "T01" / "2026-11-28-day.html")["findings"]
    assert "ACCT_DROP_MISMATCH" in findings and "ACCT_INVENTORY_REPORTABLE" in findings


def test_the_period_page_puts_each_opener_beside_the_previous_closer(report: Path) -> None:
    html = (report / "periods" / "T01" / "2026-11-28-day.html").read_text(encoding="utf-8")
    p = Page(html)
    differs = [a for t, a in p.tags if t == "tr" and a.get("class") == "differs"]
    assert len(differs) == 2  # the 100s and the 25s of the second opener


def test_the_markdown_report_has_the_same_tables(night: Path) -> None:
    out = night.parent / "report-md"
    result = cli(
        "report", "--db", str(night), "--date", "2026-11-28", "--out", str(out), "--format",
        "md", "--house", str(night.parent / "house.toml"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "## Master Game Report" in text and "### Pit P1" in text
    assert "| T01 · 2026-11-28 · day | 17175.5 | 17025.5 | 150 | copy to the regulator |" in text
    assert "ACCT\\_DROP\\_MISMATCH" in text


def test_a_night_without_books_has_no_master_game_report(audited: Path, tmp_path: Path) -> None:
    result = cli("report", "--db", str(audited), "--out", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    ids = set(by_id(tmp_path / "r" / "index.html"))
    assert "mgr" not in ids and "periods-tile" not in ids and "pin-house" not in ids
    assert not (tmp_path / "r" / "periods").exists()


class _Ids(HTMLParser):
    """The text of each element that has an id."""

    VOID = Page.VOID

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, list[str], int]] = []
        self.found: dict[str, str] = {}
        self.depth = 0
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        self.depth += 1
        a = dict(attrs)
        if a.get("id"):
            self.open.append((str(a["id"]), [], self.depth))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if self.open and self.open[-1][2] == self.depth:
            ident, parts, _ = self.open.pop()
            self.found[ident] = " ".join("".join(parts).split())
            if self.open:
                self.open[-1][1].extend(parts)
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.open:
            self.open[-1][1].append(data)


def by_id(path: Path) -> dict[str, str]:
    return _Ids(path.read_text(encoding="utf-8")).found
