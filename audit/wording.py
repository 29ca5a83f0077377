"""Counts in English: ``1 file``, ``2 files``, ``1,234 differences`` (issue 30, point 9).

The one place a sentence that prints a count chooses the word's number; the CLI's
summaries, the integrity checks and the report templates (the ``plural`` filter) use it.
"""

from __future__ import annotations

__all__ = ["counted"]


def counted(n: int, word: str, many: str | None = None) -> str:
    """``n`` with ``word`` in the right number, thousands separated: ``counted(1, "file")``
    is ``1 file``, ``counted(2_000, "difference")`` ``2,000 differences``; ``many`` is the
    plural where ``word + "s"`` is not (``counted(2, "match", "matches")``)."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"
