"""Bad input: every invalid line is quarantined with file:line and why; the rest goes in.

event-log.md "Files": "Any other line that is not a JSON object is an error at
that line"; rules.md: LOG_MALFORMED "the line is quarantined, the rest of the
file is still read". cli.md: ingest exits 0 even with rejected lines,
validate exits 1 when some line is invalid.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any

import pytest

from audit.errors import NoLogsError
from audit.findings import Code
from audit.ingest import ingest_paths, validate_paths
from audit.ingest import reader as reader_module
from audit.store import Store
from tests.ingest.helpers import dumps, ev, write_lines

GOOD_BEFORE = ev(1, "shoe_open", profile="it-casino-6d", decks=6, dealer="D042")
GOOD_AFTER = ev(3, "shuffle", method="wash")


def _check_rejected(store: Store, tmp_path: Path, bad: str | bytes, reason: str) -> None:
    """One bad line between two good ones: quarantined at line 2 with ``reason``."""
    path = write_lines(
        tmp_path / "logs" / "T07.jsonl", [dumps(GOOD_BEFORE), bad, dumps(GOOD_AFTER)]
    )
    summary = ingest_paths(store, [path])
    (fs,) = summary.files
    assert (fs.lines, fs.events, fs.new, fs.rejected) == (3, 2, 2, 1)
    assert fs.error is None
    (finding,) = store.all_findings(codes=[Code.LOG_MALFORMED])
    assert finding.source == f"{path}:2"
    assert finding.message.startswith(f"{path}:2: ")
    assert reason in finding.message
    stored = {r[0] for r in store.con.execute("SELECT id FROM events").fetchall()}
    assert stored == {"T07-1", "T07-3"}
    report = validate_paths([path])
    assert not report.ok
    assert len(report.invalid) == 1
    assert report.invalid[0].startswith(f"{path}:2: ")
    assert reason in report.invalid[0]


def test_not_json(store: Store, tmp_path: Path) -> None:
    _check_rejected(store, tmp_path, '{"id": "T07-2", "seq": 2,', "not JSON")


def test_json_that_is_not_an_object(store: Store, tmp_path: Path) -> None:
    _check_rejected(store, tmp_path, '["T07-2", 2]', "not a JSON object (a JSON list)")


def test_missing_required_field(store: Store, tmp_path: Path) -> None:
    e = ev(2, "shuffle", method="wash")
    del e["seq"]
    _check_rejected(store, tmp_path, dumps(e), "missing required field 'seq'")


def test_wrong_type(store: Store, tmp_path: Path) -> None:
    e = ev(2, "cut", by="box", box="3")
    _check_rejected(store, tmp_path, dumps(e), "box: Input should be a valid integer")


@pytest.mark.parametrize("card", ["1S", "AX"])
def test_unknown_card(store: Store, tmp_path: Path, card: str) -> None:
    e = ev(2, "card", round=1, card=card, to="dealer")
    _check_rejected(store, tmp_path, dumps(e), f"unknown card {card!r}")


def test_negative_stake(store: Store, tmp_path: Path) -> None:
    e = ev(2, "bet", round=1, box=1, spot=0, amount=-5)
    _check_rejected(store, tmp_path, dumps(e), "a stake is never negative")


def test_amount_with_three_decimals(store: Store, tmp_path: Path) -> None:
    line = dumps(ev(2, "settle", round=1, box=1, hand=0, spot=0, kind="main", amount=1)).replace(
        '"amount":1', '"amount":37.505'
    )
    _check_rejected(store, tmp_path, line, "money has at most 2 decimals")


@pytest.mark.parametrize("seq", ['"3"', "3.0", "true"], ids=["string", "float", "bool"])
def test_seq_not_an_integer(store: Store, tmp_path: Path, seq: str) -> None:
    line = dumps(ev(2, "shuffle", method="wash")).replace('"seq":2', f'"seq":{seq}')
    _check_rejected(store, tmp_path, line, "seq: Input should be a valid integer")


def test_timestamp_without_offset(store: Store, tmp_path: Path) -> None:
    e = ev(2, "shuffle", method="wash", ts="2026-11-28T20:00:02")
    _check_rejected(store, tmp_path, dumps(e), "ts must be RFC 3339 with an offset")


def test_ten_megabyte_line(store: Store, tmp_path: Path) -> None:
    e = ev(2, "shuffle", method="wash", note="x" * 10_000_000)
    line = dumps(e)
    _check_rejected(
        store, tmp_path, line, f"line too long ({len(line):,} bytes; the limit is 1 MB)"
    )
    (raw,) = store.con.execute("SELECT raw FROM quarantine").fetchall()[0]
    assert len(raw) == 10_000  # the quarantine keeps a truncated copy


def test_line_just_over_a_megabyte_inside_a_block(store: Store, tmp_path: Path) -> None:
    e = ev(2, "shuffle", method="wash", note="x" * 1_000_000)
    line = dumps(e)
    _check_rejected(store, tmp_path, line, f"line too long ({len(line):,} bytes")


def test_invalid_utf8(store: Store, tmp_path: Path) -> None:
    bad = dumps(ev(2, "shuffle", method="wash", note="NOTE")).encode().replace(b"NOTE", b"\xff\xfe")
    _check_rejected(store, tmp_path, bad, "invalid UTF-8 at byte")


def test_unknown_type_is_stored_not_rejected(store: Store, tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "T07.jsonl",
        [dumps(GOOD_BEFORE), dumps(ev(2, "tip_box", amount=5)), dumps(GOOD_AFTER)],
    )
    summary = ingest_paths(store, [path])
    assert (summary.new, summary.rejected, summary.files[0].unknown_types) == (3, 0, 1)
    (known,) = store.con.execute("SELECT known_type FROM events WHERE id = 'T07-2'").fetchall()[0]
    assert known is False
    # the replay, not ingest, reports it (with its round): see tests/cli/test_cli_e2e.py
    assert store.all_findings(codes=[Code.LOG_UNKNOWN_TYPE]) == []
    report = validate_paths([path])
    assert report.ok
    assert report.warnings == [f"{path}:2: unknown type 'tip_box' (kept, not replayed)"]


def test_empty_file_is_fine(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    summary = ingest_paths(store, [path])
    assert (summary.lines, summary.events, summary.new, summary.rejected) == (0, 0, 0, 0)
    assert summary.errors == []
    assert validate_paths([path]).ok


def test_blank_lines_are_ignored(store: Store, tmp_path: Path) -> None:
    path = write_lines(tmp_path / "T07.jsonl", ["", dumps(GOOD_BEFORE), "  \t", dumps(GOOD_AFTER)])
    summary = ingest_paths(store, [path])
    assert (summary.lines, summary.new, summary.rejected) == (4, 2, 0)


def test_truncated_gzip_keeps_the_lines_before(store: Store, tmp_path: Path) -> None:
    events = [ev(i, "shuffle", method="wash", note="n" * (i % 50)) for i in range(1, 5001)]
    data = gzip.compress(("\n".join(dumps(e) for e in events) + "\n").encode())
    path = tmp_path / "T07.jsonl.gz"
    path.write_bytes(data[: len(data) * 2 // 3])
    summary = ingest_paths(store, [path])
    (fs,) = summary.files
    assert fs.error is not None and "damaged gzip" in fs.error
    assert summary.errors == [f"{path}: {fs.error}"]
    assert 0 < fs.new < 5000
    assert fs.new == fs.lines  # every complete line before the damage went in
    ids = [r[0] for r in store.con.execute("SELECT id FROM events ORDER BY seq").fetchall()]
    assert ids == [f"T07-{i}" for i in range(1, fs.new + 1)]
    (finding,) = store.all_findings(codes=[Code.LOG_MALFORMED])
    assert finding.source == f"{path}:{fs.lines + 1}"
    assert "damaged gzip" in finding.message
    report = validate_paths([path])
    assert not report.ok and report.errors == [f"{path}: {fs.error}"]
    # Read again (not taken as stored before): the damage is reported again.
    (again,) = ingest_paths(store, [path]).files
    assert again.error == fs.error and again.new == 0 and again.duplicates == fs.new


def test_path_that_does_not_exist(store: Store, tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(NoLogsError, match=r"no such file or folder: .*nope\.jsonl"):
        ingest_paths(store, [missing])
    with pytest.raises(NoLogsError, match="no such file or folder"):
        validate_paths([missing])


def test_folder_with_no_logs(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    (folder / "sub").mkdir(parents=True)
    (folder / "notes.txt").write_text("hello")
    with pytest.raises(NoLogsError, match=r"no \*\.jsonl or \*\.jsonl\.gz files in folder"):
        ingest_paths(store, [folder])


def _unreadable(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Tests run as root, so chmod 000 does not stop reading: fail ``os.open`` instead."""
    real_open = os.open

    def fake_open(path: object, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(name):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(reader_module.os, "open", fake_open)


def test_unreadable_file_alone(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_lines(tmp_path / "T07.jsonl", [dumps(GOOD_BEFORE)])
    _unreadable(monkeypatch, "T07.jsonl")
    with pytest.raises(
        NoLogsError, match=r"nothing could be read: .*T07\.jsonl: cannot read: Permission denied"
    ):
        ingest_paths(store, [path])


def test_unreadable_file_among_others(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two small files share a transaction: the unreadable one does not undo the other."""
    write_lines(tmp_path / "logs" / "T07.jsonl", [dumps(GOOD_BEFORE)])
    write_lines(
        tmp_path / "logs" / "T08.jsonl", [dumps(ev(1, "shuffle", table="T08", method="wash"))]
    )
    _unreadable(monkeypatch, "T07.jsonl")
    summary = ingest_paths(store, [tmp_path / "logs"])
    assert summary.new == 1
    assert summary.errors == [f"{tmp_path / 'logs' / 'T07.jsonl'}: cannot read: Permission denied"]


def test_validate_of_many_small_files_names_each_files_own_lines(tmp_path: Path) -> None:
    """validate checks small files together; every message keeps its own file and line."""
    paths = []
    for t in range(1, 4):
        good = ev(1, "shuffle", table=f"T0{t}", method="wash")
        odd = ev(2, "some_new_type", table=f"T0{t}")
        paths.append(
            write_lines(
                tmp_path / "logs" / f"T0{t}.jsonl",
                [dumps(good)] * t + ['{"id": "broken"', dumps(odd)],
            )
        )
    report = validate_paths([tmp_path / "logs"])
    where = [line.split(": ", 1)[0] for line in report.invalid]
    assert where == [f"{p}:{t + 1}" for t, p in enumerate(paths, start=1)]
    assert all("not JSON" in line for line in report.invalid)
    assert report.warnings == [
        f"{p}:{t + 2}: unknown type 'some_new_type' (kept, not replayed)"
        for t, p in enumerate(paths, start=1)
    ]
    assert [(f.lines, f.events, f.rejected, f.unknown_types) for f in report.files] == [
        (t + 2, t + 1, 1, 1) for t in range(1, 4)
    ]
