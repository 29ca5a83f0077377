"""The Jinja2 environments of the reports, one per output format.

Every environment uses ``StrictUndefined`` (a template naming a field the
context does not have fails loudly) and escapes every ``{{ expression }}`` for
its format, since ids in the logs are untrusted text:

- ``html``: Jinja's ``autoescape=True``.
- ``md``: a ``finalize`` hook escapes Markdown and HTML metacharacters, pipes
  included (a ``|`` in an id must not split a table row), and folds newlines.
- ``text``: a ``finalize`` hook removes control characters (an id cannot move
  the cursor or recolour the terminal) and, only when the output cannot carry
  them (``ascii_only``: the terminal's encoding is ASCII), folds the text to
  ASCII; otherwise the regulation's words stay as written («più», issue 10
  point 13).

Trusted fragments built by the filters here (ANSI styling, Markdown links)
are marked with :class:`Trusted` so the ``finalize`` hook lets them through
unchanged; they escape their own inputs.

Templates are found in ``templates_dir`` first (``--templates DIR``: any
template it holds replaces the built-in one), then in the templates shipped
inside the package (``audit/reports/templates``, a link to the project's
``reports/`` folder in a checkout, copied into wheels), then in the checkout's
``reports/`` folder.
"""

from __future__ import annotations

import functools
import re
import shlex
import unicodedata
from collections.abc import Callable, Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from audit.reports import cards as card_art
from audit.wording import counted

Format = Literal["html", "md", "text"]

PACKAGED_TEMPLATES = Path(__file__).with_name("templates")
CHECKOUT_TEMPLATES = Path(__file__).resolve().parents[2] / "reports"


class Trusted(str):
    """Output that a filter has already escaped for its format."""

    __slots__ = ()


def template_dirs(templates_dir: Path | str | None = None) -> list[Path]:
    """Where templates are looked up, first match wins."""
    dirs: list[Path] = []
    if templates_dir is not None:
        d = Path(templates_dir)
        if not d.is_dir():
            from audit.errors import InputError

            raise InputError(f"templates folder {str(d)!r} does not exist")
        dirs.append(d)
    for d in (PACKAGED_TEMPLATES, CHECKOUT_TEMPLATES):
        if d.is_dir() and d.resolve() not in {x.resolve() for x in dirs}:
            dirs.append(d)
    return dirs


# --------------------------------------------------------------------------- text

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")
_ASCII_MAP = str.maketrans(
    {
        "«": '"',
        "»": '"',
        "“": '"',
        "”": '"',
        "‘": "'",
        "’": "'",
        "–": "-",
        "—": "-",
        "…": "...",
        "×": "x",
        "♠": "S",
        "♥": "H",
        "♦": "D",
        "♣": "C",
        "·": "-",
        "→": "->",
        "≤": "<=",
        "≥": ">=",
    }
)


def clean_text(value: str, *, ascii_only: bool) -> str:
    """Text safe for a terminal: no control characters; ASCII only when asked."""
    s = _CONTROL.sub("?", value.replace("\t", " ").replace("\r", " ").replace("\n", " "))
    if ascii_only:
        s = unicodedata.normalize("NFKD", s.translate(_ASCII_MAP))
        s = "".join(ch if ord(ch) < 128 else ("" if unicodedata.combining(ch) else "?") for ch in s)
    return s


_ANSI = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
    "white": "37",
    "black_on_white": "30;47",
    "red_on_white": "31;47",
}


def can_encode(encoding: str | None, sample: str = "«più» ♠") -> bool:
    """Whether text in ``encoding`` (a stream's ``.encoding``) carries the regulation's
    words and the suit symbols; None (unknown) is taken as UTF-8."""
    try:
        sample.encode(encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _text_filters(color: bool, ascii_only: bool) -> dict[str, Callable[..., Any]]:

    def finalize(value: Any) -> Any:
        if isinstance(value, Trusted):
            return value
        if value is None:
            return "-"
        return clean_text(str(value), ascii_only=ascii_only)

    def style(value: Any, *styles: str) -> Trusted:
        text = value if isinstance(value, Trusted) else finalize(value)
        if not color or not styles:
            return Trusted(text)
        codes = ";".join(_ANSI[s] for s in styles)
        return Trusted(f"\x1b[{codes}m{text}\x1b[0m")

    def card(c: card_art.CardLike | None) -> Trusted:
        if c is None:
            return Trusted("")
        if not c.face_up and not color:
            face = f"[{c.rank_label}{c.suit}]"
        elif color:
            face = f"{c.rank_label}{c.symbol}"
        else:
            face = f"{c.rank_label}{c.suit}"
        if color:
            return style(face, "red_on_white" if c.red else "black_on_white")
        return Trusted(face)

    def pad(value: Any, width: int) -> Trusted:
        text = value if isinstance(value, Trusted) else finalize(value)
        visible = len(re.sub(r"\x1b\[[0-9;]*m", "", text))
        return Trusted(text + " " * max(0, width - visible))

    def trusted(value: Any) -> Trusted:
        # only for the output of a macro: every expression inside it was already cleaned
        return Trusted(value)

    return {"finalize": finalize, "style": style, "card": card, "pad": pad, "trusted": trusted}


# --------------------------------------------------------------------------- markdown

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]|~])")


