"""docs/profiles.md documents every profile field, so the guide cannot drift (issue 30.6)."""

from __future__ import annotations

import re
from pathlib import Path

from audit.profiles.model import NOT_RULES, Profile, Rules

DOC = Path(__file__).resolve().parents[2] / "docs" / "profiles.md"


def test_every_rule_field_has_a_row_in_the_guide() -> None:
    rows = re.findall(
        r"^\| `([a-z0-9_]+)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$", DOC.read_text(), re.M
    )
    documented = {
        name
        for name, meaning, allowed, source in rows
        if meaning.strip() and allowed.strip() and source.strip()
    }
    assert documented == set(Rules.model_fields) - NOT_RULES


def test_the_top_level_fields_are_named() -> None:
    text = DOC.read_text()
    for name in set(Profile.model_fields) - {"rules", "sources"}:
        assert f"`{name}`" in text
