"""Tail probabilities the tests need: normal, chi-square, Poisson, binomial, hypergeometric.

No SciPy: the chi-square and Poisson tails are the regularised incomplete
gamma functions, the binomial's the regularised incomplete beta function, by
their series and continued fractions (as in Numerical Recipes, ch. 6.2 and
6.4), accurate to ~1e-14; the hypergeometric's is summed term by term in
logarithms. A night runs thousands of tests and corrects for them, so a test
is judged far out in its tail (around 1e-7): there the normal approximation
of a count with a few dozen expected is wrong by orders of magnitude, so
counts are tested by their exact tails.
"""

from __future__ import annotations

import math
from functools import lru_cache

__all__ = [
    "binomial_two_sided",
    "chi2_sf",
    "hypergeometric_two_sided",
    "normal_sf",
    "normal_two_sided",
    "poisson_sf",
]

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


def binomial_sf(k: int, n: int, p: float) -> float:
    """P(X >= k) for X binomial(n, p)."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    return _beta_inc(float(k), float(n - k + 1), p)


def binomial_two_sided(k: int, n: int, p: float) -> float:
    """Twice the smaller tail of ``k`` events in ``n`` trials of chance ``p`` (at most 1).

    With chances that vary from trial to trial (each round its own), the count
    is Poisson-binomial, more concentrated than the binomial of the same mean
    (Hoeffding 1956): this p-value is then conservative.
    """
    upper = binomial_sf(k, n, p)
    # P(X <= k) = P(n - X >= n - k), computed as its own tail: no 1 - (1 - tiny)
    lower = binomial_sf(n - k, n, 1.0 - p)
    return min(1.0, 2.0 * min(upper, lower))


def _beta_inc(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularised incomplete beta function."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (tiny if abs(d) < tiny else d)
    h = d
    for m in range(1, _MAX_ITER):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):  # fmt: skip
            d = 1.0 + aa * d
            d = 1.0 / (tiny if abs(d) < tiny else d)
            c = 1.0 + aa / c
            c = tiny if abs(c) < tiny else c
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h


@lru_cache(maxsize=65_536)
def hypergeometric_two_sided(k: int, total: int, marked: int, drawn: int) -> float:
    """Twice the tail, on its side of the mean, of ``k`` marked cards among ``drawn`` from ``total``
    holding ``marked`` (at most 1). Cached: a night's shoes repeat the same few cases.

    Only the tail away from the mean is summed, outward from ``k``, each term from
    the last by the ratio of consecutive probabilities, until the terms no longer count.
    """
    lo, hi = max(0, drawn - (total - marked)), min(marked, drawn)
    if not lo <= k <= hi:
        return 0.0
    term = math.exp(
        _log_choose(marked, k) + _log_choose(total - marked, drawn - k) - _log_choose(total, drawn)
    )
    up = k >= drawn * marked / total
    tail, y = term, k
    while term > tail * 1e-17:
        if up:
            if y == hi:
                break
            term *= (marked - y) * (drawn - y) / ((y + 1) * (total - marked - drawn + y + 1))
            y += 1
        else:
            if y == lo:
                break
            term *= y * (total - marked - drawn + y) / ((marked - y + 1) * (drawn - y + 1))
            y -= 1
        tail += term
    return min(1.0, 2.0 * tail)


def _log_choose(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
