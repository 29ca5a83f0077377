"""Recall and precision of the engine on simulated logs, per injected code.

    .venv/bin/python benchmarks/sim_recall.py --rounds 25000 --seed 1

Per profile (default: the four Italian ones and games.md §5's four, one after the
other; ``--profiles DIR`` reads a casino's own), runs a clean simulation (every
finding is a false positive) and one with injected errors (``--error-rate``, of
the classes ``--error CODE`` names, default all), a share of their tables writing every
optional field of TEL/1 (``--rich-share``), replays every shoe through the engine
with the cross-shoe context the batch layer would compute, and prints, per
code: injected, found at the manifest's place, extra findings, recall and
precision; then a few of the disagreements, to be judged against rules.md.

    .venv/bin/python benchmarks/sim_recall.py --books --tables 4 --shoes 2 --days 3

``--books`` scores the reconciliation instead: it simulates a clean books
night and an injected one (``simulate --books``, ``--books-error-rate``),
audits each through the real command line (``ingest``, ``run`` with a house
file that says ``cage_day_close = "count"``, ``findings``) into a DuckDB file
of its own, and prints recall and precision per ``ACCT_`` code, an injected
error counting as found when a finding has its code, table, gaming day,
shift and impact. The clean night must raise no ``ACCT_`` finding.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any

from audit.books.house import PACKAGED_HOUSE
from audit.engine import ShoeContext, replay_shoe
from audit.events.parse import parse_object
from audit.findings import Code, Finding
from audit.profiles import ProfileRegistry, load_registry
from audit.simulate import (
    RICH_SHARE,
    InjectedError,
    ShoeInfoTracker,
    ShoeOutput,
    iter_shoes,
    match_findings,
    simulate,
)

PROFILES = [
    "it-casino-6d",
    "it-casino-5d",
    "it-casino-6d-mandatory",
    "ventuno-family",
    "us-strip-6d-s17",
    "us-6d-h17-6to5",
    "uk-6d-enhc",
    "au-6d-obbo",
]
"""The four Italian profiles and games.md §5's four."""


def replay(
    shoes: Iterable[ShoeOutput], registry: ProfileRegistry | None = None
) -> tuple[Counter[str], list[InjectedError], list[Finding]]:
    """Replay shoe by shoe; keep only the features, the manifest and the findings."""
    registry = registry if registry is not None else load_registry()
    tracker = ShoeInfoTracker()
    features: Counter[str] = Counter()
    injected: list[InjectedError] = []
    findings: list[Finding] = []
    for s in shoes:
        info = tracker.see(s.events)
        context = ShoeContext(
            first_shoe_of_gaming_day=info.first_shoe_of_gaming_day,
            banker=info.banker,
            banker_rounds_before=info.banker_rounds_before,
        )
        events = [parse_object(e) for e in s.events]
        findings.extend(replay_shoe(events, registry.get(s.profile), context).findings)
        features.update(s.features)
        injected.extend(s.injected)
    return features, injected, findings


BOOKS_HOUSE = (PACKAGED_HOUSE.read_text(encoding="utf-8")).replace(
    'cage_day_close = { value = "next_day"', 'cage_day_close = { value = "count"'
)
"""The packaged house file, judging a night whose cage exports each day before the count."""


