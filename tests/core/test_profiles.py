"""Rule profiles are data: the four seed profiles, overrides, and helpful failures."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from audit.errors import ProfileError, UnknownProfileError
from audit.profiles import Rules, load_profile_file, load_registry
from audit.profiles.model import NOT_RULES
from audit.profiles.registry import PACKAGED_DIR

SEED_PROFILES = {
    "it-casino-6d": "000",
    "it-casino-5d": "001",
    "it-casino-6d-mandatory": "004",
    "ventuno-family": "002",
}
GAMES_PROFILES = {
    "us-strip-6d-s17": "games.md §5: [R], [W9], [PK], [LA], [IN], [SB]",
    "us-6d-h17-6to5": "games.md §5: [R], [W9], [PK], [LA], [IN], [SB]",
    "uk-6d-enhc": "games.md §5: [UK], [PT], [NCF], [SB]",
    "au-6d-obbo": "games.md §5: [AU], [SB]",
}
"""games.md §5's four profiles: their ``seed`` names the sources the table cites."""


def test_the_four_seed_profiles_ship() -> None:
    reg = load_registry()
    assert {p.id: p.seed for p in reg.all()} == SEED_PROFILES | GAMES_PROFILES


@pytest.mark.parametrize("pid", sorted(GAMES_PROFILES))
def test_every_games_rule_cites_a_source_of_its_table(pid: str) -> None:
    """games.md §5: each rule with its source as the table gives it, or a house default."""
    p = load_registry().get(pid)
    assert set(p.sources) == set(Rules.model_fields) - NOT_RULES
    tags = [t.strip() for t in p.seed.split(":", 1)[1].split(",")]
    for name, src in p.sources.items():
        assert src.source.strip(), name
        if src.house_default:
            assert "house default" in src.source, name
        else:
            assert src.source.startswith(("games.md §5", *tags)), (name, src.source)


@pytest.mark.parametrize("pid", sorted(SEED_PROFILES))
def test_every_rule_cites_its_seed_or_is_a_house_default(pid: str) -> None:
    p = load_registry().get(pid)
    assert set(p.sources) == set(Rules.model_fields) - NOT_RULES
    for name, src in p.sources.items():
        assert src.source.strip(), name
        if src.house_default:
            assert "rules.md" in src.source or "house default" in src.source, name
        else:
            assert src.source.startswith((p.seed, "rules.md")), (name, src.source)


def test_profile_values_from_rules_md() -> None:
    reg = load_registry()
    assert reg.get("it-casino-6d").rules.blackjack_pays == Fraction(3, 2)
    assert reg.get("ventuno-family").rules.blackjack_pays == Fraction(1, 1)
    assert reg.get("it-casino-5d").rules.decks == 5
    assert reg.get("it-casino-5d").rules.three_sevens_pays == Fraction(2, 1)
    assert reg.get("it-casino-6d-mandatory").rules.mandatory_hit_max == 11
    assert reg.get("ventuno-family").rules.decks is None


def test_unknown_profile_lists_the_known_ones() -> None:
    with pytest.raises(UnknownProfileError, match=r"unknown profile: 'nope'.*it-casino-5d"):
        load_registry().get("nope")


def test_casino_overrides_a_profile_from_its_folder(tmp_path: Path) -> None:
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    text = text.replace('blackjack_pays = { value = "3/2"', 'blackjack_pays = { value = "6/5"')
    (tmp_path / "mine.toml").write_text(text, encoding="utf-8")
    reg = load_registry(tmp_path)
    assert reg.get("it-casino-6d").rules.blackjack_pays == Fraction(6, 5)
    assert reg.get("it-casino-6d").digest != load_registry().get("it-casino-6d").digest


def test_casino_profile_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    (tmp_path / "mine.toml").write_text(text.replace('"it-casino-6d"', '"casino-x"', 1))
    monkeypatch.setenv("SHOE_AUDIT_PROFILES", str(tmp_path))
    assert "casino-x" in load_registry()


def test_a_rule_without_a_source_is_refused(tmp_path: Path) -> None:
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    (tmp_path / "bad.toml").write_text(
        text.replace(
            'decks = { value = 6, source = "000: «Si gioca con sei mazzi di 52 carte»" }',
            "decks = { value = 6 }",
        )
    )
    with pytest.raises(ProfileError, match="'decks'"):
        load_profile_file(tmp_path / "bad.toml")
    # in a folder, the bad file is named and left out; the packaged ones still load
    registry = load_registry(tmp_path)
    assert len(registry.problems) == 1 and "'decks'" in registry.problems[0]
    assert "it-casino-6d" in registry


def test_an_unknown_rule_is_refused(tmp_path: Path) -> None:
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    (tmp_path / "bad.toml").write_text(text + 'surrender_late = { value = true, source = "x" }\n')
    with pytest.raises(ProfileError, match="surrender_late"):
        load_profile_file(tmp_path / "bad.toml")


def test_the_v12_fields_default_for_an_older_profile_file(tmp_path: Path) -> None:
    """rules.md v1.2: every shipped profile names ``payout_rounding`` (house default, the seeds
    are silent); a casino's file written before v1.2 loads with both new fields' defaults
    (marked house defaults); a rounding that is neither reading is refused."""
    for p in load_registry().all():
        # games.md §5: the game that pays odd amounts (6:5) rounds the house's way
        want = "house" if p.rules.blackjack_pays == Fraction(6, 5) else "half_away_from_zero"
        assert p.rules.payout_rounding == want
        assert p.sources["payout_rounding"].house_default
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    old = "\n".join(
        line
        for line in text.splitlines()
        if not line.startswith(("payout_rounding", "split_double_every_spot"))
    )
    (tmp_path / "old.toml").write_text(old.replace('"it-casino-6d"', '"casino-old"', 1))
    p = load_registry(tmp_path).get("casino-old")
    assert (p.rules.payout_rounding, p.rules.split_double_every_spot) == (
        "half_away_from_zero",
        True,
    )
    assert p.sources["payout_rounding"].house_default
    assert p.sources["split_double_every_spot"].house_default
    (tmp_path / "old.toml").unlink()
    house = text.replace('value = "half_away_from_zero"', 'value = "house"')
    (tmp_path / "mine.toml").write_text(house.replace('"it-casino-6d"', '"casino-house"', 1))
    assert load_registry(tmp_path).get("casino-house").rules.payout_rounding == "house"
    (tmp_path / "mine.toml").write_text(house.replace('value = "house"', 'value = "bankers"'))
    with pytest.raises(ProfileError, match="payout_rounding"):
        load_profile_file(tmp_path / "mine.toml")
