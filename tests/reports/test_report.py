"""The compliance report of a real audited night (simulated night + hand-written TEL/1,
ingested and run): structure, numbers against SQL, links, escaping, determinism."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from audit.batch.nightly import write_report
from audit.findings import money_str
from audit.reports import build_report_context, render_report
from audit.reports.context import ReportContext
from audit.reports.masking import mask_id
from audit.reports.report import hand_href, safe_name
from audit.store import Store
from audit.store.lookup import player_dealers
from tests.reports.conftest import STAMP
from tests.reports.htmlcheck import Page
from tests.reports.nights import DAY, HOSTILE, HOSTILE_DEALER, NOT_JSON


def money_cell(text: str) -> str:
    """A money cell of the report (``"+1,234.50 EUR"``) as the findings format writes money."""
    return money_str(__import__("decimal").Decimal(text.split()[0].replace(",", ""))) or "0"


def day_findings(store: Store) -> list[Any]:
    """What `shoe-audit findings --date DAY` lists."""
    day = dt.date.fromisoformat(DAY)
    return store.all_findings(gaming_days=(day, day))


def sql(store: Store, query: str) -> list[tuple[Any, ...]]:
    return list(store.con.execute(query, {"day": dt.date.fromisoformat(DAY)}).fetchall())


def test_findings_tables_match_the_findings_listing(store: Store, html_out: Path) -> None:
    page = Page((html_out / "index.html").read_text())
    listed = day_findings(store)
    by_code = {r[0]: int(r[2]) for r in page.body_rows("by-code")}
    assert by_code == Counter(str(f.code) for f in listed)
    by_sev = {r[0].lower(): int(r[1]) for r in page.body_rows("by-severity")}
    assert {k: v for k, v in by_sev.items() if v} == Counter(str(f.severity) for f in listed)
    replayed = {k: n for k, n in by_code.items() if not k.startswith("LOG_")}
    assert replayed == dict(
        sql(store, "SELECT code, count(*) FROM findings WHERE gaming_day = $day GROUP BY 1")
    )


def test_money_tables_match_the_findings_table(store: Store, html_out: Path) -> None:
    page = Page((html_out / "index.html").read_text())
    net = {r[0]: money_cell(r[8]) for r in page.body_rows("by-table") if r[8] != "0"}
    rows = sql(
        store,
        "SELECT table_id, sum(impact) FROM findings WHERE gaming_day = $day "
        "AND impact IS NOT NULL GROUP BY 1",
    )
    assert net == {t: money_str(v) for t, v in rows}
    # by dealer: each finding's dealer looked up with a correlated subquery (not the
    # report's ASOF join): the dealer named last before the round's round_open
    by_dealer = {r[0]: money_cell(r[8]) for r in page.body_rows("by-dealer") if r[8] != "0"}
    rows = sql(
        store,
        """
        SELECT (SELECT arg_max(d.dealer, d.seq) FROM events d
                WHERE d.table_id = f.table_id AND d.shoe = f.shoe
                  AND d.type IN ('shoe_open', 'dealer_change')
                  AND d.seq < (SELECT min(o.seq) FROM events o
                               WHERE o.table_id = f.table_id AND o.shoe = f.shoe
                                 AND o.round = f.round AND o.type = 'round_open')) AS dealer,
               sum(f.impact)
        FROM findings f WHERE f.gaming_day = $day AND f.impact IS NOT NULL GROUP BY 1
        """,
    )
    # a home-game banker is a player: his id is masked in the report (issue 30, point 8)
    bankers = player_dealers(store.con)
    assert bankers  # the night has some: the masking is tested too
    assert by_dealer == {(mask_id(d) if d in bankers else d): money_str(v) for d, v in rows if v}


def test_rounds_add_up_per_table_and_per_dealer(store: Store, report_ctx: ReportContext) -> None:
    s = report_ctx.summary
    ((rounds, wagers, handle, shoes, tables),) = sql(
        store,
        """SELECT sum(a.rounds), sum(a.wagers), sum(a.handle), count(*),
                  count(DISTINCT s.table_id)
           FROM shoes s JOIN shoe_audits a USING (table_id, shoe) WHERE s.gaming_day = $day""",
    )
    (money,) = s.money
    assert (s.rounds, s.wagers, money.handle, money.currency, s.shoes, s.tables) == (
        rounds,
        wagers,
        money_str(handle),
        "EUR",
        shoes,
        tables,
    )
    assert s.rounds == sum(r.rounds for r in report_ctx.by_table)
    assert s.rounds == sum(r.rounds for r in report_ctx.by_dealer)
    assert s.rounds == sum(r.rounds for r in report_ctx.by_day)
    assert s.findings == len(day_findings(store))
    for groups in (report_ctx.by_table, report_ctx.by_dealer, report_ctx.by_day):
        assert s.findings == sum(r.findings for r in groups)
        assert s.flagged_rounds == sum(r.flagged_rounds for r in groups)
    round_level = sum(1 for f in day_findings(store) if f.round is not None)
    assert round_level == sum(r.round_findings for r in report_ctx.by_table)
    assert round_level == sum(r.round_findings for r in report_ctx.by_dealer)


def test_dealer_change_mid_shoe_credits_rounds_to_the_dealer_in_charge(
    report_ctx: ReportContext,
) -> None:
    # T90: D-OPEN deals rounds 1-2 (round 2 overpays 5), D-RELIEF takes over for
    # rounds 3-5 (round 4 overpays 5)
    rates = {r.key: (r.rounds, r.round_findings, r.critical) for r in report_ctx.by_dealer}
    assert rates["D-RELIEF"] == (3, 1, 1)
    # D-OPEN: rounds 1-2 (round 2 overpays 5), and the shoe's SHOE_NO_CUT and the
    # LOG_ID_CONFLICT line, which have no round and go to the shoe's opener
    assert rates["D-OPEN"] == (2, 1, 2)
    money = {r.key: [(m.net, m.currency) for m in r.money] for r in report_ctx.by_dealer}
    assert money["D-OPEN"] == [("5", "EUR")] and money["D-RELIEF"] == [("5", "EUR")]
    t90 = {(r.round, r.codes): r.dealer for r in report_ctx.flagged if r.table == "T90"}
    assert t90 == {(2, ("PAY_WRONG_AMOUNT",)): "D-OPEN", (4, ("PAY_WRONG_AMOUNT",)): "D-RELIEF"}
    outside = {(o.finding.code, o.dealer) for o in report_ctx.outside if o.finding.table == "T90"}
    assert outside == {("SHOE_NO_CUT", "D-OPEN"), ("LOG_ID_CONFLICT", "D-OPEN")}


def test_every_round_goes_to_the_dealer_last_named_before_it(store: Store) -> None:
    """The report's rounds against a walk through each shoe's events in seq order
    (the simulated ventuno table passes the bank mid-shoe many times)."""
    from audit.reports.sources import ROUNDS, Sources

    expected: dict[tuple[str, str, int], str | None] = {}
    for key, events in store.load_shoe_events(store.shoe_info().keys()).items():
        dealer = None
        for e in events:
            if e.type in ("shoe_open", "dealer_change"):
                dealer = e.dealer  # type: ignore[union-attr]
            elif e.type == "round_open":
                expected[(key.table, key.shoe, e.round)] = dealer  # type: ignore[union-attr]
    with Sources(store.con, [dt.date.fromisoformat(DAY)]) as src:
        got = {
            (t, s, r): d
            for t, s, r, d in src.all(f"SELECT table_id, shoe, round, dealer FROM {ROUNDS}")
        }
    assert len(set(got.values())) > 5
    assert got == {k: d for k, d in expected.items() if k[0] != "T09"}


def test_other_gaming_days_are_left_out(report_ctx: ReportContext, html_out: Path) -> None:
    text = (html_out / "index.html").read_text()
    assert "D-YESTERDAY" not in text and "T09" not in text
    assert report_ctx.gaming_days == (DAY,)


def test_data_quality_and_open_shoes(report_ctx: ReportContext) -> None:
    dq = report_ctx.data_quality
    # the bet without a box, the id conflict, and the line that is not JSON (no gaming
    # day of its own, but its file holds the night's events)
    assert dq.quarantined == 3 and (dq.malformed, dq.id_conflicts) == (1, 1)
    assert [q.reason for q in dq.quarantine if q.source.endswith(":102")] == [
        "not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    ]
    assert [(o.table, o.dealer, o.rounds) for o in report_ctx.open_shoes] == [
        (HOSTILE, HOSTILE_DEALER, 1)
    ]
    assert report_ctx.open_shoes[0].last_ts == "2026-11-28T20:04:30+01:00"
    repro = report_ctx.reproducibility
    assert [Path(f.path).name for f in repro.input_files] == ["night.jsonl"] + [
        f"T0{i}.jsonl" for i in (1, 2, 3)
    ]
    assert all(len(f.sha256) == 64 and f.size > 0 for f in repro.input_files)
    assert {p.id for p in repro.profiles} == {"it-casino-6d", "it-casino-5d", "ventuno-family"}


def test_every_flagged_round_is_listed_and_has_its_page(store: Store, html_out: Path) -> None:
    """Issue 10, point 2: whatever its severity (cli.md: one page per flagged round)."""
    out = html_out
    flagged = sql(
        store,
        "SELECT DISTINCT table_id, shoe, round, severity FROM findings "
        "WHERE gaming_day = $day AND round IS NOT NULL",
    )
    assert {sev for *_, sev in flagged} >= {"critical", "major"}
    rounds = {(t, s, r) for t, s, r, _ in flagged}
    full = Page((out / "flagged.html").read_text())
    listed = [h for h in full.links if h.startswith("hands/")]
    assert len(listed) == len(set(listed)) == len(rounds) > 10
    assert set(listed) == {hand_href(*r) for r in rounds}
    assert len(full.body_rows("flagged-all")) == len(rounds)
    for link in set(listed):
        target = (out / link).resolve()
        assert target.is_file() and out.resolve() in target.parents
        assert Page(target.read_text()).count("svg", **{"class": "card"}) > 0
    index = Page((out / "index.html").read_text())
    assert all(h in set(listed) for h in index.links if h.startswith("hands/"))
    assert all(not h.startswith(("http:", "https:", "/", "..")) for h in index.links)


def test_the_first_screen_ranks_by_money_moved_then_severity(
    report_ctx: ReportContext, html_out: Path
) -> None:
    """Issue 10, point 1: the flagged rounds come first, before any chart, ranked."""
    html = (html_out / "index.html").read_text()
    assert html.index('id="flagged"') < html.index('class="chart"')
    rows = Page(html).body_rows("flagged")
    assert len(rows) == min(20, report_ctx.summary.flagged_rounds) == len(report_ctx.flagged)
    ranked = [
        (Decimal(r.moved), -["info", "minor", "major", "critical"].index(r.worst_severity))
        for r in report_ctx.flagged
    ]
    assert ranked == sorted(ranked, key=lambda k: (-k[0], k[1]))
    # the worked example: paid 75 where -50 was due
    (example,) = [r for r in report_ctx.flagged if r.table == HOSTILE]
    assert (example.moved, example.net, example.overpaid, example.underpaid) == (
        "125",
        "125",
        "125",
        "0",
    )
    top = report_ctx.flagged[0]
    assert rows[0][1] == f"{Decimal(top.moved):,.2f} EUR"
    assert rows[example.rank - 1][1:3] == ["125.00 EUR", "+125.00"]


def test_long_lists_say_and_n_more_with_the_rest_one_click_away(
    report_ctx: ReportContext, html_out: Path
) -> None:
    """Issue 10, point 4."""
    assert report_ctx.flagged_more == report_ctx.summary.flagged_rounds - 20 > 0
    page = Page((html_out / "index.html").read_text())
    text = " ".join("".join(page.text).split())
    assert f"and {report_ctx.flagged_more} more flagged rounds: the full list" in text
    assert "flagged.html" in page.links
    # every code found is charted and listed: no cut after 15
    assert len(page.body_rows("by-code")) == len(report_ctx.by_code)
    labels = [r.key for r in report_ctx.by_code]
    assert all(code in text for code in labels)


def test_hostile_ids_are_escaped_in_html(html_out: Path) -> None:
    out = html_out
    index = out / "index.html"
    pages = [index, *out.glob("hands/**/*.html")]
    assert any(safe_name(HOSTILE) in str(p) for p in pages)
    for path in pages:
        page = Page(path.read_text())
        assert page.count("script") == 0 and page.count("marquee") == 0, path
        assert not page.unbalanced, path
    text = "".join(Page(index.read_text()).text)
    # shown as text, exactly: neither markup nor evaluated by Jinja
    assert HOSTILE in text
    assert HOSTILE_DEALER in "".join(Page((out / "flagged.html").read_text()).text)
    hostile_page = next(p for p in pages if safe_name(HOSTILE) in str(p))
    assert HOSTILE in "".join(Page(hostile_page.read_text()).text)


def _md_tables(md: str) -> list[list[str]]:
    tables, current = [], []
    for line in md.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    return tables + ([current] if current else [])


def test_markdown_tables_stay_intact_with_pipes_in_ids(md_out: Path) -> None:
    md = (md_out / "report.md").read_text()
    tables = _md_tables(md)
    assert len(tables) >= 10
    for t in tables:
        widths = {len(re.findall(r"(?<!\\)\|", row)) for row in t}
        assert len(widths) == 1, t
    assert "<script>" not in md and "{{ 7*7 }}" not in md and "<marquee>" not in md
    assert "T&lt;script&gt;alert(1)&lt;/script&gt;\\|" in md


def test_markdown_links_resolve(report_ctx: ReportContext, md_out: Path) -> None:
    out = md_out
    md = (out / "report.md").read_text()
    links = re.findall(r"\]\((hands/[^)]+)\)", md)
    assert len(links) == len(report_ctx.flagged)
    full = re.findall(r"\]\((hands/[^)]+)\)", (out / "flagged.md").read_text())
    assert len(full) == report_ctx.summary.flagged_rounds
    for link in {*links, *full}:
        assert (out / link).is_file()


def test_same_input_gives_byte_identical_output(
    store: Store, html_out: Path, md_out: Path, tmp_path: Path
) -> None:
    for fmt, a in (("html", html_out), ("md", md_out)):
        b = tmp_path / fmt
        write_report(store, [DAY], b, fmt, generated_at=STAMP, workers=2)
        files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
        files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
        assert files_a == files_b and len(files_a) > 10
        for rel in files_a:
            assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_the_page_pins_itself(report_ctx: ReportContext, html_out: Path) -> None:
    """Issue 10, point 7: generated-at, tool and engine versions, profile digests, inputs."""
    from audit import __version__
    from audit.engine import ENGINE_VERSION

    page = Page((html_out / "index.html").read_text())
    pins = " ".join("".join(page.text).split())
    assert f"Generated {STAMP}" in pins
    assert f"shoe-audit {__version__}" in pins and f"engine {ENGINE_VERSION}" in pins
    for p in report_ctx.reproducibility.profiles:
        assert p.digest[:12] in pins
    files = page.body_rows("input-files")
    assert [r[3] for r in files] == [f.sha256 for f in report_ctx.reproducibility.input_files]


def test_without_pages_there_are_no_links(store: Store, tmp_path: Path) -> None:
    ctx = build_report_context(store, [DAY])
    assert all(r.hand_href is None for r in ctx.flagged)
    render_report(ctx, tmp_path / "out")
    assert not (tmp_path / "out" / "hands").exists()


def test_print_rules_and_no_external_resources(html_out: Path) -> None:
    html = (html_out / "index.html").read_text()
    assert "@page" in html and "@media print" in html and "size: A4" in html
    page = Page(html)
    assert page.count("link") == 0 and page.count("img") == 0 and page.count("script") == 0
    assert page.count("svg", **{"class": "chart"}) >= 4


def test_the_dealer_rule_is_stated(html_out: Path, md_out: Path) -> None:
    html = "".join(Page((html_out / "index.html").read_text()).text)
    md = (md_out / "report.md").read_text()
    for text in (html, md.replace("`", "")):
        assert "credited to the dealer in charge when it opened" in " ".join(text.split())


def test_the_not_json_line_is_quoted_nowhere_raw(html_out: Path, md_out: Path) -> None:
    assert NOT_JSON not in (html_out / "index.html").read_text()
    assert NOT_JSON not in (md_out / "report.md").read_text()


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
