"""Ingest: idempotent by event id, conflicts quarantined, gaps found, files atomic.

event-log.md "Files": the same event may arrive twice; an equal copy (as a
JSON value) is a harmless duplicate, a different one with the same id is a
conflict (first copy kept, LOG_ID_CONFLICT). "seq ... a gap means lost
events" (LOG_SEQ_GAP). cli.md "Gaming day".
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from pathlib import Path

import pytest

from audit.findings import Code, Severity
from audit.ingest import ingest_paths
from audit.ingest.reader import Batch
from audit.store import ShoeKey, Store
from tests.ingest.helpers import ROUND_FILE, dumps, ev, shoe_events, write_events, write_lines


def _count(store: Store, sql: str) -> int:
    return int(store.con.execute(sql).fetchall()[0][0])


def test_the_worked_round_goes_in(store: Store) -> None:
    summary = ingest_paths(store, [ROUND_FILE])
    assert (summary.lines, summary.events, summary.new, summary.duplicates, summary.rejected) == (
        26,
        26,
        26,
        0,
        0,
    )
    assert summary.gaming_days == [dt.date(2026, 11, 28)]
    (info,) = store.shoe_info().values()
    assert info.key == ShoeKey("T07", "T07-20261128-01")
    assert (info.profile, info.decks, info.dealer) == ("it-casino-6d", 6, "D042")
    assert (info.first_seq, info.last_seq, info.events) == (1, 26, 26)
    assert info.opened_at == dt.datetime(2026, 11, 28, 19, 0, tzinfo=dt.UTC)
    row = store.con.execute(
        "SELECT ts_local, utc_offset_min, amount, card FROM events WHERE id = 'T07-24'"
    ).fetchall()[0]
    assert row[0] == dt.datetime(2026, 11, 28, 20, 4, 21) and row[1] == 60
    assert str(row[2]) == "75.00"
    files = store.con.execute("SELECT path, lines, events, new_events FROM input_files").fetchall()
    assert files == [(str(ROUND_FILE), 26, 26, 26)]


def test_same_file_twice_adds_nothing(store: Store) -> None:
    ingest_paths(store, [ROUND_FILE])
    again = ingest_paths(store, [ROUND_FILE])
    assert (again.new, again.duplicates, again.rejected) == (0, 26, 0)
    assert again.gaming_days == []
    assert _count(store, "SELECT count(*) FROM events") == 26
    assert _count(store, "SELECT count(*) FROM input_files") == 1


def test_a_file_stored_before_is_only_hashed_and_reports_the_same(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A nightly re-run over the same folder: the same bytes at the same path are
    not read into the database again, and the summary says what a full re-read
    would (every event a duplicate, the same rejected lines and unknown types)."""
    lines = [dumps(e) for e in shoe_events(rounds=2)]
    lines.insert(3, '{"id": "broken"')
    lines.append(dumps(ev(90, "some_new_type")))
    path = write_lines(tmp_path / "T07.jsonl", lines)
    first = ingest_paths(store, [path]).files[0]
    from audit.ingest import pipeline

    def no_reading(*args: object) -> None:
        raise AssertionError("the file was read again")

    monkeypatch.setattr(pipeline, "LogReader", no_reading)
    again = ingest_paths(store, [path]).files[0]
    assert (again.lines, again.events, again.rejected, again.unknown_types) == (
        first.lines,
        first.events,
        first.rejected,
        first.unknown_types,
    )
    assert (again.new, again.duplicates) == (0, first.events)
    assert _count(store, "SELECT count(*) FROM input_files") == 1
    assert _count(store, "SELECT duplicates FROM input_files") == first.events
    monkeypatch.undo()
    # Other bytes at the same path are read.
    write_lines(path, [*lines, dumps(ev(91, "shuffle", method="wash"))])
    changed = ingest_paths(store, [path]).files[0]
    assert (changed.new, changed.duplicates) == (1, first.events)


