"""``run``'s parent memory (issue 9: peak RSS < 1 GB, flat).

Every shoe's metadata was held from the start, in proportion to the night: it
is now read from the database a batch at a time. And when DuckDB runs out of memory, the user
reads that, in one line, not "Current transaction is aborted".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from audit.batch.runner import RunMeta, ShoeMeta, shoe_contexts
from audit.engine import ShoeContext
from audit.errors import StoreError
from audit.store import ShoeKey, Store, open_store
from tests.memory_limits import held_limit, shown


def test_metadata_is_read_a_batch_at_a_time_from_the_database(
    ingested: Callable[[int], Store],
) -> None:
    """The shoes come in the order their files were stored, every table in each part:
    each batch's metadata is one query, the same as each shoe's own rows and contexts."""
    with ingested(2) as store:
        keys = sorted(store.shoe_info())
        infos = store.shoe_info(keys)
        contexts = shoe_contexts(store, keys)
        meta = RunMeta(store, keys)
        assert len({k.table for k in keys}) > 1
        assert not [v for v in vars(meta).values() if isinstance(v, dict | list)]
        mixed = keys[::2] + keys[1::2]  # tables interleaved, as parts bring them
        got = meta.of_many(mixed)
        for k, m in zip(mixed, got, strict=True):
            assert m.key == k and m.profile_id == infos[k].profile
            assert m.events_digest == infos[k].events_digest and m.context == contexts[k]
        unknown = ShoeKey("T99", "nowhere")
        assert meta.of(unknown) == ShoeMeta(unknown, None, ShoeContext(), "")


def test_duckdb_out_of_memory_is_one_line_saying_so(tmp_path: Path) -> None:
    with (
        open_store(tmp_path / "a.duckdb", memory_limit="20MB") as store,
        pytest.raises(StoreError) as err,
        store.transaction() as con,
    ):
        # list() of 20 million numbers cannot spill: DuckDB runs out of memory
        con.execute("SELECT list(range) FROM range(20000000)").fetchall()
    message = str(err.value)
    assert "\n" not in message
    assert "DuckDB ran out of memory" in message and "SHOE_AUDIT_MEMORY" in message
    assert "transaction is aborted" not in message.lower()


@pytest.mark.parametrize("chosen", [None, "2GB"], ids=["default", "SHOE_AUDIT_MEMORY"])
def test_run_holds_duckdb_to_its_own_limit_unless_one_was_chosen(
    ingested: Callable[[int], Store], monkeypatch: pytest.MonkeyPatch, chosen: str | None
) -> None:
    """run's sorted scans, a part at a time, fit RUN_MEMORY_LIMIT (256MB, not ingest's 1GB:
    a million-round run's peak RSS 757 MiB, not 1,279); SHOE_AUDIT_MEMORY still decides
    when set. The run's writes are checkpointed inside the limit (close had nothing left)."""
    from audit.batch import run_audit
    from audit.profiles import load_registry

    if chosen is None:
        monkeypatch.delenv("SHOE_AUDIT_MEMORY", raising=False)
    else:
        monkeypatch.setenv("SHOE_AUDIT_MEMORY", chosen)
    with ingested(1) as copy:
        path = copy.path
    with open_store(path) as store:
        before = held_limit(store)
        during: list[str] = []
        summary = run_audit(
            store, load_registry(), workers=1, progress=lambda *_: during.append(held_limit(store))
        )
        assert summary.shoes > 0 and len(during) > 1
        assert set(during) == {shown("256MB") if chosen is None else before}
        assert held_limit(store) == before
        wal = Path(f"{path}.wal")
        assert not wal.exists() or wal.stat().st_size == 0  # checkpointed by run
    assert before == shown(chosen or "1GB")


def test_a_burn_of_2_53_face_down_cards_is_stored_as_unseen(tmp_path: Path) -> None:
    """TEL/1 v1.1 bounds counts by 2^53 - 1: the cards burned face down, unseen before the
    next round, pass INTEGER, and run failed writing the outcome rows (found by the fuzz
    test at volume). They are BIGINT (schema 6)."""
    from audit.batch import run_audit
    from audit.ingest import ingest_paths
    from audit.profiles import load_registry
    from tests.ingest.helpers import shoe_events, write_events

    events = shoe_events(rounds=1)
    burn = events[3]
    assert burn["type"] == "burn"
    burn.pop("cards")
    burn.update(count=2**53 - 2, face_down=True)
    with open_store(tmp_path / "a.duckdb") as store:
        ingest_paths(store, [write_events(tmp_path / "day.jsonl", events)])
        assert run_audit(store, load_registry(), workers=1).rounds == 1
        (unseen,) = store.con.execute("SELECT unseen_before_round FROM rounds").fetchall()[0]
    assert unseen == 2**53 - 2


def test_the_parts_and_the_audited_shoes_hold_the_callers_own_keys(
    ingested: Callable[[int], Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    """run held a new key object of every shoe of the night in its parts, in its set of
    audited shoes and in its set of shoes written (issue 33: ~50 MB each at 1,000,000
    rounds, what made its peak grow with the night): they are the selection's own
    objects now, and the scan's rows are read a slice at a time, into the same parts."""
    from audit.batch import run_audit
    from audit.profiles import load_registry
    from audit.store import batches
    from audit.store.batches import audited_keys, scan_parts

    with ingested(2) as store:
        keys = sorted(store.shoe_info())
        whole = scan_parts(store, keys, 2_000)
        monkeypatch.setattr(batches, "_SCAN_ROWS", 3)  # many slices
        sliced = scan_parts(store, keys, 2_000)
        assert len(keys) > 3 * 3 and len(sliced) > 3
        assert sliced == whole
        own = {id(k) for k in keys}
        assert all(id(k) in own for p in sliced for k in p.keys)
        run_audit(store, load_registry(), workers=1)
        again = [ShoeKey(k.table, k.shoe) for k in keys]  # equal, not the same objects
        audited = audited_keys(store, again)
        assert audited == set(keys)
        assert {id(k) for k in audited} <= {id(k) for k in again}


def test_run_finishes_within_a_tight_duckdb_limit_with_the_same_findings(
    tmp_path: Path,
) -> None:
    """A part's shoe events were read by a query streamed beside its lean sorted scan, whose
    hash table (a join built on the events' side) and sort stayed in DuckDB until the last
    row: the 300,000-round night ran out of run's 256MB in ``_stream_part`` (issue 33). The
    sample night at 24MB did too, in the same query (it needs ~28MB that way); read whole
    and with no join, it fits, and finds what a roomy run finds."""
    from tests.cli.helpers import SAMPLE, cli

    tight, roomy = tmp_path / "tight.duckdb", tmp_path / "roomy.duckdb"
    for db in (tight, roomy):
        assert cli("ingest", "--db", str(db), str(SAMPLE)).exit_code == 0
    ran = cli("run", "--db", str(tight), "--json", env={"SHOE_AUDIT_MEMORY": "24MB"})
    assert ran.exit_code == 0, ran.stderr
    assert cli("run", "--db", str(roomy), env={"SHOE_AUDIT_MEMORY": "1GB"}).exit_code == 0
    found = [
        sorted(cli("findings", "--db", str(db), "--format", "jsonl").stdout.splitlines())
        for db in (tight, roomy)
    ]
    assert found[0] and found[0] == found[1]
    status = [json.loads(cli("status", "--db", str(db), "--json").stdout) for db in (tight, roomy)]
    for s in status:
        assert not s["failed"]
        for key in ("last_ingest", "last_run", "database"):
            s.pop(key, None)
    assert status[0] == status[1]
