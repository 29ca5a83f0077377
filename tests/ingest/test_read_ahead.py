"""Issue 33: ingest reads and validates the next files in a thread while it stores the last.

What is stored must not depend on how far ahead the thread got: the same rows whatever
the groups and passes, file ids in the files' order, and an ingest that ends early
(an interruption, an error in the thread) leaves no thread behind and loses whole groups
only.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from audit.ingest import ahead, bulkstep, ingest_paths, pipeline, reader
from audit.ingest.reader import Batch
from audit.store import Store, open_store
from audit.store.store import INGEST_CACHE_LIMIT
from tests.ingest.helpers import dumps, ev, shoe_events, write_events, write_lines


class Boom(Exception):
    pass


def _readers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "shoe-audit-read-ahead"]


def _shoe(day: int, t: int, rounds: int = 2) -> list[dict[str, Any]]:
    return shoe_events(table=f"T{t:02d}", shoe=f"S{day}-{t}", first_seq=100 * day, rounds=rounds)


def _month(logs: Path) -> list[Path]:
    """Files of several tables and days, with what needs the merge and the quarantine:
    a malformed line, a blank run, an id twice in a file, an id again in another file
    with other content (a conflict) and with the same (a duplicate), an unknown type."""
    paths = []
    for day in (1, 2, 3):
        for t in (1, 2, 3, 4):
            paths.append(write_events(logs / f"2026-11-0{day}" / f"T{t:02d}.jsonl", _shoe(day, t)))
    first = shoe_events(table="T09", shoe="S9", rounds=1)
    lines = [dumps(e) for e in first]
    lines[3:3] = ["{not json", "", "", lines[2]]  # malformed, blanks, the same id again
    lines.append(dumps(ev(90, "dealer_mood", table="T09", shoe="S9", mood="sunny")))
    paths.append(write_lines(logs / "2026-11-04" / "T09.jsonl", lines))
    other = [dict(e) for e in first[:3]]
    other[1]["seq"] = 999  # same id, other content: LOG_ID_CONFLICT
    paths.append(write_events(logs / "2026-11-04" / "T09b.jsonl", other))
    return paths


def _stored(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    with open_store(db) as store:
        con = store.con
        return {
            "events": con.execute(
                "SELECT * EXCLUDE (ingest_id) FROM events ORDER BY file_id, line_no"
            ).fetchall(),
            "quarantine": con.execute(
                "SELECT * EXCLUDE (ingest_id) FROM quarantine ORDER BY file_id, line_no, code"
            ).fetchall(),
            "files": con.execute(
                """SELECT path, sha256, lines, events, new_events, duplicates, rejected
                   FROM input_files ORDER BY file_id"""
            ).fetchall(),
            "findings": con.execute("SELECT * FROM log_findings ORDER BY ALL").fetchall(),
        }


def test_reading_ahead_stores_the_same_rows_whatever_the_groups_and_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One transaction and pass for all files, against a group and several passes a
    file (the thread a pass ahead all the way): the same events, quarantine, files (in
    the files' order) and findings."""
    paths = _month(tmp_path / "logs")
    with open_store(tmp_path / "one.duckdb") as store:
        one = ingest_paths(store, [tmp_path / "logs"])
    monkeypatch.setattr(pipeline, "GROUP_FILES", 1)
    monkeypatch.setattr(reader, "BLOCK_BYTES", 500)
    monkeypatch.setattr(reader, "BATCH_BYTES", 1_000)
    with open_store(tmp_path / "many.duckdb") as store:
        many = ingest_paths(store, [tmp_path / "logs"])
    assert [f.path for f in many.files] == [str(p) for p in paths]
    assert [(f.new, f.duplicates, f.rejected, f.unknown_types) for f in many.files] == [
        (f.new, f.duplicates, f.rejected, f.unknown_types) for f in one.files
    ]
    assert many.files[-2].rejected == 1 and many.files[-1].rejected == 1  # the test sees both
    assert many.files[-1].duplicates == 2 and many.files[-2].unknown_types == 1
    one_rows, many_rows = _stored(tmp_path / "one.duckdb"), _stored(tmp_path / "many.duckdb")
    assert many_rows == one_rows
    assert [r[0] for r in many_rows["files"]] == [str(p) for p in paths]
    assert not _readers()


