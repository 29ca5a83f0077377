"""Reading the books (issue 31, point 1): TEL/1 v1.2's table-level events and streams, as
``shared/spec/accounting.md`` "TEL/1 v1.2: streams and the new events" defines them, through
``validate``, ``ingest``, the JSON Schema, the store's loader and ``status``; the house file
on the command line. Real files, a real DuckDB database, real CLI invocations."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import jsonschema
import pytest

from audit.events.parse import parse_line
from audit.ingest import ingest_paths, validate_paths
from audit.schemas import render_schemas
from audit.store import open_store
from audit.store.books import load_books
from tests.cli.helpers import cli

DEALER = [{"id": "D042", "role": "dealer"}, {"id": "S-118", "role": "supervisor"}]
CAGE = [{"id": "C-311", "role": "cashier"}, {"id": "G-090", "role": "security"}]


def line(**fields: Any) -> str:
    """One TEL/1 line: an envelope of table T07 (no shoe) and ``fields``."""
    base: dict[str, Any] = {"id": "x1", "seq": 1, "ts": "2026-11-28T19:55:00+01:00", "table": "T07"}
    return json.dumps({**base, **fields}, separators=(",", ":"))


# One valid line of each new type (accounting.md's session excerpt, and its table).
VALID = {
    "inventory": line(
        type="inventory",
        kind="opener",
        chips=[{"denomination": 5, "count": 200}, {"denomination": 2.5, "count": 0}],
        signers=DEALER,
        slip=77,
    ),
    "fill": line(
        type="fill",
        stream="CAGE",
        side="cage",
        slip=88412,
        chips=[{"denomination": 25, "count": 40}],
        signers=CAGE,
        requested_by="S-118",
    ),
    "credit": line(type="credit", slip=3, chips=[], signers=[]),
    "slip_void": line(type="slip_void", of="fill", slip=88413, reason="", signers=CAGE),
    "buy_in": line(type="buy_in", amount=500, method="cash", box=1, player="P-1881"),
    "drop_count": line(
        type="drop_count",
        stream="COUNT",
        gaming_day="2026-11-28",
        cash=500,
        tips=12.5,
        signers=[{"id": "K-12", "role": "count"}],
        drop_box="B-7",
    ),
    "adjustment": line(
        type="adjustment",
        stream="ACCOUNTING",
        gaming_day="2026-11-28",
        shift="day",
        line="drop_cash",
        amount=-20,
        reason="count sheet re-added",
        by="ACC-3",
    ),
}


@pytest.mark.parametrize("etype", sorted(VALID))
def test_every_new_type_is_accepted_by_the_models_and_the_schema(etype: str) -> None:
    text = VALID[etype]
    event = parse_line(text)
    assert event.type == etype
    schema = json.loads(render_schemas()["tel1-event.schema.json"])
    assert not list(jsonschema.Draft202012Validator(schema).iter_errors(json.loads(text)))


def test_defaults_side_series_and_stream() -> None:
    """``side`` defaults to the table's copy, ``series`` to the type (a void's: ``of``),
    ``stream`` to the table's own."""
    fill = parse_line(line(type="fill", slip=1, chips=[], signers=[]))
    assert (fill.side, fill.series, fill.stream_id) == ("table", "fill", "T07")  # type: ignore[union-attr]
    void = parse_line(VALID["slip_void"])
    assert void.series is None and void.slip_series == "fill"  # type: ignore[union-attr]
    assert parse_line(VALID["fill"]).stream_id == "CAGE"
    count = parse_line(VALID["drop_count"])
    assert (count.markers, count.other, count.tips) == (0, 0, Decimal("12.5"))  # type: ignore[union-attr]


