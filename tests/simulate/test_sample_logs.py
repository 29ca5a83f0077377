"""The committed sample night is exactly what the simulator makes: it cannot drift."""

from __future__ import annotations

import json
from pathlib import Path

from audit.simulate import MANIFEST_NAME
from audit.simulate.sample import SAMPLE_ARGS, make_sample_logs

SAMPLE = Path(__file__).resolve().parents[2] / "sample_logs"


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "README.md"
    }


def test_sample_logs_regenerate_byte_for_byte(tmp_path: Path) -> None:
    summary = make_sample_logs(tmp_path)
    committed = _files(SAMPLE)
    made = _files(tmp_path)
    assert sorted(made) == sorted(committed)
    for name, data in made.items():
        assert data == committed[name], f"sample_logs/{name} drifted: regenerate it (README.md)"
    assert len(summary.tables) == len(set(SAMPLE_ARGS["profiles"])) == 4


def test_sample_readme_lists_every_injected_error() -> None:
    readme = (SAMPLE / "README.md").read_text(encoding="utf-8")
    assert "--seed 43 --error-rate 0.05" in readme
    injected = [json.loads(x) for x in (SAMPLE / MANIFEST_NAME).read_text().splitlines()]
    assert 10 <= len(injected) <= 20
    for err in injected:
        assert f"| {err['code']} | {err['table']} | {err['shoe']} |" in readme
