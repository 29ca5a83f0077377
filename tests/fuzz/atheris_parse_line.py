"""Coverage-guided fuzzing of one TEL/1 line with atheris (libFuzzer), issue 14 point 19.

hypothesis (``tests/fuzz/test_fuzz.py``) draws from strategies; atheris
mutates bytes towards new branches of the parser and the models, starting from
the sample log's valid lines. The property is the same: :func:`parse_line`
either returns an event or raises :class:`MalformedEventError` with a reason;
any other exception is a crash: libFuzzer writes the input to ``crash-*`` and stops.

    .venv/bin/python tests/fuzz/atheris_parse_line.py -runs=200000
    .venv/bin/python tests/fuzz/atheris_parse_line.py -max_total_time=600 corpus_dir/

(atheris comes with the ``dev`` extra on Linux x86-64, where it has wheels;
``test_atheris_finds_nothing`` in test_atheris.py runs it as a slow test.)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from audit.errors import MalformedEventError
    from audit.events import models, parse  # noqa: F401 - instrumented for coverage
    from audit.events.parse import parse_line

SAMPLE = Path(__file__).resolve().parents[2] / "sample_logs" / "2026-11-28" / "T01.jsonl"


def test_one_input(data: bytes) -> None:
    try:
        parse_line(data)
    except MalformedEventError as exc:
        if not exc.reason:
            raise AssertionError(f"empty reason for {data!r}") from None


def _seed_corpus() -> str:
    """A folder of the sample log's first lines of each type (libFuzzer's seeds)."""
    folder = Path(tempfile.mkdtemp(prefix="atheris-seeds-"))
    seen: set[bytes] = set()
    for line in SAMPLE.read_bytes().splitlines():
        kind = line.split(b'"type":"', 1)[-1].split(b'"', 1)[0]
        if kind not in seen:
            seen.add(kind)
            (folder / kind.decode()).write_bytes(line)
    return str(folder)


def main(argv: list[str]) -> None:
    args = [argv[0], *argv[1:]]
    if not any(not a.startswith("-") for a in argv[1:]):
        args.append(_seed_corpus())  # a corpus folder given on the command line wins
    atheris.Setup(args, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
