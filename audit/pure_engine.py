"""The engine's pure-Python reference, imported beside its compiled modules.

The build compiles ``audit/engine/*.py`` with mypyc and Python imports the compiled
module first. :func:`use_pure_engine` makes a process import the engine from its
``.py`` sources instead, before anything imports ``audit.engine``: what
``benchmarks/engine_bench.py`` measures against, and what the differential test
(``tests/differential/``) proves the compiled engine agrees with (issue 28).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from typing import Any


class PureEngine(importlib.abc.MetaPathFinder):
    """Imports ``audit.engine`` from its ``.py`` files, though compiled modules sit beside them."""

    def find_spec(
        self, name: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != "audit.engine" and not name.startswith("audit.engine."):
            return None
        engine = Path(__file__).resolve().parent / "engine"
        if name == "audit.engine":
            return importlib.util.spec_from_file_location(
                name, engine / "__init__.py", submodule_search_locations=[str(engine)]
            )
        module = name.rpartition(".")[2]
        return importlib.util.spec_from_file_location(name, engine / f"{module}.py")


def use_pure_engine() -> None:
    """Import the engine from its sources in this process from now on.

    Raises ``RuntimeError`` when it was imported already (compiled, most likely)."""
    if "audit.engine" in sys.modules:
        raise RuntimeError("audit.engine is imported already: call use_pure_engine first")
    sys.meta_path.insert(0, PureEngine())
