"""The web's ways to a disputed round (issue 30): the search on every page, its results,
the table and shoe indexes, players masked unless signed in. Pages are parsed."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from audit.review import ReviewTrail
from audit.web.app import ServeConfig, create_app
from tests.accounts import add_accounts
from tests.cli.helpers import cli
from tests.cli.rounds_log import DST_NIGHT, EVENING, night_events, write_night
from tests.web.client import Client, running


class Rows(HTMLParser):
    """The text of every table row (by table id or class), and the forms' fields."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[str]]]] = []
        self.fields: dict[str, list[str]] = {}
        self.notes: list[str] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._form: str | None = None
        self._note: list[str] | None = None
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self.tables.append((a.get("id") or a.get("class") or "", []))
        elif tag == "tr" and self.tables:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "form":
            self._form = a.get("id") or ""
        elif tag == "input" and self._form is not None:
            self.fields.setdefault(self._form, []).append(a.get("name") or "")
        elif tag == "p" and a.get("class") == "note":
            self._note = []
        elif tag == "a" and a.get("href"):
            self.links.append(a["href"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1][1].append(self._row)
            self._row = None
        elif tag == "form":
            self._form = None
        elif tag == "p" and self._note is not None:
            self.notes.append("".join(self._note).strip())
            self._note = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._note is not None:
            self._note.append(data)


def parse(text: str) -> Rows:
    p = Rows()
    p.feed(text)
    return p


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("finder")
    write_night(folder / "logs" / "T03.jsonl", night_events("T03", "T03-S1", EVENING))
    write_night(folder / "logs" / "T05.jsonl", night_events("T05", "T05-S1", DST_NIGHT))
    db = folder / "audit.duckdb"
    assert cli("ingest", "--db", str(db), str(folder / "logs")).exit_code == 0
    assert cli("run", "--db", str(db)).exit_code == 0
    add_accounts(ReviewTrail.beside(db), "ana", password="long enough password")
    return db


@pytest.fixture(scope="module")
def clients(night: Path) -> Iterator[tuple[Client, Client]]:
    with running(create_app(ServeConfig(db=night))) as port:
        signed = Client(port)
        assert signed.sign_in("ana").status == 303
        yield Client(port), signed


def test_every_page_has_the_search_form(clients: tuple[Client, Client]) -> None:
    anon, _ = clients
    for path in ("/findings", "/tables/", "/shoes/", "/reviews"):
        r = anon.get(path)
        assert r.status == 200, path
        assert parse(r.text).fields["round-search"] == ["table", "at", "date", "player", "dealer"]


def test_search_by_table_and_time_marks_the_round_in_play(clients: tuple[Client, Client]) -> None:
    anon, _ = clients
    r = anon.get("/rounds?table=t03&at=21%3A40%3A30&date=2026-11-28")
    assert r.status == 200
    page = parse(r.text)
    (rows,) = [rows for name, rows in page.tables if name == "rounds-table"]
    assert [row[0] for row in rows[1:]] == ["before", "in play", "after"]
    in_play = rows[2]
    assert in_play[1:7] == [
        "T03",
        "T03-S1",
        "3",
        "2026-11-28 21:40:00+01:00",
        "2026-11-28 21:41:00+01:00",
        "D002",
    ]
    assert in_play[7] == "••••01"
    assert "/hands/T03/T03-S1/3" in page.links


def test_search_at_a_time_that_happened_twice_shows_both_readings(
    clients: tuple[Client, Client],
) -> None:
    anon, _ = clients
    page = parse(anon.get("/rounds?table=T05&at=02%3A20%3A30&date=2026-10-24").text)
    assert page.notes == ["02:20:30 happened twice at T05 (the clocks went from +02:00 to +01:00)"]
    marked = [row[3] for _, rows in page.tables for row in rows if row[0] == "in play"]
    assert marked == ["1", "3"]


def test_search_by_player_takes_the_full_id_and_shows_it_masked(
    clients: tuple[Client, Client],
) -> None:
    anon, signed = clients
    r = anon.get("/rounds?player=P-2002")
    assert r.status == 200
    # only the sign-in link's way back (the URL the user typed) holds the full id
    assert "P-2002" not in r.text.replace("player%3DP-2002", "")
    rows = [row for _, rows in parse(r.text).tables for row in rows[1:]]
    assert [(row[1], row[3], row[7]) for row in rows] == [
        ("T05", "3", "••••02"),
        ("T03", "2", "••••02"),
    ]
    shown = signed.get("/rounds?player=P-2002").text
    assert "P-2002" in shown


def test_unknown_table_and_bad_input_are_4xx(clients: tuple[Client, Client]) -> None:
    anon, _ = clients
    assert anon.get("/rounds?table=T09&at=2026-11-28T21%3A40").status == 404
    assert anon.get("/rounds?at=21%3A40").status == 400
    assert anon.get("/rounds?table=T03&at=yesterday").status == 400
    assert anon.get("/rounds").status == 400
    assert anon.get("/tables/T09").status == 404


def test_tables_index_and_a_tables_rounds_by_day(clients: tuple[Client, Client]) -> None:
    anon, _ = clients
    page = parse(anon.get("/tables/").text)
    (rows,) = [rows for name, rows in page.tables if name == "tables-table"]
    assert rows[1:] == [["T03", "4", "2026-11-28"], ["T05", "4", "2026-10-24"]]
    assert "/tables/T03" in page.links
    page = parse(anon.get("/tables/T03").text)
    shoes = dict(page.tables)["shoes-table"]
    assert shoes[1][:4] == ["2026-11-28", "T03", "T03-S1", "2026-11-28 21:28:00+01:00"]
    rounds = dict(page.tables)["rounds-table"]
    assert [(row[3], row[4]) for row in rounds[1:]] == [
        ("1", "2026-11-28 21:30:00+01:00"),
        ("2", "2026-11-28 21:35:00+01:00"),
        ("3", "2026-11-28 21:40:00+01:00"),
        ("4", "2026-11-29 02:29:30+01:00"),
    ]


def test_shoes_index_links_every_shoe(clients: tuple[Client, Client]) -> None:
    anon, _ = clients
    page = parse(anon.get("/shoes/").text)
    rows = dict(page.tables)["shoes-table"]
    assert [row[2] for row in rows[1:]] == ["T03-S1", "T05-S1"]
    assert {"/shoes/T03/T03-S1", "/shoes/T05/T05-S1"} <= set(page.links)
