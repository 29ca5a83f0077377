"""The web's ways to a disputed round (issue 30): the search form on every page, its
results, the tables and their rounds by day, the shoe index.

Player ids (and a banker's id in the dealer column) are masked unless the viewer is
signed in, as on every page of the app; a search by player takes the full id.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from audit.errors import AuditError, InputError, NotFoundError
from audit.reports.hand import mask_player
from audit.store import Store
from audit.store.lookup import resolve_table
from audit.store.rounds import (
    RoundFilter,
    RoundRow,
    ShoeEntry,
    TableDays,
    round_rows,
    shoe_entries,
    store_day_start,
    table_days,
)
from audit.web.urls import hand_url, shoe_url, table_url

MAX_ROWS = 500
"""The most rounds one search page lists (a year of one player's rounds is a report)."""


@dataclass(frozen=True, slots=True)
class RoundLine:
    """A round as the web lists it: masked as the viewer may see it, with its links."""

    row: RoundRow
    dealer: str | None
    players: tuple[str, ...]
    hand_href: str
    shoe_href: str
    table_href: str


@dataclass(frozen=True, slots=True)
class RoundGroup:
    heading: str
    lines: tuple[RoundLine, ...]


@dataclass(frozen=True, slots=True)
class RoundsPage:
    """The search's results, or a table's rounds by day (``web/rounds.html.j2``)."""

    title: str
    notes: tuple[str, ...] = ()
    groups: tuple[RoundGroup, ...] = ()
    shoes: tuple[ShoeEntry, ...] = ()
    shoe_hrefs: Mapping[tuple[str, str], str] = field(default_factory=dict)
    more: bool = False


@dataclass(frozen=True, slots=True)
class TablesPage:
    tables: tuple[TableDays, ...]
    hrefs: Mapping[str, str]


def _line(r: RoundRow, show: bool) -> RoundLine:
    return RoundLine(
        row=r,
        dealer=r.dealer if show or not r.dealer_is_player else mask_player(r.dealer),
        players=tuple(p if show else (mask_player(p) or "") for p in r.players),
        hand_href=hand_url(r.table, r.shoe, r.round),
        shoe_href=shoe_url(r.table, r.shoe),
        table_href=table_url(r.table),
    )


def _one(query: Mapping[str, Sequence[str]], key: str) -> str | None:
    got = [v.strip() for v in query.get(key, []) if v.strip()]
    if len(got) > 1:
        raise InputError(f"{key} given {len(got)} times")
    if got and len(got[0]) > 200:
        raise InputError(f"{key} too long")
    return got[0] if got else None


def search(store: Store, query: Mapping[str, Sequence[str]], show: bool) -> RoundsPage:
    """``/rounds?table=T03&at=21:40&date=2026-11-28`` (or ``at=2026-11-28T21:40``),
    ``?player=P-1879``, ``?dealer=D945``: the rounds ``rounds`` would list."""
    from audit.batch.rounds import find_at, parse_at
    from audit.errors import UsageError

    table, at, player, dealer = (_one(query, k) for k in ("table", "at", "player", "dealer"))
    day_text = _one(query, "date")
    try:
        day = dt.date.fromisoformat(day_text) if day_text else None
    except ValueError:
        raise InputError(f"a gaming day is YYYY-MM-DD, got {day_text!r}") from None
    if at is not None:
        if table is None:
            raise InputError("a time needs a table: the time is the table's own")
        start = store_day_start(store)
        try:
            local = parse_at(at, day, start)
            answer = find_at(store, table, local, start)
        except UsageError as exc:
            raise InputError(str(exc)) from None
        except AuditError as exc:
            raise NotFoundError(str(exc)) from None
        groups = tuple(
            RoundGroup(
                f"at {a.reading.at.isoformat(sep=' ')}", tuple(_line(r, show) for r in a.rows)
            )
            for a in answer.answers
        )
        return RoundsPage(f"Table {answer.table} at {at}", tuple(answer.notes()), groups)
    if player is None and dealer is None and table is None:
        raise InputError("search by a table and a time, a player or a dealer")
    try:
        resolved = resolve_table(store, table) if table is not None else None
    except AuditError as exc:
        raise NotFoundError(str(exc)) from None
    rows = round_rows(
        store,
        RoundFilter(table=resolved, first_day=day, last_day=day, player=player, dealer=dealer),
    )
    what = [f"table {resolved}" if resolved else "", f"day {day}" if day else ""]
    what += [f"player {player if show else mask_player(player)}" if player else ""]
    what += [f"dealer {dealer}" if dealer else ""]
    title = "Rounds of " + ", ".join(w for w in what if w)
    lines = tuple(_line(r, show) for r in rows[:MAX_ROWS])
    notes = () if rows else ("no round matches",)
    return RoundsPage(title, notes, (RoundGroup("", lines),), more=len(rows) > MAX_ROWS)


def table_page(store: Store, table: str, show: bool) -> RoundsPage:
    """``/tables/T03``: the table's shoes and rounds, by gaming day (newest first)."""
    try:
        table = resolve_table(store, table)
    except AuditError as exc:
        raise NotFoundError(str(exc)) from None
    rows = round_rows(store, RoundFilter(table=table))
    days: dict[dt.date | None, list[RoundLine]] = {}
    for r in rows:
        days.setdefault(r.gaming_day, []).append(_line(r, show))
    groups = tuple(
        RoundGroup(f"gaming day {d}" if d else "gaming day unknown", tuple(days[d]))
        for d in sorted(days, key=lambda d: d or dt.date.min, reverse=True)
    )
    shoes = tuple(shoe_entries(store, table))
    return RoundsPage(
        f"Table {table}",
        (),
        groups,
        shoes,
        {(s.table, s.shoe): shoe_url(s.table, s.shoe) for s in shoes},
    )


def tables_page(store: Store) -> TablesPage:
    """``/tables/``: every table with its gaming days."""
    tables = tuple(table_days(store))
    return TablesPage(tables, {t.table: table_url(t.table) for t in tables})


def shoes_page(store: Store) -> RoundsPage:
    """``/shoes/``: every shoe, newest gaming day first."""
    shoes = tuple(shoe_entries(store))
    return RoundsPage(
        "Shoes",
        shoes=shoes,
        shoe_hrefs={(s.table, s.shoe): shoe_url(s.table, s.shoe) for s in shoes},
    )
