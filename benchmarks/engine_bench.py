"""How much faster the compiled engine (mypyc, setup.py) replays than its pure-Python sources.

Makes a simulated night (clean, all four profiles), ingests it into a fresh
DuckDB file and reads every shoe's events back as ``run`` hands them to the
engine (round events as :class:`~audit.engine.RoundEvent`). Then two fresh
processes replay all of it with :func:`audit.engine.audit_shoe`, the cyclic GC
off as in ``run``, ``--repeat`` times each: one imports the compiled engine,
the other the ``.py`` sources beside it (the baseline). Prints each median,
rounds and events per second, and the speedup. Usage:

    .venv/bin/python benchmarks/engine_bench.py --rounds 20000 --repeat 5
"""

from __future__ import annotations

import argparse
import gc
import json
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROFILES = ["it-casino-6d", "it-casino-5d", "it-casino-6d-mandatory", "ventuno-family"]


def make_inputs(rounds: int, tables: int, seed: int, out: Path) -> None:
    """Simulate, ingest, and pickle each shoe's ``audit_shoe`` arguments into ``out``."""
    from audit.batch import shoe_contexts
    from audit.engine import ShoeContext, round_event
    from audit.ingest import ingest_paths
    from audit.profiles import load_registry
    from audit.simulate import simulate
    from audit.store import open_store

    registry = load_registry()
    logs = out.parent / "logs"
    t = time.perf_counter()
    simulate(
        logs,
        tables=tables,
        shoes=1,
        rounds=max(1, rounds // tables),
        profiles=PROFILES,
        seed=seed,
        registry=registry,
        # plain tables only: the corpus every earlier figure was measured on (issue 28)
        rich_share=0.0,
    )
    with open_store(out.parent / "bench.duckdb") as store:
        summary = ingest_paths(store, [logs])
        keys = sorted(store.shoe_info())
        events = store.load_shoe_events(keys)
        infos = store.shoe_info(keys)
        contexts = shoe_contexts(store, keys)
    calls = []
    for k in keys:
        pid = infos[k].profile
        profile = registry.get(pid) if pid is not None and pid in registry else None
        shoe = [round_event(e) for e in events[k]]
        calls.append((k.table, k.shoe, shoe, profile, contexts.get(k, ShoeContext())))
    out.write_bytes(pickle.dumps(calls))
    print(f"simulated and ingested {summary.new:,} events in {time.perf_counter() - t:.1f} s")


def child(inputs: Path, repeat: int, pure: bool) -> None:
    """Replay the pickled shoes ``repeat`` times; print the timings as one JSON line."""
    if pure:
        from audit.pure_engine import use_pure_engine

        use_pure_engine()
    import audit.engine.round
    from audit.engine import audit_shoe

    calls = pickle.loads(inputs.read_bytes())
    times, rounds = [], 0
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        t = time.perf_counter()
        rounds = sum(len(audit_shoe(*c).rounds) for c in calls)
        times.append(time.perf_counter() - t)
        gc.enable()
    events = sum(len(c[2]) for c in calls)
    module = audit.engine.round.__file__
    assert not pure or module.endswith(".py"), module
    print(json.dumps({"module": module, "rounds": rounds, "events": events, "times": times}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20_000, help="rounds in all (default 20000)")
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--child", choices=["pure", "compiled"], help=argparse.SUPPRESS)
    ap.add_argument("--inputs", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.inputs, args.repeat, args.child == "pure")
        return

    with tempfile.TemporaryDirectory() as tmp:
        inputs = Path(tmp) / "calls.pickle"
        make_inputs(args.rounds, args.tables, args.seed, inputs)
        results = {}
        for mode in ("pure", "compiled"):
            cmd = [sys.executable, __file__, "--child", mode, "--inputs", str(inputs)]
            cmd += ["--repeat", str(args.repeat)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            results[mode] = json.loads(out.splitlines()[-1])

    if not results["compiled"]["module"].endswith(".so"):
        print("note: the engine is not compiled here (SHOE_AUDIT_PURE build?): both runs are pure")
    base = statistics.median(results["pure"]["times"])
    head = f"{'engine':<10} {'rounds':>9} {'median s':>9} {'rounds/s':>10} {'µs/event':>9}"
    print(f"\n{head} {'vs pure':>8}")
    for mode, r in results.items():
        secs = statistics.median(r["times"])
        rate, per_event = r["rounds"] / secs, secs / r["events"] * 1e6
        print(f"{mode:<10} {r['rounds']:>9,} {secs:>9.2f} {rate:>10,.0f} {per_event:>9.2f}", end="")
        print(f" {base / secs:>7.2f}x")


if __name__ == "__main__":
    main()
