"""What a batch costs to send to a worker (a local process or a Dask task): its own rows only."""

from __future__ import annotations

import pickle
from collections.abc import Callable

from audit.store import Store
from audit.store.batches import (
    BATCH_SQL,
    SHOE_EVENTS,
    decode_batch,
    run_keys,
    shoe_events_apart,
    stream_shoe_batches,
)


def test_every_batch_pickles_at_its_own_size_not_its_parents(
    ingested: Callable[[int], Store],
) -> None:
    with ingested(2) as store:
        keys = sorted(store.shoe_info())
        batches = list(stream_shoe_batches(store, keys, 700))
    assert len(batches) > 5 and sum(b.num_rows for b in batches) > 5 * 700
    for b in batches:
        # A slice pickles its parent's whole buffers: a carried shoe would double a batch.
        apart = len(b.schema.metadata[SHOE_EVENTS.encode()])
        assert len(pickle.dumps(b, protocol=5)) < 1.1 * b.nbytes + apart + 20_000


def test_shoe_events_travel_apart_and_come_back_whole(
    ingested: Callable[[int], Store],
) -> None:
    """The forty-column ``shoe_event`` struct is null on most rows: only its rows are sent."""
    with ingested(2) as store:
        keys = sorted(store.shoe_info())
        batches = list(stream_shoe_batches(store, keys, 700))
        cur = store.con.cursor()
        run_keys(cur, keys)
        whole = cur.sql(BATCH_SQL).to_arrow_table()
    sent = [pickle.loads(pickle.dumps(b, protocol=5)) for b in batches]
    assert all("shoe_event" not in b.column_names for b in sent)
    # The same events as the whole scan decoded with its column (the Parquet source's way).
    assert [x for b in sent for x in decode_batch(b)] == decode_batch(whole)
    assert decode_batch(shoe_events_apart(whole)) == decode_batch(whole)
    # And well under half the bytes of the batch with the struct as a column.
    assert sum(len(pickle.dumps(b, protocol=5)) for b in sent) < 0.5 * whole.nbytes
