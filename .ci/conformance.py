#!/usr/bin/env python3
"""The conformance nights in CI (issue 28, point 5): ``../shared/conformance`` audited by
the built CLI, each night scored by its own ``score.py``.

Does what ``check.sh`` does (ingest each night's day folders, ``run --all``,
``findings --format jsonl``, score), and honours the reviewed allow-list
``tests/conformance/allowlist.jsonl``: one JSON object a line, for a place where a
night and the spec disagree and the spec stands. Each entry names the ``night``,
``at`` (the night's ``file:line``), the ``spec`` line that decides it, ``why``, and
what it excuses: ``kind`` ``missed`` (an injected error the spec says is none: its
truth line is left out) or ``extra`` (a finding the spec requires that the night did
not inject: findings of that ``code``, ``table``, ``shoe`` and ``round`` are left
out). With an empty list the score is ``check.sh``'s, line for line.

Exit 0 only when every night scores ``recall 1.000`` with no false positive and no
duplicate; 1 otherwise, and 1 loudly when the nights are missing.

    python3 .ci/conformance.py .venv/bin/shoe-audit [CONFORMANCE_DIR]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ALLOWLIST = REPO / "tests" / "conformance" / "allowlist.jsonl"
REQUIRED = ("night", "at", "spec", "why", "kind", "code", "table", "shoe", "round")


def load_allowlist(path: Path = ALLOWLIST) -> list[dict[str, object]]:
    """The reviewed entries; a malformed one stops the check (a list nobody can read
    excuses nothing)."""
    entries = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        entry = json.loads(line)
        missing = [k for k in REQUIRED if k not in entry]
        if missing or entry["kind"] not in ("missed", "extra") or not entry["spec"]:
            raise SystemExit(f"{path}:{n}: an allow-list entry needs {', '.join(REQUIRED)}")
        entries.append(entry)
    return entries


def _place(obj: dict[str, object]) -> tuple[object, ...]:
    return (obj.get("code"), obj.get("table"), obj.get("shoe"), obj.get("round"))


def excuse(lines: list[str], entries: list[dict[str, object]], night: str, kind: str) -> list[str]:
    """``lines`` (JSON objects) less those an entry of ``kind`` for ``night`` excuses."""
    places = {_place(e) for e in entries if e["night"] == night and e["kind"] == kind}
    return [x for x in lines if not x.strip() or _place(json.loads(x)) not in places]


def check_night(cli: str, night: Path, work: Path, entries: list[dict[str, object]]) -> bool:
    name = night.name
    env = {**os.environ, "SHOE_AUDIT_DB": str(work / f"{name}.duckdb")}
    days = sorted(str(d) for d in night.iterdir() if d.is_dir() and d.name.startswith("20"))
    for step in (["-q", "ingest", *days], ["-q", "run", "--all"]):
        done = subprocess.run([cli, *step], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
            print(f"{name}: {step[1]} failed: {' '.join(tail)}")
            return False
    found = subprocess.run(
        [cli, "findings", "--format", "jsonl"], env=env, capture_output=True, text=True
    )
    if found.returncode != 0:
        print(f"{name}: findings failed: {found.stderr.strip()}")
        return False
    truth = (night / "truth.jsonl").read_text(encoding="utf-8").splitlines()
    files = {
        "truth": excuse(truth, entries, name, "missed"),
        "findings": excuse(found.stdout.splitlines(), entries, name, "extra"),
    }
    for what, lines in files.items():
        (work / f"{name}.{what}.jsonl").write_text("".join(x + "\n" for x in lines))
    score = subprocess.run(
        [
            sys.executable, str(night.parent / "score.py"),
            "--truth", str(work / f"{name}.truth.jsonl"),
            "--tolerated", str(night / "expected_tolerated.jsonl"),
            "--findings", str(work / f"{name}.findings.jsonl"),
        ],
        capture_output=True,
        text=True,
    )  # fmt: skip
    lines = score.stdout.strip().splitlines()
    last = lines[-1] if lines else score.stderr.strip()
    excused = sum(1 for e in entries if e["night"] == name)
    print(f"{name}: {last}" + (f" ({excused} allow-listed)" if excused else ""))
    ok = score.returncode == 0 and " dup 0 " in last
    if not ok:
        print("\n".join(lines[:60]))
    return ok


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    cli = argv[0]
    root = Path(argv[1]) if len(argv) > 1 else REPO.parent / "shared" / "conformance"
    nights = sorted(p for p in root.glob("*/") if (p / "truth.jsonl").is_file())
    if not (root / "score.py").is_file() or not nights:
        print(
            f"CONFORMANCE CHECK FAILED: the conformance nights are missing at {root} "
            "(../shared/conformance beside the repo): CI cannot vouch for this build",
            file=sys.stderr,
        )
        return 1
    entries = load_allowlist()
    with tempfile.TemporaryDirectory() as tmp:
        results = [check_night(cli, night, Path(tmp), entries) for night in nights]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
