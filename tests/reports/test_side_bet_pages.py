"""Side bets on hand pages and in the report (issue 32, point 6): each side bet beside its
spot with its id, stake, line, pay "to 1", due, settled and finding; the report's side-bet
money (staked, paid, house result, hold) and a row per side-bet id, in HTML and Markdown.
On the hand-written night of :mod:`tests.reports.holecard_night` (games.md §2's example
with its 21+3, and round 15's side bets), ingested and audited through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import cli
from tests.reports.holecard_night import DAY, PROFILES, SHOE, TABLE, audited_night
from tests.reports.htmlcheck import Page
from tests.reports.test_hole_card_pages import ByClass, hand_html


@pytest.fixture(scope="module")
def night_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return audited_night(tmp_path_factory.mktemp("side-bets"))


def wagers(html: str) -> list[list[str]]:
    return Page(html).body_rows("wager-table")


def test_the_examples_21plus3_beside_its_spot(night_db: Path) -> None:
    rows = wagers(hand_html(night_db, 9))
    # box 2: its main wager, its insurance, then its side bet; box 5 after
    assert [(r[0], r[3].split()[0]) for r in rows] == [
        ("2", "main"), ("2", "insurance"), ("2", "21plus3"), ("5", "main")
    ]  # fmt: skip
    side = rows[2]
    assert side[3] == "21plus3 side betstraight_flush, pays 9 to 1"
    assert side[5:9] == ["5.00", "+45.00", "45", "ok"]
    assert side[9] == "21plus3-9: straight_flush pays 9:1"


def test_round_15s_side_bets_with_their_lines_dues_and_findings(night_db: Path) -> None:
    html = hand_html(night_db, 15)
    side = {(r[0], r[3].split()[0]): r for r in wagers(html) if "side bet" in r[3]}
    assert sorted(side) == [
        ("1", "perfect_pairs"), ("2", "perfect_pairs"), ("3", "21plus3"), ("4", "21plus3")
    ]  # fmt: skip
    perfect, coloured = side["1", "perfect_pairs"], side["2", "perfect_pairs"]
    assert perfect[3].endswith("perfect, pays 25 to 1")
    assert perfect[5:9] == ["5.00", "+125.00", "125", "ok"]
    # the coloured pair is due 12 to 1 (60) and was paid as mixed (30): the engine's finding
    assert coloured[3].endswith("coloured, pays 12 to 1")
    assert coloured[5:9] == ["5.00", "+60.00", "30", "PAY_SIDE_BET -30.00"]
    over = side["3", "21plus3"]
    assert over[3].endswith("no line won")
    assert over[5:9] == ["60.00", "-60.00", "-60", "okBET_LIMIT"]  # placed over its limit
    never = side["4", "21plus3"]
    assert never[5:9] == ["2.00", "-2.00", "not settled", "PAY_MISSING +2.00"]
    by = ByClass(html)
    assert by.texts("bet-code") == ["BET_LIMIT"]
    assert by.texts("side-line") == [
        "perfect, pays 25 to 1", "coloured, pays 12 to 1", "no line won", "no line won"
    ]  # fmt: skip
    # the bet the profile does not offer has no wager (its settlement not judged): its
    # finding is on the page
    assert "BET_SIDE_NOT_OFFERED" in Page(html).text and "lucky_ladies" in html


def test_the_text_packet_names_each_side_bets_line(night_db: Path) -> None:
    result = cli("hand", "--db", str(night_db), "--profiles", str(PROFILES), TABLE, SHOE, "15")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "side bet perfect_pairs: coloured, pays 12 to 1" in out
    assert "side bet 21plus3: no line won; BET_LIMIT" in out
    row = next(line for line in out.splitlines() if "perfect_pairs 5" in line and "+30" in line)
    assert "+60" in row and "+30" in row and "PAY_SIDE_BET" in row


# ------------------------------------------------------------------ the report

# 21plus3: 5 won 45 (round 9), 60 lost (round 15), 2 never settled: staked 67, paid 45,
# taken 60, result +15 over the 65 settled: hold 23.08%. perfect_pairs: 5 won 125, 5 paid
# 30: staked 10, paid 155, result -155, hold -1550.00%. In all: 5 bets, staked 77, paid 200,
# result -140 over 75 settled: -186.67%. lucky_ladies is no wager (not offered).


def report(db: Path, out: Path, fmt: str) -> Path:
    result = cli(
        "report", "--db", str(db), "--profiles", str(PROFILES), "--date", DAY,
        "--format", fmt, "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def test_the_html_report_has_side_bet_money_and_a_row_per_bet(
    night_db: Path, tmp_path: Path
) -> None:
    html = (report(night_db, tmp_path / "html", "html") / "index.html").read_text("utf-8")
    by = ByClass(html)
    assert by.texts("side-staked") == ["77.00 USD"]
    assert by.texts("side-paid") == ["200.00 USD"]
    assert by.texts("side-result") == ["-140.00 USD"]
    assert any("hold -186.67%; 1 bet never settled" in t for t in by.texts("k"))
    assert Page(html).body_rows("side-bets") == [
        ["USD", "21plus3", "21plus3-9", "3 (1 never settled)", "67.00", "45.00", "+15.00",
         "23.08%"],
        ["USD", "perfect_pairs", "perfect-pairs-25-12-6", "2", "10.00", "155.00",
         "-155.00", "-1550.00%"],
    ]  # fmt: skip
    # the handle stays the main stakes
    assert "handle" in html


def test_the_markdown_report_has_the_same_figures(night_db: Path, tmp_path: Path) -> None:
    md = (report(night_db, tmp_path / "md", "md") / "report.md").read_text("utf-8")
    assert "## Side bets" in md
    assert "| USD | 5 | 77.00 | 200.00 | -140.00 | -186.67% | 1 |" in md
    assert "| USD | 21plus3 | 21plus3-9 | 3 | 67.00 | 45.00 | +15.00 | 23.08% |" in md
    assert (
        "| USD | perfect\\_pairs | perfect-pairs-25-12-6 | 2 | 10.00 | 155.00 | -155.00 "
        "| -1550.00% |" in md
    )


def test_a_night_without_side_bets_has_no_side_bet_section(html_out: Path) -> None:
    html = (html_out / "index.html").read_text("utf-8")
    assert 'id="side-bets"' not in html and "side-staked" not in html
