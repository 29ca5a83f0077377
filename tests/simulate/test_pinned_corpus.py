"""The benchmarks' corpus is pinned: the simulator deals the night it dealt before issue 28.

Every speed figure in ``benchmarks/`` compares runs on a simulated night; a
change to the simulator must not silently change that night, or a before and
an after figure would measure different nights. ``PINNED_SHA256`` was recorded
from commit 24fb8d6, before the simulator learnt to write TEL/1's optional
fields. The benchmarks pass ``rich_share=0.0`` (plain tables only), which deals
that night byte for byte; with any share, a table that is not rich is dealt
exactly as before too (its rich choices come from random streams of their own).
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path
from typing import Any

import pytest

from audit.simulate import MANIFEST_NAME, RICH_SHARE, simulate

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]

PINNED_SHA256 = "f9fb8e5961996f343af749b17f881784e65d4ca3702fd30858aabaefca7b65aa"
"""SHA-256 over (path, bytes) of every file :func:`_night` writes, at commit 24fb8d6."""


BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _digest(out: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(out.rglob("*")):
        if p.is_file():
            # the manifest is hashed under its name at 24fb8d6 (cli.md v1.2 renamed it
            # injected.ndjson, so that ingest does not read it): its bytes are unchanged
            name = "injected.jsonl" if p.name == MANIFEST_NAME else str(p.relative_to(out))
            h.update(name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def _night(out: Path, **kw: Any) -> str:
    simulate(out, tables=4, shoes=1, rounds=60, profiles=PROFILES, seed=28, error_rate=0.1, **kw)
    return _digest(out)


def test_pinned_night_is_byte_identical_to_before(tmp_path: Path) -> None:
    assert _night(tmp_path, rich_share=0.0) == PINNED_SHA256


def test_a_table_that_is_not_rich_is_dealt_as_before(tmp_path: Path) -> None:
    """Seed 28's four tables draw no rich one at the default share; at 1.0 all are rich."""
    assert _night(tmp_path / "default", rich_share=RICH_SHARE) == PINNED_SHA256
    assert _night(tmp_path / "all", rich_share=1.0) != PINNED_SHA256
    kw: dict[str, Any] = {"shoes": 1, "rounds": 40, "profiles": PROFILES, "error_rate": 0.1}
    simulate(tmp_path / "plain", tables=8, seed=5, rich_share=0.0, **kw)
    summary = simulate(tmp_path / "mixed", tables=8, seed=5, rich_share=0.5, **kw)

    def by_table(root: Path) -> dict[str, list[bytes]]:
        out: dict[str, list[bytes]] = {}
        for path in sorted(root.rglob("T*.jsonl")):
            out.setdefault(path.stem, []).append(path.read_bytes())
        return out

    plain, mixed = by_table(tmp_path / "plain"), by_table(tmp_path / "mixed")
    same = sorted(t for t in summary.tables if plain[t] == mixed[t])
    assert 0 < len(same) < len(summary.tables)


@pytest.mark.parametrize("script", sorted(p.name for p in BENCHMARKS.glob("*.py")))
def test_benchmarks_deal_plain_tables_only(script: str) -> None:
    """Every benchmark that simulates its corpus asks for plain tables (``rich_share=0.0``)."""
    tree = ast.parse((BENCHMARKS / script).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "simulate":
            kw = {k.arg: k.value for k in node.keywords}
            assert "rich_share" in kw, f"{script}:{node.lineno}: simulate() without rich_share"
            assert ast.literal_eval(kw["rich_share"]) == 0.0, f"{script}:{node.lineno}"