def _audit_books(night: Path, work: Path, house: Path) -> list[dict[str, Any]]:
    """``ingest`` and ``run`` the night into a database of its own; its ``ACCT_`` findings."""
    db = work / f"{night.name}.duckdb"
    env = {**os.environ, "SHOE_AUDIT_HOUSE": str(house)}
    for argv in (["ingest", str(night)], ["run"]):
        subprocess.run(
            [sys.executable, "-m", "audit", *argv, "--db", str(db)], env=env, check=False
        )
    found = subprocess.run(
        [sys.executable, "-m", "audit", "findings", "--db", str(db), "--format", "jsonl"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    rows = [json.loads(line) for line in found.stdout.splitlines() if line.strip()]
    return [r for r in rows if str(r.get("code", "")).startswith("ACCT_")]


def _books_key(row: dict[str, Any]) -> tuple[Any, ...]:
    impact = row.get("impact")
    return (
        row.get("code"),
        row.get("table"),
        row.get("gaming_day"),
        row.get("shift"),
        None if impact is None else Decimal(str(impact)),
    )


def books_main(args: argparse.Namespace) -> int:
    """Recall and precision per ``ACCT_`` code of the reconciliation on simulated books."""
    with tempfile.TemporaryDirectory(prefix="sim-recall-books-") as tmp:
        work = Path(tmp)
        house = work / "house.toml"
        house.write_text(BOOKS_HOUSE, encoding="utf-8")
        kw: dict[str, Any] = {
            "tables": args.tables,
            "shoes": args.shoes,
            "profiles": args.profiles or PROFILES[:3],
            "days": args.days,
            "books": True,
        }
        t0 = time.perf_counter()
        simulate(work / "clean", seed=args.seed, rich_share=0.0, **kw)
        clean = _audit_books(work / "clean", work, house)
        print(f"clean books night: {len(clean)} ACCT_ findings ({time.perf_counter() - t0:.1f} s)")
        for row in clean[: args.show]:
            where = f"{row.get('table')} {row.get('gaming_day')}"
            print(f"  - {row.get('code')} {where}: {row.get('message')}")
        summary = simulate(
            work / "injected",
            seed=args.seed + 1,
            books_error_rate=args.books_error_rate,
            rich_share=0.0,
            **kw,
        )
        found = _audit_books(work / "injected", work, house)
        injected = [_books_key(e.to_dict()) for e in summary.books_injected]
        pool = [_books_key(r) for r in found]
        n_injected: Counter[str] = Counter(str(k[0]) for k in injected)
        hits: Counter[str] = Counter()
        missed = []
        for key in injected:
            if key in pool:
                pool.remove(key)
                hits[str(key[0])] += 1
            else:
                missed.append(key)
        extra: Counter[str] = Counter(str(k[0]) for k in pool)
        print(f"\ninjected books night: error rate {args.books_error_rate}")
        print(f"{'code':30} {'injected':>8} {'found':>6} {'extra':>6} {'recall':>7} {'prec.':>7}")
        for code in sorted(set(n_injected) | set(extra)):
            rec = hits[code] / n_injected[code] if n_injected[code] else 1.0
            got = hits[code] + extra[code]
            prec = hits[code] / got if got else 1.0
            print(
                f"{code:30} {n_injected[code]:8d} {hits[code]:6d} {extra[code]:6d} "
                f"{rec:7.3f} {prec:7.3f}"
            )
        for key in missed[: args.show]:
            print(f"  missed: {key}")
        for key in pool[: args.show]:
            print(f"  extra: {key}")
        return 0 if not clean and not missed and not pool else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=25_000, help="rounds per profile (all tables)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--error-rate", type=float, default=0.1)
    ap.add_argument("--tables", type=int, default=4, help="tables per profile")
    ap.add_argument(
        "--rich-share",
        type=float,
        default=RICH_SHARE,
        help="share of tables that write every optional field (0: plain logs only)",
    )
    ap.add_argument(
        "--profile", action="append", dest="profiles", help="default: all eight, one by one"
    )
    ap.add_argument("--profiles", dest="profiles_dir", help="a folder of extra profiles")
    ap.add_argument(
        "--error", action="append", dest="errors", metavar="CODE", help="inject only these"
    )
    ap.add_argument("--show", type=int, default=10, help="disagreements to print")
    ap.add_argument("--books", action="store_true", help="score the books' ACCT_ codes")
    ap.add_argument("--books-error-rate", type=float, default=0.5)
    ap.add_argument("--shoes", type=int, default=2, help="--books: shoes per table and day")
    ap.add_argument("--days", type=int, default=3, help="--books: gaming days (2 or more)")
    args = ap.parse_args(argv)
    if args.books:
        return books_main(args)
    registry = load_registry(args.profiles_dir)
    codes = [Code(c) for c in args.errors] if args.errors else None
    ok = True
    for profile in args.profiles or PROFILES:
        print(f"\n=== {profile}")
        ok = _profile_recall(args, profile, registry, codes) and ok
    return 0 if ok else 1


def _profile_recall(
    args: argparse.Namespace, profile: str, registry: ProfileRegistry, codes: list[Code] | None
) -> bool:
    """A clean night and an injected one of ``profile``; True when both score perfectly."""
    per_table = max(1, args.rounds // args.tables)
    kw: dict[str, Any] = {
        "tables": args.tables,
        "shoes": 1,
        "rounds": per_table,
        "profiles": [profile],
        "rich_share": args.rich_share,
        "registry": registry,
    }
    t0 = time.perf_counter()
    feats, _, clean = replay(iter_shoes(seed=args.seed, **kw), registry)
    t1 = time.perf_counter()
    print(
        f"clean run: {feats['rounds']} rounds, {feats['shoes']} shoes, "
        f"{len(clean)} findings ({t1 - t0:.1f} s)"
    )
    for code, n in sorted(Counter(str(f.code) for f in clean).items()):
        print(f"  {code}: {n}")
    for f in clean[: args.show]:
        print(f"  - {f.code} {f.table} {f.shoe} r{f.round} box {f.box} hand {f.hand}: {f.message}")

    injected_run = iter_shoes(
        seed=args.seed + 1, error_rate=args.error_rate, error_codes=codes, **kw
    )
    feats, injected, found = replay(injected_run, registry)
    report = match_findings(injected, found)
    t2 = time.perf_counter()
    print(f"injected run: {feats['rounds']} rounds, error rate {args.error_rate} ({t2 - t1:.1f} s)")
    print(report.table())
    for err in report.missed[: args.show]:
        print(f"  missed: {err.to_json()}")
    for f in report.unexpected[: args.show]:
        print(f"  extra: {f.code} {f.table} {f.shoe} r{f.round} box {f.box}: {f.message}")
    return not clean and report.perfect


if __name__ == "__main__":
    raise SystemExit(main())
