"""The ingest ledger's cost (issue 14, point 15): ingest of one file, two checkouts, interleaved.

Writes the synthetic file of ``ingest_bench.py`` once, then ingests it with
each checkout's own venv (``<tree>/.venv/bin/python``, run in ``<tree>``), the
order alternating from run to run so machine noise hits both alike, and
prints the medians. The checkout before the ledger is the parent of the commit
that added ``audit/store/ledger.py``:

    sha=$(git log --format=%h -- audit/store/ledger.py | tail -1)
    git worktree add --detach /work/wt-preledger "$sha^" && (cd /work/wt-preledger && make setup)
    .venv/bin/python benchmarks/ledger_cost.py --before /work/wt-preledger --events 1000000
    git worktree remove /work/wt-preledger
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ingest_bench  # the synthetic file and the child that ingests it


def _ingest(tree: Path, src: Path, work: Path) -> dict[str, float]:
    db = work / "ingest.duckdb"
    for p in (db, Path(f"{db}.wal"), Path(f"{db}.ledger")):
        p.unlink(missing_ok=True)
    out = subprocess.run(
        [str(tree / ".venv/bin/python"), "-c", ingest_bench._CHILD, "ingest", str(src), str(db)],
        check=True,
        capture_output=True,
        text=True,
        cwd=tree,
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="the checkout before the ledger")
    ap.add_argument("--after", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    trees = {"with ledger": args.after, "before ledger": args.before}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        src = work / "events.jsonl"
        n = ingest_bench.write_synthetic(src, args.events, seed=7)
        secs: dict[str, list[float]] = {k: [] for k in trees}
        for i in range(args.runs):
            order = list(trees.items()) if i % 2 == 0 else list(reversed(trees.items()))
            for name, tree in order:
                r = _ingest(tree, src, work)
                assert r["rows"] == n, f"{name} stored {r['rows']} of {n} events"
                secs[name].append(r["secs"])
        for name, xs in secs.items():
            runs = ", ".join(f"{x:.2f}" for x in xs)
            print(f"{name:14} {statistics.median(xs):7.2f} s  (runs: {runs}; {trees[name]})")
        after, before = (statistics.median(secs[k]) for k in trees)
        print(f"ledger cost:   {after - before:+7.2f} s  ({(after / before - 1) * 100:+.1f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
