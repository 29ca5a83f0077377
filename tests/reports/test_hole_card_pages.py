"""Hand pages of the US game (issue 32, point 6): the hole card face down until it is
turned, the up card named, the peek with what the cards make and what the dealer
announced, the reveal, and surrenders (early or late, each spot's due), on a night
written by hand (:mod:`tests.reports.holecard_night`: games.md §2's example and three
rounds after it), ingested and audited through the CLI; pages made by ``hand`` (text and
HTML) and by ``report`` (its pages replay from lean events), parsed."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.cli.helpers import cli
from tests.reports.holecard_night import DAY, PROFILES, SHOE, TABLE, audited_night
from tests.reports.htmlcheck import Page


class ByClass(HTMLParser):
    """The text of every element carrying a class, by class (spaces between pieces)."""

    VOID = Page.VOID

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[str, list[str]] = {}
        self._open: list[tuple[str, list[str], list[str]]] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        self._open.append((tag, classes, []))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID or not self._open:
            return
        open_tag, classes, parts = self._open.pop()
        assert open_tag == tag, (open_tag, tag)
        text = " ".join(" ".join(parts).split())
        for c in classes:
            self.found.setdefault(c, []).append(text)
        if self._open:
            self._open[-1][2].append(text)

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1][0] not in ("title", "style"):
            self._open[-1][2].append(data)

    def texts(self, cls: str) -> list[str]:
        return self.found.get(cls, [])


@pytest.fixture(scope="module")
def night_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return audited_night(tmp_path_factory.mktemp("holecard"))


def hand_html(db: Path, round_no: int) -> str:
    result = cli(
        "hand", "--db", str(db), "--profiles", str(PROFILES), "--format", "html",
        TABLE, SHOE, str(round_no),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result.stdout


def steps(html: str) -> dict[str, list[str]]:
    """The step table's rows by step number: the cells as text."""
    return {row[0]: row for row in Page(html).body_rows("step-table")}


def dealer_row(html: str) -> list[str]:
    rows = [r for r in Page(html).body_rows("hand-table") if r[0] == "dealer"]
    assert len(rows) == 1
    return rows[0]


# ------------------------------------------------------------------ games.md §2's example


def assert_example_round(html: str) -> None:
    """Round 9's page (games.md §2's example): the hole card JD face down (the table sees
    the ace) until the reveal, the peek's cards making a blackjack as announced, the
    dealer's cards with their roles."""
    rows = steps(html)
    up, hole, peek, reveal = rows["8"], rows["11"], rows["13"], rows["14"]
    assert up[3] == "card" and up[6] == "dealerup card" and up[7] == "soft 11"
    assert hole[3] == "card" and hole[6] == "dealerhole card"
    assert "jack of diamonds (face down)" in hole[4] and hole[4].endswith("face down")
    # face down: the table sees the up card alone, never the dealer's blackjack
    assert hole[7] == "soft 11 uphole card face down"
    before_reveal = [r for n, r in rows.items() if int(n) < 14]
    assert not any(r[6].startswith("dealer") and "blackjack" in r[7] for r in before_reveal)
    assert peek[3] == "peek"
    assert reveal[3] == "reveal" and reveal[6] == "dealerhole card" and reveal[7] == "blackjack"
    assert "jack of diamonds" in reveal[4] and "face down" not in reveal[4]
    by = ByClass(html)
    assert by.texts("peek") == [
        "the cards A ♥ A J ♦ J make blackjack · the dealer announced: blackjack"
    ]
    assert by.texts("dealer-card") == ["up card", "hole card", "hole card"]
    assert by.texts("hole-down") == ["hole card face down"]
    dealer = dealer_row(html)
    assert dealer[2] == "blackjack"
    assert by.texts("card-role") == ["up card", "hole card"]
    assert by.texts("hole-story") == [
        "hole card: dealt face down (step 11); turned at the reveal (step 14)"
    ]


def test_the_example_round_shows_the_hole_card_the_peek_and_the_reveal(night_db: Path) -> None:
    assert_example_round(hand_html(night_db, 9))


def test_the_text_packet_keeps_the_hole_card_face_down_until_the_reveal(night_db: Path) -> None:
    result = cli("hand", "--db", str(night_db), "--profiles", str(PROFILES), TABLE, SHOE, "9")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    hole = next(i for i, line in enumerate(lines) if "deal: JD to the dealer" in line)
    assert "[JD]  dealer (hole)  soft 11 up" in lines[hole]
    assert "hole card face down: the table sees the up card alone" in lines[hole + 2]
    assert any("AH    dealer (up)    soft 11" in line for line in lines[:hole])
    peek = next(i for i, line in enumerate(lines) if "the dealer peeks under AH" in line)
    assert "the cards AH [JD] make blackjack; the dealer announced: blackjack" in lines[peek + 2]
    reveal = next(i for i, line in enumerate(lines) if "turns his hole card" in line)
    assert "JD    dealer (hole)  blackjack" in lines[reveal]
    assert "hole card: dealt face down (step 11); turned at the reveal (step 14)" in (result.stdout)


