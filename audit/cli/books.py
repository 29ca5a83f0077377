"""``shoe-audit books`` (the Master Game Report) and ``shoe-audit adjust`` (accounting.md)."""

from __future__ import annotations

import csv
import datetime as dt
import sys
from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, Any, TextIO

import typer

from audit.cli.app import app
from audit.cli.common import (
    DEFAULT_DB_PATH,
    DateOption,
    DbOption,
    FromOption,
    HouseOption,
    PasswordStdinOption,
    RowsFormat,
    ToOption,
    boundary,
    is_terminal,
    no_database,
    open_db,
    parse_gaming_day,
)
from audit.cli.output import json_line, neutralise_cell, note, safe_line


class Level(StrEnum):
    shift = "shift"
    table = "table"
    pit = "pit"
    casino = "casino"


@app.command("books")
@boundary
def books_cmd(
    db: DbOption = DEFAULT_DB_PATH,
    date: DateOption = None,
    from_: FromOption = None,
    to: ToOption = None,
    table: Annotated[
        list[str] | None,
        typer.Option("--table", metavar="TABLE", help="Only this table (repeatable)."),
    ] = None,
    pit: Annotated[
        str | None, typer.Option("--pit", metavar="PIT", help="Only this pit's tables.")
    ] = None,
    level: Annotated[
        list[Level] | None,
        typer.Option("--level", help="Only these levels (repeatable; default all four)."),
    ] = None,
    fmt: Annotated[
        RowsFormat | None,
        typer.Option(
            "--format",
            help="table (default on a terminal, grouped by pit), jsonl (default when piped) "
            "or csv.",
        ),
    ] = None,
    raw: Annotated[
        bool,
        typer.Option(
            "--raw",
            help="csv: keep cells as they are (no leading ' against spreadsheet formulas).",
        ),
    ] = False,
    adjustments: Annotated[
        bool, typer.Option("--adjustments", help="Print the adjustment log instead.")
    ] = False,
    fail_on_variance: Annotated[
        bool,
        typer.Option(
            "--fail-on-variance",
            help="Exit 3 when a selected period has an ACCT_WIN_MISMATCH or ACCT_DROP_MISMATCH.",
        ),
    ] = False,
    house: HouseOption = None,
) -> None:
    """Print the Master Game Report: each table's books by shift, then each table's, pit's
    and the casino's totals per gaming day, as counted and as adjusted, month and year
    to date.

    The rows are the periods `run` reconciled, with the adjustments of the review
    trail (`shoe-audit adjust`). Money is written as `findings` writes it, holds
    as percentages (half-even, 2 decimals); a figure not known is null (an empty
    csv cell). --table and --pit keep their own rows and totals; the casino's
    totals only without them. Exit 1 when there is no database, or the selected
    days hold no books and no rounds; 3 with --fail-on-variance.

    \b
    Examples:
      shoe-audit books --date 2026-11-28 --pit P1 --format table
      shoe-audit books --from 2026-11-01 --to 2026-11-30 --level table --format csv > mgr.csv
      shoe-audit books --adjustments --date 2026-11-28
      shoe-audit books --date 2026-11-28 --fail-on-variance --format jsonl
    """
    from audit.batch.books import books_view
    from audit.batch.nightly import day_range
    from audit.books.house import load_house
    from audit.books.mgr import ADJUSTMENT_COLUMNS, LEVELS, MGR_COLUMNS
    from audit.review import ReviewTrail
    from audit.review.adjustments import trail_adjustments

    days = day_range(date, from_, to)
    the_house = load_house(house)
    levels = [lv.value for lv in level] if level else list(LEVELS)
    with open_db(db, read_only=True) as store:
        view = books_view(
            store,
            the_house,
            days=days,
            tables=table or (),
            pit=pit,
            levels=levels,
            adjustments=trail_adjustments(ReviewTrail.beside(db)),
        )
    chosen = fmt or (RowsFormat.table if is_terminal() else RowsFormat.jsonl)
    rows, columns = (
        (view.adjustments, ADJUSTMENT_COLUMNS) if adjustments else (view.rows, MGR_COLUMNS)
    )
    if chosen is RowsFormat.jsonl:
        for row in rows:
            sys.stdout.write(json_line(row) + "\n")
    elif chosen is RowsFormat.csv:
        write_csv(rows, columns, sys.stdout, raw=raw)
    elif adjustments:
        _adjustments_table(rows, sys.stdout)
    else:
        _mgr_table(rows, sys.stdout)
    sha = the_house.sha256 or "built in"
    note(f"house file {the_house.path or '(built in)'}, sha256 {sha}")
    if not view.periods:
        note(f"no table kept books in gaming day {_span(view.first, view.last)}")
    if fail_on_variance and view.variances:
        named = ", ".join(f"{t} {d} {s}" for t, d, s in view.variances)
        note(f"{len(view.variances)} period(s) with a variance: {named}")
        raise typer.Exit(3)


