"""The simulator is safe to point ``nightly`` at (issue 30, point 5; cli.md v1.2 ``simulate``).

Real CLI runs on real DuckDB files: a clean night audits clean under every
profile it is given, a casino's own file too; two nights never share an id;
the answer key is a file ``ingest`` does not read, and ``nightly`` on the
``--out`` folder finds exactly what it lists.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from audit.profiles import load_registry
from audit.profiles.registry import PACKAGED_DIR
from audit.simulate import InjectedError, match_findings
from tests.cli.helpers import cli

SHIPPED = load_registry().ids()


def _house_profile(folder: Path) -> Path:
    """A casino's own file, copied from a shipped one: a hole card, the dealer hits soft 17."""
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    text = text.replace('id = "it-casino-6d"', 'id = "my-house-h17"')
    text = text.replace(
        "dealer_stands_on_soft_17 = { value = true", "dealer_stands_on_soft_17 = { value = false"
    )
    text = text.replace(
        "initial_deal = { value = { dealer_cards = 1, face_up = true, dealer_face_up = true }",
        "initial_deal = { value = { dealer_cards = 2, face_up = true, dealer_face_up = true, "
        "hole_card_face_up = false }",
    )
    assert text.count("my-house-h17") == 1 and "dealer_cards = 2" in text
    folder.mkdir()
    path = folder / "my-house-h17.toml"
    path.write_text(text, encoding="utf-8")
    return folder


def _findings(db: Path) -> list[dict[str, object]]:
    result = cli("findings", "--db", str(db), "--format", "jsonl")
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.parametrize("profile", [*SHIPPED, "my-house-h17"])
def test_a_clean_night_audits_clean_under_its_profile(tmp_path: Path, profile: str) -> None:
    profiles = _house_profile(tmp_path / "house")
    out, db = tmp_path / "night", tmp_path / "audit.duckdb"
    sim = cli(
        "simulate", "--profiles", str(profiles), "--profile", profile, "--tables", "2",
        "--shoes", "2", "--seed", "5", "--error-rate", "0", "--out", str(out),
    )  # fmt: skip
    assert sim.exit_code == 0, sim.output
    night = cli(
        "nightly", str(out), "--profiles", str(profiles), "--db", str(db),
        "--out", str(tmp_path / "report"),
    )  # fmt: skip
    assert night.exit_code == 0, night.output
    assert _findings(db) == []


def test_two_nights_with_their_own_prefix_and_date_never_collide(tmp_path: Path) -> None:
    for name, extra in (("a", []), ("b", ["--date", "2026-11-28", "--prefix", "N2-"])):
        sim = cli(
            "simulate", "--tables", "2", "--shoes", "1", "--seed", "9", "--error-rate", "0",
            "--out", str(tmp_path / name), *extra,
        )  # fmt: skip
        assert sim.exit_code == 0, sim.output
    more = cli(
        "simulate", "--tables", "2", "--shoes", "1", "--seed", "9", "--error-rate", "0",
        "--date", "2026-12-01", "--days", "2", "--prefix", "W49-", "--out", str(tmp_path / "c"),
    )  # fmt: skip
    assert more.exit_code == 0, more.output
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["2026-12-01", "2026-12-02"]
    db = tmp_path / "audit.duckdb"
    paths = [str(tmp_path / n) for n in "abc"]
    night = cli("nightly", *paths, "--db", str(db), "--out", str(tmp_path / "report"))
    assert night.exit_code == 0, night.output
    assert _findings(db) == []  # no LOG_ID_CONFLICT, nor any other
    assert "W49-T01-20261202-01" in (tmp_path / "c" / "2026-12-02" / "W49-T01.jsonl").read_text()


def test_a_bad_prefix_is_a_usage_error_and_writes_nothing(tmp_path: Path) -> None:
    result = cli("simulate", "--prefix", "a b", "--out", str(tmp_path / "night"))
    assert result.exit_code == 2
    assert "--prefix 'a b'" in result.stderr and len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "night").exists()


def test_the_answer_key_is_not_read_by_ingest(tmp_path: Path) -> None:
    out = tmp_path / "night"
    assert cli("simulate", "--error-rate", "0.1", "--shoes", "1", "--out", str(out)).exit_code == 0
    assert (out / "injected.ndjson").is_file() and not list(out.glob("*.jsonl"))
    alone = tmp_path / "key-only"
    alone.mkdir()
    (out / "injected.ndjson").rename(alone / "injected.ndjson")
    result = cli("ingest", str(alone), "--db", str(tmp_path / "x.duckdb"))
    assert result.exit_code == 1
    assert "no *.jsonl or *.jsonl.gz files" in result.stderr


def test_nightly_on_the_out_folder_finds_exactly_what_was_injected(tmp_path: Path) -> None:
    out, db = tmp_path / "night", tmp_path / "audit.duckdb"
    sim = cli(
        "simulate", "--tables", "4", "--shoes", "2", "--seed", "11", "--error-rate", "0.08",
        "--days", "2", "--rich-share", "0.5", "--out", str(out),
    )  # fmt: skip
    assert sim.exit_code == 0, sim.output
    night = cli("nightly", str(out), "--db", str(db), "--out", str(tmp_path / "report"))
    assert night.exit_code == 0, night.output
    key = ("code", "table", "shoe", "round", "box", "hand")
    lines = (out / "injected.ndjson").read_text(encoding="utf-8").splitlines()
    injected = [json.loads(line) for line in lines]
    assert len(injected) >= 10
    assert all(set(e) == {*key, "note"} for e in injected)
    found = _findings(db)
    assert not [f for f in found if str(f["code"]).startswith("LOG_")]
    # recall and precision 1.0 on every injected code: each error found at its place
    # (a finding may name less than the key, a shoe-level gap no box), nothing else
    report = match_findings(
        [InjectedError.from_dict(e) for e in injected],
        [SimpleNamespace(**{k: f[k] for k in key}) for f in found],
    )
    assert report.perfect, report.table()
    assert all(report.recall(c) == report.precision(c) == 1.0 for c in report.injected)
    assert len(found) == len(injected)
