"""Issue 29, points 11d and 11e: ids that are path syntax or shell syntax.

11d: a table id ``..`` (or ``.``), a shoe id holding ``/``, and an id shaped like
the name another id is given, each get a page of their own, and every link of the
report's pages reaches an existing file inside the report folder.

11e: the ``shoe-audit hand ...`` command a page shows for copying is quoted for the
shell: ``shlex.split`` of it gives back exactly the ids.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shlex
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import typer
from typer.testing import CliRunner

from audit.cli import app
from audit.reports import build_hand_context, render_hand_context
from audit.reports.context import RoundLink
from audit.reports.paths import safe_name
from tests.reports.engine_records import example_events, example_replay
from tests.reports.htmlcheck import Page

WORKED = Path(__file__).resolve().parents[1] / "data" / "worked_example.jsonl"

# (table, shoe): every table deals the worked example's one flagged round
HOSTILE_IDS = [
    ("..", "S/1"),
    (".", "../../etc/passwd"),
    ("_5ec1f7e700", "S/1"),  # the name ".." was given before issue 29
    (safe_name(".."), "S/1"),  # the name ".." is given now
    ("T 07", "a/./b"),
]


def hostile_log(folder: Path) -> Path:
    """The worked example dealt at each table of :data:`HOSTILE_IDS`, ids rewritten."""
    lines = []
    for i, (table, shoe) in enumerate(HOSTILE_IDS):
        for line in WORKED.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            event.update(table=table, shoe=shoe, id=f"H{i}-{event['id']}")
            lines.append(json.dumps(event))
    path = folder / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile-ids")
    db, out = folder / "audit.duckdb", folder / "report"
    runner = CliRunner()
    for args in (
        ["ingest", "--db", str(db), str(hostile_log(folder))],
        ["run", "--db", str(db), "--workers", "1"],
        ["report", "--db", str(db), "--out", str(out)],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    return out


def _target(page: Path, href: str) -> Path | None:
    """The file a relative link of ``page`` reaches (None for an anchor on the page)."""
    parts = urlsplit(href)
    assert not parts.scheme and not parts.netloc and not href.startswith("/"), href
    return (page.parent / unquote(parts.path)).resolve() if parts.path else None


def test_every_link_of_every_page_reaches_a_file_of_the_report(hostile_report: Path) -> None:
    root = hostile_report.resolve()
    pages = sorted(root.rglob("*.html"))
    assert len(pages) == 2 + len(HOSTILE_IDS)  # index, flagged, one page per table
    for page in pages:
        for href in Page(page.read_text(encoding="utf-8")).links:
            target = _target(page, href)
            if target is not None:
                assert target.is_file(), (page.relative_to(root), href)
                assert target.is_relative_to(root), (page.relative_to(root), href)


def test_each_flagged_round_links_to_its_own_page(hostile_report: Path) -> None:
    index = hostile_report / "index.html"
    hands = [h for h in Page(index.read_text(encoding="utf-8")).links if h.startswith("hands/")]
    assert len(hands) == len(set(hands)) == len(HOSTILE_IDS)
    shown = []
    for href in hands:
        target = _target(index, href)
        assert target is not None
        title = re.search(r"<title>Hand (.*) / (.*) / round 1</title>", target.read_text())
        assert title is not None, href
        shown.append((html.unescape(title[1]), html.unescape(title[2])))
    assert sorted(shown) == sorted(HOSTILE_IDS)


@pytest.mark.parametrize(
    "value", ["..", ".", "", "a/b", "_5ec1f7e700", "T07", "x" * 300, safe_name("..")]
)
def test_a_safe_name_is_never_another_ids_name(value: str) -> None:
    others = ["..", ".", "", "a/b", "a_b", "_5ec1f7e700", "T07", "x" * 300, "x" * 301]
    others += [safe_name(o) for o in others]
    assert all(safe_name(value) != safe_name(o) for o in others if o != value)
    assert safe_name(value) not in {"", ".", ".."} and "/" not in safe_name(value)


# --------------------------------------------------------------------------- 11e


@pytest.mark.parametrize(
    ("table", "shoe"),
    [
        ("T 07", "it's $(rm -rf ~)"),
        ("`id`", 'say "hi"; echo $HOME'),
        ("-n", "a\\b\t*"),
    ],
)
def test_the_copy_command_on_a_hand_page_gives_back_the_ids(table: str, shoe: str) -> None:
    """A report's hand page names a neighbouring round without a page by the command
    that shows it; pasted into a shell it must ask for exactly these ids."""
    replay = dataclasses.replace(example_replay(), table=table, shoe=shoe)
    ctx = build_hand_context(replay, 1, events=example_events())
    ctx = dataclasses.replace(
        ctx, report_href="../../../index.html", next_round=RoundLink(2, 1, None, "major")
    )
    page = Page(render_hand_context(ctx, "html"))
    commands = [t.strip() for t in page.text if t.strip().startswith("shoe-audit hand")]
    assert len(commands) == 1, commands
    words = shlex.split(commands[0])
    assert words[:2] == ["shoe-audit", "hand"]
    assert [w for w in words[2:] if w != "--"] == [table, shoe, "2"]
    # and the CLI reads them back as the ids, not as options
    hand = typer.main.get_command(app).commands["hand"]  # type: ignore[attr-defined]
    with hand.make_context("hand", words[2:]) as parsed:
        assert (parsed.params["table"], parsed.params["shoe"]) == (table, shoe)
        assert parsed.params["round_no"] == 2
