"""A ``WHERE`` clause built from optional filters (one place for the pattern every
filtered listing of ``store/`` repeated: a condition and its parameters, added when the
filter is given)."""

from __future__ import annotations

from typing import Any


class Where:
    """Conditions joined by ``AND``, each with its ``?`` parameters, in order."""

    def __init__(self) -> None:
        self.conds: list[str] = ["true"]
        self.params: list[Any] = []

    def add(self, cond: str, *params: Any) -> None:
        """Add ``cond`` (with one ``?`` per parameter in ``params``)."""
        self.conds.append(cond)
        self.params.extend(params)

    def given(self, value: Any, cond: str) -> None:
        """Add ``cond`` with ``value`` as its parameter, unless ``value`` is None."""
        if value is not None:
            self.add(cond, value)

    @property
    def sql(self) -> str:
        return " AND ".join(self.conds)
