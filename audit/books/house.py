"""The house file: a casino's accounting settings (``shared/spec/accounting.md``).

``house.toml`` lives beside the casino's rule profiles (``--profiles DIR``,
``SHOE_AUDIT_PROFILES``) or is named by ``--house FILE`` / ``SHOE_AUDIT_HOUSE``;
without one, the packaged file (``audit/books/data/house.toml``) holds the
defaults accounting.md gives. Each setting is written as a profile's rules are,
``key = { value = ..., source = "...", house_default = true }``. A bad file is
one line naming the file, the line where the key is written, the key and why
(:class:`~audit.errors.ProfileError`, exit 1).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

from audit.errors import ProfileError

PACKAGED_HOUSE = Path(__file__).with_name("data") / "house.toml"
HOUSE_FILE = "house.toml"
ENV_HOUSE = "SHOE_AUDIT_HOUSE"
ENV_PROFILES = "SHOE_AUDIT_PROFILES"

ROLES = (
    "dealer",
    "supervisor",
    "cashier",
    "security",
    "runner",
    "count",
    "accounting",
    "controller",
    "other",
)
"""The signers' roles TEL/1 v1.2 names (accounting.md "Shapes")."""


@dataclass(frozen=True)
class Shift:
    """A drop-box shift: its name, and the local time it starts (``None``: the
    gaming day's start, for the first shift only)."""

    name: str
    start: dt.time | None = None


@dataclass(frozen=True)
class House:
    """The settings of accounting.md's house-file table, typed. The defaults are
    the packaged file's; :func:`load_house` reads a file into one."""

    day_start: dt.time = dt.time(6, 0)
    shifts: tuple[Shift, ...] = (Shift("day"),)
    pits: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    denominations: tuple[Decimal, ...] = tuple(
        Decimal(d) for d in ("1", "2.5", "5", "25", "100", "500", "1000")
    )
    books_required: bool = False
    win_tolerance: Decimal = Decimal(0)
    drop_tolerance: Decimal = Decimal(0)
    discrepancy_report: Decimal = Decimal(25)
    discrepancy_regulator: Decimal = Decimal(100)
    adjustment_report: Decimal = Decimal(2000)
    slip_signers: int = 2
    inventory_roles: tuple[str, ...] = ("dealer", "supervisor")
    series_complete: bool = False
    cage_day_close: Literal["next_day", "count"] = "next_day"
    complete_streams: tuple[str, ...] = ()
    payout_window_days: int = 30
    payout_points: Decimal = Decimal(4)
    payout_history_days: int = 30
    sources: Mapping[str, str] = field(default_factory=dict)
    """Each key's ``source`` text, as the file gives it."""
    house_defaults: frozenset[str] = frozenset()
    """The keys whose value the cited texts leave open (``house_default = true``)."""
    path: str | None = None
    """The file read (``None``: built in code)."""
    sha256: str | None = None
    """The SHA-256 of the file's bytes, pinned on the report, ``books`` and ``status``."""

    def pit_of(self, table: str) -> str | None:
        """The pit whose floor plan lists ``table``; ``None``: a table in no pit."""
        for pit, tables in self.pits.items():
            if table in tables:
                return pit
        return None

    def shift_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.shifts)

    def with_day_start(self, day_start: dt.time) -> House:
        """These settings with the gaming day starting at ``day_start`` (``--day-start``);
        a start that breaks the shifts' order from the day's start is a
        :class:`ValueError` (a usage error, exit 2, at the command line)."""
        _check_shift_order(self.shifts, day_start)
        return _replace(self, day_start=day_start)

    def shift_at(self, local: dt.datetime | dt.time) -> str:
        """The name of the shift a table-local wall-clock time falls in."""
        t = local.timetz().replace(tzinfo=None) if isinstance(local, dt.datetime) else local
        since = _minutes_since(t, self.day_start)
        name = self.shifts[0].name
        for s in self.shifts[1:]:
            assert s.start is not None
            if since >= _minutes_since(s.start, self.day_start):
                name = s.name
        return name


def _replace(house: House, **changes: Any) -> House:
    from dataclasses import replace

    return replace(house, **changes)


