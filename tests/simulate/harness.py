"""Replaying simulated shoes through the engine, the way the batch layer would."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from audit.engine import ShoeContext, replay_shoe
from audit.events.parse import parse_object
from audit.findings import Finding
from audit.profiles import load_registry
from audit.simulate import InjectedError, RecallReport, ShoeInfoTracker, ShoeOutput, match_findings

_REG = load_registry()


def replay_events(shoes: Iterable[list[dict[str, Any]]]) -> list[Finding]:
    """Findings of every shoe (each a list of event dicts in ``seq`` order, tables in order)."""
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
        profile = _REG.get(events[0]["profile"])
        findings.extend(replay_shoe(parsed, profile, context).findings)
    return findings


def audit_run(shoes: Iterable[ShoeOutput]) -> tuple[RecallReport, list[InjectedError]]:
    """Replay the shoes one by one (nothing kept but findings); match them against the manifest."""
    injected: list[InjectedError] = []

    def events() -> Iterable[list[dict[str, Any]]]:
        for s in shoes:
            injected.extend(s.injected)
            yield s.events

    findings = replay_events(events())
    return match_findings(injected, findings), injected
