"""Is the engine the tests import built from the engine sources of this tree?

``setup.py`` compiles ``audit/engine/*.py`` with mypyc and writes, next to the
compiled modules, the SHA-256 of each source it compiled (``SOURCES_FILE``).
Python imports a compiled module before its ``.py``, so after an edit of an
engine source, without a rebuild, the tests would run the old code:
:func:`stale_engine` says so, and ``tests/conftest.py`` stops the session.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ENGINE = REPO / "audit" / "engine"
SOURCES_FILE = "mypyc-sources.sha256"  # setup.py writes it
REBUILD = "run `make setup` (or `make engine`, which always rebuilds it)"


def pure_requested() -> bool:
    """``SHOE_AUDIT_PURE=1``: the engine was deliberately built without compiling it."""
    return os.environ.get("SHOE_AUDIT_PURE", "") not in ("", "0")


def loaded_from() -> dict[str, Path]:
    """Each engine module's name and the file an import of it loads."""
    out = {}
    for p in sorted(ENGINE.glob("*.py")):
        spec = importlib.util.find_spec(f"audit.engine.{p.stem}")
        assert spec is not None and spec.origin is not None, p
        out[p.stem] = Path(spec.origin)
    return out


def compiled(origin: Path) -> bool:
    return origin.suffix != ".py"


def stale_engine(engine: Path = ENGINE, origins: Mapping[str, Path] | None = None) -> str | None:
    """Why the compiled engine does not match its sources (one line), or None when it does.

    None too when nothing is compiled: then the tests import the sources themselves
    (``test_engine_is_compiled`` says whether that was asked for). ``origins``: what
    each module of ``engine`` is loaded from (default: what an import would load).
    """
    origins = loaded_from() if origins is None else origins
    built = {stem: o for stem, o in origins.items() if compiled(o)}
    if not built:
        return None
    where = {o.parent for o in built.values()}
    if where != {engine}:
        # Installed elsewhere (not an editable install): not the code of this tree.
        return f"the compiled engine is imported from {', '.join(map(str, where))}: {REBUILD}"
    record = engine / SOURCES_FILE
    if not record.is_file():
        return f"the compiled engine has no {SOURCES_FILE} of its sources: {REBUILD}"
    recorded = dict(line.split()[::-1] for line in record.read_text().splitlines() if line)
    current = {
        f"{stem}.py": hashlib.sha256((engine / f"{stem}.py").read_bytes()).hexdigest()
        for stem in origins
    }
    names = current.keys() | recorded.keys()  # a source added or removed counts too
    changed = sorted(n for n in names if current.get(n) != recorded.get(n))
    if changed:
        return f"audit/engine/{', '.join(changed)} changed since the engine was compiled: {REBUILD}"
    if len(built) != len(origins):
        return f"only part of the engine is compiled: {REBUILD}"
    return None
