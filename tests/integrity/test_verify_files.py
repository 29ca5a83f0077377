"""``verify FILES``: the original files aligned with the stored events by event id (issue 29,
points 4 and 5; cli.md ``verify``).

Point 4: a line removed from, inserted into, changed, moved or duplicated in a
file is named alone (file:line and event id), not every line after it. Point 5:
a file no ingest read is named "not ingested", not tampering; an archived copy
or a re-compressed one of an ingested file is recognised. Every test runs the
real CLI on the sample night's real files, ingested into a real database.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import SAMPLE, cli

LINE_101 = "T01-20261128-101"
"""The event on line 101 of the sample night's T01.jsonl (a settle of -50)."""


VERDICT = re.compile(r"^(intact|[\d,]+ differences?): ")


def verify(db: Path, *paths: Path) -> tuple[int, list[str], list[str], str]:
    """(exit code, LOG_TAMPERED lines, other stdout lines, stderr) of ``verify``; the
    verdict line, last on stdout, is not among the other lines."""
    result = cli("verify", "--db", str(db), *map(str, paths))
    out = result.stdout.splitlines()
    assert out and VERDICT.match(out[-1]), out  # the verdict: last, on stdout
    out = out[:-1]
    tampered = [x for x in out if x.startswith("LOG_TAMPERED ")]
    return result.exit_code, tampered, [x for x in out if x not in tampered], result.stderr


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sample night copied and ingested: (database, night folder)."""
    base = tmp_path_factory.mktemp("verify-files")
    night = base / "2026-11-28"
    shutil.copytree(SAMPLE, night)
    db = base / "audit.duckdb"
    assert cli("ingest", "--db", str(db), str(night)).exit_code == 0
    return db, night


@pytest.fixture
def night(ingested: tuple[Path, Path]) -> Iterator[Path]:
    """The ingested night's folder; each test may edit its files, which are put back after."""
    _, folder = ingested
    saved = {p: p.read_bytes() for p in folder.glob("*.jsonl")}
    yield folder
    for p, data in saved.items():
        p.write_bytes(data)


@pytest.fixture
def db(ingested: tuple[Path, Path]) -> Path:
    return ingested[0]


def lines_of(path: Path) -> list[str]:
    return path.read_text().split("\n")[:-1]


def write(path: Path, lines: list[str]) -> None:
    path.write_text("".join(x + "\n" for x in lines))


def about_lines(found: list[str]) -> list[str]:
    """The differences that name lines (all but the file's changed SHA-256)."""
    return [x for x in found if "the file changed since" not in x]


# --------------------------------------------------------------------------- point 4


def test_the_ingested_night_is_intact(db: Path, night: Path) -> None:
    assert verify(db, night)[:3] == (0, [], [])


def test_line_101_deleted_is_named_alone(db: Path, night: Path) -> None:
    """The issue's reproduction: every later event used to be named "inserted"."""
    t01 = night / "T01.jsonl"
    lines = lines_of(t01)
    assert json.loads(lines[100])["id"] == LINE_101
    write(t01, lines[:100] + lines[101:])
    code, found, _, _ = verify(db, night)
    assert code == 4
    assert len(found) == 2 and f"{t01}: SHA-256" in found[0]
    assert about_lines(found) == [
        f"LOG_TAMPERED input file T01/T01-20261128-01: {t01}:101: line removed since ingest: "
        f"event id {LINE_101} (the database holds it)"
    ]


def test_a_line_inserted_is_named_alone_by_its_line_and_id(db: Path, night: Path) -> None:
    """The issue's reproduction: an inserted line used to be "removed after ingest"."""
    t01 = night / "T01.jsonl"
    lines = lines_of(t01)
    forged = json.loads(lines[100]) | {"id": "T01-forged-1", "amount": 50}
    write(t01, [*lines[:100], json.dumps(forged), *lines[100:]])
    code, found, _, _ = verify(db, night)
    assert code == 4
    assert about_lines(found) == [
        f"LOG_TAMPERED input file: {t01}:101: line inserted since ingest: event id "
        "T01-forged-1 (not in the database)"
    ]


def test_one_field_changed_is_one_changed_event_naming_the_field(db: Path, night: Path) -> None:
    t01 = night / "T01.jsonl"
    lines = lines_of(t01)
    lines[100] = lines[100].replace('"amount":-50', '"amount":-500')
    write(t01, lines)
    code, found, _, _ = verify(db, night)
    assert code == 4
    assert about_lines(found) == [
        f"LOG_TAMPERED events T01/T01-20261128-01: {t01}:101: event id {LINE_101} differs "
        "from the stored event: amount -500 in the file, -50 stored"
    ]


