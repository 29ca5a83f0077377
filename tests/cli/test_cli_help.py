"""Issue 10.16/10.17/10.20: help that reads like help, exit codes listed, shell completion."""

from __future__ import annotations

import re

import pytest
import typer.main

from audit.cli import app
from audit.cli.framework import EXIT_CODES
from tests.cli.helpers import REPO, cli
from tests.cli.test_cli_basics import command_names

WIDE = {"COLUMNS": "80"}

RUN_HELP = """\
Usage: shoe-audit run [OPTIONS]

  Audit the shoes not yet audited (or changed since).

  Replays every shoe not yet audited, whose events changed since its audit, or
  that was audited with another engine or profile version; --all re-audits
  everything. Shows progress on a terminal. A shoe whose replay fails costs only
  itself: it is named on stderr, keeps its earlier results and is tried again by
  the next run (exit 6). Exit 1 when there is no database. --cluster replays on
  a Dask cluster with the same results, and --source has its workers read the
  shoes from an `export --parquet`.

  Examples:
    shoe-audit run
    shoe-audit run --db audit-nightly.duckdb --date 2026-11-28
    shoe-audit run --all --table T01 --workers 1
    shoe-audit run --cluster tcp://scheduler:8786 --source /nfs/audit-export

Options:
  --db FILE          The audit database (a DuckDB file).  [default:
                     audit.duckdb; or $SHOE_AUDIT_DB]
  --all              Re-audit every shoe, current or not.
  --table TABLE      Only this table, e.g. T01.
  --date YYYY-MM-DD  Only this gaming day.
  --workers N        Processes to replay on (default: one per core).
  --profiles DIR     A folder of extra or overriding rule profiles (*.toml).
                     [or $SHOE_AUDIT_PROFILES]
  --house FILE       The house file (day start, shifts, pits, accounting
                     thresholds) [default: house.toml in --profiles, else the
                     packaged one].  [or $SHOE_AUDIT_HOUSE]
  --json             Print the summary as one JSON object on stdout.
  --cluster ADDRESS  Replay on a Dask cluster: its scheduler's tcp://host:port,
                     or local:N for N worker processes started for the run
                     (needs pip install 'shoe-audit[cluster]').
  --source DIR       With --cluster: the workers read the shoes from this
                     `export --parquet` folder (at the same path on every
                     worker) instead of being sent them.

Global options:
  -q, --quiet  Print nothing but errors and the output asked for.
  --debug      Show the traceback of an error instead of one line.
  -h, --help   Show this help and exit.
"""


def test_run_help_exactly() -> None:
    """Flags as flags (--all), values as FILE/N/YYYY-MM-DD, no Python type, no panel."""
    result = cli("run", "--help", env=WIDE)
    assert result.exit_code == 0
    assert result.stdout == RUN_HELP


@pytest.mark.parametrize("name", ["", *command_names()])
def test_help_shows_no_python_types_or_panels(name: str) -> None:
    result = cli(*name.split(), "--help", env=WIDE)
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert not re.search(r"<[a-z_\[\]| ]+>", text), text  # <bool>, <list[Path]>, <int range>
    assert "x>=" not in text and "{" not in text and "╭" not in text and "│" not in text
    assert "-h, --help" in text


@pytest.mark.parametrize("name", command_names())
def test_every_option_and_argument_has_a_line_of_help(name: str) -> None:
    command = typer.main.get_group(app).commands[name]
    for param in command.params:
        assert getattr(param, "help", None), f"{name} {param.name} has no help"


@pytest.mark.parametrize("name", command_names())
def test_dash_h_is_help(name: str) -> None:
    assert cli(name, "-h", env=WIDE).stdout == cli(name, "--help", env=WIDE).stdout


def test_severity_code_and_format_list_their_values() -> None:
    from audit.findings import Code

    text = cli("findings", "--help", env=WIDE).stdout
    assert "--severity critical|major|minor|info" in text
    assert "--min-severity critical|major|minor|info" in text
    assert "--format table|jsonl|csv" in text
    flat = " ".join(text.split())
    assert all(c.value in flat for c in Code)
    assert "--format text|html|json" in cli("hand", "--help").stdout
    assert "--format html|md" in cli("report", "--help").stdout
    assert "--fail-on critical|major" in cli("nightly", "--help").stdout


def test_top_level_help_lists_the_exit_codes_and_the_global_flags() -> None:
    text = cli("--help", env=WIDE).stdout
    codes = text.split("Exit codes:\n", 1)[1]
    assert [line.split()[0] for line in codes.splitlines() if line[:3].strip().isdigit()] == [
        code for code, _ in EXIT_CODES
    ]
    assert [code for code, _ in EXIT_CODES] == ["0", "1", "2", "3", "4", "5", "6", "130"]
    assert "--debug" in text and "-q, --quiet" in text
    assert "sample_logs/2026-11-28/" in text  # the example ingests a log folder, not the manifest


def test_readme_lists_the_same_exit_codes() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for code, _ in EXIT_CODES:
        assert f"| {code} |" in readme


def test_shell_completion_for_bash() -> None:
    result = cli("--show-completion", "bash")
    assert result.exit_code == 0
    assert "complete -o default -F _shoe_audit_completion shoe-audit" in result.stdout
    env = {
        "_SHOE_AUDIT_COMPLETE": "complete_bash",
        "COMP_WORDS": "shoe-audit findings --format ",
        "COMP_CWORD": "3",
    }
    assert cli(env=env).stdout.split() == ["table", "jsonl", "csv"]
    env.update(COMP_WORDS="shoe-audit statu", COMP_CWORD="1")
    assert cli(env=env).stdout.split() == ["status"]
