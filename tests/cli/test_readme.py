"""Issue 10.21/10.22: every example in the README runs as written on the sample night."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import REPO, cli

README = (REPO / "README.md").read_text(encoding="utf-8")


def sh_block(section: str) -> list[str]:
    """The command lines of the first ```sh block under ``## section``."""
    body = README.split(f"## {section}\n", 1)[1]
    block = re.search(r"```sh\n(.*?)```", body, re.S)
    assert block is not None, section
    return [line for line in block.group(1).splitlines() if line.strip()]


EXAMPLES = sh_block("Using it")


def expected_exit(line: str) -> int:
    found = re.search(r"exit (\d+)", line.partition("#")[2])
    return int(found.group(1)) if found else 0


def test_the_readme_examples_cover_every_command_of_the_sample_night() -> None:
    used = {shlex.split(line)[1] for line in EXAMPLES}
    assert {"validate", "ingest", "run", "status", "findings", "hand", "report", "nightly"} <= used
    assert all(line.startswith("shoe-audit ") for line in EXAMPLES)


def test_every_readme_example_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sample_logs").symlink_to(REPO / "sample_logs")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SHOE_AUDIT_DB", raising=False)
    for line in EXAMPLES:
        args = shlex.split(line, comments=True)[1:]
        result = cli(*args)
        assert result.exit_code == expected_exit(line), f"{line}\n{result.output}"
        assert "Error" not in result.stdout, line
    assert (tmp_path / "audit-reports" / "index.html").is_file()
    assert (tmp_path / "night" / "injected.ndjson").is_file()
    assert sorted(p.name for p in (tmp_path / "schemas").iterdir()) == [
        "finding.schema.json",
        "tel1-event.schema.json",
    ]


def test_the_hand_example_is_a_flagged_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample_db: Path
) -> None:
    (line,) = [line for line in EXAMPLES if line.startswith("shoe-audit hand ")]
    result = cli(*shlex.split(line, comments=True)[1:], "--db", str(sample_db))
    assert result.exit_code == 0
    assert "PAY_BLACKJACK_SHORT" in result.stdout


def test_the_cli_is_called_from_the_venv_after_make() -> None:
    """The README says how to call the CLI after `make`: .venv/bin/shoe-audit."""
    lines = sh_block("Calling the CLI")
    assert lines[0].split()[0] == ".venv/bin/shoe-audit"
    assert lines[1].split()[:2] == ["source", ".venv/bin/activate"]
    script = Path(sys.executable).parent / "shoe-audit"  # this environment's own entry point
    out = subprocess.run([script, "--help"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("Usage: shoe-audit ")
