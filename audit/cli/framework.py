"""The Typer classes behind ``shoe-audit``: plain help, one-line usage errors, global flags.

cli.md: "2 is a usage error (an unknown option, or an option value that is not
allowed, whichever part of the program rejects it), with a one-line message".
Typer prints its own usage errors as a usage line, a hint and a boxed panel;
:class:`AuditGroup` takes them over so that every usage error is one line,
``Error: ...``, exit 2, whether Typer or the project rejected the value.

Help is plain text (no panels): options are shown as ``--db FILE``, flags as
flags, and never a Python type (:class:`AuditCommand`). The global flags
``--debug`` and ``--quiet`` are accepted before or after the command name
(:func:`lift_global_flags`). New commands get all of this by being registered on
the one :data:`audit.cli.app.app` with ``@app.command(...)``.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import typer
from typer.core import TyperCommand, TyperGroup

from audit.cli.common import State, fail

F = TypeVar("F", bound=Callable[..., Any])

GLOBAL_FLAGS: dict[str, str] = {"--debug": "debug", "--quiet": "quiet", "-q": "quiet"}
"""Flags that apply to the whole invocation, wherever they stand (before ``--``)."""

GLOBAL_HELP: list[tuple[str, str]] = [
    ("-q, --quiet", "Print nothing but errors and the output asked for."),
    ("--debug", "Show the traceback of an error instead of one line."),
    ("-h, --help", "Show this help and exit."),
]

EXIT_CODES: list[tuple[str, str]] = [
    ("0", "done (for ingest: even with rejected lines)"),
    ("1", "a runtime failure: no database, nothing readable, no such round, ..."),
    ("2", "a usage error: an unknown option or a value that is not allowed"),
    ("3", "nightly --fail-on: such findings exist; stats --fail-on-flag: a test flags"),
    ("4", "verify: a difference from what was ingested"),
    ("5", "ingest/nightly: ingested, but some input files could not be read"),
    ("6", "run/nightly: some shoes could not be replayed (each named on stderr)"),
    ("130", "interrupted (Ctrl-C); the database is as of the last finished transaction"),
]
"""cli.md's exit codes, as the top-level ``--help`` and the README list them."""


def lift_global_flags(args: Sequence[str]) -> list[str]:
    """Set :class:`State` from the global flags in ``args`` and return the rest.

    Typer (click) accepts a group's options only before the command name; people
    type ``shoe-audit run --debug`` as often as ``shoe-audit --debug run``.
    Everything after a ``--`` is left alone.
    """
    rest: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            rest.extend(args[i:])
            break
        if arg in GLOBAL_FLAGS:
            setattr(State, GLOBAL_FLAGS[arg], True)
        else:
            rest.append(arg)
    return rest


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def usage_message(exc: typer.TyperException) -> str:
    """A Typer usage error as one line, with the command whose help explains it."""
    # Typer's coercion prefixes messages with the validator's wording.
    message = _one_line(exc.format_message()).replace("Value error, ", "")
    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        message += f" (see '{ctx.command_path} --help')"
    return message


COMMAND_ORDER: tuple[str, ...] = (
    "ingest",
    "run",
    "findings",
    "rounds",
    "hand",
    "report",
    "nightly",
    "review",
    "status",
    "validate",
    "verify",
    "serve",
    "users",
    "stats",
    "theory",
    "profiles",
    "simulate",
    "export",
    "schema",
    "ledger",
)
"""The order ``--help`` lists commands in: as a user meets them, from reading the logs
in to disputing a hand and signing off its review, then the tools around them. A
command not named here follows, in the order it was registered."""


class AuditGroup(TyperGroup):
    """The top-level command: resets :class:`State`, lifts global flags, owns the exit code."""

    def list_commands(self, ctx: Any) -> list[str]:
        """The commands in :data:`COMMAND_ORDER` (then any other, as registered)."""
        names = list(self.commands)
        rank = {name: i for i, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda n: (rank.get(n, len(rank)), names.index(n)))

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        State.reset()
        argv = lift_global_flags(sys.argv[1:] if args is None else list(args))
        try:
            rv = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else 0
            sys.stdout.flush()  # here, not at exit: a reader gone away is seen by the boundary
            if code == 130 and not State.reported:  # Typer's own Ctrl-C, outside a command
                from audit.cli import INTERRUPTED

                fail(INTERRUPTED)
        except typer.TyperException as exc:  # click's ClickException and UsageError
            code = getattr(exc, "exit_code", 1)
            if type(exc).__name__ == "NoArgsIsHelpError":
                typer.echo(exc.format_message(), err=True)
            else:
                fail(usage_message(exc) if code == 2 else _one_line(exc.format_message()))
        except typer.Abort:
            fail("aborted")
            code = 1
        except SystemExit as exc:
            # click (help text) and Rich end with exit 1 on a broken stdout pipe
            code = _pipe_closed(exc)
        except BaseException as exc:  # the one boundary of the program
            code = _unexpected(exc)
        if standalone_mode:
            sys.exit(code)
        return code


def _pipe_closed(exc: SystemExit) -> int:
    """The exit code of a ``SystemExit`` raised outside a command: 0 when it is click's or
    Rich's answer to stdout's reader going away (``shoe-audit --help | head -1``)."""
    from audit.cli.common import silence_stdout, stdout_gone

    if exc.code == 1 and stdout_gone():
        silence_stdout()
        return 0
    raise exc


