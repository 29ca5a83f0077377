"""What a batch costs to send to a worker (a local process or a Dask task): its own rows only."""

from __future__ import annotations

import pickle
from collections.abc import Callable

from audit.store import Store
from audit.store.batches import stream_shoe_batches


def test_every_batch_pickles_at_its_own_size_not_its_parents(
    ingested: Callable[[int], Store],
) -> None:
    with ingested(2) as store:
        keys = sorted(store.shoe_info())
        batches = list(stream_shoe_batches(store, keys, 700))
    assert len(batches) > 5 and sum(b.num_rows for b in batches) > 5 * 700
    for b in batches:
        # A slice pickles its parent's whole buffers: a carried shoe would double a batch.
        assert len(pickle.dumps(b, protocol=5)) < 1.1 * b.nbytes + 20_000
