"""Hypothesis feeds validate, ingest and the engine hostile input (issue 14, point 19).

No uncaught exception, ever; every rejection names file:line (ingest and
validate) or an event id (the engine); nothing is lost or invented: each
non-blank line is an event or a rejection, and what ingest stored verifies
intact. The default suite runs about 1,100 examples (kept to well under a
minute on a quiet 2-core machine: a validate or an ingest example starts DuckDB); the ``slow``
tests the same properties over about 24,300 (``make test-slow``, about ten core-minutes, which
CI's time allows), and ``SHOE_AUDIT_FUZZ_SCALE=N`` multiplies those for a longer hunt.
"""

from __future__ import annotations

import json
import os
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.engine import ShoeContext, replay_shoe
from audit.errors import MalformedEventError
from audit.events.parse import parse_line, parse_object
from audit.ingest import ingest_paths, validate_paths
from audit.profiles import load_registry
from tests.fuzz.strategies import LINES, adversarial_shoes

REGISTRY = load_registry()
QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]


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


# --------------------------------------------------------------------------- one line


def check_parse_line(line: str | bytes) -> None:
    try:
        parse_line(line)
    except MalformedEventError as exc:
        assert exc.reason  # a reason, never an empty message


def _volume(n: int) -> int:
    """The example count of a slow fuzz test, times ``SHOE_AUDIT_FUZZ_SCALE`` (default 1).

    The default counts keep CI's slow run in its time (about 10 core-minutes for
    the four); a deeper hunt sets, say, ``SHOE_AUDIT_FUZZ_SCALE=20`` (hours).
    """
    return max(1, round(n * float(os.environ.get("SHOE_AUDIT_FUZZ_SCALE", "1"))))


def _fuzz_parse_line(n: int) -> None:
    settings(max_examples=n, deadline=None, suppress_health_check=QUIET)(
        given(LINES)(check_parse_line)
    )()


def test_parse_line_takes_anything() -> None:
    _fuzz_parse_line(800)


@pytest.mark.slow
def test_parse_line_takes_anything_at_volume() -> None:
    _fuzz_parse_line(_volume(20_000))


# --------------------------------------------------------------------------- validate


def check_validate(lines: list[str | bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hostile.jsonl"
        data = b"\n".join(_bytes(x) for x in lines) + b"\n"
        path.write_bytes(data)
        report = validate_paths([path])
        seen = _file_lines(data)
        for entry in report.invalid:
            where, _, why = entry.partition(": ")
            assert where.startswith(f"{path}:") and why, entry
            n = int(where.rsplit(":", 1)[1])
            assert 1 <= n <= len(seen) and not _blank(seen[n - 1]), entry
        assert report.lines == len(seen)
        assert report.events + len(report.invalid) == sum(not _blank(x) for x in seen)


def _fuzz_validate(n: int) -> None:
    settings(max_examples=n, deadline=None, suppress_health_check=QUIET)(
        given(st.lists(LINES, max_size=30))(check_validate)
    )()


def test_validate_takes_any_file() -> None:
    _fuzz_validate(12)  # each a DuckDB validate of a file of up to 30 lines


@pytest.mark.slow
def test_validate_takes_any_file_at_volume() -> None:
    _fuzz_validate(_volume(250))  # x up to 30 lines each


# --------------------------------------------------------------------------- ingest, run, verify


def _dumps(obj: dict[str, Any]) -> str:
    """JSON with Decimals written as numbers (the wire format's money)."""
    parts = []
    for k, v in obj.items():
        text = str(v) if isinstance(v, Decimal) else json.dumps(v)
        parts.append(f"{json.dumps(k)}:{text}")
    return "{" + ",".join(parts) + "}"


def check_ingest(lines: list[str | bytes], shoes: list[list[dict[str, Any]]]) -> None:
    from audit.batch import run_audit
    from audit.integrity.verify import verify
    from audit.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hostile.jsonl"
        every = [_bytes(x) for x in [*lines, *(_dumps(e) for s in shoes for e in s)]]
        data = b"\n".join(every) + b"\n"
        path.write_bytes(data)
        seen = _file_lines(data)
        with open_store(Path(tmp) / "audit.duckdb") as store:
            summary = ingest_paths(store, [path])
            (fs,) = summary.files
            assert fs.events + fs.rejected == sum(not _blank(x) for x in seen)
            for line_no, reason in store.con.execute(
                "SELECT line_no, reason FROM quarantine"
            ).fetchall():
                assert 1 <= line_no <= len(seen) and reason
            for f in store.all_findings():
                assert f.source is None or f.source.startswith(f"{path}:")
            run_audit(store, REGISTRY, workers=1)
            result = verify(store, [path])
            assert result.intact, [str(d) for d in result.differences]


def _fuzz_ingest(n: int) -> None:
    settings(max_examples=n, deadline=None, suppress_health_check=QUIET)(
        given(st.lists(LINES, max_size=15), st.lists(adversarial_shoes(), max_size=2))(check_ingest)
    )()


def test_ingest_run_verify_take_any_file() -> None:
    _fuzz_ingest(5)  # each an ingest, a run and a verify


@pytest.mark.slow
def test_ingest_run_verify_take_any_file_at_volume() -> None:
    _fuzz_ingest(_volume(80))


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


def _fuzz_engine(n: int) -> None:
    settings(max_examples=n, deadline=None, suppress_health_check=QUIET)(
        given(adversarial_shoes(), st.booleans(), st.sampled_from([None, "D1"]))(check_engine)
    )()


def test_the_engine_takes_any_valid_shoe() -> None:
    _fuzz_engine(300)


@pytest.mark.slow
def test_the_engine_takes_any_valid_shoe_at_volume() -> None:
    _fuzz_engine(_volume(4_000))
