"""Building TEL/1 lines and files for the ingest and store tests."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data" / "ingest"
ROUND_FILE = DATA / "t07_round.jsonl"
"""The worked round of event-log.md: table T07, shoe T07-20261128-01, 26 events."""


def ev(seq: int, type: str, table: str = "T07", shoe: str = "S1", **fields: Any) -> dict[str, Any]:
    """One event with a plausible envelope (``id`` is ``{table}-{seq}``)."""
    base: dict[str, Any] = {
        "id": f"{table}-{seq}",
        "seq": seq,
        "ts": f"2026-11-28T20:{seq // 60 % 60:02d}:{seq % 60:02d}+01:00",
        "table": table,
        "shoe": shoe,
        "type": type,
    }
    base.update(fields)
    return base


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def shoe_events(
    table: str = "T07",
    shoe: str = "S1",
    first_seq: int = 1,
    rounds: int = 1,
    ts_day: str = "2026-11-28T20",
) -> list[dict[str, Any]]:
    """A short valid shoe: open, shuffle, cut, burn, then ``rounds`` small rounds."""
    out: list[dict[str, Any]] = []
    seq = first_seq

    def add(type: str, **fields: Any) -> None:
        nonlocal seq
        e = ev(seq, type, table=table, shoe=shoe, **fields)
        e["ts"] = f"{ts_day}:{seq // 60 % 60:02d}:{seq % 60:02d}+01:00"
        out.append(e)
        seq += 1

    add("shoe_open", profile="it-casino-6d", decks=6, dealer="D042")
    add("shuffle", method="wash")
    add("cut", by="box", box=3)
    add("burn", cards=["7H", "KD", "2C", "9S", "QH"])
    for r in range(1, rounds + 1):
        add("round_open", round=r)
        add("bet", round=r, box=1, spot=0, amount=50)
        add("card", round=r, card="8S", to="box", box=1)
        add("card", round=r, card="6D", to="dealer")
        add("card", round=r, card="9C", to="box", box=1)
        add("settle", round=r, box=1, hand=0, spot=0, kind="main", amount=50)
        add("round_close", round=r)
    return out


def write_lines(
    path: Path, lines: list[str | bytes], *, gz: bool = False, newline_at_end: bool = True
) -> Path:
    """Write raw lines (str or bytes) joined by newlines."""
    data = b"\n".join(x if isinstance(x, bytes) else x.encode("utf-8") for x in lines)
    if newline_at_end and lines:
        data += b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    if gz:
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    return path


def write_events(path: Path, events: list[dict[str, Any]], *, gz: bool = False) -> Path:
    return write_lines(path, [dumps(e) for e in events], gz=gz)
