"""What every command shares: its options, the one error boundary, opening the database.

The error boundary (:func:`boundary`, and :class:`audit.cli.framework.AuditGroup`
for anything that escapes it) turns every failure into one line on stderr,
``Error: ...``, with cli.md's exit code: 2 for a usage error, 1 for a runtime
failure, 130 for Ctrl-C. ``--debug`` (or ``SHOE_AUDIT_DEBUG=1``) shows the
traceback instead.
"""

from __future__ import annotations

import datetime as dt
import errno
import functools
import os
import select
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer

from audit.errors import AuditError, UsageError

if TYPE_CHECKING:
    from audit.store import Store

P = ParamSpec("P")
R = TypeVar("R")

DB_ENV = "SHOE_AUDIT_DB"
DEFAULT_DB = "audit.duckdb"
DEFAULT_DB_PATH = Path(DEFAULT_DB)


class RowsFormat(StrEnum):
    """How a command that prints rows writes them (cli.md: findings, stats)."""

    table = "table"
    jsonl = "jsonl"
    csv = "csv"


class State:
    """Process-wide switches of one invocation (set by the global flags)."""

    debug: bool = False
    quiet: bool = False
    reported: bool = False
    """An error line was printed (so the exit code needs no message of its own)."""
    interrupted: bool = False
    """Ctrl-C arrived: whatever failure follows (DuckDB may first report the transaction
    the interrupt aborted) is the interrupt, exit 130."""

    @classmethod
    def reset(cls) -> None:
        """Back to the defaults: each invocation (and each CliRunner call) starts afresh."""
        cls.debug = bool(os.environ.get("SHOE_AUDIT_DEBUG"))
        cls.quiet = False
        cls.reported = False


# --------------------------------------------------------------------------- options


def parse_gaming_day(value: str) -> dt.date:
    """``--date``/``--from``/``--to``: a gaming day as ``YYYY-MM-DD`` (a usage error otherwise)."""
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise typer.BadParameter(f"a gaming day is YYYY-MM-DD, got {value!r}") from None