def test_the_same_event_written_differently_is_no_change(db: Path, night: Path) -> None:
    """Key order and spacing do not matter (event-log.md); only the bytes changed."""
    t01 = night / "T01.jsonl"
    lines = lines_of(t01)
    lines[100] = json.dumps(dict(reversed(json.loads(lines[100]).items())), indent=None)
    write(t01, lines)
    code, found, _, _ = verify(db, night)
    assert code == 4 and about_lines(found) == []  # the file's SHA-256 alone


def test_two_lines_swapped_are_one_move(db: Path, night: Path) -> None:
    t01 = night / "T01.jsonl"
    lines = lines_of(t01)
    lines[99], lines[100] = lines[100], lines[99]
    write(t01, lines)
    code, found, _, _ = verify(db, night)
    assert code == 4
    assert about_lines(found) == [
        f"LOG_TAMPERED input file T01/T01-20261128-01: {t01}:100: event id {LINE_101} moved "
        "since ingest (it was line 101)"
    ]


def test_a_line_moved_far_is_one_move(db: Path, night: Path) -> None:
    t01 = night / "T01.jsonl"
    lines = lines_of(t01)
    moved = lines.pop(100)
    lines.insert(1999, moved)
    write(t01, lines)
    code, found, _, _ = verify(db, night)
    assert code == 4
    assert [x.split(": ", 2)[1:] for x in about_lines(found)] == [
        [f"{t01}:2000", f"event id {LINE_101} moved since ingest (it was line 101)"]
    ]


def test_a_garbage_line_inserted_is_named_by_its_line(db: Path, night: Path) -> None:
    t01 = night / "T01.jsonl"
    lines = lines_of(t01)
    write(t01, [*lines[:49], "not json at all", *lines[49:]])
    code, found, _, _ = verify(db, night)
    assert code == 4
    assert about_lines(found) == [
        f"LOG_TAMPERED input file: {t01}:50: line inserted since ingest, not a TEL/1 event: "
        "'not json at all'"
    ]


def test_a_line_that_is_not_utf8_inserted_is_named_by_its_line(db: Path, night: Path) -> None:
    t02 = night / "T02.jsonl"
    data = t02.read_bytes().split(b"\n")
    t02.write_bytes(b"\n".join([*data[:9], b"\xff\xfe garbage", *data[9:]]))
    code, found, _, _ = verify(db, night)
    assert code == 4
    assert [x.split(": ")[1] for x in about_lines(found)] == [f"{t02}:10"]


def test_a_duplicated_line_is_named_once(db: Path, night: Path) -> None:
    t01 = night / "T01.jsonl"
    lines = lines_of(t01)
    write(t01, [*lines[:101], lines[100], *lines[101:]])
    code, found, _, _ = verify(db, night)
    assert code == 4
    assert about_lines(found) == [
        f"LOG_TAMPERED input file T01/T01-20261128-01: {t01}:102: event id {LINE_101} "
        "duplicated since ingest (a second copy of line 101)"
    ]


def test_one_line_deleted_and_one_inserted_elsewhere_are_both_named_alone(
    db: Path, night: Path
) -> None:
    t03 = night / "T03.jsonl"
    lines = lines_of(t03)
    gone = json.loads(lines[1500])["id"]
    forged = json.loads(lines[10]) | {"id": "T03-forged"}
    write(t03, [*lines[:10], json.dumps(forged), *lines[10:1500], *lines[1501:]])
    code, found, _, _ = verify(db, night)
    assert code == 4
    named = about_lines(found)
    assert len(named) == 2
    assert f"{t03}:11: line inserted since ingest: event id T03-forged" in named[0]
    assert f"{t03}:1501: line removed since ingest: event id {gone}" in named[1]


def test_an_event_removed_from_the_database_under_the_original_file_is_named_alone(
    tmp_path: Path, night: Path, db: Path
) -> None:
    """The file is as ingested (its SHA-256 says so): the database is what changed."""
    import duckdb

    copy = tmp_path / db.name
    for suffix in ("", ".ledger"):
        shutil.copy(f"{db}{suffix}", f"{copy}{suffix}")
    con = duckdb.connect(str(copy))
    con.execute("DELETE FROM events WHERE id = ?", [LINE_101])
    con.close()
    code, found, _, _ = verify(copy, night)
    assert code == 4
    about_the_file = [x for x in found if str(night) in x and "ingest 1 (" not in x]
    assert about_the_file == [
        f"LOG_TAMPERED events: {night / 'T01.jsonl'}:101: event id {LINE_101} is not in the "
        "database (removed after ingest)"
    ]


