"""``shoe-audit rounds``: find the round of a dispute by table and time, player or dealer."""

from __future__ import annotations

import csv
import datetime as dt
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from audit.cli.app import app
from audit.cli.common import (
    DEFAULT_DB_PATH,
    DateOption,
    DbOption,
    RowsFormat,
    boundary,
    gaming_day_option,
    is_terminal,
    open_db,
    parse_day_start,
)
from audit.cli.output import json_line, neutralise_cell, note, safe_line
from audit.errors import AuditError, UsageError

if TYPE_CHECKING:
    from audit.store import Store
    from audit.store.rounds import RoundRow


AtOption = Annotated[
    str | None,
    typer.Option(
        "--at",
        metavar="TIME",
        help=(
            "The round in play at this table-local time: YYYY-MM-DDTHH:MM[:SS], or "
            "HH:MM[:SS] with --date (a gaming day: 02:30 is the next morning)."
        ),
    ),
]
ShowPlayersOption = Annotated[
    bool, typer.Option("--show-players", help="Show player ids (masked by default).")
]


def round_at(store: Store, table: str, at: str, date: dt.date | None) -> tuple[str, str, int]:
    """``hand TABLE --at TIME``: the one round in play then (table, shoe, round)."""
    from audit.batch.rounds import find_at, in_play_round, parse_at
    from audit.store.rounds import store_day_start

    start = store_day_start(store)
    found = in_play_round(find_at(store, table, parse_at(at, date, start), start))
    return found.table, found.shoe, found.round


def mask(player: str | None, show: bool) -> str | None:
    """A player id as ``rounds`` shows it: masked as every page and report masks it."""
    from audit.reports.hand import mask_player

    return player if show else mask_player(player)


def row_dict(r: RoundRow, show_players: bool, at: dt.datetime | None = None) -> dict[str, Any]:
    """One round as ``rounds --format jsonl`` writes it (and csv, the same keys)."""
    d: dict[str, Any] = {
        "table": r.table,
        "shoe": r.shoe,
        "round": r.round,
        "gaming_day": r.gaming_day.isoformat() if r.gaming_day else None,
        "opened": r.opened.isoformat() if r.opened else None,
        "closed": r.closed.isoformat() if r.closed else None,
        "dealer": mask(r.dealer, show_players or not r.dealer_is_player),
        "players": [mask(p, show_players) for p in r.players],
        "findings": r.findings,
        "worst_code": r.worst_code,
        "worst_severity": r.worst_severity,
    }
    if at is not None:
        d["at"] = at.isoformat()
        d["position"] = r.position
    return d


def _findings_cell(r: RoundRow) -> str:
    if not r.findings:
        return "0"
    return f"{r.findings}: {r.worst_severity} {r.worst_code}"


_HEAD = ("", "table", "shoe", "round", "opened", "closed", "dealer", "players", "findings")