def test_overlapping_exports(store: Store, tmp_path: Path) -> None:
    events = shoe_events(rounds=3)  # 25 events
    first = write_events(tmp_path / "a" / "T07.jsonl", events[:15])
    # The second export repeats 5 events, written by another tool: other key order and spacing.
    second = write_lines(
        tmp_path / "b" / "T07.jsonl",
        [json.dumps(dict(reversed(list(e.items()))), indent=None) for e in events[10:]],
    )
    ingest_paths(store, [first])
    summary = ingest_paths(store, [second])
    assert (summary.new, summary.duplicates, summary.rejected) == (10, 5, 0)
    assert _count(store, "SELECT count(*) FROM events") == 25
    assert store.all_findings() == []


def test_duplicate_within_one_file(store: Store, tmp_path: Path) -> None:
    e = ev(1, "shuffle", method="wash")
    path = write_lines(
        tmp_path / "T07.jsonl", [dumps(e), dumps(e), dumps(ev(2, "cut", by="dealer"))]
    )
    summary = ingest_paths(store, [path])
    assert (summary.new, summary.duplicates, summary.rejected) == (2, 1, 0)


def test_money_equal_as_a_value_is_a_duplicate(store: Store, tmp_path: Path) -> None:
    bet = dumps(ev(5, "bet", round=1, box=1, spot=0, amount=37.5))
    same = bet.replace('"amount":37.5', '"amount":37.50')
    path = write_lines(tmp_path / "T07.jsonl", [bet, same])
    summary = ingest_paths(store, [path])
    assert (summary.new, summary.duplicates, summary.rejected) == (1, 1, 0)


def test_id_conflict_keeps_the_first_copy(store: Store, tmp_path: Path) -> None:
    first = write_events(tmp_path / "a.jsonl", [ev(8, "bet", round=1, box=1, spot=0, amount=50)])
    second = write_events(tmp_path / "b.jsonl", [ev(8, "bet", round=1, box=1, spot=0, amount=500)])
    ingest_paths(store, [first])
    summary = ingest_paths(store, [second])
    assert (summary.new, summary.duplicates, summary.rejected) == (0, 0, 1)
    assert store.con.execute("SELECT amount FROM events").fetchall() == [(50,)]
    (finding,) = store.all_findings()
    assert finding.code is Code.LOG_ID_CONFLICT and finding.severity is Severity.CRITICAL
    assert finding.source == f"{second}:1"
    assert finding.events == ("T07-8",)
    assert f"first seen at {first}:1" in finding.message
    # Re-ingesting the conflicting file reports the conflict once, not twice.
    ingest_paths(store, [second])
    assert len(store.all_findings()) == 1


def test_duplicates_and_conflicts_across_files_of_one_pooled_batch(
    store: Store, tmp_path: Path
) -> None:
    """Small files go through the bulk step together: the earlier file's copy
    still wins, each file gets its own counts, and the conflict names the line
    of the first copy in the other file."""
    events = shoe_events(rounds=3)  # 25 events
    first = write_events(tmp_path / "logs" / "a.jsonl", events[:15])
    later = [json.dumps(dict(reversed(list(e.items())))) for e in events[10:]]
    later[4] = json.dumps({**events[14], "extra": "other content"})  # same id, other content
    second = write_lines(tmp_path / "logs" / "b.jsonl", later)
    summary = ingest_paths(store, [tmp_path / "logs"])
    per_file = [(f.new, f.duplicates, f.rejected) for f in summary.files]
    assert per_file == [(15, 0, 0), (10, 4, 1)]
    assert _count(store, "SELECT count(*) FROM events") == 25
    (finding,) = store.all_findings()
    assert finding.code is Code.LOG_ID_CONFLICT
    assert finding.source == f"{second}:5"
    assert f"first seen at {first}:15" in finding.message
    stored = store.con.execute(
        """SELECT f.path, count(*) FROM events JOIN input_files f USING (file_id)
           GROUP BY 1 ORDER BY 1"""
    ).fetchall()
    assert stored == [(str(first), 15), (str(second), 10)]


