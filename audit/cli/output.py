"""How the CLI prints: untrusted text made safe, summaries, ``--json``, ``--quiet``, findings.

Every value that came from a log or a user (table and shoe ids, paths,
messages quoting them) is printed as text: never as Rich markup (``[/]`` or
``[link=...]`` in an id is shown as typed), and never with its control
characters (an ``ESC[31m`` or ``ESC]0;`` in an id is shown escaped as
``\\x1b[31m``, so it can neither recolour the terminal nor retitle it).
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from audit.findings import FINDING_KEYS, Finding

if TYPE_CHECKING:
    from audit.review import Review

__all__ = [
    "neutralise_cell",
    "note",
    "print_json",
    "progress_bar",
    "safe_line",
    "safe_text",
    "say",
    "write_findings",
]


def __getattr__(name: str) -> Any:
    # The library calls the first commands imported from here, loaded only when
    # asked for: importing the engine at start-up would slow down every --help.
    if name == "hand_packet":
        from audit.batch.dispute import hand_packet

        return hand_packet
    if name in {"day_range", "write_report"}:
        from audit.batch import nightly

        return getattr(nightly, name)
    raise AttributeError(name)


# C0 controls, DEL, C1 controls (0x9b is a one-byte CSI), and the Unicode
# bidirectional overrides that make a terminal show text in another order.
_C1_AND_BIDI = "\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE_LINE = re.compile(f"[\x00-\x1f{_C1_AND_BIDI}]")
_UNSAFE_TEXT = re.compile(f"[\x00-\x08\x0b-\x1f{_C1_AND_BIDI}]")  # keeps tab and newline
_UNSAFE_JSON = re.compile(f"[{_C1_AND_BIDI}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_line(value: object) -> str:
    """``value`` as one line of plain text: every control character shown escaped."""
    return _UNSAFE_LINE.sub(_escape, str(value))


def safe_text(value: object) -> str:
    """Like :func:`safe_line` but keeps line breaks and tabs (for multi-line output)."""
    return _UNSAFE_TEXT.sub(_escape, str(value))


def json_line(obj: Any) -> str:
    """``obj`` as one line of JSON that a terminal shows as it is.

    ``json.dumps`` escapes C0 controls but lets DEL, C1 controls and bidi
    overrides through; they are escaped here too (the same JSON value).
    """
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
    return _UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def say(text: str = "") -> None:
    """A line of the command's own report on stdout (``--quiet`` silences it)."""
    from audit.cli.common import State

    if not State.quiet:
        _status(safe_text(text) + "\n")


def note(text: str) -> None:
    """A line of commentary on stderr (``--quiet`` silences it)."""
    from audit.cli.common import State

    if not State.quiet:
        sys.stderr.write(safe_text(text) + "\n")
        sys.stderr.flush()


def warn(text: str) -> None:
    """A warning on stderr: printed even with ``--quiet`` (it says something went wrong)."""
    sys.stderr.write("warning: " + safe_text(text) + "\n")
    sys.stderr.flush()


def print_json(obj: Any) -> None:
    """``--json``: the summary as one JSON object on stdout (printed even with ``--quiet``)."""
    _status(json_line(obj) + "\n")


def _status(text: str) -> None:
    """Write a command's own report of what it did; a reader gone away does not stop it.

    The work is done (or still to finish) whoever reads: ``nightly --fail-on critical |
    logger`` keeps its exit 3 when ``logger`` dies. The rows a command exists to print
    (``findings``) stop at the boundary instead (:func:`audit.cli.common.boundary`).
    """
    from audit.cli.common import reader_gone, silence_stdout

    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as exc:
        if not reader_gone(exc):
            raise
        silence_stdout()


