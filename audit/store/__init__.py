"""The audit database: one DuckDB file holding events, quarantine and findings.

DuckDB is imported only when a store is opened, so importing this package is
cheap (the CLI's ``--help`` must start instantly).
"""

from audit.store.store import Store, open_store
from audit.store.types import ShoeAuditResult, ShoeInfo, ShoeKey

__all__ = ["ShoeAuditResult", "ShoeInfo", "ShoeKey", "Store", "open_store"]
