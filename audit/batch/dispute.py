"""One disputed round, replayed from the store exactly as ``run`` audits it."""

from __future__ import annotations

from pathlib import Path

from audit.batch.runner import profile_for, replay_stored_shoe
from audit.errors import NotFoundError
from audit.profiles import ProfileRegistry, load_registry
from audit.store import ShoeKey, Store


def _nearest(wanted: str, known: list[str], k: int = 5) -> list[str]:
    import difflib

    return difflib.get_close_matches(wanted, known, n=k, cutoff=0.0)


def hand_packet(
    store: Store,
    table: str,
    shoe: str,
    round_no: int,
    fmt: str = "text",
    *,
    color: bool = False,
    templates: Path | None = None,
    profiles: Path | None = None,
    registry: ProfileRegistry | None = None,
    ascii_only: bool = False,
    show_players: bool = False,
) -> str:
    """The dispute packet of one round (``text``, ``html`` or ``json``).

    Each event shows where it was read (file:line as ingested). ``ascii_only``
    folds text to ASCII (for an output that cannot carry «più»). Player ids are masked
    unless ``show_players``, a home-game banker's where he deals too. Raises
    :class:`NotFoundError` naming the nearest tables, shoes or rounds when the
    round does not exist.
    """
    from audit.reports.hand import build_hand_context, masked, render_hand_context
    from audit.reports.sources import event_sources
    from audit.store.lookup import player_dealers

    registry = registry or load_registry(profiles)
    key = ShoeKey(table, shoe)
    infos = store.shoe_info()
    if key not in infos:
        tables = sorted({k.table for k in infos})
        if table not in tables:
            near = ", ".join(_nearest(table, tables)) or "none"
            raise NotFoundError(f"no table {table!r} in the database; tables: {near}")
        shoes = sorted(k.shoe for k in infos if k.table == table)
        near = ", ".join(_nearest(shoe, shoes))
        raise NotFoundError(f"no shoe {shoe!r} at table {table!r}; nearest: {near}")
    replay, events = replay_stored_shoe(store, registry, key)
    profile = profile_for(registry, replay.profile_id)
    ctx = build_hand_context(
        replay, round_no, profile, events=events, sources=event_sources(store.con, table, shoe)
    )
    if not show_players:
        ctx = masked(ctx, player_dealers(store.con))
    return render_hand_context(
        ctx,
        fmt,  # type: ignore[arg-type]
        color=color,
        templates_dir=templates,
        ascii_only=ascii_only,
    )
