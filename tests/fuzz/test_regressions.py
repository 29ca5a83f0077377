"""Every input that once broke something, replayed (issue 14: "keep a regression corpus").

``tests/data/regressions/expected.json`` names each file, what it broke, and
what must happen now: the lines rejected (each named file:line, with its
reason), the others ingested and audited, and the result verified intact.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.batch import run_audit
from audit.ingest import ingest_paths, validate_paths
from audit.integrity.verify import verify
from audit.profiles import load_registry
from audit.store import open_store

CORPUS = Path(__file__).resolve().parents[1] / "data" / "regressions"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))


def test_every_file_of_the_corpus_has_an_entry() -> None:
    assert sorted(p.stem for p in CORPUS.glob("*.jsonl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_regression(name: str, tmp_path: Path) -> None:
    path = CORPUS / f"{name}.jsonl"
    want = EXPECTED[name]
    report = validate_paths([path])
    assert len(report.invalid) == want["rejected"], report.invalid[:3]
    for line in report.invalid:
        assert line.startswith(f"{path}:")
        assert any(reason in line for reason in want["reasons"]), line
    with open_store(tmp_path / "audit.duckdb") as store:
        summary = ingest_paths(store, [path])
        assert summary.rejected == want["rejected"]
        assert summary.events == report.events
        run = run_audit(store, load_registry(), workers=1)
        assert run.shoes == len(store.shoe_info())
        assert not [f for f in store.all_findings() if f.code == "LOG_TAMPERED"]
        result = verify(store, [path])
        assert result.intact, [str(d) for d in result.differences]


def test_bet_limit_of_a_spot_cites_its_own_bets() -> None:
    """rules.md BET_LIMIT, each spot's stake at least ``min_bet`` (000: «sempre che la
    somma delle puntate non superi il massimo»; the table limits are ``shoe_open``'s).

    One box, spots under the minimum (the corpus's 10,000-spot file, cut to 500
    spots here): one ``BET_LIMIT`` per spot, citing that spot's bet only; the
    box-level findings cite the box's bets. Citing every bet of the box per spot
    made 10^8 event ids at 10,000 spots (found by the engine fuzz test).
    """
    from decimal import Decimal

    from audit.engine import ShoeContext, replay_shoe
    from audit.events.parse import parse_line

    lines = (CORPUS / "bet-limit-10000-spots.jsonl").read_text(encoding="utf-8").splitlines()
    events = [parse_line(x) for x in lines]  # shoe_open, round_open, 10,000 bets, no_more_bets
    assert [e.type for e in events[:2]] == ["shoe_open", "round_open"]
    assert all(e.type == "bet" and e.amount == Decimal(10) for e in events[2:-1])
    events = [*events[:502], events[-1]]
    replay = replay_shoe(events, load_registry().get("it-casino-6d"), ShoeContext())
    per_spot = [f for f in replay.findings if f.code == "BET_LIMIT" and f.spot is not None]
    assert len(per_spot) == 500
    by_spot = {e.spot: e.id for e in events[2:-1]}  # type: ignore[union-attr]
    assert all(f.events == (by_spot[f.spot],) for f in per_spot)
    assert sum(len(f.events) for f in replay.findings) <= 3 * 500
