"""The compliance report, from an audit database: structure, numbers, links, escaping,
determinism."""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from audit.reports import build_report_context, render_report
from audit.reports.context import HandPage, ReportContext
from audit.reports.hand import build_hand_context
from audit.reports.report import hand_href, safe_name
from tests.reports import handmade_db
from tests.reports.engine_records import example_events, example_replay
from tests.reports.htmlcheck import Page

HOSTILE = "T<script>alert(1)</script>|\"'{{ 7*7 }}"
DAY = handmade_db.DAY.isoformat()


@pytest.fixture
def con(tmp_path: Path) -> Iterator[Any]:
    path = handmade_db.build(tmp_path / "audit.duckdb", hostile=HOSTILE)
    c = duckdb.connect(str(path), read_only=True)
    yield c
    c.close()


def with_pages(ctx: ReportContext) -> ReportContext:
    """Hand pages for the critical rounds, from the engine records of the example round
    (until the engine replays: then test_integration builds them for real)."""
    pages, rows = [], []
    for row in ctx.critical:
        f = row.finding
        if f.table is None or f.shoe is None or f.round is None:
            rows.append(row)
            continue
        hctx = build_hand_context(example_replay(), 1, events=example_events())
        hctx = dataclasses.replace(hctx, table=f.table, shoe=f.shoe, round=f.round)
        href = hand_href(f.table, f.shoe, f.round)
        if href not in {p.href for p in pages}:
            pages.append(HandPage(href=href, context=hctx))
        rows.append(dataclasses.replace(row, hand_href=href))
    return dataclasses.replace(ctx, critical=tuple(rows), hand_pages=tuple(pages))


def render(con: Any, out: Path, fmt: str = "html") -> Path:
    ctx = with_pages(build_report_context(con, [DAY], hand_pages=False))
    return render_report(ctx, out, fmt)  # type: ignore[arg-type]


def sql_counts(con: Any, key: str) -> dict[str, int]:
    rows = con.execute(
        f"SELECT {key}, count(*) FROM (SELECT * FROM findings UNION ALL SELECT * FROM "
        "log_findings) WHERE gaming_day = ? GROUP BY 1",
        [DAY],
    ).fetchall()
    return {k: n for k, n in rows}


def test_findings_tables_match_the_findings_table(con: Any, tmp_path: Path) -> None:
    page = Page(render(con, tmp_path / "out").read_text())
    by_code = {r[0]: int(r[2]) for r in page.body_rows("by-code")}
    assert by_code == sql_counts(con, "code")
    by_sev = {r[0].lower(): int(r[1]) for r in page.body_rows("by-severity")}
    assert {k: v for k, v in by_sev.items() if v} == sql_counts(con, "severity")


def test_money_tables_match_the_findings_table(con: Any, tmp_path: Path) -> None:
    page = Page(render(con, tmp_path / "out").read_text())
    net = {r[0]: r[3].lstrip("+") for r in page.body_rows("money-by-table")}
    rows = con.execute(
        "SELECT table_id, sum(impact) FROM findings WHERE gaming_day = ? AND impact IS NOT NULL "
        "GROUP BY 1",
        [DAY],
    ).fetchall()
    from audit.findings import money_str

    assert net == {t: money_str(v) for t, v in rows}


def test_headline_figures(con: Any, tmp_path: Path) -> None:
    ctx = build_report_context(con, [DAY], hand_pages=False)
    s = ctx.summary
    assert (s.tables, s.shoes, s.rounds, s.wagers, s.handle) == (2, 3, 150, 750, "30000.5")
    assert (s.overpaid, s.underpaid, s.net) == ("145.5", "10", "135.5")
    rates = {r.key: (r.rounds, r.findings, r.per_1000) for r in ctx.rates_by_table}
    assert rates == {"T01": (100, 3, "30.0"), HOSTILE: (50, 3, "60.0")}
    assert [(o.table, o.shoe) for o in ctx.open_shoes] == [("T01", "T01-B")]
    assert [r.codes for r in ctx.shoe_integrity] == [("SHOE_POSITION_GAP",)]
    assert ctx.data_quality.quarantined == 1 and ctx.data_quality.seq_gaps == 1
    assert ctx.reproducibility.engine_versions == ("1.0.0",)  # not the other day's 0.9.0


