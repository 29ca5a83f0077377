"""``shoe-audit review`` and ``shoe-audit users``: the review trail from the command line."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from audit.cli.app import app
from audit.cli.common import DEFAULT_DB_PATH, DbOption, boundary, no_database, open_db
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
    password_stdin: Annotated[
        bool,
        typer.Option("--password-stdin", help="Read the account's password from standard input."),
    ] = False,
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
        "Reviewer accounts for `serve` (needed on an address other than 127.0.0.1).\n\n"
        "\b\nExamples:\n"
        "  shoe-audit users add ana --role reviewer\n"
        "  shoe-audit users list"
    ),
    no_args_is_help=True,
)
app.add_typer(users_app, name="users")


@users_app.command("add")
@boundary
def users_add_cmd(
    name: Annotated[str, typer.Argument(help="The account name.")],
    role: Annotated[str, typer.Option("--role", help="reviewer or manager.")] = "reviewer",
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from standard input.")
    ] = False,
    db: DbOption = DEFAULT_DB_PATH,
) -> None:
    """Add a reviewer account (the password is asked for, or read with --password-stdin).

    \b
    Examples:
      shoe-audit users add ana --role reviewer
      shoe-audit users add bob --role manager --password-stdin < bob.secret
    """
    from audit.review import ReviewTrail
    from audit.review.accounts import Role, add_account

    if role not in {r.value for r in Role}:
        raise UsageError(f"--role must be reviewer or manager, got {role!r}")
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt("password", hide_input=True, confirmation_prompt=True)
    if not db.exists():
        raise no_database(db)
    account = add_account(ReviewTrail.beside(db), name, role, password)
    say(f"added {account.role} {account.name}")


@users_app.command("list")
@boundary
def users_list_cmd(db: DbOption = DEFAULT_DB_PATH) -> None:
    """List the reviewer accounts.

    \b
    Examples:
      shoe-audit users list
      shoe-audit users list --db audit-nightly.duckdb
    """
    from audit.review import ReviewTrail
    from audit.review.accounts import accounts

    for a in accounts(ReviewTrail.beside(db)):
        say(f"{a.name:<24} {a.role:<9} since {a.created_at}")
