"""Hypothesis feeds validate, ingest and the engine hostile input (issue 14, point 19).

No uncaught exception, ever; every rejection names file:line (ingest and
validate) or an event id (the engine); nothing is lost or invented: each
non-blank line is an event or a rejection, the bulk validator (DuckDB SQL)
rejects exactly the lines :func:`parse_line` rejects, for parse_line's reason,
and what ingest stored verifies intact.

Three layers of input (see :mod:`tests.fuzz.strategies`): arbitrary bytes and
JSON, valid lines mutated one to three times, and valid but adversarial TEL/1
shoes. A validate or an ingest example is a whole file mixing all three (a
DuckDB pass costs the same for 30 lines or 300), shuffled.

The default suite runs :data:`DEFAULT`, 786 examples in all, a smoke test of
every layer (issue 33: 2,800 were a tenth of the default suite's time, for what
the volume runs find); the ``slow`` tests the same properties over about
100,200 (``make test-slow``;
:data:`SLOW` has the counts), and ``SHOE_AUDIT_FUZZ_SCALE=N`` multiplies
those for a longer hunt. Each test records how many times it called the code
under test (``fuzz_examples``), and ``tests/fuzz/conftest.py`` prints the
counts at the end of the run.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.engine import ShoeContext, replay_shoe
from audit.errors import MalformedEventError, NoLogsError
from audit.events.models import UnknownEvent
from audit.events.parse import parse_line, parse_object
from audit.ingest import ingest_paths, validate_paths
from audit.profiles import load_registry
from tests.fuzz.strategies import LINES, adversarial_shoes, mutated_lines

REGISTRY = load_registry()
QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]

Record = Callable[[str, object], None]

SLOW = {
    "parse_line": 55_000,
    "parse_line_mutated": 42_000,
    "validate": 150,
    "ingest": 60,
    "engine": 3_000,
}
"""Examples of each slow test (before ``SHOE_AUDIT_FUZZ_SCALE``): 100,210 in all.

Measured at a fifth of these (``SHOE_AUDIT_FUZZ_SCALE=0.2``, ``-n 2``, the
machine at load 7): 8.8, 7.4, 690, 1,660 and 74 CPU-ms an example, so about
1,200 CPU-seconds in all, ten minutes of wall time on two free cores.
"""

DEFAULT = {"parse_line": 400, "parse_line_mutated": 300, "validate": 4, "ingest": 2, "engine": 80}
"""Examples of each test of the default suite: every property once over each layer of
input, at a thirtieth or less of :data:`SLOW` (``make test`` under 8 minutes, issue 33)."""


def _volume(n: int) -> int:
    """A slow fuzz test's example count times ``SHOE_AUDIT_FUZZ_SCALE`` (default 1)."""
    return max(1, round(n * float(os.environ.get("SHOE_AUDIT_FUZZ_SCALE", "1"))))


def _fuzz(
    check: Callable[..., None],
    strategies: list[st.SearchStrategy[Any]],
    n: int,
    record: Record,
) -> None:
    """``check`` over ``n`` hypothesis examples; records how many calls it got.

    No example database (a passing run writes nothing, and 100,000 examples do
    not pay for its bookkeeping); a failure prints its reproduction blob.
    """
    calls = 0
    cpu = time.process_time()

    def test(args: tuple[Any, ...]) -> None:
        nonlocal calls
        calls += 1
        check(*args)

    settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=QUIET,
        database=None,
        print_blob=True,
    )(given(st.tuples(*strategies))(test))()
    record("fuzz_examples", calls)
    # CPU seconds of the whole process (DuckDB's threads included): on a shared
    # machine the wall time says more about the neighbours than about the test.
    record("fuzz_cpu_seconds", round(time.process_time() - cpu, 1))
    # Each example is a real call: hypothesis stops short only when it has
    # exhausted a strategy, which none of these can be.
    assert calls >= n, f"{calls} calls for {n} examples"


def _bytes(line: str | bytes) -> bytes:
    return line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")


def _file_lines(data: bytes) -> list[bytes]:
    """The lines a reader sees in ``data`` (a leading BOM dropped, no last empty line)."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def _blank(line: bytes) -> bool:
    return not line.strip(b" \t\r")


def _verdict(line: bytes) -> str | None:
    """parse_line's reason for rejecting ``line``, or None when it is an event."""
    try:
        parse_line(line)
    except MalformedEventError as exc:
        return exc.reason
    return None


