"""``shoe-audit theory`` for every profile and 1 to 8 decks: under a second each, cached after.

For each profile and deck count: the exact table computed cold (every cache
cleared: the dealer graphs and the table), then again from the cache, and the
whole command as a user runs it (a fresh ``shoe-audit theory ... --format
json`` process, Python start-up included). Baseline, same run: the fresh
process of ``shoe-audit profiles`` (start-up and profile loading, no theory).

    .venv/bin/python benchmarks/theory_bench.py
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).with_name("shoe-audit")


def _process(*args: str) -> tuple[float, int]:
    t = time.perf_counter()
    out = subprocess.run([str(BIN), *args], capture_output=True, text=True)
    return time.perf_counter() - t, out.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from audit.errors import NoDealerRuleError
    from audit.profiles import load_registry
    from audit.stats import dealer, theory

    theory_module = sys.modules["audit.stats.theory"]

    registry = load_registry()
    base = statistics.median(_process("profiles")[0] for _ in range(args.repeat))
    print(f"baseline: `shoe-audit profiles` process {base:.2f} s (median of {args.repeat})")
    print(f"{'profile':<24} {'decks':>5} {'cold':>8} {'cached':>9} {'command':>9}")
    worst_cold = worst_cmd = 0.0
    for p in registry.all():
        for decks in range(1, 9):
            colds, warms = [], []
            for _ in range(args.repeat):
                theory_module._table.cache_clear()
                dealer.dealer_graph.cache_clear()
                t = time.perf_counter()
                try:
                    theory(p, decks)
                except NoDealerRuleError:
                    break
                colds.append(time.perf_counter() - t)
                t = time.perf_counter()
                theory(p, decks)
                warms.append(time.perf_counter() - t)
            cmd = [_process("theory", p.id, "--decks", str(decks), "--format", "json")]
            cmd += [_process("theory", p.id, "--decks", str(decks)) for _ in range(args.repeat - 1)]
            wall = statistics.median(c[0] for c in cmd)
            if not colds:
                code = cmd[0][1]
                print(
                    f"{p.id:<24} {decks:>5}   no dealer rule: the command exits {code}"
                    f" in {wall:.2f} s"
                )
                continue
            cold, warm = statistics.median(colds), statistics.median(warms)
            worst_cold, worst_cmd = max(worst_cold, cold), max(worst_cmd, wall)
            print(f"{p.id:<24} {decks:>5} {cold:7.3f}s {warm * 1e6:7.1f}us {wall:8.2f}s")
    verdict = "met" if worst_cold < 1.0 else "NOT met"
    print(
        f"slowest: {worst_cold:.3f} s computed cold (target < 1 s each: {verdict}); "
        f"{worst_cmd:.2f} s as a command, {worst_cmd - base:+.2f} s over a command that "
        "computes nothing"
    )


if __name__ == "__main__":
    main()
