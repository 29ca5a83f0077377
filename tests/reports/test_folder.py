"""Issue 10, point 9: the report folder is written whole into a sibling and swapped in;
nothing the report did not write is ever deleted; a foreign folder is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.errors import InputError
from audit.reports.folder import MARKER, Swap, read_marker, report_folder


def write(out: Path, files: dict[str, str]) -> Swap:
    done: list[Swap] = []
    with report_folder(out, done) as stage:
        for rel, text in files.items():
            stage.write(rel, text)
    return done[0]


def test_a_new_folder_gets_the_files_and_a_marker_listing_them(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    swap = write(out, {"index.html": "a", "hands/T1/S/r1.html": "b"})
    assert swap.files == ("hands/T1/S/r1.html", "index.html") and swap.kept is None
    assert read_marker(out) == ["hands/T1/S/r1.html", "index.html"]
    assert json.loads((out / MARKER).read_text())["tool"] == "shoe-audit"
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]  # no staging folder left


def test_stale_pages_of_an_earlier_report_are_gone(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    write(out, {"index.html": "old", "hands/T1/S/r1.html": "old page"})
    write(out, {"index.html": "new", "hands/T1/S/r2.html": "new page"})
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == [
        MARKER,
        "hands/T1/S/r2.html",
        "index.html",
    ]
    assert (out / "index.html").read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]


def test_a_file_the_report_did_not_write_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    write(out, {"index.html": "old"})
    (out / "notes.txt").write_text("mine")
    (out / "hands").mkdir()
    (out / "hands" / "keep.pdf").write_text("mine too")
    swap = write(out, {"index.html": "new"})
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "hands" / "keep.pdf").read_text() == "mine too"
    assert swap.kept is None and [p.name for p in tmp_path.iterdir()] == ["rep"]


def test_a_foreign_file_named_like_a_new_page_is_left_aside_not_deleted(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    write(out, {"index.html": "old"})
    (out / "flagged.html").write_text("someone's own file")
    swap = write(out, {"index.html": "new", "flagged.html": "the report's"})
    assert swap.kept is not None
    assert (swap.kept / "flagged.html").read_text() == "someone's own file"
    assert (out / "flagged.html").read_text() == "the report's"


def test_a_folder_that_is_not_a_report_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "docs"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    with pytest.raises(InputError, match=r"not empty and holds no shoe-audit report"):
        write(out, {"index.html": "x"})
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]
    assert [p.name for p in tmp_path.iterdir()] == ["docs"]


def test_an_empty_folder_is_used(tmp_path: Path) -> None:
    out = tmp_path / "empty"
    out.mkdir()
    write(out, {"index.html": "x"})
    assert (out / "index.html").read_text() == "x"


def test_a_failed_render_leaves_the_old_report_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    write(out, {"index.html": "old"})
    done: list[Swap] = []
    with pytest.raises(RuntimeError), report_folder(out, done) as stage:
        stage.write("index.html", "half")
        raise RuntimeError("template broke")
    assert (out / "index.html").read_text() == "old" and not done
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]