def _dumps(obj: dict[str, Any]) -> str:
    """JSON with Decimals written as numbers (the wire format's money)."""
    parts = []
    for k, v in obj.items():
        text = str(v) if isinstance(v, Decimal) else json.dumps(v)
        parts.append(f"{json.dumps(k)}:{text}")
    return "{" + ",".join(parts) + "}"


def _hostile_file(lines: list[str | bytes], shoes: list[list[dict[str, Any]]], seed: int) -> bytes:
    """Hostile lines and adversarial shoes in one file, shuffled (a shoe's order with them)."""
    every = [_bytes(x) for x in [*lines, *(_dumps(e) for s in shoes for e in s)]]
    random.Random(seed).shuffle(every)
    return b"\n".join(every) + b"\n"


HOSTILE_LINES = st.lists(LINES | mutated_lines(), max_size=120)
SEEDS = st.integers(0, 2**32 - 1)

# --------------------------------------------------------------------------- one line


def check_parse_line(line: str | bytes) -> None:
    try:
        parse_line(line)
    except MalformedEventError as exc:
        assert exc.reason  # a reason, never an empty message


def test_parse_line_takes_anything(record_property: Record) -> None:
    _fuzz(check_parse_line, [LINES], DEFAULT["parse_line"], record_property)


def test_parse_line_takes_any_mutated_event(record_property: Record) -> None:
    _fuzz(check_parse_line, [mutated_lines()], DEFAULT["parse_line_mutated"], record_property)


@pytest.mark.slow
def test_parse_line_takes_anything_at_volume(record_property: Record) -> None:
    _fuzz(check_parse_line, [LINES], _volume(SLOW["parse_line"]), record_property)


@pytest.mark.slow
def test_parse_line_takes_any_mutated_event_at_volume(record_property: Record) -> None:
    n = _volume(SLOW["parse_line_mutated"])
    _fuzz(check_parse_line, [mutated_lines()], n, record_property)


# --------------------------------------------------------------------------- validate


