"""``shoe-audit stats`` on a real database: a simulated night, one table dealt wrong.

The night is simulated, ingested and run (which stores the outcome rows).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.events.cards import normalise_card
from audit.simulate import simulate
from audit.simulate.bias import Bias
from audit.stats import STAT_KEYS
from tests.reports.htmlcheck import Page
from tests.stats.nights import audited_db

DAY = "2026-11-28"


@pytest.fixture(scope="session")
def night_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stats-night")
    simulate(
        root / "logs",
        tables=3,
        shoes=10,
        profiles=["it-casino-6d", "it-casino-6d", "ventuno-family"],
        seed=5,
        biases={"T01": Bias(short_dealer=1.0)},
    )
    return audited_db(root / "logs", root / "audit.duckdb")


def _stats(runner: CliRunner, db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["stats", "--db", str(db), *args])
    return result.exit_code, result.output


def test_jsonl_one_object_per_test_with_cli_md_keys(runner: CliRunner, night_db: Path) -> None:
    code, out = _stats(runner, night_db, "--format", "jsonl")
    assert code == 0, out
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows and all(list(r) == list(STAT_KEYS) for r in rows)
    assert {r["scope"] for r in rows} >= {"table", "dealer", "shoe", "day"}
    bust = {r["subject"]: r for r in rows if r["test"] == "dealer_bust" and r["scope"] == "table"}
    assert bust["T01"]["flag"] is True and bust["T01"]["observed"] < bust["T01"]["expected"]
    assert bust["T02"]["flag"] is False and bust["T02"]["adjusted_p"] is not None
    assert not any(r["flag"] for r in rows if r["subject"].startswith("T02"))


def test_fail_on_flag_exits_3(runner: CliRunner, night_db: Path) -> None:
    assert _stats(runner, night_db, "--format", "jsonl", "--fail-on-flag")[0] == 3
    code, out = _stats(runner, night_db, "--format", "jsonl", "--alpha", "1e-300", "--fail-on-flag")
    assert code == 0, out


def test_csv_header_and_cells(runner: CliRunner, night_db: Path) -> None:
    code, out = _stats(runner, night_db, "--format", "csv", "--date", DAY)
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert tuple(rows[0]) == STAT_KEYS
    by_upcard = next(r for r in rows[1:] if r[0] == "dealer_bust_by_upcard" and r[2] == "T02")
    assert set(json.loads(by_upcard[8])) == {"A", "2", "3", "4", "5", "6", "7", "8", "9", "T"}
    assert by_upcard[7] in ("true", "false")


def test_table_lists_judged_rows_flags_first(runner: CliRunner, night_db: Path) -> None:
    code, out = _stats(runner, night_db, "--format", "table")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["flag", "test", "scope", "subject", "n", "p", "adjusted"]
    assert lines[1].startswith("FLAG")
    assert any(line.startswith("FLAG dealer_bust: Table T01: the dealer busted") for line in lines)
    tail = " ".join(out.split())
    assert "flagged at alpha 0.001 (holm correction)" in tail
    assert tail.endswith("below their minimum sample not shown (see --format jsonl)")


def test_a_day_with_nothing_audited(runner: CliRunner, night_db: Path) -> None:
    code, out = _stats(runner, night_db, "--date", "2026-01-01")
    assert code == 1
    assert "no audited rounds in gaming day(s) 2026-01-01" in out


def test_no_database_is_an_error_and_creates_none(runner: CliRunner, tmp_path: Path) -> None:
    code, out = _stats(runner, tmp_path / "none.duckdb")
    assert code == 1 and "no database at" in out
    assert not (tmp_path / "none.duckdb").exists()


@pytest.mark.parametrize("alpha", ["0", "1", "-0.5", "2"])
def test_alpha_outside_0_1_is_a_usage_error(runner: CliRunner, night_db: Path, alpha: str) -> None:
    assert _stats(runner, night_db, "--alpha", alpha)[0] == 2


def test_the_report_has_the_statistics_section(
    runner: CliRunner, night_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    result = runner.invoke(app, ["report", "--db", str(night_db), "--date", DAY, "--out", str(out)])
    assert result.exit_code == 0, result.output
    page = Page((out / "index.html").read_text(encoding="utf-8"))
    ids = {a.get("id") for _, a in page.tags}
    assert {"statistics", "chart-bust-by-upcard", "statistics-flags"} <= ids
    assert "script" not in {t for t, _ in page.tags}
    flags = " ".join(page.text)
    assert "Table T01: the dealer busted" in flags


def _prefix_from_logs(logs: Path) -> dict[tuple[str, str], list[int]]:
    """Each shoe's cards seen up to its cut card (or its first round's initial deal), by rank,
    walked event by event from the log files."""
    shoes: dict[tuple[str, str], list[dict[str, object]]] = {}
    for path in sorted(logs.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            e = json.loads(line)
            shoes.setdefault((e["table"], e["shoe"]), []).append(e)
    out = {}
    for key, events in shoes.items():
        events.sort(key=lambda e: e["seq"])  # type: ignore[arg-type, return-value]
        cut = next((e["position"] for e in events if e["type"] == "cut_card"), None)
        if cut is None:
            boxes = {e["box"] for e in events if e["type"] == "bet" and e["round"] == 1}
            cut = 2 * (len(boxes) + 1)
        ranks = [0] * 10
        pos = 0
        for e in events:
            if e["type"] == "card":
                pos += 1
                seen = [e["card"]]
            elif e["type"] == "burn":
                seen = list(e.get("cards") or [])  # type: ignore[call-overload]
                pos += len(seen) or int(e.get("count") or 0)  # type: ignore[call-overload]
            else:
                continue
            if pos <= cut:  # type: ignore[operator]
                for c in seen:
                    c = normalise_card(c)  # a rich table writes 10 for T, lower case
                    ranks["A23456789T".index("T" if c[0] in "TJQK" else c[0])] += 1
        out[key] = ranks
    return out


def test_the_shoe_prefix_query_counts_the_cards_up_to_the_cut_card(night_db: Path) -> None:
    import datetime as dt

    from audit.store import open_store
    from audit.store.stats_frames import load_stats_frames

    with open_store(night_db, read_only=True) as store:
        frames = load_stats_frames(store, dt.date(2000, 1, 1), dt.date(2100, 1, 1))
    got = {(r["table_id"], r["shoe"]): r["ranks"] for r in frames.shoe_cards.iter_rows(named=True)}
    want = _prefix_from_logs(night_db.parent / "logs")
    assert got == want
    assert {t for t, _ in got} == {"T01", "T02", "T03"}
    # the home game has no cut card: its first round's initial deal, two cards a hand
    assert all(sum(v) >= 6 and sum(v) % 2 == 0 for (t, _), v in got.items() if t == "T03")


def test_a_shoe_audited_before_prefixes_were_stored_gets_its_prefix_from_its_events(
    night_db: Path, tmp_path: Path
) -> None:
    """``run`` stores each shoe's prefix (``shoe_audits.prefix_ranks``); a shoe audited by
    an engine that did not (NULL, schema 6) has it computed from its events, alike."""
    import datetime as dt
    import shutil

    from audit.store import open_store
    from audit.store.stats_frames import load_stats_frames

    db = tmp_path / "older.duckdb"
    shutil.copyfile(night_db, db)
    shutil.copyfile(f"{night_db}.ledger", f"{db}.ledger")
    with open_store(db) as store:
        stored = store.con.execute(
            "SELECT count(*) FROM shoe_audits WHERE len(prefix_ranks) > 0"
        ).fetchall()[0][0]
        store.con.execute("UPDATE shoe_audits SET prefix_ranks = NULL WHERE table_id <> 'T02'")
        frames = load_stats_frames(store, dt.date(2000, 1, 1), dt.date(2100, 1, 1))
    got = {(r["table_id"], r["shoe"]): r["ranks"] for r in frames.shoe_cards.iter_rows(named=True)}
    assert stored == len(got) > 0
    assert got == _prefix_from_logs(night_db.parent / "logs")


def test_the_stored_round_ids_give_the_stats_that_the_round_keys_give(night_db: Path) -> None:
    """The stored frames name each round and shoe by an integer (``rid``, ``sid``) that
    the tests join by; frames built by hand are numbered from their keys. Both must give
    every row alike, and a wager whose ids do not match its round's must not pass."""
    import datetime as dt

    import polars as pl

    from audit.profiles import load_registry
    from audit.stats.frames import StatsData
    from audit.stats.suite import run_stats
    from audit.store import open_store
    from audit.store.stats_frames import load_stats_frames, load_wager_rows

    days = dt.date(2000, 1, 1), dt.date(2100, 1, 1)
    with open_store(night_db, read_only=True) as store:
        frames = load_stats_frames(store, *days)
        wagers = load_wager_rows(store, *days)
    stored = StatsData.stored(frames)
    by_keys = StatsData.of(
        frames.rounds.drop("rid", "sid"), wagers.drop("rid"), frames.shoe_cards, frames.orders
    )
    assert stored.rounds["rid"].to_list() != by_keys.rounds["rid"].to_list()  # not the same ids
    registry = load_registry()

    def rows(data: StatsData) -> list[tuple[object, ...]]:
        result = run_stats(data, registry)
        return [(r.test, r.scope, r.subject, r.n, r.message) for r in result.rows]

    want = rows(by_keys)
    assert {"dealer_bust", "player_naturals"} <= {r[0] for r in want}
    assert rows(stored) == want
    # wagers tied to no round of the frame (ids shifted): the tests that join them see none
    shifted = StatsData.of(
        frames.rounds, wagers.with_columns(pl.col("rid") + 10**9), frames.shoe_cards, frames.orders
    )
    lost = {r[0] for r in rows(shifted)}
    assert "player_naturals" not in lost and "dealer_bust" not in lost


