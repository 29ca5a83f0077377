"""Tail probabilities the tests need: normal, chi-square, Poisson (no SciPy).

The chi-square and Poisson tails are the regularised incomplete gamma
functions, by their series and continued fraction (as in Numerical Recipes,
ch. 6.2), accurate to ~1e-14, far below any significance level used here.
"""

from __future__ import annotations

import math

__all__ = ["chi2_sf", "normal_sf", "normal_two_sided", "poisson_sf"]

_EPS = 1e-15
_MAX_ITER = 10_000


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def normal_two_sided(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError(f"a chi-square needs at least one degree of freedom, got {df}")
    if x <= 0:
        return 1.0
    return _upper_gamma(df / 2.0, x / 2.0)


def poisson_sf(k: int, mean: float) -> float:
    """P(X >= k) for X Poisson with this mean."""
    if k <= 0:
        return 1.0
    if mean <= 0:
        return 0.0
    # P(X >= k) = P(k, mean), the regularised lower incomplete gamma function
    return 1.0 - _upper_gamma(float(k), mean)


def _upper_gamma(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), the regularised upper incomplete gamma function."""
    if x < a + 1.0:
        return 1.0 - _lower_series(a, x)
    return _upper_fraction(a, x)


def _lower_series(a: float, x: float) -> float:
    term = total = 1.0 / a
    ap = a
    for _ in range(_MAX_ITER):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    # Lentz's method for the continued fraction of Γ(a, x)
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_ITER):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))