def write_table(
    groups: Sequence[tuple[dt.datetime | None, Sequence[RoundRow]]],
    out: TextIO,
    show_players: bool,
) -> None:
    """Rows as a plain text table, one per reading of ``--at`` (the round in play marked
    ``>``); long cells are kept whole (ids and times are never cut)."""
    total = 0
    for at, rows in groups:
        if at is not None:
            out.write(f"at {at.isoformat(sep=' ')}\n")
        cells: list[tuple[str, ...]] = [
            _HEAD,
            *(
                (
                    ">" if r.position == "in play" else "",
                    r.table,
                    r.shoe,
                    str(r.round),
                    r.opened.isoformat(sep=" ") if r.opened else "",
                    _closed(r),
                    mask(r.dealer, show_players or not r.dealer_is_player) or "",
                    " ".join(m or "" for m in (mask(p, show_players) for p in r.players)),
                    _findings_cell(r),
                )
                for r in rows
            ),
        ]
        lines = [tuple(safe_line(c) for c in line) for line in cells]
        widths = [max(len(line[i]) for line in lines) for i in range(len(_HEAD))]
        for line in lines:
            out.write("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
            out.write("\n")
        total += len(rows)
    out.write(f"{total:,} round{'' if total == 1 else 's'}\n")


def _closed(r: RoundRow) -> str:
    """The closing time; only the clock when the round closed on the day it opened."""
    if r.closed is None:
        return ""
    if r.opened is not None and r.closed.date() == r.opened.date():
        return r.closed.strftime("%H:%M:%S") + r.closed.isoformat()[-6:]
    return r.closed.isoformat(sep=" ")


def write_rows(
    groups: Sequence[tuple[dt.datetime | None, Sequence[RoundRow]]],
    fmt: RowsFormat,
    out: TextIO,
    *,
    show_players: bool,
    raw: bool = False,
) -> None:
    """Write the rounds found as ``fmt`` (cli.md: table, jsonl, csv)."""
    if fmt is RowsFormat.table:
        write_table(groups, out, show_players)
        return
    dicts = [row_dict(r, show_players, at) for at, rows in groups for r in rows]
    if fmt is RowsFormat.jsonl:
        for d in dicts:
            out.write(json_line(d) + "\n")
        return
    keys = [
        "table",
        "shoe",
        "round",
        "gaming_day",
        "opened",
        "closed",
        "dealer",
        "players",
        "findings",
        "worst_code",
        "worst_severity",
    ]
    if any(at is not None for at, _ in groups):
        keys += ["at", "position"]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(keys)
    for d in dicts:
        d["players"] = " ".join(d["players"])
        cells = ["" if d[k] is None else str(d[k]) for k in keys]
        if not raw:
            cells = [safe_line(neutralise_cell(c)) for c in cells]
        writer.writerow(cells)


@app.command("rounds")
@boundary
def rounds_cmd(
    db: DbOption = DEFAULT_DB_PATH,
    table: Annotated[
        str | None, typer.Option("--table", metavar="TABLE", help="Only this table, e.g. T03.")
    ] = None,
    at: AtOption = None,
    player: Annotated[
        str | None,
        typer.Option("--player", metavar="PLAYER", help="Rounds this player (full id) bet in."),
    ] = None,
    dealer: Annotated[
        str | None, typer.Option("--dealer", metavar="DEALER", help="Rounds this dealer dealt.")
    ] = None,
    date: DateOption = None,
    first: Annotated[
        dt.date | None, gaming_day_option("--from", "From this gaming day on.")
    ] = None,
    last: Annotated[dt.date | None, gaming_day_option("--to", "Up to this gaming day.")] = None,
    flagged: Annotated[bool, typer.Option("--flagged", help="Only rounds with findings.")] = False,
    day_start: Annotated[
        str | None,
        typer.Option(
            "--day-start",
            metavar="HH:MM",
            parser=parse_day_start,
            help="When a gaming day starts (default: as the database was ingested, 06:00).",
        ),
    ] = None,
    show_players: ShowPlayersOption = False,
    fmt: Annotated[
        RowsFormat | None,
        typer.Option(
            "--format", help="table (default on a terminal), jsonl (default when piped) or csv."
        ),
    ] = None,
    raw: Annotated[
        bool,
        typer.Option("--raw", help="csv: keep cells as they are (no leading ' against formulas)."),
    ] = False,
) -> None:
    """Find rounds for a dispute: by table and time, player or dealer.

    One row per round: table, shoe, round, opened and closed (table-local, with
    the offset the table's log wrote), dealer, players (masked unless
    --show-players), findings (count, worst severity and code). With --at: the
    round in play at that moment (marked >), with the rounds just before and
    after it; when none was in play, those two, said so. A time a DST change
    made happen twice, or skipped, is answered for both readings. Exit 1 when
    no round matches (with --at: the table has no round that gaming day).

    \b
    Examples:
      shoe-audit rounds --table T03 --at 2026-11-28T21:40
      shoe-audit rounds --table T03 --at 02:30 --date 2026-11-28
      shoe-audit rounds --player P-1879 --date 2026-11-28
      shoe-audit rounds --dealer D945 --flagged --format csv > rounds.csv
    """
    from audit.store.lookup import resolve_table
    from audit.store.rounds import RoundFilter, round_rows, store_day_start

    if date is not None and (first is not None or last is not None):
        raise UsageError("--date and --from/--to: give one or the other")
    if at is not None:
        if table is None:
            raise UsageError("--at needs --table: the time is the table's own")
        if first or last or player or dealer or flagged:
            raise UsageError(
                "--at finds the rounds around a moment: no --player, --dealer, "
                "--from, --to or --flagged with it"
            )
    chosen = fmt or (RowsFormat.table if is_terminal() else RowsFormat.jsonl)
    groups: list[tuple[dt.datetime | None, Sequence[RoundRow]]] = []
    with open_db(db, read_only=True) as store:
        start = day_start or store_day_start(store)
        if at is not None:
            from audit.batch.rounds import find_at, parse_at

            answer = find_at(store, table or "", parse_at(at, date, start), start)
            notes = answer.notes()
            groups = [(a.reading.at, a.rows) for a in answer.answers]
        else:
            notes = []
            flt = RoundFilter(
                table=resolve_table(store, table) if table is not None else None,
                first_day=date or first,
                last_day=date or last,
                player=player,
                dealer=dealer,
                flagged=flagged,
            )
            rows = round_rows(store, flt)
            if not rows:
                raise AuditError("no round matches")
            groups = [(None, rows)]
    for line in notes:
        if chosen is RowsFormat.table:
            sys.stdout.write(safe_line(line) + "\n")
        else:
            note(line)
    write_rows(groups, chosen, sys.stdout, show_players=show_players, raw=raw)
