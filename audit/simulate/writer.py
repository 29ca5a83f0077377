"""Writing TEL/1: event envelopes (id, seq, ts), exact JSON lines, and files.

Money is a ``Decimal`` and is written as the shortest exact JSON number
(``37.5``, ``-50``), never through a binary float. Files are byte-for-byte
reproducible: gzip output carries no name and no modification time.
"""

from __future__ import annotations

import datetime as dt
import gzip
import io
import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

from audit.findings import money_str

__all__ = ["Compact", "Draft", "FileSink", "TableClock", "encode_event", "gaming_day"]

GAMING_DAY_START = dt.timedelta(hours=6)
"""A gaming day runs from 06:00 table-local time to 06:00 the next morning (cli.md)."""


def gaming_day(ts: dt.datetime) -> dt.date:
    """The gaming day a table-local timestamp belongs to."""
    return (ts - GAMING_DAY_START).date()


@dataclass(slots=True)
class Draft:
    """An event before it gets its envelope: type, fields, and seconds after the previous event."""

    type: str
    fields: dict[str, Any]
    delay: int
    in_round: bool = True


class Compact(dict[str, Any]):
    """An object inside an event (a chip, a signer) written as the event is: compact,
    keys in order, money exact. Other dicts keep ``json.dumps``' spelling, byte for byte."""


def _encode_value(v: Any) -> str:
    if isinstance(v, Compact):
        return encode_event(v)
    if isinstance(v, Decimal):
        text = money_str(v)
        assert text is not None
        return text
    if isinstance(v, list):
        return "[" + ",".join(_encode_value(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def encode_event(event: dict[str, Any]) -> str:
    """One compact JSON line, keys in the given order, money exact."""
    return "{" + ",".join(f"{json.dumps(k)}:{_encode_value(v)}" for k, v in event.items()) + "}"


class TableClock:
    """A table's ``seq`` counter and clock: stamps drafts into full events."""

    def __init__(self, table: str, id_prefix: str, start: dt.datetime) -> None:
        self.table = table
        self.id_prefix = id_prefix
        self.now = start
        self.seq = 0

    def stamp(self, draft: Draft, shoe: str, round_no: int | None) -> dict[str, Any]:
        """The TEL/1 event of a draft: envelope first (as event-log.md writes it), then fields."""
        self.seq += 1
        self.now += dt.timedelta(seconds=draft.delay)
        event: dict[str, Any] = {
            "id": f"{self.id_prefix}-{self.seq}",
            "seq": self.seq,
            "ts": self.now.isoformat(),
            "table": self.table,
            "shoe": shoe,
        }
        if draft.in_round and round_no is not None:
            event["round"] = round_no
        event["type"] = draft.type
        event.update(draft.fields)
        return event


class FileSink:
    """Writes each table's events into ``OUT/<gaming day>/<table>.jsonl[.gz]``."""

    def __init__(self, out_dir: Path, *, compress: bool) -> None:
        self.out_dir = out_dir
        self.compress = compress
        self.paths: list[Path] = []
        self._key: tuple[dt.date, str] | None = None
        self._fh: IO[str] | None = None
        self._raw: IO[bytes] | None = None

    def write(self, day: dt.date, table: str, event: dict[str, Any]) -> None:
        if self._key != (day, table):
            self.close()
            self._open(day, table)
        assert self._fh is not None
        self._fh.write(encode_event(event))
        self._fh.write("\n")

    def _open(self, day: dt.date, table: str) -> None:
        folder = self.out_dir / day.isoformat()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (f"{table}.jsonl.gz" if self.compress else f"{table}.jsonl")
        if path in self.paths:
            raise ValueError(f"{path} was already written in this run")
        self.paths.append(path)
        if self.compress:
            self._raw = path.open("wb")
            gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, mtime=0)
            self._fh = io.TextIOWrapper(gz, encoding="utf-8", newline="\n")
        else:
            self._fh = path.open("w", encoding="utf-8", newline="\n")
        self._key = (day, table)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
        if self._raw is not None:
            self._raw.close()
        self._fh = None
        self._raw = None
        self._key = None
