"""A hand-built audit database with the store's documented tables, for report tests that
must not wait for the store. Replaced by real ingest + run once the store lands."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from audit.findings import Code, Finding

SCHEMA = """
CREATE TABLE input_files (path VARCHAR, sha256 VARCHAR, size BIGINT, events BIGINT);
CREATE TABLE quarantine (path VARCHAR, line BIGINT, reason VARCHAR, raw VARCHAR);
CREATE TABLE events (id VARCHAR, seq BIGINT, ts TIMESTAMPTZ, table_id VARCHAR, shoe VARCHAR,
                     round INTEGER, type VARCHAR, path VARCHAR, raw VARCHAR);
CREATE TABLE shoes (table_id VARCHAR, shoe VARCHAR, profile VARCHAR, decks INTEGER,
                    dealer VARCHAR, opened_at TIMESTAMPTZ, gaming_day DATE);
CREATE TABLE shoe_audits (table_id VARCHAR, shoe VARCHAR, engine_version VARCHAR,
                          profile_id VARCHAR, profile_digest VARCHAR, rounds INTEGER,
                          wagers INTEGER, handle DECIMAL(18, 2));
CREATE TABLE findings (code VARCHAR, severity VARCHAR, table_id VARCHAR, shoe VARCHAR,
                       round INTEGER, box INTEGER, hand INTEGER, spot INTEGER,
                       expected VARCHAR, actual VARCHAR, impact DECIMAL(18, 2), rule VARCHAR,
                       events VARCHAR[], source VARCHAR, message VARCHAR, gaming_day DATE);
CREATE TABLE log_findings AS SELECT * FROM findings LIMIT 0;
"""

DAY = dt.date(2026, 11, 28)


def _f(code: Code, table: str, shoe: str, rnd: int | None, **kw: Any) -> Finding:
    return Finding(
        code=code,
        message=kw.pop("message", f"{code} at {table}/{shoe}/{rnd}"),
        table=table,
        shoe=shoe,
        round=rnd,
        **kw,
    )


def insert_finding(con: Any, f: Finding, day: dt.date = DAY, table: str = "findings") -> None:
    d = f.to_dict()
    con.execute(
        f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            d["code"],
            d["severity"],
            d["table"],
            d["shoe"],
            d["round"],
            d["box"],
            d["hand"],
            d["spot"],
            d["expected"],
            d["actual"],
            f.impact,
            d["rule"],
            d["events"],
            d["source"],
            d["message"],
            day,
        ],
    )


def build(path: Path, *, hostile: str = "T07") -> Path:
    """Two tables, three shoes (one open), a spread of findings; ``hostile`` is the id of
    the second table and of its dealer."""
    con = duckdb.connect(str(path))
    con.execute(SCHEMA)
    t1, t2 = "T01", hostile
    shoes = [
        (t1, "T01-A", "it-casino-6d", "D1", 60, 300, Decimal("12000")),
        (t1, "T01-B", "it-casino-5d", "D2", 40, 200, Decimal("8000.5")),
        (t2, f"{hostile}-S", "it-casino-6d", hostile, 50, 250, Decimal("10000")),
    ]
    for i, (t, s, p, d, rounds, wagers, handle) in enumerate(shoes):
        con.execute(
            "INSERT INTO shoes VALUES (?, ?, ?, 6, ?, ?, ?)",
            [t, s, p, d, dt.datetime(2026, 11, 28, 20 + i, tzinfo=dt.UTC), DAY],
        )
        con.execute(
            "INSERT INTO shoe_audits VALUES (?, ?, '1.0.0', ?, 'x', ?, ?, ?)",
            [t, s, p, rounds, wagers, handle],
        )
        if s != "T01-B":  # T01-B is left open
            con.execute(
                "INSERT INTO events (id, seq, table_id, shoe, type, path) VALUES "
                "(?, 1, ?, ?, 'shoe_close', ?)",
                [f"{s}-close", t, s, f"logs/{t}.jsonl"],
            )
    # a shoe of another day, which must not be counted
    con.execute(
        "INSERT INTO shoes VALUES ('T09', 'T09-X', 'it-casino-6d', 6, 'D9', NULL, ?)",
        [DAY - dt.timedelta(days=1)],
    )
    con.execute(
        "INSERT INTO shoe_audits VALUES ('T09', 'T09-X', '0.9.0', 'it-casino-6d', 'y', "
        "999, 9999, 99999)"
    )
    fs = [
        _f(
            Code.PAY_WRONG_OUTCOME,
            t1,
            "T01-A",
            14,
            box=3,
            hand=1,
            spot=0,
            expected="-50",
            actual="75",
            impact=Decimal(125),
            rule="win_pays",
            events=("e1",),
        ),
        _f(
            Code.PAY_BLACKJACK_SHORT,
            t1,
            "T01-A",
            20,
            box=1,
            hand=0,
            spot=0,
            expected="30",
            actual="20",
            impact=Decimal(-10),
            rule="blackjack_pays",
            events=("e2",),
        ),
        _f(Code.DEALER_DREW_ON_STAND, t1, "T01-B", 3, rule="dealer_stands_on", events=("e3",)),
        _f(Code.SHOE_NO_CUT, t1, "T01-B", None, rule="cut_required"),
        _f(
            Code.SHOE_POSITION_GAP,
            t2,
            f"{hostile}-S",
            7,
            events=("e4",),
            message=f"card pos 40 after 38 at {hostile}",
        ),
        _f(
            Code.PAY_WRONG_AMOUNT,
            t2,
            f"{hostile}-S",
            9,
            box=2,
            hand=0,
            spot=1,
            expected="20",
            actual="40",
            impact=Decimal("20.5"),
            rule="win_pays",
            events=(hostile,),
            message=f"paid {hostile}",
        ),
        _f(Code.BET_LIMIT, t2, f"{hostile}-S", 9, box=2, spot=1, rule="max_spots_per_box"),
    ]
    for f in fs:
        insert_finding(con, f)
    insert_finding(
        con, _f(Code.PAY_MISSING, "T09", "T09-X", 1, impact=Decimal(-5)), DAY - dt.timedelta(days=1)
    )
    insert_finding(
        con,
        Finding(
            code=Code.LOG_MALFORMED,
            message="not JSON",
            table=t1,
            shoe="T01-A",
            source=f"logs/{t1}.jsonl:7",
        ),
        table="log_findings",
    )
    insert_finding(
        con,
        Finding(code=Code.LOG_SEQ_GAP, message="seq 9 after 7", table=t2, shoe=f"{hostile}-S"),
        table="log_findings",
    )
    con.execute("INSERT INTO quarantine VALUES (?, 7, ?, '{')", [f"logs/{t1}.jsonl", "not JSON"])
    for t in (t1, t2):
        con.execute(
            "INSERT INTO input_files VALUES (?, ?, 1234, 100)", [f"logs/{t}.jsonl", "ab" * 32]
        )
    con.close()
    return path