# ------------------------------------------------------------------ the peek, surrenders


def test_a_late_surrender_after_a_peek_that_finds_none(night_db: Path) -> None:
    html = hand_html(night_db, 10)
    by = ByClass(html)
    assert by.texts("peek") == [
        "the cards T ♦ T 7 ♣ 7 make hard 17 · the dealer announced: no blackjack"
    ]
    assert by.texts("surrender") == [
        "late surrender , after the peek spot 0: stake 20.00, due -10.00 "
        "(surrendered: half the stake)"
    ]
    rows = steps(html)
    assert rows["10"][7] == "hard 10 uphole card face down"  # the ten up, the 7 down
    assert rows["14"][3] == "reveal" and rows["14"][7] == "hard 17"
    hands = {r[0]: r for r in Page(html).body_rows("hand-table")}
    assert hands["box 1 hand 0"][4] == "surrendered (late)"
    assert by.texts("hole-story") == [
        "hole card: dealt face down (step 10); turned at the reveal (step 14)"
    ]


def test_a_surrender_in_turn_and_a_hole_card_turned_when_play_is_over(night_db: Path) -> None:
    html = hand_html(night_db, 11)
    by = ByClass(html)
    assert by.texts("peek") == []
    # 10.01 surrendered: -5.005, due -5.01 (half away from zero): the engine's due
    assert by.texts("surrender") == [
        "late surrender , in turn: no peek is due under 6D spot 0: stake 10.01, due -5.01 "
        "(surrendered: half the stake)"
    ]
    assert by.texts("hole-story") == [
        "hole card: dealt face down (step 10); no reveal logged: it counts as turned once "
        "the players' play was over"
    ]
    assert by.texts("card-role") == ["up card", "hole card", ""]
    assert dealer_row(html)[2] == "bust 25"


def test_an_early_surrender_and_an_announcement_the_cards_contradict(night_db: Path) -> None:
    html = hand_html(night_db, 12)
    by = ByClass(html)
    assert by.texts("surrender") == [
        "early surrender , before the peek spot 0: stake 10.00, due -5.00 "
        "(surrendered: half the stake)"
    ]
    assert by.texts("peek") == [
        "the cards A ♣ A 5 ♦ 5 make soft 16 · the dealer announced: blackjack "
        "(not what the cards make: the cards decide)"
    ]
    row = next(r for r in steps(html).values() if "surrender (TS,6H" in r[8])
    assert "✗ not allowed" in row[8] and "PLAY_SURRENDER" in row[8]
    hands = {r[0]: r for r in Page(html).body_rows("hand-table")}
    assert hands["box 1 hand 0"][4] == "surrendered (early)"


def test_a_surrender_forfeited_where_the_peek_was_missing(night_db: Path) -> None:
    html = hand_html(night_db, 13)
    by = ByClass(html)
    # box 1's stand made the peek late (the engine's DEAL_PEEK_MISSING cites it): box 2's
    # surrender after it is late, and forfeited to the blackjack the reveal shows
    assert by.texts("surrender") == [
        "late surrender , after the peek was due (it never came in time) spot 0: stake 20.00, "
        "due -20.00 (surrendered, forfeited to the dealer's blackjack)"
    ]
    assert by.texts("peek") == []
    codes = [r[8] for r in steps(html).values() if "DEAL_PEEK_MISSING" in r[8]]
    assert len(codes) == 1 and "box 1 hand 0: stand" in codes[0]
    hands = {r[0]: r for r in Page(html).body_rows("hand-table")}
    assert hands["box 2 hand 0"][4] == "surrendered (late)"
    assert dealer_row(html)[2] == "blackjack"


def test_a_surrender_before_the_reveal_in_the_peeks_place_is_early(night_db: Path) -> None:
    by = ByClass(hand_html(night_db, 14))
    assert by.texts("surrender") == [
        "early surrender , before the hole card was turned spot 0: stake 20.00, due -10.00 "
        "(surrendered: half the stake)"
    ]


# ------------------------------------------------------------------ the report's pages


def test_the_reports_pages_show_the_same_from_lean_events(night_db: Path, tmp_path: Path) -> None:
    """``report`` replays its pages from lean events (not the TEL/1 models): the hole card's
    face, the peek's announcement and the surrender's decision come through that path too."""
    out = tmp_path / "report"
    result = cli(
        "report", "--db", str(night_db), "--profiles", str(PROFILES), "--date", DAY,
        "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    pages = {p.stem: p for p in (out / "hands").rglob("r*.html")}
    assert sorted(pages) == ["r12", "r13", "r14", "r15", "r9"]  # the flagged rounds
    assert_example_round(pages["r9"].read_text(encoding="utf-8"))
    by = ByClass(pages["r12"].read_text(encoding="utf-8"))
    assert [t.split(",")[0] for t in by.texts("surrender")] == ["early surrender "]
    assert by.texts("peek")[0].endswith("(not what the cards make: the cards decide)")