def _minutes_since(t: dt.time, start: dt.time) -> int:
    """Seconds from the gaming day's start to ``t`` on the same gaming day."""
    a = t.hour * 3600 + t.minute * 60 + t.second
    b = start.hour * 3600 + start.minute * 60 + start.second
    return (a - b) % 86400


def _check_shift_order(shifts: tuple[Shift, ...], day_start: dt.time) -> None:
    last = 0
    for s in shifts[1:]:
        assert s.start is not None
        at = _minutes_since(s.start, day_start)
        if at <= last:
            raise ValueError(
                f"shift {s.name!r} starts at {s.start:%H:%M}, not after the one before it "
                f"counted from the gaming day's start {day_start:%H:%M}"
            )
        last = at


# --------------------------------------------------------------------------- reading


_TIME = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


def _time(v: Any) -> dt.time:
    if not isinstance(v, str) or not _TIME.match(v):
        raise ValueError(f'a time is written "HH:MM", got {v!r}')
    return dt.time(int(v[:2]), int(v[3:]))


def _money(v: Any, *, positive: bool = False) -> Decimal:
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise ValueError(f'an amount is written as a string ("25") or an integer, got {v!r}')
    try:
        d = Decimal(str(v))
    except InvalidOperation:
        raise ValueError(f"not an amount: {v!r}") from None
    if not d.is_finite() or d < 0 or (positive and d == 0):
        raise ValueError(f"an amount {'over 0' if positive else 'of 0 or more'}, got {v!r}")
    if d != d.quantize(Decimal("0.01")):
        raise ValueError(f"an amount has at most 2 decimals, got {v!r}")
    return d


def _int(v: Any, low: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise ValueError(f"an integer of {low} or more, got {v!r}")
    return v


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"true or false, got {v!r}")
    return v


def _names(v: Any, what: str) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        raise ValueError(f"a list of {what}, got {v!r}")
    if len(set(v)) != len(v):
        raise ValueError(f"a {what[:-1]} listed twice in {v!r}")
    return tuple(v)


def _shifts(v: Any) -> tuple[Shift, ...]:
    if not isinstance(v, list) or not v:
        raise ValueError(f'a list of shifts, [{{ name = "day" }}, ...], got {v!r}')
    out: list[Shift] = []
    for i, s in enumerate(v):
        if not isinstance(s, dict) or not isinstance(s.get("name"), str) or not s["name"]:
            raise ValueError(f"shift {i + 1} needs a name, got {s!r}")
        extra = set(s) - {"name", "start"}
        if extra:
            raise ValueError(f"shift {s['name']!r} has unknown keys {sorted(extra)}")
        if i == 0:
            if "start" in s:
                raise ValueError(
                    f"the first shift ({s['name']!r}) starts with the gaming day: it has no start"
                )
            out.append(Shift(s["name"]))
        else:
            if "start" not in s:
                raise ValueError(f'shift {s["name"]!r} needs start = "HH:MM"')
            out.append(Shift(s["name"], _time(s["start"])))
    names = [s.name for s in out]
    if len(set(names)) != len(names):
        raise ValueError(f"a shift name is given twice in {names}")
    return tuple(out)


def _pits(v: Any) -> dict[str, tuple[str, ...]]:
    if not isinstance(v, dict):
        raise ValueError(f'a table of pits, {{ P1 = ["T01", "T02"] }}, got {v!r}')
    pits = {str(k): _names(t, "tables") for k, t in v.items()}
    seen: dict[str, str] = {}
    for pit, tables in pits.items():
        for t in tables:
            if t in seen:
                raise ValueError(f"table {t!r} is in two pits, {seen[t]!r} and {pit!r}")
            seen[t] = pit
    return pits


def _denominations(v: Any) -> tuple[Decimal, ...]:
    if not isinstance(v, list) or not v:
        raise ValueError(f"a list of chip denominations, got {v!r}")
    ds = tuple(_money(x, positive=True) for x in v)
    if len(set(ds)) != len(ds):
        raise ValueError(f"a denomination listed twice in {v!r}")
    return ds


def _cage_day_close(v: Any) -> str:
    if v not in ("next_day", "count"):
        raise ValueError(f'"next_day" or "count", got {v!r}')
    return str(v)