def test_other_gaming_days_are_left_out(con: Any, tmp_path: Path) -> None:
    text = render(con, tmp_path / "out").read_text()
    assert "T09" not in text and "0.9.0" not in text


def test_every_link_to_a_hand_page_resolves(con: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    page = Page(render(con, out).read_text())
    hand_links = [h for h in page.links if h.startswith("hands/")]
    with_round = [r for r in page.body_rows("critical-findings") if r[2].isdigit()]
    assert len(hand_links) == len(with_round) == 4
    for link in hand_links:
        target = (out / link).resolve()
        assert target.is_file() and out.resolve() in target.parents
        assert Page(target.read_text()).count("svg", **{"class": "card"}) > 0
    assert all(not h.startswith(("http:", "https:", "/", "..")) for h in page.links)


def test_hostile_ids_are_escaped_in_html(con: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    index = render(con, out)
    for path in [index, *out.glob("hands/**/*.html")]:
        page = Page(path.read_text())
        assert page.count("script") == 0, path
        assert not page.unbalanced, path
    text = "".join(Page(index.read_text()).text)
    assert HOSTILE in text  # shown as text, exactly
    assert "49" not in text


def _md_tables(md: str) -> list[list[str]]:
    tables, current = [], []
    for line in md.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    return tables + ([current] if current else [])


def test_markdown_tables_stay_intact_with_pipes_in_ids(con: Any, tmp_path: Path) -> None:
    md = render(con, tmp_path / "out", "md").read_text()
    tables = _md_tables(md)
    assert len(tables) >= 10
    for t in tables:
        widths = {len(re.findall(r"(?<!\\)\|", row)) for row in t}
        assert len(widths) == 1, t
    assert "<script>" not in md and "{{ 7*7 }}" not in md
    assert "T&lt;script&gt;alert(1)&lt;/script&gt;\\|" in md


def test_markdown_links_resolve(con: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    md = render(con, out, "md").read_text()
    links = re.findall(r"\]\((hands/[^)]+)\)", md)
    assert len(links) == 4
    for link in links:
        assert (out / link).is_file()


def test_same_input_gives_byte_identical_output(con: Any, tmp_path: Path) -> None:
    for fmt in ("html", "md"):
        a, b = tmp_path / f"a-{fmt}", tmp_path / f"b-{fmt}"
        render(con, a, fmt)
        render(con, b, fmt)
        files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
        files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
        assert files_a == files_b
        for rel in files_a:
            assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
        shutil.rmtree(a)
        shutil.rmtree(b)


def test_generated_at_is_off_by_default(con: Any, tmp_path: Path) -> None:
    plain = render_report(build_report_context(con, [DAY], hand_pages=False), tmp_path / "a")
    assert "generated" not in plain.read_text()
    stamped = build_report_context(con, [DAY], hand_pages=False, generated_at="2026-11-29T07:00Z")
    assert "generated 2026-11-29T07:00Z" in render_report(stamped, tmp_path / "b").read_text()


def test_print_rules_and_no_external_resources(con: Any, tmp_path: Path) -> None:
    html = render(con, tmp_path / "out").read_text()
    assert "@page" in html and "@media print" in html and "size: A4" in html
    page = Page(html)
    assert page.count("link") == 0 and page.count("img") == 0 and page.count("script") == 0
    assert page.count("svg", **{"class": "chart"}) >= 4


@pytest.mark.parametrize(
    "value",
    ["T07", "../../etc/passwd", "a/b", "<script>", "", ".hidden", "x" * 300, "T|07", "Tö"],
)
def test_safe_names_stay_in_their_folder_and_stay_distinct(value: str) -> None:
    name = safe_name(value)
    assert re.fullmatch(r"[A-Za-z0-9._-]+", name) and not name.startswith(".")
    assert len(name) <= 100
    assert name != safe_name(value + "_") and name != safe_name(value.replace("/", "_") + "?")
    assert hand_href(value, value, 3).count("/") == 3
