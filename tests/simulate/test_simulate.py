"""The simulator's own guarantees: TEL/1 lines, determinism, clean logs that add up, the layout.

Clean logs are re-read by :mod:`tests.simulate.checker`, which rebuilds each
round from the events alone (rules.md's settlement rules, card counts,
positions, reconciliation): no simulator state is trusted.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from audit.errors import InputError, UnknownProfileError
from audit.events.parse import parse_line
from audit.findings import Code
from audit.simulate import MANIFEST_NAME, InjectedError, iter_shoes, shoe_infos, simulate
from tests.simulate.checker import check_shoe, shoes_of

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]


def _lines(path: Path) -> list[str]:
    if path.suffix == ".gz":
        return gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    return path.read_text(encoding="utf-8").splitlines()


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("compress", [False, True])
def test_every_line_parses_as_tel1(tmp_path: Path, compress: bool) -> None:
    summary = simulate(
        tmp_path, tables=4, shoes=2, profiles=PROFILES, seed=3, error_rate=0.2, gzip=compress
    )
    assert summary.files
    seen_types: Counter[str] = Counter()
    for path in summary.files:
        assert path.name.endswith(".jsonl.gz" if compress else ".jsonl")
        for line in _lines(path):
            event = parse_line(line)
            seen_types[event.type] += 1
            assert type(event).__name__ != "UnknownEvent"
    assert summary.events == sum(seen_types.values())
    for t in ("shoe_open", "shuffle", "cut", "cut_card", "burn", "bet", "card", "settle"):
        assert seen_types[t] > 0, t


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    kw = {"tables": 4, "shoes": 2, "profiles": PROFILES, "error_rate": 0.1}
    simulate(tmp_path / "a", seed=7, **kw)  # type: ignore[arg-type]
    simulate(tmp_path / "b", seed=7, **kw)  # type: ignore[arg-type]
    simulate(tmp_path / "c", seed=8, **kw)  # type: ignore[arg-type]
    a, b, c = (_tree(tmp_path / x) for x in "abc")
    assert a == b
    assert a.keys() == c.keys() and a != c


def test_tables_dealt_in_parallel_give_the_same_bytes_and_summary(tmp_path: Path) -> None:
    kw = {"tables": 5, "shoes": 1, "rounds": 30, "profiles": PROFILES, "seed": 4}
    one = simulate(tmp_path / "a", error_rate=0.2, **kw)  # type: ignore[arg-type]
    two = simulate(tmp_path / "b", error_rate=0.2, workers=2, **kw)  # type: ignore[arg-type]
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert MANIFEST_NAME in _tree(tmp_path / "b")
    assert (one.shoes, one.rounds, one.events, one.tables, one.features) == (
        two.shoes,
        two.rounds,
        two.events,
        two.tables,
        two.features,
    )
    assert one.injected == two.injected and len(one.injected) > 0
    assert [p.relative_to(tmp_path / "a") for p in one.files] == [
        p.relative_to(tmp_path / "b") for p in two.files
    ]


def test_same_seed_same_bytes_gzip(tmp_path: Path) -> None:
    for name in ("a", "b"):
        simulate(tmp_path / name, tables=2, shoes=1, profiles=PROFILES, seed=1, gzip=True)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clean_logs_add_up(profile: str, seed: int) -> None:
    """Every wager settled once at rules.md's amount; positions 1..n; remaining counted."""
    problems: list[str] = []
    rounds = 0
    for shoe in iter_shoes(tables=1, shoes=1, rounds=150, profiles=[profile], seed=seed):
        problems += check_shoe(shoe.events)
        rounds += shoe.features["rounds"]
        assert not shoe.injected
    assert rounds == 150
    assert problems == []


def test_ids_unique_and_seq_increasing(tmp_path: Path) -> None:
    simulate(tmp_path, tables=4, shoes=2, profiles=PROFILES, seed=5, error_rate=0.3)
    ids: set[str] = set()
    for path in sorted(tmp_path.rglob("*.jsonl")):
        if path.name == MANIFEST_NAME:
            continue
        seqs = []
        for line in _lines(path):
            e = json.loads(line)
            assert e["id"] not in ids
            ids.add(e["id"])
            seqs.append(e["seq"])
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))


