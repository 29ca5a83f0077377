"""games.md §7 through the real command line: per profile and per code, a night with only
that error injected (``simulate --error CODE --error-rate 1``), ingested and audited into a
real DuckDB file, is found at recall and precision 1.000 against ``injected.ndjson``.

``slow``: the default suite checks every class in-process
(``test_engine_selfcheck.py``); this is CI's end-to-end check, profile by profile.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from audit.findings import Code
from audit.simulate import InjectedError, match_findings
from tests.cli.helpers import cli

MAIN = [
    Code.BET_AFTER_NO_MORE_BETS,
    Code.PAY_MISSING,
    Code.PAY_WRONG_AMOUNT,
    Code.PAY_BLACKJACK_SHORT,
    Code.DEALER_DREW_ON_STAND,
    Code.DEALER_STOOD_ON_DRAW,
    Code.PLAY_SURRENDER,
    Code.PAY_TIMING,
    Code.BET_SIDE_NOT_OFFERED,
    Code.BET_LIMIT,
    Code.PAY_SIDE_BET,
]
"""Every profile of games.md §5: surrender (illegal where none is allowed), side bets, the
v1 codes' widened cases (a side bet late or never settled, a Buster bet open, 6:5 and
rounding, a surrender settled whole)."""
PEEK = [
    Code.DEAL_PEEK_MISSING,
    Code.DEAL_PEEK_NEEDLESS,
    Code.DEAL_HOLE_CARD_SHOWN,
    Code.PLAY_AFTER_DEALER_BLACKJACK,
    Code.PLAY_ILLEGAL_INSURANCE,
    Code.PLAY_ILLEGAL_EVEN_MONEY,
]
"""The hole card and the peek (the two US games)."""
CASES: dict[str, list[Code]] = {
    "us-strip-6d-s17": MAIN + PEEK,
    "us-6d-h17-6to5": MAIN + PEEK,
    "uk-6d-enhc": [*MAIN, Code.PLAY_ILLEGAL_SPLIT],
    "au-6d-obbo": MAIN,
}
ROUNDS: dict[Code, int] = {Code.PLAY_ILLEGAL_EVEN_MONEY: 600, Code.PLAY_ILLEGAL_SPLIT: 300}
"""Rounds per table where opportunities are rare (default 120)."""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("profile", "code"),
    [(p, c) for p, codes in CASES.items() for c in codes],
    ids=[f"{p}-{c}" for p, codes in CASES.items() for c in codes],
)
def test_each_code_is_found_exactly_per_profile(tmp_path: Path, profile: str, code: Code) -> None:
    out, db = tmp_path / "night", tmp_path / "audit.duckdb"
    rounds = str(ROUNDS.get(code, 120))
    sim = cli(
        "simulate", "--profile", profile, "--tables", "2", "--rounds", rounds, "--seed", "32",
        "--error-rate", "1", "--error", str(code), "--out", str(out),
    )  # fmt: skip
    assert sim.exit_code == 0, sim.output
    for argv in (["ingest", str(out)], ["run"]):
        done = cli(*argv, "--db", str(db))
        assert done.exit_code == 0, done.output
    found = cli("findings", "--db", str(db), "--format", "jsonl")
    assert found.exit_code == 0, found.output
    findings = [SimpleNamespace(**json.loads(line)) for line in found.stdout.splitlines()]
    lines = (out / "injected.ndjson").read_text(encoding="utf-8").splitlines()
    injected = [InjectedError.from_dict(json.loads(line)) for line in lines]
    assert injected, f"{code} was never injected into {profile}"
    assert {e.code for e in injected} == {code}
    report = match_findings(injected, findings)
    assert report.recall(str(code)) == 1.0, [e.to_dict() for e in report.missed][:5]
    assert report.perfect, [(f.code, f.shoe, f.round, f.message) for f in report.unexpected][:5]
