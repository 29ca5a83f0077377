"""How the CLI prints: untrusted text made safe, summaries, ``--json``, ``--quiet``, findings.

Every value that came from a log or a user (table and shoe ids, paths,
messages quoting them) is printed as text: never as Rich markup (``[/]`` or
``[link=...]`` in an id is shown as typed), and never with its control
characters (an ``ESC[31m`` or ``ESC]0;`` in an id is shown escaped as
``\\x1b[31m``, so it can neither recolour the terminal nor retitle it).
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from audit.findings import FINDING_KEYS, Finding

if TYPE_CHECKING:
    from audit.review import Review

__all__ = [
    "ListedFinding",
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


LISTED_KEYS = ("gaming_day", "dealer", "opened")
"""The keys a listing adds to a finding's own (cli.md v1.2), after ``review``."""

LISTING_KEYS = (
    *(k for k in FINDING_KEYS if k not in ("gaming_day", "shift")),
    "review",
    *LISTED_KEYS,
    "shift",
)
"""A listed finding's keys in order: the v1 keys and ``review``, then the v1.2 keys, so a
column already read by position keeps its place (``shift`` added last, accounting.md)."""

SHORT_ID = 8
"""How much of a finding's id the table shows: ``review`` takes any unique prefix of 6+."""


@dataclass(frozen=True, slots=True)
class ListedFinding:
    """A finding as ``findings`` lists it: with its gaming day, its dealer (masked by the
    caller when a player dealt: a home-game banker) and its round's ``opened`` time."""

    finding: Finding
    gaming_day: dt.date | None
    dealer: str | None
    opened: str | None

    def to_dict(self) -> dict[str, Any]:
        """cli.md's shape plus the added keys (``review`` is the writer's to add)."""
        d = self.finding.to_dict()
        day = self.gaming_day or self.finding.gaming_day
        d["gaming_day"] = day.isoformat() if day else None
        d["dealer"] = self.dealer
        d["opened"] = self.opened
        return d


def write_findings(
    findings: Sequence[ListedFinding],
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
    (``dismissal pending``, ``confirmed (changed since review)``); then cli.md v1.2's
    ``gaming_day``, ``dealer`` and ``opened`` (:data:`LISTED_KEYS`).
    """
    got = reviews or {}
    if fmt == "jsonl":
        for li in findings:
            d: dict[str, Any] = li.finding.to_dict()
            r = got.get(li.finding.id or "")
            d["review"] = r.to_dict() if r is not None else None
            d.update((k, v) for k, v in li.to_dict().items() if k in LISTED_KEYS)
            out.write(json_line({k: d[k] for k in LISTING_KEYS}) + "\n")
    elif fmt == "csv":
        _write_csv(findings, out, got, raw=raw)
    else:
        _write_table(findings, out, got)


def _write_csv(
    findings: Iterable[ListedFinding], out: TextIO, reviews: Mapping[str, Review], *, raw: bool
) -> None:
    terminal = out.isatty()
    writer = csv.writer(out, lineterminator="\n")
    keys = LISTING_KEYS
    writer.writerow(keys)
    for li in findings:
        row = li.to_dict()
        row["events"] = " ".join(row["events"])
        r = reviews.get(li.finding.id or "")
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


def _write_table(
    findings: Sequence[ListedFinding], out: TextIO, reviews: Mapping[str, Review]
) -> None:
    """Three columns that fit 80 characters: the short id, the severity over the code
    (both never broken), and where, the message and the review, wrapped at spaces."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, show_edge=False)
    table.add_column("id", no_wrap=True)
    table.add_column("severity · code", no_wrap=True)
    table.add_column("where · what happened", overflow="fold", ratio=1)
    for li in findings:
        d = li.to_dict()
        sev = d["severity"]
        # Text(...) is never parsed as markup: an id like "[/]" or "[link=...]" stays text.
        kind = Text(sev, style=_SEVERITY_STYLE.get(sev, ""))
        kind.append("\n" + safe_line(d["code"]))
        what = Text("\n".join(safe_line(line) for line in _where(d)))
        what.append("\n" + safe_line(d["message"]))
        r = reviews.get(li.finding.id or "")
        extra = [f"impact {d['impact']}" if d["impact"] is not None else ""]
        extra.append(f"review: {r.label}" if r is not None else "")
        if any(extra):
            what.append("\n" + safe_line("; ".join(e for e in extra if e)), style="dim")
        table.add_row(Text(safe_line((li.finding.id or "")[:SHORT_ID])), kind, what)
    console = rows_console(out, highlight=False)
    console.print(table)
    console.print(Text(f"{len(findings):,} findings"))


def _where(d: Mapping[str, Any]) -> list[str]:
    """``T01 · T01-20261128-02 · round 14 · box 4``, then ``opened ... · dealer D180``:
    what a pit boss reads to find the round."""
    parts = [str(d[k]) for k in ("table", "shoe") if d[k] is not None]
    parts += [f"{k} {d[k]}" for k in ("round", "box", "hand") if d[k] is not None]
    when = [f"opened {d['opened']}"] if d["opened"] else []
    when += [f"dealer {d['dealer']}"] if d["dealer"] is not None else []
    lines = [" · ".join(parts) or str(d["source"] or "-")]
    return [*lines, " · ".join(when)] if when else lines
