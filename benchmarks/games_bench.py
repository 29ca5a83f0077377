"""`run` on a night of games.md §5's profiles against an Italian night (issue 32, point 7).

Two clean nights of the same size, cached under ``benchmarks/out/``:

  italian  the four Italian profiles (``audit_bench.py``'s night)
  games    the four profiles of games.md §5 (hole card, peek, surrender, 6:5, ENHC,
           OBBO), side bets on a third of the staked spots (the simulator's share)

Each is ingested once; then, ``--repeat`` times and interleaved so that the
machine's load hits both alike, DuckDB's ``read_json`` of its files (its floor)
and ``run`` of a fresh copy of its database, each in a fresh process. Prints the
medians, ``run`` per event, and the target: (run / floor) of the games night within
10% of the Italian night's, each against the floor of its own files.

``--baseline PATH`` also times ``run`` of the Italian night by another build of the
product (PATH goes first on ``PYTHONPATH``: an unpacked wheel of an earlier commit,
``pip wheel --no-deps -w W <checkout>`` then ``unzip``), ingested by that build
into its own database, interleaved the same way: "Italian nights' run unchanged
within noise".

    .venv/bin/python benchmarks/games_bench.py --rounds 30000 --tables 8
    .venv/bin/python benchmarks/games_bench.py --rounds 30000 --tables 8 --baseline /tmp/old
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from audit_bench import _CHILD, PROFILES
from audit_bench import _night as night

GAMES = ["us-strip-6d-s17", "us-6d-h17-6to5", "uk-6d-enhc", "au-6d-obbo"]


def _stage(stage: str, src: Path | str, db: Path, site: str | None = None) -> dict[str, float]:
    env = dict(os.environ)
    if site:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [site, env.get("PYTHONPATH")]))
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, stage, str(src), str(db)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir() if site else None,  # the checkout must not shadow site
    )
    if out.returncode != 0:
        sys.exit(f"stage {stage} failed (exit {out.returncode}):\n{out.stderr[-4000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _fresh(src: Path, dst: Path) -> Path:
    """A copy of an ingested database and its ledger (``run`` writes to both)."""
    shutil.copyfile(src, dst)
    shutil.copyfile(f"{src}.ledger", f"{dst}.ledger")
    return dst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30_000)
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--baseline", help="another build's site folder, to time the Italian run")
    args = ap.parse_args()

    logs = {
        k: night(args.rounds, args.tables, args.seed, 0.0, profiles=p, name=k) / "logs"
        for k, p in (("italian", PROFILES), ("games", GAMES))
    }
    runs: dict[str, list[dict[str, float]]] = {}
    floors: dict[str, list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        ingested = {k: work / f"{k}.duckdb" for k in logs}
        for k, src in logs.items():
            _stage("ingest", src, ingested[k])
        if args.baseline:
            ingested["baseline"] = work / "baseline.duckdb"
            _stage("ingest", logs["italian"], ingested["baseline"], args.baseline)
        for _ in range(args.repeat):
            for k, src in logs.items():
                floor_db = work / "floor.duckdb"
                floor_db.unlink(missing_ok=True)
                floors.setdefault(k, []).append(_stage("floor", src, floor_db))
            for k in ingested:
                db = _fresh(ingested[k], work / f"run-{k}.duckdb")
                site = args.baseline if k == "baseline" else None
                runs.setdefault(k, []).append(_stage("run", "", db, site))

    def med(rs: list[dict[str, float]], key: str = "secs") -> float:
        return statistics.median(r[key] for r in rs)

    ratio = {}
    for k in logs:
        events = int(floors[k][0]["rows"])
        floor, run = med(floors[k]), med(runs[k])
        ratio[k] = run / floor
        print(
            f"{k:8} {int(runs[k][0]['rounds']):>8,} rounds {events:>10,} events"
            f"   floor {floor:6.2f} s   run {run:6.2f} s   {run / floor:5.2f} x floor"
            f"   (cpu {med(runs[k], 'cpu') / med(floors[k], 'cpu'):4.2f} x)"
            f"   {run / events * 1e6:5.2f} us/event"
        )
    rel = ratio["games"] / ratio["italian"]
    print(
        f"games / italian, each against its own floor: {rel:5.3f}"
        f"   (target <= 1.10: {'met' if rel <= 1.10 else 'NOT met'})"
    )
    if args.baseline:
        base, now = med(runs["baseline"]), med(runs["italian"])
        cbase, cnow = med(runs["baseline"], "cpu"), med(runs["italian"], "cpu")
        spread = [r["secs"] for r in runs["baseline"]] + [r["secs"] for r in runs["italian"]]
        print(
            f"italian run: baseline build {base:6.2f} s, this build {now:6.2f} s"
            f" ({now / base:5.3f} x); cpu {cbase:6.2f} s against {cnow:6.2f} s"
            f" ({cnow / cbase:5.3f} x); every run (baseline's, then this build's):"
            f" {', '.join(f'{s:.2f}' for s in spread)}"
        )


if __name__ == "__main__":
    main()