def test_rejected_lines_are_aligned_by_their_text(tmp_path: Path) -> None:
    """A file ingested with a bad line: intact as it is; a line inserted before the bad one
    shifts it, and only the inserted line is named."""
    night = tmp_path / "night"
    night.mkdir()
    t04 = night / "T04.jsonl"
    lines = lines_of(SAMPLE / "T04.jsonl")
    write(t04, [*lines[:200], '{"id": "broken"', *lines[200:]])
    db = tmp_path / "audit.duckdb"
    assert cli("ingest", "--db", str(db), str(night)).exit_code == 0
    assert verify(db, night)[:3] == (0, [], [])
    forged = json.loads(lines[5]) | {"id": "T04-forged"}
    write(t04, [*lines[:5], json.dumps(forged), *lines[5:200], '{"id": "broken"', *lines[200:]])
    code, found, _, _ = verify(db, night)
    assert code == 4
    assert [x.split(": ", 2)[1] for x in about_lines(found)] == [f"{t04}:6"]
    write(t04, lines)  # the bad line removed
    code, found, _, _ = verify(db, night)
    assert about_lines(found) == [
        f"LOG_TAMPERED input file: {t04}:201: line removed since ingest: "
        """'{"id": "broken"' (a line ingest rejected)"""
    ]


# --------------------------------------------------------------------------- point 5