def test_the_sample_night_stats_and_report_section(runner: CliRunner, tmp_path: Path) -> None:
    """Issue 11, done when: stats and the report section work on the sample."""
    from tests.cli.helpers import SAMPLE

    db = tmp_path / "audit.duckdb"
    for args in (["ingest", "--db", str(db), str(SAMPLE)], ["run", "--db", str(db)]):
        assert runner.invoke(app, args).exit_code == 0
    code, out = _stats(runner, db, "--date", DAY, "--format", "jsonl", "--fail-on-flag")
    assert code == 0, out  # the sample's breaches are rule breaches, not statistics
    rows = [json.loads(line) for line in out.splitlines()]
    assert {r["scope"] for r in rows} >= {"table", "dealer", "day"}
    assert {"dealer_bust", "house_result", "card_ranks"} <= {r["test"] for r in rows}
    assert all(list(r) == list(STAT_KEYS) and r["flag"] is False for r in rows)
    out_dir = tmp_path / "report"
    result = runner.invoke(app, ["report", "--db", str(db), "--date", DAY, "--out", str(out_dir)])
    assert result.exit_code == 0, result.output
    page = Page((out_dir / "index.html").read_text(encoding="utf-8"))
    ids = {a.get("id") for _, a in page.tags}
    assert {"statistics", "chart-bust-by-upcard"} <= ids
    assert "statistics-flags" not in ids and "statistics-no-flags" in ids


