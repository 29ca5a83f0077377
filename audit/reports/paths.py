"""Where the pages of a compliance report live inside its folder (safe, relative links)."""

from __future__ import annotations

import hashlib
import re

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
_DIGITS = 24
_HASHED = re.compile(rf".*_[0-9a-f]{{{_DIGITS}}}")

INDEX = "index.html"
FLAGGED = "flagged.html"


def safe_name(value: str) -> str:
    """A file name made from an id: ``[A-Za-z0-9._-]`` only, one per id (issue 29, 11d).

    An id that is a plain name already (``T07``, ``T07-20261128-01``) is kept as it is.
    Any other id (``..``, ``.``, one holding ``/``, an empty one, a long one) becomes
    a slug of it followed by ``_`` and 24 hex digits of its SHA-256. A plain id that
    looks like such a name (``_5ec1f7e7...``) gets one too, so a kept name and a
    hashed one never meet: two different ids never share a page.
    """
    if _PLAIN.fullmatch(value) and not _HASHED.fullmatch(value):
        return value
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:_DIGITS]
    return f"{_UNSAFE.sub('_', value)[:60].lstrip('.')}_{digest}"


def hand_href(table: str, shoe: str, round_no: int) -> str:
    """The relative link (and path under the report folder) of a round's hand page."""
    return f"hands/{safe_name(table)}/{safe_name(shoe)}/r{int(round_no)}.html"


HAND_TO_REPORT = "../../../"
"""From a hand page (``hands/<table>/<shoe>/r<n>.html``) back to the report folder."""