def _span(first: dt.date, last: dt.date) -> str:
    return f"{first}" if first == last else f"{first} to {last}"


def write_csv(
    rows: Sequence[dict[str, Any]], columns: Sequence[str], out: TextIO, *, raw: bool
) -> None:
    """A header row of ``columns``, then each row; null as an empty cell, ``true``/``false``
    for booleans; cells neutralised against spreadsheet formulas as ``findings`` does
    (``raw``: kept as they are, but on a terminal, where control characters are escaped)."""
    terminal = out.isatty()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        cells = [_cell(row[c]) for c in columns]
        if not raw or terminal:
            cells = [safe_line(c if raw else neutralise_cell(c)) for c in cells]
        writer.writerow(cells)


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


_MGR_SHOWN = (
    ("status", "status"),
    ("drop", "drop"),
    ("win", "win"),
    ("hold", "hold %"),
    ("hands_result", "hands"),
    ("variance", "W − R"),
    ("drop_variance", "D − B"),
    ("win_adjusted", "win adj."),
    ("hold_adjusted", "hold adj. %"),
    ("win_mtd", "win MTD"),
    ("hold_mtd", "MTD %"),
    ("win_ytd", "win YTD"),
    ("hold_ytd", "YTD %"),
    ("findings", "ACCT"),
)


