"""What an ingest or a validation run reports back."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


@dataclass(slots=True)
class FileSummary:
    """One input file: its lines and what became of them."""

    path: str
    lines: int = 0
    events: int = 0
    new: int = 0
    duplicates: int = 0
    rejected: int = 0
    unknown_types: int = 0
    error: str | None = None
    """A file-level problem (unreadable, truncated gzip): set only when some or
    all of the file could not be read."""
    file_id: int | None = None
    """Its ``input_files`` row (None when nothing of it could be read)."""


@dataclass(slots=True)
class IngestSummary:
    """The result of :func:`audit.ingest.ingest_paths`."""

    files: list[FileSummary] = field(default_factory=list)
    gaming_days: list[dt.date] = field(default_factory=list)
    """Gaming days of the shoes that received new events, sorted."""
    file_days: list[dt.date] = field(default_factory=list)
    """Gaming days of every shoe the files hold (their events new or stored before) and
    of their rejected lines, sorted: what ``nightly`` reports."""

    @property
    def events(self) -> int:
        return sum(f.events for f in self.files)

    @property
    def new(self) -> int:
        return sum(f.new for f in self.files)

    @property
    def duplicates(self) -> int:
        return sum(f.duplicates for f in self.files)

    @property
    def rejected(self) -> int:
        return sum(f.rejected for f in self.files)

    @property
    def lines(self) -> int:
        return sum(f.lines for f in self.files)

    @property
    def errors(self) -> list[str]:
        """File-level errors as ``path: why`` (unreadable file, truncated gzip)."""
        return [f"{f.path}: {f.error}" for f in self.files if f.error]


@dataclass(slots=True)
class ValidationReport:
    """The result of :func:`audit.ingest.validate_paths`."""

    files: list[FileSummary] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    """Every invalid line as ``file:line: why``, in file and line order."""
    warnings: list[str] = field(default_factory=list)
    """``file:line: unknown type 'x'`` and the like: reported, not failing."""
    errors: list[str] = field(default_factory=list)
    """File-level errors (unreadable file, truncated gzip) as ``path: why``."""

    @property
    def ok(self) -> bool:
        """True when every line of every file is a valid TEL/1 event."""
        return not self.invalid and not self.errors

    @property
    def lines(self) -> int:
        return sum(f.lines for f in self.files)

    @property
    def events(self) -> int:
        return sum(f.events for f in self.files)
