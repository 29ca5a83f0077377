"""Batch auditing: select shoes from the store, replay them, write findings back."""

from audit.batch.runner import RunSummary, replay_stored_shoe, run_audit, shoe_contexts

__all__ = ["RunSummary", "replay_stored_shoe", "run_audit", "shoe_contexts"]