def _mgr_table(rows: Sequence[dict[str, Any]], out: TextIO) -> None:
    """The MGR on a terminal: per gaming day, one table per pit (its periods, its tables'
    totals, its own total), then the casino's totals."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from audit.cli.output import rows_console

    console = rows_console(out, highlight=False)
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        where = "casino" if r["level"] == "casino" else f"pit {r['pit'] or '(none)'}"
        groups.setdefault((r["gaming_day"], where), []).append(r)
    for (day, where), members in groups.items():
        table = Table(
            title=Text(f"gaming day {day} · {safe_line(where)}"),
            box=box.SIMPLE_HEAD,
            header_style="bold",
            title_justify="left",
        )
        table.add_column("level · table · shift", no_wrap=True)
        for _, head in _MGR_SHOWN:
            table.add_column(head, justify="right")
        for r in members:
            subject = [r["level"], *(str(r[k]) for k in ("table", "shift", "currency") if r[k])]
            style = "" if r["level"] == "shift" else "bold"
            cells = ["" if r[k] is None else str(r[k]) for k, _ in _MGR_SHOWN]
            table.add_row(
                Text(safe_line(" · ".join(subject)), style=style),
                *(Text(safe_line(c), style=style) for c in cells),
            )
        console.print(table)
    console.print(Text(f"{sum(1 for r in rows if r['level'] == 'shift'):,} periods"))


def _adjustments_table(rows: Sequence[dict[str, Any]], out: TextIO) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from audit.cli.output import rows_console

    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, show_edge=False)
    for head in ("id", "period", "line", "amount", "effect", "by · reason", "reportable"):
        table.add_column(head, overflow="fold")
    for r in rows:
        period = " ".join(str(r[k]) for k in ("table", "gaming_day", "shift") if r[k])
        who = f"{r['by']} ({r['source']}): {r['reason']}"
        if r["reverses"]:
            who += f" · reverses {r['reverses']}"
        table.add_row(
            *(
                Text(safe_line(c))
                for c in (r["id"], period, r["line"], r["amount"], r["effect"], who)
            ),
            Text("over the threshold" if r["reportable"] else "", style="bold"),
        )
    console = rows_console(out, highlight=False)
    console.print(table)
    console.print(Text(f"{len(rows):,} adjustments"))


@app.command("adjust")
@boundary
def adjust_cmd(
    table: Annotated[str, typer.Argument(metavar="TABLE", help="The table, e.g. T07.")],
    gaming_day: Annotated[
        dt.date,
        typer.Argument(
            metavar="GAMING_DAY", parser=parse_gaming_day, help="The gaming day, YYYY-MM-DD."
        ),
    ],
    line: Annotated[
        str | None,
        typer.Option(
            "--line",
            metavar="LINE",
            help="The figure corrected: opener, closer, fills, credits, drop_cash, "
            "drop_markers, drop_other or tips.",
        ),
    ] = None,
    amount: Annotated[
        str | None,
        typer.Option(
            "--amount", metavar="AMOUNT", help="Added to that figure (signed, e.g. -25.50)."
        ),
    ] = None,
    reason: Annotated[
        str,
        typer.Option("--reason", metavar="TEXT", show_default=False, help="Why.  [required]"),
    ] = "",
    by: Annotated[
        str,
        typer.Option(
            "--by",
            metavar="ACCOUNT",
            show_default=False,
            help="Your manager account; its password is asked for.  [required]",
        ),
    ] = "",
    password_stdin: PasswordStdinOption = False,
    shift: Annotated[
        str | None,
        typer.Option(
            "--shift", metavar="SHIFT", help="The shift (required at a house with several)."
        ),
    ] = None,
    ref: Annotated[
        str | None,
        typer.Option(
            "--ref", metavar="TEXT", help="What it rests on (a slip, a finding id, a count sheet)."
        ),
    ] = None,
    reverses: Annotated[
        str | None,
        typer.Option(
            "--reverses",
            metavar="ID",
            help="Cancel an earlier adjustment (its line, minus its amount).",
        ),
    ] = None,
    house: HouseOption = None,
    db: DbOption = DEFAULT_DB_PATH,
) -> None:
    """Record an adjustment of a period's books, append-only, in the review trail.

    The books as counted never change: `books` shows them beside the books as
    adjusted. A correction is a new adjustment: --reverses ID takes the line and
    minus the amount of the one it cancels. Only a manager account (`users add
    NAME --role manager`) records one; its password is asked for, or read from
    standard input with --password-stdin. Prints the adjustment's id. Exit 2 for
    an unknown line, an amount of 0 or with more than 2 decimals, an empty
    reason; 1 when there is no database, no books for that period, the account
    is not a manager or the password is wrong, or --reverses names no adjustment.

    \b
    Examples:
      shoe-audit adjust T07 2026-11-28 --line closer --amount 25 --reason "recount" --by boss
      shoe-audit adjust T07 2026-11-28 --line drop_cash --amount -100 --reason "sheet" --by boss
      shoe-audit adjust T07 2026-11-28 --reverses ADJ-3 --reason "keyed twice" --by boss
    """
    from audit.batch.books import (
        AdjustRequest,
        check_request,
        parse_amount,
        prepare_adjustment,
        require_manager,
    )
    from audit.books.house import load_house
    from audit.cli.reviewing import _password
    from audit.errors import UsageError
    from audit.review import ReviewTrail, os_user
    from audit.review.accounts import authenticate
    from audit.review.adjustments import record

    req = AdjustRequest(
        table=table,
        gaming_day=gaming_day,
        shift=shift,
        line=line,
        amount=parse_amount(amount) if amount is not None else None,
        reason=reason,
        ref=ref,
        reverses=reverses,
    )
    the_house = load_house(house)
    period_shift = check_request(req, the_house)
    if not by.strip():
        raise UsageError("--by ACCOUNT is required: the manager recording it")
    if not db.exists():
        raise no_database(db)
    with open_db(db, read_only=True) as store:
        new = prepare_adjustment(db, store, req, period_shift)  # before the password
    trail = ReviewTrail.beside(db)
    account = authenticate(trail, by.strip(), _password(by.strip(), from_stdin=password_stdin))
    require_manager(str(account.role), account.name)
    made = record(trail, new, account=account.name, user=os_user())
    sys.stdout.write(made.id + "\n")
    sys.stdout.flush()
    note(
        f"recorded {made.id}: {made.table_id} {made.gaming_day} {made.shift} {made.line} "
        f"{made.amount} by {made.by_name} (os user {made.os_user or '?'})"
        + (f", reversing {made.reverses}" if made.reverses else "")
    )