def test_a_rerun_with_one_file_changed_hashes_the_others_and_reads_that_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thread hashes a file stored before from its path (nothing read into the
    database) and reads a changed one, in one group: the changed file's new lines go in."""
    paths = _month(tmp_path / "logs")
    db = tmp_path / "a.duckdb"
    with open_store(db) as store:
        ingest_paths(store, [tmp_path / "logs"])
    events = _shoe(2, 2, rounds=3)  # one more round
    write_events(paths[5], events)
    monkeypatch.setattr(pipeline, "GROUP_FILES", 4)
    with open_store(db) as store:
        again = ingest_paths(store, [tmp_path / "logs"])
        assert [f.new for f in again.files] == [0] * 5 + [7] + [0] * 8
        assert store.con.execute(
            "SELECT count(*) FROM events WHERE table_id = 'T02' AND shoe = 'S2-2'"
        ).fetchall() == [(len(events),)]


def test_an_ingest_interrupted_stops_its_reading_thread(store: Store, tmp_path: Path) -> None:
    """Interrupted from the batch hook (as Ctrl-C would be) while the thread reads on:
    the thread is stopped and waited for, the groups before are committed, a re-run
    completes the rest."""
    paths = _month(tmp_path / "logs")
    at = paths[6]

    def hook(path: Path, batch: Batch) -> None:
        if path == at:
            raise Boom

    pipeline_groups = pipeline.GROUP_FILES
    try:
        pipeline.GROUP_FILES = 3
        with pytest.raises(Boom):
            ingest_paths(store, [tmp_path / "logs"], on_batch=hook)
    finally:
        pipeline.GROUP_FILES = pipeline_groups
    assert not _readers()
    stored = store.con.execute("SELECT path FROM input_files ORDER BY file_id").fetchall()
    assert stored == [(str(p),) for p in paths[:6]]  # two whole groups
    summary = ingest_paths(store, [tmp_path / "logs"])
    # the last file holds only copies of the one before (duplicates, a conflict)
    assert [f.new > 0 for f in summary.files] == [False] * 6 + [True] * 7 + [False]