REFUSED = [
    # (line, what the one-line reason says)
    (line(type="inventory", kind="opener", signers=DEALER,
          chips=[{"denomination": 5, "count": 1}, {"denomination": 5.00, "count": 2}]),
     "chips: denomination 5.0 listed twice"),
    (line(type="inventory", kind="recount", chips=[], signers=[]), "kind"),
    (line(type="inventory", kind="opener", chips=[{"denomination": 0, "count": 1}], signers=[]),
     "an amount over 0"),
    (line(type="inventory", kind="opener", chips=[{"denomination": 5, "count": -1}], signers=[]),
     "count"),
    (line(type="inventory", kind="opener", chips=[{"denomination": 5.001, "count": 1}],
          signers=[]), "at most 2 decimals"),
    (line(type="inventory", kind="opener", chips=[], signers=[{"id": "D1", "role": "boss"}]),
     "role"),
    (line(type="inventory", kind="opener", chips=[], signers=[{"id": "", "role": "dealer"}]),
     "signers.0.id"),
    (line(type="inventory", kind="opener", chips=[]), "missing required field 'signers'"),
    (line(type="fill", slip=0, chips=[], signers=[]), "slip"),
    (line(type="fill", chips=[], signers=[]), "missing required field 'slip'"),
    (line(type="fill", slip=1, side="pit", chips=[], signers=[]), "side"),
    (line(type="credit", slip=1, series="", chips=[], signers=[]), "series"),
    (line(type="credit", slip=1, series="s" * 65, chips=[], signers=[]), "series"),
    (line(type="slip_void", slip=1, of="buy_in", reason="x", signers=[]), "of"),
    (line(type="slip_void", slip=1, of="fill", signers=[]), "missing required field 'reason'"),
    (line(type="buy_in", amount=0, method="cash"), "an amount over 0"),
    (line(type="buy_in", amount=-5, method="cash"), "an amount over 0"),
    (line(type="buy_in", amount=5, method="chips"), "method"),
    (line(type="buy_in", amount=5, method="cash", box=0), "box"),
    (line(type="drop_count", gaming_day="2026-11-31", cash=1, signers=[]), "not a date"),
    (line(type="drop_count", gaming_day="28/11/2026", cash=1, signers=[]), "YYYY-MM-DD"),
    (line(type="drop_count", gaming_day=20261128, cash=1, signers=[]), "YYYY-MM-DD"),
    (line(type="drop_count", gaming_day="2026-11-28", cash=-1, signers=[]), "0 or more"),
    (line(type="drop_count", gaming_day="2026-11-28", signers=[]), "'cash'"),
    (line(type="adjustment", gaming_day="2026-11-28", line="drop_cash", amount=0, reason="r",
          by="A"), "other than 0"),
    (line(type="adjustment", gaming_day="2026-11-28", line="hold", amount=1, reason="r",
          by="A"), "line"),
    (line(type="adjustment", gaming_day="2026-11-28", line="fills", amount=1, reason="",
          by="A"), "reason"),
    (line(type="buy_in", amount=5, method="cash", stream=""), "stream"),
    (line(type="buy_in", amount=5, method="cash", stream="s" * 129), "stream"),
    (line(type="future_thing", shoe=None), "shoe"),
    # shoe and round events still need their shoe (event-log.md, v1.2 too)
    (line(type="round_open", round=1), "missing required field 'shoe'"),
]  # fmt: skip


def test_each_refused_line_is_one_line_with_file_line_and_why(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(t for t, _ in REFUSED) + "\n", encoding="utf-8")
    report = validate_paths([path])
    assert len(report.invalid) == len(REFUSED)
    for n, ((_, why), message) in enumerate(zip(REFUSED, report.invalid, strict=True), start=1):
        assert message.startswith(f"{path}:{n}: "), message
        assert why in message, (why, message)
        assert "\n" not in message


