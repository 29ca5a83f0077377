"""The entry point: replay one shoe's events under its profile (skeleton)."""

from __future__ import annotations

from collections.abc import Sequence

from audit.engine.result import ShoeContext, ShoeReplay
from audit.events.models import AnyEvent, UnknownEvent
from audit.findings import Code, Finding
from audit.profiles.model import Profile


def replay_shoe(
    events: Sequence[AnyEvent], profile: Profile | None, context: ShoeContext = ShoeContext()
) -> ShoeReplay:
    """Replay one shoe (one table, one shoe id, events in ``seq`` order)."""
    table = events[0].table if events else None
    shoe = events[0].shoe if events else None
    findings = [
        Finding(
            code=Code.LOG_UNKNOWN_TYPE,
            message=f"event {e.id!r} has type {e.type!r}, not in TEL/1",
            table=e.table,
            shoe=e.shoe,
            events=(e.id,),
        )
        for e in events
        if isinstance(e, UnknownEvent)
    ]
    return ShoeReplay(
        table=table,
        shoe=shoe,
        profile_id=profile.id if profile else None,
        findings=tuple(findings),
        rounds=(),
        replayed=profile is not None,
    )