def test_an_error_in_the_reading_thread_is_the_ingests_error(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What goes wrong in the thread (here its DuckDB query) is raised by ingest, in the
    main thread, and nothing of that group is stored."""
    _month(tmp_path / "logs")
    calls = {"n": 0}
    checked = bulkstep.Session.checked

    def failing(self: bulkstep.Session, split: bulkstep.Split) -> bulkstep.Prepared:
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("the validator's query failed")
        return checked(self, split)

    monkeypatch.setattr(bulkstep.Session, "checked", failing)
    monkeypatch.setattr(pipeline, "GROUP_FILES", 5)
    with pytest.raises(RuntimeError, match="the validator's query failed"):
        ingest_paths(store, [tmp_path / "logs"])
    assert not _readers()
    assert store.con.execute("SELECT count(*) FROM input_files").fetchall() == [(5,)]


def test_the_thread_holds_one_pass_ahead_at_most(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Passes checked and not yet stored never exceed PASSES_OUT (the memory bound); one
    more may be split meanwhile (the split overlaps the store), never two."""
    _month(tmp_path / "logs")
    monkeypatch.setattr(pipeline, "GROUP_FILES", 2)
    out = {"split": 0, "checked": 0, "most_split": 0, "most_checked": 0}
    lock = threading.Lock()
    split, checked = bulkstep.Session.split, bulkstep.Session.checked
    store_prepared = bulkstep.Session.store_prepared

    def counted(kind: str, make: Any) -> Any:
        def counting(self: bulkstep.Session, arg: Any) -> Any:
            made = make(self, arg)
            with lock:
                out[kind] += 1
                out[f"most_{kind}"] = max(out[f"most_{kind}"], out[kind])
            return made

        return counting

    def counted_store(self: bulkstep.Session, p: bulkstep.Prepared) -> Any:
        try:
            return store_prepared(self, p)
        finally:
            with lock:
                out["split"] -= 1
                out["checked"] -= 1

    monkeypatch.setattr(bulkstep.Session, "split", counted("split", split))
    monkeypatch.setattr(bulkstep.Session, "checked", counted("checked", checked))
    monkeypatch.setattr(bulkstep.Session, "store_prepared", counted_store)
    summary = ingest_paths(store, [tmp_path / "logs"])
    assert sum(f.new for f in summary.files) > 0
    assert out["split"] == out["checked"] == 0
    assert out["most_checked"] == ahead.PASSES_OUT
    assert ahead.PASSES_OUT <= out["most_split"] <= ahead.PASSES_OUT + 1


def _limits_seen(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """In order: DuckDB's memory limit as each pass was split and checked ("made"), as each
    was stored ("stored"), and each time the read-ahead lowered it ("lowered")."""
    seen: list[tuple[str, str]] = []
    split, checked = bulkstep.Session.split, bulkstep.Session.checked
    store_prepared = bulkstep.Session.store_prepared
    set_memory_limit = ahead.set_memory_limit

    def limit(con: Any) -> str:
        return str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])

    def seen_made(make: Any) -> Any:
        def seeing(self: bulkstep.Session, arg: Any) -> Any:
            seen.append(("made", limit(self.con)))
            return make(self, arg)

        return seeing

    def seen_store(self: bulkstep.Session, p: bulkstep.Prepared) -> Any:
        seen.append(("stored", limit(self.con)))
        return store_prepared(self, p)

    def seen_set(con: Any, value: str) -> bool:
        done = set_memory_limit(con, value)
        if value == INGEST_CACHE_LIMIT:
            seen.append(("lowered", value))
        return done

    monkeypatch.setattr(bulkstep.Session, "split", seen_made(split))
    monkeypatch.setattr(bulkstep.Session, "checked", seen_made(checked))
    monkeypatch.setattr(bulkstep.Session, "store_prepared", seen_store)
    monkeypatch.setattr(ahead, "set_memory_limit", seen_set)
    return seen


def test_the_cache_is_evicted_before_each_pass_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33 (session 7): the probe for stored ids reads every stored id, and DuckDB kept
    it cached up to ingest's limit, so the peak grew with the database (over 1 GiB at
    1,000,000 rounds). A pass is made at INGEST_MEMORY_LIMIT; before each is stored the
    limit is lowered to INGEST_CACHE_LIMIT, which evicts the cache (it is raised again
    at once while the next pass is split beside the store, which then runs at it); the
    limit is back when ingest ends."""
    _month(tmp_path / "logs")
    monkeypatch.setattr(pipeline, "GROUP_FILES", 2)
    monkeypatch.delenv("SHOE_AUDIT_MEMORY", raising=False)
    seen = _limits_seen(monkeypatch)
    with open_store(tmp_path / "a.duckdb") as store:
        before = store.con.execute("SELECT current_setting('memory_limit')").fetchall()
        summary = ingest_paths(store, [tmp_path / "logs"])
        after = store.con.execute("SELECT current_setting('memory_limit')").fetchall()
    assert sum(f.new for f in summary.files) > 0
    assert {v for k, v in seen if k == "made"} == {"244.1 MiB"}  # 256MB
    assert {v for k, v in seen if k == "stored"} <= {"122.0 MiB", "244.1 MiB"}  # 128MB
    stores = [i for i, (k, _) in enumerate(seen) if k == "stored"]
    assert len(stores) > 2
    for last, now in zip([-1, *stores], stores, strict=False):
        assert ("lowered", INGEST_CACHE_LIMIT) in seen[last + 1 : now]
    assert after == before


def test_a_memory_limit_chosen_holds_throughout_ingest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SHOE_AUDIT_MEMORY is the user's: ingest neither raises nor lowers it."""
    _month(tmp_path / "logs")
    monkeypatch.setenv("SHOE_AUDIT_MEMORY", "300MB")
    seen = _limits_seen(monkeypatch)
    with open_store(tmp_path / "a.duckdb") as store:
        ingest_paths(store, [tmp_path / "logs"])
    assert {v for _, v in seen} == {"286.1 MiB"}
    assert {k for k, _ in seen} == {"made", "stored"}


