"""`export --parquet` and `run --source` without a cluster (issue 13, point 2): real files.

The workers' half (:func:`read_source_batch`) must hand the engine exactly the
batch the database would, check each file's SHA-256 before parsing it, and
refuse an export older than the database; the export must write the Hive
layout, record every file, rewrite only what changed, and never leave a
half-written file or touch a folder that is not its own.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from audit.batch import run_audit
from audit.batch.runner import LocalProcesses
from audit.cli import app
from audit.errors import InputError, SourceError
from audit.ingest import ingest_paths
from audit.profiles import load_registry
from audit.store import Store, open_store
from audit.store.batches import decode_batch, shoe_events_apart, stream_shoe_batches
from audit.store.parquet import (
    MARKER,
    export_parquet,
    read_source_batch,
    recorded_partitions,
)

Ingested = Callable[[int], Store]


def findings(store: Store) -> Counter[str]:
    return Counter(f.to_json() for f in store.all_findings())


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_export_writes_hive_partitions_by_gaming_day_and_table_with_their_sha256(
    tmp_path: Path, ingested: Ingested
) -> None:
    out = tmp_path / "export"
    with ingested(2) as store:
        summary = export_parquet(store, out)
        shoes = store.shoe_info()
        records = store.con.execute(
            "SELECT path, gaming_day, table_id, sha256, size_bytes, rows FROM parquet_files"
        ).fetchall()
        total = store.con.execute("SELECT count(*) FROM events").fetchone()
    parts = {(i.gaming_day, k.table) for k, i in shoes.items()}
    assert summary.partitions == summary.written == len(parts) == 8
    assert {(day, table) for _, day, table, *_ in records} == parts
    rows = 0
    for path, day, table, sha, size, n in records:
        f = out / path
        assert path.startswith(f"gaming_day={day.isoformat()}/table={table}/")
        assert hashlib.sha256(f.read_bytes()).hexdigest() == sha and f.stat().st_size == size
        data = pq.read_table(f)
        assert set(data["table_id"].to_pylist()) == {table} and data.num_rows == n
        rows += n
    assert total is not None and rows == total[0]  # every event, once
    marker = json.loads((out / MARKER).read_text())
    assert sorted(marker["files"]) == sorted(p for p, *_ in records)


def test_export_again_rewrites_only_the_partitions_whose_shoes_changed(
    tmp_path: Path, ingested: Ingested, two_nights: list[Path]
) -> None:
    out = tmp_path / "export"
    with ingested(1) as store:
        first = export_parquet(store, out)
        before = files_of(out)
        assert ingest_paths(store, two_nights[1:]).new > 0  # the second night: 4 new partitions
        again = export_parquet(store, out)
        after = files_of(out)
        recorded = recorded_partitions(store)
    assert (first.written, again.written, again.unchanged) == (4, 4, 4)
    kept = {p: b for p, b in before.items() if p != MARKER}
    assert all(after[p] == b for p, b in kept.items())  # the first night's files untouched
    assert len(recorded) == 8
    assert {f.path for r in recorded.values() for f in r.files} == set(after) - {MARKER}


def test_export_refuses_a_folder_that_is_not_an_export_and_leaves_it_alone(
    tmp_path: Path, ingested: Ingested
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("not yours")
    with (
        ingested(1) as store,
        pytest.raises(InputError, match="not a shoe-audit export"),
    ):
        export_parquet(store, out)
    assert files_of(out) == {"notes.txt": b"not yours"}


def test_a_failed_export_leaves_no_half_written_file_and_the_old_export_whole(
    tmp_path: Path, ingested: Ingested, two_nights: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import audit.store.parquet as parquet

    out = tmp_path / "export"
    with ingested(1) as store:
        export_parquet(store, out)
        before = files_of(out)
        ingest_paths(store, two_nights[1:])

        def disk_full(path: Path) -> str:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(parquet, "file_sha256", disk_full)
        with pytest.raises(OSError, match="No space"):
            export_parquet(store, out)
        assert files_of(out) == before  # no staging folder, no stray file
        monkeypatch.undo()
        assert export_parquet(store, out).written == 4  # and the next export completes it


def test_the_workers_batch_from_parquet_is_the_databases_batch(
    tmp_path: Path, ingested: Ingested
) -> None:
    """Same columns, types and rows as the sorted scan of `events`: the engine cannot tell."""
    out = tmp_path / "export"
    with ingested(2) as store:
        export_parquet(store, out)
        infos = store.shoe_info()
        keys = sorted(infos)
        files = [f for r in recorded_partitions(store).values() for f in r.files]
        want = pa.concat_tables(list(stream_shoe_batches(store, keys, 10**9)))
    shoes = [(k, infos[k].events_digest) for k in keys]
    for root in (str(out), out.as_uri()):  # a folder, and the same through fsspec
        # The worker reads the struct as a column; apart, it is what run sends a worker.
        got = shoe_events_apart(read_source_batch(root, files, shoes))
        assert got.schema == want.schema
        assert got.equals(want)
        assert decode_batch(got) == decode_batch(want)


def test_an_event_with_fields_tel1_does_not_name_keeps_its_raw_line_through_parquet(
    tmp_path: Path, two_nights: list[Path]
) -> None:
    """The one case the batch reads `raw`: a shoe event with extra fields (`has_extra`)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for src in sorted(two_nights[0].glob("*.jsonl")):
        lines = src.read_text().splitlines()
        extra = [
            line[:-1] + ', "x_pit_note": "re-shuffled"}' if '"shoe_open"' in line else line
            for line in lines
        ]
        (logs / src.name).write_text("\n".join(extra) + "\n")
    with open_store(tmp_path / "audit.duckdb") as store:
        assert ingest_paths(store, [logs]).rejected == 0
        # rich tables (audit.simulate.dress) write fields TEL/1 does not name too
        row = store.con.execute(
            "SELECT count(*), count(*) FILTER (WHERE raw LIKE '%x_pit_note%') "
            "FROM events WHERE has_extra AND round IS NULL"
        ).fetchone()
        extras, notes = row if row else (0, 0)
        assert notes == len(store.shoe_info()) > 0  # one shoe_open a shoe
        export_parquet(store, tmp_path / "export")
        infos = store.shoe_info()
        keys = sorted(infos)
        files = [f for r in recorded_partitions(store).values() for f in r.files]
        want = pa.concat_tables(list(stream_shoe_batches(store, keys, 10**9)))
    got = read_source_batch(
        str(tmp_path / "export"), files, [(k, infos[k].events_digest) for k in keys]
    )
    raws = [e["raw"] for e in got["shoe_event"].to_pylist() if e and e["raw"]]
    assert len(raws) == extras and sum("x_pit_note" in r for r in raws) == notes
    assert shoe_events_apart(got).equals(want)
    assert decode_batch(got) == decode_batch(want)


