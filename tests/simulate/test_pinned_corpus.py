"""The benchmarks' corpus is pinned: the simulator deals the night it dealt before issue 28.

Every speed figure in ``benchmarks/`` compares runs on a simulated night; a
change to the simulator must not silently change that night, or a before and
an after figure would measure different nights. ``PINNED_SHA256`` was recorded
from commit 24fb8d6, before the simulator learnt to write TEL/1's optional
fields.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from audit.simulate import simulate

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]

PINNED_SHA256 = "f9fb8e5961996f343af749b17f881784e65d4ca3702fd30858aabaefca7b65aa"
"""SHA-256 over (path, bytes) of every file :func:`_night` writes, at commit 24fb8d6."""


def _night(out: Path) -> str:
    simulate(out, tables=4, shoes=1, rounds=60, profiles=PROFILES, seed=28, error_rate=0.1)
    h = hashlib.sha256()
    for p in sorted(out.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(out)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def test_pinned_night_is_byte_identical_to_before(tmp_path: Path) -> None:
    assert _night(tmp_path) == PINNED_SHA256
