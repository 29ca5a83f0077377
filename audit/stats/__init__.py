"""The statistical audit: what no single hand shows, against exact theory.

- :mod:`~audit.stats.dealer`, :mod:`~audit.stats.theory`: the dealer's exact
  final-outcome distribution by up card for a finite shoe (``shoe-audit theory``).
- :mod:`~audit.stats.expected`: the same, exact for each round's own shoe.
- :mod:`~audit.stats.suite`: every test over the stored outcomes, corrected
  together (``shoe-audit stats``); the tests live in :mod:`~audit.stats.dealing`,
  :mod:`~audit.stats.cards`, :mod:`~audit.stats.house`,
  :mod:`~audit.stats.shuffle` and :mod:`~audit.stats.counting`.

Pure: frames and profiles in, rows out; no I/O (the queries are
:mod:`audit.store.stats_frames`). This package's top level imports no polars
(``theory`` starts quickly): the frame-based modules are imported by name
(``from audit.stats.suite import run_stats``).
"""

from audit.stats.correction import Correction, adjust
from audit.stats.dealer import RANKS, DealerRule, dealer_graph, outcome_probabilities
from audit.stats.rows import STAT_KEYS, StatRow, TestSpec
from audit.stats.theory import TheoryTable, natural_probability, theory, theory_table

__all__ = [
    "RANKS",
    "STAT_KEYS",
    "Correction",
    "DealerRule",
    "StatRow",
    "TestSpec",
    "TheoryTable",
    "adjust",
    "dealer_graph",
    "natural_probability",
    "outcome_probabilities",
    "theory",
    "theory_table",
]