def test_an_edited_parquet_file_is_refused_by_its_sha256(
    tmp_path: Path, ingested: Ingested
) -> None:
    out = tmp_path / "export"
    with ingested(1) as store:
        export_parquet(store, out)
        infos = store.shoe_info()
        files = [f for r in recorded_partitions(store).values() for f in r.files]
    victim = out / files[0].path
    # A valid Parquet file again, one settlement's amount raised by 100: what a forger does.
    table = pq.read_table(victim)
    i = table["type"].to_pylist().index("settle")
    amounts = table["amount"].to_pylist()
    amounts[i] += 100
    column = table.schema.get_field_index("amount")
    forged = table.set_column(column, "amount", pa.array(amounts, table["amount"].type))
    pq.write_table(forged, victim)
    with pytest.raises(SourceError, match=r"SHA-256 .* is not the .* export recorded"):
        read_source_batch(str(out), files, [(k, i.events_digest) for k, i in infos.items()])


def test_run_from_the_export_finds_what_the_database_run_finds(
    tmp_path: Path, ingested: Ingested
) -> None:
    registry = load_registry()
    out = tmp_path / "export"
    with ingested(2) as store:
        local = run_audit(store, registry, workers=1)
        expected = findings(store)
        export_parquet(store, out)
        sourced = run_audit(
            store,
            registry,
            all_shoes=True,
            executor=LocalProcesses(1),
            source=str(out),
            batch_events=700,
        )
        assert (sourced.shoes, sourced.rounds, sourced.findings) == (
            local.shoes,
            local.rounds,
            local.findings,
        )
        assert findings(store) == expected and local.findings > 0


def test_a_stale_export_is_refused_before_any_result_is_cleared(
    tmp_path: Path, ingested: Ingested, two_nights: list[Path]
) -> None:
    registry = load_registry()
    out = tmp_path / "export"
    with ingested(1) as store:
        export_parquet(store, out)
        ingest_paths(store, two_nights[1:])
        run_audit(store, registry, workers=1)
        audited = store.con.execute("SELECT count(*) FROM shoe_audits").fetchone()
        before = findings(store)
        with pytest.raises(SourceError, match="older than the database for 4 partitions"):
            run_audit(store, registry, all_shoes=True, source=str(out))
        assert store.con.execute("SELECT count(*) FROM shoe_audits").fetchone() == audited
        assert findings(store) == before


def test_export_cli_writes_and_then_reports_nothing_changed(
    tmp_path: Path, ingested: Ingested, runner: CliRunner
) -> None:
    ingested(2).close()
    db = tmp_path / "audit.duckdb"
    out = tmp_path / "export"
    first = runner.invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert first.exit_code == 0, first.output
    assert first.output.startswith("exported 8 partitions (8 written, 0 unchanged, 0 removed;")
    again = runner.invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert "(0 written, 8 unchanged, 0 removed; 0 events written)" in again.output
    missing = runner.invoke(app, ["export", "--parquet", str(out), "--db", str(tmp_path / "no")])
    assert missing.exit_code == 1 and "no database at" in missing.output
    assert not (tmp_path / "no").exists()
