"""The web app's stable URLs (issue 12: every page has one a colleague can be sent).

Ids from the logs can hold any character (``/`` included), so each one is a
single percent-encoded path segment, and the app reads segments from the raw
path (:func:`segments`), never from a decoded one::

    /findings?day=2026-11-28&table=T07&sort=impact&page=2
    /findings/3f2a9c0d1e4b5a6f
    /shoes/T07/T07-20261128-01
    /hands/T07/T07-20261128-01/14
    /reports/2026-11-28            /reports/2026-11-28/flagged
    /reviews
    /rounds?table=T07&at=21:40&date=2026-11-28   /rounds?player=P-1879
    /tables/   /tables/T07   /shoes/
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from urllib.parse import quote, unquote, urlencode


def _seg(value: str | int) -> str:
    return quote(str(value), safe="")


def finding_url(finding_id: str) -> str:
    return f"/findings/{_seg(finding_id)}"


def review_url(finding_id: str) -> str:
    return f"/findings/{_seg(finding_id)}/review"


def shoe_url(table: str, shoe: str) -> str:
    return f"/shoes/{_seg(table)}/{_seg(shoe)}"


def table_url(table: str) -> str:
    return f"/tables/{_seg(table)}"


def hand_url(table: str, shoe: str, round_no: int) -> str:
    return f"/hands/{_seg(table)}/{_seg(shoe)}/{int(round_no)}"


def report_url(day: dt.date | str, flagged: bool = False) -> str:
    d = day.isoformat() if isinstance(day, dt.date) else day
    return f"/reports/{_seg(d)}" + ("/flagged" if flagged else "")


def findings_url(params: Mapping[str, str | Sequence[str] | None]) -> str:
    """The list with these filters (empty values left out, so a URL stays short)."""
    pairs: list[tuple[str, str]] = []
    for k, v in params.items():
        if v is None or v == "":
            continue
        for item in [v] if isinstance(v, str) else v:
            if item:
                pairs.append((k, item))
    return "/findings" + (f"?{urlencode(pairs)}" if pairs else "")


def segments(raw_path: bytes | str, prefix: str) -> list[str] | None:
    """The decoded segments of a raw path after ``prefix`` (``/hands/``), or None (also when
    a segment is not percent-encoded UTF-8, ``%ff``: no id is, so no page has that URL)."""
    path = raw_path.decode("latin-1") if isinstance(raw_path, bytes) else raw_path
    path = path.split("?", 1)[0]
    if not path.startswith(prefix):
        return None
    rest = path[len(prefix) :]
    try:
        return [unquote(p, errors="strict") for p in rest.split("/")] if rest else []
    except UnicodeDecodeError:
        return None


def safe_next(value: str | None, default: str = "/findings") -> str:
    """A redirect target that stays inside the app (a path, never another site)."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return default
    return value
