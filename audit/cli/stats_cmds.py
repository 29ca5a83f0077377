"""``shoe-audit theory`` and ``shoe-audit stats``: exact theory, and the statistical audit."""

from __future__ import annotations

import csv
import json
import sys
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from audit.cli.app import app
from audit.cli.common import (
    DEFAULT_DB_PATH,
    DbOption,
    HouseOption,
    ProfilesOption,
    RowsFormat,
    boundary,
    is_terminal,
    open_db,
)
from audit.cli.output import warn

if TYPE_CHECKING:
    from audit.sidebets.paytables import PayTable
    from audit.stats import TheoryTable
    from audit.stats.side_bets import SideBetOdds
    from audit.stats.suite import StatsResult

EXIT_FLAGGED = 3


class TheoryFormat(StrEnum):
    table = "table"
    json = "json"


StatsFormat = RowsFormat


class CorrectionChoice(StrEnum):
    holm = "holm"
    bh = "bh"


@app.command("theory")
@boundary
def theory_cmd(
    profile_id: Annotated[str, typer.Argument(metavar="PROFILE", help="A rule profile id.")],
    decks: Annotated[
        int | None,
        typer.Option("--decks", min=1, max=64, help="Decks in the shoe (default: the profile's)."),
    ] = None,
    fmt: Annotated[
        TheoryFormat, typer.Option("--format", help="table (default) or json.")
    ] = TheoryFormat.table,
    paytable: Annotated[
        list[str] | None,
        typer.Option(
            "--paytable",
            metavar="ID",
            help="Also price this side-bet pay table (repeatable): each line's chance and "
            "the exact house edge.",
        ),
    ] = None,
    profiles: ProfilesOption = None,
) -> None:
    """The exact dealer final-outcome distribution by up card for the profile's shoe.

    P of 17-21, blackjack and bust behind each up card, from a full shoe with
    only the up card out ("before peek"), by exact composition-dependent
    recursion; for a profile with a peek, also each peeked up card given no
    blackjack ("after peek"). For each side bet the profile offers and each
    --paytable: every line's chance and the exact house edge (games.md §6: the
    cards from a full shoe; a bet on the dealer's draw by the profile's soft-17
    rule). Exit 1 for an unknown profile or pay table, or a profile whose banker
    plays freely.

    \b
    Examples:
      shoe-audit theory it-casino-6d
      shoe-audit theory it-casino-6d --decks 8 --format json
      shoe-audit theory it-casino-6d --paytable 21plus3-9 --paytable buster-12
    """
    from audit.profiles import load_registry
    from audit.sidebets.paytables import load_paytables, offered_side_bets, side_bets_asked
    from audit.stats import theory

    profile = load_registry(profiles).get(profile_id)
    offered = offered_side_bets(profile.rules)
    asked: list[tuple[str, PayTable]] = []
    if offered or paytable:
        registry = load_paytables(profiles)
        for problem in registry.problems:
            warn(problem)
        asked = side_bets_asked(registry, offered, paytable or ())
    table = theory(profile, decks, paytables=asked)
    if fmt is TheoryFormat.json:
        typer.echo(json.dumps(table.to_json()))
    else:
        _write_theory(table, sys.stdout)


def _write_theory(table: TheoryTable, out: TextIO) -> None:
    soft = "stands on" if table.rule.stands_on_soft else "hits"
    out.write(
        f"{table.profile}: {table.decks} deck(s), the dealer {soft} soft "
        f"{table.rule.stands_on} ({table.dealer}); "
        + (
            "no hole card, so blackjack is counted (before peek)\n"
            if table.after_peek is None
            else "blackjack is counted (before peek; after peek below)\n"
        )
    )
    names = table.rule.outcomes
    out.write("up   " + "".join(f"{n:>11}" for n in names) + "\n")
    for up, probs in [*table.upcards.items(), ("all", table.all)]:
        out.write(f"{up:<5}" + "".join(f"{probs[n]:>11.6f}" for n in names) + "\n")
    out.write(f"natural (two cards from a full shoe): {table.natural:.6f}\n")
    if table.after_peek is not None:
        after = [n for n in names if n != "blackjack"]
        out.write("\nafter peek (the dealer has no blackjack)\n")
        out.write("up   " + "".join(f"{n:>11}" for n in after) + "\n")
        for up, probs in table.after_peek.items():
            out.write(f"{up:<5}" + "".join(f"{probs[n]:>11.6f}" for n in after) + "\n")
    for key, odds in table.side_bets:
        _write_side_bet(key, odds, out)


