"""Hostile files benchmark (issue 14, points 7 and 8): what garbage and blank lines cost.

Times ``ingest`` and ``validate`` (each in a fresh process, median of ``--runs``)
of files of the same number of lines:

* good: realistic TEL/1 (the baseline, from ``ingest_bench``);
* braces: every line ``{}`` (rejected, all for the same reason);
* garbage: every good line broken differently (``"seq":"12"``: each rejected
  with its own reason, so nothing is shared between lines);

and of blank files: 10 MiB of newlines, and 100 MiB of newlines gzipped.
It prints seconds, microseconds per line, peak RSS, and each ratio to the good
file: a file of garbage should be rejected about as fast as a good one is read,
and blank lines should cost nothing.

    .venv/bin/python benchmarks/hostile_bench.py --lines 100000 --runs 3
"""

from __future__ import annotations

import argparse
import gzip
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest_bench import _run, write_synthetic


def _files(work: Path, lines: int) -> dict[str, Path]:
    good = work / "good.jsonl"
    write_synthetic(good, lines)
    text = good.read_text().splitlines()[:lines]
    good.write_text("\n".join(text) + "\n")
    braces = work / "braces.jsonl"
    braces.write_text("{}\n" * lines)
    garbage = work / "garbage.jsonl"
    garbage.write_text("\n".join(re.sub(r'"seq":(\d+)', r'"seq":"\1"', x) for x in text) + "\n")
    blank = work / "blank.jsonl"
    blank.write_bytes(b"\n" * (10 << 20))
    blank_gz = work / "blank.jsonl.gz"
    blank_gz.write_bytes(gzip.compress(b"\n" * (100 << 20), mtime=0))
    return {
        "good": good,
        "braces": braces,
        "garbage": garbage,
        "10 MiB of newlines": blank,
        "100 MiB of newlines, gzip": blank_gz,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--lines", type=int, default=100_000, help="lines in each file")
    ap.add_argument("--runs", type=int, default=3, help="runs of each (the median is reported)")
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        work = Path(tmp)
        files = _files(work, args.lines)
        results: dict[tuple[str, str], list[dict[str, float]]] = {}
        for _ in range(args.runs):  # interleaved, so machine noise hits all alike
            for name, path in files.items():
                for mode in ("ingest", "validate"):
                    results.setdefault((name, mode), []).append(_run(mode, path, work))
        base = {
            mode: statistics.median(r["secs"] for r in results[("good", mode)])
            for mode in ("ingest", "validate")
        }
        head = f"{'file':28} {'mode':9} {'median s':>9} {'us/line':>8} {'x good':>7}"
        print(f"{head} {'peak RSS':>9}")
        for (name, mode), runs in results.items():
            secs = statistics.median(r["secs"] for r in runs)
            n = args.lines if name in ("good", "braces", "garbage") else None
            per = f"{secs / n * 1e6:8.1f}" if n else f"{'-':>8}"
            rss = max(r["rss"] for r in runs) / 2**20
            print(f"{name:28} {mode:9} {secs:9.2f} {per} {secs / base[mode]:7.2f} {rss:7.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