def test_layout_one_file_per_table_per_gaming_day(tmp_path: Path) -> None:
    summary = simulate(tmp_path, tables=4, shoes=2, profiles=PROFILES, seed=1, error_rate=0.1)
    names = sorted(str(p.relative_to(tmp_path)) for p in summary.files)
    assert names == [f"2026-11-28/T0{i}.jsonl" for i in range(1, 5)]
    assert summary.manifest == tmp_path / MANIFEST_NAME
    assert summary.tables == dict(zip(["T01", "T02", "T03", "T04"], PROFILES, strict=True))
    lines = summary.manifest.read_text().splitlines()
    assert [InjectedError.from_dict(json.loads(x)) for x in lines] == list(summary.injected)
    for x in lines:
        assert list(json.loads(x)) == ["code", "table", "shoe", "round", "box", "hand", "note"]


def test_no_manifest_without_errors(tmp_path: Path) -> None:
    summary = simulate(tmp_path, tables=1, shoes=1, profiles=PROFILES[:1], seed=1)
    assert summary.manifest is None and summary.injected == ()
    assert not (tmp_path / MANIFEST_NAME).exists()


def test_timestamps_table_local_evening_and_increasing(tmp_path: Path) -> None:
    simulate(tmp_path, tables=2, shoes=2, profiles=PROFILES[:2], seed=2)
    for path in sorted(tmp_path.rglob("T*.jsonl")):
        stamps = [dt.datetime.fromisoformat(json.loads(x)["ts"]) for x in _lines(path)]
        assert all(s.utcoffset() == dt.timedelta(hours=1) for s in stamps)
        assert stamps == sorted(stamps)
        assert stamps[0].hour == 20


def test_rounds_option_deals_exactly_that_many(tmp_path: Path) -> None:
    shoes = list(iter_shoes(tables=2, shoes=1, rounds=45, profiles=PROFILES[:2], seed=4))
    for table in ("T01", "T02"):
        mine = [s for s in shoes if s.table == table]
        assert sum(s.features["rounds"] for s in mine) == 45
        reasons = [s.events[-1]["reason"] for s in mine]
        assert set(reasons[:-1]) <= {"cut_card"}
        assert reasons[-1] in ("cut_card", "end_of_session")


def test_long_run_spans_gaming_days_with_an_inspection_each_day_001() -> None:
    """001: the first shoe a table deals in a gaming day is inspected (house default)."""
    shoes = list(iter_shoes(tables=1, shoes=1, rounds=700, profiles=["it-casino-5d"], seed=1))
    days = sorted({s.day for s in shoes})
    assert len(days) >= 2
    infos = shoe_infos([s.events for s in shoes])
    for s in shoes:
        inspected = any(e["type"] == "inspection" for e in s.events)
        assert inspected == infos[(s.table, s.shoe)].first_shoe_of_gaming_day
        assert s.shoe.startswith(f"T01-{s.day:%Y%m%d}-")
        opened = dt.datetime.fromisoformat(s.events[0]["ts"])
        assert opened.hour >= 20 or opened.hour < 4


def test_cut_card_depth_within_profile_and_last_round_crosses_it() -> None:
    from audit.profiles import load_registry

    reg = load_registry()
    for shoe in iter_shoes(tables=3, shoes=3, profiles=PROFILES[:3], seed=9):
        rules = reg.get(shoe.profile).rules
        total = 52 * (rules.decks or 1)
        position = next(e["position"] for e in shoe.events if e["type"] == "cut_card")
        assert rules.cut_card_min_behind <= total - position <= rules.cut_card_max_behind  # type: ignore[operator]
        by_round: dict[int, int] = {}
        pos = 0  # a card without pos (a rich table) is at the position after the previous one
        for e in shoe.events:
            if e["type"] == "burn":
                pos = e.get("pos", pos + 1) + (len(e["cards"]) or e.get("count", 0)) - 1
            if e["type"] == "card":
                pos = e.get("pos", pos + 1)
                by_round[e["round"]] = max(by_round.get(e["round"], 0), pos)
        last = max(by_round)
        assert by_round[last] > position
        assert all(p <= position for r, p in by_round.items() if r != last)


def test_home_game_one_round_per_shoe_and_bank_rotates_002() -> None:
    shoes = list(iter_shoes(tables=1, shoes=60, profiles=["ventuno-family"], seed=2))
    infos = shoe_infos([s.events for s in shoes])
    assert len(shoes) == 60
    for s in shoes:
        types = [e["type"] for e in s.events]
        assert types.count("round_open") == 1
        assert types.index("shuffle") < types.index("round_open")
        assert s.events[-1]["reason"] == "reshuffle"
        first_cards = [e for e in s.events if e["type"] == "card"][: 2 * (types.count("bet") + 1)]
        assert all(e.get("face_up") is False for e in first_cards)
        assert infos[(s.table, s.shoe)].banker_rounds_before < 10
    assert sum(s.features["dealer_changes"] for s in shoes) >= 5


