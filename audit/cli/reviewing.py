"""``shoe-audit review`` and ``shoe-audit users``: the review trail from the command line."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from audit.cli.app import app
from audit.cli.common import (
    DEFAULT_DB_PATH,
    DbOption,
    PasswordStdinOption,
    boundary,
    no_database,
    open_db,
)
from audit.cli.framework import AuditTyper
from audit.cli.output import say
from audit.errors import UsageError


@app.command("review")
@boundary
def review_cmd(
    finding_id: Annotated[
        str,
        typer.Argument(
            metavar="FINDING-ID",
            help="The finding's id (`findings` prints it), or its first 6 characters or more.",
        ),
    ],
    confirm: Annotated[bool, typer.Option("--confirm", help="The breach happened.")] = False,
    dismiss: Annotated[
        bool, typer.Option("--dismiss", help="Not a breach (the log was wrong, ...).")
    ] = False,
    needs_video: Annotated[
        bool, typer.Option("--needs-video", help="Cannot tell without the video.")
    ] = False,
    # Required, but checked in the body so that a missing verdict is named first; the
    # help says so ("[required]") and shows no empty default.
    note: Annotated[
        str,
        typer.Option(
            "--note",
            metavar="TEXT",
            show_default=False,
            help="Why (kept with the decision).  [required]",
        ),
    ] = "",
    by: Annotated[
        str,
        typer.Option(
            "--by",
            metavar="ACCOUNT",
            show_default=False,
            help="Your account (`users add`); its password is asked for.  [required]",
        ),
    ] = "",
    password_stdin: PasswordStdinOption = False,
    db: DbOption = DEFAULT_DB_PATH,
) -> None:
    """Record a review decision in the append-only review trail.

    --by names an account (`shoe-audit users add`); its password is asked for on
    the terminal, or read from standard input with --password-stdin. The
    operating-system user is recorded beside it. Dismissing a critical finding
    takes two different accounts before it leaves the report's totals. A unique
    prefix of the id (6 characters or more) is enough. Exit 1 when there is no
    such finding, the prefix is ambiguous, or the account or its password is wrong.

    \b
    Examples:
      shoe-audit review 3f2a9c0d1e4b5a6f --confirm --note "video: paid 15" --by ana
      shoe-audit review 3f2a9c --dismiss --note "log error" --by bob
      shoe-audit review 3f2a9c --needs-video --note "video" --by ana --password-stdin < pw
    """
    from audit.review import ReviewTrail, Verdict, os_user
    from audit.review.accounts import authenticate
    from audit.review.service import find_finding, review_finding

    chosen = [
        v
        for flag, v in (
            (confirm, Verdict.CONFIRM),
            (dismiss, Verdict.DISMISS),
            (needs_video, Verdict.NEEDS_VIDEO),
        )
        if flag
    ]
    if len(chosen) != 1:
        raise UsageError("give exactly one of --confirm, --dismiss, --needs-video")
    if not note.strip():
        raise UsageError("--note TEXT is required: say why")
    if not by.strip():
        raise UsageError("--by ACCOUNT is required: who decided")
    with open_db(db, read_only=True) as store:
        finding = find_finding(store, finding_id)  # before the password: a typo costs less
    trail = ReviewTrail.beside(db)
    account = authenticate(trail, by.strip(), _password(by.strip(), from_stdin=password_stdin))
    decision, review = review_finding(
        trail,
        finding,
        chosen[0],
        note=note,
        by=account.name,
        via="cli",
        user=os_user(),
        account=account.name,
    )
    say(
        f"recorded #{decision.seq}: {decision.verdict} {finding.id} ({finding.code}) "
        f"by {decision.by} (os user {decision.os_user or '?'}); now {review.label}"
    )


def _password(account: str, *, from_stdin: bool) -> str:
    """The account's password: the first line of standard input, or asked for, unechoed."""
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return str(typer.prompt(f"password for {account}", hide_input=True))


users_app = AuditTyper(
    help=(
        "Reviewer and manager accounts, on the record. The first account of a review file "
        "must be a manager; after it, every account change needs a manager's name and "
        "password (--manager).\n\n"
        "\b\nExamples:\n"
        "  shoe-audit users add boss --role manager\n"
        "  shoe-audit users add ana --role reviewer --manager boss\n"
        "  shoe-audit users disable ana --manager boss\n"
        "  shoe-audit users list"
    ),
    no_args_is_help=True,
)
app.add_typer(users_app, name="users")

ManagerOption = Annotated[
    str,
    typer.Option(
        "--manager",
        metavar="NAME",
        help="The manager who authorises the change; their password is asked for (or is the "
        "first line of standard input with --password-stdin).",
    ),
]


