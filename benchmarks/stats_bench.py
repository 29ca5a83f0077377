"""``shoe-audit stats`` over a night against the audit time of the same night (target < 10%).

Takes the clean simulated night that ``audit_bench.py`` caches under
``benchmarks/out/`` (``--rounds`` over all four profiles, 20 tables), and in
fresh processes: ``ingest`` it into a new database, ``run`` it (the audit
time is ingest + run), then ``stats`` over its gaming days, ``--repeat``
times, as the command a user types (``shoe-audit stats --format jsonl``,
output discarded; Python start-up included) and as the library call alone.

    .venv/bin/python benchmarks/stats_bench.py --rounds 100000
    .venv/bin/python benchmarks/stats_bench.py --rounds 1000000 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from audit_bench import _night, _stage  # noqa: E402

REPO = HERE.parent
BIN = Path(sys.executable).with_name("shoe-audit")

_STATS = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[2])
t = time.perf_counter()
from audit.batch.statistics import stats_for_days
from audit.profiles import load_registry
from audit.stats import Correction
from audit.store import open_store
with open_store(sys.argv[1], read_only=True) as store:
    from audit.store.stats_frames import audited_days
    days = audited_days(store)
    r = stats_for_days(store, days, load_registry(), alpha=0.001, correction=Correction.holm)
me = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"secs": time.perf_counter() - t, "cpu": me.ru_utime + me.ru_stime,
                  "rows": len(r.rows), "judged": r.judged,
                  "flags": [f"{x.test} {x.scope} {x.subject}" for x in r.flags]}))
"""


def _child(code: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code, *args], check=True, capture_output=True, text=True
    )
    return out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=100_000)
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    logs = _night(args.rounds, args.tables, args.seed, 0.0) / "logs"
    db = HERE / "out" / f"stats-{args.rounds}-{args.tables}-{args.seed}.duckdb"
    db.unlink(missing_ok=True)
    ingest = _stage("ingest", logs, db)
    copy = db.with_suffix(".ran.duckdb")
    shutil.copyfile(db, copy)
    run = _stage("run", "", copy)
    copy.replace(db)
    audit = ingest["secs"] + run["secs"]
    lib, cmd, cmd_cpu = [], [], []
    for _ in range(args.repeat):
        lib.append(json.loads(_child(_STATS, str(db), str(REPO))))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(
            [str(BIN), "stats", "--db", str(db), "--from", "2000-01-01", "--to", "2100-01-01",
             "--format", "jsonl"],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        cmd.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cmd_cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    s_lib = statistics.median(r["secs"] for r in lib)
    s_cmd = statistics.median(cmd)
    print(f"night: {int(run['rounds']):,} rounds, {args.tables} tables, all four profiles")
    print(f"ingest              {ingest['secs']:8.2f} s")
    print(f"run                 {run['secs']:8.2f} s")
    print(f"audit (ingest+run)  {audit:8.2f} s")
    print(f"stats, library      {s_lib:8.2f} s   {s_lib / audit:6.1%} of the audit time")
    print(f"stats, command      {s_cmd:8.2f} s   {s_cmd / audit:6.1%} of the audit time")
    audit_cpu = ingest["cpu"] + run["cpu"]
    c_lib = statistics.median(r["cpu"] for r in lib)
    c_cmd = statistics.median(cmd_cpu)
    print(
        f"cpu seconds: ingest {ingest['cpu']:.1f} + run {run['cpu']:.1f} = {audit_cpu:.1f}; "
        f"stats library {c_lib:.1f} ({c_lib / audit_cpu:.1%}), command {c_cmd:.1f} "
        f"({c_cmd / audit_cpu:.1%})"
    )
    print(f"  {lib[0]['rows']:,} rows, {lib[0]['judged']:,} judged, {len(lib[0]['flags'])} flagged")
    for f in lib[0]["flags"]:
        print(f"  flag: {f}")
    verdict = "met" if s_cmd < 0.10 * audit else "NOT met"
    print(f"target stats < 10% of the audit time: {verdict} (medians of {args.repeat})")


if __name__ == "__main__":
    main()
