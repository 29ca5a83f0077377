"""Finding rule profiles by id: the packaged ones, and a casino's own.

A casino adds or overrides a profile by dropping a ``*.toml`` file into a folder
named by ``--profiles DIR`` or the ``SHOE_AUDIT_PROFILES`` environment
variable; a file there with a packaged profile's id replaces it.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from audit.errors import ProfileError, UnknownProfileError
from audit.profiles.model import Profile

PACKAGED_DIR = Path(__file__).with_name("data")
ENV_VAR = "SHOE_AUDIT_PROFILES"


def load_profile_file(path: Path) -> Profile:
    """Read one profile file; every rule must have a value (or none) and a source."""
    try:
        with path.open("rb") as fh:
            raw = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(f"{path}: cannot read profile: {exc}") from None
    rules_raw = raw.get("rules")
    if not isinstance(rules_raw, dict):
        raise ProfileError(f"{path}: a profile has a [rules] table")
    values: dict[str, Any] = {}
    sources: dict[str, Any] = {}
    for name, entry in rules_raw.items():
        if not isinstance(entry, dict) or "source" not in entry:
            raise ProfileError(
                f"{path}: rule {name!r} is written as "
                '{ value = ..., source = "...", house_default = true|false }'
            )
        values[name] = entry.get("value")
        sources[name] = {k: v for k, v in entry.items() if k != "value"}
    try:
        return Profile.model_validate(
            {
                **{k: v for k, v in raw.items() if k != "rules"},
                "rules": values,
                "sources": sources,
            }
        )
    except ValidationError as exc:
        raise ProfileError(f"{path}: {_one_line(exc)}") from None


def _one_line(exc: ValidationError) -> str:
    """The first error of a profile file as one line: the field, the value and why."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    where = ".".join(str(x) for x in first["loc"]) or "the file"
    if where.startswith("rules.") or where == "rules":
        field = where
    elif where.startswith("sources."):
        field = "rules." + where.removeprefix("sources.") + " (its source)"
    else:
        field = where
    why = " ".join(str(first["msg"]).split())
    text = f"{field}: {why}"
    if first["type"] not in ("missing", "extra_forbidden") and "input" in first:
        text += f" (got {first['input']!r})"
    more = len(errors) - 1
    return text + (f"; and {more} more problem{'s' if more > 1 else ''}" if more else "")


class ProfileRegistry:
    """The profiles known to one run, by id."""

    def __init__(
        self,
        profiles: Iterable[Profile],
        *,
        folder: Path | None = None,
        problems: Iterable[str] = (),
    ) -> None:
        self._by_id = {p.id: p for p in profiles}
        self.folder = folder
        """The casino's own ``--profiles`` folder searched, if any."""
        self.problems = list(problems)
        """One line per file of that folder that could not be loaded (the others are)."""

    def get(self, profile_id: str) -> Profile:
        """The profile with this id, or :class:`UnknownProfileError` naming the known ones."""
        try:
            return self._by_id[profile_id]
        except KeyError:
            raise UnknownProfileError(profile_id, list(self._by_id)) from None

    def __contains__(self, profile_id: object) -> bool:
        return profile_id in self._by_id

    def ids(self) -> list[str]:
        return sorted(self._by_id)

    def all(self) -> list[Profile]:
        return [self._by_id[i] for i in self.ids()]


RESERVED = ("house.toml",)
"""Files of a profiles folder that are not profiles: the house file (shifts, pits,
accounting thresholds). Pay tables live in ``paytables/``, which the ``*.toml`` of
the folder itself never reaches. Loading skips both (docs/profiles.md)."""


def _dir_profiles(folder: Path) -> tuple[list[Profile], list[str]]:
    """The folder's profiles, and one line for each file that could not be loaded."""
    if not folder.is_dir():
        raise ProfileError(f"profiles folder {str(folder)!r} does not exist")
    profiles: list[Profile] = []
    problems: list[str] = []
    for path in sorted(folder.glob("*.toml")):
        if path.name in RESERVED:
            continue
        try:
            profiles.append(load_profile_file(path))
        except ProfileError as exc:  # one bad file does not keep the others out
            problems.append(str(exc))
    return profiles, problems


@lru_cache(maxsize=8)
def _packaged() -> tuple[Profile, ...]:
    profiles, problems = _dir_profiles(PACKAGED_DIR)
    if problems:
        raise ProfileError(problems[0])
    return tuple(profiles)


def _with_paytables(
    profiles: list[Profile], folder: str | Path | None
) -> tuple[list[Profile], list[str]]:
    """Each profile with the pay tables of the side bets it offers (games.md §1), as data.

    The pay tables are the packaged ones and those of the folder's ``paytables``; a
    profile whose side bet cannot be offered (a pay table no file gives, an evaluator its
    deal or dealer cannot serve) is refused in one line naming the field, like any
    profile file that breaks a rule. A profile offering none is returned as it is.
    """
    if not any(p.rules.side_bets for p in profiles):
        return profiles, []
    from audit.profiles.model import SideBetTable, side_bet_problem
    from audit.sidebets.paytables import load_paytables

    registry = load_paytables(folder)
    evaluators = {t.id: t.evaluator for t in registry.all()}
    out: list[Profile] = []
    problems: list[str] = []
    for p in profiles:
        if not p.rules.side_bets:
            out.append(p)
            continue
        why = side_bet_problem(p.rules, evaluators)
        if why is not None:
            problems.append(f"profile {p.id!r}: rules.{why}")
            continue
        tables = {
            kind: SideBetTable(paytable=t.id, evaluator=t.evaluator, pays=tuple(t.pays))
            for kind, paytable in p.rules.side_bets.items()
            for t in (registry.get(paytable),)
        }
        out.append(p.model_copy(update={"side_bet_tables": tables}))
    return out, problems


def load_registry(extra_dir: str | Path | None = None) -> ProfileRegistry:
    """The packaged profiles, overridden by ``extra_dir`` (or ``$SHOE_AUDIT_PROFILES``).

    A file there that cannot be loaded is left out and named in ``problems``. Each
    profile carries the pay tables of its side bets (games.md §1), found in the packaged
    ``paytables`` folder and the casino's own.
    """
    profiles = list(_packaged())
    folder = extra_dir if extra_dir is not None else os.environ.get(ENV_VAR) or None
    if folder is None:
        packaged, problems = _with_paytables(profiles, None)
        if problems:
            raise ProfileError(problems[0])
        return ProfileRegistry(packaged)
    extra, problems = _dir_profiles(Path(folder))
    every, refused = _with_paytables([*profiles, *extra], folder)
    return ProfileRegistry(every, folder=Path(folder), problems=[*problems, *refused])