def test_features_each_profile_allows_happen() -> None:
    feats: dict[str, Counter[str]] = {}
    for shoe in iter_shoes(tables=4, shoes=1, rounds=1200, profiles=PROFILES, seed=1):
        feats.setdefault(shoe.profile, Counter()).update(shoe.features)
    common = ("splits", "split_aces", "split_tens", "doubles", "naturals", "busts", "bets_behind")
    for p in PROFILES[:3]:
        for name in (*common, "dealer_changes", "dealer_blackjacks", "exposed_burned"):
            assert feats[p][name] > 0, (p, name)
    assert feats["it-casino-6d"]["insurance"] > 0
    assert feats["it-casino-6d"]["objections"] > 0
    assert feats["it-casino-6d"]["doubles_soft"] > 0  # A,8 / A,9 as 9 or 10 (000)
    assert feats["it-casino-5d"]["even_money"] > 0
    assert feats["it-casino-5d"]["naturals_paid_at_once"] > 0
    assert feats["it-casino-6d-mandatory"]["mandatory_hits"] > 0
    assert feats["ventuno-family"]["naturals_paid_at_once"] > 0
    assert feats["ventuno-family"]["dealer_changes"] > 0
    for p in ("it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"):
        assert feats[p]["insurance"] == feats[p]["objections"] == 0


def test_three_sevens_prize_settled_as_bonus_001() -> None:
    found = 0
    for shoe in iter_shoes(tables=1, shoes=1, rounds=4000, profiles=["it-casino-5d"], seed=1):
        found += sum(1 for e in shoe.events if e["type"] == "settle" and e["kind"] == "bonus")
        assert check_shoe(shoe.events) == []
    assert found > 0


def test_error_codes_restrict_the_classes() -> None:
    codes = {Code.PAY_MISSING, Code.SHOE_BURN_COUNT}
    got = Counter(
        i.code
        for s in iter_shoes(
            tables=2, shoes=8, profiles=PROFILES[:2], seed=1, error_rate=1.0, error_codes=codes
        )
        for i in s.injected
    )
    assert set(got) == codes


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnknownProfileError):
        simulate(tmp_path, tables=1, shoes=1, profiles=["nope"], seed=1)
    with pytest.raises(InputError):
        simulate(tmp_path, tables=1, shoes=1, profiles=PROFILES, seed=1, error_rate=1.5)
    with pytest.raises(InputError):
        simulate(tmp_path, tables=0, shoes=1, profiles=PROFILES, seed=1)
    naive = dt.datetime(2026, 11, 28, 20, 0)
    with pytest.raises(InputError):
        simulate(tmp_path, tables=1, shoes=1, profiles=PROFILES, seed=1, start=naive)


def test_injected_settlement_errors_show_in_the_settlements() -> None:
    """A PAY_ error leaves exactly one wrong wager, at the manifest's box and hand."""
    pay_codes = {
        Code.PAY_WRONG_OUTCOME,
        Code.PAY_WRONG_AMOUNT,
        Code.PAY_MISSING,
        Code.PAY_DUPLICATE,
        Code.PAY_BLACKJACK_SHORT,
        Code.PAY_INSURANCE,
        Code.PAY_SPLIT_BLACKJACK_AS_NATURAL,
    }
    n = 0
    for shoe in iter_shoes(
        tables=4, shoes=2, profiles=PROFILES, seed=2, error_rate=0.4, error_codes=pay_codes
    ):
        problems = check_shoe(shoe.events)
        assert len(problems) == len(shoe.injected)
        for err, problem in zip(shoe.injected, problems, strict=True):
            assert (
                f"r{err.round} ({err.box}, {err.hand if err.code is not Code.PAY_INSURANCE else 0},"
                in problem
            )
            n += 1
    assert n > 20


def test_shoes_of_groups_by_table_and_shoe(tmp_path: Path) -> None:
    simulate(tmp_path, tables=2, shoes=2, profiles=PROFILES[:2], seed=1)
    events = [json.loads(x) for p in sorted(tmp_path.rglob("T*.jsonl")) for x in _lines(p)]
    grouped = shoes_of(events)
    assert len(grouped) == 4
    assert all(
        v[0]["type"] == "shoe_open" and v[-1]["type"] == "shoe_close" for v in grouped.values()
    )