def test_untrusted_ids_are_neither_formulas_nor_terminal_escapes() -> None:
    """A dealer id from a log reaches CSV and the table: neutralised as in `findings`."""
    from audit.cli.stats_cmds import StatsFormat, write_stats
    from audit.stats import Correction
    from audit.stats.rows import StatRow
    from audit.stats.suite import StatsResult

    evil = "=HYPERLINK(1)\x1b[2J"
    row = StatRow(
        test="dealer_bust", scope="dealer", subject=evil, n=500, statistic=1.0, p_value=1e-9,
        expected=0.28, observed=0.4, message=f"Dealer {evil}: busted", judged=True,
    ).corrected(1e-8, 0.001)  # fmt: skip
    result = StatsResult(rows=(row,), alpha=0.001, correction=Correction.holm)
    out = io.StringIO()
    write_stats(result, StatsFormat.csv, out)
    cells = next(iter(csv.DictReader(io.StringIO(out.getvalue()))))
    assert cells["subject"] == "'=HYPERLINK(1)\\x1b[2J"
    assert cells["expected"] == "0.28" and cells["flag"] == "true"
    raw = io.StringIO()
    write_stats(result, StatsFormat.csv, raw, raw=True)
    assert next(iter(csv.DictReader(io.StringIO(raw.getvalue()))))["subject"] == evil
    table = io.StringIO()
    write_stats(result, StatsFormat.table, table)
    assert (
        "\x1b" not in table.getvalue() and "FLAG dealer_bust: Dealer =HYPERLINK" in table.getvalue()
    )
    line = io.StringIO()
    write_stats(result, StatsFormat.jsonl, line)
    assert "\x1b" not in line.getvalue() and json.loads(line.getvalue())["subject"] == evil


def test_the_wagers_are_read_as_the_three_aggregates_the_store_makes(night_db: Path) -> None:
    """Issue 33: the statistics never load the wagers (a frame of every one was most of
    a 1,000,000-round report's memory); the store's aggregates are, row for row, what
    the polars expressions make of the wagers' rows."""
    import datetime as dt

    import polars as pl

    from audit.stats.frames import StatsData, WagerFacts
    from audit.store import open_store
    from audit.store.stats_frames import load_stats_frames, load_wager_rows

    days = dt.date(2000, 1, 1), dt.date(2100, 1, 1)
    with open_store(night_db, read_only=True) as store:
        frames = load_stats_frames(store, *days)
        rows = load_wager_rows(store, *days)
    data = StatsData.stored(frames)
    assert data.wagers.is_empty() and data.facts is not None
    stored, derived = data.facts, WagerFacts.of(rows)

    def rows(frame: pl.DataFrame, like: pl.DataFrame) -> list[tuple[object, ...]]:
        # a wager of no stored round has no rid: no statistic reads it either way
        return sorted(frame.filter(pl.col("rid").is_not_null()).select(like.columns).iter_rows())

    assert stored.box_naturals.height > 0 and stored.stakes.height > 0
    assert sorted(set(rows(derived.open_rounds, stored.open_rounds))) == rows(
        stored.open_rounds, stored.open_rounds
    )
    for name in ("box_naturals", "stakes"):
        want = getattr(stored, name)
        assert rows(getattr(derived, name), want) == rows(want, want), name
    assert stored.box_naturals["hit"].any()  # the night has naturals
