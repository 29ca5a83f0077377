from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.store import Store, open_store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path / "audit.duckdb")
    try:
        yield s
    finally:
        s.close()