@contextmanager
def progress_bar(
    what: str, *, total: int | None = None, unit: str = "items"
) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr when it is a terminal: ``tick(done, total)``; else None.

    The bar is drawn from the first ``tick`` on (or at once when ``total`` is
    given), so it never shows an unknown total. Nothing is drawn on a pipe or
    with ``--quiet``. ``unit="bytes"`` shows sizes and a rate; any other unit
    shows ``done/total unit``.
    """
    from audit.cli.common import State

    if State.quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    counts = (
        [DownloadColumn(), TransferSpeedColumn()]
        if unit == "bytes"
        else [MofNCompleteColumn(), TextColumn(unit)]
    )
    bar = Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        *counts,
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task: list[TaskID] = []

    def tick(done: int, total: int) -> None:
        if not task:
            bar.start()
            task.append(bar.add_task(safe_line(what), total=total))
        bar.update(task[0], completed=done, total=total)

    try:
        if total is not None:
            tick(0, total)
        yield tick
    finally:
        bar.stop()


# --------------------------------------------------------------------------- findings

_SEVERITY_STYLE = {"critical": "bold red", "major": "yellow", "minor": "cyan", "info": "dim"}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def neutralise_cell(value: str) -> str:
    """A CSV cell no spreadsheet evaluates (cli.md, OWASP's CSV injection advice).

    A cell that would start with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return gets a leading ``'``, unless it is a plain number (the money string
    ``-50`` stays as it is).
    """
    if value.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def write_findings(
    findings: Sequence[Finding],
    fmt: str,
    out: TextIO,
    reviews: Mapping[str, Review] | None = None,
    *,
    raw: bool = False,
) -> None:
    """Write findings as ``jsonl`` (cli.md's exact shape), ``csv`` or a ``table``.

    ``csv`` cells are neutralised against formula injection and their control
    characters escaped, unless ``raw`` (then only on a terminal are they escaped).
    Every format has the added ``review`` key (cli.md allows added keys, issue 12):
    null for a finding never reviewed; in JSONL the standing review as an object
    (:meth:`audit.review.Review.to_dict`), in CSV and the table its status in words
    (``dismissal pending``, ``confirmed (changed since review)``).
    """
    got = reviews or {}
    if fmt == "jsonl":
        for f in findings:
            d: dict[str, Any] = f.to_dict()
            r = got.get(f.id or "")
            d["review"] = r.to_dict() if r is not None else None
            out.write(json_line(d) + "\n")
    elif fmt == "csv":
        _write_csv(findings, out, got, raw=raw)
    else:
        _write_table(findings, out, got)


def _write_csv(
    findings: Iterable[Finding], out: TextIO, reviews: Mapping[str, Review], *, raw: bool
) -> None:
    terminal = out.isatty()
    writer = csv.writer(out, lineterminator="\n")
    keys = (*FINDING_KEYS, "review")
    writer.writerow(keys)
    for f in findings:
        row = f.to_dict()
        row["events"] = " ".join(row["events"])
        r = reviews.get(f.id or "")
        row["review"] = r.label if r is not None else None
        cells = ["" if row[k] is None else str(row[k]) for k in keys]
        if not raw or terminal:
            cells = [safe_line(c if raw else neutralise_cell(c)) for c in cells]
        writer.writerow(cells)


def rows_console(out: TextIO, **options: Any) -> Any:
    """A Rich console writing a command's rows to ``out``.

    Rich answers a broken pipe by exiting 1 itself; this one raises the
    ``BrokenPipeError`` instead, for the CLI's boundary to judge (a reader of stdout
    gone away is exit 0, :func:`audit.cli.common.reader_gone`).
    """
    import errno

    from rich.console import Console

    class RowsConsole(Console):
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    return RowsConsole(file=out, **options)


def _write_table(findings: Sequence[Finding], out: TextIO, reviews: Mapping[str, Review]) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(show_lines=False, header_style="bold")
    cols = ("severity", "code", "table", "shoe", "round", "box", "hand", "impact", "message")
    for col in (*cols, "review"):
        table.add_column(col, overflow="fold")
    for f in findings:
        d = f.to_dict()
        sev = d["severity"]
        cells = [d["code"], *(d[k] for k in ("table", "shoe", "round", "box", "hand"))]
        # Text(...) is never parsed as markup: an id like "[/]" or "[link=...]" stays text.
        table.add_row(
            Text(sev, style=_SEVERITY_STYLE.get(sev, "")),
            *(Text(safe_line("" if v is None else v)) for v in cells),
            Text(safe_line(d["impact"] or "")),
            Text(safe_line(d["message"])),
            Text(r.label if (r := reviews.get(f.id or "")) is not None else ""),
        )
    console = rows_console(out, highlight=False)
    console.print(table)
    console.print(Text(f"{len(findings):,} findings"))
