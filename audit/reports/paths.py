"""Where the pages of a compliance report live inside its folder (safe, relative links)."""

from __future__ import annotations

import hashlib
import re

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")

INDEX = "index.html"
FLAGGED = "flagged.html"


def safe_name(value: str) -> str:
    """A file name made from an id: ``[A-Za-z0-9._-]`` only, unique per id.

    An id that needed changing (or is empty, or starts with a dot) gets a short
    hash of the original, so two different ids never share a file.
    """
    clean = _UNSAFE.sub("_", value)[:80]
    if clean != value or not clean or clean.startswith("."):
        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        clean = f"{clean.lstrip('.')}_{digest}"
    return clean


def hand_href(table: str, shoe: str, round_no: int) -> str:
    """The relative link (and path under the report folder) of a round's hand page."""
    return f"hands/{safe_name(table)}/{safe_name(shoe)}/r{int(round_no)}.html"


HAND_TO_REPORT = "../../../"
"""From a hand page (``hands/<table>/<shoe>/r<n>.html``) back to the report folder."""
