"""The reference side of the differential test: ``run``'s batch replay from the engine's sources.

Started once per test session (``python -m tests.differential.pure`` from the
top of the tree, :class:`tests.differential.harness.PureProcess`), it imports
``audit.engine`` from its ``.py`` files though the compiled modules sit beside
them (as ``benchmarks/engine_bench.py`` does), then answers requests on stdin
until it closes: each a batch as ``run`` sends it to a worker (Arrow IPC bytes,
the shoes' metadata as plain values), each answer :func:`audit.batch.runner.audit_batch`'s
result as plain values (:func:`tests.differential.harness.canonical`), or the
traceback of what it raised, and the CPU seconds it has used. Frames are 8-byte
lengths then a pickle.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
import time
import traceback
from typing import IO, Any

_LENGTH = struct.Struct("<Q")


def read_frame(stream: IO[bytes]) -> bytes | None:
    """The next frame's bytes, or None at the end of the stream."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (n,) = _LENGTH.unpack(head)
    data = stream.read(n)
    if len(data) < n:
        raise EOFError(f"a frame of {n} bytes ended after {len(data)}")
    return data


def write_frame(stream: IO[bytes], data: bytes) -> None:
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def engine_modules() -> dict[str, str]:
    """Where each loaded engine module came from (``.py`` here, ``.so`` compiled)."""
    return {
        name: getattr(module, "__file__", None) or "?"
        for name, module in sorted(sys.modules.items())
        if name == "audit.engine" or name.startswith("audit.engine.")
    }


def main() -> None:
    # Answers go to the real stdout only; anything printed goes to stderr.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr
    import audit

    assert "audit.engine" not in sys.modules
    from audit.pure_engine import use_pure_engine

    use_pure_engine()
    from audit.batch.runner import audit_batch
    from audit.profiles import load_registry
    from tests.differential.harness import canonical, job_from_wire

    registry = load_registry()
    write_frame(out, pickle.dumps({"audit": audit.__file__, "engine": engine_modules()}))
    while (frame := read_frame(sys.stdin.buffer)) is not None:
        try:
            reply: tuple[str, Any] = ("ok", canonical(audit_batch(job_from_wire(frame), registry)))
        except BaseException:  # every error is the test's to report, with its traceback
            reply = ("error", traceback.format_exc())
        write_frame(out, pickle.dumps((*reply, time.process_time())))


if __name__ == "__main__":
    main()
