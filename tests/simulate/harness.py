"""Replaying simulated shoes through the engine, the way the batch layer would."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from audit.engine import ShoeContext, replay_shoe
from audit.events.parse import parse_object
from audit.findings import Finding
from audit.profiles import load_registry
from audit.simulate import InjectedError, RecallReport, ShoeOutput, match_findings, shoe_infos

_REG = load_registry()


def replay_events(shoes: list[list[dict[str, Any]]]) -> list[Finding]:
    """Findings of every shoe (each a list of event dicts in ``seq`` order, tables in order)."""
    infos = shoe_infos(shoes)
    findings: list[Finding] = []
    for events in shoes:
        parsed = [parse_object(e) for e in events]
        info = infos[(events[0]["table"], events[0]["shoe"])]
        context = ShoeContext(
            first_shoe_of_gaming_day=info.first_shoe_of_gaming_day,
            banker=info.banker,
            banker_rounds_before=info.banker_rounds_before,
        )
        profile = _REG.get(events[0]["profile"])
        findings.extend(replay_shoe(parsed, profile, context).findings)
    return findings


def audit_run(shoes: Iterable[ShoeOutput]) -> tuple[RecallReport, list[InjectedError]]:
    """Replay the shoes; match the findings against what was injected."""
    outs = list(shoes)
    injected = [i for s in outs for i in s.injected]
    findings = replay_events([s.events for s in outs])
    return match_findings(injected, findings), injected
