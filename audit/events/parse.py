"""Turning one line of a TEL/1 file into an event, or a precise reason why not."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from audit.errors import MalformedEventError
from audit.events.models import (
    EVENT_TYPES,
    INT_MAX,
    Envelope,
    LogEvent,
    TableEnvelope,
    UnknownEvent,
)

MAX_LINE_BYTES = 1_000_000
"""A line longer than 1 MB is rejected as malformed (event-log.md)."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class DuplicateKeyError(ValueError):
    """A JSON object names the same key twice (invalid in TEL/1 v1.1)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r}: an object names each key once")
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


_DECODER_ARGS: dict[str, Any] = {
    "parse_float": Decimal,
    "parse_constant": _no_constant,
    "object_pairs_hook": _unique_keys,
}
_DECODER = json.JSONDecoder(**_DECODER_ARGS)
"""Made once: ``json.loads`` with keyword arguments builds a decoder per call."""


def loads(text: str | bytes) -> Any:
    """Parse JSON with exact decimals (never binary floats) and strict constants.

    An object naming a key twice raises :class:`DuplicateKeyError` (event-log.md
    "One key, one value": a reader must not pick one of two readings).
    """
    if isinstance(text, str):
        return _DECODER.decode(text)
    return json.loads(text, **_DECODER_ARGS)  # bytes: json.loads detects the encoding


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"]
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        if err["type"] == "missing":
            parts.append(f"missing required field {loc!r}")
        elif err["type"] == "extra_forbidden":
            parts.append(f"unexpected field {loc!r}")
        elif err["type"] == "less_than_equal" and err.get("ctx", {}).get("le") == INT_MAX:
            parts.append(
                f"{loc}: out of range: an integer is at most 2^53 - 1 = 9,007,199,254,740,991, "
                f"got {err.get('input')!r}"
            )
        elif err["type"] == "value_error":
            parts.append(f"{loc}: {msg}" if loc else msg)
        elif loc:
            parts.append(f"{loc}: {msg} (got {err.get('input')!r})")
        else:
            parts.append(msg)
    return "; ".join(parts)


def parse_object(obj: Any) -> LogEvent:
    """Validate a decoded JSON value as a TEL/1 event.

    Raises :class:`MalformedEventError` with every reason at once.
    """
    if not isinstance(obj, dict):
        raise MalformedEventError(f"not a JSON object (a JSON {type(obj).__name__})")
    etype = obj.get("type")
    # A type that is not a string: the v1.1 envelope's reasons, shoe included.
    model: type[TableEnvelope] = (
        EVENT_TYPES.get(etype, UnknownEvent) if isinstance(etype, str) else Envelope
    )
    try:
        return model.model_validate(obj)  # type: ignore[return-value]
    except ValidationError as exc:
        raise MalformedEventError(_describe(exc)) from None


def decode_line(line: str | bytes) -> Any:
    """One line of a TEL/1 file (without its newline) as a JSON value, or why it is none."""
    size = len(line) if isinstance(line, bytes) else len(line.encode("utf-8", "surrogatepass"))
    if size > MAX_LINE_BYTES:
        raise MalformedEventError(f"line too long ({size:,} bytes; the limit is 1 MB)")
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedEventError(f"invalid UTF-8 at byte {exc.start}") from None
    try:
        return loads(line)
    except DuplicateKeyError as exc:
        raise MalformedEventError(str(exc)) from None
    except (ValueError, RecursionError) as exc:
        raise MalformedEventError(f"not JSON: {exc}") from None
    except ArithmeticError:  # decimal.InvalidOperation: an exponent Decimal cannot hold
        raise MalformedEventError("not JSON: a number out of range") from None


def parse_line(line: str | bytes) -> LogEvent:
    """Parse one line of a TEL/1 file (without its newline)."""
    return parse_object(decode_line(line))
