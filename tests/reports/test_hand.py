"""The hand packet: text, HTML and JSON renderings of one round, from engine records."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from audit.errors import NotFoundError
from audit.reports import build_hand_context, render_hand, render_hand_context
from audit.reports.context import HandContext
from tests.reports import GOLDEN
from tests.reports.engine_records import example_events, example_replay
from tests.reports.htmlcheck import Page

HOSTILE = "<script>alert(1)</script>\"'{{ 7*7 }}|\x1b[31m\x07"


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}: run with UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def test_text_plain_matches_golden() -> None:
    out = render_hand(example_replay(), 1, "text", events=example_events())
    assert "\x1b" not in out
    _golden("example_T07_r1.txt", out)


def test_text_keeps_the_regulations_words_and_folds_only_when_asked() -> None:
    """Issue 10, point 13: «più» stays «più» unless the output cannot carry it."""
    out = render_hand(example_replay(), 1, "text", events=example_events())
    assert "«Il mazziere paga sempre le poste alla pari»" in out
    ascii_out = render_hand(example_replay(), 1, "text", events=example_events(), ascii_only=True)
    assert ascii_out.isascii()
    assert '"Il mazziere paga sempre le poste alla pari"' in ascii_out


def test_can_encode_knows_which_outputs_carry_the_words() -> None:
    from audit.reports.templating import can_encode

    assert can_encode("utf-8") and can_encode(None)
    assert not can_encode("ascii") and not can_encode("ANSI_X3.4-1968")
    assert not can_encode("no-such-codec")


def test_json_is_the_context_and_matches_golden() -> None:
    out = render_hand(example_replay(), 1, "json", events=example_events())
    data = json.loads(out)
    assert set(data) == {f.name for f in dataclasses.fields(HandContext)}
    _golden("example_T07_r1.json", out)


def test_text_colour_shows_suit_symbols_and_ansi() -> None:
    out = render_hand(example_replay(), 1, "text", color=True, events=example_events())
    assert "♠" in out and "♥" in out
    assert "\x1b[1;31mPAY_WRONG_OUTCOME\x1b[0m" in out


def test_every_step_and_wager_is_shown_with_engine_totals() -> None:
    ctx = build_hand_context(example_replay(), 1, events=example_events())
    assert [s.seq for s in ctx.steps] == list(range(7, 27))
    labels = [s.total.label for s in ctx.steps if s.total is not None]
    # box 4's A,K is a natural by the engine's HandRecord; the dealer's 3-card 21 is not
    assert labels[4] == "blackjack" and labels[-1] == "hard 21"
    bad = [w for w in ctx.wagers if not w.ok]
    assert [(w.box, w.hand, w.expected, w.actual, w.verdict, w.impact) for w in bad] == [
        (1, 1, "-50", "75", "PAY_WRONG_OUTCOME", "125")
    ]
    assert {w.verdict for w in ctx.wagers if w.ok} == {"ok"}
    # box 1 hand 0 was split, then doubled: 50 + 50; hand 1 came from the split
    doubled = next(w for w in ctx.wagers if (w.box, w.hand) == (1, 0))
    assert (doubled.base_stake, doubled.double_stake, doubled.stake) == ("50", "50", "100")
    assert [w.from_split for w in ctx.wagers if w.box == 1] == [True, True]
    hand0 = next(h for h in ctx.hands if (h.box, h.hand) == (1, 0))
    assert (hand0.stake, hand0.double_stake, hand0.split_stake) == ("50", "50", "50")
    decisions = [(s.decision, s.decision_allowed) for s in ctx.steps if s.decision]
    assert decisions == [("split", True), ("double", True)]


def test_finding_quotes_the_rule_from_the_profile() -> None:
    ctx = build_hand_context(example_replay(), 1, events=example_events())
    (f,) = ctx.findings
    assert f.rule == "win_pays"
    assert f.rule_source is not None and "Il mazziere paga sempre le poste alla pari" in (
        f.rule_source
    )
    assert "Il mazziere paga sempre" in render_hand(example_replay(), 1, "html")


def test_story_before_the_round() -> None:
    s = build_hand_context(example_replay(), 1, events=example_events()).story
    assert (s.decks, s.dealer, s.currency, s.cut_card_position) == (6, "D042", "EUR", 234)
    assert (s.burned, s.cards_before, s.rounds_before) == (5, 5, 0)
    assert [line.type for line in s.lines] == [
        "shoe_open",
        "shuffle",
        "shuffle",
        "cut",
        "cut_card",
        "burn",
    ]


def test_html_is_one_file_with_cards_drawn_as_svg() -> None:
    out = render_hand(example_replay(), 1, "html", events=example_events())
    page = Page(out)
    assert not page.unbalanced
    # every card as a picture: 10 dealt in the round, 5 burned, 10 in the final hands
    assert page.count("svg", **{"class": "card"}) == 10 + 5 + 10
    assert page.count("script") == 0
    assert page.count("link") == 0 and page.count("img") == 0
    assert "<style>" in out and "@media print" in out


def test_no_such_round_lists_the_nearest() -> None:
    replay = example_replay(extra_rounds=(2, 3, 5, 8, 13, 21))
    with pytest.raises(NotFoundError) as exc:
        render_hand(replay, 10, "text")
    msg = str(exc.value)
    assert "no round 10" in msg and "T07-20261128-01" in msg
    assert "nearest: 5, 8, 13" in msg


def test_hostile_ids_are_escaped_in_every_format() -> None:
    replay = dataclasses.replace(example_replay(), table=HOSTILE, shoe=HOSTILE)
    events = [
        e.model_copy(update={"dealer": HOSTILE}) if e.type == "shoe_open" else e
        for e in example_events()
    ]
    html = render_hand(replay, 1, "html", events=events)
    page = Page(html)
    assert page.count("script") == 0
    assert "49" not in "".join(page.text)  # {{ 7*7 }} was not evaluated
    assert HOSTILE.replace("\x1b", "").replace("\x07", "")[:20] in "".join(page.text)
    for color in (False, True):
        text = render_hand(replay, 1, "text", color=color, events=events)
        assert "\x07" not in text and "\x1b[31m" not in text
        assert "{{ 7*7 }}" in text


def test_templates_dir_replaces_a_template(tmp_path: Path) -> None:
    (tmp_path / "hand").mkdir()
    (tmp_path / "hand" / "hand.txt.j2").write_text("round {{ ctx.round }} of {{ ctx.shoe }}\n")
    out = render_hand(example_replay(), 1, "text", templates_dir=tmp_path)
    assert out == "round 1 of T07-20261128-01\n"
    # a template it does not hold still comes from the project
    assert "<!DOCTYPE html>" in render_hand(example_replay(), 1, "html", templates_dir=tmp_path)


def test_strict_undefined_fails_loudly(tmp_path: Path) -> None:
    (tmp_path / "hand").mkdir()
    (tmp_path / "hand" / "hand.txt.j2").write_text("{{ ctx.no_such_field }}\n")
    with pytest.raises(Exception, match="no_such_field"):
        render_hand(example_replay(), 1, "text", templates_dir=tmp_path)


def test_render_twice_is_byte_identical() -> None:
    ctx = build_hand_context(example_replay(), 1, events=example_events())
    for fmt in ("text", "html", "json"):
        assert render_hand_context(ctx, fmt) == render_hand_context(ctx, fmt)  # type: ignore[arg-type]


def test_html_leads_with_the_verdict_then_the_story() -> None:
    """Issue 30, point 4: in the page's order, the verdict box (findings with rule and
    impact, the wagers, the cards) comes before the steps and the shoe's opening, and
    the full findings (rule quoted, evidence) after them; nothing is dropped."""
    out = render_hand(example_replay(), 1, "html", events=example_events())
    page = Page(out)
    ids = [str(a["id"]) for _, a in page.tags if a.get("id")]
    order = [
        "verdict-summary",
        "verdict",
        "findings",
        "wager-table",
        "hand-table",
        "step-table",
        "story",
        "finding-detail",
    ]
    assert [i for i in ids if i in order] == order
    summary = out[out.index('id="verdict-summary"') : out.index('id="step-table"')]
    assert "PAY_WRONG_OUTCOME" in summary and "<code>win_pays</code>" in summary
    assert "+125" in summary  # the impact, on the first screen
    assert page.body_rows("wager-table") and page.body_rows("hand-table")
    assert "f-PAY_WRONG_OUTCOME" in ids  # the detail the summary links to
    assert "Engine" in out[out.index('id="story"') :]  # the profile and engine kept