def test_id_conflict_within_one_file(store: Store, tmp_path: Path) -> None:
    a = ev(3, "shuffle", method="wash")
    b = ev(3, "shuffle", method="riffle")
    path = write_lines(tmp_path / "T07.jsonl", [dumps(a), dumps(b)])
    summary = ingest_paths(store, [path])
    assert (summary.new, summary.rejected) == (1, 1)
    (finding,) = store.all_findings()
    assert finding.source == f"{path}:2" and f"first seen at {path}:1" in finding.message
    assert store.con.execute("SELECT method FROM events").fetchall() == [("wash",)]


def test_a_shoe_whose_events_come_in_files_ingested_apart_has_its_whole_shoes_row(
    store: Store, tmp_path: Path
) -> None:
    """A night's ingest refreshes ``shoes`` from the files that hold the touched shoes
    only (``file_shoes``, so the history is not scanned per file group): a shoe whose
    events are split over three files, the middle one late, still counts every one."""
    events = shoe_events(rounds=3)  # seq 1..26
    parts = [events[:9], events[18:], events[9:18]]
    shoe_events_of_others = shoe_events(table="T08", shoe="S9", rounds=1)
    for i, part in enumerate(parts):
        folder = tmp_path / f"ingest{i}"
        write_events(folder / "T07.jsonl", part)
        write_events(folder / "T08.jsonl", shoe_events_of_others)
        ingest_paths(store, [folder])
    incremental = store.con.execute("SELECT * FROM shoes ORDER BY ALL").fetchall()
    with store.transaction():
        store.refresh_shoes()  # every shoe from every stored event
    assert store.con.execute("SELECT * FROM shoes ORDER BY ALL").fetchall() == incremental
    info = store.shoe_info()[ShoeKey("T07", "S1")]
    assert (info.events, info.first_seq, info.last_seq) == (len(events), 1, len(events))


def test_seq_gap_is_found_and_filled_by_a_later_file(store: Store, tmp_path: Path) -> None:
    events = shoe_events(rounds=2)  # seq 1..18
    missing = [e for e in events if e["seq"] in (6, 7, 8)]
    kept = [e for e in events if e["seq"] not in (6, 7, 8)]
    ingest_paths(store, [write_events(tmp_path / "day.jsonl", kept)])
    (gap,) = store.all_findings(codes=["LOG_SEQ_GAP"])
    assert gap.message == "table T07: seq 5 → 9, 3 events missing"
    assert gap.events == ("T07-5", "T07-9")
    assert gap.severity is Severity.MAJOR
    ingest_paths(store, [write_events(tmp_path / "late.jsonl", missing)])
    assert store.all_findings(codes=["LOG_SEQ_GAP"]) == []


def test_seq_gaps_are_kept_refound_and_split_as_later_files_come(
    store: Store, tmp_path: Path
) -> None:
    """Only the stretch of a table's seq around new events is looked at again:
    a gap elsewhere in its history stays, a gap next to the new events is
    found, and new events inside a gap split it."""
    events = shoe_events(rounds=4)  # seq 1..34

    def seqs(*keep: range) -> list[dict[str, object]]:
        return [e for e in events if any(int(str(e["seq"])) in r for r in keep)]

    def gaps() -> list[str]:
        return sorted(f.message for f in store.all_findings(codes=["LOG_SEQ_GAP"]))

    ingest_paths(store, [write_events(tmp_path / "a.jsonl", seqs(range(1, 5), range(8, 13)))])
    assert gaps() == ["table T07: seq 4 → 8, 3 events missing"]
    ingest_paths(store, [write_events(tmp_path / "b.jsonl", seqs(range(20, 25)))])
    assert gaps() == [
        "table T07: seq 12 → 20, 7 events missing",
        "table T07: seq 4 → 8, 3 events missing",
    ]
    ingest_paths(store, [write_events(tmp_path / "c.jsonl", seqs(range(15, 16)))])
    assert gaps() == [
        "table T07: seq 12 → 15, 2 events missing",
        "table T07: seq 15 → 20, 4 events missing",
        "table T07: seq 4 → 8, 3 events missing",
    ]
    ingest_paths(store, [write_events(tmp_path / "d.jsonl", seqs(range(5, 8), range(13, 15)))])
    assert gaps() == ["table T07: seq 15 → 20, 4 events missing"]


