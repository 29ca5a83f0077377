"""Does ``stats`` cry wolf? Clean simulated nights, and nights with a table dealt wrong.

Simulates (and caches under ``benchmarks/out/``) ``--nights`` clean nights of
``--rounds`` rounds each over all four profiles, one seed each, and one night
of the same size with ``--bias`` tables dealt wrong on purpose (``simulate
--bias``); ingests and runs each, and runs ``stats`` at the default alpha.
Prints the share of clean nights with any flag, how the raw p-values of the
judged tests spread (under no bias about 1% fall below 0.01), and which
flags the biased night raises.

    .venv/bin/python benchmarks/stats_calibration.py --nights 8 --rounds 25000
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]


def _night(rounds: int, tables: int, seed: int, bias: list[str]) -> Path:
    from audit.simulate import simulate
    from audit.simulate.bias import parse_biases

    tag = "-".join(b.replace(":", "_").replace("=", "") for b in bias) or "clean"
    folder = HERE / "out" / f"calib-{rounds}-{tables}-{seed}-{tag}"
    db = folder / "audit.duckdb"
    if (folder / ".complete").exists():
        return db
    print(f"  simulating {rounds:,} rounds (seed {seed}, {tag}) into {folder}", flush=True)
    simulate(
        folder / "logs",
        tables=tables,
        shoes=1,
        rounds=max(1, rounds // tables),
        profiles=PROFILES,
        seed=seed,
        biases=parse_biases(bias),
        # plain tables only: the corpus every earlier figure was measured on (issue 28)
        rich_share=0.0,
    )
    from tests.stats.nights import audited_db

    db.unlink(missing_ok=True)
    audited_db(folder / "logs", db)
    (folder / ".complete").touch()
    return db


def _stats(db: Path):  # type: ignore[no-untyped-def]
    from audit.batch.statistics import stats_for_days
    from audit.profiles import load_registry
    from audit.stats import Correction
    from audit.store import open_store
    from audit.store.stats_frames import audited_days

    with open_store(db, read_only=True) as store:
        days = audited_days(store)
        return stats_for_days(store, days, load_registry(), alpha=0.001, correction=Correction.holm)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nights", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=25_000)
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--first-seed", type=int, default=101)
    ap.add_argument(
        "--bias",
        action="append",
        default=None,
        help="a table dealt wrong in the biased night (default T01:short-dealer=0.3 and "
        "T02:strip-tens=8)",
    )
    args = ap.parse_args()
    bias = args.bias or ["T01:short-dealer=0.3", "T02:strip-tens=8"]

    p_values: dict[str, list[float]] = defaultdict(list)
    flagged_nights = 0
    total_rounds = 0
    for i in range(args.nights):
        seed = args.first_seed + i
        result = _stats(_night(args.rounds, args.tables, seed, []))
        total_rounds += args.rounds
        for r in result.rows:
            if r.adjusted_p is not None and r.p_value is not None:
                p_values[r.test].append(r.p_value)
        flags = [
            f"{r.test} {r.scope} {r.subject} (adjusted p {r.adjusted_p:.2g})" for r in result.flags
        ]
        flagged_nights += bool(flags)
        print(
            f"clean night seed {seed}: {result.judged:,} tests judged, {len(flags)} flagged"
            + "".join(f"\n    {f}" for f in flags),
            flush=True,
        )
    print(
        f"\nclean nights with any flag at alpha 0.001 (Holm): {flagged_nights} of {args.nights}"
        f" ({total_rounds:,} rounds in all)"
    )
    print(f"{'test':<24} {'judged':>7} {'p<0.01':>8} {'p<0.05':>8} {'mean p':>7}")
    for test, ps in sorted(p_values.items()):
        n = len(ps)
        print(
            f"{test:<24} {n:>7,} {sum(p < 0.01 for p in ps) / n:>8.3f} "
            f"{sum(p < 0.05 for p in ps) / n:>8.3f} {sum(ps) / n:>7.3f}"
        )

    result = _stats(_night(args.rounds, args.tables, args.first_seed, bias))
    print(
        f"\nbiased night (seed {args.first_seed}, {', '.join(bias)}): {len(result.flags)} flagged"
    )
    for r in result.flags:
        print(f"    {r.test} {r.scope} {r.subject}: adjusted p {r.adjusted_p:.2g}")


if __name__ == "__main__":
    main()
