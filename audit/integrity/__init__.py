"""Tamper evidence: checking the stored data against the ledger (issue 14, point 15).

:mod:`audit.store.ledger` writes the ledger; this package reads it back:
:mod:`audit.integrity.check` is the cheap check ``run`` and ``report`` do,
:mod:`audit.integrity.verify` the whole recomputation of ``shoe-audit verify``.
"""

from audit.integrity.check import Difference, Head, Integrity, check_before, check_head, check_shoes

__all__ = ["Difference", "Head", "Integrity", "check_before", "check_head", "check_shoes"]
