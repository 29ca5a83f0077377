"""The report's statistics section: the flags in words, and the charts as inline SVG."""

from __future__ import annotations

from types import SimpleNamespace

from audit.reports.statistics import mask_id, statistics_section
from audit.reports.templating import render
from audit.stats.suite import StatsResult
from tests.reports.htmlcheck import Page


def _html(result: StatsResult, **kw: object) -> Page:
    ctx = SimpleNamespace(statistics=statistics_section(result, **kw), gaming_days=("2026-11-28",))
    return Page(render("_partials/statistics.html.j2", "html", ctx))


def test_every_flag_is_one_sentence_with_its_numbers(biased: StatsResult) -> None:
    section = statistics_section(biased, mask=mask_id)
    assert section.flagged == len(biased.flags) > 0
    order = [float(f.adjusted_p) for f in section.flags]
    assert order == sorted(order)  # the most significant first
    bust = next(f for f in section.flags if f.test == "dealer_bust" and f.subject == "T01")
    assert "the dealer busted" in bust.message and "expected" in bust.message
    assert "a reason to look" in bust.message
    counter = next(f for f in section.flags if f.test == "count_betting")
    assert counter.subject == "•••••-1" and "P-T03-1" not in counter.message


def test_the_section_renders_its_charts_without_scripts(biased: StatsResult) -> None:
    page = _html(biased)
    tags = [t for t, _ in page.tags]
    assert "script" not in tags and not page.unbalanced
    ids = {a.get("id") for _, a in page.tags}
    assert {"chart-bust-by-upcard", "chart-holds-by-table", "chart-holds-by-dealer"} <= ids
    assert "chart-ranks" in ids
    upcards = page.tables["statistics-upcards"]
    assert [r[0] for r in upcards[1:]] == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]
    holds = {r[0]: r for r in page.tables["statistics-holds-by-table"][1:]}
    assert holds["T04"][-1] == "FLAG" and holds["T04"][5] == "outside the band"
    assert holds["T07"][-1] == "–"
    flags = [t for t, a in page.tags if a.get("class") == "stat-flag"]
    assert len(flags) == len(biased.flags)
    assert page.count("circle") == 10 + 10 + len(page.tables["statistics-holds-by-table"]) - 1 + (
        len(page.tables["statistics-holds-by-dealer"]) - 1
    )
    section = statistics_section(biased)
    tens = next(b for b in section.ranks if b.label == "T")
    assert float(tens.observed.rstrip("%")) < float(tens.expected.rstrip("%"))


def test_a_clean_night_says_so(clean: StatsResult) -> None:
    page = _html(clean)
    assert "statistics-no-flags" in {a.get("id") for _, a in page.tags}
    assert "No test flags" in " ".join(page.text)
    section = statistics_section(clean)
    assert section.flagged == 0 and section.judged == clean.judged
    assert len(section.upcards) == 10 and len(section.holds_by_table) == 4


def test_the_markdown_report_lists_the_flags(biased: StatsResult) -> None:
    ctx = SimpleNamespace(statistics=statistics_section(biased, mask=mask_id))
    text = render("_partials/statistics.md.j2", "md", ctx)
    assert "## Statistics" in text
    assert text.count("- **") >= len(biased.flags)
    assert "P-T03-1" not in text