def test_seq_gaps_after_stretches_in_any_order_are_those_of_the_whole_table(
    store: Store, tmp_path: Path
) -> None:
    """A transaction looks for the stored neighbours of its new events near them (between
    the shoes just below and just above), not in the table's whole history: whatever
    order the stretches of two tables come in, the gaps are those of everything stored."""
    import random

    rng = random.Random(7)
    events: list[dict[str, object]] = []
    for table, first in (("T07", 1), ("T08", 400)):
        seq = first
        for n in range(5):
            shoe = shoe_events(table=table, shoe=f"{table}-S{n}", first_seq=seq, rounds=3)
            events += shoe
            seq += len(shoe)
    kept = [e for e in events if e["type"] != "shoe_open" and rng.random() > 0.1]
    kept += [e for e in events if e["type"] == "shoe_open"]  # every shoe keeps its profile
    kept.sort(key=lambda e: (str(e["table"]), int(str(e["seq"]))))
    stretches = [kept[i : i + 13] for i in range(0, len(kept), 13)]
    rng.shuffle(stretches)
    stored: list[dict[str, object]] = []
    for i in range(0, len(stretches), 2):
        files = [
            write_events(tmp_path / f"f{i + j}.jsonl", part)
            for j, part in enumerate(stretches[i : i + 2])
        ]
        ingest_paths(store, files)
        stored += [e for part in stretches[i : i + 2] for e in part]
        want = []
        for table in ("T07", "T08"):
            seqs = sorted(int(str(e["seq"])) for e in stored if e["table"] == table)
            for a, b in itertools.pairwise(seqs):
                if b > a + 1:
                    n = b - a - 1
                    want.append(
                        f"table {table}: seq {a} → {b}, {n} event{'' if n == 1 else 's'} missing"
                    )
        got = sorted(f.message for f in store.all_findings(codes=["LOG_SEQ_GAP"]))
        assert got == sorted(want), f"after {i // 2 + 1} ingests"


def test_seq_gaps_are_per_table(store: Store, tmp_path: Path) -> None:
    t07 = shoe_events(table="T07", rounds=1)
    t08 = shoe_events(table="T08", rounds=1, first_seq=100)
    ingest_paths(store, [write_events(tmp_path / "x.jsonl", t07 + t08)])
    assert store.all_findings(codes=["LOG_SEQ_GAP"]) == []


class Boom(Exception):
    pass