_READERS: dict[str, Any] = {
    "day_start": _time,
    "shifts": _shifts,
    "pits": _pits,
    "denominations": _denominations,
    "books_required": _bool,
    "win_tolerance": _money,
    "drop_tolerance": _money,
    "discrepancy_report": _money,
    "discrepancy_regulator": _money,
    "adjustment_report": _money,
    "slip_signers": lambda v: _int(v, 1),
    "inventory_roles": lambda v: _roles(v),
    "series_complete": _bool,
    "cage_day_close": _cage_day_close,
    "complete_streams": lambda v: _names(v, "streams"),
    "payout_window_days": lambda v: _int(v, 1),
    "payout_points": lambda v: _money(v, positive=True),
    "payout_history_days": lambda v: _int(v, 0),
}
"""Each key of the house file and how its value is read."""


def _roles(v: Any) -> tuple[str, ...]:
    roles = _names(v, "roles")
    bad = [r for r in roles if r not in ROLES]
    if bad:
        raise ValueError(f"unknown role {bad[0]!r}; the roles are {', '.join(ROLES)}")
    return roles


def _line_of(text: str, key: str) -> int | None:
    pattern = re.compile(rf"^[ \t]*{re.escape(key)}[ \t]*=", re.M)
    m = pattern.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def load_house_file(path: Path) -> House:
    """Read one house file; a problem is a :class:`ProfileError` of one line,
    ``file:line: key: why``."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read the house file: {exc.strerror or exc}") from None
    text = data.decode("utf-8", "replace")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{path}: not a TOML file: {exc}") from None
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    defaults: set[str] = set()
    for key, entry in raw.items():
        where = f"{path}:{_line_of(text, key) or 1}: {key}"
        if key not in _READERS:
            raise ProfileError(f"{where}: not a house-file key (the keys: {', '.join(_READERS)})")
        if not isinstance(entry, dict) or "value" not in entry or "source" not in entry:
            raise ProfileError(
                f'{where}: written as {{ value = ..., source = "...", house_default = true|false }}'
            )
        extra = set(entry) - {"value", "source", "house_default"}
        if extra:
            raise ProfileError(f"{where}: unknown keys {sorted(extra)}")
        if not isinstance(entry["source"], str) or not entry["source"].strip():
            raise ProfileError(f"{where}: source names the text the value comes from")
        try:
            values[key] = _READERS[key](entry["value"])
            if "house_default" in entry and _bool(entry["house_default"]):
                defaults.add(key)
        except ValueError as exc:
            raise ProfileError(f"{where}: {exc}") from None
        sources[key] = entry["source"]
    house = House(
        **values,
        sources=sources,
        house_defaults=frozenset(defaults),
        path=str(path),
        sha256=hashlib.sha256(data).hexdigest(),
    )
    try:
        _check_shift_order(house.shifts, house.day_start)
    except ValueError as exc:
        raise ProfileError(f"{path}:{_line_of(text, 'shifts') or 1}: shifts: {exc}") from None
    if house.discrepancy_regulator < house.discrepancy_report:
        where = f"{path}:{_line_of(text, 'discrepancy_regulator') or 1}: discrepancy_regulator"
        raise ProfileError(f"{where}: below discrepancy_report ({house.discrepancy_report})")
    return house


def house_path(house: str | Path | None = None, profiles: str | Path | None = None) -> Path:
    """Which house file a command reads: ``--house``, else ``$SHOE_AUDIT_HOUSE``, else
    ``house.toml`` in the profiles folder (``--profiles``, ``$SHOE_AUDIT_PROFILES``)
    when it has one, else the packaged file."""
    if house is not None:
        return Path(house)
    env = os.environ.get(ENV_HOUSE)
    if env:
        return Path(env)
    folder = profiles if profiles is not None else os.environ.get(ENV_PROFILES) or None
    if folder is not None and (Path(folder) / HOUSE_FILE).is_file():
        return Path(folder) / HOUSE_FILE
    return PACKAGED_HOUSE


def load_house(house: str | Path | None = None, profiles: str | Path | None = None) -> House:
    """The house file a command reads (:func:`house_path`), loaded."""
    return load_house_file(house_path(house, profiles))
