"""The exception tree of shoe-audit.

::

    AuditError                      root: the CLI's one error boundary catches this
    ├── InputError                  the user's input cannot be used at all
    │   ├── UsageError              an option value the command does not allow (exit 2)
    │   ├── MalformedEventError     a line is not a valid TEL/1 event (file:line, why)
    │   └── NoLogsError             a path does not exist, or holds no *.jsonl / *.jsonl.gz
    ├── ProfileError                a rule profile file is invalid
    │   ├── UnknownProfileError     no profile has that id (lists the known ones)
    │   ├── NoDealerRuleError       the profile's banker plays freely: no dealer theory
    │   └── PayTableError           a side bet's pay-table file is invalid (file: field: why)
    │       └── UnknownPayTableError  no pay table has that id (lists the known ones)
    ├── StoreError                  the DuckDB file cannot be opened or is not ours
    │   └── SourceError             a Parquet export is missing, stale, or not as recorded
    └── NotFoundError               a table/shoe/round asked for does not exist

Malformed input (a line that is not TEL/1) is kept apart from input that is
well formed but breaks a rule: the latter is never an exception, it is a
finding (see :mod:`audit.findings`).
"""

from __future__ import annotations


class AuditError(Exception):
    """Root of every error shoe-audit raises on purpose."""


class InputError(AuditError):
    """The input cannot be used."""


class UsageError(InputError):
    """An option or argument value the command does not allow (cli.md: exit code 2).

    Raise it for what the option parser cannot see (``--from`` without
    ``--to``, an unknown finding code); the CLI prints it as one line.
    """


class MalformedEventError(InputError):
    """A line is not a valid TEL/1 event."""

    def __init__(self, reason: str, *, source: str | None = None) -> None:
        self.reason = reason
        self.source = source
        super().__init__(f"{source}: {reason}" if source else reason)


class NoLogsError(InputError):
    """A path does not exist, is unreadable, or holds no TEL/1 log files."""


class ProfileError(AuditError):
    """A rule profile file is invalid."""


class UnknownProfileError(ProfileError):
    """No rule profile has the id asked for."""

    def __init__(self, profile_id: str, known: list[str]) -> None:
        self.profile_id = profile_id
        self.known = known
        super().__init__(
            f"unknown profile: {profile_id!r} (known: {', '.join(sorted(known)) or 'none'})"
        )


class NoDealerRuleError(ProfileError):
    """The profile has no dealer-draw rule (the home banker plays freely, 002)."""


class PayTableError(ProfileError):
    """A side bet's pay-table file is invalid (games.md §1): one line, file and field."""


class UnknownPayTableError(PayTableError):
    """No pay table has the id asked for."""

    def __init__(self, paytable_id: str, known: list[str], *, side_bet: str | None = None) -> None:
        self.paytable_id = paytable_id
        self.known = known
        named = f"side bet {side_bet!r} names an " if side_bet is not None else ""
        super().__init__(
            f"{named}unknown pay table: {paytable_id!r} "
            f"(known: {', '.join(sorted(known)) or 'none'})"
        )


class StoreError(AuditError):
    """The audit database cannot be used."""


class SourceError(StoreError):
    """A Parquet export (``run --source``) is missing, older than the database, or changed."""


class NotFoundError(AuditError):
    """What was asked for is not in the database."""