def test_ingest_stores_what_validate_accepts_and_quarantines_the_rest(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(
        "\n".join(
            t.replace('"id":"x1","seq":1', f'"id":"e{i}","seq":{i}')
            for i, t in enumerate(VALID.values(), start=1)
        )
        + "\n",
        encoding="utf-8",
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text(REFUSED[0][0] + "\n", encoding="utf-8")
    with open_store(tmp_path / "a.duckdb") as store:
        summary = ingest_paths(store, [good, bad])
        assert [(f.new, f.rejected) for f in summary.files] == [(7, 0), (0, 1)]
        rows = store.con.execute(
            """SELECT type, shoe, stream, kind, side, series, slip, amount, gaming_day,
                      list_sum(list_transform(chips, lambda c: c.denomination * c.count)),
                      len(signers)
               FROM events ORDER BY seq"""
        ).fetchall()
    assert rows[0][:4] == ("inventory", None, None, "opener")
    assert rows[0][9] == Decimal(1000) and rows[0][10] == 2
    assert rows[1][:7] == ("fill", None, "CAGE", None, "cage", "fill", 88412)
    assert rows[3][4:6] == ("table", None)  # a void's series: as written (its type when missing)
    assert rows[5][8] == dt.date(2026, 11, 28)
    assert rows[6][7] == Decimal(-20)


def test_a_shoe_or_round_on_a_table_event_is_kept_not_read(tmp_path: Path) -> None:
    text = line(type="buy_in", amount=5, method="cash", shoe="S-1", round=3)
    event = parse_line(text)
    assert event.model_extra == {"shoe": "S-1", "round": 3}
    path = tmp_path / "t.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    with open_store(tmp_path / "a.duckdb") as store:
        ingest_paths(store, [path])
        assert store.con.execute("SELECT shoe, round, has_extra FROM events").fetchall() == [
            (None, None, True)
        ]
        assert store.con.execute("SELECT count(*) FROM shoes").fetchall() == [(0,)]


def test_an_unknown_type_needs_no_shoe(tmp_path: Path) -> None:
    """A later table-level type reaches this reader as LOG_UNKNOWN_TYPE, not LOG_MALFORMED."""
    path = tmp_path / "u.jsonl"
    path.write_text(line(type="marker_issue", amount=5) + "\n", encoding="utf-8")
    report = validate_paths([path])
    assert report.invalid == [] and len(report.warnings) == 1


# --------------------------------------------------------------------------- streams and gaps

HANDS = Path(__file__).resolve().parents[1] / "data" / "worked_example.jsonl"


def _books_night(tmp_path: Path) -> Path:
    """The worked example's round (T07 seq 1-26 of shoe T07-20261128-01), renumbered into
    a session of the table's stream: opener seq 1, hands 2-27, a buy-in 28, closer 29;
    a cage stream with a gap (77121, 77124) and a count stream."""
    out = []
    for raw in HANDS.read_text(encoding="utf-8").splitlines():
        obj = json.loads(raw)
        obj["seq"] += 1
        obj["id"] = f"H-{obj['seq']}"
        out.append(json.dumps(obj))
    opener = json.loads(VALID["inventory"]) | {
        "id": "T07-O",
        "seq": 1,
        "ts": "2026-11-28T19:59:00+01:00",
    }
    buy = json.loads(VALID["buy_in"]) | {
        "id": "T07-B",
        "seq": 28,
        "ts": "2026-11-28T20:05:00+01:00",
    }
    closer = json.loads(VALID["inventory"]) | {
        "id": "T07-C",
        "seq": 29,
        "kind": "closer",
        "ts": "2026-11-28T20:06:00+01:00",
    }
    cage = [
        json.loads(VALID["fill"]) | {"id": f"CG-{s}", "seq": s, "slip": s} for s in (77121, 77124)
    ]
    count = json.loads(VALID["drop_count"]) | {"id": "CR-1", "seq": 412}
    path = tmp_path / "night.jsonl"
    lines = [json.dumps(opener), *out, json.dumps(buy), json.dumps(closer),
             *map(json.dumps, cage), json.dumps(count)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


HOUSE_WITH_CAGE = """\
complete_streams = { value = ["CAGE"], source = "the cage exports every slip" }
"""


def _gaps(db: Path) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "SELECT table_id, events, message FROM log_findings WHERE code = 'LOG_SEQ_GAP' "
            "ORDER BY 3"
        ).fetchall()
    finally:
        con.close()


def test_a_cage_stream_is_judged_for_gaps_only_when_the_house_lists_it(tmp_path: Path) -> None:
    night = _books_night(tmp_path)
    assert cli("ingest", "--db", str(tmp_path / "a.duckdb"), str(night)).exit_code == 0
    assert _gaps(tmp_path / "a.duckdb") == []  # the table's stream is whole; CAGE not judged
    house = tmp_path / "house.toml"
    house.write_text(HOUSE_WITH_CAGE, encoding="utf-8")
    result = cli("ingest", "--db", str(tmp_path / "b.duckdb"), "--house", str(house), str(night))
    assert result.exit_code == 0, result.output
    assert _gaps(tmp_path / "b.duckdb") == [
        (None, ["CG-77121", "CG-77124"], "stream CAGE: seq 77121 → 77124, 2 events missing")
    ]


def test_a_gap_in_a_tables_stream_counts_its_books_and_hands_together(tmp_path: Path) -> None:
    """The table's stream holds its hands and the books it writes itself: the buy-in
    (seq 28) left out of the file is a gap between the last hand and the closer."""
    night = _books_night(tmp_path)
    night.write_text(
        "\n".join(t for t in night.read_text().splitlines() if '"T07-B"' not in t) + "\n"
    )
    assert cli("ingest", "--db", str(tmp_path / "a.duckdb"), str(night)).exit_code == 0
    assert _gaps(tmp_path / "a.duckdb") == [
        ("T07", ["H-27", "T07-C"], "table T07: seq 27 → 29, 1 event missing")
    ]
    # the missing line arrives later, alone: the gap is judged again, and closes
    late = tmp_path / "late.jsonl"
    late.write_text(json.dumps(json.loads(VALID["buy_in"]) | {"id": "T07-B", "seq": 28}) + "\n")
    assert cli("ingest", "--db", str(tmp_path / "a.duckdb"), str(late)).exit_code == 0
    assert _gaps(tmp_path / "a.duckdb") == []


# --------------------------------------------------------------------------- the loader


def test_the_loader_reads_each_record_back_with_its_place(tmp_path: Path) -> None:
    night = _books_night(tmp_path)
    with open_store(tmp_path / "a.duckdb") as store:
        ingest_paths(store, [night])
        books = load_books(store, ["T07"])
        assert load_books(store, ["T99"]).inventories == []
    opener, closer = books.inventories
    assert (opener.kind, opener.chips.value, closer.kind) == ("opener", Decimal(1000), "closer")
    assert opener.at.source == f"{night}:1" and opener.at.stream == "T07"
    assert [s.signers[0].role for s in books.slips] == ["cashier", "cashier"]
    assert [(s.side, s.series, s.slip) for s in books.slips] == [
        ("cage", "fill", 77121), ("cage", "fill", 77124)
    ]  # fmt: skip
    assert [(b.amount, b.method, b.box) for b in books.buy_ins] == [(Decimal(500), "cash", 1)]
    (count,) = books.counts
    assert (count.gaming_day, count.cash, count.tips, count.at.stream) == (
        dt.date(2026, 11, 28),
        Decimal(500),
        Decimal("12.5"),
        "COUNT",
    )
    # the worked example's round: settlements +30, +75, 0: R = -105, one round, in one item
    (hands,) = books.hands
    assert (hands.result, hands.rounds, hands.first_round) == (
        Decimal(-105),
        1,
        ("T07-20261128-01", 1),
    )
    assert hands.at.id == "H-8"  # its round_open


def test_a_round_dealt_across_an_inventory_splits_its_money_there(tmp_path: Path) -> None:
    """A closer and the next opener (a shift change) written in the table's stream between
    two settlements of one round: the round's R is split where they lie."""
    night = _books_night(tmp_path)
    lines = night.read_text().splitlines()
    change = [
        json.dumps(json.loads(VALID["inventory"]) | {"id": f"SC-{k}", "seq": 24, "kind": k,
                   "stream": "PIT", "ts": "2026-11-28T20:04:21+01:00"})
        for k in ("closer",)
    ] + [
        json.dumps(json.loads(VALID["inventory"]) | {"id": "SC-opener", "seq": 25,
                   "kind": "opener", "stream": "PIT", "ts": "2026-11-28T20:04:21+01:00"})
    ]  # fmt: skip
    night.write_text("\n".join([*lines, *change]) + "\n")
    with open_store(tmp_path / "a.duckdb") as store:
        ingest_paths(store, [night])
        hands = load_books(store).hands
    # settle +30 at 20:04:20 before; +75 at 20:04:21 (the shift change's ts: after the
    # opener) and 0 at 20:04:22 after: R -30 in the first stretch, -75 in the second
    assert [(h.result, h.rounds) for h in hands] == [(Decimal(-30), 1), (Decimal(-75), 0)]
    assert hands[1].at.id == "H-25"


# --------------------------------------------------------------------------- house file, CLI


def test_a_bad_house_file_is_one_line_naming_file_line_and_key(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('\n\nwin_tolerance = { value = "-1", source = "x" }\n', encoding="utf-8")
    night = _books_night(tmp_path)
    for args in (
        ("ingest", "--house", str(house), str(night)),
        ("nightly", "--house", str(house), "--out", str(tmp_path / "r"), str(night)),
    ):
        result = cli(*args, "--db", str(tmp_path / "a.duckdb"))
        assert result.exit_code == 1
        assert (
            result.stderr == f"Error: {house}:3: win_tolerance: an amount of 0 or more, got '-1'\n"
        )
        assert not (tmp_path / "a.duckdb").exists()
    result = cli(
        "ingest",
        "--db",
        str(tmp_path / "a.duckdb"),
        str(night),
        env={"SHOE_AUDIT_HOUSE": str(house)},
    )
    assert result.exit_code == 1 and f"{house}:3: win_tolerance" in result.stderr


SHIFTS = """\
shifts = { value = [{ name = "day" }, { name = "swing", start = "14:00" }, { name = "grave", start = "22:00" }], source = "house" }
"""  # noqa: E501


def test_a_day_start_that_breaks_the_shifts_order_is_a_usage_error(tmp_path: Path) -> None:
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "house.toml").write_text(SHIFTS, encoding="utf-8")
    night = _books_night(tmp_path)
    db = tmp_path / "a.duckdb"
    result = cli(
        "ingest",
        "--db",
        str(db),
        "--day-start",
        "15:00",
        str(night),
        env={"SHOE_AUDIT_PROFILES": str(profiles)},
    )
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: --day-start 15:00: shift 'grave' starts at 22:00")
    assert result.stderr.count("\n") == 1 and not db.exists()
    ok = cli(
        "ingest",
        "--db",
        str(db),
        "--day-start",
        "05:00",
        str(night),
        env={"SHOE_AUDIT_PROFILES": str(profiles)},
    )
    assert ok.exit_code == 0, ok.output


def test_status_names_each_days_day_start_and_the_house_files_sha256(tmp_path: Path) -> None:
    import hashlib

    house = tmp_path / "house.toml"
    house.write_text('day_start = { value = "05:00", source = "this casino" }\n')
    sha = hashlib.sha256(house.read_bytes()).hexdigest()
    night = _books_night(tmp_path)
    db = str(tmp_path / "a.duckdb")
    assert cli("ingest", "--db", db, "--house", str(house), str(night)).exit_code == 0
    # a later night cut with --day-start over the house file's
    later = tmp_path / "later.jsonl"
    later.write_text(
        json.dumps(
            json.loads(VALID["buy_in"])
            | {"id": "L-1", "seq": 100, "ts": "2026-11-30T12:00:00+01:00"}
        )
        + "\n"
    )
    assert cli("ingest", "--db", db, "--house", str(house), str(later)).exit_code == 0
    text = cli("status", "--db", db, "--house", str(house))
    assert text.exit_code == 0
    lines = text.stdout.splitlines()
    assert f"house file   {house} (sha256 {sha})" in lines
    assert (
        f"day start    05:00 for 2026-11-28 .. 2026-11-30 (from house file sha256 {sha[:12]})"
        in lines
    )
    data = json.loads(cli("status", "--db", db, "--house", str(house), "--json").stdout)
    assert data["house"] == {"path": str(house), "sha256": sha}
    assert data["day_cuts"][0] == {
        "gaming_day": "2026-11-28", "day_start": "05:00", "house_sha256": sha
    }  # fmt: skip
    # --day-start over the file's: every stored day is cut again, and says so
    assert cli("ingest", "--db", db, "--house", str(house), "--day-start", "07:00",
               str(later)).exit_code == 0  # fmt: skip
    lines = cli("status", "--db", db, "--house", str(house)).stdout.splitlines()
    assert "day start    07:00 for 2026-11-28 .. 2026-11-30 (from --day-start)" in lines
