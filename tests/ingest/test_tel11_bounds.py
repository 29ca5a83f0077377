"""One bad line never costs the good ones (issue 14, points 1-6; event-log.md, TEL/1 v1.1).

Amounts are at most 999,999,999,999.99 with at most 2 decimals in any
notation, integers at most 2^53 - 1, an object names each key once: past
that a line is ``LOG_MALFORMED`` with file:line and the field (or key), and
the other lines and files still go in and are audited. A BOM at the start of
a file is ignored. What ingest accepts, the engine and the store hold, sums
included.
"""

from __future__ import annotations

import datetime as dt
import gzip
from decimal import Decimal
from pathlib import Path

import pytest

from audit.batch import run_audit
from audit.batch.nightly import write_report
from audit.findings import Code
from audit.ingest import ingest_paths, validate_paths
from audit.profiles import load_registry
from audit.store import ShoeAuditResult, ShoeKey, Store
from tests.ingest.helpers import dumps, shoe_events, write_events, write_lines

SETTLE_AT = 10
"""The line of the bad file whose settle is replaced by a hostile one."""


def _good_files(folder: Path) -> int:
    """Four good files (T01-T04), one shoe of two rounds each; their event count."""
    n = 0
    for t in range(1, 5):
        events = shoe_events(table=f"T0{t}", shoe=f"T0{t}-S1", rounds=2)
        write_events(folder / f"T0{t}.jsonl", events)
        n += len(events)
    return n


def _bad_file(folder: Path, replace: tuple[str, str]) -> tuple[Path, int]:
    """T05's shoe with line SETTLE_AT (a settle) edited; the path and its line count."""
    lines = [dumps(e) for e in shoe_events(table="T05", shoe="T05-S1", rounds=2)]
    assert '"type":"settle"' in lines[SETTLE_AT - 1]
    old, new = replace
    assert old in lines[SETTLE_AT - 1]
    lines[SETTLE_AT - 1] = lines[SETTLE_AT - 1].replace(old, new)
    return write_lines(folder / "T05.jsonl", lines), len(lines)


HOSTILE = [
    pytest.param(('"amount":50', '"amount":1e999999999'), "amount: out of range", id="1e999999999"),
    pytest.param(('"seq":10', '"seq":9223372036854775807'), "seq: out of range", id="seq-2^63-1"),
    pytest.param(('"seq":10', '"seq":9007199254740992'), "seq: out of range", id="seq-2^53"),
    pytest.param(
        ('"amount":50', '"amount":9999999999999999'), "amount: out of range", id="16-digits"
    ),
    pytest.param(('"amount":50', '"amount":1000000000000'), "amount: out of range", id="10^12"),
    pytest.param(
        ('"amount":50', '"amount":1e-400'), "amount: money has at most 2 decimals", id="1e-400"
    ),
    pytest.param(
        ('"amount":50', '"amount":2,"amount":1000000'),
        "duplicate key 'amount'",
        id="duplicate-key",
    ),
    pytest.param(
        ('"box":1', '"box":1,"box":1'), "duplicate key 'box'", id="duplicate-key-same-value"
    ),
]


@pytest.mark.parametrize(("replace", "reason"), HOSTILE)
def test_one_hostile_line_costs_only_itself(
    store: Store, tmp_path: Path, replace: tuple[str, str], reason: str
) -> None:
    logs = tmp_path / "logs"
    good = _good_files(logs)
    bad, bad_lines = _bad_file(logs, replace)

    report = validate_paths([logs])
    assert report.invalid == [f"{bad}:{SETTLE_AT}: {report.invalid[0].split(': ', 1)[1]}"]
    assert reason in report.invalid[0]

    summary = ingest_paths(store, [logs])
    assert summary.new == good + bad_lines - 1
    assert summary.rejected == 1
    (finding,) = store.all_findings(codes=[Code.LOG_MALFORMED])
    assert finding.source == f"{bad}:{SETTLE_AT}"
    assert reason in finding.message

    run = run_audit(store, load_registry(), workers=1)
    assert run.shoes == 5  # every shoe audited, the damaged one included
    assert store.con.execute("SELECT count(*) FROM shoe_audits").fetchall() == [(5,)]


def test_a_bom_at_the_start_of_a_file_is_ignored(store: Store, tmp_path: Path) -> None:
    events = shoe_events(table="T07", shoe="T07-S1", rounds=2)
    text = "\n".join(dumps(e) for e in events) + "\n"
    plain = tmp_path / "logs" / "T07.jsonl"
    plain.parent.mkdir(parents=True)
    plain.write_bytes(b"\xef\xbb\xbf" + text.encode())
    zipped = tmp_path / "logs" / "T08.jsonl.gz"
    zipped.write_bytes(
        gzip.compress(b"\xef\xbb\xbf" + text.replace("T07", "T08").encode(), mtime=0)
    )
    assert validate_paths([plain, zipped]).ok
    summary = ingest_paths(store, [plain, zipped])
    assert (summary.new, summary.rejected) == (2 * len(events), 0)
    raw = store.con.execute("SELECT raw FROM events WHERE seq = 1 ORDER BY id").fetchall()
    assert [r for (r,) in raw] == [dumps(events[0]), dumps(events[0]).replace("T07", "T08")]
    assert run_audit(store, load_registry(), workers=1).rounds == 4


