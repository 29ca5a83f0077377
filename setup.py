"""Build: compile the rules engine (``audit/engine/*.py``) with mypyc.

Everything else about the package lives in ``pyproject.toml``. The engine's
``.py`` files stay the readable reference and are installed next to the
compiled modules; Python imports the compiled one (an extension module is
found before a ``.py`` of the same name). mypyc type-checks the engine with the
project's own ``[tool.mypy]`` settings (strict, the pydantic plugin) and builds
C from it, so ``[build-system].requires`` holds mypy and pydantic.

Next to the compiled modules the build writes ``SOURCES_FILE``: the SHA-256 of
each source it compiled. The test suite refuses to run when a source no longer
matches (``tests/engine_build.py``): an edit of an engine ``.py`` is never
tested against stale compiled code.

``SHOE_AUDIT_PURE=1`` at build time skips the compilation (debugging the
pure-Python reference) and removes compiled modules an earlier in-place build
left in the tree, which would otherwise still be imported first.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ENGINE = sorted(Path("audit/engine").glob("*.py"))
SOURCES_FILE = "mypyc-sources.sha256"
PURE = os.environ.get("SHOE_AUDIT_PURE", "") not in ("", "0")


def source_digests() -> str:
    """``<sha256>  <name>.py`` per engine source, the format of ``sha256sum``."""
    return "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n" for p in ENGINE)


class BuildEngine(build_ext):
    """``build_ext`` that records which sources the compiled engine was built from."""

    def run(self) -> None:
        super().run()
        where = Path(self.get_ext_fullpath("audit.engine.round")).parent
        where.mkdir(parents=True, exist_ok=True)
        (where / SOURCES_FILE).write_text(source_digests())

    def copy_extensions_to_source(self) -> None:
        # An editable build copies the modules into the tree: as new files, never by
        # rewriting the old ones, which would crash a process that has them loaded.
        remove_inplace_build()
        super().copy_extensions_to_source()


def remove_inplace_build() -> None:
    """Delete the compiled engine an editable (in-place) build left in the tree."""
    for p in [*Path("audit/engine").glob("*.so"), *Path(".").glob("*__mypyc*.so")]:
        p.unlink()
    Path("audit/engine", SOURCES_FILE).unlink(missing_ok=True)


if PURE:
    remove_inplace_build()
    setup()
else:
    from mypyc.build import mypycify

    setup(
        ext_modules=mypycify([str(p) for p in ENGINE], opt_level="3"),
        cmdclass={"build_ext": BuildEngine},
    )
