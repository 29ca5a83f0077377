"""Pay tables as data: the shipped ones and a casino's own, by id.

games.md §1: a pay table is a TOML file in a ``paytables`` folder beside the
profile files (the packaged ones, or in ``--profiles DIR``, where one with a
packaged id replaces it)::

    id = "perfect-pairs-25-12-6"
    title = "Perfect Pairs, 25/12/6"
    evaluator = "pair"
    source = "wizardofodds.com/games/blackjack/side-bets/perfect-pairs/"

    [pays]
    perfect = "25/1"
    coloured = "12/1"
    mixed = "6/1"

Pays are net ratios "to 1", written as strings; a line is one of the
evaluator's (:data:`~audit.sidebets.evaluators.EVALUATORS`). A file that breaks
this is refused in one line naming the file and the field.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

from audit.errors import PayTableError, UnknownPayTableError
from audit.profiles.registry import ENV_VAR, PACKAGED_DIR
from audit.sidebets.evaluators import EVALUATORS, Evaluator

__all__ = [
    "PACKAGED_PAYTABLES",
    "PayTable",
    "PayTableRegistry",
    "load_paytable_file",
    "load_paytables",
    "offered_side_bets",
    "side_bets_asked",
    "side_bets_problem",
]

PACKAGED_PAYTABLES = PACKAGED_DIR / "paytables"
FOLDER = "paytables"
"""The folder of pay tables inside a profiles folder (registry.RESERVED's note)."""
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_RATIO = re.compile(r"^([0-9]+)/([1-9][0-9]*)$")
_KEYS = ("id", "title", "evaluator", "source", "pays")


@dataclass(frozen=True, slots=True)
class PayTable:
    """One pay table: which evaluator decides the bet, and what each line pays to 1."""

    id: str
    title: str
    evaluator: str
    source: str
    pays: tuple[tuple[str, Fraction], ...]
    """The lines the table lists, in the evaluator's order (best first), with their net ratio."""
    path: str = ""
    """The file it was read from (for messages)."""

    @property
    def verifier(self) -> Evaluator:
        """The evaluator that decides this table's bets ("a verifier of the dealt cards")."""
        return EVALUATORS[self.evaluator]

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(line for line, _ in self.pays)

    def ratio(self, line: str) -> Fraction:
        """What ``line`` pays to 1 (KeyError for a line the table does not list)."""
        return dict(self.pays)[line]

    def outcome(self, satisfied: Sequence[str]) -> str | None:
        """The line paid for cards that satisfy ``satisfied`` (an evaluator's answer).

        games.md §1: the first line, in the evaluator's order, that the cards
        satisfy and the table lists; None when there is none (the bet loses its stake).
        """
        listed = dict(self.pays)
        return next((line for line in satisfied if line in listed), None)

    def net(self, satisfied: Sequence[str]) -> Fraction:
        """The net result per unit staked: the paid line's ratio, or -1 (never a push)."""
        line = self.outcome(satisfied)
        return Fraction(-1) if line is None else self.ratio(line)


def load_paytable_file(path: Path) -> PayTable:
    """Read one pay-table file; :class:`PayTableError` names the file and the field."""
    try:
        with path.open("rb") as fh:
            raw = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PayTableError(f"{path}: cannot read pay table: {exc}") from None
    return _parse(raw, str(path))


def _parse(raw: dict[str, Any], where: str) -> PayTable:
    def refuse(field: str, why: str) -> PayTableError:
        return PayTableError(f"{where}: {field}: {why}")

    extra = sorted(set(raw) - set(_KEYS))
    if extra:
        raise refuse(extra[0], f"not a pay-table key (the keys: {', '.join(_KEYS)})")
    for key in _KEYS[:4]:
        value = raw.get(key)
        if not isinstance(value, str) or not value.strip():
            got = "missing" if value is None else f"got {value!r}"
            raise refuse(key, f"a pay table names its {key} as a non-empty string ({got})")
    if not _ID.match(raw["id"]):
        raise refuse(
            "id",
            "1-64 characters from a-z, 0-9, '-' and '_', starting with a letter or digit "
            f"(got {raw['id']!r})",
        )
    evaluator = EVALUATORS.get(raw["evaluator"])
    if evaluator is None:
        raise refuse(
            "evaluator",
            f"unknown evaluator {raw['evaluator']!r} (the evaluators: {', '.join(EVALUATORS)})",
        )
    pays = raw.get("pays")
    if not isinstance(pays, dict) or not pays:
        raise refuse("pays", 'a [pays] table with one line each, such as perfect = "25/1"')
    for line, ratio in pays.items():
        if line not in evaluator.lines:
            raise refuse(
                f"pays.{line}",
                f"not a line of evaluator {evaluator.name!r} "
                f"(its lines: {', '.join(evaluator.lines)})",
            )
        match = _RATIO.match(ratio) if isinstance(ratio, str) else None
        if match is None or int(match.group(1)) == 0:
            raise refuse(
                f"pays.{line}",
                "a pay is a positive ratio to 1 written as a string such as "
                f'"25/1" (got {ratio!r})',
            )
    return PayTable(
        id=raw["id"],
        title=raw["title"],
        evaluator=evaluator.name,
        source=raw["source"],
        pays=tuple(
            (line, Fraction(int(m.group(1)), int(m.group(2))))
            for line in evaluator.lines
            if line in pays and (m := _RATIO.match(pays[line])) is not None
        ),
        path=where,
    )


class PayTableRegistry:
    """The pay tables known to one run, by id."""

    def __init__(
        self,
        tables: Iterable[PayTable],
        *,
        folder: Path | None = None,
        problems: Iterable[str] = (),
    ) -> None:
        self._by_id = {t.id: t for t in tables}
        self.folder = folder
        """The casino's own ``paytables`` folder searched, if any."""
        self.problems = list(problems)
        """One line per file of that folder that could not be loaded (the others are)."""

    def get(self, paytable_id: str) -> PayTable:
        """The pay table with this id, or :class:`UnknownPayTableError` naming the known ones."""
        try:
            return self._by_id[paytable_id]
        except KeyError:
            raise UnknownPayTableError(paytable_id, list(self._by_id)) from None

    def __contains__(self, paytable_id: object) -> bool:
        return paytable_id in self._by_id

    def ids(self) -> list[str]:
        return sorted(self._by_id)

    def all(self) -> list[PayTable]:
        return [self._by_id[i] for i in self.ids()]


def _dir_tables(folder: Path) -> tuple[list[PayTable], list[str]]:
    """The folder's pay tables, and one line for each file that could not be loaded.

    Two files of one folder with the same id are refused both ways round: the
    second is left out and named, so which one pays is never a matter of file order.
    """
    tables: list[PayTable] = []
    problems: list[str] = []
    seen: dict[str, str] = {}
    for path in sorted(folder.glob("*.toml")):
        try:
            table = load_paytable_file(path)
        except PayTableError as exc:  # one bad file does not keep the others out
            problems.append(str(exc))
            continue
        if table.id in seen:
            problems.append(f"{path}: id: {table.id!r} is already the id of {seen[table.id]}")
            continue
        seen[table.id] = str(path)
        tables.append(table)
    return tables, problems


@lru_cache(maxsize=1)
def _packaged() -> tuple[PayTable, ...]:
    tables, problems = _dir_tables(PACKAGED_PAYTABLES)
    if problems:
        raise PayTableError(problems[0])
    return tuple(tables)


def load_paytables(extra_dir: str | Path | None = None) -> PayTableRegistry:
    """The packaged pay tables, overridden by those in ``extra_dir``'s ``paytables`` folder.

    ``extra_dir`` is the casino's ``--profiles`` folder (or ``$SHOE_AUDIT_PROFILES``);
    a pay table there with a packaged id replaces it. A file there that cannot
    be loaded is left out and named in ``problems``.
    """
    tables = list(_packaged())
    folder = extra_dir if extra_dir is not None else os.environ.get(ENV_VAR) or None
    if folder is None:
        return PayTableRegistry(tables)
    own = Path(folder) / FOLDER
    if not own.is_dir():
        return PayTableRegistry(tables)
    extra, problems = _dir_tables(own)
    return PayTableRegistry([*tables, *extra], folder=own, problems=problems)


def offered_side_bets(rules: Any) -> dict[str, str]:
    """The side bets a profile offers: side-bet id → pay-table id (games.md §1, ``side_bets``).

    A profile written before the field (or a model without it) offers none.
    """
    offered = getattr(rules, "side_bets", None) or {}
    return {str(k): str(v) for k, v in dict(offered).items()}


def side_bets_asked(
    registry: PayTableRegistry, offered: Mapping[str, str], paytable_ids: Sequence[str] = ()
) -> list[tuple[str, PayTable]]:
    """The pay tables ``theory`` prices, each under the key it is shown by (games.md §6).

    The profile's side bets first, by side-bet id, then each ``--paytable`` by
    pay-table id, in the order given; a key asked for twice is shown once.
    """
    asked: dict[str, PayTable] = {}
    for side_bet, paytable_id in offered.items():
        if paytable_id not in registry:
            raise UnknownPayTableError(paytable_id, registry.ids(), side_bet=side_bet)
        asked.setdefault(side_bet, registry.get(paytable_id))
    for paytable_id in paytable_ids:
        asked.setdefault(paytable_id, registry.get(paytable_id))
    return list(asked.items())


SIDE_BET_ID = re.compile(r"^(?!_)[a-z0-9_]{1,32}$")
"""games.md §2: 1-32 characters from a-z, 0-9, _, not starting with _."""
RESERVED_KINDS = frozenset({"main", "insurance", "bonus"})
_READS_UP_CARD = frozenset({"three_card", "twenty"})


def side_bets_problem(
    offered: Mapping[str, str],
    registry: PayTableRegistry,
    *,
    dealer_has_up_card: bool,
    dealer_plays_freely: bool,
) -> str | None:
    """Why a profile's ``side_bets`` must be refused at load (games.md §1), or None.

    One line naming the field (``side_bets.<id>``): an id not of §2's form or
    reserved; a pay table no file gives; a ``three_card`` or ``twenty`` bet where
    the deal gives the dealer no face-up card; a ``dealer_bust_cards`` bet where
    the dealer plays freely (no draw rule).
    """
    for side_bet, paytable_id in offered.items():
        field = f"side_bets.{side_bet}"
        if not SIDE_BET_ID.match(side_bet) or side_bet in RESERVED_KINDS:
            return (
                f"{field}: a side-bet id is 1-32 characters from a-z, 0-9 and _, not starting "
                f"with _, and not main, insurance or bonus (got {side_bet!r})"
            )
        if paytable_id not in registry:
            return (
                f"{field}: names no pay table: {paytable_id!r} "
                f"(known: {', '.join(registry.ids()) or 'none'})"
            )
        evaluator = registry.get(paytable_id).evaluator
        if evaluator in _READS_UP_CARD and not dealer_has_up_card:
            return (
                f"{field}: pay table {paytable_id!r} ({evaluator}) reads the dealer's up card, "
                "and this deal gives the dealer no face-up card"
            )
        if evaluator == "dealer_bust_cards" and dealer_plays_freely:
            return (
                f"{field}: pay table {paytable_id!r} ({evaluator}) reads the dealer's draw, "
                "and this dealer plays freely (no draw rule)"
            )
    return None
