"""shoe-audit: blackjack table audit.

Ingest TEL/1 table event logs into DuckDB, replay every round through a pure
reference rules engine under its rule profile, and report the findings.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
