"""Replaying simulated shoes through the engine, the way the batch layer would."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from audit.engine import ShoeContext, replay_shoe
from audit.events.parse import parse_object
from audit.findings import Finding
from audit.profiles import ProfileRegistry, load_registry
from audit.simulate import InjectedError, RecallReport, ShoeInfoTracker, ShoeOutput, match_findings

_REG = load_registry()


GAMES_PROFILES = Path(__file__).resolve().parents[1] / "data" / "games-profiles"
"""games.md §7's test profile folder: the fields no shipped profile sets."""
GAMES_REG = load_registry(GAMES_PROFILES)
"""The shipped profiles and the test profile folder's."""


def replay_events(
    shoes: Iterable[list[dict[str, Any]]], registry: ProfileRegistry | None = None
) -> list[Finding]:
    """Findings of every shoe (each a list of event dicts in ``seq`` order, tables in order)."""
    reg = registry if registry is not None else _REG
    tracker = ShoeInfoTracker()
    findings: list[Finding] = []
    for events in shoes:
        info = tracker.see(events)
        context = ShoeContext(
            first_shoe_of_gaming_day=info.first_shoe_of_gaming_day,
            banker=info.banker,
            banker_rounds_before=info.banker_rounds_before,
        )
        parsed = [parse_object(e) for e in events]
        profile = reg.get(events[0]["profile"])
        findings.extend(replay_shoe(parsed, profile, context).findings)
    return findings


def audit_run(
    shoes: Iterable[ShoeOutput], registry: ProfileRegistry | None = None
) -> tuple[RecallReport, list[InjectedError]]:
    """Replay the shoes one by one (nothing kept but findings); match them against the manifest."""
    injected: list[InjectedError] = []

    def events() -> Iterable[list[dict[str, Any]]]:
        for s in shoes:
            injected.extend(s.injected)
            yield s.events

    findings = replay_events(events(), registry)
    return match_findings(injected, findings), injected
