"""JSON Schema of TEL/1 events and of a finding, as `shoe-audit schema` writes them.

The schemas are generated from the models that define the formats
(:mod:`audit.events.models`, :class:`audit.findings.Finding`), so they cannot
drift from the code; the committed copies in ``schemas/`` are tested to be
current.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from audit.events.models import EVENT_TYPES, Event, TableEvent, UnknownEvent
from audit.findings import FINDING_KEYS, Code, Severity

EVENT_SCHEMA_FILE = "tel1-event.schema.json"
FINDING_SCHEMA_FILE = "finding.schema.json"


def event_schema() -> dict[str, Any]:
    """The JSON Schema of one TEL/1 line: a known event, or an event of an unknown type."""
    known = TypeAdapter(Annotated[Event | TableEvent, Field(discriminator="type")]).json_schema(
        ref_template="#/$defs/{model}"
    )
    unknown = UnknownEvent.model_json_schema(ref_template="#/$defs/{model}")
    defs = {**known.pop("$defs", {}), **unknown.pop("$defs", {})}
    unknown["properties"]["type"] = {"type": "string", "not": {"enum": sorted(EVENT_TYPES)}}
    defs["UnknownEvent"] = unknown
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://shoe-audit.example/schemas/tel1-event.schema.json",
        "title": "TEL/1 event (Table Event Log, version 1)",
        "description": (
            "One line of a TEL/1 JSON Lines file. Unknown fields are allowed and kept; "
            "an unknown `type` is stored but not replayed (LOG_UNKNOWN_TYPE). Money is a "
            "JSON number with at most 2 decimals."
        ),
        "oneOf": [known, {"$ref": "#/$defs/UnknownEvent"}],
        "$defs": defs,
    }


def finding_schema() -> dict[str, Any]:
    """The JSON Schema of one line of ``shoe-audit findings --format jsonl``."""
    nullable_str = {"type": ["string", "null"]}
    nullable_int = {"type": ["integer", "null"]}
    # an impact may be due to a fraction of a cent (3:2 on an odd stake): up to 4 decimals
    money = {"type": ["string", "null"], "pattern": r"^-?\d+(\.\d{1,4})?$"}
    props: dict[str, Any] = {
        "code": {"type": "string", "enum": [c.value for c in Code]},
        "severity": {"type": "string", "enum": [s.value for s in Severity]},
        "table": nullable_str,
        "shoe": nullable_str,
        "round": nullable_int,
        "box": nullable_int,
        "hand": nullable_int,
        "spot": nullable_int,
        "expected": nullable_str,
        "actual": nullable_str,
        "impact": money,
        "rule": nullable_str,
        "events": {"type": "array", "items": {"type": "string"}},
        "source": {**nullable_str, "description": "file:line for findings raised while reading"},
        "message": {"type": "string"},
        "id": {
            "type": ["string", "null"],
            "pattern": "^[0-9a-f]{16}$",
            "description": "the stable id of the breach (code and place), once stored",
        },
        "gaming_day": {
            "type": ["string", "null"],
            "pattern": r"^\d{4}-\d{2}-\d{2}$",
            "description": "an ACCT_ finding's period's gaming day, else the shoe's (TEL/1 v1.2)",
        },
        "shift": {
            **nullable_str,
            "description": "the house file's shift, as gaming_day (TEL/1 v1.2)",
        },
    }
    assert tuple(props) == FINDING_KEYS
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://shoe-audit.example/schemas/finding.schema.json",
        "title": "shoe-audit finding (catalogue v1)",
        "type": "object",
        "properties": props,
        "required": list(FINDING_KEYS),
        "additionalProperties": False,
    }


def render_schemas() -> dict[str, str]:
    """File name → text of every schema (stable formatting, trailing newline)."""
    return {
        EVENT_SCHEMA_FILE: json.dumps(event_schema(), indent=2, sort_keys=True) + "\n",
        FINDING_SCHEMA_FILE: json.dumps(finding_schema(), indent=2, sort_keys=True) + "\n",
    }


def write_schemas(out_dir: Path) -> list[Path]:
    """Write the schemas into ``out_dir`` (created if needed); return the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_schemas().items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
