"""How the CLI prints findings, and the library calls behind ``hand`` and ``report``."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from audit.batch.dispute import hand_packet
from audit.batch.nightly import day_range, write_report
from audit.findings import FINDING_KEYS, Finding

if TYPE_CHECKING:
    from audit.review import Review

__all__ = ["day_range", "hand_packet", "write_findings", "write_report"]

_SEVERITY_STYLE = {"critical": "bold red", "major": "yellow", "minor": "cyan", "info": "dim"}


def write_findings(
    findings: Sequence[Finding],
    fmt: str,
    out: TextIO,
    reviews: Mapping[str, Review] | None = None,
) -> None:
    """Write findings as ``jsonl`` (cli.md's exact shape), ``csv`` or a ``table``.

    Every format has the added ``review`` key (cli.md allows added keys): null for a
    finding never reviewed; in JSONL the standing review as an object
    (:meth:`audit.review.Review.to_dict`), in CSV and the table its status in words
    (``dismissal pending``, ``confirmed (changed since review)``).
    """
    got = reviews or {}
    if fmt == "jsonl":
        for f in findings:
            d: dict[str, Any] = f.to_dict()
            r = got.get(f.id or "")
            d["review"] = r.to_dict() if r is not None else None
            out.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")
    elif fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=[*FINDING_KEYS, "review"], lineterminator="\n")
        writer.writeheader()
        for f in findings:
            row = f.to_dict()
            row["events"] = " ".join(row["events"])
            r = got.get(f.id or "")
            row["review"] = r.label if r is not None else None
            writer.writerow(row)
    else:
        _write_table(findings, out, got)


def _write_table(findings: Sequence[Finding], out: TextIO, reviews: Mapping[str, Review]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(show_lines=False, header_style="bold")
    cols = ("severity", "code", "table", "shoe", "round", "box", "hand", "impact", "message")
    for col in (*cols, "review"):
        table.add_column(col, overflow="fold")
    for f in findings:
        d = f.to_dict()
        sev = d["severity"]
        table.add_row(
            f"[{_SEVERITY_STYLE.get(sev, '')}]{sev}[/]",
            d["code"],
            *("" if d[k] is None else str(d[k]) for k in ("table", "shoe", "round", "box", "hand")),
            d["impact"] or "",
            d["message"],
            r.label if (r := reviews.get(f.id or "")) is not None else "",
        )
    console = Console(file=out, highlight=False)
    console.print(table)
    console.print(f"{len(findings):,} findings")
