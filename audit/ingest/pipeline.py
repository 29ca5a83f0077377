"""Ingest and validate: the two entry points of :mod:`audit.ingest`."""

from __future__ import annotations

from collections.abc import Iterable
from os import PathLike
from typing import TYPE_CHECKING

from audit.ingest.summary import IngestSummary, ValidationReport

if TYPE_CHECKING:
    from audit.store import Store

StrPath = str | PathLike[str]


def ingest_paths(store: Store, paths: Iterable[StrPath], day_start: str = "06:00") -> IngestSummary:
    """Read TEL/1 files and folders into ``store``; idempotent.

    Raises :class:`audit.errors.NoLogsError` when a path does not exist, a
    folder holds no ``*.jsonl``/``*.jsonl.gz``, or no file could be read.
    """
    raise NotImplementedError


def validate_paths(paths: Iterable[StrPath]) -> ValidationReport:
    """Check TEL/1 files without storing anything."""
    raise NotImplementedError