def _manager(name: str, *, from_stdin: bool) -> tuple[str, str] | None:
    """The manager's name and password (asked for, or the first line of standard input)."""
    if not name.strip():
        return None
    return name.strip(), _password(f"manager {name.strip()}", from_stdin=from_stdin)


def _new_password(from_stdin: bool) -> str:
    """A new password: the next line of standard input, or asked for twice, unechoed."""
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return str(typer.prompt("new password", hide_input=True, confirmation_prompt=True))


@users_app.command("add")
@boundary
def users_add_cmd(
    name: Annotated[str, typer.Argument(help="The account name.")],
    role: Annotated[str, typer.Option("--role", help="reviewer or manager.")] = "reviewer",
    manager: ManagerOption = "",
    password_stdin: Annotated[
        bool,
        typer.Option(
            "--password-stdin",
            help="Read the passwords from standard input: the manager's on the first line "
            "(with --manager), the new account's on the next.",
        ),
    ] = False,
    db: DbOption = DEFAULT_DB_PATH,
) -> None:
    """Add an account, on the record (the review trail's ledger file).

    The first account of a review file must be a manager (--role manager): it
    needs no one's authorisation, and authorises every later change. After it,
    --manager names an active manager, whose password is asked for; a change
    without one, or with a wrong password, is refused (exit 1). A review file
    whose accounts predate managers takes any existing account's password to
    add its first manager. The new account's password is asked for twice, or
    read from standard input with --password-stdin (the manager's password
    first, then the new one, one a line).

    \b
    Examples:
      shoe-audit users add boss --role manager
      shoe-audit users add ana --role reviewer --manager boss
      shoe-audit users add ana --manager boss --password-stdin < boss-then-ana.txt
    """
    from audit.review import ReviewTrail
    from audit.review.accounts import Role, add_account

    if role not in {r.value for r in Role}:
        raise UsageError(f"--role must be reviewer or manager, got {role!r}")
    if not db.exists():
        raise no_database(db)
    by = _manager(manager, from_stdin=password_stdin)
    password = _new_password(password_stdin)
    account = add_account(ReviewTrail.beside(db), name, role, password, manager=by)
    say(f"added {account.role} {account.name}" + (f" (authorised by {by[0]})" if by else ""))


@users_app.command("disable")
@boundary
def users_disable_cmd(
    name: Annotated[str, typer.Argument(help="The account to disable.")],
    manager: ManagerOption = "",
    password_stdin: Annotated[
        bool,
        typer.Option("--password-stdin", help="Read the manager's password from standard input."),
    ] = False,
    db: DbOption = DEFAULT_DB_PATH,
) -> None:
    """Disable an account (a reviewer who left), on the record; a manager authorises it.

    A disabled account can no longer sign in or review; a decision it takes
    after this counts for nothing, its earlier ones stand. Accounts are never
    deleted. The last active manager cannot be disabled.

    \b
    Examples:
      shoe-audit users disable ana --manager boss
      shoe-audit users disable ana --manager boss --password-stdin < boss.secret
    """
    from audit.review import ReviewTrail
    from audit.review.accounts import disable_account

    if not db.exists():
        raise no_database(db)
    by = _manager(manager, from_stdin=password_stdin)
    account = disable_account(ReviewTrail.beside(db), name, manager=by)
    say(f"disabled {account.role} {account.name}" + (f" (authorised by {by[0]})" if by else ""))


@users_app.command("passwd")
@boundary
def users_passwd_cmd(
    name: Annotated[str, typer.Argument(help="The account to give a new password.")],
    manager: ManagerOption = "",
    password_stdin: Annotated[
        bool,
        typer.Option(
            "--password-stdin",
            help="Read the passwords from standard input: the manager's, then the new one.",
        ),
    ] = False,
    db: DbOption = DEFAULT_DB_PATH,
) -> None:
    """Give an account a new password, on the record; a manager authorises it.

    \b
    Examples:
      shoe-audit users passwd ana --manager boss
    """
    from audit.review import ReviewTrail
    from audit.review.accounts import set_password

    if not db.exists():
        raise no_database(db)
    by = _manager(manager, from_stdin=password_stdin)
    password = _new_password(password_stdin)
    account = set_password(ReviewTrail.beside(db), name, password, manager=by)
    say(f"new password for {account.name}" + (f" (authorised by {by[0]})" if by else ""))


@users_app.command("list")
@boundary
def users_list_cmd(db: DbOption = DEFAULT_DB_PATH) -> None:
    """List the accounts (disabled ones marked).

    \b
    Examples:
      shoe-audit users list
      shoe-audit users list --db audit-nightly.duckdb
    """
    from audit.review import ReviewTrail
    from audit.review.accounts import accounts

    for a in accounts(ReviewTrail.beside(db)):
        off = f"  disabled {a.disabled_at}" if a.disabled_at else ""
        say(f"{a.name:<24} {a.role:<9} since {a.created_at}{off}")