def test_a_limit_duckdb_cannot_evict_down_to_fails_alone(tmp_path: Path) -> None:
    """Lowering the limit fails while more than it is pinned; on a cursor of its own the
    failure leaves the limit as it was and another connection's transaction going (on
    that connection it would abort the transaction, which is why ingest never lowers
    there)."""
    import duckdb

    from audit.store.store import set_memory_limit

    con = duckdb.connect(str(tmp_path / "x.duckdb"))
    con.execute("SET memory_limit = '256MB'")
    con.execute("CREATE TABLE t (i BIGINT)")
    con.execute("BEGIN")
    con.execute("INSERT INTO t SELECT range FROM range(1000)")
    busy = con.cursor()
    sorted_rows = busy.sql("SELECT * FROM range(5000000) r(x) ORDER BY x DESC").to_arrow_reader(
        1000
    )
    sorted_rows.read_next_batch()  # the sort's memory is pinned while its rows are read
    limiter = con.cursor()
    assert set_memory_limit(limiter, "1kB") is False
    assert limiter.execute("SELECT current_setting('memory_limit')").fetchall() == [("244.1 MiB",)]
    con.execute("INSERT INTO t VALUES (-1)")
    con.execute("COMMIT")
    assert con.execute("SELECT count(*) FROM t").fetchall() == [(1001,)]
    assert set_memory_limit(limiter, "128MB") is True
    con.close()


@pytest.mark.parametrize("committed_before_the_probe", [False, True])
def test_an_id_stored_by_the_group_before_is_found_whichever_side_of_the_probe(
    store: Store, tmp_path: Path, committed_before_the_probe: bool
) -> None:
    """Issue 33 (session 8): the reading thread probes the stored ids of the next pass
    ahead, on a snapshot that may not hold the group being stored; the store then looks
    only at the events past that snapshot's largest file_id. An id of the group before
    is a duplicate whether it was committed before the probe (the probe found it) or
    after (the store finds it), and is stored once."""
    first = shoe_events(table="T01", shoe="S1", rounds=1)
    second = [first[2], *shoe_events(table="T01", shoe="S2", first_seq=50, rounds=1)]
    a = write_events(tmp_path / "a.jsonl", first)
    b = write_events(tmp_path / "b.jsonl", second)
    con = store.con
    main, ahead_ = bulkstep.Session(con), bulkstep.Session(con.cursor())

    def blocks(path: Path, file_id: int) -> list[bulkstep.Block]:
        return [blk for batch in reader.LogReader(path).batches() for blk in
                bulkstep.blocks_of(batch, file_id)]  # fmt: skip

    con.execute("BEGIN")
    main.store_prepared(main.prepare(blocks(a, 1)))
    if committed_before_the_probe:
        con.execute("COMMIT")
    split = ahead_.probe_stored(ahead_.split(blocks(b, 2)))
    assert split.probe is not None
    assert split.probe.ids.to_pylist() == ([first[2]["id"]] if committed_before_the_probe else [])
    assert split.probe.through_file_id == (1 if committed_before_the_probe else 0)
    if not committed_before_the_probe:
        con.execute("COMMIT")
    con.execute("BEGIN")
    main.store_prepared(ahead_.checked(split))
    con.execute("COMMIT")
    assert main.rest.column("id").to_pylist() == [first[2]["id"]]  # left to the merge
    ids = [r[0] for r in con.execute("SELECT id FROM events").fetchall()]
    assert len(ids) == len(set(ids)) == len(first) + len(second) - 1