def _unexpected(exc: BaseException) -> int:
    """An exception no command turned into an exit code (see :func:`common.boundary`)."""
    from audit.cli.common import explain, reader_gone, silence_stdout

    if isinstance(exc, SystemExit):
        raise exc
    if reader_gone(exc):  # stdout's reader went away (`--help | head -1`): not a failure
        silence_stdout()
        return 0
    if State.debug:
        raise exc
    code, message = explain(exc)
    fail(message)
    return code


class AuditCommand(TyperCommand):
    """A command whose help reads like help: ``--db FILE``, flags as flags, no Python types.

    It also refuses a single-valued option given twice (cli.md: "a repeated single-valued
    option is a usage error"): click keeps the last value silently, so ``findings --date A
    --date B`` would list day B as if A had never been typed.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:
            repeated = repeated_option(self, ctx, args)
            if repeated is not None:
                from typer._click.exceptions import BadOptionUsage

                message = f"{repeated} was given more than once; it takes one value"
                raise BadOptionUsage(repeated, message, ctx)
        rest: list[str] = super().parse_args(ctx, args)
        return rest

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = argument_metavar(param)
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        args, opts = [], []
        for param in self.get_params(ctx):
            if getattr(param, "hidden", False) or param.name == "help":
                continue
            if param.param_type_name == "argument":
                args.append((argument_metavar(param), getattr(param, "help", None) or ""))
            else:
                opts.append(option_record(param))
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        if opts:
            with formatter.section("Options"):
                formatter.write_dl(opts)
        with formatter.section("Global options"):
            formatter.write_dl(GLOBAL_HELP)


def repeated_option(command: Any, ctx: Any, args: Sequence[str]) -> str | None:
    """The name of the first single-valued option that ``args`` give twice, or None.

    Flags (``--json --json`` says one thing twice) and repeatable options (``--code``,
    marked ``[repeatable]`` in the help) may repeat. Arguments click cannot parse are
    left for click's own parse to report.
    """
    try:
        _, _, order = command.make_parser(ctx).parse_args(args=list(args))
    except typer.TyperException:  # click's own parse, next, says what is wrong
        return None
    seen: set[str] = set()
    for param in order:
        if param.param_type_name != "option" or param.multiple or param.count or param.is_flag:
            continue
        if param.name in seen:
            return str(max(param.opts, key=len))
        seen.add(param.name or "")
    return None


def argument_metavar(param: Any) -> str:
    """``PATH...`` for an argument (its declared metavar, else its name in capitals)."""
    name = str(param.metavar or param.name.upper())
    if param.nargs != 1 and not name.endswith("..."):
        name += "..."
    return name


OPTION_METAVARS: dict[str, str] = {
    "--date": "YYYY-MM-DD",
    "--from": "YYYY-MM-DD",
    "--to": "YYYY-MM-DD",
    "--host": "HOST",
    "--port": "PORT",
    "--templates": "DIR",
}
"""What the value of these options looks like, whichever command declares them."""

TYPE_METAVARS: dict[type, str] = {int: "N", float: "NUMBER", Path: "PATH"}
"""Otherwise by the value's declared type; any other value is ``TEXT``."""


def option_metavar(param: Any) -> str:
    """What an option's value looks like: its metavar, its choices ``table|jsonl|csv``,
    the shape its name implies (``--date YYYY-MM-DD``, ``--port PORT``), or its type's
    (``N``, ``NUMBER``, ``PATH``, ``TEXT``); never click's ``VALUE``."""
    if param.metavar:
        return str(param.metavar)
    choices = getattr(getattr(param, "type_descriptor", None), "choices", None)
    if choices:
        return "|".join(str(getattr(c, "value", c)) for c in choices)
    for opt in param.opts:
        if opt in OPTION_METAVARS:
            return OPTION_METAVARS[opt]
    kind = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    kind = (typing.get_args(kind) or (kind,))[0]  # list[int] (repeatable): int
    return TYPE_METAVARS.get(kind, "TEXT") if isinstance(kind, type) else "TEXT"


def option_record(param: Any) -> tuple[str, str]:
    """One line of the Options section: ``--db FILE`` and its help, default, variable."""
    names = ", ".join(sorted(param.opts, key=len))
    flag = bool(getattr(param, "is_flag", False))
    if not flag:
        names += " " + option_metavar(param)
    extra = []
    if param.required:
        extra.append("required")
    if getattr(param, "multiple", False):
        extra.append("repeatable")
    default = param.default
    if not flag and param.show_default and default not in (None, (), []):
        shown = getattr(default, "value", default)
        extra.append(f"default: {shown}")
    if isinstance(param.envvar, str):
        extra.append(f"or ${param.envvar}")
    text = getattr(param, "help", None) or ""
    if extra:
        text += f"  [{'; '.join(extra)}]"
    return names, text


class AuditTyper(typer.Typer):
    """A Typer whose commands are :class:`AuditCommand` unless told otherwise."""

    def command(
        self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any
    ) -> Callable[[F], F]:
        decorator: Callable[[F], F] = super().command(name, cls=cls or AuditCommand, **kwargs)
        return decorator