@pytest.fixture(scope="module")
def only_t01(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A database into which only T01.jsonl of a copy of the sample night was ingested."""
    base = tmp_path_factory.mktemp("only-t01")
    night = base / "2026-11-28"
    shutil.copytree(SAMPLE, night)
    db = base / "audit.duckdb"
    assert cli("ingest", "--db", str(db), str(night / "T01.jsonl")).exit_code == 0
    return db, night


def test_a_file_never_ingested_is_not_tampering(only_t01: tuple[Path, Path]) -> None:
    """The issue's reproduction: 2,846 events used to be "removed after ingest"."""
    db, night = only_t01
    code, found, others, _ = verify(db, night / "T01.jsonl", night / "T02.jsonl")
    assert (code, found) == (0, [])
    assert others == [
        f"{night / 'T02.jsonl'}: not ingested (2,846 events; the ledger knows neither its path "
        "nor its SHA-256, and none of its event ids is stored)"
    ]


def test_an_archived_copy_under_another_path_is_recognised(
    only_t01: tuple[Path, Path], tmp_path: Path
) -> None:
    db, night = only_t01
    archived = tmp_path / "archive" / "T01.jsonl"
    archived.parent.mkdir()
    shutil.copy(night / "T01.jsonl", archived)
    code, found, others, err = verify(db, archived)
    assert (code, found, others) == (0, [], [])
    assert f"{archived}: ingested as {night / 'T01.jsonl'} (the same bytes" in err


def test_a_gzip_of_an_ingested_file_is_recognised(
    only_t01: tuple[Path, Path], tmp_path: Path
) -> None:
    db, night = only_t01
    packed = tmp_path / "T01.jsonl.gz"
    packed.write_bytes(gzip.compress((night / "T01.jsonl").read_bytes()))
    code, found, others, err = verify(db, packed)
    assert (code, found, others) == (0, [], [])
    assert f"{packed}: ingested as {night / 'T01.jsonl'} (the same lines" in err


def test_a_gzip_of_an_ingested_file_still_shows_a_changed_database(
    only_t01: tuple[Path, Path], tmp_path: Path
) -> None:
    import duckdb

    db, night = only_t01
    copy = tmp_path / db.name
    for suffix in ("", ".ledger"):
        shutil.copy(f"{db}{suffix}", f"{copy}{suffix}")
    con = duckdb.connect(str(copy))
    con.execute("UPDATE events SET raw = replace(raw, '-50', '-5') WHERE id = ?", [LINE_101])
    con.close()
    packed = tmp_path / "T01.jsonl.gz"
    packed.write_bytes(gzip.compress((night / "T01.jsonl").read_bytes()))
    code, found, _, _ = verify(copy, packed)
    assert code == 4
    assert any(
        f"{packed}:101: event id {LINE_101} differs from the stored event: amount -50 in the "
        "file, -5 stored" in x
        for x in found
    ), found


def test_a_file_partly_ingested_names_the_rest(only_t01: tuple[Path, Path], tmp_path: Path) -> None:
    """Lines spread across files: those stored are compared, the others named not ingested."""
    db, night = only_t01
    mixed = tmp_path / "mixed.jsonl"
    write(mixed, lines_of(night / "T01.jsonl")[:1000] + lines_of(night / "T02.jsonl")[:12])
    code, found, others, err = verify(db, mixed)
    assert (code, found) == (0, [])
    assert others == [
        f"{mixed}: 12 of its 1,012 events not ingested (ids "
        + ", ".join(f"T02-20261128-{i}" for i in range(1, 11))
        + " and 2 more)"
    ]
    assert f"1,000 of its events were ingested from {night / 'T01.jsonl'} (1,000)" in err


def test_a_changed_event_in_a_file_ingested_under_other_bytes_is_a_difference(
    only_t01: tuple[Path, Path], tmp_path: Path
) -> None:
    db, night = only_t01
    lines = lines_of(night / "T01.jsonl")[:200]
    lines[100] = lines[100].replace('"amount":-50', '"amount":-5')
    part = tmp_path / "part.jsonl"
    write(part, lines)
    code, found, others, _ = verify(db, part)
    assert (code, others) == (4, [])
    assert found == [
        f"LOG_TAMPERED events T01/T01-20261128-01: {part}:101: event id {LINE_101} differs "
        "from the stored event: amount -5 in the file, -50 stored"
    ]


def test_another_file_under_an_ingested_path_is_not_ingested(
    only_t01: tuple[Path, Path], tmp_path: Path
) -> None:
    """A name reused (relative paths, another night's folder): the same path alone does not
    make a file the one ingested."""
    db, night = only_t01
    t01 = night / "T01.jsonl"
    saved = t01.read_bytes()
    try:
        shutil.copy(night / "T02.jsonl", t01)
        code, found, others, err = verify(db, t01)
    finally:
        t01.write_bytes(saved)
    assert (code, found) == (0, [])
    assert others == [f"{t01}: not ingested (2,846 events; {_NEITHER})"]
    assert "shares no event with this one: another file" in err


_NEITHER = "the ledger knows neither its path nor its SHA-256, and none of its event ids is stored"


def test_an_interrupted_ingest_leaves_its_files_not_ingested(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after the ledger file got the ingest records, before the commit: the files are
    not in the database, and verify says so, without a word of tampering."""
    from audit.ingest import pipeline

    night = tmp_path / "2026-11-28"
    shutil.copytree(SAMPLE, night)
    db = tmp_path / "audit.duckdb"
    assert cli("ingest", "--db", str(db), str(night / "T01.jsonl")).exit_code == 0

    def interrupted(*_: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "refresh_derived", interrupted)
    assert cli("ingest", "--db", str(db), str(night)).exit_code == 130
    monkeypatch.undo()
    ledger = Path(f"{db}.ledger").read_text().splitlines()
    assert sum('"kind":"ingest"' in x for x in ledger) == 1 + 4  # written, never committed
    code, found, others, _ = verify(db, night)
    assert (code, found) == (0, [])
    assert others == [
        f"{night / name}: not ingested ({n} events; {_NEITHER})"
        for name, n in (("T02.jsonl", "2,846"), ("T03.jsonl", "2,986"), ("T04.jsonl", "2,836"))
    ]
    assert cli("ingest", "--db", str(db), str(night)).exit_code == 0
    assert verify(db, night)[:3] == (0, [], [])


def test_a_file_ingested_by_a_relative_path_is_known_by_its_absolute_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ledger keeps paths as given (``ingest 2026-11-28`` from the folder above): the
    same file named otherwise is still the file ingested, and a line removed from it is
    named, not hidden behind "not ingested from this path"."""
    night = tmp_path / "2026-11-28"
    shutil.copytree(SAMPLE, night)
    monkeypatch.chdir(tmp_path)
    assert cli("ingest", "--db", "audit.duckdb", "2026-11-28").exit_code == 0
    monkeypatch.chdir(night)
    t01 = night / "T01.jsonl"
    lines = lines_of(t01)
    write(t01, lines[:100] + lines[101:])
    code, found, others, _ = verify(tmp_path / "audit.duckdb", t01)
    assert (code, others) == (4, [])
    assert found == [
        f"LOG_TAMPERED input file: {t01}: SHA-256 {_sha256(t01)}, but "
        f"{_sha256(SAMPLE / 'T01.jsonl')} when ingested as 2026-11-28/T01.jsonl "
        "(ledger record 1): the file changed since",
        f"LOG_TAMPERED input file T01/T01-20261128-01: {t01}:101: line removed since ingest: "
        f"event id {LINE_101} (the database holds it)",
    ]


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()