def test_interrupted_ingest_leaves_nothing_and_a_rerun_completes(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audit.ingest import reader

    monkeypatch.setattr(reader, "BLOCK_BYTES", 1_000)  # many batches per file
    monkeypatch.setattr(reader, "BATCH_BYTES", 2_000)
    write_events(tmp_path / "logs" / "a.jsonl", shoe_events(table="T01", rounds=3))
    big = write_events(tmp_path / "logs" / "b.jsonl", shoe_events(table="T02", rounds=40))
    calls = {"b": 0}

    def hook(path: Path, batch: Batch) -> None:
        if path == big:
            calls["b"] += 1
            if calls["b"] == 3:  # the file is half stored when this happens
                raise Boom

    with pytest.raises(Boom):
        ingest_paths(store, [tmp_path / "logs"], on_batch=hook)
    tables = store.con.execute("SELECT DISTINCT table_id FROM events").fetchall()
    assert tables == [("T01",)]  # a.jsonl committed, nothing of b.jsonl
    assert _count(store, "SELECT count(*) FROM input_files") == 1
    assert [k.table for k in store.shoe_info()] == ["T01"]
    summary = ingest_paths(store, [tmp_path / "logs"])
    assert [f.new for f in summary.files] == [0, 284]
    assert _count(store, "SELECT count(*) FROM events WHERE table_id = 'T02'") == 284
    assert store.all_findings() == []


def test_small_files_share_a_transaction_and_a_rerun_completes_them(
    store: Store, tmp_path: Path
) -> None:
    """Small files are committed together (a commit per file dominated their cost):
    an interruption loses the whole group, never part of a file, and a re-run
    stores every file of it, each with its own input_files row."""
    paths = [
        write_events(tmp_path / "logs" / f"T0{t}.jsonl", shoe_events(table=f"T0{t}"))
        for t in (1, 2, 3)
    ]

    def hook(path: Path, batch: Batch) -> None:
        if path == paths[2]:
            raise Boom

    with pytest.raises(Boom):
        ingest_paths(store, [tmp_path / "logs"], on_batch=hook)
    assert _count(store, "SELECT count(*) FROM events") == 0
    assert _count(store, "SELECT count(*) FROM input_files") == 0
    summary = ingest_paths(store, [tmp_path / "logs"])
    assert [f.new for f in summary.files] == [11, 11, 11]
    rows = store.con.execute(
        """SELECT f.path, count(*) FROM events e JOIN input_files f USING (file_id)
           GROUP BY f.path ORDER BY f.path"""
    ).fetchall()
    assert rows == [(str(p), 11) for p in paths]
    assert [k.table for k in store.shoe_info()] == ["T01", "T02", "T03"]


def test_gzip_and_plain_files_in_a_folder(store: Store, tmp_path: Path) -> None:
    write_events(
        tmp_path / "logs" / "2026-11-28" / "T07.jsonl.gz", shoe_events(table="T07"), gz=True
    )
    write_events(tmp_path / "logs" / "2026-11-28" / "T08.jsonl", shoe_events(table="T08"))
    (tmp_path / "logs" / "README.txt").write_text("not a log")
    summary = ingest_paths(store, [tmp_path / "logs"])
    assert [Path(f.path).name for f in summary.files] == ["T07.jsonl.gz", "T08.jsonl"]
    assert summary.new == 22 and summary.rejected == 0
    sha = store.con.execute("SELECT sha256, size_bytes FROM input_files ORDER BY path").fetchall()
    gz_bytes = (tmp_path / "logs" / "2026-11-28" / "T07.jsonl.gz").read_bytes()
    import hashlib

    assert sha[0] == (hashlib.sha256(gz_bytes).hexdigest(), len(gz_bytes))


def test_gaming_day_of_a_shoe_opened_after_midnight(store: Store, tmp_path: Path) -> None:
    # cli.md: a shoe opened at 02:30 on 29 November belongs to gaming day 28 November.
    late = shoe_events(table="T07", shoe="late", ts_day="2026-11-29T02")
    ingest_paths(store, [write_events(tmp_path / "a.jsonl", late)])
    (info,) = store.shoe_info().values()
    assert info.gaming_day == dt.date(2026, 11, 28)


def test_day_start_moves_the_boundary(store: Store, tmp_path: Path) -> None:
    late = shoe_events(table="T07", shoe="late", ts_day="2026-11-29T02")
    path = write_events(tmp_path / "a.jsonl", late)
    summary = ingest_paths(store, [path], day_start="02:00")
    assert summary.gaming_days == [dt.date(2026, 11, 29)]
    (info,) = store.shoe_info().values()
    assert info.gaming_day == dt.date(2026, 11, 29)
    # Back to the default: every stored shoe is recomputed.
    ingest_paths(store, [path])
    (info,) = store.shoe_info().values()
    assert info.gaming_day == dt.date(2026, 11, 28)


def test_gaming_day_uses_the_tables_local_time(store: Store, tmp_path: Path) -> None:
    events = shoe_events(table="T07", shoe="tz")
    for e in events:  # 05:30 in New York is 10:30 UTC: still the previous gaming day there
        e["ts"] = e["ts"].replace("2026-11-28T20", "2026-11-29T05").replace("+01:00", "-05:00")
    ingest_paths(store, [write_events(tmp_path / "a.jsonl", events)])
    (info,) = store.shoe_info().values()
    assert info.gaming_day == dt.date(2026, 11, 28)


def test_bad_day_start_is_refused(store: Store) -> None:
    with pytest.raises(ValueError, match="HH:MM"):
        ingest_paths(store, [ROUND_FILE], day_start="6am")


def test_a_shoe_spanning_two_files_changes_its_digest(store: Store, tmp_path: Path) -> None:
    events = shoe_events(rounds=2)
    ingest_paths(store, [write_events(tmp_path / "a.jsonl", events[:10])])
    (before,) = store.shoe_info().values()
    ingest_paths(store, [write_events(tmp_path / "b.jsonl", events[10:])])
    (after,) = store.shoe_info().values()
    assert before.events_digest != after.events_digest
    assert (before.events, after.events) == (10, 18)


def test_files_that_share_a_transaction_are_recorded_as_if_each_came_alone(
    store: Store, tmp_path: Path
) -> None:
    """A group's files are finished together (one query over the group's new events for
    their counts, shoes and fingerprints): each file still gets exactly the counts,
    ``file_shoes`` rows, seq ranges and ledger record it gets when ingested alone."""
    from audit.store import open_store

    a = shoe_events(rounds=2)
    b = shoe_events(table="T08", shoe="S2", rounds=3)
    c = shoe_events(table="T09", shoe="S3", rounds=1)
    unknown = {**ev(90, "dealer_mood", table="T09", shoe="S3"), "round": 1}
    files = [
        write_events(tmp_path / "logs" / "1.jsonl", a[:12]),
        write_events(tmp_path / "logs" / "2.jsonl", b),
        write_events(tmp_path / "logs" / "3.jsonl", a[8:12] + c[:5]),  # S1: duplicates only
        write_events(tmp_path / "logs" / "4.jsonl", [*a[12:], *c[5:], unknown]),
    ]

    def recorded(s: Store) -> list[object]:
        rows: list[object] = [
            s.con.execute(
                """SELECT f.path, f.lines, f.events, f.new_events, f.duplicates, f.rejected
                    FROM input_files f ORDER BY f.path"""
            ).fetchall(),
            s.con.execute(
                """SELECT f.path, fs.table_id, fs.shoe FROM file_shoes fs
                   JOIN input_files f USING (file_id) ORDER BY ALL"""
            ).fetchall(),
            s.con.execute("SELECT * FROM shoes ORDER BY ALL").fetchall(),
            [f.code for f in s.all_findings()],
        ]
        for (body,) in s.con.execute(
            "SELECT body FROM ledger WHERE kind = 'ingest' ORDER BY no"
        ).fetchall():
            record = json.loads(body)
            rows.append({k: v for k, v in record.items() if k not in ("at", "ingest", "file")})
        return rows

    summary = ingest_paths(store, [tmp_path / "logs"])
    assert [(f.new, f.duplicates, f.unknown_types) for f in summary.files] == [
        (12, 0, 0), (len(b), 0, 0), (5, 4, 0), (len(a) - 12 + len(c) - 5 + 1, 0, 1)
    ]  # fmt: skip
    shoes_of = store.con.execute(
        """SELECT f.path, list(fs.shoe ORDER BY fs.shoe) FROM file_shoes fs
           JOIN input_files f USING (file_id) GROUP BY 1 ORDER BY 1"""
    ).fetchall()
    assert shoes_of == [
        (str(files[0]), ["S1"]), (str(files[1]), ["S2"]),
        (str(files[2]), ["S1", "S3"]), (str(files[3]), ["S1", "S3"]),
    ]  # fmt: skip
    with open_store(tmp_path / "alone.duckdb") as alone:
        for f in files:
            ingest_paths(alone, [f])
        assert recorded(store) == recorded(alone)
