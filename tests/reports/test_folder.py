"""Issue 10, point 9: the report folder is written whole into a sibling and swapped in;
nothing the report did not write is ever deleted; a foreign folder is refused."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from audit.errors import InputError, UsageError
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


# --------------------------------------------------------------------------- issue 29, point 1


def _files(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in folder.rglob("*") if p.is_file()}


def test_a_marker_naming_files_outside_its_folder_deletes_none_of_them(tmp_path: Path) -> None:
    """A marker is a file anyone may edit: ``../x``, ``/abs/x`` and a name through a link
    to a folder elsewhere are never deleted by the swap."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious.txt").write_text("keep")
    out = tmp_path / "rep"
    write(out, {"index.html": "old"})
    (out / "via").symlink_to(elsewhere, target_is_directory=True)
    (tmp_path / "sibling.txt").write_text("keep too")
    names = ["index.html", "../sibling.txt", str(elsewhere / "precious.txt"), "via/precious.txt"]
    (out / MARKER).write_text(json.dumps({"tool": "shoe-audit", "files": names}))
    swap = write(out, {"index.html": "new"})
    assert (tmp_path / "sibling.txt").read_text() == "keep too"
    assert (elsewhere / "precious.txt").read_text() == "keep"
    assert (out / "via").is_symlink() and swap.kept is None  # the link moved along, as a link
    assert _files(elsewhere) == {"precious.txt": "keep"}


def test_a_link_kept_aside_next_to_a_conflict_is_left_as_a_link(tmp_path: Path) -> None:
    """A link the report did not write, named like a new page, stays in the aside folder
    (it is never removed as if it were a folder, nor followed)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "rep"
    write(out, {"index.html": "old"})
    (out / "hands").symlink_to(empty, target_is_directory=True)
    swap = write(out, {"index.html": "new", "hands/T1/S/r1.html": "page"})
    assert swap.kept is not None and (swap.kept / "hands").is_symlink()
    assert empty.is_dir() and list(empty.iterdir()) == []
    assert (out / "hands" / "T1" / "S" / "r1.html").read_text() == "page"


@pytest.mark.parametrize("pointed", ["a report", "an empty folder", "nothing"])
def test_a_symlink_as_out_is_refused_before_anything_is_written(
    tmp_path: Path, pointed: str
) -> None:
    target = tmp_path / "archive"
    if pointed == "a report":
        write(target, {"index.html": "archived"})
        (target / "notes.txt").write_text("mine")
    elif pointed == "an empty folder":
        target.mkdir()
    before = _files(target) if target.exists() else None
    link = tmp_path / "latest"
    link.symlink_to(target, target_is_directory=True)
    listing = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(UsageError, match=r"is a symbolic link"):
        write(link, {"index.html": "new"})
    assert sorted(p.name for p in tmp_path.iterdir()) == listing
    assert (_files(target) if target.exists() else None) == before


def test_out_turned_into_a_link_while_rendering_is_refused_and_both_left_alone(
    tmp_path: Path,
) -> None:
    archive = tmp_path / "archive"
    write(archive, {"index.html": "archived"})
    out = tmp_path / "rep"
    write(out, {"index.html": "old"})
    done: list[Swap] = []
    with pytest.raises(UsageError, match=r"is a symbolic link"), report_folder(out, done) as st:
        st.write("index.html", "new")
        os.rename(out, tmp_path / "moved")
        out.symlink_to(archive, target_is_directory=True)
    assert _files(archive) == {"index.html": "archived", MARKER: (archive / MARKER).read_text()}
    assert (tmp_path / "moved" / "index.html").read_text() == "old" and not done
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archive", "moved", "rep"]