def test_a_bom_inside_a_file_is_an_invalid_line(store: Store, tmp_path: Path) -> None:
    events = shoe_events(table="T07", shoe="T07-S1")
    lines: list[str | bytes] = [dumps(e) for e in events]
    lines[1] = b"\xef\xbb\xbf" + dumps(events[1]).encode()
    path = write_lines(tmp_path / "T07.jsonl", lines)
    summary = ingest_paths(store, [path])
    assert summary.rejected == 1
    (finding,) = store.all_findings(codes=[Code.LOG_MALFORMED])
    assert finding.source == f"{path}:2"


TOP = Decimal("999999999999.99")


def test_the_largest_amounts_are_audited_and_reported(store: Store, tmp_path: Path) -> None:
    """Bets and payouts at the bound go through ingest, run and report exactly."""
    events = shoe_events(table="T07", shoe="T07-S1", rounds=3)
    for e in events:
        if e["type"] == "bet":
            e["amount"] = TOP
        if e["type"] == "settle":
            e["amount"] = -TOP  # 17 v a dealer who stopped at 6: every bet is disputed
    path = write_lines(tmp_path / "T07.jsonl", [_num(e) for e in events])
    assert ingest_paths(store, [path]).rejected == 0
    run = run_audit(store, load_registry(), workers=1)
    assert run.shoes == 1
    (handle,) = store.con.execute("SELECT handle FROM shoe_audits").fetchall()[0]
    assert handle == 3 * TOP
    write_report(store, [dt.date(2026, 11, 28)], tmp_path / "report")
    assert (tmp_path / "report" / "index.html").exists()


def _num(e: dict[str, object]) -> str:
    """The event as JSON with Decimal amounts written as JSON numbers."""
    return (
        dumps({k: (f"@{v}@" if isinstance(v, Decimal) else v) for k, v in e.items()})
        .replace('"@', "")
        .replace('@"', "")
    )


def test_sums_past_decimal_18_2_are_held(store: Store) -> None:
    """A shoe's handle and a finding's impact can pass 10^16 with amounts of 10^12."""
    from audit.findings import Finding

    key = ShoeKey("T07", "T07-S1")
    huge = Decimal("123456789012345678901234.56")
    store.replace_findings(
        [
            ShoeAuditResult(
                key=key,
                engine_version="x",
                profile_id=None,
                profile_digest=None,
                rounds=1,
                findings=[Finding(Code.PAY_DUPLICATE, "paid many times", table="T07", impact=huge)],
                handle=huge,
                events_digest="d",
            )
        ]
    )
    assert store.con.execute("SELECT handle FROM shoe_audits").fetchall() == [(huge,)]
    (f,) = store.all_findings()
    assert f.impact == huge


def test_outcome_sums_past_int64_are_stored_exactly(store: Store) -> None:
    """A round's handle or due in cents can pass 2^63 (10,000 boxes of 10^12): stored exact."""
    from audit.store.batches import AuditRecord, _outcome_schemas, outcome_tables, write_results

    key = ShoeKey("T07", "T07-S1")
    big = 10**22 + 1  # cents (hundredths of a cent for due and impact)

    def row(schema: object, money: int) -> tuple[object, ...]:
        import pyarrow as pa

        out: list[object] = []
        for f in schema:  # type: ignore[attr-defined]
            if f.name in ("handle", "due", "settled", "impact", "stake", "base_stake"):
                out.append(money)
            elif f.name == "table_id":
                out.append(key.table)
            elif f.name == "shoe":
                out.append(key.shoe)
            elif pa.types.is_list(f.type):
                out.append([])
            elif pa.types.is_boolean(f.type):
                out.append(False)
            elif pa.types.is_integer(f.type):
                out.append(1)
            else:
                out.append("x")
        return tuple(out)

    rs, ws = _outcome_schemas()
    rounds, wagers = outcome_tables([row(rs, big)], [row(ws, 7)])
    record = AuditRecord(key, "x", None, None, "d", 1, 1, big, [])
    write_results(store, [record], rounds, wagers)
    handle, due, impact = store.con.execute("SELECT handle, due, impact FROM rounds").fetchone()  # type: ignore[misc]
    assert handle == Decimal(big) / 100 and due == Decimal(big) / 10000
    assert impact == Decimal(big) / 10000
    assert store.con.execute("SELECT handle FROM shoe_audits").fetchone() == (Decimal(big) / 100,)
    assert store.con.execute("SELECT stake FROM wagers").fetchone() == (Decimal("0.07"),)