def md_escape(value: Any) -> str:
    """Text safe inside Markdown (table cells included): HTML and Markdown escaped."""
    s = clean_text(str(value), ascii_only=False)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return _MD_SPECIAL.sub(r"\\\1", s)


def _md_filters() -> dict[str, Callable[..., Any]]:
    def finalize(value: Any) -> Any:
        if isinstance(value, Trusted):
            return value
        if value is None:
            return "–"
        return md_escape(value)

    def link(label: Any, href: str) -> Trusted:
        return Trusted(f"[{finalize(label)}]({quote(href, safe='/._-~')})")

    def code(value: Any) -> Trusted:
        # inline code cannot escape a pipe inside a table: keep it as escaped text
        return Trusted(f"**{finalize(value)}**")

    return {"finalize": finalize, "link": link, "code": code}


# --------------------------------------------------------------------------- html


def _html_filters() -> dict[str, Callable[..., Any]]:
    def card_svg(c: card_art.CardLike | None, size: str = "md") -> Markup:
        if c is None:
            return Markup("")
        return Markup(card_art.svg(c, size))

    def href(value: str) -> str:
        # "%" stays: a link built already percent-encoded (the web app's, one segment per
        # id) must not be encoded twice; the report's own links never hold one
        return quote(value, safe="/._-~%")

    return {"card_svg": card_svg, "href": href}


# --------------------------------------------------------------------------- environments


def _common_filters() -> dict[str, Callable[..., Any]]:
    def money(value: str | None, signed: bool = False) -> str | None:
        """A money string laid out for people: thousands separators and two decimals
        (``"1234.5"`` -> ``"1,234.50"``); more decimals only when the amount has them.
        With ``signed``, positive amounts get a ``+``."""
        if value is None:
            return None
        d = Decimal(value)
        exp = d.as_tuple().exponent
        text = f"{d:,.2f}" if isinstance(exp, int) and exp >= -2 else f"{d:,f}"
        return ("+" + text) if signed and d > 0 else text

    def signed(value: str | None) -> str | None:
        """A money string with an explicit sign for positive amounts (``+15``)."""
        if value is None or value.startswith("-") or value == "0":
            return value
        return "+" + value

    def plural(n: int, word: str, many: str | None = None) -> str:
        return counted(n, word, many)

    def thousands(n: int) -> str:
        return f"{n:,}"

    def command(args: Iterable[object]) -> str:
        """A command line for copying into a shell: each argument quoted as the shell
        needs it (an id ``T 07`` or ``$(rm -rf ~)`` comes back as typed, never run)."""
        return " ".join(shlex.quote(str(a)) for a in args)

    def hand_command(table: str, shoe: str, round_no: int) -> str:
        """The ``shoe-audit hand`` command that shows a round, for copying; ``--`` ends
        the options when an id starts with ``-`` (a table ``-n`` is not an option)."""
        ids = (table, shoe, round_no)
        dashes = ("--",) if any(str(i).startswith("-") for i in ids) else ()
        return command(("shoe-audit", "hand", *dashes, *ids))

    return {
        "signed": signed,
        "plural": plural,
        "thousands": thousands,
        "money": money,
        "command": command,
        "hand_command": hand_command,
    }


def environment(
    fmt: Format,
    *,
    color: bool = False,
    templates_dir: Path | str | None = None,
    ascii_only: bool = False,
) -> jinja2.Environment:
    """A Jinja2 environment for one output format (built once per process and options:
    a report renders thousands of pages)."""
    key = str(Path(templates_dir).resolve()) if templates_dir is not None else None
    return _environment(fmt, color, key, ascii_only)


@functools.lru_cache(maxsize=32)
def _environment(
    fmt: Format, color: bool, templates_dir: str | None, ascii_only: bool
) -> jinja2.Environment:
    loader = jinja2.FileSystemLoader([str(d) for d in template_dirs(templates_dir)])
    common: dict[str, Any] = {
        "loader": loader,
        "undefined": jinja2.StrictUndefined,
        "keep_trailing_newline": True,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "auto_reload": False,
    }
    filters = _common_filters()
    if fmt == "html":
        env = jinja2.Environment(autoescape=True, **common)
        filters.update(_html_filters())
    elif fmt == "md":
        md = _md_filters()
        env = jinja2.Environment(autoescape=False, finalize=md.pop("finalize"), **common)
        filters.update(md)
    else:
        txt = _text_filters(color, ascii_only)
        env = jinja2.Environment(autoescape=False, finalize=txt.pop("finalize"), **common)
        filters.update(txt)
    env.filters.update(filters)
    env.globals["color"] = color
    env.globals["ascii_only"] = ascii_only
    return env


def render(
    template: str,
    fmt: Format,
    context: object,
    *,
    color: bool = False,
    templates_dir: Path | str | None = None,
    extra: dict[str, Any] | None = None,
    ascii_only: bool = False,
) -> str:
    """Render ``template`` with ``ctx`` bound to the context object."""
    env = environment(fmt, color=color, templates_dir=templates_dir, ascii_only=ascii_only)
    return env.get_template(template).render(ctx=context, **(extra or {}))
