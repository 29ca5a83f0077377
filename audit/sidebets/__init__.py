"""Side bets as data (games.md §1, "Side bets are data").

A side bet is an **evaluator** (code, a closed set: which lines the dealt cards
satisfy, :mod:`~audit.sidebets.evaluators`) and a **pay table** (data: a TOML
file beside the profiles, :mod:`~audit.sidebets.paytables`). The evaluators are
pure functions the engine calls when a bet is decided; their exact odds for a
full shoe are :mod:`audit.stats.side_bets` (``shoe-audit theory --paytable``).
"""

from audit.sidebets.evaluators import (
    EVALUATORS,
    Evaluator,
    dealer_bust_cards_lines,
    pair_lines,
    three_card_lines,
    twenty_lines,
)
from audit.sidebets.paytables import PayTable, PayTableRegistry, load_paytable_file, load_paytables

__all__ = [
    "EVALUATORS",
    "Evaluator",
    "PayTable",
    "PayTableRegistry",
    "dealer_bust_cards_lines",
    "load_paytable_file",
    "load_paytables",
    "pair_lines",
    "three_card_lines",
    "twenty_lines",
]
