"""``run`` reconciles the books with the hands it has just stored (accounting.md "Findings",
"When a period is judged"), end to end: ``simulate --books`` writes a night whose every
identity holds, ``ingest`` and ``run`` (the real CLI) store its periods and raise no ``ACCT_``
finding; an injected night raises exactly what ``injected.ndjson`` says (code, table,
gaming day, shift, impact); a re-run changes nothing; ``books`` reads what ``run`` stored."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.simulate import MANIFEST_NAME, simulate
from audit.simulate.books_inject import BOOKS_CODES

CASINO = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory"]
runner = CliRunner()


def _cli(*args: str) -> Any:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    return result


def _house(tmp: Path) -> Path:
    """accounting.md "The simulator": its cage exports each day before the count, so a
    night is judged with ``cage_day_close = "count"``."""
    path = tmp / "house.toml"
    path.write_text('cage_day_close = { value = "count", source = "the simulator" }\n')
    return path


def _audit(night: Path, db: Path, house: Path) -> list[dict[str, Any]]:
    assert _cli("ingest", str(night), "--db", str(db)).exit_code == 0
    ran = _cli("run", "--db", str(db), "--house", str(house))
    assert ran.exit_code == 0, ran.output
    listed = _cli("findings", "--db", str(db), "--format", "jsonl")
    rows = [json.loads(x) for x in listed.stdout.splitlines() if x.strip()]
    return [r for r in rows if r["code"].startswith("ACCT_")]


def test_clean_books_night_reconciles_without_a_finding(tmp_path: Path) -> None:
    night = tmp_path / "night"
    simulate(night, tables=3, shoes=2, profiles=CASINO, seed=5, days=2, books=True, tips=True)
    house = _house(tmp_path)
    db = tmp_path / "a.duckdb"
    assert _audit(night, db, house) == []
    books = _cli(
        "books", "--db", str(db), "--house", str(house), "--format", "jsonl", "--date", "2026-11-28"
    )
    assert books.exit_code == 0, books.output
    rows = [json.loads(x) for x in books.stdout.splitlines()]
    shifts = [r for r in rows if r["level"] == "shift"]
    assert shifts, "every table's periods are stored"
    for r in shifts:
        assert r["status"] == "reconciled", r
        assert r["variance"] == "0" and r["drop_variance"] == "0", r
        assert Decimal(r["win"]) == Decimal(r["hands_result"])
    # a re-run keeps the same periods and findings
    again = _cli("run", "--db", str(db), "--house", str(house))
    assert again.exit_code == 0
    assert (
        _cli(
            "books",
            "--db",
            str(db),
            "--house",
            str(house),
            "--format",
            "jsonl",
            "--date",
            "2026-11-28",
        ).stdout
        == books.stdout
    )


@pytest.mark.parametrize("code", sorted(BOOKS_CODES))
def test_injected_books_error_is_found_exactly(tmp_path: Path, code: str) -> None:
    night = tmp_path / "night"
    simulate(
        night,
        tables=3,
        shoes=2,
        profiles=CASINO,
        seed=9,
        days=3,
        books=True,
        books_error_rate=1.0,
        books_errors=[code],
    )
    manifest = [json.loads(x) for x in (night / MANIFEST_NAME).read_text().splitlines()]
    assert manifest, f"{code}: nothing injected"
    found = _audit(night, tmp_path / "a.duckdb", _house(tmp_path))

    def key(r: dict[str, Any]) -> tuple[Any, ...]:
        impact = None if r["impact"] is None else Decimal(r["impact"])
        return (r["code"], r["table"], r["gaming_day"], r["shift"], impact)

    assert sorted(map(key, found), key=str) == sorted(map(key, manifest), key=str)
