"""The profile's ``house_edge`` (for ``house_result``): every packaged profile names one with
its source, and a casino's own profile file written before the field keeps loading."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from audit.errors import ProfileError
from audit.profiles import load_profile_file, load_registry
from audit.profiles.registry import PACKAGED_DIR


@pytest.mark.parametrize(
    ("pid", "edge"),
    [
        ("it-casino-6d", "0.0144"),
        ("it-casino-5d", "0.0121"),
        ("it-casino-6d-mandatory", "0.0154"),
        ("ventuno-family", "0.0638"),
    ],
)
def test_packaged_profiles_name_their_expected_edge(pid: str, edge: str) -> None:
    p = load_registry().get(pid)
    assert p.rules.house_edge == Decimal(edge)
    assert p.sources["house_edge"].house_default
    assert "house default" in p.sources["house_edge"].source


def test_a_profile_file_without_the_field_keeps_loading(tmp_path: Path) -> None:
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    old = "\n".join(line for line in text.splitlines() if not line.startswith("house_edge"))
    (tmp_path / "old.toml").write_text(old.replace('"it-casino-6d"', '"casino-old"', 1))
    p = load_registry(tmp_path).get("casino-old")
    assert p.rules.house_edge is None
    assert p.sources["house_edge"].house_default
    assert p.digest != load_registry().get("it-casino-6d").digest


def test_a_house_edge_that_is_not_a_number_is_refused(tmp_path: Path) -> None:
    text = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    (tmp_path / "bad.toml").write_text(text.replace('value = "0.0144"', 'value = "lots"'))
    with pytest.raises(ProfileError, match="house_edge"):
        load_profile_file(tmp_path / "bad.toml")
    # in a folder, the bad file is named and the packaged profiles still load (issue 30)
    registry = load_registry(tmp_path)
    assert any("bad.toml" in p and "house_edge" in p for p in registry.problems)
