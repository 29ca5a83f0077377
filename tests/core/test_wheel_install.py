"""Users install shoe-audit with `pip install .`: that build, in a fresh virtual environment,
audits the sample night exactly as the development tree does, with the compiled engine
(issue 28, point 5: the build that crashed was the one users install)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # a fresh venv, its dependencies, and a mypyc build


def tracked_copy(dest: Path) -> Path:
    """The tree's tracked files as they are now (what a clone would hold, with this
    session's edits), without build outputs or the development venv."""
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, names):
        src = REPO / name.decode()
        if src.is_file():
            (dest / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name.decode())
    return dest


def findings(lines: str) -> list[tuple[str, ...]]:
    keys = ("code", "table", "shoe", "round", "box", "hand", "spot", "expected", "actual")
    return sorted(tuple(str(json.loads(x)[k]) for k in keys) for x in lines.splitlines())


def test_a_wheel_install_audits_the_sample_night_like_the_tree(tmp_path: Path) -> None:
    source = tracked_copy(tmp_path / "src")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", str(source)],
        capture_output=True,
        text=True,
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import audit.engine.round as r; print(r.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.endswith(".so") and str(venv) in where  # the compiled engine, installed

    night = REPO / "sample_logs" / "2026-11-28"
    cli = str(venv / "bin" / "shoe-audit")
    db = str(tmp_path / "wheel.duckdb")
    for args in (["ingest", str(night)], ["run", "--all"]):
        done = subprocess.run([cli, "-q", *args, "--db", db], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    installed = subprocess.run(
        [cli, "findings", "--db", db, "--format", "jsonl"], capture_output=True, text=True
    ).stdout

    runner = CliRunner()
    here = str(tmp_path / "tree.duckdb")
    assert runner.invoke(app, ["ingest", str(night), "--db", here]).exit_code == 0
    assert runner.invoke(app, ["run", "--all", "--db", here]).exit_code == 0
    tree = runner.invoke(app, ["findings", "--db", here, "--format", "jsonl"]).stdout
    assert findings(installed) == findings(tree) and findings(tree)
