"""Recall and precision of the engine on simulated logs, per injected code.

    .venv/bin/python benchmarks/sim_recall.py --rounds 25000 --seed 1

Runs a clean simulation (every finding is a false positive) and one with
injected errors (``--error-rate``), a share of their tables writing every
optional field of TEL/1 (``--rich-share``), replays every shoe through the engine
with the cross-shoe context the batch layer would compute, and prints, per
code: injected, found at the manifest's place, extra findings, recall and
precision; then a few of the disagreements, to be judged against rules.md.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Iterable

from audit.engine import ShoeContext, replay_shoe
from audit.events.parse import parse_object
from audit.findings import Finding
from audit.profiles import load_registry
from audit.simulate import (
    RICH_SHARE,
    InjectedError,
    ShoeInfoTracker,
    ShoeOutput,
    iter_shoes,
    match_findings,
)

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]


def replay(shoes: Iterable[ShoeOutput]) -> tuple[Counter[str], list[InjectedError], list[Finding]]:
    """Replay shoe by shoe; keep only the features, the manifest and the findings."""
    registry = load_registry()
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=25_000, help="rounds in total (all tables)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--error-rate", type=float, default=0.1)
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument(
        "--rich-share",
        type=float,
        default=RICH_SHARE,
        help="share of tables that write every optional field (0: plain logs only)",
    )
    ap.add_argument("--profile", action="append", dest="profiles", help="default: all four")
    ap.add_argument("--show", type=int, default=10, help="disagreements to print")
    args = ap.parse_args(argv)
    profiles = args.profiles or PROFILES
    per_table = max(1, args.rounds // args.tables)
    kw = {
        "tables": args.tables,
        "shoes": 1,
        "rounds": per_table,
        "profiles": profiles,
        "rich_share": args.rich_share,
    }

    t0 = time.perf_counter()
    feats, _, clean = replay(iter_shoes(seed=args.seed, **kw))  # type: ignore[arg-type]
    t1 = time.perf_counter()
    print(
        f"clean run: {feats['rounds']} rounds, {feats['shoes']} shoes, "
        f"{len(clean)} findings ({t1 - t0:.1f} s)"
    )
    for code, n in sorted(Counter(str(f.code) for f in clean).items()):
        print(f"  {code}: {n}")
    for f in clean[: args.show]:
        print(f"  - {f.code} {f.table} {f.shoe} r{f.round} box {f.box} hand {f.hand}: {f.message}")

    injected_run = iter_shoes(seed=args.seed + 1, error_rate=args.error_rate, **kw)  # type: ignore[arg-type]
    feats, injected, found = replay(injected_run)
    report = match_findings(injected, found)
    t2 = time.perf_counter()
    print(
        f"\ninjected run: {feats['rounds']} rounds, error rate {args.error_rate} ({t2 - t1:.1f} s)"
    )
    print(report.table())
    for err in report.missed[: args.show]:
        print(f"  missed: {err.to_json()}")
    for f in report.unexpected[: args.show]:
        print(f"  extra: {f.code} {f.table} {f.shoe} r{f.round} box {f.box}: {f.message}")
    return 0 if not clean and report.perfect else 1


if __name__ == "__main__":
    raise SystemExit(main())