def parse_day_start(value: str) -> str:
    """``--day-start``: ``HH:MM`` between 00:00 and 23:59 (a usage error otherwise)."""
    from audit.store.store import day_start_minutes

    try:
        day_start_minutes(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    return value


DbOption = Annotated[
    Path,
    typer.Option(
        "--db",
        envvar=DB_ENV,
        metavar="FILE",
        help="The audit database (a DuckDB file).",
        show_default=True,
        show_envvar=False,
    ),
]
ProfilesOption = Annotated[
    Path | None,
    typer.Option(
        "--profiles",
        envvar="SHOE_AUDIT_PROFILES",
        metavar="DIR",
        help="A folder of extra or overriding rule profiles (*.toml).",
        show_envvar=False,
    ),
]
DayStartOption = Annotated[
    str | None,
    typer.Option(
        "--day-start",
        metavar="HH:MM",
        parser=parse_day_start,
        help="When a gaming day starts, in table-local time "
        "[default: the house file's day_start, 06:00 in the packaged one].",
        show_default=False,
    ),
]
HouseOption = Annotated[
    Path | None,
    typer.Option(
        "--house",
        envvar="SHOE_AUDIT_HOUSE",
        metavar="FILE",
        help="The house file (day start, shifts, pits, accounting thresholds) "
        "[default: house.toml in --profiles, else the packaged one].",
        show_envvar=False,
    ),
]


def house_settings(
    house: Path | None, profiles: Path | None = None, day_start: str | None = None
) -> Any:
    """The house file a command reads (``--house``, ``$SHOE_AUDIT_HOUSE``, ``house.toml`` in
    the profiles folder, else the packaged one), with ``--day-start`` over its ``day_start``.

    A bad file is a one-line :class:`~audit.errors.ProfileError` naming file, line and key
    (exit 1); a ``--day-start`` that breaks the shifts' order is a usage error (exit 2).
    """
    from audit.books.house import load_house

    settings = load_house(house, profiles)
    if day_start is None:
        return settings
    hh, mm = day_start.split(":")
    try:
        return settings.with_day_start(dt.time(int(hh), int(mm)))
    except ValueError as exc:
        raise UsageError(f"--day-start {day_start}: {exc} (house file {settings.path})") from None


def house_and_day_start(
    house: Path | None, profiles: Path | None = None, day_start: str | None = None
) -> tuple[Any, str]:
    """The house file as written, and the day start ingest cuts gaming days with:
    ``--day-start`` (checked against the shifts, as :func:`house_settings` does),
    else the file's ``day_start``."""
    settings = house_settings(house, profiles, day_start)
    start: dt.time = settings.day_start
    if day_start is None:
        return settings, f"{start:%H:%M}"
    from audit.books.house import load_house

    return load_house(house, profiles), f"{start:%H:%M}"


def gaming_day_option(name: str, help: str) -> typer.models.OptionInfo:
    """A ``--date``-like option parsed to a :class:`datetime.date` (bad values: exit 2)."""
    info: typer.models.OptionInfo = typer.Option(
        name, metavar="YYYY-MM-DD", parser=parse_gaming_day, help=help
    )
    return info


DateOption = Annotated[dt.date | None, gaming_day_option("--date", "Only this gaming day.")]
FromOption = Annotated[
    dt.date | None, gaming_day_option("--from", "First gaming day of a range (with --to).")
]
ToOption = Annotated[
    dt.date | None, gaming_day_option("--to", "Last gaming day of a range (with --from).")
]
PasswordStdinOption = Annotated[
    bool, typer.Option("--password-stdin", help="Read the account's password from standard input.")
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print the summary as one JSON object on stdout.")
]


# --------------------------------------------------------------------------- errors


def fail(message: str) -> None:
    """Print ``Error: message`` on stderr: one line, the message printed as text."""
    from audit.cli.output import safe_line

    stream = sys.stderr
    bold = "\x1b[1;31m" if stream.isatty() and not os.environ.get("NO_COLOR") else ""
    reset = "\x1b[0m" if bold else ""
    try:
        stream.write(f"{bold}Error:{reset} {safe_line(message)}\n")
        stream.flush()
    except BrokenPipeError:
        pass  # nobody reads stderr any more (`2>&1 | head`): the exit code still tells
    State.reported = True


err = fail
"""The name the first commands used."""


NOTE_PREFIX = "shoe-audit: "
"""An exception's note (``add_note``) with this prefix ends its one-line message: what a
command adds to an error on its way out (``run``: the shoes it did not re-audit)."""


def explain(exc: BaseException) -> tuple[int, str]:
    """The exit code and one-line message for an exception that reached the boundary."""
    code, message = _explain(exc)
    notes = [
        n[len(NOTE_PREFIX) :] for n in getattr(exc, "__notes__", ()) if n.startswith(NOTE_PREFIX)
    ]
    return code, "; ".join([message, *notes])


def _explain(exc: BaseException) -> tuple[int, str]:
    if is_interrupt(exc):
        from audit.cli import INTERRUPTED

        return 130, INTERRUPTED
    if isinstance(exc, UsageError):
        return 2, str(exc)
    from audit.store.failures import is_out_of_memory, out_of_memory_error

    if is_out_of_memory(exc):
        return 1, str(out_of_memory_error(exc))
    if isinstance(exc, AuditError):
        return 1, str(exc)
    if isinstance(exc, (FileExistsError, NotADirectoryError)) and exc.filename is not None:
        return 1, f"{os.fsdecode(exc.filename)!r} is a file, where a folder is needed"
    if isinstance(exc, OSError):
        where = f" {os.fsdecode(exc.filename)!r}" if exc.filename is not None else ""
        return 1, f"cannot use{where}: {exc.strerror or exc}"
    template = _template_error(exc)
    if template is not None:
        return 1, template
    return 1, f"unexpected {type(exc).__name__}: {exc} (run with --debug for the traceback)"


def reader_gone(exc: BaseException) -> bool:
    """Whether ``exc`` is stdout's reader going away (``findings | head -1``).

    A broken pipe elsewhere (a worker process that died, a socket) is a failure like
    any other: only an EPIPE while stdout itself is a closed pipe counts.
    """
    return isinstance(exc, OSError) and exc.errno == errno.EPIPE and stdout_gone()


def stdout_gone() -> bool:
    """Whether stdout is a pipe (or socket) whose reader has closed it."""
    try:
        fd = sys.__stdout__.fileno() if sys.__stdout__ is not None else 1
        poll = select.poll()
        poll.register(fd, select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poll.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def silence_stdout() -> None:
    """Point stdout at the null device once its reader is gone.

    What is still buffered, and whatever the command writes next, goes nowhere; without
    this the interpreter's flush at exit fails again ("Exception ignored ... Broken
    pipe", exit 120). The usual recipe of the Python documentation (signal module, note
    on SIGPIPE).
    """
    try:
        fd = sys.__stdout__.fileno() if sys.__stdout__ is not None else 1
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def is_interrupt(exc: BaseException) -> bool:
    """Ctrl-C, also as DuckDB reports it when it arrives inside a query."""
    if isinstance(exc, KeyboardInterrupt) or State.interrupted:
        return True
    # DuckDB turns SIGINT into InterruptException, or a RuntimeError from a fetch.
    return type(exc).__name__ == "InterruptException" or (
        isinstance(exc, RuntimeError) and str(exc).strip() == "Query interrupted"
    )


def _template_error(exc: BaseException) -> str | None:
    """A Jinja template error (``--templates``) as ``template file:line: what``."""
    if not type(exc).__module__.startswith("jinja2"):
        return None
    name = getattr(exc, "filename", None) or getattr(exc, "name", None)
    line = getattr(exc, "lineno", None)
    where = f"{name}:{line}" if name and line else (name or "a template")
    message = getattr(exc, "message", None) or str(exc)
    return f"template {where}: {message}"


def boundary(fn: Callable[P, R]) -> Callable[P, R]:
    """The CLI's one error boundary: every exception becomes one line and an exit code.

    :class:`UsageError` exits 2, Ctrl-C 130, anything else 1 (cli.md). A reader of
    stdout that went away (``findings | head -1``) is no failure: nothing is printed,
    exit 0 (:func:`reader_gone`).
    ``--debug`` (or ``SHOE_AUDIT_DEBUG=1``) re-raises instead, with the traceback.
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        State.interrupted = False
        previous = _note_interrupts()
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except (Exception, KeyboardInterrupt) as exc:
            if reader_gone(exc):
                silence_stdout()
                raise typer.Exit(0) from None
            if State.debug:
                raise
            code, message = explain(exc)
            fail(message)
            raise typer.Exit(code) from None
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)

    return wrapper


def _note_interrupts() -> Any:
    """Have SIGINT set :attr:`State.interrupted` before it raises as Python's handler does.

    Returns the handler it replaced (None where signals cannot be set: not the main thread).
    """

    def on_sigint(signum: int, frame: Any) -> None:
        State.interrupted = True
        signal.default_int_handler(signum, frame)

    try:
        return signal.signal(signal.SIGINT, on_sigint)
    except ValueError:
        return None


# --------------------------------------------------------------------------- the database


def no_database(db: Path) -> AuditError:
    return AuditError(f"no database at {str(db)!r}: run `shoe-audit ingest` first, or give --db")


def open_db(db: Path, *, create: bool = False, read_only: bool = False) -> Store:
    """Open the audit database; only a command that writes events may ``create`` it.

    cli.md: the commands that read the database never create one; a path with
    no database is an error.
    """
    from audit.store import open_store

    if not create and not db.exists():
        raise no_database(db)
    return open_store(db, read_only=read_only)


@contextmanager
def no_new_files_on_failure(db: Path) -> Iterator[None]:
    """Remove the database (and its siblings ``db.*``) a failed command created.

    A failed command leaves no new file behind: ``ingest /nonexistent`` must not
    leave an empty ``./audit.duckdb``. Files that existed before are kept.
    """
    existed = db.exists()
    before = set(_siblings(db))
    try:
        yield
    except BaseException:
        if not existed:
            for path in set(_siblings(db)) - before:
                path.unlink(missing_ok=True)
        raise


def _siblings(db: Path) -> Iterator[Path]:
    folder = db.parent if str(db.parent) else Path(".")
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        if path.name == db.name or path.name.startswith(db.name + "."):
            yield path


def is_terminal() -> bool:
    return sys.stdout.isatty()
