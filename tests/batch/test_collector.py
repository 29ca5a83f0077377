"""Page workers collect their garbage less often (audit.batch.collector)."""

from __future__ import annotations

import json
import subprocess
import sys

from audit.batch.collector import WORKER_THRESHOLD


def test_a_page_worker_freezes_what_it_loaded_and_collects_less_often() -> None:
    code = (
        "import gc, json; from audit.batch.pages import _init_worker; "
        "before = gc.get_threshold(); _init_worker(None, None); "
        "print(json.dumps([before, gc.get_threshold(), gc.get_freeze_count()]))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    before, after, frozen = json.loads(run.stdout)
    assert before == [700, 10, 10]  # Python's default: what a worker started with
    assert tuple(after) == WORKER_THRESHOLD
    assert frozen > 1000  # the modules it imported are out of the collector's sight
