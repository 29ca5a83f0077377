"""Player ids hidden wherever a page or a listing shows them (issue 30, point 8).

A player's id is masked as :func:`audit.reports.hand.mask_player` does (its last two
characters kept), unless ``--show-players``. A home-game banker is a player dealing his
turn: his id is masked where it stands as a dealer too (a dealer column, a per-dealer
table, a "dealer changed to" line, a message naming him). Which dealer ids are players'
is the database's to say (:func:`audit.store.lookup.player_dealers`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def mask_id(player: str) -> str:
    """A player id with all but its last two characters hidden (``P-2586`` -> ``••••86``);
    an id of four characters or fewer is hidden whole."""
    keep = 2 if len(player) > 4 else 0
    return "•" * (len(player) - keep) + player[len(player) - keep :]


def hide_ids(value: T, ids: Iterable[str]) -> T:
    """``value`` with every occurrence of ``ids`` inside its text masked (:func:`mask_id`).

    Walks frozen dataclasses, tuples, lists and dicts (keys too: a per-dealer table keyed
    by dealer); what names none of ``ids`` is returned as it is, not copied. Longer ids
    first, so that ``P-25`` does not eat half of ``P-2586``.
    """
    masks = [(i, mask_id(i)) for i in sorted(set(ids), key=len, reverse=True) if i]
    if not masks:
        return value
    walked: T = _walk(value, masks)
    return walked


def _walk(value: Any, masks: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for pid, mask in masks:
            if pid in value:
                value = value.replace(pid, mask)
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in dataclasses.fields(value):
            old = getattr(value, f.name)
            new = _walk(old, masks)
            if new is not old:
                changes[f.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, (tuple, list)):
        items = [_walk(v, masks) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    if isinstance(value, dict):
        pairs = [(_walk(k, masks), _walk(v, masks)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)
    return value
