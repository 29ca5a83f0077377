"""The hold of the simulator's players under a profile, measured as ``stats`` reads it.

    SHOE_AUDIT_PURE=1 .venv/bin/python benchmarks/house_edge.py us-strip-6d-s17 --rounds 4000

Deals a clean night of ``--tables`` tables x ``--rounds`` rounds under the profile
(``simulate``), audits it (``ingest``, ``run``) into a database of its own and prints
``stats``' ``house_result`` for the day: the hold (house win over the main handle,
insurance included, side bets left out) and its standard error. With
``--no-side-bets`` the profile is dealt from a copy without its ``side_bets`` (the same
id, from a ``--profiles`` folder): side bets are priced at their own exact edge in
``stats``, so the main game's hold is the same with or without them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from audit.profiles.registry import PACKAGED_DIR

Z95 = 1.959963984540054


def _cli(*argv: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "audit", *argv], env=env, capture_output=True, text=True
    )
    if done.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(argv[:1])} failed ({done.returncode}): {done.stderr}")
    return done.stdout


def measure(profile: str, *, rounds: int, tables: int, seed: int, side_bets: bool) -> dict:
    """Simulate, audit and read ``house_result``'s day row for one profile."""
    with tempfile.TemporaryDirectory(prefix="house-edge-") as tmp:
        work = Path(tmp)
        env = dict(os.environ)
        if not side_bets:
            folder = work / "profiles"
            folder.mkdir()
            src = PACKAGED_DIR / f"{profile}.toml"
            text = "".join(
                line
                for line in src.read_text(encoding="utf-8").splitlines(keepends=True)
                if not line.startswith("side_bets")
            )
            (folder / src.name).write_text(text, encoding="utf-8")
            env["SHOE_AUDIT_PROFILES"] = str(folder)
        db = str(work / "audit.duckdb")
        t0 = time.perf_counter()
        _cli(
            "simulate", "--profile", profile, "--tables", str(tables), "--rounds", str(rounds),
            "--seed", str(seed), "--rich-share", "0", "--out", str(work / "night"), env=env,
        )  # fmt: skip
        _cli("ingest", str(work / "night"), "--db", db, env=env)
        _cli("run", "--db", db, env=env)
        clean = _cli("findings", "--db", db, "--format", "jsonl", env=env).splitlines()
        rows = [
            json.loads(line)
            for line in _cli(
                "stats",
                "--db",
                db,
                "--from",
                "2026-11-28",
                "--to",
                "2027-12-31",
                "--format",
                "jsonl",
                env=env,
            ).splitlines()
        ]
        days = [r for r in rows if r["test"] == "house_result" and r["scope"] == "day"]
        won = handle = var = 0.0
        for r in days:
            w, h, band = _figures(r["message"])
            won, handle, var = won + w, handle + h, var + (band / Z95 * h) ** 2
        return {
            "profile": profile,
            "seed": seed,
            "rounds": sum(r["n"] for r in days),
            "side_bets": side_bets,
            "findings": len(clean),
            "hold": round(won / handle, 6),
            "se": round(var**0.5 / handle, 6),
            "won": round(won, 2),
            "handle": round(handle, 2),
            "seconds": round(time.perf_counter() - t0, 1),
        }


def _figures(message: str) -> tuple[float, float, float]:
    """The house's win, the handle and the 95% half-band of one day's ``house_result``
    row, as its message words them ("the house won 12.5 on a handle of 1,000 ... ± 2.1%")."""
    m = re.search(r"the house (won|lost) ([\d,.]+) on a handle of ([\d,.]+)", message)
    b = re.search(r"± ([\d.]+)% \(95% band\)", message)
    if m is None or b is None:
        raise SystemExit(f"unexpected house_result message: {message}")
    won = float(m.group(2).replace(",", "")) * (1 if m.group(1) == "won" else -1)
    return won, float(m.group(3).replace(",", "")), float(b.group(1)) / 100


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("profiles", nargs="+")
    ap.add_argument("--rounds", type=int, default=4000, help="rounds per table")
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--side-bets", action="store_true", help="deal the profile's side bets too")
    args = ap.parse_args(argv)
    for p in args.profiles:
        out = measure(
            p, rounds=args.rounds, tables=args.tables, seed=args.seed, side_bets=args.side_bets
        )
        print(json.dumps(out, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
