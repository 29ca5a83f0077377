"""How the CLI prints findings, and the library calls behind ``hand`` and ``report``."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import TextIO

from audit.batch.dispute import hand_packet
from audit.batch.nightly import day_range, write_report
from audit.findings import FINDING_KEYS, Finding

__all__ = ["day_range", "hand_packet", "write_findings", "write_report"]

_SEVERITY_STYLE = {"critical": "bold red", "major": "yellow", "minor": "cyan", "info": "dim"}


def write_findings(findings: Sequence[Finding], fmt: str, out: TextIO) -> None:
    """Write findings as ``jsonl`` (cli.md's exact shape), ``csv`` or a ``table``."""
    if fmt == "jsonl":
        for f in findings:
            out.write(f.to_json() + "\n")
    elif fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=list(FINDING_KEYS), lineterminator="\n")
        writer.writeheader()
        for f in findings:
            row = f.to_dict()
            row["events"] = " ".join(row["events"])
            writer.writerow(row)
    else:
        _write_table(findings, out)


def _write_table(findings: Sequence[Finding], out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(show_lines=False, header_style="bold")
    for col in ("severity", "code", "table", "shoe", "round", "box", "hand", "impact", "message"):
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
        )
    console = Console(file=out, highlight=False)
    console.print(table)
    console.print(f"{len(findings):,} findings")
