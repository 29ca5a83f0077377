"""Multiple testing: a night runs hundreds of tests, so the p-values are adjusted.

``holm`` (the default; Holm 1979, step-down Bonferroni) controls the chance
that a night with nothing wrong raises *any* flag (the family-wise error
rate) at ``alpha``: with the default 0.001, a clean night flags nothing 999
times in 1,000. ``bh`` (Benjamini and Hochberg 1995) controls instead the
expected share of flags that are false (the false discovery rate); it finds
more when much is wrong, at the price of more false alarms. The family is
every test of one ``stats`` run that met its minimum sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

__all__ = ["Correction", "adjust"]


class Correction(StrEnum):
    holm = "holm"
    bh = "bh"


def adjust(p_values: Sequence[float], method: Correction = Correction.holm) -> list[float]:
    """Adjusted p-values, in the order given (a test flags when its adjusted p <= alpha)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    if method is Correction.holm:
        running = 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (m - rank) * p_values[i]))
            adjusted[i] = running
    else:
        running = 1.0
        for rank in range(m - 1, -1, -1):
            i = order[rank]
            running = min(running, m * p_values[i] / (rank + 1))
            adjusted[i] = min(1.0, running)
    return adjusted