def _write_side_bet(key: str, odds: SideBetOdds, out: TextIO) -> None:
    from audit.stats.side_bets import LOSE

    paytable = odds.paytable
    dealer = f", the dealer's hand by {odds.dealer}" if odds.dealer else ""
    named = "" if key == paytable.id else f"side bet {key}: "
    out.write(
        f"\n{named}pay table {paytable.id} ({paytable.evaluator}), "
        f"{odds.decks} deck(s){dealer}: {paytable.title}\n"
    )
    width = max(len(line) for line, _ in odds.lines)
    out.write(f"{'line':<{width}}  {'pays':>8}  {'probability':>11}\n")
    for line, p in odds.lines:
        ratio = "-1" if line == LOSE else _ratio(paytable.ratio(line))
        out.write(f"{line:<{width}}  {ratio:>8}  {float(p):>11.7f}\n")
    out.write(f"house edge: {100 * float(odds.house_edge):.4f}%\n")


def _ratio(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _probability(value: float) -> float:
    if not 0 < value < 1:
        raise typer.BadParameter(f"a probability between 0 and 1 (exclusive), got {value:g}")
    return value


@app.command("stats")
@boundary
def stats_cmd(
    db: DbOption = DEFAULT_DB_PATH,
    date: Annotated[str | None, typer.Option("--date", help="Gaming day YYYY-MM-DD.")] = None,
    from_: Annotated[
        str | None, typer.Option("--from", help="First gaming day (with --to).")
    ] = None,
    to: Annotated[str | None, typer.Option("--to", help="Last gaming day (with --from).")] = None,
    alpha: Annotated[
        float,
        typer.Option(
            "--alpha",
            callback=_probability,
            help="Flag a test whose adjusted p-value is at most this (0 < alpha < 1).",
        ),
    ] = 0.001,
    correction: Annotated[
        CorrectionChoice,
        typer.Option(
            "--correction",
            help="holm (default: no flag on 999 clean nights in 1,000 at 0.001) or bh "
            "(Benjamini-Hochberg: the share of false flags).",
        ),
    ] = CorrectionChoice.holm,
    fmt: Annotated[
        StatsFormat | None,
        typer.Option("--format", help="table (default on a terminal), jsonl (default piped), csv."),
    ] = None,
    fail_on_flag: Annotated[
        bool, typer.Option("--fail-on-flag", help="Exit 3 when any test flags.")
    ] = False,
    raw: Annotated[
        bool, typer.Option("--raw", help="csv: keep cells as they are (no leading ').")
    ] = False,
    profiles: ProfilesOption = None,
    show_players: Annotated[
        bool, typer.Option("--show-players", help="Show player ids (masked by default).")
    ] = False,
    house: HouseOption = None,
) -> None:
    """Statistical tests of the audited rounds against exact theory.

    Per table, dealer, shoe, player and gaming day: dealer busts and final
    totals by up card (each round's exact chances for the cards left in its
    shoe), naturals, the ranks of the cards seen, the house's result against
    the profile's expected edge, shuffles that keep neighbours together, and
    stakes that follow the count. Where the books are reconciled: the win over
    the drop against the hands' expected hold (hold_drop), and each table's
    payout of the last 30 days against its lifetime (payout_30d, Ohio's 4
    points, outside the correction). P-values are corrected together (Holm by
    default); a flag is a reason to look, never a finding. A test below its
    stated minimum sample is printed but not judged. Exit 0, or 3 with
    --fail-on-flag when a test flags.

    \b
    Examples:
      shoe-audit stats --date 2026-11-28
      shoe-audit stats --from 2026-11-01 --to 2026-11-30 --format csv > stats.csv
      shoe-audit stats --date 2026-11-28 --format jsonl --fail-on-flag
    """
    from audit.batch.nightly import day_range
    from audit.batch.statistics import stats_for_days
    from audit.books.house import load_house
    from audit.cli.commands import _date
    from audit.profiles import load_registry
    from audit.reports.masking import hide_ids
    from audit.sidebets.paytables import load_paytables
    from audit.stats import Correction
    from audit.store.lookup import player_dealers

    days = day_range(_date(date, "--date"), _date(from_, "--from"), _date(to, "--to"))
    the_house = load_house(house, profiles)
    paytables = load_paytables(profiles)
    for problem in paytables.problems:
        warn(problem)
    with open_db(db, read_only=True) as store:
        result = stats_for_days(
            store,
            days,
            load_registry(profiles),
            alpha=alpha,
            correction=Correction(correction.value),
            house=the_house,
            paytables=paytables,
        )
        if not show_players:  # a player's id, and a home-game banker's (issue 30)
            players = {r.subject for r in result.rows if r.scope == "player"}
            result = hide_ids(result, players | player_dealers(store.con))
    chosen = fmt or (StatsFormat.table if is_terminal() else StatsFormat.jsonl)
    write_stats(result, chosen, sys.stdout, raw=raw)
    if fail_on_flag and result.flags:
        raise typer.Exit(EXIT_FLAGGED)


def write_stats(result: StatsResult, fmt: StatsFormat, out: TextIO, *, raw: bool = False) -> None:
    """The rows as cli.md's ``jsonl`` (its keys, in order), ``csv`` or a ``table``."""
    from audit.cli.output import json_line, neutralise_cell, safe_line
    from audit.stats import STAT_KEYS

    if fmt is StatsFormat.jsonl:
        for row in result.rows:
            out.write(json_line(row.to_dict()) + "\n")
        return
    if fmt is StatsFormat.csv:
        # as `findings`: no spreadsheet evaluates a cell from a log (subjects and
        # messages carry dealer and player ids), control characters shown escaped
        escape = not raw or out.isatty()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(STAT_KEYS)
        for row in result.rows:
            cells = [_cell(v) for v in row.to_dict().values()]
            if escape:
                cells = [safe_line(c if raw else neutralise_cell(c)) for c in cells]
            writer.writerow(cells)
        return
    _write_table(result, out)


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _write_table(result: StatsResult, out: TextIO) -> None:
    """Judged rows (flags first) as a table; each flag's sentence below it in full."""
    from rich.table import Table
    from rich.text import Text

    from audit.cli.output import rows_console, safe_line

    console = rows_console(out, highlight=False, markup=False)
    table = Table(header_style="bold", show_lines=False, box=None, pad_edge=False)
    for col, justify in (
        ("flag", "left"),
        ("test", "left"),
        ("scope", "left"),
        ("subject", "left"),
        ("n", "right"),
        ("p", "right"),
        ("adjusted", "right"),
    ):
        table.add_column(col, justify=justify, no_wrap=col != "subject", overflow="fold")  # type: ignore[arg-type]
    # rows in the correction, and those judged by a fixed threshold (payout_30d: no p)
    judged = [
        r for r in result.rows if r.adjusted_p is not None or (r.judged and r.p_value is None)
    ]
    order = sorted(
        judged,
        key=lambda r: (
            not r.flag,
            r.adjusted_p is None,
            r.adjusted_p or 0.0,
            r.test,
            r.scope,
            r.subject,
        ),
    )
    for r in order:
        table.add_row(
            Text("FLAG", style="bold red") if r.flag else Text(""),
            Text(r.test),
            Text(r.scope),
            Text(safe_line(r.subject)),
            Text(f"{r.n:,}"),
            Text(f"{r.p_value:.2g}" if r.p_value is not None else ""),
            Text(f"{r.adjusted_p:.2g}" if r.adjusted_p is not None else "–"),
        )
    console.print(table)
    for r in result.flags:
        console.print(Text(safe_line(f"FLAG {r.test}: {r.message}")))
    hidden = len(result.rows) - len(judged)
    console.print(
        f"{len(result.rows):,} tests, {result.judged:,} judged; {len(result.flags):,} flagged "
        f"at alpha {result.alpha:g} ({result.correction.value} correction)"
        + (
            f"; {hidden:,} below their minimum sample not shown (see --format jsonl)"
            if hidden
            else ""
        )
    )
