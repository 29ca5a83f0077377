"""Helpers of the CLI tests: one real invocation of ``shoe-audit``, the sample night."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner, Result

from audit.cli import app

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_logs" / "2026-11-28"


def cli(*args: str, env: dict[str, str] | None = None, input: str | None = None) -> Result:
    """``shoe-audit ARGS...`` through Typer's CliRunner (``stdout`` and ``stderr`` apart)."""
    return CliRunner().invoke(app, list(args), env=env, input=input)
