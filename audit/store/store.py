"""The :class:`Store`: every query the rest of shoe-audit runs on the database."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from os import PathLike
from typing import Any

from audit.events.models import AnyEvent
from audit.findings import Code, Finding, Severity
from audit.store.types import ShoeAuditResult, ShoeInfo, ShoeKey


class Store:
    """An open audit database (one DuckDB file). Use :func:`open_store`."""

    def __init__(self, con: Any, path: str) -> None:
        self.con = con
        self.path = path

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def shoes_to_audit(
        self,
        engine_version: str,
        profile_digests: dict[str, str],
        all: bool = False,
        table: str | None = None,
        gaming_day: dt.date | None = None,
    ) -> list[ShoeKey]:
        """Shoes not yet audited, or whose events, engine or profile changed."""
        raise NotImplementedError

    def shoe_info(self, keys: Iterable[ShoeKey] | None = None) -> dict[ShoeKey, ShoeInfo]:
        """The ``shoes`` rows for ``keys`` (all shoes when ``None``)."""
        raise NotImplementedError

    def load_shoe_events(self, keys: Iterable[ShoeKey]) -> dict[ShoeKey, list[AnyEvent]]:
        """Every stored event of each shoe, in ``seq`` order, as TEL/1 models."""
        raise NotImplementedError

    def replace_findings(self, results: Sequence[ShoeAuditResult]) -> None:
        """Store the replay findings of a batch of shoes in one transaction."""
        raise NotImplementedError

    def all_findings(
        self,
        *,
        codes: Iterable[Code | str] | None = None,
        severities: Iterable[Severity | str] | None = None,
        min_severity: Severity | str | None = None,
        table: str | None = None,
        shoe: str | None = None,
        gaming_day: dt.date | None = None,
        gaming_days: tuple[dt.date, dt.date] | None = None,
    ) -> list[Finding]:
        """Ingest findings (``LOG_*``) and replay findings, filtered, in a fixed order."""
        raise NotImplementedError


def open_store(path: str | PathLike[str], *, read_only: bool = False) -> Store:
    """Open (creating or migrating) the audit database at ``path``.

    Raises :class:`audit.errors.StoreError` when the file is not a DuckDB
    database, is not ours, or is locked by another process.
    """
    raise NotImplementedError
