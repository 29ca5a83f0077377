"""Accounts for tests: the first account of a review file is a manager, and every later one
needs a manager's password (audit/review/accounts.py)."""

from __future__ import annotations

from audit.review import ReviewTrail
from audit.review.accounts import Account, accounts, add_account

BOSS = "boss"
BOSS_PASSWORD = "the manager's own password"
MANAGER = (BOSS, BOSS_PASSWORD)


def add_accounts(
    trail: ReviewTrail, *names: str, password: str, role: str = "reviewer"
) -> list[Account]:
    """Add ``names`` with ``password`` and ``role``, authorised by the manager ``boss`` (made
    first when the review file has no account yet)."""
    if not accounts(trail):
        add_account(trail, BOSS, "manager", BOSS_PASSWORD)
    return [add_account(trail, n, role, password, manager=MANAGER) for n in names]
