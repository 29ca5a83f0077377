"""The CLI contract: every command documented with an example, profiles and schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app


def command_names() -> list[str]:
    import typer.main

    group = typer.main.get_group(app)
    return sorted(group.commands)


def test_every_command_in_cli_md_exists() -> None:
    expected = {
        "ingest",
        "run",
        "findings",
        "hand",
        "report",
        "nightly",
        "validate",
        "profiles",
        "simulate",
        "schema",
    }
    assert expected <= set(command_names())


@pytest.mark.parametrize("name", command_names())
def test_every_command_has_help_with_examples(runner: CliRunner, name: str) -> None:
    """Issue 10.16: two or three examples per command, the ones people actually run."""
    result = runner.invoke(app, [name, "--help"])
    assert result.exit_code == 0, result.output
    examples = result.output.split("Examples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert 2 <= len(examples) <= 4, examples
    assert all(line.startswith(f"    shoe-audit {name}") for line in examples), examples


def test_profiles_lists_the_eight(runner: CliRunner) -> None:
    """The four Italian profiles and games.md §5's four, by id."""
    result = runner.invoke(app, ["profiles"])
    assert result.exit_code == 0
    ids = [line.split()[0] for line in result.output.splitlines()]
    assert ids == [
        "au-6d-obbo",
        "it-casino-5d",
        "it-casino-6d",
        "it-casino-6d-mandatory",
        "uk-6d-enhc",
        "us-6d-h17-6to5",
        "us-strip-6d-s17",
        "ventuno-family",
    ]


def test_profiles_shows_every_rule_with_its_source(runner: CliRunner) -> None:
    result = runner.invoke(app, ["profiles", "it-casino-6d-mandatory"])
    assert result.exit_code == 0
    assert "mandatory_hit_max" in result.output
    assert "ha l'obbligo di superarlo" in result.output
    assert "[house default]" in result.output


def test_profiles_shows_the_v12_fields(runner: CliRunner) -> None:
    """rules.md v1.2: ``payout_rounding`` and ``split_double_every_spot`` are listed with the
    other rules, each with its value and where it comes from."""
    result = runner.invoke(app, ["profiles", "it-casino-5d"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    rounding = next(i for i, line in enumerate(lines) if line.startswith("payout_rounding "))
    assert "half_away_from_zero [house default]" in lines[rounding]
    assert "half away from zero" in lines[rounding + 1]
    every = next(i for i, line in enumerate(lines) if line.startswith("split_double_every_spot"))
    assert "yes [house default]" in lines[every]
    assert "binds the others" in lines[every + 1]


def test_profiles_unknown_id_fails_with_the_known_ones(runner: CliRunner) -> None:
    result = runner.invoke(app, ["profiles", "blackjack-vegas"])
    assert result.exit_code == 1
    assert "unknown profile: 'blackjack-vegas'" in result.output
    assert "it-casino-6d" in result.output


def test_schema_writes_both_schemas(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["schema", "--out", str(tmp_path)])
    assert result.exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "finding.schema.json",
        "tel1-event.schema.json",
    ]
    json.loads((tmp_path / "finding.schema.json").read_text())


def test_python_dash_m_audit_is_the_same_cli() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "audit", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("shoe-audit ")