def check_validate(lines: list[str | bytes], shoes: list[list[dict[str, Any]]], seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hostile.jsonl"
        data = _hostile_file(lines, shoes, seed)
        path.write_bytes(data)
        if data.startswith(b"\x1f\x8b"):
            # gzip's magic, as in check_ingest: a damaged stream that yields nothing is
            # "nothing could be read", one line naming the file (found at volume)
            try:
                validate_paths([path])
            except NoLogsError as exc:
                assert str(path) in str(exc) and "\n" not in str(exc)
            return
        report = validate_paths([path])
        seen = _file_lines(data)
        rejected: dict[int, str] = {}
        for entry in report.invalid:
            where, _, why = entry.partition(": ")
            assert where.startswith(f"{path}:") and why, entry
            n = int(where.rsplit(":", 1)[1])
            assert 1 <= n <= len(seen) and not _blank(seen[n - 1]), entry
            rejected[n] = why
        assert report.lines == len(seen)
        assert report.events + len(report.invalid) == sum(not _blank(x) for x in seen)
        # The bulk SQL rejects exactly what parse_line rejects, for its reason; the
        # unknown types it warns of are the events parse_line calls unknown.
        verdicts = {n: _verdict(x) for n, x in enumerate(seen, start=1) if not _blank(x)}
        assert rejected == {n: why for n, why in verdicts.items() if why is not None}
        unknown = {
            n
            for n, why in verdicts.items()
            if why is None and isinstance(parse_line(seen[n - 1]), UnknownEvent)
        }
        warned = {int(w.split(": ", 1)[0].rsplit(":", 1)[1]) for w in report.warnings}
        assert warned == unknown


def _fuzz_validate(n: int, record: Record) -> None:
    shoes = st.lists(adversarial_shoes(), max_size=2)
    _fuzz(check_validate, [HOSTILE_LINES, shoes, SEEDS], n, record)


def test_validate_takes_any_file(record_property: Record) -> None:
    _fuzz_validate(
        DEFAULT["validate"], record_property
    )  # each a DuckDB validate of up to ~4,000 lines


@pytest.mark.slow
def test_validate_takes_any_file_at_volume(record_property: Record) -> None:
    _fuzz_validate(_volume(SLOW["validate"]), record_property)


# --------------------------------------------------------------------------- ingest, run, verify


def check_ingest(lines: list[str | bytes], shoes: list[list[dict[str, Any]]], seed: int) -> None:
    from audit.batch import run_audit
    from audit.integrity.verify import verify
    from audit.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hostile.jsonl"
        data = _hostile_file(lines, shoes, seed)
        path.write_bytes(data)
        seen = _file_lines(data)
        with open_store(Path(tmp) / "audit.duckdb") as store:
            if data.startswith(b"\x1f\x8b"):
                # gzip's magic: read as gzip whatever the name (the reader), and a damaged
                # stream that yields nothing is cli.md's "nothing could be read", one line
                # naming the file (found by this test at volume)
                try:
                    ingest_paths(store, [path])
                except NoLogsError as exc:
                    assert str(path) in str(exc) and "\n" not in str(exc)
                return
            summary = ingest_paths(store, [path])
            (fs,) = summary.files
            assert fs.events + fs.rejected == sum(not _blank(x) for x in seen)
            malformed = set()
            for line_no, code, reason in store.con.execute(
                "SELECT line_no, code, reason FROM quarantine"
            ).fetchall():
                assert 1 <= line_no <= len(seen) and reason
                if code == "LOG_MALFORMED":
                    malformed.add(line_no)
            # Malformed are exactly the lines parse_line rejects (the others are
            # events, or id conflicts of events).
            assert malformed == {
                n for n, x in enumerate(seen, start=1) if not _blank(x) and _verdict(x)
            }
            for f in store.all_findings():
                assert f.source is None or f.source.startswith(f"{path}:")
            run_audit(store, REGISTRY, workers=1)
            result = verify(store, [path])
            assert result.intact, [str(d) for d in result.differences]


def _fuzz_ingest(n: int, record: Record) -> None:
    shoes = st.lists(adversarial_shoes(), max_size=3)
    _fuzz(check_ingest, [HOSTILE_LINES, shoes, SEEDS], n, record)


def test_ingest_run_verify_take_any_file(record_property: Record) -> None:
    _fuzz_ingest(DEFAULT["ingest"], record_property)  # each an ingest, a run and a verify


@pytest.mark.slow
def test_ingest_run_verify_take_any_file_at_volume(record_property: Record) -> None:
    _fuzz_ingest(_volume(SLOW["ingest"]), record_property)


# --------------------------------------------------------------------------- the engine


def check_engine(events: list[dict[str, Any]], first_shoe: bool, banker: str | None) -> None:
    parsed = [parse_object(e) for e in events]  # every one is valid TEL/1
    ids = {e["id"] for e in events}
    profile_id = next((e["profile"] for e in events if e["type"] == "shoe_open"), None)
    profile = REGISTRY.get(profile_id) if profile_id in REGISTRY else None
    context = ShoeContext(first_shoe_of_gaming_day=first_shoe, banker=banker)
    replay = replay_shoe(parsed, profile, context)
    replay.to_dict()
    for f in replay.findings:
        f.to_dict()
        assert set(f.events) <= ids, f  # a finding cites only events it was given
        assert f.message


def _fuzz_engine(n: int, record: Record) -> None:
    strategies = [adversarial_shoes(), st.booleans(), st.sampled_from([None, "D1"])]
    _fuzz(check_engine, strategies, n, record)


def test_the_engine_takes_any_valid_shoe(record_property: Record) -> None:
    _fuzz_engine(DEFAULT["engine"], record_property)


@pytest.mark.slow
def test_the_engine_takes_any_valid_shoe_at_volume(record_property: Record) -> None:
    _fuzz_engine(_volume(SLOW["engine"]), record_property)


def test_the_default_suite_fuzzes_a_sample_and_the_slow_one_the_volume() -> None:
    """Issue 33: the default suite's share stays small (it runs on every ``make test``),
    and every property keeps its volume run in ``-m slow`` (at least 30 times as many)."""
    assert set(DEFAULT) == set(SLOW)
    assert sum(DEFAULT.values()) <= 800
    assert all(SLOW[k] >= 30 * DEFAULT[k] for k in DEFAULT)
