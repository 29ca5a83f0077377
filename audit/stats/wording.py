"""The one sentence each test row says, in words a compliance officer reads."""

from __future__ import annotations

__all__ = ["p_text", "percent", "subject_words", "verdict"]

_SCOPE_WORDS = {
    "table": "Table",
    "dealer": "Dealer",
    "shoe": "Shoe",
    "player": "Player",
    "day": "Gaming day",
}


def subject_words(scope: str, subject: str) -> str:
    """``Table T07``, ``Dealer D042``, ``Gaming day 2026-11-28``."""
    return f"{_SCOPE_WORDS.get(scope, scope)} {subject}"


def percent(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def p_text(p: float) -> str:
    return "p < 1e-12" if p < 1e-12 else f"p = {p:.2g}"


def verdict(
    p: float | None,
    adjusted: float | None,
    flag: bool,
    tests: int,
    *,
    min_n: int,
    unit: str,
    unjudged: str = "",
) -> str:
    """The closing clause: not judged (and why), within chance, or a reason to look."""
    if p is None or adjusted is None:
        return f"not judged: {unjudged or f'fewer than {min_n:,} {unit}'}"
    if flag:
        return (
            f"chance alone gives a gap this large with {p_text(p)} "
            f"({adjusted:.2g} allowing for the {tests:,} tests run): a reason to look"
        )
    return f"within what chance allows ({p_text(p)})"
